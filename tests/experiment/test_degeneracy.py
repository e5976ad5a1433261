"""Degenerate fits flagged in their rows (experiment/degeneracy.py): hand-worked answers of
the one definition, the flags a real run writes (cross-checked against its stored folds),
and a runs.csv written before the column: still read, flagged as far as its columns tell,
and resumed."""

import csv
import json
import math

import numpy as np
import pandas as pd
import pytest
from conftest import EXPECTED_FLAGS as EXPECTED
from sklearn.dummy import DummyClassifier

from obliq_cli import registry
from obliq_cli.analysis.aggregate import load_results
from obliq_cli.config import load_config
from obliq_cli.experiment.degeneracy import (
    AT_MAJORITY,
    CONSTANT,
    ONE_LEAF,
    majority_rate,
    read_flags,
    task_flags,
)
from obliq_cli.experiment.metrics import task_metrics
from obliq_cli.experiment.runner import run_experiment
from obliq_cli.experiment.schema import RUN_COLUMNS
from obliq_cli.report.tables import render_tables

NAN = math.nan
CLEAN = [[5, 1], [0, 4]]      # both classes predicted
CONSTANT_MATRIX = [[5, 0], [4, 0]]  # every test row predicted class 0, two true classes


@pytest.mark.parametrize("train_accuracy, majority, leaves, matrix, expected", [
    (75.0, 75.0, 3, CLEAN, AT_MAJORITY),            # a tie with the majority rate counts
    (60.0, 75.0, 3, CLEAN, AT_MAJORITY),            # below it
    (75.0 + 1e-6, 75.0, 3, CLEAN, ""),              # any real gain above it is none
    (100.0, 100.0, 3, CLEAN, ""),                   # one class grown on: not at_majority
    (100.0, 100.0, 1, CLEAN, ""),                   # ... nor one leaf on impure rows
    (90.0, 60.0, 1, CLEAN, ONE_LEAF),               # one leaf, two classes grown on
    (90.0, 60.0, NAN, CLEAN, ""),                   # no tree (an SVM): no leaves to count
    (90.0, 60.0, None, CLEAN, ""),
    (90.0, 60.0, 2, CONSTANT_MATRIX, CONSTANT),
    (90.0, 60.0, 2, [[9, 0], [0, 0]], ""),          # the test rows hold one class only
    (90.0, 60.0, 2, [[0, 0], [0, 0]], ""),          # no test row at all
    (90.0, 60.0, 2, None, ""),                      # no matrix stored
    (60.0, 60.0, 1, CONSTANT_MATRIX, f"{AT_MAJORITY};{ONE_LEAF};{CONSTANT}"),
    # a row written before flags: the majority rate is unknown, so at_majority is never
    # decided, and one leaf is decided by a miss on the training rows
    (50.0, NAN, 5, CLEAN, ""),
    (80.0, NAN, 1, CLEAN, ONE_LEAF),
    (100.0, NAN, 1, CLEAN, ""),
    (NAN, 60.0, 3, CLEAN, ""),                      # no training accuracy stored
])
def test_flags_are_the_hand_worked_ones(train_accuracy, majority, leaves, matrix, expected):
    assert task_flags(train_accuracy, majority, leaves, matrix) == expected


def test_majority_rate_is_the_largest_class_share():
    assert majority_rate(np.array(["a", "b", "a", "a"])) == 75.0
    assert majority_rate(np.array([2, 2, 2])) == 100.0
    assert math.isnan(majority_rate(np.array([])))


class Fixed:
    """Predicts the given labels, whatever it is asked about (one call per part)."""

    def __init__(self, classes, *answers):
        self.classes_ = np.asarray(classes)
        self.answers = list(answers)

    def predict(self, X):
        return np.asarray(self.answers.pop(0))


def test_task_metrics_flags_a_model_exactly_at_the_majority_rate():
    y_fit = np.array([0, 0, 0, 1])          # majority rate 75 %
    y_test = np.array([0, 1, 0, 1])
    # test predictions first (timed), then the training ones: 3 of 4 right = 75 %, a tie
    model = Fixed([0, 1], [1, 1, 0, 0], [0, 0, 1, 1])
    row = task_metrics(model, np.zeros((4, 1)), y_fit, np.zeros((4, 1)), y_test)
    assert row["train_accuracy"] == 75.0 and row["flags"] == AT_MAJORITY
    model = Fixed([0, 1], [1, 1, 0, 0], [0, 0, 0, 1])    # every training row right
    row = task_metrics(model, np.zeros((4, 1)), y_fit, np.zeros((4, 1)), y_test)
    assert row["flags"] == ""


def test_task_metrics_flags_scikit_learn_s_dummy():
    X = np.arange(12, dtype=float)[:, None]
    y = np.array([0] * 7 + [1] * 5)
    dummy = DummyClassifier(strategy="most_frequent").fit(X, y)
    row = task_metrics(dummy, X, y, X, y)
    assert row["train_accuracy"] == pytest.approx(100 * 7 / 12)
    assert row["flags"] == f"{AT_MAJORITY};{CONSTANT}"


