"""One task's fit: its estimator made, grown and pruned on its split, measured into its
runs.csv row (``run_task``). ``fit_task`` is the one place a task's tree is fitted: the
run's workers, ``replay`` (a stored task again, ``obliq fit/plot --results``) and
``obliq plot`` (a tree on every row) all call it, so the same names give the same tree.

Pruning rows: with a pruner, the tree grows on the protocol's grow part and the pruner
gets the held-out prune part (``X_prune=None`` when the protocol holds none out).
Without a pruner the held-out rows would be wasted, so the tree grows on grow ∪ prune;
``n_train`` records the rows it grew on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .. import interrupts, registry
from ..data.preprocess import Preprocessor
from ..errors import ObliqError, one_line
from ..logs import captured
from ..timing import Stopwatch
from . import limits
from .metrics import task_metrics
from .protocols import Split, flip_labels, take_count
from .seeds import rng_for
from .tasks import Task


def load_dataset_spec(spec):
    """``(X, y, info)`` of a DatasetSpec (memoised per process by ``registry.load_dataset``,
    so a worker parses a dataset once for all its tasks)."""
    return registry.load_dataset(spec.name, **spec.params)


@dataclass
class FittedTask:
    """One grown (and pruned) estimator: the rows it grew on, the rows its pruner got
    (empty when none), and the wall seconds (``fit_time``) and CPU seconds (``fit_cpu``,
    ``obliq_cli.timing``) fit + prune took; ``X`` is every row as the estimator takes it
    (``preprocess`` applied: the loaded X itself when it does nothing)."""

    estimator: object
    grow: np.ndarray
    prune: np.ndarray
    fit_time: float
    X: np.ndarray = None
    preprocess: Preprocessor = None
    fit_cpu: float = float("nan")


def make_task_estimator(algo, dataset_label: str, info: dict, names: tuple):
    """A new estimator of AlgorithmSpec ``algo`` as a task makes it: this dataset's
    parameters, ``random_state`` from ``rng_for(*names)`` (obliq's algorithms take the
    Generator; a scikit-learn classifier named by ``estimator:`` an int drawn from it,
    since scikit-learn takes no Generator), ``n_threads=1`` where the config leaves it at
    None, and the dataset's qualitative columns when the algorithm handles them and the
    config leaves it to the runner."""
    estimator = algo.make_estimator(dataset_label)
    params = estimator.get_params()
    if algo.estimator is not None:  # its own random_state, or each pipeline step's
        registry.external_estimators().seed(estimator, rng_for(*names))
    elif "random_state" in params:
        estimator.set_params(random_state=rng_for(*names))
    if "n_threads" in params and params["n_threads"] is None:
        # A task's fit on one thread unless the config says otherwise: its fit_cpu counts
        # every thread's work, and threads add their handoffs to it (OC1's large nodes:
        # about a fifth more CPU on two threads) without shortening it, so the timing
        # columns would change with the run's -j. The run spreads tasks over cores (-j).
        estimator.set_params(n_threads=1)
    if params.get("categorical_features", False) is None and info.get("categorical"):
        # Algorithms that handle qualitative features learn which columns are.
        estimator.set_params(categorical_features=list(info["categorical"]))
    return estimator


def weight_keyword(estimator) -> str | None:
    """The ``fit`` keyword that gives ``estimator`` (an algorithm entry's, as
    ``make_task_estimator`` makes it) its rows' weights, or None when it reads none:
    every obliq algorithm takes ``sample_weight`` (README, Weights); a scikit-learn
    estimator or pipeline as
    ``external.sample_weight_key`` finds it (``has_fit_parameter``, a pipeline's last
    step). A declared failure of scikit-learn's weight-equivalence check does not mean
    weights are ignored (the SVM's inner folds, UMT's validation quarter)."""
    return registry.external_estimators().sample_weight_key(estimator)


def grow_and_prune_rows(pruner, train: np.ndarray, prune: np.ndarray):
    """(rows to grow on, rows for the pruner) for PrunerSpec ``pruner`` (or None).

    Without a pruner that reads them the held-out pruning rows would be wasted: the tree
    grows on them too (test rows are shared, so paired tests stay valid)."""
    uses_prune_set = pruner is not None and registry.pruner_entry(
        pruner.name).extra.get("uses_prune_set", True)
    if not uses_prune_set:
        grow = np.concatenate([train, prune]) if prune.size else train
        return grow, prune[:0]
    return train, prune


def prune_task_estimator(estimator, pruner, X, y, grow: np.ndarray, prune: np.ndarray,
                         names: tuple, sample_weight=None):
    """Apply PrunerSpec ``pruner`` to a fitted ``estimator`` as a task does (seeded from
    ``rng_for(*names, "pruner")``, ``X_prune=None`` when no rows are held out).
    ``sample_weight`` (one per row of ``X``, or None): the growing rows' weights go to
    the pruner as ``sample_weight``, the pruning rows' as ``prune_weight``
    (``pruning.weights`` says what each row then weighs); None passes neither."""
    prune_fn = registry.get_pruner(pruner.name)
    X_p = X[prune] if prune.size else None
    y_p = y[prune] if prune.size else None
    weighed = {}
    if sample_weight is not None:
        weighed = {"sample_weight": sample_weight[grow],
                   "prune_weight": sample_weight[prune] if prune.size else None}
    return prune_fn(estimator, X[grow], y[grow], X_p, y_p,
                    random_state=rng_for(*names, "pruner"), **pruner.params, **weighed)


def fit_task(algo, dataset_label: str, X, y, info: dict, train: np.ndarray,
             prune: np.ndarray, names: tuple, sample_weight=None) -> FittedTask:
    """Make, grow and prune one estimator exactly as an experiment's task does.

    ``sample_weight`` (one per row of ``X``, or None): the rows' weights, given to the
    fit for the growing rows and to the pruner for both parts (``prune_task_estimator``).

    ``names`` key every random draw (``rng_for``): a task passes (seed, dataset label,
    repetition, fold, algorithm label); ``obliq plot`` passes its own names, so the same
    names give the same tree wherever it is fitted.
    """
    estimator = make_task_estimator(algo, dataset_label, info, names)
    grow, prune = grow_and_prune_rows(algo.pruner, train, prune)
    # missing values and nominal columns (data/preprocess.py), learned on the grow rows only
    prep = Preprocessor.for_task(estimator, info, X.shape[1], algo.missing, algo.nominal)
    if prep.needs_fit:
        prep.fit(X[grow])
    X = prep.transform(X)
    weighed = {}
    if sample_weight is not None:
        key = weight_keyword(estimator)
        if key is None:  # the plan refuses this before a run (plan._check_weights)
            raise ObliqError(f"{algo.label}: its fit takes no sample_weight")
        weighed = {key: sample_weight[grow]}
    watch = Stopwatch()
    estimator.fit(X[grow], y[grow], **weighed)
    if algo.pruner is not None:
        estimator = prune_task_estimator(estimator, algo.pruner, X, y, grow, prune, names,
                                         sample_weight)
    wall, cpu = watch.read()
    return FittedTask(estimator, grow, prune, wall, X, prep, cpu)


def task_labels(seed: int, dataset_label: str, split: Split, label_noise, y):
    """The labels a task learns from: ``y`` with the protocol's label noise on its grow and
    prune rows (the same flips for every algorithm: the stream is keyed without it)."""
    if not label_noise:
        return y
    rng = rng_for(seed, dataset_label, split.repetition, split.fold, "noise")
    return flip_labels(y, np.concatenate([split.train, split.prune]), label_noise, rng)


WARM_ROWS = 200
"""The training rows (a stratified draw from the task's) of the untimed fit that warms an
algorithm's kernels (``warm_up``): a root and a few levels below it call every kernel
that a fit calls, and at this size the warm-up costs little beside one task."""
WARM_TEST_ROWS = 50

_warmed: set = set()  # (algorithm name, label, pruner name) warmed in this process


def _obliq_own(algo) -> bool:
    """Whether AlgorithmSpec ``algo`` and its pruner are obliq's own (modules of
    obliq_cli), not a plugin's or a scikit-learn ``estimator:``."""
    if algo.estimator is not None:
        return False
    objs = [registry.algorithm_entry(algo.name).obj]
    if algo.pruner is not None:
        objs.append(registry.pruner_entry(algo.pruner.name).obj)
    return all(getattr(obj, "__module__", "").split(".")[0] == "obliq_cli" for obj in objs)


