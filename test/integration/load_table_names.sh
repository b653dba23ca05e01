#!/usr/bin/env bash
# `dptrain load --table` reads an SQL name as `dptrain train --table` and
# dp_train do: unquoted parts fold to lower case, "..." keeps case and
# spaces. It used to quote the text verbatim: `load --table Patients` made
# "Patients", and `train --table Patients` then failed with relation
# "patients" does not exist (found by the smoke sweep). A name that is no SQL
# name is refused with a hint on quoting.
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db names
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "$1"; }

python3 - "$WORK/data.csv" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("a,b,label\n")
    for i in range(60):
        f.write(f"{i % 7},{(i * 3) % 11},{'yes' if i % 2 else 'no'}\n")
EOF
printf '0\n1\n2\n' >"$WORK/test_rows.txt"
q "CREATE SCHEMA s1"

# load then train with the same --table, for a mixed-case, a qualified and a quoted name
for name in Patients s1.MixedCase '"My Table"'; do
  "$DPTRAIN_CLI" load --db "dbname=$db" --table "$name" --test-rows "$WORK/test_rows.txt" "$WORK/data.csv" \
    >/dev/null 2>"$WORK/err" || fail "load --table $name: $(cat "$WORK/err")"
  "$DPTRAIN_CLI" train --db "dbname=$db" --table "$name" --algorithm none --batch-size 10 --json \
    >/dev/null 2>"$WORK/err" || fail "train --table $name after load --table $name: $(cat "$WORK/err")"
  echo "ok: load and train --table $name"
done
tables=$(q "SELECT c.oid::regclass::text FROM pg_class c
            WHERE relkind = 'r' AND relnamespace IN ('public'::regnamespace, 's1'::regnamespace)" | LC_ALL=C sort | tr '\n' ' ')
[ "$tables" = '"My Table" "My Table_test" patients patients_test s1.mixedcase s1.mixedcase_test ' ] || fail "tables: $tables"
echo "ok: the tables are the SQL names (folded unless quoted), test tables beside them"

# not an SQL name: refused before reading the file, with a hint on quoting
if "$DPTRAIN_CLI" load --db "dbname=$db" --table 'my-table' "$WORK/data.csv" >/dev/null 2>"$WORK/err"; then
  fail "load --table my-table succeeded"
fi
grep -q '"my-table" is not a valid SQL table name' "$WORK/err" || fail "error: $(cat "$WORK/err")"
grep -q "HINT:  Quote a name" "$WORK/err" || fail "no hint: $(cat "$WORK/err")"
echo "ok: $(head -1 "$WORK/err")"

# the same hint from the commands that read a table: an unquoted name with a space
if "$DPTRAIN_CLI" train --db "dbname=$db" --table 'My Table' --epsilon 1 >/dev/null 2>"$WORK/err"; then
  fail "train --table 'My Table' (unquoted) succeeded"
fi
grep -q "HINT:  Quote a name" "$WORK/err" || fail "train: no quoting hint: $(cat "$WORK/err")"
echo "ok: train --table 'My Table' says how to quote it"

# --test-table naming the table of --table (folded or qualified: one table)
# is refused before anything is created. It failed on CREATE TABLE of the
# test part, and with --replace dropped the train part's table: exit 0,
# "loaded patients: 57 rows, public.Patients: 3 rows", 3 rows left.
for replace in "" --replace; do
  status=0
  "$DPTRAIN_CLI" load --db "dbname=$db" --table Patients --test-table public.PATIENTS $replace \
    --test-rows "$WORK/test_rows.txt" "$WORK/data.csv" >/dev/null 2>"$WORK/err" || status=$?
  [ "$status" = 1 ] || fail "load with --test-table the table of --table $replace: exit status $status"
  grep -q "^dptrain: error: --test-table public.PATIENTS is the table of --table Patients" "$WORK/err" \
    || fail "load with --test-table the table of --table $replace: $(cat "$WORK/err")"
  [ "$(q "SELECT count(*) FROM patients")" = 57 ] || fail "the table patients lost rows ($replace)"
done
echo "ok: --test-table naming the table of --table is refused, and the table keeps its rows"

# --test-file naming the file of FILE (the same path, another path to it, a
# symlink: the same device and inode) is a usage error (exit 2) before
# anything is created. It was loaded: a test set equal to the training set.
ln -s "$WORK/data.csv" "$WORK/link.csv"
for test_file in "$WORK/data.csv" "$WORK/./data.csv" "$WORK/link.csv"; do
  status=0
  "$DPTRAIN_CLI" load --db "dbname=$db" --table same_file --test-file "$test_file" "$WORK/data.csv" \
    >/dev/null 2>"$WORK/err" || status=$?
  [ "$status" = 2 ] || fail "load with --test-file $test_file, the file of FILE: exit status $status ($(cat "$WORK/err"))"
  grep -q "^--test-file: .* is the training file" "$WORK/err" || fail "--test-file $test_file: $(cat "$WORK/err")"
  grep -q "Give a separate test file, or --test-rows" "$WORK/err" || fail "no hint: $(cat "$WORK/err")"
done
[ "$(q "SELECT to_regclass('same_file') IS NULL AND to_regclass('same_file_test') IS NULL")" = t ] \
  || fail "a refused --test-file left a table behind"
echo "ok: $(head -1 "$WORK/err")"

# KDD Cup 99 normal vs attack (every 1000th row: 495 rows, 6 labels): the
# summary counts the 2 classes stored in y and says how the labels map. It
# said "6 classes (y boolean, true = normal", counting the raw labels.
zcat "${DPTRAIN_DATA:?}/kddcup99/kddcup.data_10_percent.gz" | awk 'NR % 1000 == 1' >"$WORK/kdd.csv"
out=$("$DPTRAIN_CLI" load --db "dbname=$db" --table kdd --positive normal "$WORK/kdd.csv" 2>/dev/null) \
  || fail "load kdd"
grep -q "; 2 classes (y boolean, true = normal, false = every other label (5 in train: back, neptune, portsweep, ...)" \
  <<<"$out" || fail "kdd summary: $out"
[ "$(q "SELECT count(DISTINCT y) FROM kdd")" = 2 ] || fail "kdd: y is not 2 classes"
echo "ok: $out"

# --json says the same: "classes" are y's (false, true), as the text's
# "2 classes"; the raw labels mapped to false are "negative_labels". It
# listed the 6 raw labels as "classes" beside the text's "2 classes".
out=$("$DPTRAIN_CLI" load --db "dbname=$db" --table kdd_json --positive normal --json "$WORK/kdd.csv" 2>/dev/null) \
  || fail "load kdd --json"
python3 -c "
import json, sys
j = json.loads(sys.argv[1])
assert j['classes'] == ['false', 'true'] and j['positive'] == 'normal', j
assert len(j['negative_labels']) == 5 and 'normal' not in j['negative_labels'], j
" "$out" || fail "kdd --json: $out"
echo "ok: load --json: classes [false, true], 5 negative labels"

# IDX: separate test images labelled by the training labels file (given with
# --test-labels-file, or derived from the test images' name and pointing at
# it) is the same refusal (exit 2): the counts matched, and it was loaded.
python3 - "$WORK" <<'EOF'
import struct, sys
def idx(path, magic, dims, body):
    with open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in dims) + bytes(body))
