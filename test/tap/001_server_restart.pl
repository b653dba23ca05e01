# A trained model survives a server restart, and an immediate shutdown in
# the middle of training leaves no model behind. The shutdown comes once the
# server log shows the run's first epoch done (epoch NOTICEs are logged), so
# the run is known to be training when it is killed -- not still starting,
# which would leave no model whatever the extension did.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', "log_min_messages = notice\n");
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
my $pid = $bg->query_safe('SELECT pg_backend_pid()');
my $offset = -s $node->logfile;
$bg->query_until(qr/started/, q{
  \echo started
  SELECT model_id FROM dp_train('big', 'y', 'x', algorithm => 'none', epochs => 1000, name => 'crashed');
});
$node->wait_for_log(qr/\[$pid\].*epoch 1 of 1000 done/, $offset);    # in the middle of the epochs
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
is($node->safe_psql('postgres', q{SELECT count(*) FROM dptrain.models WHERE name = 'crashed'}),
   '0', 'a training run killed by a crash leaves no model');
is($node->safe_psql('postgres', q{SELECT count(*) FROM dptrain.models}), '1', 'only the committed model remains');

$node->stop;
done_testing();
