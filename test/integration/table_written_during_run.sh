#!/usr/bin/env bash
# A table written while a run lasts (a shape of table users have: one that
# keeps receiving rows). dp_train and dp_tune in a READ COMMITTED
# transaction count the rows before the charge and copy them, or read them
# in place, under later snapshots: a row inserted or deleted meanwhile gave
# a copy or a pass of another size, which failed after the charge as an
# internal error -- XX000 'the epoch did not see every row exactly once'
# (bolton), XX000 'a tuning part has an unexpected size' (dp_tune), 22000
# 'row numbers are not 1..n' (dpsgd), 22023 or XX000 'the gradient pass did
# not see every row exactly once' (amp; dpagd, pfw). Now: DP003 'the table
# changed during training' with a hint; in REPEATABLE READ (one snapshot) the
# run trains on the rows it counted.
set -euo pipefail
: "${DPTRAIN_CLI:?}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db table_written
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { psql -X -At -d "$db" "$@"; }
source "$(dirname "$0")/lib/paused_charge.sh"
separable_points 300

expect_changed() {  # expect_changed WHAT OUTPUT
  grep -q "^ERROR:  DP003: the table changed during training" <<<"$2" || fail "$1: $2"
  grep -q "^HINT:  Train on a table no one writes while the run lasts" <<<"$2" || fail "$1: no hint: $2"
  echo "ok: $1: DP003 the table changed during training"
}
train() { echo "SELECT model_id FROM dp_train('pts', 'y', 'x', algorithm => '$1', epsilon => 1, delta => 1e-5$2)"; }
insert="INSERT INTO pts SELECT max(id) + 1, ARRAY[0.1, 0.2, 0.25], true FROM pts"
delete="DELETE FROM pts WHERE id = (SELECT max(id) FROM pts)"

expect_changed "bolton (copy), a row inserted" "$(paused_call pts "$(train bolton '')" "$insert")"
expect_changed "dpsgd (copy), a row deleted" "$(paused_call pts "$(train dpsgd '')" "$delete")"
expect_changed "amp (in place), a row inserted" "$(paused_call pts "$(train amp '')" "$insert")"
expect_changed "dpagd (in place), a row deleted" "$(paused_call pts "$(train dpagd '')" "$delete")"
expect_changed "dp_tune (copy), a row inserted" "$(paused_call pts "SELECT model_id FROM dp_tune('pts', 'y', 'x',
  algorithm => 'bolton', epsilon => 1, lambdas => '{1e-3, 1e-2}', epochs => '{1}', batch_sizes => '{5}')" "$insert")"

# A view that gives other rows on every read (here all rows on the first
# read, the count, and none after it): the same error, whatever the isolation.
q -q -c "CREATE SEQUENCE once; CREATE VIEW pts_once AS SELECT * FROM pts WHERE nextval('once') <= (SELECT count(*) FROM pts)"
out=$(q -v VERBOSITY=verbose -c "BEGIN ISOLATION LEVEL REPEATABLE READ" \
        -c "SELECT dp_train('pts_once', 'y', 'x', algorithm => 'bolton', epsilon => 1)" 2>&1 || true)
expect_changed "bolton on a view whose rows change on every read" "$out"
grep -q "a view must give the same rows on every read" <<<"$out" || fail "the hint says nothing of views: $out"

# REPEATABLE READ: the count and every read under one snapshot; the run
# trains on the rows it counted (the row inserted meanwhile is not among them).
n=$(q -c "SELECT count(*) FROM pts")
for a in bolton amp; do
  out=$(paused_call pts "BEGIN ISOLATION LEVEL REPEATABLE READ; $(train $a ''); COMMIT" "$insert")
  id=$(grep -E '^[0-9]+$' <<<"$out") || fail "$a in REPEATABLE READ: $out"
  [ "$(q -c "SELECT details->'data'->>'rows' FROM dptrain.models WHERE id = $id")" = "$n" ] ||
    fail "$a in REPEATABLE READ trained on other rows than the $n counted"
  n=$((n + 1))
  echo "ok: $a in REPEATABLE READ with a row inserted meanwhile: trained on the rows counted"
done
echo "table_written_during_run: all ok"
