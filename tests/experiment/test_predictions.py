"""Stored test predictions (experiment/predictions.py): one file per finished task, the
same bytes for -j 1 and -j 2, the metrics read from them equal scikit-learn's on a
refit, an older folder without them still reads (blank, with a note), and McNemar's test
against hand-worked tables."""

import json
import math
import shutil

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score, log_loss, roc_auc_score

from obliq_cli.analysis.results import Results
from obliq_cli.analysis.stats import compare_to
from obliq_cli.config import load_config
from obliq_cli.experiment import predictions
from obliq_cli.experiment.replay import replay_task
from obliq_cli.experiment.runner import run_experiment
from obliq_cli.report.tables import format_tables, table_frame

CONFIG = """
name: kept
seed: 5
datasets: [test-iris, {{name: test-wine, label: wine2, params: {{classes: 2}}}}]
algorithms:
  - {{name: test-tree, label: TREE, pruner: {{name: test-prune, params: {{max_depth: 2}}}}}}
  - {{name: test-tree, label: FULL}}
  - {{estimator: sklearn.svm.LinearSVC, label: LSVC, params: {{dual: auto}}}}
protocol: {{name: kfold, folds: 3, repeats: 2, prune_fraction: 0.2}}
output: {out}
"""


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    """(folder run with -j 1, folder run with -j 2) of CONFIG."""
    base = tmp_path_factory.mktemp("kept")
    path = base / "kept.yaml"
    path.write_text(CONFIG.format(out=base / "j1"))
    folders = []
    for jobs in (1, 2):
        out = base / f"j{jobs}"
        run_experiment(load_config(path, {"output": str(out), "n_jobs": jobs}),
                       progress=False)
        folders.append(out)
    return folders


@pytest.mark.slow
def test_one_file_per_finished_task_with_the_same_bytes_for_any_jobs(kept):
    j1, j2 = kept
    runs = pd.read_csv(j1 / "runs.csv", dtype=str, keep_default_na=False)
    assert (runs["status"] == "ok").all() and len(runs) == 2 * 2 * 3 * 3
    names = sorted(p.name for p in (j1 / "predictions").iterdir())
    assert names == sorted(f"{t}.npz" for t in runs["task"])
    for name in names:
        assert (j1 / "predictions" / name).read_bytes() == \
            (j2 / "predictions" / name).read_bytes(), name
    # the file agrees with its row: test rows, correct count, class order
    for row in runs.itertuples():
        stored = predictions.read(predictions.prediction_file(j1, row.task),
                                  float(row.n_test), float(row.n_test_correct))
        assert stored is not None
        assert stored.classes.tolist() == json.loads(row.classes)
        assert (stored.proba is None) == (row.algorithm == "LSVC")
        if stored.proba is not None:
            assert stored.proba.dtype == np.float32
            np.testing.assert_allclose(stored.proba.sum(axis=1), 1.0, atol=1e-6)


def test_metrics_equal_scikit_learns_on_a_refit(kept):
    j1 = kept[0]
    results = Results.read(j1)
    frames = {m: table_frame(results, m) for m in ("balanced_accuracy", "auc",
                                                       "log_loss")}
    for dataset in ("test-iris", "wine2"):
        for algorithm in ("TREE", "FULL"):
            per_task = {"balanced_accuracy": [], "auc": [], "log_loss": []}
            for rep in range(2):
                folds = {"balanced_accuracy": [], "auc": [], "log_loss": []}
                for fold in range(3):
                    replay = replay_task(j1, dataset, algorithm, rep, fold)
                    X, y = replay.X[replay.test], replay.y[replay.test]
                    model = replay.estimator
                    proba = model.predict_proba(X)
                    folds["balanced_accuracy"].append(
                        balanced_accuracy_score(y, model.predict(X)))
                    if proba.shape[1] == 2:
                        folds["auc"].append(roc_auc_score(y == model.classes_[1],
                                                          proba[:, 1]))
                    else:  # every class is in each test fold of these sets
                        folds["auc"].append(roc_auc_score(y, proba, multi_class="ovr",
                                                          labels=model.classes_))
                    folds["log_loss"].append(log_loss(y, proba, labels=model.classes_))
                for name, values in folds.items():
                    per_task[name].append(np.mean(values))
            for name, values in per_task.items():
                frame = frames[name]
                cell = frame[(frame["dataset"] == dataset) & (frame["algorithm"] == algorithm)]
                # float32 probabilities: AUC ranks and log-loss agree to 1e-6
                assert cell["mean"].item() == pytest.approx(np.mean(values), abs=1e-6), \
                    (name, dataset, algorithm)


def test_a_model_without_probabilities_has_blank_auc_and_a_note(kept):
    results = Results.read(kept[0])
    frame = table_frame(results, "auc")
    assert "LSVC" not in set(frame["algorithm"])
    assert "LSVC" in set(table_frame(results, "balanced_accuracy")["algorithm"])
    text = format_tables(results, "auc")
    assert "12 task(s) without usable probabilities (LinearSVC has no predict_proba)" in text


