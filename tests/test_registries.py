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
    modules = [importlib.import_module("plugins.balanced_accuracy"),
               importlib.import_module("plugins.shuffle_split")]
    yield modules
    METRICS.pop("balanced_accuracy", None)
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
        metrics: [test_accuracy, balanced_accuracy]
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
        assert json.loads(row.extra)["balanced_accuracy"] == pytest.approx(
            100 * recall.mean())
    table = CliRunner().invoke(main, ["table", str(out), "--metric", "balanced_accuracy",
                                      "--format", "csv"])
    assert table.exit_code == 0, table.output
    tidy = pd.read_csv(io.StringIO(table.output))
    runs["balanced"] = [json.loads(e)["balanced_accuracy"] for e in runs["extra"]]
    expected = runs.groupby(["dataset", "algorithm"])["balanced"].agg(["mean", "std"])
    for row in tidy.itertuples():
        assert row.mean == pytest.approx(expected.loc[(row.dataset, row.algorithm), "mean"])
        assert row.sd == pytest.approx(expected.loc[(row.dataset, row.algorithm), "std"])
        assert row.n_repetitions == 4
    text = CliRunner().invoke(main, ["table", str(out), "--metric", "balanced_accuracy",
                                     "--sig", "A"]).output
    assert "balanced_accuracy (%): mean over 1 fold of each repetition, then mean ± sd " \
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
