"""replay_task: a stored task fitted again is the stored task's tree."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from obliq_cli.cli import main
from obliq_cli.config import load_config
from obliq_cli.errors import ObliqError
from obliq_cli.experiment.replay import replay_task
from obliq_cli.experiment.runner import run_experiment


@pytest.fixture
def noisy(write_config, tmp_path):
    out = tmp_path / "noisy"
    path = write_config(f"""
        name: noisy
        seed: 4
        datasets: [test-iris, {{name: test-wine, label: wine2, params: {{classes: 2}}}}]
        algorithms:
          - {{name: test-tree, label: P, pruner: {{name: test-prune, params: {{max_depth: 3}}}}}}
          - {{name: test-tree, label: F, params: {{max_features: 2}}}}
        protocol: {{name: kfold, folds: 3, repeats: 2, prune_fraction: 0.2, label_noise: 0.2}}
        output: {out}
        """)
    run_experiment(load_config(path), progress=False)
    return out


def test_every_replayed_task_predicts_its_stored_accuracy_exactly(noisy):
    runs = pd.read_csv(noisy / "runs.csv", keep_default_na=False, float_precision="round_trip")
    assert len(runs) == 2 * 2 * 3 * 2
    for row in runs.itertuples():
        task = replay_task(noisy, row.dataset, row.algorithm, row.repetition, row.fold)
        predicted = task.estimator.predict(task.X[task.test])
        # noise is on the learning rows only: the test rows keep their labels
        correct = int(np.sum(predicted == task.y[task.test]))
        assert correct == row.n_test_correct
        assert 100.0 * correct / row.n_test == row.test_accuracy
        assert task.estimator.n_leaves_ == row.n_leaves
        assert (task.grow.size, task.prune.size) == (row.n_train, row.n_prune)
    # the noise is applied: some grow labels differ from the clean ones
    task = replay_task(noisy, "test-iris", "F", 1, 2)
    from sklearn.datasets import load_iris
    clean = load_iris().target
    assert np.mean(task.y[task.grow] != clean[task.grow]) == pytest.approx(0.2, abs=0.05)
    assert (task.y[task.test] == clean[task.test]).all()


def test_replay_errors_name_what_is_missing(noisy):
    with pytest.raises(ObliqError, match="no algorithm labelled 'G'.*algorithms: P, F"):
        replay_task(noisy, "test-iris", "G")
    with pytest.raises(ObliqError, match="no repetition 5, fold 0"):
        replay_task(noisy, "test-iris", "F", 5, 0)
    with pytest.raises(ObliqError, match="meta.json: missing"):
        replay_task(noisy.parent, "test-iris", "F")


def test_plot_boundary_and_tree_replay_a_stored_task(write_config, tmp_path):
    out = tmp_path / "checker"
    path = write_config(f"""
        name: checker
        datasets: [checker2x2]
        algorithms: [{{name: cart-ap, label: C, params: {{max_depth: 3}}}}]
        protocol: {{name: kfold, folds: 2}}
        output: {out}
        """)
    run_experiment(load_config(path), progress=False)
    for kind in ("boundary", "tree"):
        base = tmp_path / kind
        result = CliRunner().invoke(main, ["plot", kind, "--results", str(out), "--dataset",
                                           "checker2x2", "--algorithm", "C", "--fold", "1",
                                           "-o", str(base)])
        assert result.exit_code == 0, result.output
        assert (tmp_path / f"{kind}.png").stat().st_size > 0
    result = CliRunner().invoke(main, ["plot", "tree", "--results", str(out), "--dataset",
                                       "checker2x2", "--algorithm", "C", "--param",
                                       "max_depth=2"])
    assert result.exit_code == 2 and "--results replays a stored task" in result.output
