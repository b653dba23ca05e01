#!/usr/bin/env bash
# Runs every dptrain test on this machine (what `make test` and CI do):
#   1. installs the Debian packages the project needs (scripts/install-deps.sh)
#   2. builds everything (make)
#   3. core tests without a database: GoogleTest unit tests and the
#      statistical / empirical-privacy tests (ctest)
#   4. a private PostgreSQL 15 install with this build of dptrain, then
#      pg_regress, isolation and TAP suites through PGXS `make installcheck`
#   5. integration tests of the dptrain CLI against a throwaway cluster
#   6. distributed tests on a throwaway Citus cluster (a coordinator and two
#      workers), when Citus is available: scripts/install-citus.sh builds it
#      from ../shared/vendor/citus once per machine, and says loudly (here and
#      in the summary) when it cannot
# Stages keep going after a failure; the exit status says whether all passed.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
export DPTRAIN_DATA=${DPTRAIN_DATA:-$REPO/../shared/data}

bash scripts/install-deps.sh || exit 1
make -s -j"$(nproc)" || { echo "BUILD FAILED" >&2; exit 1; }

failed=()
stage() { echo; echo "=== $* ==="; }

# Before the private install below, which copies the system's PostgreSQL
# (with Citus, once installed) for every throwaway cluster.
citus_status=$(mktemp)
CITUS_STATUS_FILE=$citus_status bash scripts/install-citus.sh || failed+=("install-citus")
citus=$(cat "$citus_status")
rm -f "$citus_status"

stage "core tests (ctest)"
ctest --test-dir build --output-on-failure -j"$(nproc)" || failed+=("ctest")

source scripts/lib/pgtmp.sh
pgtmp_init
pgtmp_private_install
pgtmp_start regress "max_prepared_transactions = 10"

stage "pg_regress, isolation and TAP (make installcheck)"
# Run from a copy owned by the server's user: TAP tests start their own
# servers, which PostgreSQL refuses to do as root.
suite=$PGTMP_DIR/suite
mkdir -p "$suite/extension"
cp Makefile "$suite/"
cp extension/dptrain.control "$suite/extension/"
cp -r test "$suite/"
[ "$(id -u)" -eq 0 ] && chown -R "$PGTMP_USER" "$suite"
suite_make() {
  pgtmp_as_user env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" \
    DPTRAIN_DATA="$DPTRAIN_DATA" DPTRAIN_CLI="$REPO/build/dptrain" \
    make -s -C "$suite" installcheck PG_CONFIG="$PGTMP_PG_CONFIG" BUILD_DIR="$REPO/build" "$@"
}
if ! suite_make ISOLATION= TAP_TESTS=; then
  failed+=("pg_regress")
  [ -f "$suite/test/regress/regression.diffs" ] && head -300 "$suite/test/regress/regression.diffs"
fi
if ls test/isolation/specs/*.spec >/dev/null 2>&1 && ! suite_make REGRESS= TAP_TESTS=; then
  failed+=("isolation")
  [ -f "$suite/test/isolation/output_iso/regression.diffs" ] && head -300 "$suite/test/isolation/output_iso/regression.diffs"
fi
if ls test/tap/*.pl >/dev/null 2>&1 && ! suite_make REGRESS= ISOLATION=; then
  failed+=("tap")
  for f in "$suite"/tmp_check/log/regress_log_*; do [ -f "$f" ] && { echo "--- $f"; tail -50 "$f"; }; done
fi
# Keep the actual outputs around for inspection when asked to.
[ -n "${DPTRAIN_KEEP_RESULTS:-}" ] && rm -rf "$DPTRAIN_KEEP_RESULTS" && cp -r "$suite/test" "$DPTRAIN_KEEP_RESULTS"

stage "integration tests (dptrain CLI against a live cluster)"
export DPTRAIN_CLI=$REPO/build/dptrain
for t in test/integration/*.sh; do
  [ -e "$t" ] || continue
  echo "--- $t"
  if ! bash "$t"; then failed+=("$t"); fi
done

stage "distributed tests (Citus)"
citus_skipped=()
if [ "$citus" = available ]; then
  # One coordinator and two workers for every test (each gets its own database).
  source scripts/lib/citus_cluster.sh
  citus_nodes_start || failed+=("citus cluster")
  export CITUS_CLUSTER_DIR=$PGTMP_DIR
  for t in test/citus/*.sh; do
    [ -e "$t" ] || continue
    echo "--- $t"
    bash "$t"
    case $? in
      0) ;;
      77) citus_skipped+=("$t") ;;
      *) failed+=("$t") ;;
    esac
  done
else
  citus_skipped=("all: Citus is not available (see the install-citus message above)")
fi
[ ${#citus_skipped[@]} -gt 0 ] && echo "#### SKIPPED distributed tests: ${citus_skipped[*]}"

echo
[ ${#citus_skipped[@]} -gt 0 ] && echo "WARNING: distributed tests (Citus) SKIPPED: ${citus_skipped[*]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "ALL TESTS PASSED"
