"""Tree fingerprints: a faster kernel must grow the same tree.

Every registered algorithm is fitted on a few small datasets with two seeds, and the
result is compared with the fingerprint stored in ``tests/fingerprints/<name>.json``:
the tree's structure (children, features) exactly, its hyperplanes and thresholds to
1e-9 (relative to max(1, |value|)), its class counts exactly, and its predictions on
the training rows exactly. Estimators without a single ``tree_`` (multiclass wrappers,
SVMs, network-pruned models) are fingerprinted by predictions and rounded
probabilities.

When a change is *meant* to alter trees (a bug fixed, a documented tie rule), rewrite
the stored fingerprints of the algorithms concerned and say why in the commit::

    OBLIQ_UPDATE_FINGERPRINTS=oc1,oc1-lc .venv/bin/python -m pytest \
        tests/algorithms/test_fingerprints.py

(``OBLIQ_UPDATE_FINGERPRINTS=all`` rewrites every file.) A missing file is written on
the first run and the test then fails, so a new algorithm's fingerprint is committed
deliberately.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine, make_classification

from obliq_cli.errors import ObliqError
from obliq_cli.registry import list_algorithms, make_estimator
from obliq_cli.tree.structure import Tree

FINGERPRINT_DIR = Path(__file__).resolve().parents[1] / "fingerprints"
DATASETS_FILE = FINGERPRINT_DIR / "datasets.json"
SEEDS = (0, 1)
TOLERANCE = 1e-9

# Stopping rules that keep the slow searches of the fingerprint cases short; only
# parameters an estimator declares are passed.
FAST_PARAMS = {
    "svm": {"c_grid": [0.1, 10.0], "gamma_grid": [0.1, 1.0]},
    "gepsvm": {"delta_grid": [0.01, 1.0]},
}


def _stored_classification(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A synthetic case as stored in ``fingerprints/datasets.json``.

    ``make_classification`` mixes its columns with BLAS products, whose last bits
    depend on the CPU kernel OpenBLAS picks (``OPENBLAS_CORETYPE``), so regenerating
    the data would hand each machine slightly different rows. The rows are kept as
    generated with the Haswell kernel; ``test_stored_cases_are_make_classification``
    checks they still are that call's output to rounding.
    """
    case = json.loads(DATASETS_FILE.read_text())[name]
    return np.asarray(case["X"], dtype=np.float64), np.asarray(case["y"], dtype=np.int64)


def _datasets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    iris = load_iris()
    wine = load_wine()
    X2, y2 = _stored_classification("two_class")
    X3, y3 = _stored_classification("three_class")
    # Integer-valued columns give runs of tied values, which exercise the tie rules.
    Xi = np.round(X2 * 2.0)
    return {
        "iris": (iris.data, iris.target),
        "wine": (wine.data, wine.target),
        "two_class": (X2, y2),
        "three_class": (X3, y3),
        "two_class_ties": (Xi, y2),
    }


DATASETS = _datasets()
# The built-in algorithms (the test-only ones of conftest wrap scikit-learn).
ALGORITHMS = [entry.name for entry in list_algorithms()
              if entry.obj.__module__.startswith("obliq_cli.")]


def _update_requested(name: str) -> bool:
    wanted = os.environ.get("OBLIQ_UPDATE_FINGERPRINTS", "")
    names = {w.strip() for w in wanted.split(",") if w.strip()}
    return "all" in names or name in names


def fingerprint(estimator, X: np.ndarray) -> dict:
    """Plain-data description of a fitted estimator, enough to tell two trees apart."""
    out: dict = {"predict": np.asarray(estimator.predict(X)).tolist()}
    tree = getattr(estimator, "tree_", None)
    if isinstance(tree, Tree):
        out["tree"] = {
            "children_left": tree.children_left.tolist(),
            "children_right": tree.children_right.tolist(),
            "feature": tree.feature.tolist(),
            "threshold": tree.threshold.tolist(),
            "weights": tree.weights.tolist(),
            "value": tree.value.tolist(),
        }
    elif hasattr(estimator, "predict_proba"):
        try:
            proba = estimator.predict_proba(X)
        except (AttributeError, NotImplementedError):
            proba = None
        if proba is not None:
            out["proba"] = np.round(np.asarray(proba, dtype=np.float64), 9).tolist()
    return out


@functools.cache
def _fit_cases(name: str) -> dict:
    """Fingerprints of every case (cached: the portability test reuses them)."""
    cases = {}
    for data_name, (X, y) in DATASETS.items():
        for seed in SEEDS:
            params = dict(FAST_PARAMS.get(name, {}))
            estimator = make_estimator(name, **params, random_state=seed)
            try:
                if hasattr(estimator, "check_n_classes"):
                    estimator.check_n_classes(len(np.unique(y)))
            except ObliqError:
                continue  # a two-class method on a multiclass set
            estimator.fit(X, y)
            cases[f"{data_name}/seed{seed}"] = fingerprint(estimator, X)
    return cases


def _close(a, b) -> bool:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    return bool(np.all(np.abs(a - b) <= TOLERANCE * np.maximum(1.0, np.abs(b))))


