# A call cancelled (or its session terminated) while its charge waits.
#
# The charge of a private run is made by a background worker
# (src/pg/charge_worker.cpp), which may wait for the row lock that
# serializes the charges on the table -- held, here, by the owner's open
# transaction that set the table's cap. Before the fix, a caller that gave
# up meanwhile (pg_cancel_backend, statement_timeout, pg_terminate_backend)
# got its error, but the worker went on waiting and charged the run as soon
# as the owner committed: the analyst paid for a call it had been told
# failed before anything ran. Now the worker is stopped when the caller
# gives up, and charges nothing; and the caller's lock_timeout bounds the
# worker's wait as it would a wait of its own. Waits on conditions only (the worker's lock
# wait, the caller's end, the worker's end in pg_stat_activity).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use DptrainNode;

my $node = dptrain_node('charge_wait', sql => circle_table(2000) . q{
  CREATE ROLE analyst LOGIN;
  SELECT dp_grant_budget('t', 'analyst', 10, 0);});

my $spent = q{SELECT (SELECT count(*) FROM dptrain.ledger) || '/' || (SELECT spent_epsilon FROM dptrain.budgets)};
my $worker_waits = q{SELECT count(*) = 1 FROM pg_stat_activity
  WHERE backend_type = 'dptrain charge' AND wait_event_type = 'Lock'};
my $no_worker = q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'dptrain charge'};

# How the caller gives up: a cancel, then the end of its session.
for my $give_up ('pg_cancel_backend', 'pg_terminate_backend')
{
	my $owner = $node->background_psql('postgres', on_error_stop => 0);
	$owner->query_safe(q{BEGIN});
	$owner->query_safe(q{SELECT dp_set_table_budget('t', 50, 0)});    # holds the table's charge lock

	my $analyst = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $analyst->query_safe(q{SELECT pg_backend_pid()});
	$analyst->query_until(qr/started/, q{
	  \echo started
	  SET ROLE analyst;
	  SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
	                                classes => ARRAY['false', 'true']);
	});
	$node->poll_query_until('postgres', $worker_waits) or die 'the charge never waited for the lock';
	$node->safe_psql('postgres', "SELECT $give_up($pid)");
	# the caller has given up: its statement ended (or its session did)
	$node->poll_query_until('postgres',
		qq{SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $pid AND state = 'active'})
	  or die 'the caller did not stop';
	$owner->query_safe(q{COMMIT});
	$node->poll_query_until('postgres', $no_worker) or die 'the charging worker did not end';
	is($node->safe_psql('postgres', $spent), '0/0', "$give_up while the charge waited: nothing was charged");
	$owner->quit;
	eval { $analyst->quit };    # a terminated session has no psql to end cleanly
}

# The caller's lock_timeout bounds the charge's wait (before, it was ignored:
# the call waited for the owner's transaction however long it lasted).
my $owner = $node->background_psql('postgres', on_error_stop => 0);
$owner->query_safe(q{BEGIN});
$owner->query_safe(q{SELECT dp_set_table_budget('t', 50, 0)});
my ($ret, $out, $err) = $node->psql('postgres', q{SET lock_timeout = '200ms'; SET ROLE analyst;
  SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
                                classes => ARRAY['false', 'true'])});
like($err, qr/canceling statement due to lock timeout/, "the caller's lock_timeout ends the charge's wait");
# (the worker's error says where it came from, and that nothing was charged)
like($err, qr/CONTEXT:  while committing the privacy charge of this run in a background worker; nothing was charged/,
	"the worker's error carries the charge's context");
$owner->query_safe(q{COMMIT});
$owner->quit;
$node->poll_query_until('postgres', $no_worker) or die 'the charging worker did not end';
is($node->safe_psql('postgres', $spent), '0/0', 'and nothing was charged');

# A cycle through the worker: the owner holds the table's charge lock and
# waits for a lock of the analyst's transaction, which waits for its charge.
# PostgreSQL's deadlock detector cannot see the analyst's wait (a latch):
# before, the call waited until its statement_timeout (here 60 s, to fail
# the old code); now it is refused at once (40P01), nothing charged.
$owner = $node->background_psql('postgres', on_error_stop => 0);
my $analyst = $node->background_psql('postgres', on_error_stop => 0);
my $apid = $analyst->query_safe(q{SELECT pg_backend_pid()});
$analyst->query_safe(q{SET statement_timeout = '60s'});
$analyst->query_safe(q{BEGIN});
$analyst->query_safe(q{SELECT pg_advisory_xact_lock(6006)});
$owner->query_safe(q{BEGIN});
$owner->query_safe(q{SELECT dp_set_table_budget('t', 50, 0)});
$owner->query_until(qr/waiting/, q{
  \echo waiting
  SELECT pg_advisory_xact_lock(6006);
});
$node->poll_query_until('postgres', qq{SELECT $apid = ANY (pg_blocking_pids(pid)) FROM pg_stat_activity
  WHERE pid <> $apid AND wait_event_type = 'Lock' AND wait_event = 'advisory'}) or die 'the owner never waited';
($out, $err) = $analyst->query(q{SET ROLE analyst;
  SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
                                classes => ARRAY['false', 'true'])});
like($analyst->{stderr}, qr/deadlock detected/, 'a wait cycle through the charge is refused at once');
like($analyst->{stderr}, qr/CONTEXT:  while committing the privacy charge .*; nothing was charged/,
	'with the context of the charge');
$analyst->query(q{ROLLBACK});
$owner->query(q{COMMIT});
$owner->quit;
$analyst->quit;
$node->poll_query_until('postgres', $no_worker) or die 'the charging worker did not end';
is($node->safe_psql('postgres', $spent), '0/0', 'and nothing was charged');

# A database whose transactions are SERIALIZABLE by default: the charge
# waits for the owner's cap, then charges (before: 40001, could not
# serialize access, as the worker's snapshot predated the cap's update).
$node->safe_psql('postgres', q{ALTER DATABASE postgres SET default_transaction_isolation = 'serializable'});
$owner = $node->background_psql('postgres', on_error_stop => 0);
$owner->query_safe(q{BEGIN});
$owner->query_safe(q{SELECT dp_set_table_budget('t', 50, 0)});
$analyst = $node->background_psql('postgres', on_error_stop => 0);
$analyst->query_until(qr/started/, q{
  \echo started
  SET ROLE analyst;
  -- (a run without read access is refused under SERIALIZABLE: its own
  -- session says REPEATABLE READ; the worker still takes the database's)
  SET default_transaction_isolation = 'repeatable read';
  SELECT model_id > 0 AS trained FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
                                              classes => ARRAY['false', 'true']);
  \echo finished
});
$node->poll_query_until('postgres', $worker_waits) or die 'the charge never waited for the lock';
$owner->query_safe(q{COMMIT});
$owner->quit;
$analyst->query_until(qr/finished/, '');
unlike($analyst->{stderr}, qr/could not serialize/, 'a charge that waited under SERIALIZABLE defaults goes through');
$analyst->quit;
$node->safe_psql('postgres', q{ALTER DATABASE postgres RESET default_transaction_isolation});
is($node->safe_psql('postgres', $spent), '1/1', 'and is charged once');

# A charge that is not interrupted still goes through.
$node->safe_psql('postgres', q{SET ROLE analyst; SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton',
  epsilon => 1, epochs => 1, classes => ARRAY['false', 'true'])});
is($node->safe_psql('postgres', $spent), '2/2', 'a run that was not interrupted is charged');

$node->stop;
done_testing();
