# The number of passes of a run is shown to readers only.
#
# AMP's and the optimum's optimizers stop when the (perturbed) objective
# converges: how many gradient/loss passes they make depends on the rows and
# is no part of the release. Their progress NOTICEs were already kept from a
# caller without read access, but the DEBUG1 phase line of the passes,
#   dptrain: phase passes gradient/loss: 0.004 s (4 statements)
# printed the count to anyone with client_min_messages = debug1. Now such a
# caller gets the time only (which it can measure from outside anyway).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('pass_count');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
  CREATE EXTENSION dptrain;
  CREATE ROLE analyst;
  CREATE ROLE reader;
  CREATE TABLE t AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(3 * i) > 0) AS y
    FROM generate_series(1, 300) i;
  GRANT SELECT ON t TO reader;
  SELECT dp_grant_budget('t', 'analyst', 10, 1e-3);});

my $amp = q{SELECT model_id > 0 FROM dp_train('t', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6)};
sub debug_lines
{
	my ($role) = @_;
	my ($out, $err) = ('', '');
	$node->psql('postgres', "SET ROLE $role; SET client_min_messages = debug1; $amp;",
		stdout => \$out, stderr => \$err, on_error_die => 1);
	is($out, 't', "$role: trained");
	return join("\n", grep { /phase passes/ } split /\n/, $err);
}

my $analyst = debug_lines('analyst');
like($analyst, qr/phase passes gradient\/loss: [0-9.]+ s/, 'the analyst sees the time of the passes');
unlike($analyst, qr/statements\)/, 'but not how many there were');
my $reader = debug_lines('reader');
like($reader, qr/phase passes gradient\/loss: [0-9.]+ s \([0-9]+ statements\)/, 'a reader sees the count');

$node->stop;
done_testing();