for name, seed in (("train", 1), ("t10k", 2)):
    idx(f"{sys.argv[1]}/{name}-images-idx3-ubyte", 0x803, (20, 2, 2), [(seed * i) % 256 for i in range(80)])
idx(f"{sys.argv[1]}/train-labels-idx1-ubyte", 0x801, (20,), [i % 3 for i in range(20)])
EOF
ln -s "$WORK/train-labels-idx1-ubyte" "$WORK/t10k-labels-idx1-ubyte"
for labels in "--test-labels-file=$WORK/train-labels-idx1-ubyte" ""; do
  status=0
  "$DPTRAIN_CLI" load --db "dbname=$db" --table idx_same --test-file "$WORK/t10k-images-idx3-ubyte" ${labels:+"$labels"} \
    "$WORK/train-images-idx3-ubyte" >/dev/null 2>"$WORK/err" || status=$?
  [ "$status" = 2 ] || fail "IDX test labels = training labels ($labels): exit status $status ($(cat "$WORK/err"))"
  grep -q "^--test-.*: the test labels .* are the training labels file" "$WORK/err" || fail "IDX labels: $(cat "$WORK/err")"
done
[ "$(q "SELECT to_regclass('idx_same') IS NULL")" = t ] || fail "a refused IDX test labels file left a table behind"
echo "ok: $(head -1 "$WORK/err")"
# the test images' own labels load
rm "$WORK/t10k-labels-idx1-ubyte"
python3 -c "
import struct, sys
open(sys.argv[1], 'wb').write(struct.pack('>II', 0x801, 20) + bytes(i % 3 for i in range(20)))
" "$WORK/t10k-labels-idx1-ubyte"
"$DPTRAIN_CLI" load --db "dbname=$db" --table idx_own --test-file "$WORK/t10k-images-idx3-ubyte" \
  "$WORK/train-images-idx3-ubyte" >/dev/null 2>"$WORK/err" || fail "IDX with its own test labels: $(cat "$WORK/err")"
[ "$(q "SELECT count(*) FROM idx_own_test")" = 20 ] || fail "IDX test part"
echo "ok: IDX with its own test labels loads"
