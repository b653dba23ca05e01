#!/usr/bin/env bash
# dp_train on a Citus hash-distributed table trains in place
# (docs/distributed.md section 8; core/engine/distributed.h):
#  * no row reaches the coordinator: every command the coordinator sends to
#    the workers during dp_train is a count or a partial aggregate
#    (worker_partial_agg), checked with citus.log_remote_commands; the copy
#    path (encoded feature columns still copy) sends a plain row fetch, which
#    the same check catches;
#  * bolt-on uses the per-shard PSGD bound with the sequential-equivalent
#    step (equal to the sequential sensitivity), recorded in the metadata
#    with the public-shard-size assumption;
#  * a seed reproduces the model (up to the order in which the coordinator
#    combines the shard states); another seed gives another model;
#  * algorithms with noise per batch or sampled rows, and sparse feature
#    columns, are refused with 0A000 before anything is charged to the ledger;
#  * a distribution column that is the label is refused (22023), one
#    without a unique index is warned about (a reader) or refused before the
#    charge (a role without read access, whose model shows only the number
#    of shards and the largest);
#  * AMP (exact gradient sums) gives the plain table's model up to rounding;
#  * a view over the distributed table (read unguarded) is refused with
#    0A000 before the charge; a materialized view of it (local rows) trains;
#  * so is a view or a policy calling a function that reads it (or
#    EXPLAINs it, or runs a command such as TRUNCATE), when the function's
#    statement starts (src/pg/citus_read_barrier.h);
#  * the non-private run reaches the plain table's accuracy.
set -euo pipefail
source "$(dirname "$0")/lib/cluster.sh"

points pts_plain 3001
distributed_copy pts_plain pts 5
sql "ALTER TABLE pts_plain ADD PRIMARY KEY (id)" >/dev/null

train() {  # train TABLE ARGS...: one dp_train, its remote commands logged; prints the psql output
  local table=$1; shift
  citus_psql coordinator -At -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = log" \
    -c "SELECT model_id FROM dp_train('$table', 'y', 'x', $*)" 2>&1
}
ledger() { sql "SELECT count(*) FROM dptrain.ledger"; }

# --- in place: only counts and partial aggregates go to the workers ------------
# (The logged commands fill more than a pipe: never `echo "$big" | grep -q`,
# whose early exit fails the echo under pipefail; here-strings instead.)
out=$(train pts "algorithm => 'bolton', epsilon => 1, epochs => 2, learning_rate => 0.5, seed => 7")
id=$(echo "$out" | tail -1)
[[ "$id" =~ ^[0-9]+$ ]] || fail "dp_train on the distributed table failed: $out"
remote=$(echo "$out" | grep "issuing" || true)
[ -n "$remote" ] || fail "no remote command logged: $out"
grep -q "worker_partial_agg" <<<"$remote" || fail "no partial aggregate on the workers: $remote"
grep -q "dptrain.shuffle_key" <<<"$remote" || fail "the shards are not shuffled where they are: $remote"
grep -q 'WARNING:  the privacy guarantee on "public.pts" assumes that its distribution column "id" is a surrogate key' <<<"$out" ||
  fail "no warning for a distribution column without a unique index: $out"
rowfetch=$(grep -i "SELECT" <<<"$remote" | grep -v "worker_partial_agg" | grep -v "count(\*)" || true)
[ -z "$rowfetch" ] || fail "a command may fetch rows to the coordinator: $rowfetch"
echo "ok: dp_train sent only counts and partial aggregates to the shards"

# Classes read from the data come from the same statement as the row checks
# (grouped by the label: docs/performance.md, "The validation"): still only
# aggregates reach the coordinator, and the classes are the labels'.
sql "CREATE TABLE pts_int (id bigint PRIMARY KEY, x float8[], y int); SELECT create_distributed_table('pts_int', 'id');
     INSERT INTO pts_int SELECT id, x, (id % 3)::int FROM pts_plain" >/dev/null
out_int=$(train pts_int "algorithm => 'bolton', epsilon => 1, epochs => 1, seed => 7")
id_int=$(echo "$out_int" | tail -1)
[[ "$id_int" =~ ^[0-9]+$ ]] || fail "dp_train on a distributed table with classes from the data failed: $out_int"
[ "$(sql "SELECT classes FROM dptrain.models WHERE id = $id_int")" = "{0,1,2}" ] ||
  fail "classes from the data of a distributed table: $(sql "SELECT classes FROM dptrain.models WHERE id = $id_int")"
