"""Experiments from Python (``obliq_cli.run_experiment`` / ``load_results``), read back
as ``obliq table`` reads them; the command line prints the same text."""

import csv
import math
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import obliq_cli
from obliq_cli.cli import main
from obliq_cli.errors import ObliqError
from obliq_cli.resources import configs_dir


# 1 dataset x 2 repetitions x 3 folds x 2 algorithms = 12 tasks; BROKEN fails on every
# fold whose growing part has an odd number of rows (conftest's test-tree hook).
def small(marker=None):
    algorithms = [{"name": "test-tree", "label": "FULL"},
                  {"name": "test-tree", "label": "STUMP", "params": {"max_depth": 1}}]
    if marker is not None:
        algorithms.append({"name": "test-tree", "label": "BROKEN",
                           "params": {"fail_marker": str(marker)}})
    return {"name": "py", "seed": 2, "datasets": ["test-iris"], "algorithms": algorithms,
            "protocol": {"name": "kfold", "folds": 3, "repeats": 2}}


def test_a_dict_config_runs_and_gives_one_row_per_task_and_metric(tmp_path):
    out = tmp_path / "out"
    results = obliq_cli.run_experiment(small(), output=out)
    frame = results.to_frame()
    assert list(frame.columns) == ["experiment", "dataset", "repetition", "fold",
                                   "algorithm", "metric", "value", "status", "flags"]
    # a one-split tree on three classes learns something: no task is flagged degenerate
    assert set(frame["flags"]) == {""}
    metrics = list(dict.fromkeys(frame["metric"]))
    assert {"test_accuracy", "test_error", "n_leaves", "n_nodes", "fit_time"} <= set(metrics)
    assert len(frame) == 12 * len(metrics) and set(frame["status"]) == {"ok"}
    # in the config's order whatever order the tasks finished in
    tasks = frame.drop_duplicates(["repetition", "fold", "algorithm"])
    assert list(zip(tasks["repetition"], tasks["fold"], tasks["algorithm"])) == [
        (r, f, a) for r in range(2) for f in range(3) for a in ("FULL", "STUMP")]
    # every value is the one runs.csv holds (read here by the csv module, not pandas)
    with open(out / "runs.csv", newline="") as handle:
        stored = list(csv.DictReader(handle))
    assert len(stored) == 12
    value = frame.set_index(["repetition", "fold", "algorithm", "metric"])["value"]
    for row in stored:
        key = (int(row["repetition"]), int(row["fold"]), row["algorithm"])
        accuracy = value[(*key, "test_accuracy")]
        assert accuracy == float(row["test_accuracy"])
        assert accuracy == pytest.approx(100 * int(row["n_test_correct"]) / int(row["n_test"]))
        assert value[(*key, "test_error")] == pytest.approx(100 - accuracy)
        assert value[(*key, "n_nodes")] == int(row["n_leaves"]) + int(row["n_internal"])
    stump = frame[(frame["algorithm"] == "STUMP") & (frame["metric"] == "n_leaves")]
    assert set(stump["value"]) == {2.0}
    assert results.summary.ran == 12 and results.summary.failed == []


def test_table_and_stats_are_what_the_command_line_prints(tmp_path):
    out = tmp_path / "out"
    results = obliq_cli.run_experiment(small(), output=out)
    for args, text in (
            ([], results.table()),
            (["--metric", "n_leaves", "--sig", "FULL"], results.table("n_leaves", sig="FULL")),
            (["--format", "csv", "--sig", "STUMP"], results.table(fmt="csv", sig="STUMP"))):
        shown = CliRunner().invoke(main, ["table", str(out), *args])
        assert shown.exit_code == 0, shown.output
        assert shown.output == str(text) + "\n"
    shown = CliRunner().invoke(main, ["stats", str(out)])
    assert shown.exit_code == 0 and shown.output == str(results.stats()) + "\n"
    assert str(obliq_cli.load_results(out).table()) == str(results.table())
    pd.testing.assert_frame_equal(obliq_cli.load_results(out).to_frame(), results.to_frame())


def test_the_frame_forms_hold_the_numbers_of_the_table(tmp_path):
    results = obliq_cli.run_experiment(small(), output=tmp_path / "out")
    table = results.table(frame=True, sig="STUMP").set_index("algorithm")
    # by hand from the tidy rows: mean over folds per repetition, then mean and sd (ddof 1)
    rows = results.to_frame()
    accuracy = rows[rows["metric"] == "test_accuracy"]
    for algorithm in ("FULL", "STUMP"):
        per_rep = accuracy[accuracy["algorithm"] == algorithm].groupby("repetition")[
            "value"].mean().to_numpy()
        assert table.loc[algorithm, "mean"] == pytest.approx(per_rep.mean())
        assert table.loc[algorithm, "sd"] == pytest.approx(np.std(per_rep, ddof=1))
        assert table.loc[algorithm, "n_repetitions"] == 2
    # small()'s repeated k-fold CV: the default per-fold test is the corrected t
    assert table.loc["FULL", "versus"] == "STUMP"
    assert table.loc["FULL", "test"] == "corrected-t"
    assert table.loc["FULL", "mark"] in ("v", "*", "")
    assert math.isnan(table.loc["STUMP", "pvalue"]) and 0 <= table.loc["FULL", "pvalue"] <= 1
    pairs = results.stats(frame=True)
    assert set(zip(pairs["algorithm"], pairs["versus"])) == {("FULL", "STUMP"),
                                                             ("STUMP", "FULL")}
    text = str(results.stats(fmt="csv"))
    assert text.splitlines()[0] == ",".join(pairs.columns)


