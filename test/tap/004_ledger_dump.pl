# pg_dump keeps the ledger: budgets, charged runs and models survive a dump
# and restore (their relation / role columns are dumped as names), the
# restored budget is still enforced. A dump that leaves out one training
# table (pg_dump -T) restores every model and the whole ledger all the same:
# only what belongs to the missing table loses its link to it (issue 15,
# item 7). The extension cannot be dropped while its ledger records privacy
# spent under a budget or cap; once that history is deliberately deleted, it
# drops cleanly with its event triggers.
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
like($err, qr/privacy budget exceeded.*\n.*Requested epsilon = 0.31, delta = 0 \(under replace-one adjacency\); remaining epsilon = 0.3/,
	'the restored budget refuses more than what is left');

# ---- pg_dump -T: one training table left out ---------------------------------------
# A second table with its own budget and model; the dump leaves out the first.
$node->safe_psql('source_db', q{
  CREATE TABLE public.other AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y
    FROM generate_series(1, 100) i;
  GRANT SELECT ON public.other TO analyst;
  SELECT dp_grant_budget('public.other', 'analyst', 2.0, 0);
  SET ROLE analyst;
  SELECT dptrain.store_model(jsonb_build_object('format', 'dptrain-model', 'version', 1, 'name', 'other_private',
      'algorithm', 'bolton', 'loss', 'logistic', 'huber_h', 0.1, 'feature_bound', 1.0,
      'classes', ARRAY['false', 'true'], 'weights', jsonb_build_array(jsonb_build_array(0.5, -0.5)),
      'epsilon', 0.5, 'delta', 0, 'seeded', false,
      'details', jsonb_build_object('data', jsonb_build_object('source', 'public.other'))));});
$node->safe_psql('postgres', 'CREATE DATABASE partial_db');
my $partial = PostgreSQL::Test::Utils::tempdir() . '/partial.sql';
$node->command_ok([ 'pg_dump', '--no-sync', '-T', '"Clinic"."Visits"', '-f', $partial, '-d', $node->connstr('source_db') ],
	'pg_dump -T "Clinic"."Visits"');
# restored with ON_ERROR_STOP: nothing of the restore may fail
my ($rc, $restore_out, $restore_err) = $node->psql('partial_db', "\\i $partial", on_error_stop => 1);
is($rc, 0, 'the partial dump restores without an error');
like($restore_err, qr/WARNING:  relation "Clinic"."Visits" does not exist: dptrain keeps the reference to it as "-"/,
	'the restore says the table is missing');
like($restore_err, qr/WARNING:  dptrain: a row of dptrain.budgets naming a missing relation or role was not restored/,
	'and that its budget is not restored');
is($node->safe_psql('partial_db', q{
  SELECT string_agg(format('%s %s', name, source_table), '; ' ORDER BY id) FROM dptrain.models}),
	'visits_private -; visits_noiseless -; other_private public.other',
	'every model is restored; those of the missing table lose their link to it');
is($node->safe_psql('partial_db', q{
  SELECT string_agg(format('%s %s %s %s', l.source, l.source_name, l.role, l.epsilon), '; ' ORDER BY l.id)
  FROM dptrain.ledger l}),
	'- "Clinic"."Visits" analyst 0.7; - "Clinic"."Visits" postgres ; public.other public.other analyst 0.5',
	'the whole ledger is restored, with the names of the missing table');
is($node->safe_psql('partial_db', q{
  SELECT string_agg(format('%s %s %s/%s spent %s', source, role, epsilon, delta, spent_epsilon), '; ') FROM dptrain.budgets}),
	'public.other analyst 2/0 spent 0.5', 'the budget of the table in the dump is restored');

# ---- DROP EXTENSION while privacy has been spent ---------------------------------------
($ret, $out, $err) = $node->psql('restored_db', 'DROP EXTENSION dptrain');
isnt($ret, 0, 'DROP EXTENSION is refused while the ledger records spent privacy');
like($err, qr/cannot drop extension dptrain: its ledger records privacy spent/, 'and says why');
($ret, $out, $err) = $node->psql('restored_db', 'DROP EXTENSION dptrain CASCADE');
isnt($ret, 0, 'also with CASCADE');
($ret, $out, $err) = $node->psql('restored_db', 'DROP SCHEMA public CASCADE');
isnt($ret, 0, 'and through DROP SCHEMA ... CASCADE of the extension\'s schema');
is($node->safe_psql('restored_db', q{SELECT count(*) FROM pg_extension WHERE extname = 'dptrain'}), '1',
	'the extension is still there');
# Deleting the history is a deliberate act of the extension's owner; then it drops cleanly.
$node->safe_psql('restored_db', 'DELETE FROM dptrain.ledger; DELETE FROM dptrain.budgets; DELETE FROM dptrain.table_budgets');
$node->safe_psql('restored_db', 'DROP EXTENSION dptrain');
$node->safe_psql('restored_db', 'DROP TABLE "Clinic"."Visits"');
is($node->safe_psql('restored_db', q{SELECT count(*) FROM pg_event_trigger}), '0', 'no event trigger left behind');

$node->stop;
done_testing();
