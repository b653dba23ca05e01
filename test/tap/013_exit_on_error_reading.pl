# exit_on_error does not end a reading of the owner's code before its charge.
#
# A role with a budget on a view and no SELECT sets exit_on_error = on. The
# owner's view fails on one row (a division by zero); PostgreSQL turns any
# ERROR into FATAL under that setting, also inside the subtransaction that
# catches the owner's errors (src/pg/reading_errors.h), so the session ended
# during the count before the charge: the bit "some row fails the view" came
# for free, as often as the role reconnected. Now the source is read with
# exit_on_error off (src/pg/reading_settings.h): the failure is caught,
# charged and replaced by the fixed error, which the role's own setting then
# raises as FATAL -- after the charge.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use DptrainNode;

my $node = dptrain_node('exit_on_error', sql => q{
  CREATE ROLE analyst LOGIN;
  CREATE TABLE t AS SELECT i AS id, sin(i) AS a, (sin(3 * i) > 0) AS y FROM generate_series(1, 200) i;
  CREATE VIEW v AS SELECT ARRAY[a, 1 / (id - 123)]::float8[] AS x, y FROM t;
  SELECT dp_grant_budget('v', 'analyst', 10, 1e-3);});

my ($out, $err) = ('', '');
$node->psql('postgres',
	q{SET exit_on_error = on; SELECT dp_train('v', 'y', 'x', algorithm => 'bolton', epsilon => 1)},
	stdout => \$out, stderr => \$err, extra_params => [ '-U', 'analyst' ]);
like($err, qr/FATAL:  reading "public.v" for the run failed/, 'the fixed error, raised as FATAL by the role itself');
unlike($err, qr/division by zero/, 'not the owner\'s error');
is($node->safe_psql('postgres', q{SELECT count(*) || ' ' || sum(epsilon) FROM dptrain.ledger}),
	'1 1', 'the failed reading was charged');
is($node->safe_psql('postgres', q{SELECT epsilon FROM dp_budget_remaining('v', 'analyst')}),
	'9', 'from the role\'s budget');

$node->stop;
done_testing();
