#!/usr/bin/env bash
# `dptrain privacy ...`: JSON fields and values of every subcommand, error exits,
# and agreement with the SQL functions of the same core (dptrain.rdp_epsilon, ...).
set -euo pipefail
CLI=${DPTRAIN_CLI:?DPTRAIN_CLI must point to the dptrain binary}

# check JSON FIELD EXPECTED TOLERANCE: |json[FIELD] - EXPECTED| <= TOLERANCE (or equality for strings).
check() {
  python3 -c '
import json, sys
obj = json.loads(sys.argv[1]); field, expected, tol = sys.argv[2], sys.argv[3], sys.argv[4]
if field not in obj:
    sys.exit("missing field %r in %s" % (field, sys.argv[1]))
value = obj[field]
if tol == "eq":
    ok = str(value) == expected or (isinstance(value, (int, float)) and float(value) == float(expected))
else:
    ok = abs(float(value) - float(expected)) <= float(tol)
if not ok:
    sys.exit("%s = %r, expected %s (tolerance %s) in %s" % (field, value, expected, tol, sys.argv[1]))
' "$@"
}

# has_fields JSON FIELD...: every field is present.
has_fields() {
  python3 -c '
import json, sys
obj = json.loads(sys.argv[1])
missing = [f for f in sys.argv[2:] if f not in obj]
if missing:
    sys.exit("missing %s in %s" % (missing, sys.argv[1]))
' "$@"
}

echo "gaussian"
out=$("$CLI" privacy gaussian --epsilon 1 --delta 1e-5 --json)
has_fields "$out" epsilon delta sensitivity method sigma
check "$out" epsilon 1 eq; check "$out" delta 1e-5 eq; check "$out" sensitivity 1 eq; check "$out" method analytic eq
check "$out" sigma 3.73063163 1e-7
out=$("$CLI" privacy gaussian --epsilon 1 --delta 1e-5 --method amp --sensitivity 2 --json)
check "$out" sigma 11.5970519 1e-6   # 2 * (1 + sqrt(2 ln 1e5)) = 2 * 5.79852591
out=$("$CLI" privacy gaussian --epsilon 0.5 --delta 1e-5 --method classic --json)
check "$out" sigma 9.68961 1e-5      # sqrt(2 ln 125000) / 0.5 (Dwork–Roth Thm A.1: G1 = 4.84481)
"$CLI" privacy gaussian --epsilon 1 --delta 1e-5 | grep '^sigma 3.73063' >/dev/null

echo "rdp"
out=$("$CLI" privacy rdp --q 0.0042666666666666667 --sigma 1.1 --steps 14062 --delta 1e-5 \
      --conversion classic --orders "$(seq -s, 2 256)" --json)
has_fields "$out" q sigma steps delta orders conversion adjacency epsilon optimal_order
check "$out" epsilon 3.0091 5e-5; check "$out" optimal_order 9 eq; check "$out" conversion classic eq
check "$out" steps 14062 eq; check "$out" adjacency add-remove eq
out=$("$CLI" privacy rdp --q 0.01 --sigma 4 --steps 10000 --delta 1e-5 --json)
check "$out" epsilon 1.0355 5e-5; check "$out" orders default eq; check "$out" conversion improved eq
out_replace=$("$CLI" privacy rdp --q 0.01 --sigma 4 --steps 10000 --delta 1e-5 --adjacency replace-one --json)
python3 -c 'import json,sys; a,b=(json.loads(x)["epsilon"] for x in sys.argv[1:]); assert b > a, (a, b)' "$out" "$out_replace"

echo "rdp-sigma"
out=$("$CLI" privacy rdp-sigma --q 0.01 --steps 10000 --epsilon 1.0355 --delta 1e-5 --json)
has_fields "$out" q steps epsilon delta orders conversion adjacency sigma achieved_epsilon optimal_order
check "$out" sigma 4.0 1e-3
python3 -c 'import json,sys; o=json.loads(sys.argv[1]); assert o["achieved_epsilon"] <= o["epsilon"], o' "$out"

echo "zcdp-to-dp / dp-to-zcdp"
out=$("$CLI" privacy dp-to-zcdp --epsilon 1 --delta 1e-5 --json)
has_fields "$out" epsilon delta rho
check "$out" epsilon 1 eq; check "$out" delta 1e-5 eq; check "$out" rho 0.0208199 5e-8
rho=$(python3 -c 'import json,sys; print(repr(json.loads(sys.argv[1])["rho"]))' "$out")
out=$("$CLI" privacy zcdp-to-dp --rho "$rho" --delta 1e-5 --conversion bun-steinke --json)
has_fields "$out" rho delta conversion epsilon
check "$out" rho "$rho" 1e-15; check "$out" conversion bun-steinke eq; check "$out" epsilon 1 1e-9
out=$("$CLI" privacy zcdp-to-dp --rho "$rho" --delta 1e-5 --json)
check "$out" conversion cks eq; check "$out" epsilon 0.8118201 1e-6

