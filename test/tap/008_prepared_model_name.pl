# A model name held by a prepared transaction (or any transaction still in
# progress) of the same role is refused before the charge.
#
# A run checks that its model's name is free before its charge
# (models.cpp, check_model_name), but that check reads committed rows only:
# a prepared transaction that stored a model under the name -- or renamed
# one to it -- passed unseen. The run was charged, trained, and then waited
# at its INSERT for the prepared transaction (the unique index's wait),
# until someone ran COMMIT PREPARED or ROLLBACK PREPARED: charged for a
# call that could only hang or fail. Now the check also finds a name
# stored by a transaction that has not ended, and refuses (55P03) with
# nothing charged. Waits on conditions only (the call's end, or its wait
# for the prepared transaction's lock).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use DptrainNode;

my $node = dptrain_node('prepared_name', conf => "max_prepared_transactions = 5\n",
	sql => circle_table(2000) . ' ANALYZE t;');
my $ledger = q{SELECT count(*) FROM dptrain.ledger};
# In place (AMP by a reader: no temp table), so that the transaction can be prepared.
my $amp = q{SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6,
  classes => ARRAY['false', 'true'], name => '%s')};

# A later run named $name: its error (empty if none), and whether it was charged.
sub later_run
{
	my ($name, $gid) = @_;
	my $before = $node->safe_psql('postgres', $ledger);
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $bg->query_safe(q{SELECT pg_backend_pid()});
	$bg->query_until(qr/started/, "SET client_min_messages = warning;\n\\echo started\n" . sprintf($amp, $name) . ";\n\\echo finished\n");
	# it ended, or it waits for the prepared transaction (the old behaviour)
	$node->poll_query_until('postgres', qq{SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $pid
	  AND state = 'active' AND wait_event IS DISTINCT FROM 'transactionid')}) or die 'the call neither ended nor waited';
	my $charged = $node->safe_psql('postgres', $ledger) ne $before;
	$node->safe_psql('postgres', "ROLLBACK PREPARED '$gid'");    # ends a wait, if any
	$bg->query_until(qr/finished/, '');
	my $err = $bg->{stderr};
	$bg->quit;
	return ($err, $charged);
}

# 1. A prepared transaction stored a model named 'held'.
$node->safe_psql('postgres', "BEGIN; " . sprintf($amp, 'held') . "; PREPARE TRANSACTION 'stores_held'");
my ($err, $charged) = later_run('held', 'stores_held');
like($err, qr/a model named "held" is being stored by another of your transactions/,
	'a name stored by a prepared transaction is refused');
like($err, qr/COMMIT PREPARED or ROLLBACK PREPARED/, 'the hint says how to end it');
ok(!$charged, 'before the charge: nothing was charged');

# 2. A prepared transaction renamed a model to 'renamed'.
my $id = $node->safe_psql('postgres', sprintf($amp, 'first'));
$node->safe_psql('postgres', "BEGIN; SELECT dp_rename_model('$id', 'renamed'); PREPARE TRANSACTION 'renames'");
($err, $charged) = later_run('renamed', 'renames');
like($err, qr/a model named "renamed" is being stored by another of your transactions/,
	'a name given by a prepared rename is refused');
ok(!$charged, 'nothing was charged');

# Once the prepared transactions have ended, the names are free.
is($node->safe_psql('postgres', 'SELECT count(*) FROM (' . sprintf($amp, 'held') . ') r'), '1',
	'the name is free again');

$node->stop;
done_testing();
