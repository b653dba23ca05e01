# shellcheck shell=bash
# The set-up the speed benchmarks share (source from the repository root):
#   speed_cluster SETTING...   builds, installs this tree privately and starts
#                              a throwaway cluster with those settings
#                              (scripts/lib/pgtmp.sh; stopped on exit)
#   big_table_sql ROWS DIM     the SQL of the synthetic table `big` (id,
#                              x float8[DIM] of norm about 1, y = a noisy
#                              linear label: 10% flipped), seeded, then
#                              VACUUM ANALYZE
speed_cluster() {
  make -s -j2 >/dev/null
  source scripts/lib/pgtmp.sh
  pgtmp_init
  pgtmp_private_install
  pgtmp_start bench "$@"
}

big_table_sql() {
  cat <<SQL
SELECT setseed(0.42);
CREATE TABLE big AS SELECT i AS id, x, ((x[1] + x[2] - x[3] > 0) <> (random() < 0.1)) AS y FROM (
  SELECT i, ARRAY(SELECT (2 * random() - 1) / sqrt($2 / 3.0) FROM generate_series(1, $2 + 0 * i)) AS x
  FROM generate_series(1, $1) i) s;
VACUUM ANALYZE big;
SQL
}
