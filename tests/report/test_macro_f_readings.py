"""The readings of "macro F" beside macro_f1 (HHCART Table 4; docs/ablations/hhcart.md):
the F1 of macro precision and macro recall (Sokolova & Lapalme 2009, Table 3)."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import precision_score, recall_score

from obliq_cli.analysis.references import values_for
from obliq_cli.experiment.metrics import METRICS, macro_f1_of_means


def f1(p, r):
    return 2 * p * r / (p + r)


def test_hand_worked_two_classes():
    # rows true, columns predicted: P = 3/5, 4/5; R = 3/4, 4/6
    matrix = [[3, 1], [2, 4]]
    expected = f1((3 / 5 + 4 / 5) / 2, (3 / 4 + 4 / 6) / 2)
    assert macro_f1_of_means(matrix) == pytest.approx(expected)
    assert macro_f1_of_means(matrix, skip_unpredicted=True) == pytest.approx(expected)


def test_a_class_never_predicted():
    # class 1 is never predicted: its precision is 0/0.
    matrix = [[5, 0], [3, 0]]
    assert macro_f1_of_means(matrix) == pytest.approx(f1((5 / 8 + 0) / 2, (1 + 0) / 2))
    # skipped: macro precision is class 0's alone
    assert macro_f1_of_means(matrix, True) == pytest.approx(f1(5 / 8, 0.5))
    # a class with neither true rows nor predictions is left out, as macro_f1 does
    padded = [[5, 0, 0], [3, 0, 0], [0, 0, 0]]
    assert macro_f1_of_means(padded) == pytest.approx(macro_f1_of_means(matrix))
    assert np.isnan(macro_f1_of_means(np.zeros((2, 2))))


@pytest.mark.parametrize("seed", range(5))
def test_agrees_with_scikit_learn_macro_rates_and_bounds_the_mean_of_f(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, 80)
    pred = np.where(rng.random(80) < 0.6, y, rng.integers(0, 4, 80))
    matrix = np.zeros((4, 4), dtype=int)
    np.add.at(matrix, (y, pred), 1)
    labels = np.union1d(y, pred)
    p = precision_score(y, pred, labels=labels, average="macro", zero_division=0)
    r = recall_score(y, pred, labels=labels, average="macro", zero_division=0)
    assert macro_f1_of_means(matrix) == pytest.approx(f1(p, r))
    # The harmonic mean is concave: F of the means >= the mean of the per-class F.
    tp = np.diag(matrix)
    per_class = 2 * tp / (matrix.sum(0) + matrix.sum(1))
    assert macro_f1_of_means(matrix) >= per_class.mean() - 1e-12


def test_derived_from_stored_confusion_and_compared_with_the_papers_macro_f1():
    runs = pd.DataFrame({"confusion": [json.dumps([[3, 1], [2, 4]]), "", "[]", "[1, 2]", "x"]})
    values = METRICS["macro_f1_pr"].derive(runs)
    assert values[0] == pytest.approx(macro_f1_of_means([[3, 1], [2, 4]]))
    assert np.isnan(values[1:]).all()  # a failed task has no matrix; damaged cells
    ref = pd.DataFrame({"dataset": ["glass"], "method": ["HHCART(A)"], "metric": ["macro_f1"],
                        "mean": [0.5], "sd": [0.08], "mean_text": ["0.50"], "sd_text": ["0.08"]})
    rows, note = values_for(ref, "macro_f1_pr_skip")
    assert rows["metric"].tolist() == ["macro_f1_pr_skip"] and rows["mean"].tolist() == [0.5]
    assert "macro_f1" in note
