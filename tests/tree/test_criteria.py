"""One criterion object per name (obliq_cli.tree.impurity.Criterion): its kernel code,
its vectorised score and its node impurity agree with each other and with the kernels
that dispatch on the code."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from obliq_cli.kernels import criteria as codes
from obliq_cli.kernels.line_search import line_search
from obliq_cli.kernels.sweep import sweep_scores, xlogx_table
from obliq_cli.tree.impurity import CRITERIA, line_search_code, split_criterion


def test_one_object_per_name_with_distinct_codes():
    assert sorted(CRITERIA) == ["entropy", "gini", "misclassification", "twoing"]
    assert len({c.code for c in CRITERIA.values()}) == len(CRITERIA)
    for name, criterion in CRITERIA.items():
        assert split_criterion(name) is criterion and criterion.name == name
        assert pickle.loads(pickle.dumps(criterion)) is criterion
    assert CRITERIA["gini"].code == codes.GINI and CRITERIA["twoing"].code == codes.TWOING
    with pytest.raises(ValueError, match="unknown criterion 'gain'"):
        split_criterion("gain")


def test_the_score_weighs_the_node_impurity_of_each_side():
    # Hand-worked: left [3, 1], right [0, 4]. gini(L) = 1 - (9 + 1) / 16 = 0.375,
    # gini(R) = 0: the weighted score is 4/8 * 0.375 = 0.1875.
    left, right = np.array([[3, 1]]), np.array([[0, 4]])
    assert CRITERIA["gini"](left, right)[0] == pytest.approx(0.1875)
    rng = np.random.default_rng(0)
    left = rng.integers(1, 9, (20, 3))
    right = rng.integers(1, 9, (20, 3))
    n_l, n_r = left.sum(1), right.sum(1)
    for name in ("gini", "entropy", "misclassification"):
        c = CRITERIA[name]
        want = (n_l * c.node_impurity(left) + n_r * c.node_impurity(right)) / (n_l + n_r)
        np.testing.assert_allclose(c(left, right), want, rtol=1e-13)
    assert CRITERIA["twoing"].node_impurity is None  # a criterion of splits only


@pytest.mark.parametrize("name", ["gini", "entropy", "twoing"])
def test_both_kernels_score_the_criterion_of_its_code(name):
    # The sweep (one threshold between x = 1 and x = 2) and the line search (V = x - 1.5
    # moved by delta along D = -1, rule THRESHOLD: both sides non-empty) see the same
    # partition; both score it as the object does.
    criterion = CRITERIA[name]
    x = np.array([1.0, 1.0, 2.0, 2.0, 2.0])
    y = np.array([0, 1, 1, 1, 0], dtype=np.int64)
    want = criterion(np.array([[1, 1]]), np.array([[1, 2]]))[0]
    scores = np.empty((1, 4))
    sweep_scores(x[None], np.argsort(x)[None].astype(np.int64), y, 2, criterion.code,
                 xlogx_table(5), scores)
    assert scores[0, 1] == pytest.approx(want, rel=1e-12)
    _, score = line_search(x - 1.5, -np.ones(5), y, np.array([2.0, 3.0]),
                           line_search_code(criterion), 3, np.empty(0))
    assert score == pytest.approx(want, rel=1e-12)  # the only split with both sides


def test_the_line_search_refuses_misclassification():
    with pytest.raises(ValueError, match="not 'misclassification'"):
        line_search_code(CRITERIA["misclassification"])
