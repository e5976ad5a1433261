"""obliq_cli.algorithms.external on classes that misbehave, and its pipelines: every failure
of code obliq does not own is one ObliqError line (SystemExit and a KeyboardInterrupt of
its own included), never the user's Ctrl-C swallowed; NaN and infinities are refused;
pipeline steps are seeded as a single estimator is; prints go to the log."""

from __future__ import annotations

import logging
import signal
import sys
import threading

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from obliq_cli import interrupts, logs
from obliq_cli.algorithms import external
from obliq_cli.config import AlgorithmSpec
from obliq_cli.errors import Interrupt, ObliqError, Terminated
from obliq_cli.experiment import fit, trial
from obliq_cli.experiment.seeds import rng_for


class Plain(ClassifierMixin, BaseEstimator):
    """A third-party classifier: no _parameter_constraints, no _validate_params."""

    def __init__(self, k=1, rate=0.5):
        self.k = k
        self.rate = rate

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


class Refuses(Plain):
    def __init__(self, k=1, rate=0.5):
        if k < 0:
            raise ValueError("k must be >= 0")
        super().__init__(k, rate)


class Alters(Plain):
    """Breaks scikit-learn's contract: __init__ changes a parameter (clone says so)."""

    def __init__(self, k=1, rate=0.5):
        super().__init__(k * 2, rate)


class Exits(Plain):
    def fit(self, X, y):
        sys.exit(3)


def test_a_class_without_parameter_constraints_is_checked_by_get_params_and_clone():
    assert not hasattr(Plain(), "_parameter_constraints")
    assert external.check_params(Plain, {"k": 3, "rate": 0.1}) is None
    assert external.check_params(Plain, {"kk": 3}) == (
        "kk", "Plain has no parameter 'kk' (did you mean 'k'?)")


@pytest.mark.parametrize("value, shown", [(float("inf"), "inf"), (float("-inf"), "-inf"),
                                          (float("nan"), "nan"), ([1.0, float("nan")], "nan"),
                                          ({"a": [float("inf")]}, "inf")])
def test_non_finite_values_are_refused_by_name(value, shown):
    assert external.check_params(Plain, {"rate": value}) == (
        "rate", f"must be a finite number (got {shown})")


def test_init_and_clone_failures_are_one_line():
    assert external.check_params(Refuses, {"k": 2}) is None
    with pytest.raises(ObliqError) as caught:
        external.check_params(Refuses, {"k": -1})
    assert str(caught.value) == "Refuses(**params) failed (ValueError: k must be >= 0)"
    with pytest.raises(ObliqError) as caught:
        external.check_params(Alters, {"k": 2})
    assert str(caught.value).startswith("sklearn.base.clone of Alters failed (RuntimeError: ")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("raised, shown", [(SystemExit(0), "SystemExit: 0"),
                                           (SystemExit(3), "SystemExit: 3"),
                                           (KeyboardInterrupt(), "KeyboardInterrupt"),
                                           (ZeroDivisionError("x"), "ZeroDivisionError: x")])
def test_running_turns_what_user_code_raises_into_one_line(raised, shown, monkeypatch):
    monkeypatch.setattr(signal, "getsignal", lambda signum: interrupts._raise)  # obliq run's
    with pytest.raises(ObliqError) as caught:
        with external.running("fit of X"):
            raise raised
    assert str(caught.value) == f"fit of X failed ({shown})"


@pytest.mark.parametrize("signal_raised", [Interrupt(), Terminated()])
def test_the_users_ctrl_c_goes_through(signal_raised):
    with pytest.raises(type(signal_raised)):
        with external.running("fit of X"):
            raise signal_raised


def test_from_signal_tells_the_users_ctrl_c_from_user_code(monkeypatch):
    assert interrupts.from_signal(Interrupt()) and interrupts.from_signal(Terminated())
    assert not interrupts.from_signal(SystemExit(0))
    # Python's own handler raises a plain KeyboardInterrupt: a signal's, to be safe
    monkeypatch.setattr(signal, "getsignal", lambda signum: signal.default_int_handler)
    assert interrupts.from_signal(KeyboardInterrupt())
    # obliq's handler marks what it raises; ignored SIGINT (a worker) raises nothing
    for handler in (interrupts._raise, signal.SIG_IGN):
        monkeypatch.setattr(signal, "getsignal", lambda signum, h=handler: h)
        assert not interrupts.from_signal(KeyboardInterrupt())
    # no signal reaches another thread
    monkeypatch.setattr(signal, "getsignal", lambda signum: signal.default_int_handler)
    seen = []
    thread = threading.Thread(target=lambda: seen.append(
        interrupts.from_signal(KeyboardInterrupt())))
    thread.start()
    thread.join()
    assert seen == [False]


def test_a_module_that_prints_on_import_gives_one_line_and_the_log(capsys, caplog):
    sys.modules.pop("this", None)
    with caplog.at_level(logging.DEBUG, logger="obliq"):
        with pytest.raises(ObliqError) as caught:
            external.estimator_class("this.Nope")
    assert str(caught.value) == "module this has no 'Nope'"
    assert capsys.readouterr().out == ""
    assert any("importing this printed: The Zen of Python" in r.getMessage()
               for r in caplog.records)


