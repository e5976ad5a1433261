"""`obliq run` with estimators obliq does not own: a pipeline's rows are the same at -j 1 and
-j 2 (fork, and loky in the slow set) and replay exactly; a class of an ``imports:`` file is
named by the file's stem in every worker; what an estimator prints goes to the log (-v),
never to the table; an estimator's own KeyboardInterrupt is its task's error while the
user's Ctrl-C (obliq's Interrupt) still stops the run."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import invoke, rows_without_times

from obliq_cli import interrupts
from obliq_cli.config import load_config
from obliq_cli.errors import Interrupt
from obliq_cli.experiment import fit, plan
from obliq_cli.experiment.replay import replay_task
from obliq_cli.experiment.seeds import rng_for

MINE = '''import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.tree import DecisionTreeClassifier


class Chatty(ClassifierMixin, BaseEstimator):
    """A tree that greets in fit."""

    def __init__(self, max_depth=2, random_state=None):
        self.max_depth = max_depth
        self.random_state = random_state

    def fit(self, X, y):
        print("hello from Chatty.fit")
        self.tree_ = DecisionTreeClassifier(max_depth=self.max_depth,
                                            random_state=self.random_state).fit(X, y)
        self.classes_ = self.tree_.classes_
        return self

    def predict(self, X):
        return self.tree_.predict(X)
'''

CONFIG = """
name: ext
seed: 5
imports: [mine.py]
datasets: [iris, wine]
algorithms:
  - pipeline:
      - {{estimator: sklearn.preprocessing.StandardScaler}}
      - estimator: sklearn.decomposition.PCA
        params: {{n_components: 2, svd_solver: randomized}}
      - {{estimator: sklearn.ensemble.RandomForestClassifier, params: {{n_estimators: 5}}}}
    label: scaled RF
    dataset_params: {{wine: {{randomforestclassifier__max_depth: 3}}}}
  - {{estimator: mine.Chatty, label: chatty}}
