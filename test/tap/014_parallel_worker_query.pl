# No parallel worker runs the owner's code while a run without read access
# reads the source (docs/governance.md, "Hostile review of 2026-11-28, third
# round").
#
# A parallel worker reports the statement it runs in pg_stat_activity, under
# the role that logged in, to every session of that role. The owner's view
# calls a function that builds its statement with the row's value inlined
# (EXECUTE format('... %L', name)), the case whose CONTEXT line was closed on
# 2026-11-28. The analyst sets force_parallel_mode = on (any role may): each
# such statement ran in a parallel worker, and the analyst's second session
# read "... name = 'patient 1: HIV+' ..." in pg_stat_activity, during the
# count of a run then refused for free (batch_size above n). Now the source
# is read with max_parallel_workers_per_gather = 0 and force_parallel_mode off
# (src/pg/reading_settings.h): no worker, nothing to read.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('parallel_worker_query');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
  CREATE EXTENSION dptrain;
  CREATE ROLE analyst LOGIN;
  CREATE SCHEMA clinic;
  GRANT USAGE ON SCHEMA clinic TO analyst;
  CREATE TABLE clinic.consents AS
    SELECT format('patient %s: %s', i, CASE WHEN i % 10 = 1 THEN 'HIV+' ELSE 'clear' END) AS name
    FROM generate_series(1, 40) i;
  CREATE TABLE clinic.patients AS
    SELECT name, sin(length(name)) AS a, length(name) % 2 = 0 AS y FROM clinic.consents;
  -- (pg_sleep: the owner's lookup takes a while, as a real one on a big table would)
  CREATE FUNCTION clinic.consented(n text) RETURNS float8 STABLE LANGUAGE plpgsql AS $f$
  DECLARE r float8;
  BEGIN
    EXECUTE format('SELECT count(*)::float8 FROM clinic.consents WHERE name = %L AND pg_sleep(0.001) IS NOT NULL', n)
      INTO r;
    RETURN r;
  END $f$;
  CREATE VIEW clinic.v AS SELECT ARRAY[a, clinic.consented(name)]::float8[] AS x, y FROM clinic.patients;
  SELECT dp_grant_budget('clinic.v', 'analyst', 10, 1e-5);});

# The run waits for the view's lock until the watcher is ready.
my $owner = $node->background_psql('postgres');
$owner->query_safe('BEGIN; LOCK TABLE clinic.v IN ACCESS EXCLUSIVE MODE');
my $run = $node->background_psql('postgres', on_error_stop => 0, extra_params => [ '-U', 'analyst' ]);
my $pid = $run->query_safe('SELECT pg_backend_pid()');
$run->query_until(qr/started/, q{
  SET force_parallel_mode = on;
  \echo started
  SELECT model_id FROM dp_train('clinic.v', 'y', 'x', algorithm => 'dpsgd', epsilon => 1, delta => 1e-6,
                                batch_size => 100000);
  \echo finished
});
$node->poll_query_until('postgres', qq{SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $pid})
  or die 'the run never waited for the view';
$owner->query_safe('COMMIT');
$owner->quit;
# The analyst's second session watches its parallel workers until the call ends.
my %seen;
my $busy = qq{SELECT state = 'active' FROM pg_stat_activity WHERE pid = $pid};
while (1) {
	my $queries = $node->safe_psql('postgres',
		q{SELECT string_agg(query, E'\n') FROM pg_stat_activity WHERE backend_type = 'parallel worker'},
		extra_params => [ '-U', 'analyst' ]);
	$seen{$_} = 1 for grep { length } split /\n/, $queries;
	last if $node->safe_psql('postgres', $busy) ne 't';
}
$run->query_until(qr/finished/, '');
like($run->{stderr}, qr/batch_size \(100000\) is larger than the number of rows \(40\)/,
	'the run was refused after the count, before its charge');
$run->quit;
is(join("\n", grep { /patient/ } sort keys %seen), '', 'no parallel worker showed the owner\'s statement');
is($node->safe_psql('postgres', q{SELECT epsilon FROM dp_budget_remaining('clinic.v', 'analyst')}),
	'10', 'nothing was charged');

$node->stop;
done_testing();
