"""APDT fit time on the paper's Problem 2 (1000 training points), and the LA / GA
pruning times of Table VII (t_lrn).

Times, in CPU seconds with one BLAS thread (best of ``--repeats``), the Perceptron count
on 1000 non-separable patterns (max(300, 1000) presented patterns, §III) and whole APDT
fits with the paper's settings (numba's compilation is done before timing). Then LA
pruning (50 000 patterns at most) and GA pruning (50 x 300) of an unpruned OC1 tree of
Problem 2, from the paper's start and from the sparse start, each also as a ratio to
scikit-learn's CART fit on the same 1000 points in this process: the median over
interleaved rounds (``bench_targets.interleaved``).
Run: ``python benchmarks/bench_apdt.py [--seeds 3] [--repeats 3]``.
"""

from __future__ import annotations

import argparse

import numpy as np
from bench_targets import _cpu_seconds, interleaved
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from obliq_cli import make_estimator
from obliq_cli.algorithms import apdt
from obliq_cli.data.apdt_problems import apdt_problem
from obliq_cli.kernels.apdt import perceptron
from obliq_cli.pruning.network import prune_genetic, prune_learning_automata


def best_time(func, repeats: int) -> tuple[float, object]:
    """(the fewest CPU seconds of ``repeats`` calls of ``func``, its last result)."""
    best, out = np.inf, None
    for _ in range(repeats):
        seconds, out = _cpu_seconds(func)
        best = min(best, seconds)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with threadpool_limits(1):
        measure(args)


def measure(args) -> None:
    """Print every figure of the module docstring."""
    X, y = apdt_problem(2, seed=0)
    Xtr, ytr, Xte, yte = X[:1000], y[:1000], X[1000:], y[1000:]
    Z = np.hstack([np.ones((1000, 1)), Xtr])
    s = np.where(ytr == 1, 1.0, -1.0)
    rows = np.arange(len(Z))
    n_iter = max(apdt.PERCEPTRON_MIN_ITERATIONS, len(Z))
    perceptron(Z[:5], s[:5], rows[:5], n_iter, False, np.ones(5))  # compile (or load numba's cache)
    make_estimator("apdt", random_state=0).fit(Xtr[:40], ytr[:40])
    ones = np.ones(len(Z))
    t, _ = best_time(lambda: perceptron(Z, s, rows, n_iter, False, ones), args.repeats * 10)
    print(f"perceptron 1000 patterns  {1e3 * t:8.3f} ms")
    for seed in range(args.seeds):
        t, model = best_time(
            lambda seed=seed: make_estimator("apdt", normalize=None,  # as the paper ran it
                                             random_state=seed).fit(Xtr, ytr),
            args.repeats)
        acc = (model.predict(Xte) == yte).mean()
        print(f"fit problem 2 seed {seed}     {t:8.3f} s   internal nodes "
              f"{model.tree_.n_internal:3d}  depth {model.depth_:2d}  test acc {acc:.3f}")
    def cart():
        return DecisionTreeClassifier(random_state=0).fit(Xtr, ytr)

    sk, _ = best_time(cart, args.repeats * 10)
    tree = make_estimator("oc1", random_state=0).fit(Xtr, ytr)
    print(f"sklearn CART fit          {1e3 * sk:8.3f} ms; OC1 tree to prune: "
          f"{tree.tree_.n_internal} internal nodes")
    for name, prune, start in [("LA", prune_learning_automata, {}),
                               ("LA sparse", prune_learning_automata, {"q0": "sparse"}),
                               ("GA", prune_genetic, {}),
                               ("GA sparse", prune_genetic, {"initial_density": "sparse"})]:
        def pruned(p=prune, k=start):
            return p(tree, Xtr, ytr, None, None, random_state=0, n_timing_vectors=0, **k)

        pruned()  # compile (or load numba's cache) outside the timing
        ratios, _, mine, net = interleaved(cart, pruned, args.repeats)
        acc = (net.predict(Xte) == yte).mean()
        print(f"{name:10} pruning         {min(mine):8.3f} s = "
              f"{float(np.median(ratios)):8.0f}x sklearn CART fit;"
              f" hyperplanes kept {net.n_internal_:2d}  test acc {acc:.3f}")


if __name__ == "__main__":
    main()