def differences(stored: dict, now: dict) -> list[str]:
    """What differs between two fingerprints of one case (empty when they agree)."""
    diffs = []
    if stored["predict"] != now["predict"]:
        diffs.append("predictions")
    if ("tree" in stored) != ("tree" in now):
        return diffs + ["kind of model"]
    if "tree" in stored:
        t0, t1 = stored["tree"], now["tree"]
        for key in ("children_left", "children_right", "feature", "value"):
            if t0[key] != t1[key]:
                diffs.append(f"tree {key} ({len(t0[key])} vs {len(t1[key])} nodes)")
        if not diffs:
            for key in ("threshold", "weights"):
                if not _close(t1[key], t0[key]):
                    diffs.append(f"tree {key}")
    elif "proba" in stored and not _close(now.get("proba"), stored["proba"]):
        diffs.append("probabilities")
    return diffs


@pytest.mark.parametrize("name", ALGORITHMS)
def test_trees_match_their_fingerprints(name):
    path = FINGERPRINT_DIR / f"{name}.json"
    now = _fit_cases(name)
    assert now, f"{name}: no dataset case could be fitted"
    if _update_requested(name) or not path.exists():
        FINGERPRINT_DIR.mkdir(exist_ok=True)
        path.write_text(json.dumps(now, sort_keys=True) + "\n")
        if not _update_requested(name):
            pytest.fail(f"{path.name} was missing and has been written; commit it")
        return
    stored = json.loads(path.read_text())
    assert sorted(stored) == sorted(now), "the fingerprint cases changed"
    problems = {case: d for case in stored if (d := differences(stored[case], now[case]))}
    assert not problems, f"{name}: trees differ from the stored fingerprints: {problems}"


def test_stored_cases_are_make_classification():
    """The stored synthetic rows are ``make_classification``'s for the recorded call (to
    rounding: BLAS kernels differ in the last bits), with the very same labels."""
    stored = json.loads(DATASETS_FILE.read_text())
    for name in ("two_class", "three_class"):
        X, y = make_classification(**stored[name]["make_classification"])
        X_stored, y_stored = _stored_classification(name)
        np.testing.assert_array_equal(y_stored, y)
        np.testing.assert_allclose(X_stored, X, rtol=1e-12, atol=1e-12)


# Algorithms whose growing goes through kernels/linalg.py's products or eigensolvers beyond
# the builder's partition (which every oblique tree shares). OC1's searches are numba
# loops already; they and the other slow ones are left out to keep the test short.
PORTABLE_ALGORITHMS = ("apdt", "cart-lc", "fdt", "gdt", "hhcart-a", "hhcart-d", "ldt",
                       "quest")


def _not_openblas_on_x86() -> str | None:
    """Why the kernel switch cannot be tested here (None when it can)."""
    if platform.machine().lower() not in {"x86_64", "amd64"}:
        return f"OPENBLAS_CORETYPE=Prescott is an x86-64 kernel ({platform.machine()} here)"
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    except (KeyError, TypeError):
        return "numpy does not say which BLAS it uses"
    if "openblas" not in str(blas).lower():
        return f"numpy's BLAS is {blas}, not OpenBLAS"
    return None


def _openblas_kernels() -> list:
    from threadpoolctl import threadpool_info

    return sorted({i.get("architecture") for i in threadpool_info()
                   if i.get("internal_api") == "openblas"})


@pytest.mark.slow
def test_trees_do_not_depend_on_the_blas_kernel():
    """The same trees with OpenBLAS's generic x86-64 kernel (Prescott) on one thread as
    with the kernel and threads this process got: every product and eigenproblem that
    decides a split is computed by kernels/linalg.py, not by BLAS/LAPACK."""
    reason = _not_openblas_on_x86()
    if reason:
        pytest.skip(reason)
    env = {**os.environ, "OPENBLAS_CORETYPE": "Prescott", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(
               [str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")])}
    child = "\n".join([
        "import json, sys",
        "sys.path.insert(0, sys.argv[1])",
        "import test_fingerprints as t",
        "trees = {name: t._fit_cases(name) for name in sys.argv[2:]}",
        "print(json.dumps({'kernels': t._openblas_kernels(), 'trees': trees}))",
    ])
    done = subprocess.run([sys.executable, "-c", child, str(Path(__file__).parent),
                           *PORTABLE_ALGORITHMS], env=env, capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    other = json.loads(done.stdout)
    # OpenBLAS names the generic kernel as it likes (Prescott runs as "Katmai" in
    # 0.3.31); what matters is that the child's differs from this process's.
    if other["kernels"] == _openblas_kernels():
        pytest.skip(f"this process already runs OpenBLAS's {other['kernels']} kernel")
    for name in PORTABLE_ALGORITHMS:
        here = _fit_cases(name)
        problems = {case: differences(here[case], other["trees"][name][case]) or ["bits"]
                    for case in here if here[case] != other["trees"][name][case]}
        assert not problems, f"{name}: the Prescott kernel grows other trees: {problems}"


def test_differences_notices_a_moved_threshold():
    X, y = DATASETS["iris"]
    estimator = make_estimator("cart-ap", random_state=0).fit(X, y)
    a = fingerprint(estimator, X)
    b = json.loads(json.dumps(a))
    assert differences(a, b) == []
    b["tree"]["threshold"][0] += 1e-6
    assert differences(a, b) == ["tree threshold"]
    b = json.loads(json.dumps(a))
    b["tree"]["feature"][0] = (b["tree"]["feature"][0] + 1) % 4
    n = len(a["tree"]["feature"])
    assert differences(a, b) == [f"tree feature ({n} vs {n} nodes)"]
