# The number of passes of a run is shown to readers only.
#
# AMP's and the optimum's optimizers stop when the (perturbed) objective
# converges: how many gradient/loss passes they make depends on the rows and
# is no part of the release. Their progress NOTICEs were already kept from a
# caller without read access, but the DEBUG1 phase line of the passes,
#   dptrain: phase passes gradient/loss: 0.004 s (4 statements)
# printed the count to such a caller with client_min_messages = debug1 (in a
# session of a superuser that SET ROLE to it: in its own session the passes
# run with client_min_messages raised to NOTICE, pass_messages.h). Then such
# a caller got the time only; now it gets no phase line at all: the passes'
# time tracks their count too, and the phases split the call's time into the
# count, the copy and the passes (docs/governance.md, "What a model's
# metadata says"; the same time was its model's details.seconds).
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use DptrainNode;

my $node = dptrain_node('pass_count', sql => circle_table(300) . q{
  CREATE ROLE analyst LOGIN;
  CREATE ROLE reader LOGIN;
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
	return join("\n", grep { /phase / } split /\n/, $err);
}

my $analyst = debug_lines('analyst');
is($analyst, '', 'the analyst sees no phase line: neither the time of the passes nor how many there were');
my $reader = debug_lines('reader');
like($reader, qr/phase passes gradient\/loss: [0-9.]+ s \([0-9]+ statements\)/, 'a reader sees the count');

# The same count in the statistics of the caller's transaction: the temp
# copy is dropped at the end of the call, but its pending counters stay
# readable by OID until the transaction ends (found by scanning the OIDs
# allocated during the call). Bolt-on's passes are its epochs (public), so
# two runs of 1 and 5 epochs show whether the passes are counted: for the
# analyst they are not (the copy's scans are those of the copy itself).
# (Logged in as the analyst: a superuser's session sees the passes.)
sub copy_scans
{
	my ($epochs) = @_;
	return $node->safe_psql('postgres', qq{
	  BEGIN;
	  SELECT max(oid) AS lo FROM pg_class \\gset
	  SELECT model_id > 0 FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => $epochs,
	    batch_size => 10) \\g /dev/null
	  SELECT coalesce(sum(pg_stat_get_xact_numscans(o::oid)), 0) FROM generate_series(:lo + 1, :lo + 2000) o;
	  COMMIT;}, extra_params => ['-U', 'analyst']);
}
my ($one, $five) = (copy_scans(1), copy_scans(5));
note("scans of the analyst's copy: $one after 1 epoch, $five after 5");
is($one, $five, 'the analyst cannot count the passes in its transaction\'s statistics');

# Nor are the reads of the source as the owner counted (an owner's view or
# policy may read its tables as the data decides: a join, an index scan
# per row): the source's counters in the analyst's transaction stay at 0.
my $source_scans = $node->safe_psql('postgres', q{
  BEGIN;
  SELECT model_id > 0 FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
    batch_size => 10) \g /dev/null
  SELECT pg_stat_get_xact_numscans('t'::regclass) || ' ' || pg_stat_get_xact_tuples_returned('t'::regclass);
  COMMIT;}, extra_params => ['-U', 'analyst']);
is($source_scans, '0 0', 'the reads of the source as its owner are not counted');

# The settings the passes ran with are the caller's again after dp_train
# and dp_tune, in the same transaction.
my $after = $node->safe_psql('postgres', q{
  SET client_min_messages = debug1;
  BEGIN;
  SELECT model_id > 0 FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1,
    batch_size => 10) \g /dev/null
  SELECT model_id > 0 FROM dp_tune('t', 'y', 'x', epsilon => 1, lambdas => '{0.01}', epochs => '{1}',
    batch_sizes => '{10}') \g /dev/null
  SELECT current_setting('client_min_messages') || ' ' || current_setting('track_counts');
  COMMIT;}, extra_params => ['-U', 'analyst']);
is($after, 'debug1 on', 'client_min_messages and track_counts are restored after the passes');

$node->stop;
done_testing();
