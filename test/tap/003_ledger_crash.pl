# A backend killed in the middle of a run -- after its charge, before its
# commit; or in the middle of its epochs -- and an immediate shutdown leave
# the ledger consistent after recovery: every budget's spent equals the sum
# of its ledger rows, every model has its ledger row, no model of a killed
# run remains -- and a charge, once made, stays (it is committed on
# its own before the run goes on: the killed run was paid for).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf('postgresql.conf', "restart_after_crash = on\nlog_min_messages = notice\n");
$node->start;
$node->safe_psql('postgres', q{
  CREATE EXTENSION dptrain;
  CREATE ROLE racer;
  CREATE TABLE t AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y
    FROM generate_series(1, 200000) i;
  GRANT SELECT ON t TO racer;
  GRANT EXECUTE ON FUNCTION dptrain.store_model(jsonb) TO racer;
  SELECT dp_grant_budget('t', 'racer', 1.0, 1e-5);
  CREATE FUNCTION model(name text, epsilon float8) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('format', 'dptrain-model', 'version', 1, 'name', name, 'algorithm', 'bolton',
      'loss', 'logistic', 'huber_h', 0.1, 'feature_bound', 1.0, 'classes', ARRAY['false', 'true'],
      'weights', jsonb_build_array(jsonb_build_array(0.5, -0.5)), 'epsilon', epsilon, 'delta', 1e-6,
      'seeded', false, 'details', jsonb_build_object('data', jsonb_build_object('source', 'public.t')))
  $$;});

# Two committed charges of 0.25.
$node->safe_psql('postgres', q{SET ROLE racer; SELECT dptrain.store_model(model('kept_1', 0.25))});
$node->safe_psql('postgres', q{SET ROLE racer; SELECT dptrain.store_model(model('kept_2', 0.25))});

# The ledger is consistent: spent = sum of the budgeted runs; every run has its model.
sub consistent
{
	return $node->safe_psql('postgres', q{
	  SELECT bool_and(b.spent_epsilon = coalesce(s.e, 0) AND b.spent_delta = coalesce(s.d, 0))
	         AND NOT EXISTS (SELECT FROM dptrain.models m
	                         WHERE NOT EXISTS (SELECT FROM dptrain.ledger l WHERE l.model_id = m.id))
	  FROM dptrain.budgets b
	  LEFT JOIN (SELECT source, role, sum(epsilon) e, sum(delta) d FROM dptrain.ledger WHERE budgeted
	             GROUP BY 1, 2) s ON s.source = b.source AND s.role = b.role});
}

sub state
{
	return $node->safe_psql('postgres', q{
	  SELECT (SELECT spent_epsilon || '/' || spent_delta FROM dptrain.budgets) || ' ' ||
	         (SELECT count(*) FROM dptrain.ledger) || ' ' ||
	         (SELECT string_agg(name, ',' ORDER BY name) FROM dptrain.models)});
}

# Until the postmaster has reinitialized after the crash that began at log
# offset $_[0] (the query alone could run before it even noticed the crash).
sub wait_until_up
{
	my ($offset) = @_;
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $offset);
	$node->poll_query_until('postgres', 'SELECT true') or die 'the server did not come back';
}

is(state(), '0.5/0.000002 2 kept_1,kept_2', 'two runs charged');
is(consistent(), 't', 'ledger consistent before the crashes');

# 1. SIGKILL between the charge and the commit.
my $bg = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $bg->query_safe('SELECT pg_backend_pid()');
$bg->query_safe(q{SET ROLE racer});
$bg->query_safe(q{BEGIN});
is($bg->query_safe(q{SELECT dptrain.store_model(model('charged_then_killed', 0.25)) > 0}), 't',
	'charged (committed on its own) inside the open transaction');
is($bg->query_safe(q{SELECT spent_epsilon FROM dptrain.budgets}), '0.75', 'the open transaction sees its charge');
my $crash = -s $node->logfile;
kill 'KILL', $pid;
eval { $bg->quit; };
wait_until_up($crash);
is(state(), '0.75/0.000003 3 kept_1,kept_2', 'a backend killed after its charge stored no model, and paid');
is(consistent(), 't', 'ledger consistent after the crash restart');

# 2. SIGKILL in the middle of a training run's epochs.
$bg = $node->background_psql('postgres', on_error_stop => 0);
$pid = $bg->query_safe('SELECT pg_backend_pid()');
my $offset = -s $node->logfile;
$bg->query_until(qr/started/, q{
  \echo started
  SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'none', epochs => 100000, name => 'killed_mid_training');
});
$node->wait_for_log(qr/\[$pid\].*epoch 2 of 100000 done/, $offset);    # in the middle of the epochs
$crash = -s $node->logfile;
kill 'KILL', $pid;
eval { $bg->quit; };
wait_until_up($crash);
is(state(), '0.75/0.000003 3 kept_1,kept_2', 'a (non-private) run killed mid-training left no model and no ledger row');
is(consistent(), 't', 'ledger consistent after the second crash restart');

# 3. Immediate shutdown with a charged, uncommitted run.
$bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_safe(q{SET ROLE racer});
$bg->query_safe(q{BEGIN});
$bg->query_safe(q{SELECT dptrain.store_model(model('charged_then_shutdown', 0.25))});
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
is(state(), '1/0.000004 4 kept_1,kept_2', 'an immediate shutdown dropped the uncommitted model, not the charge');
is(consistent(), 't', 'ledger consistent after the immediate shutdown');

# The budget still works: nothing is left.
my ($ret, $out, $err) = $node->psql('postgres', q{SET ROLE racer; SELECT dptrain.store_model(model('after', 0.01))});
like($err, qr/privacy budget exceeded/, 'after recovery the budget refuses what it does not have');
is(consistent(), 't', 'ledger consistent at the end');

$node->stop;
done_testing();
