# auto_explain shows no pass of a run without read access.
#
# An operator's auto_explain (session_preload_libraries) with
# log_nested_statements logs the plan of every statement dptrain runs; with
# log_verbose the plan of a pass shows its parameter, the training state,
# planned as a constant: between two bolt-on epochs the model before any
# noise, in AMP the optimizer's points. At log_level = notice it reaches the
# client (the passes keep client_min_messages at NOTICE or above, which
# stops LOG, not NOTICE), and at any level the server log, where the same
# states were closed for debug_print_* (pass_messages.h). Found by the
# hostile review of 2026-11-27 (second round): a role with a budget and no
# SELECT read, in its NOTICEs, `Output: dptrain.gradient_sum(x, y,
# '{...,0.1542355972489694,-0.09539549558973838,...}')` for every pass of
# its AMP run, and the number of passes. Now the passes of such a caller run
# with auto_explain.log_min_duration = -1; a reader's are still explained.
use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use DptrainNode;

my $node = dptrain_node('auto_explain', conf => q{
session_preload_libraries = 'auto_explain'
auto_explain.log_min_duration = 0
auto_explain.log_nested_statements = on
auto_explain.log_verbose = on
auto_explain.log_level = notice
}, sql => circle_table(300) . q{
  CREATE ROLE analyst LOGIN;
  CREATE ROLE reader LOGIN;
  GRANT SELECT ON t TO reader;
  SELECT dp_grant_budget('t', 'analyst', 10, 1e-3);});

# The plans a role's client receives during its runs: bolt-on (epochs) and
# AMP (gradient passes).
sub plans
{
	my ($role) = @_;
	my ($out, $err) = ('', '');
	$node->psql('postgres', q{
	  SELECT model_id > 0 FROM dp_train('t', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 3,
	    batch_size => 10);
	  SELECT model_id > 0 FROM dp_train('t', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6);},
		stdout => \$out, stderr => \$err, on_error_die => 1, extra_params => ['-U', $role]);
	is($out, "t\nt", "$role: trained");
	return $err;
}

my $analyst = plans('analyst');
unlike($analyst, qr/dptrain\.(sgd_epoch|gradient_sum)\(/, 'the analyst sees no plan of a pass');
unlike($analyst, qr/dptrain_shuffled/, 'nor any plan over the copy of the rows');
like($analyst, qr/Query Text: SELECT model_id > 0 FROM dp_train/, 'auto_explain still explains its own statement');
my $reader = plans('reader');
like($reader, qr/Output: dptrain\.sgd_epoch\(x, y, '\{/, 'a reader sees the passes explained, the state inlined');

$node->stop;
done_testing();
