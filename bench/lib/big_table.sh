# shellcheck shell=bash
# big_table_sql ROWS DIM: the SQL of the synthetic table `big` the speed
# benchmarks share (id, x float8[DIM] of norm about 1, y = a noisy linear
# label: 10% flipped), seeded, then VACUUM ANALYZE.
big_table_sql() {
  cat <<SQL
SELECT setseed(0.42);
CREATE TABLE big AS SELECT i AS id, x, ((x[1] + x[2] - x[3] > 0) <> (random() < 0.1)) AS y FROM (
  SELECT i, ARRAY(SELECT (2 * random() - 1) / sqrt($2 / 3.0) FROM generate_series(1, $2 + 0 * i)) AS x
  FROM generate_series(1, $1) i) s;
VACUUM ANALYZE big;
SQL
}
