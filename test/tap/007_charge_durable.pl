# The charge of a private run is durable before its model is released,
# whatever synchronous_commit the database or the charging role sets.
#
# The charge is committed by a background worker (src/pg/charge_worker.cpp)
# connected as the extension owner; such a worker takes the settings of
# ALTER DATABASE / ALTER ROLE. With synchronous_commit = off there, its
# commit returned before its WAL was flushed: the caller received the
# model (the weights are in the returned row), and a crash before the WAL
# writer's next cycle lost the charge -- a run released for free. Now the
# worker commits with synchronous_commit = on (at least), so the commit
# record is flushed before the run goes on.
#
# What makes it deterministic: the WAL writer is stopped (SIGSTOP) before the
# run, so nothing but a synchronous commit writes the WAL out (no checkpoint,
# background writer or autovacuum either, below); then an immediate
# shutdown loses what was only in the WAL buffers.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use DptrainNode;

my $node = dptrain_node('charge_durable', conf => q{
wal_writer_delay = 10000ms
wal_writer_flush_after = 1GB
checkpoint_timeout = 1d
max_wal_size = 10GB
bgwriter_lru_maxpages = 0
autovacuum = off
}, sql => circle_table(2000) . q{
  CREATE ROLE analyst LOGIN;
  SELECT dp_grant_budget('t', 'analyst', 10, 0);});
my $runner = $node->safe_psql('postgres',
	q{SELECT quote_ident(extowner::regrole::text) FROM pg_extension WHERE extname = 'dptrain'});

my $train = q{SET ROLE analyst;
  SELECT model_id || ' ' || cardinality(weights) FROM dp_train('t', 'y', 'x', algorithm => 'bolton',
    epsilon => 1, epochs => 1, classes => ARRAY['false', 'true'])};

# A private run, then an immediate shutdown while the WAL writer has not
# written anything since: returns the model id the client received.
sub released_then_crashed
{
	$node->safe_psql('postgres', 'CHECKPOINT');    # everything before the run is on disk
	my $walwriter = $node->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'});
	die 'no WAL writer' unless $walwriter =~ /^\d+$/;
	kill 'STOP', $walwriter or die "cannot stop the WAL writer: $!";
	my $row = $node->safe_psql('postgres', $train);
	# (the stopped WAL writer is killed by the postmaster's immediate shutdown)
	$node->stop('immediate');
	$node->start;
	like($row, qr/^\d+ [1-9]\d*$/, 'the client received the model and its weights');
	my ($id) = split / /, $row;
	return $id;
}

sub charged
{
	my ($id) = @_;
	return $node->safe_psql('postgres',
		qq{SELECT count(*) || ' ' || coalesce(sum(epsilon), 0) FROM dptrain.ledger WHERE model_id = $id});
}

# 1. The database's setting.
$node->safe_psql('postgres', q{ALTER DATABASE postgres SET synchronous_commit = off});
my $id = released_then_crashed();
is(charged($id), '1 1', 'ALTER DATABASE ... SET synchronous_commit = off: the charge survived the crash');
$node->safe_psql('postgres', q{ALTER DATABASE postgres RESET synchronous_commit});

# 2. The setting of the role the worker connects as (the extension owner).
$node->safe_psql('postgres', qq{ALTER ROLE $runner SET synchronous_commit = off});
$id = released_then_crashed();
is(charged($id), '1 1', 'ALTER ROLE <extension owner> SET synchronous_commit = off: the charge survived the crash');
$node->safe_psql('postgres', qq{ALTER ROLE $runner RESET synchronous_commit});

is($node->safe_psql('postgres', q{SELECT spent_epsilon FROM dptrain.budgets}), '2',
	'the budget holds both charges');

$node->stop;
done_testing();
