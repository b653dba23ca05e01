# A trained model survives a server restart, and an immediate shutdown in
# the middle of training leaves no model behind.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION dptrain');
$node->safe_psql('postgres', q{
  CREATE TABLE t AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y
  FROM generate_series(1, 2000) i});
$node->safe_psql('postgres',
  q{SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'none', epochs => 2, name => 'before')});

$node->restart;
is($node->safe_psql('postgres', q{SELECT count(*) FROM dptrain.models WHERE name = 'before'}),
   '1', 'a committed model survives a restart');

# Start a long training run in the background and crash the server under it.
$node->safe_psql('postgres', q{
  CREATE TABLE big AS SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS x, (sin(i) > 0) AS y
  FROM generate_series(1, 200000) i});
my $bg = $node->background_psql('postgres');
$bg->query_until(qr/started/, q{
  \echo started
  SELECT model_id FROM dp_train('big', 'y', 'x', algorithm => 'none', epochs => 1000, name => 'crashed');
});
sleep 1;
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
is($node->safe_psql('postgres', q{SELECT count(*) FROM dptrain.models WHERE name = 'crashed'}),
   '0', 'a training run killed by a crash leaves no model');
is($node->safe_psql('postgres', q{SELECT count(*) FROM dptrain.models}), '1', 'only the committed model remains');

$node->stop;
done_testing();
