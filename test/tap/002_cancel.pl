# Cancelling a training run (pg_cancel_backend, statement_timeout) stops it
# within one epoch and leaves nothing behind: no model, no temp table, and
# for a non-private run no ledger row (a private run's charge, committed
# before its data is read, stays: last case). The server log (log_statement =
# all, millisecond timestamps, epoch NOTICEs logged) tells when the cancel
# was asked for, which epochs finished after it, and when the run stopped;
# the latencies are reported with diag, never asserted (tests do not assert
# wall-clock times).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::Local qw(timegm);

my $node = PostgreSQL::Test::Cluster->new('cancel');
$node->init;
$node->append_conf('postgresql.conf', "log_min_messages = notice\nlog_timezone = 'UTC'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION dptrain');
# Big enough for epochs of some tens of milliseconds.
$node->safe_psql('postgres', q{
  CREATE TABLE big AS SELECT i AS id, ARRAY[sin(i), cos(i), sin(2 * i)]::float8[] AS x, (sin(i) > 0) AS y
  FROM generate_series(1, 300000) i});

# Seconds since the epoch of a log line's "%m" prefix (UTC, milliseconds).
sub stamp
{
	my ($line) = @_;
	$line =~ /^(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+)\.(\d+) UTC/ or die "no timestamp in: $line";
	return timegm($6, $5, $4, $3, $2 - 1, $1) + "0.$7";
}

sub log_since
{
	my ($offset) = @_;
	return split /\n/, slurp_file($node->logfile, $offset);
}

sub counts
{
	return $node->safe_psql('postgres',
		q{SELECT (SELECT count(*) FROM dptrain.models) || '/' || (SELECT count(*) FROM dptrain.ledger)});
}

# ---- how long an epoch takes here --------------------------------------------
my $offset = -s $node->logfile;
$node->safe_psql('postgres',
	q{SELECT model_id FROM dp_train('big', 'y', 'x', algorithm => 'none', epochs => 6, name => 'timed')});
my @epochs = map { stamp($_) } grep { /epoch \d+ of 6 done/ } log_since($offset);
is(scalar @epochs, 6, 'every epoch NOTICE reaches the log');
my $epoch_seconds = ($epochs[-1] - $epochs[0]) / 5;
diag(sprintf('one epoch over 300000 rows: %.0f ms', 1000 * $epoch_seconds));
my $before = counts();
is($before, '1/1', 'the completed run stored a model and logged it');

# ---- pg_cancel_backend ---------------------------------------------------------
my $bg = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $bg->query_safe('SELECT pg_backend_pid()');
$offset = -s $node->logfile;
$bg->query_until(qr/started/, q{
  \echo started
  SELECT model_id FROM dp_train('big', 'y', 'x', algorithm => 'none', epochs => 100000, name => 'cancelled');
});
$node->wait_for_log(qr/\[$pid\].*epoch 3 of 100000 done/, $offset);
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
$node->wait_for_log(qr/\[$pid\].*ERROR:  canceling statement due to user request/, $offset);

my @lines = log_since($offset);
my ($asked) = grep { /statement: SELECT pg_cancel_backend\($pid\)/ } @lines;
my ($stopped) = grep { /\[$pid\].*canceling statement due to user request/ } @lines;
my $after_cancel = 0;
my $seen_cancel = 0;
for (@lines)
{
	$seen_cancel = 1 if /statement: SELECT pg_cancel_backend\($pid\)/;
	$after_cancel++ if $seen_cancel && /\[$pid\].*epoch \d+ of 100000 done/;
}
ok($after_cancel <= 1, "pg_cancel_backend stops the run within one epoch ($after_cancel epochs finished after it)");
diag(sprintf('pg_cancel_backend -> run stopped: %.0f ms (one epoch: %.0f ms)',
	1000 * (stamp($stopped) - stamp($asked)), 1000 * $epoch_seconds));
is(counts(), $before, 'the cancelled run stored no model and charged nothing');
# (the session's stderr still holds the cancelled statement's error)
my $temp_tables = $bg->query(q{SELECT count(*) FROM pg_class WHERE relname LIKE 'dptrain_shuffled%'});
like($bg->{stderr}, qr/canceling statement due to user request/, 'the session saw the cancellation');
$bg->{stderr} = '';
is($temp_tables, '0', 'the cancelled run left no temp table in its session');

# ---- statement_timeout ------------------------------------------------------------
$bg->query_safe(q{SET statement_timeout = '1500ms'});
$offset = -s $node->logfile;
my ($out, $failed) = $bg->query(
	q{SELECT model_id FROM dp_train('big', 'y', 'x', algorithm => 'none', epochs => 100000, name => 'timed_out')});
ok($failed, 'statement_timeout ends the run with an error');
$node->wait_for_log(qr/\[$pid\].*canceling statement due to statement timeout/, $offset);
@lines = log_since($offset);
my ($started) = grep { /\[$pid\].*statement: SELECT model_id FROM dp_train/ } @lines;
($stopped) = grep { /\[$pid\].*canceling statement due to statement timeout/ } @lines;
my $deadline = stamp($started) + 1.5;
my $late = grep { /\[$pid\].*epoch \d+ of 100000 done/ && stamp($_) > $deadline } @lines;
ok($late <= 1, "statement_timeout stops the run within one epoch ($late epochs finished after the deadline)");
diag(sprintf('statement_timeout deadline -> run stopped: %.0f ms', 1000 * (stamp($stopped) - $deadline)));
is(counts(), $before, 'the timed-out run stored no model and charged nothing');
$bg->{stderr} = '';

# ---- cancelled after the charge, before the commit: the charge stays ------------------
# (what a controller-mode run looks like between store_model and COMMIT)
$node->safe_psql('postgres', q{
  CREATE ROLE controller;
  GRANT SELECT ON big TO controller;
  GRANT EXECUTE ON FUNCTION dptrain.store_model(jsonb) TO controller;
  SELECT dp_grant_budget('big', 'controller', 1.0, 0);});
$bg->query_safe(q{SET statement_timeout = 0});
$bg->query_safe(q{SET ROLE controller});
$bg->query_safe(q{BEGIN});
is($bg->query_safe(q{SELECT dptrain.store_model(jsonb_build_object('format', 'dptrain-model', 'version', 1,
  'name', 'charged_then_cancelled', 'algorithm', 'bolton', 'loss', 'logistic', 'huber_h', 0.1, 'feature_bound', 1.0,
  'classes', ARRAY['false', 'true'], 'weights', jsonb_build_array(jsonb_build_array(0.1, 0.2, 0.3)),
  'epsilon', 0.5, 'delta', 0, 'seeded', false,
  'details', jsonb_build_object('data', jsonb_build_object('source', 'public.big')))) > 0}), 't',
	'charged inside the open transaction');
$bg->query_until(qr/sleeping/, qq{\\echo sleeping\nSELECT pg_sleep(600);\n});
$node->poll_query_until('postgres', qq{SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $pid});
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
$bg->query(q{ROLLBACK});
is($node->safe_psql('postgres', q{SELECT spent_epsilon FROM dptrain.budgets}), '0.5',
	'a transaction cancelled after its charge paid it (the charge is committed on its own)');
is(counts(), '1/2', 'and stored no model (its ledger row has none)');
$bg->quit;

$node->stop;
done_testing();
