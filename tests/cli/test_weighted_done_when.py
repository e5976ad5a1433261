"""Weights end to end, the way a researcher uses them: a config on an imbalanced CSV with a weights
column, ``class_weight: balanced`` on five obliq algorithms, a scikit-learn pipeline and a
class from an ``imports:`` file runs with -j 2 equal to -j 1; a run killed mid-way and
resumed equals an uninterrupted one; ``obliq table --metric auc`` and
``balanced_accuracy`` print what scikit-learn computes from the stored predictions."""

from __future__ import annotations

import io
import json
import signal
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from obliq_cli.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiment"))
from test_resume_kill import _csv_rows, _obliq_process  # noqa: E402

pytestmark = pytest.mark.slow

MINE = '''
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class NearestMean(ClassifierMixin, BaseEstimator):
    """Each class's (weighted) mean; the nearest one predicts."""

    def __init__(self, scale=1.0):
        self.scale = scale

    def fit(self, X, y, sample_weight=None):
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.means_ = np.array([np.average(X[codes == k], axis=0, weights=w[codes == k])
                                for k in range(self.classes_.size)])
        return self

    def predict_proba(self, X):
        d = -self.scale * ((X[:, None, :] - self.means_[None]) ** 2).sum(axis=2)
        e = np.exp(d - d.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]
'''


def write_data(folder: Path) -> None:
    rng = np.random.default_rng(32)
    n = 300
    y = np.where(rng.random(n) < 0.15, "rare", "common")
    X = rng.normal(size=(n, 4)) + np.where(y == "rare", 1.2, 0.0)[:, None] * [1, 1, 0, 0]
    w = rng.integers(1, 4, size=n)
    lines = ["a,b,c,d,w,class"] + [",".join([*(f"{v:.4f}" for v in X[i]), str(w[i]), y[i]])
                                   for i in range(n)]
    (folder / "imbalanced.csv").write_text("\n".join(lines) + "\n")
    (folder / "mine.py").write_text(MINE)
    balanced = "params: {class_weight: balanced}"
    (folder / "c.yaml").write_text(f"""name: weighted
seed: 7
imports: [mine.py]
datasets:
  - {{name: imb, path: imbalanced.csv, target: class, weights: w}}
algorithms:
  - {{name: cart-ap, {balanced}}}
  - {{name: oc1, params: {{class_weight: balanced, n_restarts: 2}}}}
  - {{name: oc1-lc, {balanced}}}
  - {{name: c45, {balanced}}}
  - {{name: hhcart-a, {balanced}}}
  - pipeline:
      - {{estimator: sklearn.preprocessing.StandardScaler}}
      - {{estimator: sklearn.linear_model.LogisticRegression}}
  - {{estimator: mine.NearestMean}}
protocol: {{name: kfold, folds: 3, repeats: 1}}
""")


def run(folder: Path, out: Path, *extra) -> None:
    result = CliRunner().invoke(main, ["run", str(folder / "c.yaml"), "-o", str(out),
                                       *extra])
    assert result.exit_code == 0, result.output


def stored(out: Path) -> dict:
    return {p.name: {k: v.tobytes() for k, v in np.load(p).items()}
            for p in sorted((out / "predictions").glob("*.npz"))}


def test_weighted_config_runs_alike_in_parallel_after_a_kill_and_from_predictions(tmp_path):
    write_data(tmp_path)
    one, two = tmp_path / "one", tmp_path / "two"
    run(tmp_path, one, "-j", "1")
    run(tmp_path, two, "-j", "2")
    reference = _csv_rows(one)
    assert len(reference) == 7 * 3
    assert all(r["status"] == "ok" for r in reference.values()), reference
    assert _csv_rows(two) == reference
    assert stored(two) == stored(one)
    notes = json.loads((one / "meta.json").read_text())
    assert '"weights": "w"' in json.dumps(notes)

    # killed (SIGKILL to its process group) once some rows exist, then resumed
    killed = tmp_path / "killed"
    args = ["run", str(tmp_path / "c.yaml"), "-o", str(killed), "-j", "2"]
    _obliq_process(args, rows_before=3, signum=signal.SIGKILL, out=killed)
    assert len(_csv_rows(killed)) < len(reference)
    code, err, _ = _obliq_process([*args, "--resume"])
    assert code == 0, err
    assert _csv_rows(killed) == reference
    assert stored(killed) == stored(one)

    # the metrics from stored predictions, one cell checked against scikit-learn
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    rows = [r for r in reference.values() if r["algorithm"] == "cart-ap"]
    auc, bacc = [], []
    for row in rows:
        data = np.load(killed / "predictions" / f"{row['task']}.npz")
        classes = list(data["classes"])
        rare = classes.index("rare")
        auc.append(roc_auc_score(data["y_true"] == rare, data["proba"][:, rare]))
        bacc.append(balanced_accuracy_score(data["y_true"], data["y_pred"]))
    for metric, values in (("auc", auc), ("balanced_accuracy", bacc)):
        result = CliRunner().invoke(main, ["table", str(killed), "--metric", metric,
                                           "--format", "csv"])
        assert result.exit_code == 0, result.output
        table = pd.read_csv(io.StringIO(result.output))
        cell = table[(table.algorithm == "cart-ap") & (table.metric == metric)]
        # one repetition: the mean of its three folds' values (fractions, not percent)
        assert float(cell["mean"].iloc[0]) == pytest.approx(np.mean(values), rel=1e-9)
