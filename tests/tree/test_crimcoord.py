"""CRIMCOORDs (Loh & Shih 1997): hand-worked values, an independent generalized
eigenproblem, and qualitative features end to end through a tree and the runner."""

import json

import numpy as np
import pandas as pd
import pytest
import scipy.linalg
from conftest import leaves_by_rules

from obliq_cli import make_estimator
from obliq_cli.config import load_config
from obliq_cli.experiment.runner import run_experiment
from obliq_cli.tree.crimcoord import QualitativeCoding, crimcoord_values


def test_two_pure_levels_by_hand():
    # levels A (2 rows, class 0), B (2 rows, class 1): v_bar = (.5, .5),
    # T = [[1, -1], [-1, 1]], B = T; a = (.5, -.5) has a'Ta = 1, so c = (.5, -.5).
    np.testing.assert_allclose(crimcoord_values([[2, 0], [0, 2]]), [0.5, -0.5])


def test_two_classes_give_values_affine_in_the_class_proportion():
    # With two classes B has rank one and the crimcoord orders levels by p(class 1).
    table = np.array([[5, 0], [0, 5], [3, 3], [1, 4], [7, 2]])
    c = crimcoord_values(table)
    p = table[:, 1] / table.sum(axis=1)
    slope, intercept = np.polyfit(p, c, 1)
    np.testing.assert_allclose(slope * p + intercept, c, atol=1e-12)
    assert np.argsort(c).tolist() == np.argsort(-p).tolist() or \
        np.argsort(c).tolist() == np.argsort(p).tolist()


def _reduced_crimcoords(table):
    """Independent route: drop the last dummy (the rest are linearly independent when
    every level is present) and solve B a = lambda T a with scipy."""
    table = np.asarray(table, dtype=float)
    n_m, n_k = table.sum(1), table.sum(0)
    rows = np.repeat(np.arange(len(n_m)), n_m.astype(int))
    cls = np.concatenate([np.repeat(np.arange(table.shape[1]), table[m].astype(int))
                          for m in range(len(n_m))])
    V = np.eye(len(n_m))[rows][:, :-1]
    Vc = V - V.mean(0)
    T = Vc.T @ Vc
    B = sum(n_k[k] * np.outer(V[cls == k].mean(0) - V.mean(0), V[cls == k].mean(0) - V.mean(0))
            for k in range(table.shape[1]))
    lam, vec = scipy.linalg.eigh(B, T)
    a = vec[:, -1] / np.sqrt(vec[:, -1] @ T @ vec[:, -1])
    levels = np.vstack([np.eye(len(n_m) - 1), np.zeros(len(n_m) - 1)])
    return (levels - V.mean(0)) @ a


@pytest.mark.parametrize("table", [
    [[5, 0, 1], [0, 5, 0], [0, 1, 5], [2, 2, 2]],
    [[9, 1, 0, 3], [2, 8, 1, 0], [0, 2, 7, 1], [1, 0, 2, 6], [4, 4, 4, 4], [3, 1, 0, 0]],
])
def test_multiclass_values_match_a_generalized_eigenproblem(table):
    ours = crimcoord_values(table)
    ref = _reduced_crimcoords(table)
    ref = ref if ref[np.argmax(np.abs(ref))] > 0 else -ref
    np.testing.assert_allclose(ours, ref, atol=1e-9)
    n_m = np.asarray(table).sum(1)
    assert abs(n_m @ ours) < 1e-9 and n_m @ ours**2 == pytest.approx(1.0)


def test_absent_levels_one_class_and_one_level():
    c = crimcoord_values([[4, 0], [0, 0], [0, 6]])
    assert c[1] == 0 and c[0] * c[2] < 0
    assert not crimcoord_values([[3, 0], [5, 0]]).any()  # one class: nothing to find
    assert not crimcoord_values([[3, 4], [0, 0]]).any()  # one level present


def test_coding_puts_quantitative_first_and_codes_unseen_levels_as_zero():
    X = np.array([[1.0, 7, 0.5], [2, 9, 0.25], [3, 7, 0.125]])
    coding = QualitativeCoding.fit(X, [1])
    out = coding.transform(np.array([[4.0, 9, 1.0], [5, 8, 2]]))
    np.testing.assert_array_equal(out, [[4, 1, 0, 1], [5, 2, 0, 0]])
    assert coding.feature_names(["a", "colour", "b"]) == ["a", "b", "colour=7", "colour=9"]
    again = QualitativeCoding.from_dict(json.loads(json.dumps(coding.to_dict())))
    np.testing.assert_array_equal(again.transform(X), coding.transform(X))


def _parity_levels(n=400, seed=0):
    """Class decided by a 4-level qualitative column (levels 0, 2 -> class 0; 1, 3 ->
    class 1) plus a useless quantitative column."""
    rng = np.random.default_rng(seed)
    level = rng.integers(0, 4, n)
    X = np.column_stack([rng.normal(size=n), level.astype(float)])
    return X, level % 2


@pytest.mark.parametrize("algorithm", ["hhcart-a", "hhcart-d"])
def test_hhcart_splits_a_qualitative_feature_in_one_node(algorithm):
    X, y = _parity_levels()
    coded = make_estimator(algorithm, categorical_features=[1]).fit(X, y)
    assert coded.n_leaves_ == 2 and (coded.predict(X) == y).all()
    plain = make_estimator(algorithm, categorical_features=[]).fit(X, y)
    assert plain.n_leaves_ > 2  # the integer codes need a staircase
    # The node's crimcoords live in its weights: prediction equals its rules.
    restored = make_estimator(algorithm).load_tree(json.loads(json.dumps(coded.export_json())))
    np.testing.assert_array_equal(restored.predict(X), coded.predict(X))
    Z = coded.tree_input(X)
    np.testing.assert_array_equal(leaves_by_rules(coded.tree_, Z), coded.tree_.apply(Z))


def test_runner_passes_the_datasets_qualitative_columns(tmp_path, write_config):
    X, y = _parity_levels(300, seed=1)
    frame = pd.DataFrame({"noise": X[:, 0], "colour": X[:, 1].astype(int), "cls": y})
    frame.to_csv(tmp_path / "parity.csv", index=False)
    out = tmp_path / "out"
    config = write_config(f"""
        name: parity
        seed: 3
        datasets:
          - {{name: parity, path: {tmp_path / 'parity.csv'}, target: cls,
              categorical: [colour]}}
        algorithms:
          - {{name: hhcart-a, label: CRIM}}
          - {{name: hhcart-a, label: CODES, params: {{categorical_features: []}}}}
        protocol: {{name: kfold, folds: 3, repeats: 1}}
        output: {out}
        """)
    run_experiment(load_config(config), progress=False)
    runs = pd.read_csv(out / "runs.csv")
    assert (runs["status"] == "ok").all()
    crim = runs[runs["algorithm"] == "CRIM"]
    codes = runs[runs["algorithm"] == "CODES"]
    assert (crim["n_leaves"] == 2).all() and (crim["test_accuracy"] == 100).all()
    assert (codes["n_leaves"] > 2).all()
