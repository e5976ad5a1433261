"""Fit CPU time of an obliq algorithm as a ratio to scikit-learn's DecisionTreeClassifier.

Both fit on the whole data set in one process (obliq's algorithm with its defaults,
scikit-learn's unpruned gini CART) as ``make bench`` times its fits
(``bench_targets.Timer``): after an untimed fit on 200 rows that compiles or loads the
kernels, in CPU seconds with one BLAS thread, in interleaved rounds of reference, ours,
reference; the ratio is the median over the rounds of ours over the mean of the round's
two reference fits, so it reads the same on an idle and on a loaded machine.
Run: ``make bench-fits`` or ``python benchmarks/bench_fit.py [--algorithm gdt]
[--max-rows N] [--repeats 3] [datasets...]``; ``--max-rows`` fits both on the same random
N rows (seed 0) where a full fit would take too long to repeat.
"""

from __future__ import annotations

import argparse

from bench_targets import Timer
from threadpoolctl import threadpool_limits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=["magic", "letter"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--algorithm", default="cart-ap")
    parser.add_argument("--max-rows", type=int, default=None)
    args = parser.parse_args()
    print(f"{args.algorithm} against scikit-learn's CART, CPU seconds"
          + (f" (at most {args.max_rows} random rows)" if args.max_rows else ""))
    print(f"{'dataset':10} {'rows':>6} {'obliq s':>9} {'sklearn s':>10}  {'ratio':<32} "
          f"{'nodes':>6}")
    timer = Timer(args.repeats)
    with threadpool_limits(1):
        for name in args.datasets:
            fit = timer.fit(args.algorithm, name, args.max_rows)
            print(f"{name:10} {fit.rows:6} {fit.seconds:9.3f} {fit.sklearn_seconds:10.3f}  "
                  f"{fit.seen():<32} {fit.nodes:6}")


if __name__ == "__main__":
    main()
