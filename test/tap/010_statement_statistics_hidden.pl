# pg_stat_statements counts nothing of a run without read access.
#
# With pg_stat_statements loaded and track = all (an operator's setting), every
# nested statement is counted in a view PUBLIC may read: calls, rows, blocks
# and times of every role's statements, their text hidden but not their
# numbers. Found by the hostile review of 2026-11-27 (second round): a role
# with a budget and no SELECT saw
#   - the number of passes of its runs (the runner's pass statement gained
#     one call per pass), which AMP's and the optimum's optimizers choose
#     from the data (the same count test/tap/009 hides from the statistics
#     of tables);
#   - the rows found by the statements of the owner's view function while
#     its run read the view as the owner: here the number of consenting
#     patients, a count of rows with a property.
# Now the reads as the owner and the passes run with pg_stat_statements.track
# = none, like track_counts (src/pg/pass_messages.h, stop_statement_statistics).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('statement_stats');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
});
$node->start;
$node->safe_psql('postgres', q{
  CREATE EXTENSION dptrain;
  CREATE EXTENSION pg_stat_statements;
  CREATE ROLE alice LOGIN;
  CREATE ROLE analyst LOGIN;
  GRANT CREATE ON SCHEMA public TO alice;});
$node->safe_psql('postgres', q{
  CREATE TABLE t AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(3 * i) > 0) AS y
    FROM generate_series(1, 200) i;
  CREATE TABLE consents (id int PRIMARY KEY, ok boolean);
  INSERT INTO consents SELECT i, i % 10 = 0 FROM generate_series(1, 200) i;
  -- the owner's filter: one statement per row, finding the row's consent
  CREATE FUNCTION consented(p int) RETURNS boolean LANGUAGE plpgsql STABLE
    SET search_path = public, pg_temp AS $$
  BEGIN
    PERFORM FROM consents c WHERE c.id = p AND c.ok;
    RETURN FOUND;
  END $$;
  CREATE VIEW v AS SELECT x, consented(id) AS y FROM t;
  SELECT dp_grant_budget('t', 'analyst', 100, 1e-3);
  SELECT dp_grant_budget('v', 'analyst', 100, 1e-3);}, extra_params => ['-U', 'alice']);

# What the analyst reads of the other roles' statements: calls and rows.
sub others
{
	return $node->safe_psql('postgres', q{
	  SELECT coalesce(sum(calls), 0) || ' ' || coalesce(sum(rows), 0) FROM pg_stat_statements
	  WHERE userid <> 'analyst'::regrole}, extra_params => ['-U', 'analyst']);
}
sub growth
{
	my ($sql) = @_;
	my $before = others();
	$node->safe_psql('postgres', $sql, extra_params => ['-U', 'analyst']);
	my $after = others();
	my @b = split / /, $before;
	my @a = split / /, $after;
	return ($a[0] - $b[0]) . ' calls, ' . ($a[1] - $b[1]) . ' rows';
}

# Bolt-on's passes are its epochs (public): 1 and 5 epochs show whether the
# passes are counted.
my $bolton = q{SELECT model_id > 0 FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1,
  batch_size => 10, epochs => };
growth($bolton . '1)');    # the first charge on a source writes one row more
my $one = growth($bolton . '1)');
my $five = growth($bolton . '5)');
note("other roles' statements during a run: $one (1 epoch), $five (5 epochs)");
is($five, $one, 'the analyst cannot count the passes of its runs in pg_stat_statements');

# The owner's view function finds 20 consents, then 100: the rows its
# statements found must not show.
my $train_v = q{SELECT model_id > 0 FROM dp_train('v', 'y', 'x', algorithm => 'bolton', epsilon => 1,
  batch_size => 10, epochs => 1, classes => ARRAY['false', 'true'])};
growth($train_v);
my $few = growth($train_v);
$node->safe_psql('postgres', 'UPDATE consents SET ok = id % 2 = 0', extra_params => ['-U', 'alice']);
my $many = growth($train_v);
note("other roles' statements during a run on the view: $few (20 consents), $many (100)");
is($many, $few, "the rows the owner's view function found do not show in pg_stat_statements");

# The blocks the passes read do not count in the buffers of the analyst's
# own statement either: EXPLAIN (ANALYZE, BUFFERS) of its dp_train showed
# "local hit" growing by 4 per pass of the temp copy (8 for 1 epoch, 24 for
# 5), and pg_stat_statements' entry of the statement (track = top too, the
# default) adds up the same counters.
sub local_hits
{
	my ($epochs) = @_;
	my $plan = $node->safe_psql('postgres', qq{
	  EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)
	  SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 10,
	    epochs => $epochs)}, extra_params => ['-U', 'analyst']);
	my ($hits) = $plan =~ /local hit=(\d+)/;
	return $hits // 0;
}
my ($hits1, $hits5) = (local_hits(1), local_hits(5));
note("local buffer hits of the analyst's dp_train: $hits1 (1 epoch), $hits5 (5 epochs)");
is($hits5, $hits1, "the analyst's EXPLAIN (ANALYZE, BUFFERS) does not count the passes");
sub own_blocks
{
	my ($epochs) = @_;
	my $blocks = q{SELECT coalesce(sum(local_blks_hit), 0) FROM pg_stat_statements
	  WHERE userid = 'analyst'::regrole AND query LIKE '%FROM dp_train(%'
	    AND query NOT LIKE '%pg_stat_statements%'};
	my @b = split /\n/, $node->safe_psql('postgres', qq{
	  $blocks;
	  SELECT model_id > 0 FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, batch_size => 10,
	    epochs => $epochs) \\g /dev/null
	  $blocks;}, extra_params => ['-U', 'analyst']);
	return $b[1] - $b[0];
}
my ($blocks1, $blocks5) = (own_blocks(1), own_blocks(5));
note("local blocks of the analyst's dp_train in pg_stat_statements: $blocks1 (1 epoch), $blocks5 (5 epochs)");
is($blocks5, $blocks1, "nor does pg_stat_statements' entry of the analyst's dp_train");

# A reader still sees its own statements counted (nothing changed for it),
# and the setting is the caller's again after the run.
my $after = $node->safe_psql('postgres', q{
  BEGIN;
  SELECT model_id > 0 FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
    batch_size => 10) \g /dev/null
  SELECT current_setting('pg_stat_statements.track') || ' ' || current_setting('track_counts');
  COMMIT;}, extra_params => ['-U', 'analyst']);
is($after, 'all on', 'pg_stat_statements.track and track_counts are restored after the run');

$node->stop;
done_testing();