def test_captured_keeps_each_threads_prints_apart_and_restores_stdout(caplog):
    before = sys.stdout
    barrier = threading.Barrier(2)

    def chat(name):
        with logs.captured(name):
            barrier.wait()
            print(f"from {name}")
            barrier.wait()

    with caplog.at_level(logging.DEBUG, logger="obliq"):
        threads = [threading.Thread(target=chat, args=(n,)) for n in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sys.stdout is before
    assert sorted(r.getMessage() for r in caplog.records) == ["a printed: from a",
                                                             "b printed: from b"]


STEPS = [{"estimator": "sklearn.preprocessing.StandardScaler", "params": {}},
         {"estimator": "sklearn.decomposition.PCA", "params": {"n_components": 2}},
         {"estimator": "sklearn.ensemble.BaggingClassifier", "params": {"n_estimators": 3}}]


def test_every_pipeline_step_with_a_random_state_gets_the_tasks_seed():
    pipeline = external.make(external.PIPELINE, {"steps": STEPS})
    assert [name for name, _ in pipeline.steps] == ["standardscaler", "pca",
                                                    "baggingclassifier"]
    names = (4, "iris", 1, 2, "P")
    external.seed(pipeline, rng_for(*names))
    expected = int(rng_for(*names).integers(2**31 - 1))  # as a single estimator gets it
    params = pipeline.get_params()
    assert params["pca__random_state"] == params["baggingclassifier__random_state"] == expected
    assert "standardscaler__random_state" not in params
    assert params["baggingclassifier__estimator"] is None  # inner ones: the step's business
    single = external.make("sklearn.ensemble.RandomForestClassifier", {})
    external.seed(single, rng_for(*names))
    assert single.random_state == expected


def test_a_pipelines_dataset_params_set_its_steps():
    pipeline = external.make(external.PIPELINE, {"steps": STEPS, "pca__n_components": 1})
    assert pipeline.named_steps["pca"].n_components == 1
    assert external.pipeline_label(STEPS) == "StandardScaler+PCA+BaggingClassifier"
    assert external.paths(external.PIPELINE, {"steps": STEPS}) == [s["estimator"]
                                                                  for s in STEPS]


def test_pipeline_is_not_an_estimator_path():
    with pytest.raises(ObliqError, match="is written pipeline:"):
        external.estimator_class(external.PIPELINE)


def _split(n):
    """(grow rows, test rows) of a task on the first n rows: half and half."""
    rows = np.arange(n)
    return rows[: n // 2], rows[n // 2:]


def _data(n=200):
    X = np.random.default_rng(0).normal(size=(n, 3))
    return X, (X[:, 0] > 0).astype(int), {"name": "t", "feature_names": ["a", "b", "c"]}


def test_the_trial_refuses_what_the_smallest_task_cannot_fit():
    """k-NN with more neighbours than rows: refused at 60 training rows, not at 100 (the
    40-row draw fails for 50 neighbours too: the trial then fits all 100 and passes)."""
    X, y, info = _data()
    knn = "sklearn.neighbors.KNeighborsClassifier"
    small = [_split(120), _split(200)]  # the smallest task grows on 60 rows
    spec = AlgorithmSpec(knn, "knn", {"n_neighbors": 61}, estimator=knn)
    reason = trial.failure(fit.fit_task, spec, "t", X, y, info, small, 0)
    assert reason.startswith("a trial fit on 60 training rows (its smallest task's) failed: "
                             "ValueError: Expected n_neighbors <= n_samples_fit")
    ok = AlgorithmSpec(knn, "knn", {"n_neighbors": 50}, estimator=knn)
    assert trial.failure(fit.fit_task, ok, "t", X, y, info, [_split(200)], 0) is None


def test_the_trial_reports_an_exit_and_lets_the_users_ctrl_c_through(monkeypatch):
    X, y, info = _data()
    spec = AlgorithmSpec("x.Exits", "E", {}, estimator="x.Exits")
    monkeypatch.setattr(AlgorithmSpec, "make_estimator", lambda self, dataset=None: Exits())
    assert trial.failure(fit.fit_task, spec, "t", X, y, info, [_split(100)], 0).endswith(
        "failed: SystemExit: 3")

    def stopped(*args, **kwargs):
        raise Interrupt()

    with pytest.raises(Interrupt):
        trial.failure(stopped, spec, "t", X, y, info, [_split(100)], 0)


def test_provenance_names_each_pipeline_steps_package(tmp_path):
    from obliq_cli.config import load_config
    from obliq_cli.experiment import provenance

    path = tmp_path / "p.yaml"
    path.write_text("name: p\ndatasets: [iris]\nalgorithms:\n  - pipeline:\n"
                    "    - {estimator: sklearn.preprocessing.StandardScaler}\n"
                    "    - {estimator: obliq_cli.algorithms.sklearn_tree."
                    "CostComplexityTreeClassifier}\nprotocol: {name: kfold}\n")
    import sklearn

    estimators = provenance.collect(load_config(path))["estimators"]
    assert set(estimators) == {"sklearn", "obliq_cli"}  # the pipeline's own: sklearn's
    assert estimators["sklearn"] == sklearn.__version__