def warm_up(task: Task, y: np.ndarray) -> None:
    """Run ``task`` once, untimed, on a few of its rows (``WARM_ROWS``, drawn per class
    from its training part, and from its prune and test parts), the first time this
    process meets its algorithm (name, label and pruner): numba compiles the kernels an
    algorithm calls on their first call in a process (minutes of CPU on a fresh clone),
    or loads them from its cache (tenths of a second), work a run pays once per worker
    and that is not the fit's, so it is kept out of every task's ``fit_cpu`` and
    ``fit_time`` (and ``predict_time``: the warm-up predicts too).

    Only obliq's own algorithms and pruners are warmed: a plugin or a scikit-learn
    estimator may do anything in a fit, which would then happen once more. The warm-up's
    row is dropped; its draws come from ``rng_for`` like the task's own, so no stored row
    depends on whether or in which order a process warmed up."""
    algo = task.algorithm
    key = (algo.name, algo.label, algo.pruner.name if algo.pruner else "")
    if key in _warmed or not _obliq_own(algo):
        return
    _warmed.add(key)  # first: the warm-up's own run_task must not warm up again
    split = task.split
    rng = rng_for(task.seed, task.dataset.label, split.repetition, split.fold, "warm-up")

    def draw(rows: np.ndarray, count: int) -> np.ndarray:
        if rows.size == 0:  # no prune part
            return rows
        return take_count(rows, y, min(count, rows.size), True, rng)[1]

    small = replace(split, train=draw(split.train, WARM_ROWS),
                    prune=draw(split.prune, WARM_ROWS // 10),
                    test=draw(split.test, WARM_TEST_ROWS))
    # no time limit: a fresh clone compiles the kernels here, which is not the task's time
    run_task(replace(task, split=small, timeout=None))


def run_task(task: Task) -> dict:
    """Grow (and prune) one tree on one split and measure it; never raises. The first
    task of an algorithm in a process warms its kernels first (``warm_up``). An "ok" row
    carries its test predictions under ``predictions.KEY`` (not a column: the runs
    writer stores them in a file of their own). With the config's ``timeout:``, the fit
    and its measurement past that many seconds fail the task ("timeout after N s",
    ``limits.within``)."""
    split, algo = task.split, task.algorithm
    row = dict(task=task.identity, config_hash=task.config_hash, dataset=task.dataset.label,
               repetition=split.repetition, fold=split.fold, algorithm=algo.label)
    row.update(algorithm_name=algo.name, pruner=algo.pruner.name if algo.pruner else "",
               n_train=int(split.train.size), n_prune=int(split.prune.size),
               n_test=int(split.test.size))
    try:
        for module in task.modules:
            registry.import_plugin(module)
        X, y, info = load_dataset_spec(task.dataset)
        warm_up(task, y)
        y = task_labels(task.seed, task.dataset.label, split, task.label_noise, y)
        names = (task.seed, task.dataset.label, split.repetition, split.fold, algo.label)

        def measure():
            with captured(f"task {task.identity} ({algo.label})"):  # prints: the log's
                fitted = fit_task(algo, task.dataset.label, X, y, info, split.train,
                                  split.prune, names, info.get("sample_weight"))
                grow = fitted.grow
                # the test predictions ride along for the writer to store (predictions.py)
                return fitted, task_metrics(
                    fitted.estimator, fitted.X[grow], y[grow], fitted.X[split.test],
                    y[split.test], task.extra_metrics, keep_predictions=True)

        fitted, measured = limits.within(task.timeout, measure)  # the config's timeout:
        row.update(measured)
        row.update(status="ok", error="", fit_time=fitted.fit_time, fit_cpu=fitted.fit_cpu,
                   n_train=int(fitted.grow.size), n_prune=int(fitted.prune.size))
    except BaseException as exc:  # a failing task is recorded; the run goes on
        # an estimator's own sys.exit() or KeyboardInterrupt too (which once ended -j 1
        # with exit 0 and no rows, and hung the fork pool); the user's Ctrl-C stops the run
        if interrupts.from_signal(exc):
            raise
        row.update(status="error", error=str(exc) if isinstance(exc, limits.TaskTimeout)
                   else one_line(exc))
    return row
