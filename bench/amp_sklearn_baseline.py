#!/usr/bin/python3
"""scikit-learn's LogisticRegression on the rows bench/amp_prototype --dump wrote,
to check dptrain's non-private optimum (algorithm 'optimum') against it.

  build/bench/amp_prototype --dataset adult-official --dump /tmp/adult_official
  /usr/bin/python3 bench/amp_sklearn_baseline.py /tmp/adult_official [--C 1]   (Debian's numpy and sklearn)

LogisticRegression(C) minimizes C sum_i log(1 + exp(-y_i w'x_i)) + ||w||^2 / 2, i.e.
(1/n) sum_i loss + (lambda/2)||w||^2 with lambda = 1/(C n): the optimum with
--lambda 1/(C n). Prints the test accuracy without intercept (dptrain's model) and
with it (the AMP paper's NP baseline), on the rows as written and on the rows
clipped to norm 1 (what dptrain trains on)."""
import argparse

import numpy as np
from sklearn.linear_model import LogisticRegression


def load(path):
    data = np.loadtxt(path, delimiter=",")
    return data[:, 1:], data[:, 0].astype(int)


def clip(x):
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, 1.0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("prefix")
    parser.add_argument("--C", type=float, default=1.0)
    args = parser.parse_args()
    xtr, ytr = load(args.prefix + ".train.csv")
    xte, yte = load(args.prefix + ".test.csv")
    print(f"n = {len(ytr)}, d = {xtr.shape[1]}, lambda = 1/(C n) = {1 / (args.C * len(ytr)):.6g}")
    for rows, f in (("as written", lambda x: x), ("clipped to norm 1", clip)):
        for intercept in (False, True):
            model = LogisticRegression(C=args.C, fit_intercept=intercept, tol=1e-10, max_iter=10000)
            model.fit(f(xtr), ytr)
            acc = model.score(f(xte), yte)
            print(f"rows {rows:18s} intercept {str(intercept):5s}: test accuracy {100 * acc:.2f}%")


if __name__ == "__main__":
    main()
