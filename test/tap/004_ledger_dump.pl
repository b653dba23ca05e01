# pg_dump keeps the ledger: budgets, charged runs and models survive a dump
# and restore (their regclass / regrole columns are dumped as names), the
# restored budget is still enforced, and the extension (with its event
# trigger) can be dropped.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
  CREATE DATABASE source_db;
  CREATE DATABASE restored_db;
  CREATE ROLE analyst;});
$node->safe_psql('source_db', q{
  CREATE EXTENSION dptrain;
  CREATE SCHEMA "Clinic";
  CREATE TABLE "Clinic"."Visits" AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y
    FROM generate_series(1, 100) i;
  GRANT USAGE ON SCHEMA "Clinic" TO analyst;
  GRANT SELECT ON "Clinic"."Visits" TO analyst;
  GRANT EXECUTE ON FUNCTION dptrain.store_model(jsonb) TO analyst;
  SELECT dp_grant_budget('"Clinic"."Visits"', 'analyst', 1.0, 1e-5);
  SET ROLE analyst;
  SELECT dptrain.store_model(jsonb_build_object('format', 'dptrain-model', 'version', 1, 'name', 'visits_private',
      'algorithm', 'bolton', 'loss', 'logistic', 'huber_h', 0.1, 'feature_bound', 1.0,
      'classes', ARRAY['false', 'true'], 'weights', jsonb_build_array(jsonb_build_array(0.5, -0.5)),
      'epsilon', 0.7, 'delta', 1e-6, 'seeded', false,
      'details', jsonb_build_object('data', jsonb_build_object('source', '"Clinic"."Visits"'))));
  RESET ROLE;
  SELECT model_id FROM dp_train('"Clinic"."Visits"', 'y', 'x', algorithm => 'none', batch_size => 10,
                                name => 'visits_noiseless');});

my $ledger = q{
  SELECT (SELECT string_agg(format('%s %s %s/%s spent %s/%s', source, role, epsilon, delta, spent_epsilon, spent_delta), '; ')
          FROM dptrain.budgets) || ' | ' ||
         (SELECT string_agg(format('%s %s %s %s %s', l.source, l.role, m.name, l.epsilon, l.budgeted), '; ' ORDER BY l.id)
          FROM dptrain.ledger l JOIN dptrain.models m ON m.id = l.model_id) || ' | ' ||
         (SELECT string_agg(format('%s %s %s', name, source_table, created_by), '; ' ORDER BY id) FROM dptrain.models)};
my $before = $node->safe_psql('source_db', $ledger);
is($before,
	'"Clinic"."Visits" analyst 1/0.00001 spent 0.7/0.000001 | '
	  . '"Clinic"."Visits" analyst visits_private 0.7 t; "Clinic"."Visits" postgres visits_noiseless  f | '
	  . 'visits_private "Clinic"."Visits" analyst; visits_noiseless "Clinic"."Visits" postgres',
	'the ledger before the dump');

my $dump = PostgreSQL::Test::Utils::tempdir() . '/source_db.sql';
$node->command_ok([ 'pg_dump', '--no-sync', '-f', $dump, '-d', $node->connstr('source_db') ], 'pg_dump');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $dump, '-d', $node->connstr('restored_db') ],
	'restore');
is($node->safe_psql('restored_db', $ledger), $before, 'budgets, ledger and models survive dump and restore');

# The restored budget is enforced: 0.3 left.
my ($ret, $out, $err) = $node->psql('restored_db', q{
  SET ROLE analyst;
  SELECT dptrain.store_model(jsonb_set((SELECT to_jsonb(m) FROM (SELECT 'dptrain-model' format, 1 version,
      'too_much' "name", 'bolton' algorithm, loss, 0.1 huber_h, 1.0 feature_bound, classes,
      to_jsonb(ARRAY[weights]) weights, seeded, details, 0.31 epsilon, 0 delta
      FROM dptrain.models WHERE name = 'visits_private') m), '{name}', '"too_much"'))});
like($err, qr/privacy budget exceeded.*\n.*Requested epsilon = 0.31, delta = 0; remaining epsilon = 0.3/,
	'the restored budget refuses more than what is left');

# The extension, with its event trigger, drops cleanly; dropping tables afterwards still works.
$node->safe_psql('restored_db', 'DROP EXTENSION dptrain');
$node->safe_psql('restored_db', 'DROP TABLE "Clinic"."Visits"');
is($node->safe_psql('restored_db', q{SELECT count(*) FROM pg_event_trigger}), '0', 'no event trigger left behind');

$node->stop;
done_testing();