def _rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_a_run_writes_the_flags_of_each_task(flagged_run):
    _, out = flagged_run
    rows = _rows(out / "runs.csv")
    assert list(rows[0]) == RUN_COLUMNS
    for row in rows:
        assert row["flags"] == EXPECTED[row["algorithm"]], row["algorithm"]


def test_at_majority_is_the_train_accuracy_against_the_grow_rows_of_the_stored_folds(
        flagged_run):
    # the majority rate recomputed here from the fold file and the labels, outside the
    # runner: roles 1 = grow (no pruner and no prune part: the model grew on them all)
    _, out = flagged_run
    rows = _rows(out / "runs.csv")
    for dataset in ("test-iris", "test-wine"):
        _, y, _ = registry.load_dataset(dataset)
        roles = np.load(out / "folds" / f"{dataset}.npz")["roles"]
        for row in (r for r in rows if r["dataset"] == dataset):
            grow = y[roles[int(row["repetition"]), int(row["fold"])] == 1]
            assert int(row["n_train"]) == grow.size
            majority = 100.0 * np.bincount(grow).max() / grow.size
            at = float(row["train_accuracy"]) <= majority + 1e-9
            assert (AT_MAJORITY in row["flags"].split(";")) == at, row
            if row["algorithm"] == "DUMMY":   # predicts the majority class: a tie
                assert float(row["train_accuracy"]) == pytest.approx(majority)


def _without_flags(source, target, keep=None):
    """runs.csv as an obliq older than the flags column wrote it (``keep``: the first
    rows only)."""
    runs = pd.read_csv(source, dtype=str, keep_default_na=False)
    runs = runs.drop(columns=["flags"])
    if keep is not None:
        runs = runs.iloc[:keep]
    runs.to_csv(target, index=False)


def test_an_old_runs_csv_is_read_with_what_its_columns_tell(flagged_run, tmp_path):
    _, out = flagged_run
    old = tmp_path / "old"
    old.mkdir()
    (old / "meta.json").write_text((out / "meta.json").read_text())
    _without_flags(out / "runs.csv", old / "runs.csv")
    runs, _ = load_results(old)
    assert len(runs) == 36 and runs["flags_undecided"].all()
    by_algorithm = runs.groupby("algorithm")["flags"].agg(set).to_dict()
    # at_majority needs the grow rows' class counts, which the old file lacks
    assert by_algorithm == {"FULL": {""}, "STUMP": {f"{ONE_LEAF};{CONSTANT}"},
                            "DUMMY": {CONSTANT}}
    new, _ = load_results(out)
    assert not new["flags_undecided"].any()
    # the table marks what the old columns tell and says what they cannot
    table = render_tables([old])
    assert table.count(" ⚠ |") == 4 and table.endswith(
        "36 tasks read from a runs.csv written before obliq recorded flags: one_leaf and "
        "constant_predictions were read from their stored columns, at_majority could not "
        "be checked")
    assert "at_majority" not in table.split("in 4 cells: ")[1].split("; one_leaf:")[0]


def test_read_flags_decides_nothing_for_a_failed_task():
    runs = pd.DataFrame({"status": ["error", "ok"], "train_accuracy": [NAN, 50.0],
                         "n_leaves": [1, 1], "confusion": ["", json.dumps(CONSTANT_MATRIX)]})
    flags, undecided = read_flags(runs)
    assert flags == ["", f"{ONE_LEAF};{CONSTANT}"] and undecided == [False, True]
    stored = runs.assign(flags=["", "at_majority"])
    assert read_flags(stored) == (["", AT_MAJORITY], [False, False])


def test_an_old_folder_resumes_without_the_column_and_keeps_its_task_identities(
        flagged_run, tmp_path):
    path, out = flagged_run
    old = tmp_path / "old"
    old.mkdir()
    (old / "meta.json").write_text((out / "meta.json").read_text())
    (old / "folds").mkdir()
    for fold_file in (out / "folds").iterdir():
        (old / "folds" / fold_file.name).write_bytes(fold_file.read_bytes())
    _without_flags(out / "runs.csv", old / "runs.csv", keep=20)
    config = load_config(path, {"output": str(old)})
    summary = run_experiment(config, n_jobs=1, resume=True, progress=False)
    # the stored tasks are known by the identities they were written with
    assert (summary.skipped, summary.ran, summary.failed) == (20, 16, [])
    rows = _rows(old / "runs.csv")
    assert "flags" not in rows[0] and len(rows) == 36
    # the appended rows follow the file's own header: one table, the same tasks
    assert {r["task"] for r in rows} == {r["task"] for r in _rows(out / "runs.csv")}
    runs, _ = load_results(old)
    assert set(runs.loc[runs["algorithm"] == "STUMP", "flags"]) == {f"{ONE_LEAF};{CONSTANT}"}
