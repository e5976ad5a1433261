"""Estimator parameters reach the split finders under their own names."""

import numpy as np
from sklearn.datasets import load_wine

from obliq_cli import make_estimator

# Non-default values of the parameters each estimator hands its finder as they are.
PASSED = {
    "apdt": {"rho": 0.5, "M": 3.0, "alopex_iterations": 40, "delta": 0.1,
             "temperature0": 500.0, "temperature_window": 7, "normalize": None,
             "perceptron_iteration": "pass", "perceptron_min_iterations": 50,
             "separability": "final_errors", "temperature": "printed"},
    "hhcart-d": {"tau": 0.1, "oblique_rows_per_feature": 3.0, "min_class_rows": 4,
                 "null_eigenvectors": "skip", "axis_parallel": False,
                 "eigenvector_sign": "both"},
    "gdt": {"epsilon1": 0.15, "epsilon2": 0.8, "eta_of": "parent", "gini_of": "classes"},
    "cart-lc": {"beta": 0.3, "tol": 0.01, "max_cycles": 3},
    "oc1": {"n_restarts": 3, "n_jumps": 2, "max_stagnant": 4, "normalize": False},
    "oc1-lc": {"max_cycles": 3},
    "umt": {"refit": False, "both_sides": True, "sweep": "eq4",
            "feature_by": "validation"},
    "fdt": {"min_samples_leaf": 3},
}


def test_every_parameter_a_finder_takes_keeps_the_estimators_name_and_value():
    for name, params in PASSED.items():
        estimator = make_estimator(name, **params)
        estimator.validate_params()  # the values are ones it accepts
        finder = estimator._make_split_finder()
        for key, value in params.items():
            assert getattr(finder, key) == value, (name, key)


def test_hhcart_oblique_rows_per_feature_reaches_the_search():
    X, y = load_wine(return_X_y=True)
    grown = make_estimator("hhcart-d").fit(X, y).tree_
    axis_only = make_estimator("hhcart-d", oblique_rows_per_feature=1e6).fit(X, y).tree_
    internal = ~axis_only.is_leaf
    assert (axis_only.feature[internal] >= 0).all()
    assert (grown.feature[~grown.is_leaf] < 0).any()


def test_apdt_normalize_max_scales_by_the_largest_absolute_value():
    X = np.array([[1.0, -8.0], [2.0, 4.0], [-4.0, 2.0]])
    finder = make_estimator("apdt", normalize="max")._make_split_finder()
    finder.prepare(X, np.array([0, 1, 0]), 2, np.random.default_rng(0))
    np.testing.assert_array_equal(finder.scale, [4.0, 8.0])
