# shellcheck shell=bash
# Shared by the Adult benchmarks (dpsgd_accuracy, dpsgd_tune, defaults_accuracy,
# intercept_accuracy): builds, starts a throwaway cluster with this build of
# the extension, creates database "accuracy" (PGDATABASE) with the extension,
# and loads UCI Adult as `make demo` does (official split, rows with '?'
# dropped, public bounds and category lists: scripts/lib/adult_public.sh):
# tables adult and adult_test. Source from the repository root.
#
#   adult_db NAME [SETTING]    NAME: the cluster's name; SETTING: an extra postgresql.conf line
adult_db() {
  local data=${DPTRAIN_DATA:-$PWD/../shared/data}
  make -s -j2 >/dev/null
  # shellcheck source=../../scripts/lib/pgtmp.sh
  source scripts/lib/pgtmp.sh
  pgtmp_init
  pgtmp_private_install
  pgtmp_start "$1" ${2:+"$2"}
  pgtmp_as_user "$PGTMP_BIN/createdb" accuracy
  export PGDATABASE=accuracy
  psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION dptrain"
  # shellcheck source=../../scripts/lib/adult_public.sh
  source scripts/lib/adult_public.sh
  build/dptrain load --db dbname=accuracy --table adult "${ADULT_LOAD_ARGS[@]}" \
    --test-file "$data/adult/adult.test.gz" "$data/adult/adult.data.gz" >/dev/null 2>&1
}
