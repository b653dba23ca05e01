#!/usr/bin/env bash
# The dptrain CLI and search_path hijacking (issue 15, item 1): a role that
# may create functions in public plants functions named like the built-ins
# the CLI's own queries call (unnest, quote_ident, to_regclass, ...). A
# superuser whose search_path puts public first runs every command of the
# CLI; none of the planted functions may run. (The CLI pins its session's
# search_path to pg_catalog, pg_temp and resolves the names the user gives
# against the user's own path.)
# Env: DPTRAIN_CLI, PGHOST/PGPORT/PGUSER of a live throwaway cluster.
set -euo pipefail
: "${DPTRAIN_CLI:?set DPTRAIN_CLI to the dptrain binary}"
source "$(dirname "$0")/lib/scratch_db.sh"
scratch_db hijack
MALLORY=mallory_$$
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists --force "$db" >/dev/null 2>&1 || true;
      psql -X -q -d postgres -c "DROP ROLE IF EXISTS $MALLORY" >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }

q >/dev/null <<SQL
CREATE ROLE $MALLORY;
GRANT CREATE ON SCHEMA public TO $MALLORY;
CREATE TABLE public.hijack_log (what text, by_whom name);
GRANT INSERT ON public.hijack_log TO PUBLIC;
SET ROLE $MALLORY;
CREATE FUNCTION public.hijacked(what text) RETURNS void LANGUAGE plpgsql AS
  \$\$ BEGIN INSERT INTO public.hijack_log VALUES (what, current_user); END \$\$;
CREATE FUNCTION public.unnest(text[]) RETURNS SETOF text LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM public.hijacked('unnest(text[])'); RETURN QUERY SELECT pg_catalog.unnest(\$1); END \$\$;
CREATE FUNCTION public.quote_ident(text) RETURNS text LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM public.hijacked('quote_ident(text)'); RETURN pg_catalog.quote_ident(\$1); END \$\$;
CREATE FUNCTION public.to_regclass(text) RETURNS regclass LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM public.hijacked('to_regclass(text)'); RETURN pg_catalog.to_regclass(\$1); END \$\$;
CREATE FUNCTION public.has_function_privilege(text, text) RETURNS boolean LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM public.hijacked('has_function_privilege(text, text)');
     RETURN pg_catalog.has_function_privilege(\$1, \$2); END \$\$;
CREATE FUNCTION public.current_setting(text) RETURNS text LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM public.hijacked('current_setting(text)'); RETURN pg_catalog.current_setting(\$1); END \$\$;
CREATE FUNCTION public.hj_text_eq(text, text) RETURNS boolean LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM public.hijacked('= (text, text)'); RETURN pg_catalog.texteq(\$1, \$2); END \$\$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.hj_text_eq);
-- Overloads of dptrain's own functions in the extension's schema (public
-- here), where mallory may CREATE: with text where the real ones take name
-- and float8, they matched the CLI's untyped parameters better (text is the
-- preferred string type) and ran as the owner granting a budget. The CLI
-- now casts every argument to the real signature's type.
CREATE FUNCTION public.dp_grant_budget(regclass, text, text, text) RETURNS void LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM public.hijacked('dp_grant_budget(regclass, text, text, text)'); END \$\$;
CREATE FUNCTION public.dp_set_table_budget(regclass, text, text) RETURNS void LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM public.hijacked('dp_set_table_budget(regclass, text, text)'); END \$\$;
CREATE FUNCTION public.dp_revoke_budget(regclass, text) RETURNS boolean LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM public.hijacked('dp_revoke_budget(regclass, text)'); RETURN false; END \$\$;
CREATE FUNCTION public.dp_budget_remaining(regclass, text, OUT epsilon float8, OUT delta float8) LANGUAGE plpgsql AS
  \$\$ BEGIN PERFORM public.hijacked('dp_budget_remaining(regclass, text)'); END \$\$;
SQL

printf 'a,b,label\n' >"$WORK/points.csv"
for i in $(seq 1 300); do
  printf '%s,%s,%s\n' "$(( i % 17 ))" "$(( i % 13 ))" "$(( (i % 17) > 8 ? 1 : 0 ))" >>"$WORK/points.csv"
done

# The victim: public first on its path.
export PGOPTIONS='-c search_path=public,pg_catalog'
run() {
  "$DPTRAIN_CLI" "$@" --db "dbname=$db" >"$WORK/out" 2>"$WORK/err" || fail "dptrain $*: $(cat "$WORK/err")"
}
seq 0 4 299 >"$WORK/test_rows.txt"
run load --table pts --test-rows "$WORK/test_rows.txt" --bounds '*=0:20' --positive 1 "$WORK/points.csv"
run train --table pts --label y --algorithm none --epochs 2 --name hj_controller --controller
run train --table pts --label y --algorithm bolton --epsilon 1 --epochs 2 --server
run tune --table pts --label y --epsilon 1 --lambdas 0.01 --epochs 1 --batch-sizes 10 --server
run tune --table pts --label y --epsilon 1 --lambdas 0.01 --epochs 1 --batch-sizes 10 --controller
run eval --model hj_controller --table pts_test --label y
run predict --model hj_controller --features 3,4
run budget grant --table pts --role "$MALLORY" --epsilon 2
run budget show --table pts --role "$MALLORY"
grep -q "epsilon 2" "$WORK/out" || fail "budget show: $(cat "$WORK/out")"
run budget cap --table pts --epsilon 5
run budget revoke --table pts --role "$MALLORY"
grep -q "revoked" "$WORK/out" || fail "budget revoke: $(cat "$WORK/out")"
run models rename --model hj_controller --to hj_renamed
run models drop --model hj_renamed
unset PGOPTIONS

ran=$(q -c "SELECT string_agg(DISTINCT what || ' as ' || by_whom, ', ') FROM public.hijack_log")
[ -z "$ran" ] || fail "planted functions ran inside the CLI's queries: $ran"
echo "ok: load, train (controller and server), tune (both), eval, predict, budget and models ran no planted function"