echo "advanced-composition"
out=$("$CLI" privacy advanced-composition --epsilon 0.1 --delta 1e-6 --k 100 --delta-prime 1e-5 --json)
has_fields "$out" epsilon delta k delta_prime total_epsilon total_delta
check "$out" epsilon 0.1 eq; check "$out" delta 1e-6 eq; check "$out" k 100 eq; check "$out" delta_prime 1e-5 eq
check "$out" total_epsilon 5.8502351 1e-6; check "$out" total_delta 1.1e-4 1e-15

echo "advanced-composition-step (the inverse)"
# 100 steps of epsilon = 0.1 compose to 5.8502351 (above); the inverse gives back 0.1.
out=$("$CLI" privacy advanced-composition-step --total-epsilon 5.8502351 --k 100 --delta-prime 1e-5 --json)
has_fields "$out" total_epsilon k delta_prime epsilon achieved_total_epsilon
check "$out" epsilon 0.1 1e-8
python3 -c "import json,sys; j=json.loads(sys.argv[1]); sys.exit(0 if j['achieved_total_epsilon'] <= 5.8502351 else 1)" "$out" \
  || { echo "inverse overshoots the total: $out" >&2; exit 1; }

echo "errors"
if err=$("$CLI" privacy gaussian --epsilon 2 --delta 1e-5 --method classic 2>&1); then
  echo "classic calibration accepted epsilon 2" >&2; exit 1
fi
grep -q 'requires epsilon < 1' <<<"$err"; grep -q '^HINT:.*analytic' <<<"$err"
if err=$("$CLI" privacy rdp --q 0 --sigma 1 --steps 10 --delta 1e-5 2>&1); then exit 1; fi
grep -q 'sampling rate q must be in (0, 1]' <<<"$err"
if err=$("$CLI" privacy rdp --q 0.1 --sigma 1 --steps 10 --delta 1e-5 --orders 2,abc 2>&1); then exit 1; fi
grep -q 'invalid RDP order "abc"' <<<"$err"
# decimal orders only, a usage error (std::stod read 0x10 as 16)
rc=0; err=$("$CLI" privacy rdp --q 0.1 --sigma 1 --steps 10 --delta 1e-5 --orders 2,0x10 2>&1) || rc=$?
[ "$rc" -eq 2 ]
grep -q '^--orders: invalid RDP order "0x10": 0x10 is not a decimal number' <<<"$err"
if err=$("$CLI" privacy rdp-sigma --q 0.01 --steps 100 --epsilon 0.001 --delta 1e-5 2>&1); then exit 1; fi
grep -q 'too close to the RDP order floor' <<<"$err"; grep -q '0.00115135' <<<"$err"
if "$CLI" privacy zcdp-to-dp --rho 0.1 --delta 1e-5 --conversion renyi >/dev/null 2>&1; then exit 1; fi
if "$CLI" privacy rdp --sigma 1 --steps 10 --delta 1e-5 >/dev/null 2>&1; then exit 1; fi  # --q is required

echo "CLI and SQL agree"
db=dptrain_privacy_cli_$$
createdb "$db"
trap 'dropdb --if-exists --force "$db" >/dev/null 2>&1 || true' EXIT
psql -X -q -d "$db" -c "CREATE EXTENSION dptrain" >/dev/null
cli=$("$CLI" privacy rdp --q 0.002 --sigma 0.9 --steps 50000 --delta 1e-6 --json)
sql=$(psql -X -At -d "$db" -c "SELECT row_to_json(r) FROM dptrain.rdp_privacy(0.002, 0.9, 50000, 1e-6) r")
python3 -c '
import json, sys
cli, sql = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert abs(cli["epsilon"] - sql["epsilon"]) <= 1e-12 * cli["epsilon"], (cli, sql)
assert cli["optimal_order"] == sql["optimal_order"], (cli, sql)
' "$cli" "$sql"
cli=$("$CLI" privacy gaussian --epsilon 3 --delta 1e-9 --sensitivity 0.5 --json)
sql=$(psql -X -At -d "$db" -c "SELECT dptrain.gaussian_sigma(3, 1e-9, 0.5)")
check "$cli" sigma "$sql" 1e-12
cli=$("$CLI" privacy advanced-composition-step --total-epsilon 1 --k 100 --delta-prime 1e-5 --json)
sql=$(psql -X -At -d "$db" -c "SELECT dptrain.advanced_composition_step_epsilon(1, 100, 1e-5)")
check "$cli" epsilon "$sql" 1e-12
echo "privacy_cli: OK"
