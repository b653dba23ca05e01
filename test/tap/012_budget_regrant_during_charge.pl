# The owner revokes a role's budget and grants it again, in one transaction,
# while a run of that role waits at its charge. The grant keeps what the role
# spent (a new budget row starts from the ledger's sum of its budgeted runs),
# so the role has a budget before, during and after, and its run must be
# charged to it. The charge's worker waited for the old budget row, which the
# owner's DELETE held; once the owner committed, that row was gone and the
# new one not in the worker's snapshot: the run was charged as if the role
# had no budget. A reader's run went through uncharged to its budget (ledger
# row budgeted = f, its budget's spent unchanged); a run without read access
# was refused with 42501 "has no privacy budget on it". Now dp_grant_budget
# and dp_revoke_budget take the source's charge lock (dptrain.lock_source),
# as dp_set_table_budget does: the charge waits for that lock first, then
# reads the budget as committed. (The wait is the worker's, which the
# isolation tester cannot see: hence TAP, waiting on conditions only.)
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use DptrainNode;

my $node = dptrain_node('budget_regrant', sql => circle_table(200) . q{
  CREATE ROLE reader LOGIN;
  CREATE ROLE analyst LOGIN;
  GRANT SELECT ON t TO reader;
  SELECT dp_grant_budget('t', 'reader', 1, 0);
  SELECT dp_grant_budget('t', 'analyst', 1, 0);});

my $worker_waits = q{SELECT count(*) = 1 FROM pg_stat_activity
  WHERE backend_type = 'dptrain charge' AND wait_event_type = 'Lock'};

for my $role ('reader', 'analyst')
{
	my $owner = $node->background_psql('postgres', on_error_stop => 0);
	$owner->query_safe(q{BEGIN});
	$owner->query_safe(qq{SELECT dp_revoke_budget('t', '$role'), dp_grant_budget('t', '$role', 0.5, 0)});

	my $runner = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $runner->query_safe(q{SELECT pg_backend_pid()});
	$runner->query_until(qr/started/, qq{
	  \\echo started
	  SET ROLE $role;
	  SELECT model_id FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 0.2, epochs => 1,
	                                classes => ARRAY['false', 'true']);
	});
	# (after the fix the worker waits for the source's lock, before, for the budget row)
	$node->poll_query_until('postgres', $worker_waits) or die 'the charge never waited for the owner';
	$owner->query_safe(q{COMMIT});
	$node->poll_query_until('postgres',
		qq{SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $pid AND state = 'active'})
	  or die 'the run did not end';
	is( $node->safe_psql('postgres', qq{
	      SELECT string_agg(l.epsilon || ' budgeted=' || l.budgeted || ' model=' || (m.id IS NOT NULL), ', ')
	        FROM dptrain.ledger l LEFT JOIN dptrain.models m ON m.id = l.model_id
	       WHERE l.role = '$role'::regrole}),
		'0.2 budgeted=true model=true',
		"$role: the run waiting while its budget was granted again is charged to it, and stored");
	is( $node->safe_psql('postgres', qq{
	      SELECT epsilon || '/' || spent_epsilon FROM dptrain.budgets WHERE role = '$role'::regrole}),
		'0.5/0.2', "$role: its new budget has spent what the run was charged");
	$owner->quit;
	$runner->quit;
}

done_testing();
