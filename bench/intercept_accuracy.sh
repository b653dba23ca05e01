#!/usr/bin/env bash
# Issue 16 item 2's acceptance measurement: the non-private optimum on UCI
# Adult (loaded as `make demo` loads it: official split, rows with '?'
# dropped, one-hot + min-max, rows scaled to norm 1) with and without the
# intercept, beside scikit-learn's LogisticRegression (which fits one) on
# the same rows. LogisticRegression(C = 1) minimizes
# sum_i loss + ||w||^2 / 2, i.e. dptrain's (1/n) sum_i loss + (lambda/2)||w||^2
# with lambda = 1/n (dptrain's regularizer also covers the bias:
# docs/intercept.md).
#
#   bash bench/intercept_accuracy.sh      (~2 min on the shared 2-core machine)
#
# Needs Debian's python3-sklearn (/usr/bin/python3). Prints the test accuracies.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source bench/lib/adult_db.sh
adult_db intercept_accuracy

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
SELECT FROM dp_train('adult', 'y', 'x', algorithm => 'optimum', lambda => 1.0 / (SELECT count(*) FROM adult),
                     name => 'optimum_intercept');
SELECT FROM dp_train('adult', 'y', 'x', algorithm => 'optimum', lambda => 1.0 / (SELECT count(*) FROM adult),
                     name => 'optimum_no_intercept', intercept => false);
\pset footer off
SELECT m.name, round((100 * e.accuracy)::numeric, 2) AS test_accuracy_pct, e.n
FROM dptrain.models m, LATERAL dp_evaluate(m.name, 'adult_test', 'y', 'x') e ORDER BY m.name;
SQL
psql -XAt -c "COPY (SELECT y::int::text || ',' || array_to_string(x, ',') FROM adult) TO STDOUT" >"$WORK/train.csv"
psql -XAt -c "COPY (SELECT y::int::text || ',' || array_to_string(x, ',') FROM adult_test) TO STDOUT" >"$WORK/test.csv"
/usr/bin/python3 - "$WORK" <<'PY'   # Debian's numpy and scikit-learn
import sys
import numpy as np
from sklearn.linear_model import LogisticRegression
w = sys.argv[1]
tr, te = np.loadtxt(w + "/train.csv", delimiter=","), np.loadtxt(w + "/test.csv", delimiter=",")
for intercept in (True, False):
    m = LogisticRegression(C=1.0, fit_intercept=intercept, tol=1e-10, max_iter=10000).fit(tr[:, 1:], tr[:, 0])
    print(f"scikit-learn LogisticRegression(C=1, fit_intercept={intercept}): test accuracy "
          f"{100 * m.score(te[:, 1:], te[:, 0]):.2f}% on {len(te)} rows")
PY