def test_an_older_folder_without_predictions_still_loads(kept, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(kept[0], old)
    shutil.rmtree(old / "predictions")
    results = Results.read(old)
    runs = results.runs
    before = table_frame(Results.read(kept[0]), "test_accuracy")
    pd.testing.assert_frame_equal(table_frame(results, "test_accuracy"), before)
    assert table_frame(results, "auc").empty
    text = format_tables(results, "auc")
    assert "36 finished task(s) have no stored predictions" in text
    # McNemar has nothing to count: every pair untested (a tie), never an error
    untested = compare_to(runs, "test_accuracy", "FULL", 0.05, "mcnemar")
    assert len(untested) == 4 and untested["statistic"].isna().all()
    assert (untested["mark"] == "").all()
    # a file that does not match its row (another task's, a damaged one) is not read
    target = predictions.prediction_file(old, runs["task"].iloc[0])
    target.parent.mkdir()
    shutil.copy(predictions.prediction_file(kept[0], runs["task"].iloc[-1]), target)
    target.with_name(runs["task"].iloc[1] + ".npz").write_bytes(b"PK\x03\x04 torn")
    assert table_frame(Results.read(old), "balanced_accuracy").empty


def test_force_deletes_the_prediction_files_and_nothing_else(kept, tmp_path):
    out = tmp_path / "forced"
    shutil.copytree(kept[0], out)
    (out / "predictions" / "mine.txt").write_text("not obliq's")
    path = tmp_path / "forced.yaml"
    path.write_text(CONFIG.format(out=out))
    run_experiment(load_config(path), force=True, progress=False, algorithms=["FULL"])
    kept_files = sorted(p.name for p in (out / "predictions").iterdir())
    runs = pd.read_csv(out / "runs.csv", dtype=str)
    assert kept_files == sorted([f"{t}.npz" for t in runs["task"]] + ["mine.txt"])


# ------------------------------------------------------------------------ McNemar
def test_mcnemar_exact_for_few_discordant_rows():
    # b = 3, c = 10: 13 < 25 pairs, exact: p = 2 P(X <= 3), X ~ Bin(13, 1/2)
    # = 2 (1 + 13 + 78 + 286) / 8192 = 756 / 8192
    statistic, p, how = predictions.mcnemar(3, 10)
    assert (statistic, how) == (3.0, "exact") and p == pytest.approx(756 / 8192, abs=1e-12)
    assert predictions.mcnemar(5, 5)[1] == 1.0  # 2 P(X <= 5 of 10) > 1: capped
    assert predictions.mcnemar(0, 0) == (0.0, 1.0, "exact")


def test_mcnemar_chi_square_with_continuity_correction():
    # b = 20, c = 40: (|20 - 40| - 1)² / 60 = 361 / 60; 1 df: p = erfc(sqrt(x / 2))
    statistic, p, how = predictions.mcnemar(20, 40)
    assert how == "chi2" and statistic == pytest.approx(361 / 60)
    assert p == pytest.approx(math.erfc(math.sqrt(361 / 120)), rel=1e-12)
    assert predictions.mcnemar(12, 13)[2] == "chi2"  # 25 pairs: the chi-square


def test_mcnemar_against_statsmodels_when_installed():
    sm = pytest.importorskip("statsmodels.stats.contingency_tables")
    for b, c in ((3, 10), (20, 40), (7, 30), (0, 4)):
        table = [[50, b], [c, 50]]
        exact = b + c < predictions.EXACT_BELOW
        ref = sm.mcnemar(table, exact=exact, correction=True)
        assert predictions.mcnemar(b, c)[1] == pytest.approx(ref.pvalue, rel=1e-9)


def test_mcnemar_in_compare_to_counts_the_lowest_repetitions_rows(kept):
    runs = Results.read(kept[0]).runs
    tests = compare_to(runs, "test_accuracy", "FULL", 0.05, "mcnemar")
    row = tests[(tests["dataset"] == "test-iris") & (tests["algorithm"] == "TREE")]
    # by hand from the stored files of repetition 0
    b = c = 0
    ok = runs[(runs["dataset"] == "test-iris") & (runs["repetition"] == 0)]
    for fold in range(3):
        files = {a: predictions.read(predictions.prediction_file(
            kept[0], ok.loc[(ok["fold"] == fold) & (ok["algorithm"] == a), "task"].item()))
            for a in ("TREE", "FULL")}
        right = {a: s.y_pred == s.y_true for a, s in files.items()}
        b += int((right["TREE"] & ~right["FULL"]).sum())
        c += int((right["FULL"] & ~right["TREE"]).sum())
    statistic, p, _ = predictions.mcnemar(b, c)
    assert row["n_pairs"].item() == 3
    assert row["pvalue"].item() == pytest.approx(p)
    assert abs(row["statistic"].item()) == pytest.approx(statistic)
    with pytest.raises(ValueError, match="--metric test_accuracy"):
        compare_to(runs, "n_leaves", "FULL", 0.05, "mcnemar")


def test_the_notes_of_a_mcnemar_test_say_it_reads_predicted_rows_not_scores(kept):
    """The per-fold tests' notes say they read per-fold scores; McNemar's reads the rows
    both algorithms predicted, and its notes say that instead."""
    from obliq_cli.report.significance import render_stats

    mcnemar = render_stats(kept[0], test="mcnemar")
    assert "the test rows both algorithms predicted in the folds both finished" in mcnemar
    assert "per-fold scores" not in mcnemar
    assert "on the per-fold scores of the (repetition, fold) pairs both algorithms " \
           "finished;" in render_stats(kept[0], test="corrected-t")