# (The grouped statement's intermediate result opens a distributed
# transaction: its BEGIN ... assign_distributed_transaction_id fetches no row.)
remote_int=$(echo "$out_int" | grep "issuing" | grep -v "assign_distributed_transaction_id" || true)
grep -q "GROUP BY y" <<<"$remote_int" || fail "no grouped count sent to the shards: $remote_int"
rowfetch=$(grep -i "SELECT" <<<"$remote_int" | grep -v "worker_partial_agg" | grep -v "count(\*)" || true)
[ -z "$rowfetch" ] || fail "the validation with classes from the data may fetch rows to the coordinator: $rowfetch"
echo "ok: classes read from a distributed table's data in the validation's one statement, only aggregates sent"

# The check above catches the copy path: encoded feature columns
# (features => ARRAY[...]) still copy the rows (docs/encoding.md).
sql "CREATE TABLE pts_cols (id bigint PRIMARY KEY, a float8, b float8, y boolean);
     SELECT create_distributed_table('pts_cols', 'id');
     INSERT INTO pts_cols SELECT id, x[1], x[2], y FROM pts_plain" >/dev/null
out_copy=$(citus_psql coordinator -At -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = log" \
  -c "SELECT model_id FROM dp_train('pts_cols', 'y', ARRAY['a', 'b'], bounds => '{\"a\": [-1, 1], \"b\": [-1, 1]}', algorithm => 'bolton', epsilon => 1, epochs => 1, seed => 7)" 2>&1)
[[ "$(tail -1 <<<"$out_copy")" =~ ^[0-9]+$ ]] || fail "dp_train on encoded columns of the distributed table failed: $out_copy"
copy_fetch=$(grep "issuing" <<<"$out_copy" | grep -i "SELECT" | grep -v "worker_partial_agg" | grep -v "count(\*)" || true)
[ -n "$copy_fetch" ] ||
  fail "the remote-command check does not see the row copy of encoded columns: $out_copy"
echo "ok: the same check sees the row copy of encoded feature columns"

# --- the bound and its assumption in the metadata -----------------------------
meta=$(sql "SELECT details->'privacy'->'distributed'->>'sensitivity', details->'privacy'->>'sensitivity',
                   details->'privacy'->'distributed'->>'local_passes',
                   details->'data'->'distribution'->>'assumption',
                   details->'data'->'distribution'->>'distribution_column',
                   jsonb_array_length(details->'data'->'distribution'->'shard_rows')
            FROM dptrain.models WHERE id = $id")
IFS='|' read -r d_dist d_seq passes assumption column nshards <<<"$meta"
# Convex constant step 0.5, b = 50, k = 2, L = sqrt(2) (rows of norm <= 1 plus
# the intercept's constant 1, docs/intercept.md): the sequential bound is
# 2 k L eta / b = 0.04 sqrt(2); the sequential-equivalent shard step gives the same.
sql "SELECT abs($d_seq - 0.04 * sqrt(2)) < 1e-15 AND $d_dist <= $d_seq AND $d_dist > $d_seq * (1 - 1e-9)" |
  grep -q t || fail "sensitivities: per-shard $d_dist, sequential $d_seq (expected both 0.04 sqrt(2))"
# With the intercept the rows have norm up to sqrt(2), so beta = 1/2 and the
# sequential-equivalent step needs P = 2 local passes per epoch: the P > 1
# path (each shard's rows repeated by generate_series) runs on the workers.
[ "$passes" -ge 2 ] || fail "local passes $passes: this run should need more than one"
grep -q "worker_partial_agg.*generate_series" <<<"$remote" ||
  fail "P = $passes local passes, but the shard query does not repeat the rows: $remote"
grep -q "surrogate key" <<<"$assumption" || fail "the assumption is not recorded: $assumption"
[ "$column" = id ] && [ "$nshards" = 5 ] || fail "distribution recorded as $column over $nshards shards"
echo "ok: per-shard PSGD bound $d_dist = sequential $d_seq, $passes local passes, assumption recorded"

# Strongly convex (lambda > 0, step min(1/beta, 1/(gamma t))): the per-shard
# bound is below the sequential one, and the noise release() adds is
# calibrated to it (docs/distributed.md section 9.2): the model records the
# per-shard bound as its sensitivity and as what the noise is calibrated to.
out=$(train pts "algorithm => 'bolton', epsilon => 1, epochs => 2, lambda => 0.01, seed => 7")
id_sc=$(echo "$out" | tail -1)
[[ "$id_sc" =~ ^[0-9]+$ ]] || fail "strongly convex dp_train on the distributed table failed: $out"
sc=$(sql "SELECT d->>'sensitivity', d->>'noise_calibrated_to', d->>'sequential_sensitivity', p->>'sensitivity',
                 p->'noise'->>'gamma_scale'
          FROM (SELECT details->'privacy' AS p, details->'privacy'->'distributed' AS d
                FROM dptrain.models WHERE id = $id_sc) x")
IFS='|' read -r sc_shard sc_noise sc_seq sc_recorded sc_scale <<<"$sc"
sql "SELECT $sc_shard > 0 AND $sc_shard < $sc_seq AND $sc_noise = $sc_shard AND $sc_recorded = $sc_shard
            AND abs($sc_scale - $sc_shard / 1.0) <= 1e-15 * $sc_scale" | grep -q t ||
  fail "strongly convex: per-shard $sc_shard, sequential $sc_seq, calibrated to $sc_noise, recorded $sc_recorded, scale $sc_scale"
echo "ok: strongly convex noise calibrated to the per-shard bound $sc_shard (sequential $sc_seq)"

# --- seeds reproduce -----------------------------------------------------------
# (With a primary key on the distribution column the warning goes away.)
sql "ALTER TABLE pts ADD PRIMARY KEY (id)" >/dev/null
out2=$(train pts "algorithm => 'bolton', epsilon => 1, epochs => 2, learning_rate => 0.5, seed => 7")
id2=$(echo "$out2" | tail -1)
grep -q "WARNING:  the privacy guarantee" <<<"$out2" && fail "a warning despite the primary key: $out2"
id3=$(train pts "algorithm => 'bolton', epsilon => 1, epochs => 2, learning_rate => 0.5, seed => 8" | tail -1)
same=$(sql "SELECT max(abs(a.v - b.v)) <= 1e-12 FROM
              unnest((SELECT weights FROM dptrain.models WHERE id = $id)) WITH ORDINALITY a(v, j)
              JOIN unnest((SELECT weights FROM dptrain.models WHERE id = $id2)) WITH ORDINALITY b(v, j) USING (j)")
[ "$same" = t ] || fail "seed 7 twice gave different models ($id, $id2)"
differ=$(sql "SELECT max(abs(a.v - b.v)) > 1e-6 FROM
              unnest((SELECT weights FROM dptrain.models WHERE id = $id)) WITH ORDINALITY a(v, j)
              JOIN unnest((SELECT weights FROM dptrain.models WHERE id = $id3)) WITH ORDINALITY b(v, j) USING (j)")
[ "$differ" = t ] || fail "seeds 7 and 8 gave the same model"
echo "ok: the same seed reproduces the model, another seed changes it"

# --- refused before any charge -------------------------------------------------
before=$(ledger)
# Positive control: an unseeded private run is charged.
train pts "algorithm => 'bolton', epsilon => 0.5, epochs => 1" >/dev/null
after_ok=$(ledger)
[ "$after_ok" -gt "$before" ] || fail "an unseeded run left no ledger entry ($before -> $after_ok): the check below could not fail"
for alg in scs13 bst14 dpsgd opdisc; do
  extra="epsilon => 1, delta => 1e-6, epochs => 1"
  # (convex bst14 without a radius is refused for that first, before the table is read)
  if [ "$alg" = bst14 ]; then extra="$extra, radius => 1"; fi
  err=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SELECT dp_train('pts', 'y', 'x', algorithm => '$alg', $extra)" 2>&1 || true)
  grep -q "0A000" <<<"$err" || fail "$alg on a distributed table: expected SQLSTATE 0A000, got: $err"
  grep -q "cannot train on a distributed table" <<<"$err" || fail "$alg: unclear error: $err"
  grep -q "HINT" <<<"$err" || fail "$alg: no hint: $err"
done
err=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SELECT dp_train('pts', 'y', 'x', algorithm => 'bolton', epsilon => 1, averaging => true)" 2>&1 || true)
grep -q "0A000" <<<"$err" || fail "averaging on a distributed table: expected 0A000, got: $err"
# The run's own arguments (a step above 2/beta; the algorithm named or left out): refused before the
# shards are read (Algorithm::check_run_arguments).
for args in "algorithm => 'bolton', epsilon => 1, learning_rate => 100" "epsilon => 1, learning_rate => 100"; do
  err=$(citus_psql coordinator -At -c "SELECT dp_train('pts', 'y', 'x', $args)" 2>&1 || true)
  grep -q "is larger than 2/beta" <<<"$err" || fail "a step above 2/beta on a distributed table ($args): $err"
done
[ "$(ledger)" = "$after_ok" ] || fail "a refused run was charged: ledger $after_ok -> $(ledger)"
echo "ok: scs13, bst14, dpsgd, opdisc and averaging refused with 0A000, a step above 2/beta as such, nothing charged"

# The defaults from n and d (epsilon only) are the ones the plan before the
# charge checks: a 30-row table in 4 shards trains with the plain table's
# batch size, where the classic batch of 50 was refused before.
points pts_small_plain 30
distributed_copy pts_small_plain pts_small 4
batch() { sql "SELECT details->'hyperparameters'->>'batch_size' FROM dptrain.models WHERE id = $1"; }
out=$(train pts_small "epsilon => 1" || true); small=$(tail -1 <<<"$out")
[[ "$small" =~ ^[0-9]+$ ]] || fail "epsilon only on a 30-row distributed table: $(grep ERROR <<<"$out")"
out=$(train pts_small_plain "epsilon => 1" || true); small_plain=$(tail -1 <<<"$out")
[[ "$small_plain" =~ ^[0-9]+$ ]] || fail "epsilon only on the 30-row plain table: $(grep ERROR <<<"$out")"
[ "$(batch "$small")" = "$(batch "$small_plain")" ] && [ "$(batch "$small")" -le 30 ] ||
  fail "batch size on 30 rows: distributed $(batch "$small"), plain $(batch "$small_plain")"
echo "ok: epsilon only on a 30-row distributed table trains with the plain table's batch size ($(batch "$small"))"
after_ok=$(ledger)

# A sparse feature column cannot be trained in place (the shard passes read
# float8[] rows; docs/sparse.md): 0A000 with the hint to densify, before the charge.
sql "CREATE TABLE pts_sparse (id bigint, x dptrain.sparsevec, y boolean);
     SET citus.shard_count = 3; SELECT create_distributed_table('pts_sparse', 'id');
     INSERT INTO pts_sparse SELECT id, x::dptrain.sparsevec, y FROM pts_plain" >/dev/null
err=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SELECT dp_train('pts_sparse', 'y', 'x', algorithm => 'bolton', epsilon => 1, epochs => 1)" 2>&1 || true)
grep -q "0A000" <<<"$err" && grep -q "sparse features cannot be trained in place" <<<"$err" ||
  fail "a distributed sparse table: expected 0A000, got: $err"
grep -q "HINT" <<<"$err" || fail "a distributed sparse table: no hint to densify: $err"
[ "$(ledger)" = "$after_ok" ] || fail "the refused sparse run was charged: ledger $after_ok -> $(ledger)"
echo "ok: a distributed table with a sparse column refused in place with 0A000, nothing charged"

# --- a data column as distribution column --------------------------------------
sql "CREATE TABLE pts_by_label (id bigint, x float8[], y int); SELECT create_distributed_table('pts_by_label', 'y');
     INSERT INTO pts_by_label SELECT id, x, y::int FROM pts_plain" >/dev/null
err=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SELECT dp_train('pts_by_label', 'y', 'x', algorithm => 'bolton', epsilon => 1, classes => ARRAY['0','1'])" 2>&1 || true)
grep -q "22023" <<<"$err" || fail "distributed by the label: expected 22023, got: $err"
echo "ok: a table distributed by its label is refused (22023)"

# --- exact sums: AMP equals the plain table's run up to rounding ----------------
amp_out=$(train pts "algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 3")
a_dist=$(tail -1 <<<"$amp_out")
a_plain=$(train pts_plain "algorithm => 'amp', epsilon => 1, delta => 1e-6, seed => 3" | tail -1)
# Each shard gets the gradient request alone (16 header values and the d
# weights), not the zero sums of the state (with the Hessian: 2 + 2d + d^2
# more values, which Citus would copy into a record for every row).
dim=$(sql "SELECT jsonb_array_length(to_jsonb(weights)) FROM dptrain.models WHERE id = $a_dist")
request=$(grep "worker_partial_agg('dptrain.gradient_sum" <<<"$amp_out" | head -1 | grep -o "'{1146115175[^}]*}'" || true)
[ -n "$request" ] || fail "no gradient pass sent to the shards: $amp_out"
values=$(tr -cd ',' <<<"$request" | wc -c)
[ $((values + 1)) = $((16 + dim)) ] ||
  fail "the shards got $((values + 1)) values per gradient request, expected 16 + d = $((16 + dim))"
gap=$(sql "SELECT max(abs(a.v - b.v)) FROM
             unnest((SELECT weights FROM dptrain.models WHERE id = $a_dist)) WITH ORDINALITY a(v, j)
             JOIN unnest((SELECT weights FROM dptrain.models WHERE id = $a_plain)) WITH ORDINALITY b(v, j) USING (j)")
sql "SELECT $gap <= 1e-6" | grep -q t || fail "AMP distributed vs plain: weights differ by $gap"
echo "ok: AMP on the distributed table = plain table (max weight gap $gap)"

# DP-AGD's line search goes to the shards as its two defining points, 16 + 2d
# values, not the 16 + 21d of its 21 candidates (docs/dpagd.md, "Cost").
agd_out=$(train pts "algorithm => 'dpagd', epsilon => 1, delta => 1e-6, seed => 3, options => '{\"splits\": 4}'")
sizes=$(grep "worker_partial_agg('dptrain.gradient_sum" <<<"$agd_out" | grep -o "'{1146115175[^}]*}'" |
  while read -r r; do echo $(($(tr -cd ',' <<<"$r" | wc -c) + 1)); done | sort -nu | tr '\n' ' ')
[ "$sizes" = "$((16 + dim)) $((16 + 2 * dim)) " ] ||
  fail "DP-AGD sent requests of $sizes values to the shards, expected 16 + d = $((16 + dim)) and 16 + 2d = $((16 + 2 * dim))"
echo "ok: DP-AGD's line search sends the shards its two points ($((16 + 2 * dim)) values, not $((16 + 21 * dim)))"

# --- convergence: the non-private run reaches the plain table's accuracy -------
acc() { sql "SELECT round(accuracy::numeric, 4) FROM dp_evaluate($1, 'pts_plain', 'y', 'x')"; }
n_dist=$(train pts "algorithm => 'none', epochs => 3, learning_rate => 0.5, seed => 1" | tail -1)
n_plain=$(train pts_plain "algorithm => 'none', epochs => 3, learning_rate => 0.5, seed => 1" | tail -1)
ad=$(acc "$n_dist"); ap=$(acc "$n_plain")
sql "SELECT $ad >= $ap - 0.02 AND $ad > 0.8" | grep -q t || fail "non-private accuracy: distributed $ad, plain $ap"
echo "ok: non-private accuracy distributed $ad, plain $ap"
# --- dptrain train: in place, inside the server --------------------------------
cli=$("${DPTRAIN_CLI:-build/dptrain}" train --table pts --label y --features x --algorithm bolton --epsilon 1 --epochs 2 --learning-rate 0.5 --seed 7 --json 2>&1) ||
  fail "dptrain train on the distributed table failed: $cli"
id_cli=$(echo "$cli" | tail -1 | sed -E 's/.*"model_id":([0-9]+).*/\1/')
echo "$cli" | tail -1 | grep -q '"mode":"server"' || fail "dptrain train did not run in the server: $cli"
same=$(sql "SELECT max(abs(a.v - b.v)) <= 1e-12 FROM
              unnest((SELECT weights FROM dptrain.models WHERE id = $id)) WITH ORDINALITY a(v, j)
              JOIN unnest((SELECT weights FROM dptrain.models WHERE id = $id_cli)) WITH ORDINALITY b(v, j) USING (j)")
[ "$same" = t ] || fail "dptrain train --seed 7 and dp_train seed 7 differ ($id_cli, $id)"
err=$("${DPTRAIN_CLI:-build/dptrain}" train --table pts --label y --features x --algorithm bolton --epsilon 1 --controller 2>&1 || true)
grep -q "cannot train on the distributed table" <<<"$err" || fail "--controller on a distributed table: $err"
echo "ok: dptrain train trains the distributed table in place (same model as dp_train for the same seed)"

# --- governance: a role with a budget but no read access -----------------------
sql "CREATE ROLE reg_owner_$$ LOGIN" >/dev/null
sql "CREATE ROLE reg_analyst_$$ LOGIN" >/dev/null
sql "CREATE TABLE pts_gov (LIKE pts_plain)" >/dev/null
sql "SELECT create_distributed_table('pts_gov', 'id', shard_count => 4)" >/dev/null
sql "INSERT INTO pts_gov SELECT * FROM pts_plain" >/dev/null
sql "ALTER TABLE pts_gov OWNER TO reg_owner_$$" >/dev/null
as() { citus_psql coordinator -At -v VERBOSITY=verbose -c "SET ROLE $1" -c "$2" 2>&1; }
as reg_owner_$$ "SELECT dp_grant_budget('pts_gov', 'reg_analyst_$$', 1.0, 1e-6)" >/dev/null
err=$(as reg_analyst_$$ "SELECT count(*) FROM pts_gov" || true)
grep -q "permission denied" <<<"$err" || fail "the analyst can read the table: $err"
# Without a unique index the distribution column may hold data: the analyst
# (no read access) is refused before any charge; the owner adds the index.
err=$(as reg_analyst_$$ "SELECT dp_train('pts_gov', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, epochs => 1)" || true)
grep -q "0A000" <<<"$err" && grep -q "no unique index" <<<"$err" ||
  fail "a non-unique distribution column for the analyst: $err"
left=$(as reg_analyst_$$ "SELECT epsilon FROM dp_budget_remaining('pts_gov')" | tail -1)
sql "SELECT abs($left - 1.0) < 1e-12" | grep -q t || fail "the refused run was charged (left $left)"
sql "ALTER TABLE pts_gov ADD PRIMARY KEY (id)" >/dev/null
err=$(as reg_analyst_$$ "SELECT dp_train('pts_gov', 'y', 'x', algorithm => 'scs13', epsilon => 0.5, delta => 1e-7)" || true)
grep -q "0A000" <<<"$err" || fail "scs13 for the analyst: $err"
err=$(as reg_analyst_$$ "SELECT dp_train('pts_gov', 'y', 'x', algorithm => 'bolton', epsilon => 2)" || true)
grep -qi "budget" <<<"$err" || fail "over budget for the analyst: $err"
ok=$(as reg_analyst_$$ "SELECT model_id FROM dp_train('pts_gov', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, epochs => 1)") ||
  fail "dp_train with a budget on the distributed table: $ok"
left=$(as reg_analyst_$$ "SELECT epsilon FROM dp_budget_remaining('pts_gov')" | tail -1)
sql "SELECT abs($left - 0.5) < 1e-12" | grep -q t || fail "budget left $left, expected 0.5 (only the admitted run charged)"
# The analyst's model shows the number of shards and the largest, not every shard's size.
dist=$(sql "SELECT details->'data'->'distribution' FROM dptrain.models WHERE id = $(echo "$ok" | tail -1)")
grep -q '"largest_shard_rows"' <<<"$dist" && ! grep -q '"shard_rows"' <<<"$dist" ||
  fail "the analyst's model shows the shard sizes: $dist"
echo "ok: governance on the distributed table (no read access, refusals free, one charge of 0.5)"
# --- a view over the distributed table is refused, not read unguarded ----------
# (The guard goes into statements that name the Citus table; a view's reads
# would reach the shards without it: src/pg/shard_guard.h,
# guarded_source_sql. A materialized view's rows are local: trained.)
sql "CREATE VIEW pts_view AS SELECT * FROM pts; CREATE VIEW pts_view2 AS SELECT * FROM pts_view WHERE id > 0;
     CREATE MATERIALIZED VIEW pts_matview AS SELECT * FROM pts;
     CREATE TABLE pts_polsrc AS SELECT * FROM pts_plain; ALTER TABLE pts_polsrc ENABLE ROW LEVEL SECURITY;
     CREATE POLICY p ON pts_polsrc USING (EXISTS (SELECT 1 FROM pts WHERE pts.id = pts_polsrc.id))" >/dev/null
before=$(ledger)
for call in "dp_train('pts_view', 'y', 'x', algorithm => 'bolton', epsilon => 1)" \
            "dp_train('pts_view2', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6)" \
            "dp_tune('pts_view', 'y', 'x', epsilon => 1)" \
            "dp_evaluate($id, 'pts_view2', 'y', 'x')" \
            "dp_train('pts_polsrc', 'y', 'x', algorithm => 'bolton', epsilon => 1)"; do
  err=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SELECT * FROM $call" 2>&1 || true)
  grep -q "0A000" <<<"$err" && grep -q 'reads the Citus table "pts"' <<<"$err" && grep -q "HINT" <<<"$err" ||
    fail "$call over a distributed table: expected 0A000 naming pts, got: $err"
done
[ "$(ledger)" = "$before" ] || fail "a refused run on a view was charged: ledger $before -> $(ledger)"
mv_id=$(train pts_matview "algorithm => 'bolton', epsilon => 1, epochs => 1" | tail -1)
[[ "$mv_id" =~ ^[0-9]+$ ]] || fail "a materialized view of the distributed table (local rows) was refused: $mv_id"
echo "ok: views over the distributed table and a policy reading it refused (0A000, nothing charged); its materialized view trains"
# --- a function that reads it, called by a view or a policy: refused when it runs --
# (A function's body is not in pg_depend: citus_table_behind cannot see it.
# Its statement names the Citus table without the guard; measured before
# src/pg/citus_read_barrier.h: dp_train on pts_fview trained, its shard
# reads unguarded. The barrier refuses the statement before it starts: a
# PL/pgSQL function's, a SQL function's (one PostgreSQL inlines, STABLE,
# Citus refuses itself), one from a plan the session cached before the
# call. A view over a local table and a table with an unrelated policy
# still train.)
# (pts_rows's own search_path: its statement's plan, cached by the first
# call in a session, is not planned again under dptrain's.)
sql "CREATE FUNCTION pts_rows() RETURNS TABLE(id bigint, x float8[], y boolean) LANGUAGE plpgsql
       SET search_path = public AS \$\$ BEGIN RETURN QUERY SELECT p.id, p.x, p.y FROM pts p; END \$\$;
     CREATE FUNCTION pts_rows_sql() RETURNS TABLE(id bigint, x float8[], y boolean) LANGUAGE sql AS
       \$\$ SELECT p.id, p.x, p.y FROM public.pts p \$\$;
     CREATE VIEW pts_fview AS SELECT * FROM pts_rows();
     CREATE VIEW pts_sqlview AS SELECT * FROM pts_rows_sql();
     CREATE VIEW pts_plain_view AS SELECT * FROM pts_plain WHERE id > 0;
     CREATE TABLE pts_other (a int); CREATE TABLE pts_policed AS SELECT * FROM pts_plain;
     ALTER TABLE pts_policed ENABLE ROW LEVEL SECURITY; ALTER TABLE pts_policed FORCE ROW LEVEL SECURITY;
     CREATE POLICY p ON pts_policed USING (NOT EXISTS (SELECT 1 FROM pts_other))" >/dev/null 2>&1
before=$(ledger)
for call in "dp_train('pts_fview', 'y', 'x', algorithm => 'bolton', epsilon => 1)" \
            "dp_train('pts_sqlview', 'y', 'x', algorithm => 'amp', epsilon => 1, delta => 1e-6)" \
            "dp_tune('pts_fview', 'y', 'x', epsilon => 1)" \
            "dp_evaluate($id, 'pts_sqlview', 'y', 'x')" \
            "dptrain.distinct_text_values('pts_fview', 'y', 10)"; do
  # (the first statement caches the function's plan in the session)
  err=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SELECT count(*) FROM pts_fview" -c "SELECT * FROM $call" 2>&1 || true)
  grep -q "0A000" <<<"$err" && grep -q 'reads the Citus table "pts"' <<<"$err" &&
    grep -q "A statement run while dptrain read it" <<<"$err" ||
    fail "$call, a function reading the distributed table: expected 0A000 from the barrier, got: $err"
done
[ "$(ledger)" = "$before" ] || fail "a refused run on a function's view was charged: ledger $before -> $(ledger)"
# The owner's view of its local table, whose WHERE calls the owner's
# function reading pts_gov (read as the owner for the analyst). (A policy on
# the table did this before; a role without read access is now refused on a
# table with row security before anything is read: security_row_security.sql.)
sql "CREATE TABLE gov_local AS SELECT * FROM pts_plain; ALTER TABLE gov_local OWNER TO reg_owner_$$;
     CREATE FUNCTION gov_rows() RETURNS boolean LANGUAGE plpgsql AS
       \$\$ BEGIN RETURN (SELECT count(*) > 0 FROM public.pts_gov); END \$\$;
     ALTER FUNCTION gov_rows() OWNER TO reg_owner_$$;
     CREATE VIEW gov_local_v AS SELECT * FROM gov_local WHERE gov_rows();
     ALTER VIEW gov_local_v OWNER TO reg_owner_$$" >/dev/null
as reg_owner_$$ "SELECT dp_grant_budget('gov_local_v', 'reg_analyst_$$', 1.0, 1e-6)" >/dev/null
err=$(as reg_analyst_$$ "SELECT dp_train('gov_local_v', 'y', 'x', algorithm => 'bolton', epsilon => 0.5, epochs => 1)" || true)
# (without read access: the fixed error of a read that failed, charged -- a
# view's condition runs per row, so whether its function runs may depend on
# a row: docs/governance.md's table of errors)
grep -q 'reading "public.gov_local_v" for the run failed' <<<"$err" ||
  fail "a view's function reading the distributed table, for the analyst: $err"
left=$(as reg_analyst_$$ "SELECT epsilon FROM dp_budget_remaining('gov_local_v')" | tail -1)
sql "SELECT abs($left - 0.5) < 1e-12" | grep -q t || fail "the failed run on gov_local_v: budget left $left, expected 0.5"
# Two other ways such a function reaches the shards: EXPLAIN (Citus runs it
# on a worker, which plans the shard's query: code of a relation there runs)
# and a command Citus runs on the shards (TRUNCATE: a worker's TRUNCATE
# trigger runs). Measured before the barrier covered them: both trained,
# and pts_victim was emptied. A SET the function makes reads no table: that
# view trains.
distributed_copy pts_plain pts_victim 2
sql "CREATE FUNCTION pts_explained() RETURNS TABLE(id bigint, x float8[], y boolean) LANGUAGE plpgsql AS
       \$\$ DECLARE r record; BEGIN FOR r IN EXECUTE 'EXPLAIN SELECT * FROM public.pts' LOOP END LOOP;
             RETURN QUERY SELECT p.id, p.x, p.y FROM public.pts_plain p; END \$\$;
     CREATE FUNCTION pts_truncating() RETURNS TABLE(id bigint, x float8[], y boolean) LANGUAGE plpgsql AS
       \$\$ BEGIN TRUNCATE public.pts_victim; RETURN QUERY SELECT p.id, p.x, p.y FROM public.pts_plain p; END \$\$;
     CREATE FUNCTION pts_setting() RETURNS TABLE(id bigint, x float8[], y boolean) LANGUAGE plpgsql AS
       \$\$ BEGIN SET LOCAL work_mem = '8MB';
             RETURN QUERY SELECT p.id, p.x, p.y FROM public.pts_plain p; END \$\$;
     CREATE VIEW pts_xview AS SELECT * FROM pts_explained();
     CREATE VIEW pts_tview AS SELECT * FROM pts_truncating();
     CREATE VIEW pts_setview AS SELECT * FROM pts_setting()" >/dev/null 2>&1
err=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SELECT dp_train('pts_xview', 'y', 'x', algorithm => 'bolton', epsilon => 1)" 2>&1 || true)
grep -q "0A000" <<<"$err" && grep -q 'reads the Citus table "pts"' <<<"$err" ||
  fail "a view whose function EXPLAINs the distributed table: expected 0A000, got: $err"
err=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SELECT dp_train('pts_tview', 'y', 'x', algorithm => 'bolton', epsilon => 1)" 2>&1 || true)
grep -q "0A000" <<<"$err" && grep -q 'runs the command TRUNCATE TABLE' <<<"$err" ||
  fail "a view whose function truncates a distributed table: expected 0A000, got: $err"
[ "$(sql "SELECT count(*) FROM pts_victim")" = 3001 ] || fail "the refused run truncated pts_victim"
# A Citus source of its own (a reference table, read guarded) whose policy
# calls a function reading another Citus table: Citus runs the reference
# table's placement on the coordinator in this session, the policy with it.
# Measured before the barrier covered Citus sources: a reader's dp_train
# read pts's shards unguarded from that function. (Run on a worker's
# placement, the policy would run there: not seen; docs/governance.md.)
sql "CREATE ROLE reg_reader_$$ LOGIN" >/dev/null
sql "CREATE TABLE pts_ref AS SELECT * FROM pts_plain" >/dev/null
sql "SELECT create_reference_table('pts_ref')" >/dev/null
sql "CREATE FUNCTION pts_ref_visible() RETURNS boolean LANGUAGE plpgsql AS
       \$\$ BEGIN RETURN (SELECT count(*) >= 0 FROM public.pts); END \$\$" >/dev/null
sql "ALTER TABLE pts_ref ENABLE ROW LEVEL SECURITY" >/dev/null
sql "CREATE POLICY p ON pts_ref USING (pts_ref_visible())" >/dev/null
sql "GRANT SELECT ON pts_ref, pts TO reg_reader_$$" >/dev/null
n=$(as reg_reader_$$ "SELECT count(*) FROM pts_ref") && [ "$n" = 3001 ] || fail "the reader does not see pts_ref: $n"
err=$(as reg_reader_$$ "SELECT dp_train('pts_ref', 'y', 'x', algorithm => 'bolton', epsilon => 1)" || true)
grep -q "0A000" <<<"$err" && grep -q 'reads the Citus table "pts"' <<<"$err" && grep -q "A statement run while dptrain read it" <<<"$err" ||
  fail "a reference table whose policy's function reads the distributed table: expected 0A000, got: $err"
for table in pts_plain_view pts_policed pts_setview; do
  ok_id=$(train $table "algorithm => 'bolton', epsilon => 1, epochs => 1" | tail -1)
  [[ "$ok_id" =~ ^[0-9]+$ ]] || fail "$table (no Citus table read) was refused: $ok_id"
done
echo "ok: functions reading the distributed table, in a view or a policy, refused when they run (0A000; nothing charged for a reader; the analyst's failed read charged), with EXPLAIN or TRUNCATE too, from a reference table's policy too; local views and policies train"
# --- a shard that is not a plain table is refused before anything runs -------------
# (a shard replaced by a view, by hand on its worker, would run the view's
# code: the guard of the run's first statement, the count, refuses it;
# src/pg/shard_guard.h)
points pts_bad_src 200
distributed_copy pts_bad_src pts_bad 2
sql "ALTER TABLE pts_bad ADD PRIMARY KEY (id)" >/dev/null
read -r shard port <<<"$(sql "SELECT shard_name, nodeport FROM citus_shards WHERE table_name = 'pts_bad'::regclass
                             ORDER BY shardid LIMIT 1" | tr '|' ' ')"
node=worker1; [ "$port" = "${CITUS_PORT[worker2]}" ] && node=worker2
on "$node" "SET citus.enable_ddl_propagation = off; SET citus.enable_manual_changes_to_shards = on; ALTER TABLE $shard RENAME TO ${shard}_moved;
            CREATE VIEW $shard AS SELECT * FROM ${shard}_moved" >/dev/null
before=$(ledger)
err=$(citus_psql coordinator -At -v VERBOSITY=verbose -c "SELECT dp_train('pts_bad', 'y', 'x', algorithm => 'bolton', epsilon => 1)" 2>&1 || true)
grep -q "55000" <<<"$err" && grep -q "which is a view" <<<"$err" || fail "a shard replaced by a view: $err"
[ "$(ledger)" = "$before" ] || fail "the refused run was charged"
echo "ok: a shard replaced by a view is refused before the charge"
echo "dp_train_in_place: all ok"
