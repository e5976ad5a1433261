"""A metric and a protocol, each added in one file (tests/plugins), reach obliq table."""

import importlib
import io
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from obliq_cli.cli import main
from obliq_cli.experiment.metrics import METRICS
from obliq_cli.experiment.protocols import PROTOCOLS


@pytest.fixture
def plugins():
    """Register the two plugins for one test, then remove them again."""
    modules = [importlib.import_module("plugins.mean_recall"),
               importlib.import_module("plugins.shuffle_split")]
    yield modules
    METRICS.pop("mean_recall", None)
    PROTOCOLS.pop("shuffle_split", None)
    import sys
    for module in modules:
        sys.modules.pop(module.__name__, None)


def test_a_new_metric_and_protocol_are_run_stored_and_tabled(plugins, write_config, tmp_path):
    out = tmp_path / "new"
    path = write_config(f"""
        name: new
        seed: 3
        datasets: [test-iris, {{name: test-wine, label: wine2, params: {{classes: 2}}}}]
        algorithms:
          - {{name: test-tree, label: A}}
          - {{name: test-tree, label: B, params: {{max_depth: 1}}}}
        protocol: {{name: shuffle_split, repeats: 4, test_fraction: 0.3}}
        metrics: [test_accuracy, mean_recall]
        n_jobs: 2
        output: {out}
        """)
    result = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert result.exit_code == 0, result.output
    runs = pd.read_csv(out / "runs.csv", keep_default_na=False)
    assert len(runs) == 2 * 4 * 1 * 2  # one task per repetition
    assert (runs["n_test"] == runs["dataset"].map({"test-iris": 45, "wine2": 39})).all()
    # the stored value is the mean recall of the stored confusion matrix
    for row in runs.itertuples():
        matrix = np.array(json.loads(row.confusion))
        recall = np.diag(matrix) / matrix.sum(axis=1)
        assert json.loads(row.extra)["mean_recall"] == pytest.approx(
            100 * recall.mean())
    table = CliRunner().invoke(main, ["table", str(out), "--metric", "mean_recall",
                                      "--format", "csv"])
    assert table.exit_code == 0, table.output
    tidy = pd.read_csv(io.StringIO(table.output))
    runs["balanced"] = [json.loads(e)["mean_recall"] for e in runs["extra"]]
    expected = runs.groupby(["dataset", "algorithm"])["balanced"].agg(["mean", "std"])
    for row in tidy.itertuples():
        assert row.mean == pytest.approx(expected.loc[(row.dataset, row.algorithm), "mean"])
        assert row.sd == pytest.approx(expected.loc[(row.dataset, row.algorithm), "std"])
        assert row.n_repetitions == 4
    text = CliRunner().invoke(main, ["table", str(out), "--metric", "mean_recall",
                                     "--sig", "A"]).output
    assert "mean_recall (%): mean over 1 fold of each repetition, then mean ± sd " \
           "over 4 repetitions" in text and "(w/t/l) vs A" in text


def test_a_new_protocol_checks_its_keys(plugins, write_config, tmp_path):
    path = write_config(f"""
        name: bad
        datasets: [test-iris]
        algorithms: [test-tree]
        protocol: {{name: shuffle_split, folds: 3}}
        output: {tmp_path / 'bad'}
        """)
    result = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
    assert result.exit_code == 2 and "protocol.folds: unknown key" in result.output


def test_a_plugin_metric_and_protocol_named_by_imports_reach_a_new_process(write_config,
                                                                            tmp_path):
    """A config's ``imports`` registers the metric and the protocol for the run; a later
    ``obliq table`` / ``stats`` / ``report`` (a new process, nothing registered) imports
    them again from meta.json instead of calling the metric unknown."""
    import shutil
    import sys
    from pathlib import Path

    from obliq_cli import registry

    plugin_dir = tmp_path / "mine"
    plugin_dir.mkdir()
    for name in ("mean_recall.py", "shuffle_split.py"):
        shutil.copy(Path(__file__).parent / "plugins" / name, plugin_dir / name)
    out = tmp_path / "imported"
    path = write_config(f"""
        name: imported
        seed: 2
        imports: [mine/mean_recall.py, mine/shuffle_split.py]
        datasets: [test-iris]
        algorithms: [{{name: test-tree, label: A}}, {{name: test-tree, label: B,
                      params: {{max_depth: 1}}}}]
        protocol: {{name: shuffle_split, repeats: 3}}
        metrics: [test_accuracy, mean_recall]
        n_jobs: 1
        output: {out}
        """)

    def forget_plugins():  # what a new process knows: the built-ins only
        METRICS.pop("mean_recall", None)
        PROTOCOLS.pop("shuffle_split", None)
        for module, file in list(registry._PLUGIN_FILES.items()):
            if Path(file).parent == plugin_dir:
                registry._PLUGIN_FILES.pop(module)
                sys.modules.pop(module, None)

    try:
        result = CliRunner().invoke(main, ["run", str(path), "--no-progress"])
        assert result.exit_code == 0, result.output
        forget_plugins()
        table = CliRunner().invoke(main, ["table", str(out), "--metric", "mean_recall",
                                          "--format", "csv"])
        assert table.exit_code == 0, table.output
        tidy = pd.read_csv(io.StringIO(table.output))
        assert set(tidy["algorithm"]) == {"A", "B"} and (tidy["n_repetitions"] == 3).all()
        forget_plugins()
        stats = CliRunner().invoke(main, ["stats", str(out), "--metric", "mean_recall"])
        assert stats.exit_code == 0, stats.output
        forget_plugins()
        report = CliRunner().invoke(main, ["report", str(out), "-o", str(tmp_path / "r.html")])
        assert report.exit_code == 0, report.output
        assert "mean recall (%)" in (tmp_path / "r.html").read_text(encoding="utf-8")
        # a plugin that moved away: a warning, and the built-in metrics still table
        forget_plugins()
        shutil.rmtree(plugin_dir)
        moved = CliRunner().invoke(main, ["table", str(out)])
        assert moved.exit_code == 0 and "test_accuracy (%)" in moved.output
        assert "imports:" in moved.output and "cannot be imported" in moved.output
    finally:
        forget_plugins()
