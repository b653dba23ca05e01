#!/usr/bin/env bash
# dp_train in place on a Citus hash-distributed table whose label is a float
# column (docs/distributed.md section 8; the class of a label:
# src/pg/label_classes.h). Every shard maps its rows to classes itself, with
# the same class text as a local copy: a float's shortest exact text, -0 as
# '0', whatever extra_float_digits -- on the workers too. Checked:
#  * a binary float label (1, 0 and -0) trained in place with exact sums
#    (AMP) gives the model of the same rows labelled boolean (false = 0,
#    true = 1) on a plain table: every row, -0 ones included, is in its
#    class; classes {0,1}, every row counted, the distribution recorded, and only
#    counts and partial aggregates are sent to the workers;
#  * declared classes are read as float8 values ('-0', '1.0' are 0 and 1);
#  * classes read from the data of three float values, one of them
#    0.1 + 0.2 (whose text extra_float_digits = 0 rounds to 0.3), under
#    extra_float_digits = 0: the classes are {0,0.30000000000000004,1}, and
#    dp_evaluate on the distributed table puts every row in the matrix.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

points fl_plain 2001
sql "ALTER TABLE fl_plain ADD PRIMARY KEY (id)" >/dev/null
# y: 1 for true, 0 or -0 (every other false row) for false; z: three classes.
sql "CREATE TABLE fl (id bigint PRIMARY KEY, x float8[], y float8, z float8);
     SET citus.shard_count = 4; SELECT create_distributed_table('fl', 'id');
     INSERT INTO fl SELECT id, x,
       CASE WHEN y THEN 1 WHEN id % 2 = 0 THEN '-0'::float8 ELSE 0 END,
       CASE WHEN id % 3 = 0 THEN 0.1::float8 + 0.2::float8 WHEN y THEN 1 ELSE 0 END
     FROM fl_plain" >/dev/null
[ "$(sql "SELECT count(*) FILTER (WHERE y = 0 AND y::text = '-0') > 0 FROM fl")" = t ] ||
  fail "the table holds no -0 label: the check below could not fail"

logged() {  # logged STATEMENT: the statement on the coordinator, its remote commands logged
  citus_psql coordinator -At -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = log" -c "$1" 2>&1
}

# --- a binary float label, exact sums: the boolean label's model -------------------
out=$(logged "SELECT model_id FROM dp_train('fl', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 3)")
id=$(tail -1 <<<"$out")
[[ "$id" =~ ^[0-9]+$ ]] || fail "dp_train on the float label of the distributed table failed: $out"
remote=$(grep "issuing" <<<"$out" | grep -v "assign_distributed_transaction_id" || true)
grep -q "worker_partial_agg" <<<"$remote" || fail "not trained in place (no partial aggregate on the workers): $out"
rowfetch=$(grep -i "SELECT" <<<"$remote" | grep -v "worker_partial_agg" | grep -v "count(\*)" || true)
[ -z "$rowfetch" ] || fail "a command may fetch rows to the coordinator: $rowfetch"
meta=$(sql "SELECT classes, details->'data'->>'rows', details->'data'->'distribution'->>'distribution_column'
            FROM dptrain.models WHERE id = $id")
IFS='|' read -r classes rows column <<<"$meta"
[ "$classes" = "{0,1}" ] && [ "$rows" = 2001 ] || fail "float label in place: classes $classes, rows $rows"
[ "$column" = id ] || fail "float label: no distribution recorded (not trained in place?): $meta"
id_bool=$(sql "SELECT model_id FROM dp_train('fl_plain', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6,
                                            seed => 3)")
gap=$(sql "SELECT max(abs(a.v - b.v)) FROM
             unnest((SELECT weights FROM dptrain.models WHERE id = $id)) WITH ORDINALITY a(v, j)
             JOIN unnest((SELECT weights FROM dptrain.models WHERE id = $id_bool)) WITH ORDINALITY b(v, j) USING (j)")
sql "SELECT $gap <= 1e-6" | grep -q t || fail "float label in place vs boolean label on the plain table: weights differ by $gap"
echo "ok: a float label (1, 0, -0) trained in place = the boolean label's model (max weight gap $gap), only aggregates sent"

# --- declared classes are float8 values ----------------------------------------------
declared=$(sql "SELECT classes FROM dp_train('fl', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 3,
                                            classes => ARRAY['-0', '1.0'])")
[ "$declared" = "{0,1}" ] || fail "declared classes '-0', '1.0' of a float label: $declared"
echo "ok: declared classes '-0' and '1.0' of a distributed float label are the classes 0 and 1"

# --- classes from the data, under extra_float_digits = 0 -----------------------------
res=$(citus_psql coordinator -At -F '|' -c "SET client_min_messages = warning" -c "SET extra_float_digits = 0" -c "
  SELECT m.classes, m.details->'data'->>'rows', e.n, (SELECT sum(c) FROM unnest(e.confusion) c), e.classes = m.classes
  FROM dp_train('fl', 'z', 'x', algorithm => 'bolton', epsilon => 1, epochs => 2, seed => 5) m,
       dp_evaluate(m.model_id, 'fl', 'z', 'x') e" 2>&1 || true)
[ "$res" = "{0,0.30000000000000004,1}|2001|2001|2001|t" ] ||
  fail "three float classes from the distributed table's data (classes|rows|evaluated|in the matrix|same classes): $res"
echo "ok: float classes read from the shards are their exact texts under extra_float_digits = 0; dp_evaluate maps every row"

sql "DELETE FROM dptrain.ledger WHERE source_name IN ('public.fl', 'public.fl_plain');
     DELETE FROM dptrain.models WHERE source IN ('public.fl', 'public.fl_plain')" >/dev/null
echo "float_label_in_place: ok"
