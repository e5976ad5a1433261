"""Columns near the float limits or subnormal are learned as ordinary ones are.

Each algorithm (every tree, SVM and GEPSVM) is fitted on one small two-class problem
and on the same problem with a column scaled to near 1e308, by 1e300, or to subnormal
values (1e-310). Before the input was conditioned (``tree.conditioning``), UMT reached
63 % on the large ones, GDT failed on them and returned one leaf on subnormal data,
FDT and QUEST gave one leaf, every SVM and GEPSVM fit failed, and numpy printed pages of
RuntimeWarnings.
"""

import warnings

import numpy as np
import pytest

from obliq_cli import registry
from obliq_cli.tree.conditioning import LIMIT, column_exponents, scale_columns

ALGORITHMS = [e.name for e in registry.list_algorithms()
              if e.obj.__module__.startswith("obliq_cli")]
FAST = {"apdt": {"alopex_iterations": 30}, "oc1": {"n_restarts": 3},
        "svm": {"c_grid": (8.0,), "gamma_grid": (0.5,)}}

rng = np.random.default_rng(0)
BASE = rng.uniform(0, 1, size=(120, 2))
Y = np.where(BASE[:, 0] + 0.3 * BASE[:, 1] > 0.6, "a", "b")
VARIANTS = {
    "times-1e300": BASE * 1e300,
    "near-1e308": np.column_stack([1e308 * (0.5 + 0.5 * BASE[:, 0]), BASE[:, 1]]),
    "near-minus-1e308": np.column_stack([-1e308 + 1e307 * BASE[:, 0], BASE[:, 1]]),
    "subnormal": BASE * 1e-310,
}


def fitted(name, X):
    estimator = registry.make_estimator(name, random_state=0, **FAST.get(name, {}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning here is a failure
        return estimator.fit(X, Y)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_extreme_columns_are_learned_as_ordinary_ones(name):
    plain = fitted(name, BASE).score(BASE, Y)
    assert plain >= 0.95
    for variant, X in VARIANTS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            score = fitted(name, X).score(X, Y)
        assert score >= plain - 0.05, (variant, score, plain)


def test_ordinary_columns_are_left_alone():
    X = np.array([[2.0 ** LIMIT, -3.0, 0.0], [1.0, 2.0 ** -LIMIT, 0.0]])
    assert column_exponents(X) is None
    assert scale_columns(X, None) is X


def test_extreme_columns_are_scaled_exactly_by_powers_of_two():
    X = np.array([[1e308, 1e-310, 5.0], [-3e307, 0.0, 1.0]])
    k = column_exponents(X)
    assert k.tolist() == [-1023, 1030, 0]
    Z = scale_columns(X, k)
    assert 1 <= np.abs(Z[:, 0]).max() < 2 and 1 <= np.abs(Z[:, 1]).max() < 2
    # exact: scaling back gives the same bits
    assert np.array_equal(scale_columns(Z, -k), X)


@pytest.mark.parametrize("name", ["oc1", "umt", "gdt"])
def test_an_exported_tree_keeps_the_scaling(name):
    X = VARIANTS["near-1e308"]
    estimator = fitted(name, X)
    again = registry.make_estimator(name).load_tree(estimator.export_json())
    assert np.array_equal(again.predict(X), estimator.predict(X))
