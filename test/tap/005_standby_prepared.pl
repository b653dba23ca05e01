# dp_train where a transaction cannot write, and in a prepared transaction.
#
# On a hot standby a run cannot store its model, and the background worker
# that charges a private run (src/pg/charge_worker.cpp) may only start once
# recovery has finished. Before the fix the call waited for that worker
# until it was cancelled (here by statement_timeout), and every such call
# left its worker registered, holding one of max_worker_processes until the
# standby was promoted: a handful of calls by any role starved the standby's
# parallel queries. Now dp_train and dp_tune refuse at once (25006, before
# any charge), the primary's ledger is untouched, and a replicated model
# still serves dp_predict and dp_evaluate on the standby.
#
# PREPARE TRANSACTION after a run, then ROLLBACK PREPARED: the charge,
# committed on its own, stays; the model goes. (A run that made a temp
# table -- every copy -- cannot be prepared at all: the PREPARE fails and
# the charge stays all the same.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "max_prepared_transactions = 5\nmax_worker_processes = 4\n");
$primary->start;
$primary->safe_psql('postgres', q{
  CREATE EXTENSION dptrain;
  CREATE TABLE t AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(3 * i) > 0) AS y
    FROM generate_series(1, 20000) i;
  ANALYZE t;
  CREATE ROLE analyst LOGIN;
  SELECT dp_grant_budget('t', 'analyst', 10, 1e-5);});
my $model = $primary->safe_psql('postgres', q{SET client_min_messages = warning;
  SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
                                classes => ARRAY['false', 'true'])});

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby);

my $ledger = q{SELECT count(*) || '/' || coalesce(sum(epsilon), 0) FROM dptrain.ledger};
my $before = $primary->safe_psql('postgres', $ledger);
is($before, '1/1', 'the primary has charged one run');

# ---- on the standby --------------------------------------------------------------
# statement_timeout bounds the old code's wait; the refusal comes at once.
# More calls than max_worker_processes (4), to show no slot stays taken.
for my $call (1 .. 5)
{
	my ($ret, $out, $err) = $standby->psql('postgres', q{SET statement_timeout = '5s'; SET ROLE analyst;
	  SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
	                                classes => ARRAY['false', 'true'])});
	like($err, qr/cannot execute dp_train during recovery/, "dp_train on the standby is refused (call $call)");
}
my ($ret, $out, $err) = $standby->psql('postgres', q{SET statement_timeout = '5s';
  SELECT * FROM dp_tune('t', 'y', 'x', epsilon => 1, lambdas => '{0.001}', epochs => '{1}',
                        classes => ARRAY['false', 'true'])});
like($err, qr/cannot execute dp_tune during recovery/, 'dp_tune on the standby is refused');
is($primary->safe_psql('postgres', $ledger), $before, 'nothing was charged on the primary');
is($primary->safe_psql('postgres', q{SELECT epsilon FROM dp_budget_remaining('t', 'analyst')}), '10',
	"the analyst's budget is whole");

# The worker slots are free: a parallel query on the standby gets its workers.
my $plan = $standby->safe_psql('postgres', q{SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
  SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
  EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM t});
like($plan, qr/Workers Launched: [12]/, 'the refused calls left no background worker registered');

# A replicated model is read only: it serves predictions and evaluations there.
is($standby->safe_psql('postgres', qq{SELECT dp_predict($model, ARRAY[0.3, -0.2])}),
	$primary->safe_psql('postgres', qq{SELECT dp_predict($model, ARRAY[0.3, -0.2])}),
	'dp_predict on the standby answers as on the primary');
is($standby->safe_psql('postgres', qq{SELECT accuracy || '/' || n FROM dp_evaluate($model, 't', 'y', 'x')}),
	$primary->safe_psql('postgres', qq{SELECT accuracy || '/' || n FROM dp_evaluate($model, 't', 'y', 'x')}),
	'dp_evaluate on the standby answers as on the primary');

# ---- PREPARE TRANSACTION on the primary ----------------------------------------------
# In place (a reader's AMP reads the table itself: no temp table), the
# transaction can be prepared; rolled back, the model goes, the charge stays.
$primary->safe_psql('postgres', q{SET client_min_messages = warning; BEGIN;
  SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6,
                                classes => ARRAY['false', 'true']);
  PREPARE TRANSACTION 'in_place';});
is($primary->safe_psql('postgres', q{SELECT gid FROM pg_prepared_xacts}), 'in_place', 'the run was prepared');
$primary->safe_psql('postgres', q{ROLLBACK PREPARED 'in_place'});
is($primary->safe_psql('postgres', $ledger), '2/2', 'ROLLBACK PREPARED kept the charge');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM dptrain.models}), '1', 'and dropped the model');

# The analyst's run copies the rows into a temp table: PREPARE fails, the charge stays.
($ret, $out, $err) = $primary->psql('postgres', q{SET client_min_messages = warning; SET ROLE analyst; BEGIN;
  SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, epochs => 1,
                                classes => ARRAY['false', 'true']);
  PREPARE TRANSACTION 'copied';});
like($err, qr/cannot PREPARE a transaction that has operated on temporary objects/, 'a copying run cannot be prepared');
is($primary->safe_psql('postgres', q{SELECT epsilon FROM dp_budget_remaining('t', 'analyst')}), '9.5',
	'and its charge stays');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}), '0', 'nothing is left prepared');

$standby->stop;
$primary->stop;
done_testing();
