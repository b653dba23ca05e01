# The start most TAP files share: a running node with the extension, and the
# table t of points on the unit circle. A file loads it with
#   use FindBin;
#   use lib $FindBin::RealBin;
#   use DptrainNode;
package DptrainNode;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;

our @EXPORT = qw(dptrain_node circle_table);

# A started node named $name: `conf` lines appended to postgresql.conf
# first, then CREATE EXTENSION dptrain and the `sql` of the file.
sub dptrain_node
{
	my ($name, %o) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', $o{conf}) if defined $o{conf};
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION dptrain; ' . ($o{sql} // ''));
	return $node;
}

# SQL creating t (id, x float8[] = (sin i, cos i), y boolean = sin 3i > 0) of $rows rows.
sub circle_table
{
	my ($rows) = @_;
	return "CREATE TABLE t AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(3 * i) > 0) AS y
    FROM generate_series(1, $rows) i;";
}

1;
