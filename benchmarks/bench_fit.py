"""Fit time of an obliq algorithm as a ratio to scikit-learn's DecisionTreeClassifier.

Both fit on the whole data set in one process (obliq's algorithm with its defaults,
scikit-learn's unpruned gini CART); each fit is repeated and the best time kept, so the
ratio reflects the algorithms rather than the machine's load.
Run: ``make bench`` or ``python benchmarks/bench_fit.py [--algorithm gdt] [--max-rows N]
[datasets...]``; ``--max-rows`` fits both on the same random N rows (seed 0) where a full
fit would take too long to repeat.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from obliq_cli import load_dataset, make_estimator


def best_time(fit, repeats: int) -> tuple[float, object]:
    best, model = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        model = fit()
        best = min(best, time.perf_counter() - start)
    return best, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=["magic", "letter"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--algorithm", default="cart-ap")
    parser.add_argument("--max-rows", type=int, default=None)
    args = parser.parse_args()
    print(f"{args.algorithm} against scikit-learn's CART"
          + (f" (at most {args.max_rows} random rows)" if args.max_rows else ""))
    print(f"{'dataset':10} {'rows x feat':>12} {'obliq s':>9} {'sklearn s':>10} {'ratio':>7}"
          f" {'leaves (obliq/sklearn)':>24}")
    for name in args.datasets:
        X, y, _ = load_dataset(name)
        if args.max_rows and len(y) > args.max_rows:
            rows = np.random.default_rng(0).permutation(len(y))[: args.max_rows]
            X, y = X[rows], y[rows]
        t_ours, ours = best_time(lambda X=X, y=y: make_estimator(args.algorithm).fit(X, y),
                                 args.repeats)
        t_sk, sk = best_time(
            lambda X=X, y=y: DecisionTreeClassifier(random_state=0).fit(X, y), args.repeats
        )
        print(f"{name:10} {f'{X.shape[0]} x {X.shape[1]}':>12} {t_ours:9.3f} {t_sk:10.3f} "
              f"{t_ours / t_sk:7.1f} {f'{ours.n_leaves_}/{sk.get_n_leaves()}':>24}")


if __name__ == "__main__":
    main()