protocol: {{name: kfold, folds: 2, repeats: 2}}
output: {out}
"""


def _run(tmp_path, name, *options, verbose=False):
    (tmp_path / "mine.py").write_text(MINE)
    path = tmp_path / f"{name}.yaml"
    path.write_text(CONFIG.format(out=tmp_path / name))
    result, lines = invoke(["-v"] * verbose + ["run", path, "--no-progress", *options])
    assert result.exit_code == 0, result.output
    return tmp_path / name, result


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("external-runs")
    one, result = _run(base, "j1", "-j", "1", verbose=True)
    two, _ = _run(base, "fork", "-j", "2", "--backend", "fork")
    return {"j1": one, "fork": two, "base": base, "result": result}


@pytest.mark.slow
def test_pipeline_and_imports_class_rows_are_the_same_at_j1_and_j2(runs):
    one = rows_without_times(runs["j1"] / "runs.csv")
    assert len(one) == 16 and {r["status"] for r in one.values()} == {"ok"}
    assert {r["algorithm_name"] for r in one.values()} == {"sklearn.pipeline.Pipeline",
                                                           "mine.Chatty"}
    assert rows_without_times(runs["fork"] / "runs.csv") == one


@pytest.mark.slow
def test_each_pipeline_step_is_seeded_and_the_task_replays_exactly(runs):
    row = next(r for r in rows_without_times(runs["j1"] / "runs.csv").values()
               if r["algorithm"] == "scaled RF" and r["dataset"] == "wine"
               and r["repetition"] == "1" and r["fold"] == "0")
    task = replay_task(runs["j1"], "wine", "scaled RF", 1, 0)
    steps = task.estimator.named_steps
    seed = int(rng_for(5, "wine", 1, 0, "scaled RF").integers(2**31 - 1))
    assert steps["pca"].random_state == steps["randomforestclassifier"].random_state == seed
    assert steps["randomforestclassifier"].max_depth == 3  # wine's own value
    accuracy = 100.0 * np.mean(task.estimator.predict(task.X[task.test]) == task.y[task.test])
    assert accuracy == float(row["test_accuracy"])
    stored = json.loads((runs["j1"] / "meta.json").read_text())["config"]["algorithms"][0]
    assert stored["estimator"] == "sklearn.pipeline.Pipeline"
    assert [s["estimator"] for s in stored["params"]["steps"]] == [
        "sklearn.preprocessing.StandardScaler", "sklearn.decomposition.PCA",
        "sklearn.ensemble.RandomForestClassifier"]


def test_what_an_estimator_prints_goes_to_the_log_not_the_table(runs):
    result = runs["result"]
    assert "hello from Chatty.fit" not in result.stdout
    assert "| iris" in result.stdout  # the table itself is there
    debug = [line for line in result.stderr.splitlines() if "hello from Chatty.fit" in line]
    assert debug and all(line.startswith("debug: ") for line in debug)
    assert any("(chatty) printed: hello from Chatty.fit" in line for line in debug)


@pytest.mark.slow
def test_loky_workers_import_the_imports_file_and_give_the_same_rows(runs):
    loky, _ = _run(runs["base"], "loky", "-j", "2", "--backend", "loky")
    assert rows_without_times(loky / "runs.csv") == rows_without_times(runs["j1"] / "runs.csv")


def _one_task(tmp_path, entry: str):
    path = tmp_path / "one.yaml"
    path.write_text(f"name: one\ndatasets: [iris]\nalgorithms: [{entry}]\n"
                    f"protocol: {{name: kfold, folds: 2}}\noutput: {tmp_path / 'out'}\n")
    tasks, _, _ = plan.plan(load_config(path))
    return tasks[0]


def test_an_estimators_own_keyboard_interrupt_is_its_tasks_error(tmp_path, monkeypatch):
    task = _one_task(tmp_path, "{estimator: sklearn.tree.DecisionTreeClassifier}")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(fit, "fit_task", interrupted)
    with interrupts.handled():  # as in obliq run: obliq's handler marks the user's Ctrl-C
        row = fit.run_task(task)
    assert row["status"] == "error" and row["error"] == "KeyboardInterrupt"

    def sys_exit(*args, **kwargs):
        raise SystemExit(0)

    monkeypatch.setattr(fit, "fit_task", sys_exit)
    row = fit.run_task(task)
    assert row["status"] == "error" and row["error"] == "SystemExit: 0"

    def users_ctrl_c(*args, **kwargs):
        raise Interrupt()

    monkeypatch.setattr(fit, "fit_task", users_ctrl_c)
    with pytest.raises(Interrupt):
        fit.run_task(task)


SLEEPER = '''import time
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class Sleeper(ClassifierMixin, BaseEstimator):
    """Passes the trial (5 rows predicted), then sleeps in a task's predict."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        if len(X) > 5:
            time.sleep(60)
        return np.full(len(X), self.classes_[0])
'''


@pytest.mark.slow
@pytest.mark.parametrize("signum, code, how", [(2, 130, "interrupted"),
                                               (15, 143, "terminated")])
def test_the_users_ctrl_c_inside_an_estimators_code_still_stops_the_run(tmp_path, signum,
                                                                        code, how):
    """A real `obliq run -j 1` whose task sleeps in the estimator's predict: SIGINT or
    SIGTERM there is the user's (obliq's Interrupt), not the task's error."""
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "sleeper.py").write_text(SLEEPER)
    (tmp_path / "e.yaml").write_text(
        "name: e\nimports: [sleeper.py]\ndatasets: [iris]\n"
        "algorithms: [{estimator: sleeper.Sleeper}]\nprotocol: {name: kfold, folds: 2}\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "obliq_cli", "run", "e.yaml", "-o", "out", "--no-progress",
         "-j", "1"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 60
    while not (tmp_path / "out" / "runs.csv").exists() and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)  # inside the first task's predict
    proc.send_signal(signum)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == code, out
    assert out.splitlines() == [f"error: {how}: 0 task(s) finished and kept in "
                                f"out/runs.csv; --resume continues"]
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert meta["history"][-1]["outcome"] == how