def test_several_metrics_are_each_metrics_table_in_turn(tmp_path):
    results = obliq_cli.run_experiment(small(), output=tmp_path / "out")
    names = ["n_leaves", "test_accuracy"]
    # the frames: each metric's rows, one under the other, in the order asked
    both = results.table(names, frame=True, sig="STUMP")
    pd.testing.assert_frame_equal(both, pd.concat(
        [results.table(m, frame=True, sig="STUMP") for m in names], ignore_index=True))
    stats = results.stats(names, frame=True)
    assert stats["metric"].drop_duplicates().tolist() == names
    pd.testing.assert_frame_equal(stats.iloc[:len(stats) // 2].reset_index(drop=True),
                                  results.stats("n_leaves", frame=True))
    # the text: the tables one after the other, a blank line between, to_frame the same
    table = results.table(names)
    assert str(table) == "\n\n".join(str(results.table(m)) for m in names)
    pd.testing.assert_frame_equal(table.to_frame(), results.table(names, frame=True))
    with pytest.raises(TypeError, match="metric: give a metric's name or a list"):
        results.table([])
    with pytest.raises(ObliqError, match="n_leaf"):
        results.stats(["n_leaves", "n_leaf"])


def test_failed_tasks_are_rows_with_status_error_and_no_values(tmp_path):
    marker = tmp_path / "fail"
    marker.write_text("")
    config = small(marker)  # 4 folds of 150 rows: 112 or 113 rows to grow on
    config["protocol"]["folds"] = 4
    results = obliq_cli.run_experiment(config, output=tmp_path / "out")
    frame = results.to_frame()
    broken = frame[frame["algorithm"] == "BROKEN"]
    failed = broken[broken["status"] == "error"]
    assert len(failed) > 0 and failed["value"].isna().all()
    n_metrics = frame["metric"].nunique()
    assert len(failed) == len(results.summary.failed) * n_metrics
    assert (frame.loc[frame["algorithm"] != "BROKEN", "status"] == "ok").all()


def test_relative_paths_of_a_dict_are_taken_from_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "cls": np.where(X[:, 0] > 0, "p", "n")}).to_csv(
        tmp_path / "mine.csv", index=False)
    config = {**small(), "datasets": [{"name": "mine", "path": "mine.csv", "target": "cls"}],
              "output": "res/py"}
    given = repr(config)
    results = obliq_cli.run_experiment(config)
    assert (tmp_path / "res" / "py" / "runs.csv").is_file()
    assert set(results.to_frame()["dataset"]) == {"mine"}
    assert repr(config) == given  # the caller's dict is not changed


def test_bad_input_raises_obliq_error_naming_the_field_and_writes_nothing(tmp_path):
    bad = {**small(), "algorithms": [{"name": "cart-apx"}]}
    with pytest.raises(ObliqError, match=r"^<config dict>: algorithms\[0\]\.name: unknown "
                                         r"algorithm 'cart-apx' \(did you mean 'cart-ap'\?\)"):
        obliq_cli.run_experiment(bad, output=tmp_path / "out")
    assert issubclass(obliq_cli.ObliqError, ValueError)
    with pytest.raises(ValueError, match="resume and --force exclude"):
        obliq_cli.run_experiment(small(), output=tmp_path / "out", resume=True, force=True)
    with pytest.raises(ObliqError, match="^config: give a YAML file's path, a shipped "):
        obliq_cli.run_experiment(["pima"], output=tmp_path / "out")  # a list is no config
    with pytest.raises(ObliqError, match="no such results directory"):
        obliq_cli.load_results(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_shipped_config_name_resolves(tmp_path, monkeypatch):
    # The real quickstart run (450 tasks) is make demo's; here only what it would run.
    from obliq_cli.experiment import runner

    seen = {}

    def planned(spec, **options):
        seen.update(spec=spec, options=options)
        raise ObliqError("stop before running")

    monkeypatch.setattr(runner, "run_experiment", planned)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ObliqError, match="stop before running"):
        obliq_cli.run_experiment("quickstart", output=tmp_path / "qs", n_jobs=1)
    spec = seen["spec"]
    assert spec.path == str(configs_dir() / "quickstart.yaml") and spec.name == "quickstart"
    assert spec.output == str(tmp_path / "qs") and seen["options"]["n_jobs"] == 1
    assert [a.label for a in spec.algorithms][0] == "CART-AP gini 0-SE"
    assert spec.reference == str(configs_dir() / "references" / "hhcart_uci.csv")


class _Shell:
    """What tqdm.auto and ``logs.in_ipython`` read of a running IPython shell: a terminal
    ``ipython`` prompt's (no IPKernelApp in its config, so tqdm.auto draws the text bar)."""

    config: dict = {}


def test_the_progress_bar_is_on_by_default_inside_ipython_only(tmp_path, monkeypatch, capsys):
    import types

    from obliq_cli.logs import in_ipython

    assert not in_ipython()  # pytest is no IPython shell
    obliq_cli.run_experiment(small(), output=tmp_path / "plain")
    assert "12/12" not in capsys.readouterr().err
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = _Shell
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    assert in_ipython()
    obliq_cli.run_experiment(small(), output=tmp_path / "shell")
    err = capsys.readouterr().err
    assert "py: 100%" in err and "12/12" in err  # tqdm's bar: desc, percentage, done/total
    obliq_cli.run_experiment(small(), output=tmp_path / "asked", progress=False)
    assert "12/12" not in capsys.readouterr().err
    # with no shell running (IPython imported, get_ipython() None) it stays off
    ipython.get_ipython = lambda: None
    assert not in_ipython()
