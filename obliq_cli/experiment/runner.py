"""Running an experiment: tasks = dataset x repetition x fold x algorithm.

Everything that can be checked is checked before a byte is written (config, datasets,
splits, estimators, the dask scheduler), so bad input leaves no half-written results.
Then each finished task is appended at once to ``runs.csv`` by the parent process, so an
interrupted run loses only the tasks in flight and ``--resume`` skips what is done. The
runner knows no algorithm: it asks the registry for estimators and pruners by name.

Reproducibility: every random draw comes from ``seeds.rng_for`` keyed by names (seed,
dataset label, repetition, fold, algorithm label), never from task order, so runs.csv
holds the same rows (all columns but the times) for any ``n_jobs``, backend or order of
completion; rows are written in completion order and readers sort by key.

Pruning rows: with a pruner, the tree grows on the protocol's grow part and the pruner
gets the held-out prune part (``X_prune=None`` when the protocol holds none out).
Without a pruner the held-out rows would be wasted, so the tree grows on grow ∪ prune;
``n_train`` records the rows it grew on.

Resume: rows are keyed by task identity (``tasks.task_identity``): a task whose latest
row is "ok" is skipped; an "error" row is run again and the new row appended, so the file
may hold several rows for one task and readers keep the last one. A config may grow
between runs (algorithms, datasets, repetitions); see ``results`` for what is refused.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import logging
import os
import platform
import socket
import subprocess
import sys
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from .. import interrupts, registry, safe_io
from ..config import dataset_facts
from ..data.preprocess import (
    Preprocessor,
    check_missing_support,
    encoding_for,
    missing_policy,
)
from ..errors import Interrupted, ObliqError, Terminated, naming_file
from ..errors import one_line as _one_line
from ..logs import captured
from ..timing import Stopwatch
from ..version import __version__
from . import provenance, results, trial
from .backends import BACKENDS, FORK_AVAILABLE
from .children import sigint_ignored, signals_blocked, worker_setup
from .metrics import METRICS, task_metrics
from .protocols import Split, flip_labels, fold_record, make_splits, take_count
from .schema import RUN_COLUMNS
from .seeds import rng_for
from .tasks import IDENTITIES, SKIPPED, Task, identities, unplanned_identities

log = logging.getLogger("obliq")


@dataclass
class RunSummary:
    """What a run did: ``total`` tasks, ``skipped`` (done before, --resume), ``ran`` now,
    and one line per failed task."""

    output: Path
    total: int
    skipped: int
    ran: int = 0
    failed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. damaged lines set aside


def load_dataset_spec(spec):
    """``(X, y, info)`` of a DatasetSpec (memoised per process by ``registry.load_dataset``,
    so a worker parses a dataset once for all its tasks)."""
    return registry.load_dataset(spec.name, **spec.params)


def _plugin_modules(config) -> tuple[str, ...]:
    """Modules outside obliq_cli whose import registers a name the config uses."""
    objs = [registry.dataset_entry(d.name).obj for d in config.datasets]
    files = set()
    for algo in config.algorithms:
        if algo.estimator is not None:  # imported by its dotted path wherever it is made,
            adapter = registry.external_estimators()  # a class of an imports: file after it
            files.update(adapter.plugin_file(path) for path in adapter.paths(
                algo.estimator, algo.params))
            continue
        objs.append(registry.algorithm_entry(algo.name).obj)
        if algo.pruner is not None:
            objs.append(registry.pruner_entry(algo.pruner.name).obj)
    # the config's registered metrics are measured by every task (in the workers too)
    objs += [METRICS[m].compute for m in config.metrics
             if m in METRICS and METRICS[m].compute is not None]
    modules = {getattr(obj, "__module__", "") or "" for obj in objs} | (files - {None})
    # a plugin loaded from a file (a config's imports) travels as its path
    return tuple(sorted(registry.plugin_ref(m) for m in modules
                        if m and m != "__main__" and m.split(".")[0] != "obliq_cli"))


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
    since scikit-learn takes no Generator), and the dataset's qualitative columns when the
    algorithm handles them and the config leaves it to the runner."""
    estimator = algo.make_estimator(dataset_label)
    params = estimator.get_params()
    if algo.estimator is not None:  # its own random_state, or each pipeline step's
        registry.external_estimators().seed(estimator, rng_for(*names))
    elif "random_state" in params:
        estimator.set_params(random_state=rng_for(*names))
    if params.get("categorical_features", False) is None and info.get("categorical"):
        # Algorithms that handle qualitative features learn which columns are.
        estimator.set_params(categorical_features=list(info["categorical"]))
    return estimator


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
                         names: tuple):
    """Apply PrunerSpec ``pruner`` to a fitted ``estimator`` as a task does (seeded from
    ``rng_for(*names, "pruner")``, ``X_prune=None`` when no rows are held out)."""
    prune_fn = registry.get_pruner(pruner.name)
    X_p = X[prune] if prune.size else None
    y_p = y[prune] if prune.size else None
    return prune_fn(estimator, X[grow], y[grow], X_p, y_p,
                    random_state=rng_for(*names, "pruner"), **pruner.params)


def fit_task(algo, dataset_label: str, X, y, info: dict, train: np.ndarray,
             prune: np.ndarray, names: tuple) -> FittedTask:
    """Make, grow and prune one estimator exactly as an experiment's task does.

    ``names`` key every random draw (``rng_for``): a task passes (seed, dataset label,
    repetition, fold, algorithm label); ``obliq plot`` passes its own names, so the same
    names give the same tree wherever it is fitted.
    """
    estimator = make_task_estimator(algo, dataset_label, info, names)
    grow, prune = grow_and_prune_rows(algo.pruner, train, prune)
    # missing values and nominal columns (data/preprocess.py), learned on the grow rows only
    prep = Preprocessor.for_task(estimator, info, X.shape[1], algo.missing)
    if prep.needs_fit:
        prep.fit(X[grow])
    X = prep.transform(X)
    watch = Stopwatch()
    estimator.fit(X[grow], y[grow])
    if algo.pruner is not None:
        estimator = prune_task_estimator(estimator, algo.pruner, X, y, grow, prune, names)
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
    run_task(replace(task, split=small))


def run_task(task: Task) -> dict:
    """Grow (and prune) one tree on one split and measure it; never raises. The first
    task of an algorithm in a process warms its kernels first (``warm_up``)."""
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
        with captured(f"task {task.identity} ({algo.label})"):  # prints: the log's
            fitted = fit_task(algo, task.dataset.label, X, y, info, split.train,
                              split.prune, names)
            grow, prune, X = fitted.grow, fitted.prune, fitted.X
            row.update(task_metrics(fitted.estimator, X[grow], y[grow], X[split.test],
                                    y[split.test], task.extra_metrics))
        row.update(status="ok", error="", fit_time=fitted.fit_time, fit_cpu=fitted.fit_cpu,
                   n_train=int(grow.size), n_prune=int(prune.size))
    except BaseException as exc:  # a failing task is recorded; the run goes on
        # an estimator's own sys.exit() or KeyboardInterrupt too (which once ended -j 1
        # with exit 0 and no rows, and hung the fork pool); the user's Ctrl-C stops the run
        if interrupts.from_signal(exc):
            raise
        row.update(status="error", error=_one_line(exc))
    return row


@functools.lru_cache(maxsize=1)
def _versions() -> dict:
    """Python, numpy, scipy, scikit-learn, obliq versions and the git commit (asked once per
    process: a history entry each run)."""
    import numpy
    import scipy
    import sklearn

    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {"python": platform.python_version(), "numpy": numpy.__version__,
            "scipy": scipy.__version__, "scikit-learn": sklearn.__version__,
            "obliq": __version__, "git_commit": commit or None}


def _check_pruners(config) -> None:
    """Every pruner resolves (the config checked the names; this also covers configs
    built in code)."""
    for i, algo in enumerate(config.algorithms):
        if algo.pruner is not None and algo.estimator is not None:
            raise ObliqError(f"{config.path}: algorithms[{i}] ({algo.label}): an estimator: "
                             f"entry is not one of obliq's trees and cannot be pruned")
        if algo.pruner is not None:
            try:
                registry.get_pruner(algo.pruner.name)
            except ObliqError as exc:
                raise ObliqError(f"{config.path}: algorithms[{i}] ({algo.label}): "
                                 f"{exc}") from None


def _check_estimator(config, j: int, algo, label: str, info: dict, n_classes: int,
                     n_features: int, dataset_where: str) -> None:
    """The estimator of ``algo`` on dataset ``label``, made once before the run: its
    parameters there, whether it takes the dataset's missing values when they reach it
    (``missing: native``) and its fit to the data's classes and width
    (``check_n_classes``, ``check_n_features``); ObliqError naming the config and the
    algorithm (or the dataset, ``dataset_where``, for missing values) otherwise."""
    where = f"{config.path}: algorithms[{j}] ({algo.label}) on {label}"
    try:
        estimator = algo.make_estimator(label)
    except ObliqError as exc:
        raise ObliqError(f"{where}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ObliqError(f"{where}: {_one_line(exc)}") from None
    try:  # before the run: no task of it would get far
        check_missing_support(estimator, info, f"{algo.name!r} (algorithms[{j}])",
                              algo.missing)
    except ObliqError as exc:
        raise ObliqError(f"{dataset_where}: {exc}") from None
    try:
        if hasattr(estimator, "check_n_classes"):
            estimator.check_n_classes(n_classes)
        if hasattr(estimator, "check_n_features"):  # e.g. column indices in range
            estimator.check_n_features(n_features)
    except ObliqError as exc:
        raise ObliqError(f"{where}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ObliqError(f"{where}: {_one_line(exc)}") from None


def _check_pruner_rows(path: str, j: int, algo, dataset: str, splits) -> None:
    """The pruner's bounds that depend on the rows (``register_pruner(check_rows=...)``),
    checked on the smallest growing and pruning parts any task of ``dataset`` gets."""
    if algo.pruner is None:
        return
    check = registry.pruner_entry(algo.pruner.name).extra.get("check_rows")
    if check is None:
        return
    parts = [grow_and_prune_rows(algo.pruner, s.train, s.prune) for s in splits]
    problem = check(dict(algo.pruner.params), min(g.size for g, _ in parts),
                    min(p.size for _, p in parts))
    if problem:
        raise ObliqError(f"{path}: algorithms[{j}].pruner.params.{problem[0]} "
                         f"({algo.label}) on {dataset}: {problem[1]}")


def plan(config, labels=None) -> tuple[list[Task], dict[str, dict], dict[str, dict[str, str]]]:
    """Every task of the experiment, each dataset's fold record, and the cells its
    ``skip`` rules leave out (dataset label -> algorithm label -> reason); raises
    ObliqError naming the config file and field for anything that would fail. A skipped
    cell is not checked: a two-class method declared skipped on a multiclass set is no
    error. ``labels``: plan (load, split, check) only the datasets of these labels (a
    run of a piece of the config; None: all)."""
    _check_pruners(config)
    tasks: list[Task] = []
    records: dict[str, dict] = {}
    skipped: dict[str, dict[str, str]] = {}
    digest = config.hash()
    extra = tuple(m for m in config.metrics if m in METRICS and METRICS[m].column is None
                  and METRICS[m].compute is not None)
    modules = _plugin_modules(config)
    for module in modules:  # this config's imports: files are the ones estimator: names
        registry.import_plugin(module)
    for i, spec in enumerate(config.datasets):
        if labels is not None and spec.label not in labels:
            continue
        where = f"{config.path}: datasets[{i}] ({spec.label})"
        try:
            X, y, info = load_dataset_spec(spec)
        except ObliqError as exc:
            raise ObliqError(f"{where}: {exc}") from None
        except (ValueError, TypeError, LookupError, MemoryError) as exc:  # a loader's own
            raise ObliqError(f"{where}: cannot load it ({_one_line(exc)})") from None
        values = np.asarray(X, dtype=np.float64)
        # NaN is a missing value the dataset's policy fills or passes on (impute, native)
        bad = np.isinf(values) if info.get("missing") in ("impute", "native") \
            else ~np.isfinite(values)
        if bad.any():
            row = int(np.argwhere(bad)[0][0])
            raise ObliqError(f"{where}: the data has a missing or infinite value (row {row})"
                             f"; missing: impute, drop or native says what to do with gaps")
        if np.unique(y).size < 2:
            raise ObliqError(f"{where}: the data has a single class")
        try:
            splits = make_splits(spec.protocol or config.protocol, y, info, config.seed,
                                 spec.label)
        except ObliqError as exc:
            raise ObliqError(f"{config.path}: protocol: {exc}") from None
        records[spec.label] = fold_record(splits, len(y))
        n_classes = int(np.unique(y).size)
        facts = dataset_facts(X, y)
        running = []
        for j, algo in enumerate(config.algorithms):
            if not algo.runs_on(spec.label):
                continue
            reason = algo.skip_reason(spec.label, facts)
            if reason is not None:
                skipped.setdefault(spec.label, {})[algo.label] = reason
                continue
            _check_estimator(config, j, algo, spec.label, info, n_classes, X.shape[1], where)
            _check_pruner_rows(config.path, j, algo, spec.label, splits)
            if algo.estimator is not None:  # code obliq does not know: one trial fit
                parts = [(grow_and_prune_rows(algo.pruner, s.train, s.prune)[0], s.test)
                         for s in splits]
                trial.check(config, j, algo, spec.label, X, y, info, parts, fit_task)
            running.append(algo)
        pairs = [(split.repetition, split.fold) for split in splits]
        keys = {algo.label: identities(config, spec, algo, pairs) for algo in running}
        for k, split in enumerate(splits):
            for algo in running:
                tasks.append(Task(digest, config.seed, spec, algo, split,
                                  config.protocol.label_noise, modules,
                                  keys[algo.label][k], extra))
    return tasks, records, skipped


def select_tasks(config, tasks: list[Task], datasets=None, algorithms=None) -> list[Task]:
    """The tasks of the datasets and algorithms named (None: all), by label or by name as
    the config gives them (``obliq run --datasets a,b --algorithms x,y``); ObliqError
    naming the config's labels for a name it does not have. A subset runs exactly the
    tasks (and rows) a full run would: identities do not depend on the selection."""
    chosen_datasets = _chosen(config, "datasets", config.datasets, datasets)
    chosen_algorithms = _chosen(config, "algorithms", config.algorithms, algorithms)
    return [t for t in tasks if t.dataset.label in chosen_datasets
            and t.algorithm.label in chosen_algorithms]


def _chosen(config, option: str, specs, names) -> set[str]:
    """The labels of the ``specs`` that ``names`` select: each name a label, or a name
    (a registered algorithm's or dataset's, an estimator's dotted path or class name)
    that selects every entry of it."""
    labels = {spec.label for spec in specs}
    if names is None:
        return labels
    out: set[str] = set()
    for name in names:
        hits = {spec.label for spec in specs if name in (
            spec.label, spec.name, str(spec.name).rpartition(".")[2])}
        if not hits:
            known = ", ".join(spec.label for spec in specs)
            raise ObliqError(f"--{option}: {config.name} has no {option[:-1]} "
                             f"{name!r}{registry.suggest(str(name), sorted(labels))}; "
                             f"its {option}: {known}")
        out |= hits
    return out


def data_notes(config, labels=None) -> dict:
    """Per dataset label, what preprocessing its tasks get (data/preprocess.py): the
    missing-value policy, the rows ``drop`` removed and, where it has nominal columns,
    each algorithm's encoding of them (native, onehot or codes). Datasets with neither
    are left out, and so are those not in ``labels`` (None: all)."""
    notes = {}
    for spec in config.datasets:
        if labels is not None and spec.label not in labels:
            continue
        _, _, info = load_dataset_spec(spec)
        note = {}
        missing = info.get("missing") or "error"
        if missing != "error":
            note["missing"] = missing
            note["rows_dropped"] = int(info.get("rows_dropped") or 0)
            if missing == "drop":
                log.info("%s: %d incomplete row(s) dropped (missing: drop)", spec.label,
                         note["rows_dropped"])
            overrides = {algo.label: missing_policy(info, algo.missing)
                         for algo in config.algorithms if algo.runs_on(spec.label)
                         and missing_policy(info, algo.missing) != missing}
            if overrides:  # algorithms that take the gaps otherwise than the dataset says
                note["missing_by_algorithm"] = overrides
        if info.get("categorical"):
            note["nominal"] = {
                algo.label: encoding_for(algo.make_estimator(spec.label), info)
                for algo in config.algorithms if algo.runs_on(spec.label)}
        if note:
            notes[spec.label] = note
    return notes


def machine() -> dict:
    """The CPU model, its logical cores and the 1-minute load average as a run starts: run
    times in the docs (docs/results) are read against them, since the same config takes
    several times as long on a shared machine. Blank where the platform does not say."""
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info
                        if line.startswith("model name")), cpu)
    except OSError:
        pass
    try:
        load = round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        load = None
    return {"cpu": cpu, "cores": os.cpu_count(), "load_1min": load}


def _selection_notes(config, tasks, selected, skipped: dict, datasets, algorithms) -> list:
    """Notes on a run of a subset: how many of the config's tasks it leaves for later,
    and the chosen cells that a skip rule leaves out (none of their tasks exist)."""
    if datasets is None and algorithms is None:
        return []
    notes = [f"{len(selected)} of the {len(tasks)} tasks of the datasets planned "
             f"selected (--datasets / --algorithms); `obliq run {config.path} --resume` "
             f"without them runs the rest of the config into the same folder"]
    chosen_d = _chosen(config, "datasets", config.datasets, datasets)
    chosen_a = _chosen(config, "algorithms", config.algorithms, algorithms)
    for dataset, cells in skipped.items():
        for algorithm, reason in cells.items():
            if dataset in chosen_d and algorithm in chosen_a:
                notes.append(f"{algorithm} on {dataset}: skipped by the config ({reason})")
    return notes


def _history_entry(config, resume: bool, force: bool, n_jobs: int, backend: str,
                   total: int, skipped: int, labels=None) -> dict:
    """One invocation of ``obliq run`` in meta.json's history (finished when it ends)."""
    command = "run --resume" if resume else "run --force" if force else "run"
    entry = {"started": datetime.now(UTC).isoformat(), "finished": None, "command": command,
            "config_hash": config.hash(), "config_path": config.path,
            "tasks": {"total": total, "skipped": skipped, "ran": 0, "failed": 0},
            "n_jobs": n_jobs, "backend": backend, "host": socket.gethostname(),
            "pid": os.getpid(), "versions": _versions(), "machine": machine()}
    data = data_notes(config, labels)
    if data:  # missing values and nominal columns: what each algorithm got
        entry["data"] = data
    return entry


def _meta(config, meta: dict, tasks: list[Task], skipped: dict, planned: set) -> dict:
    """meta.json for this run: the latest config on top with the identities of its tasks
    (``tasks.stored_identities`` reads them) and the cells its skip rules leave out, with
    their reasons (``tasks.SKIPPED``); the history is kept as it is. A run of a piece
    plans only the ``planned`` datasets: the others' identities come from the config
    (``tasks.unplanned_identities``) and their skipped cells from the last meta.json when
    it holds the same config."""
    plain = config.to_dict()
    identities = {task.identity for task in tasks}
    skipped = dict(skipped)
    same = meta.get("config_hash") == config.hash()
    labels = {a.label for a in config.algorithms}
    for spec in config.datasets:
        if spec.label in planned:
            continue
        earlier = ((meta.get(SKIPPED) or {}).get(spec.label) or {}) if same else {}
        kept = {a: reason for a, reason in earlier.items() if a in labels}
        for algo in config.algorithms:
            reason = algo.skip_reason(spec.label, None) if algo.runs_on(spec.label) else None
            if reason is not None:
                kept.setdefault(algo.label, reason)
        if kept:
            skipped[spec.label] = kept
        identities |= unplanned_identities(config, spec, kept)
    meta = dict(meta)
    meta.update({"written_by": results.WRITER, "name": config.name,
                 "config_hash": config.hash(), "config": plain, "config_path": config.path,
                 "reference": config.reference,
                 IDENTITIES: sorted(identities), SKIPPED: skipped})
    configs = dict(meta.get("configs") or {})
    configs[config.hash()] = plain
    meta["configs"] = configs
    meta["history"] = list(meta.get("history") or [])
    return meta


def check_backend(backend: str, n_jobs: int = 1, scheduler: str | None = None) -> None:
    """Fail before anything is written when the backend cannot be used."""
    if backend not in BACKENDS:
        raise ObliqError(f"unknown backend {backend!r}{registry.suggest(backend, BACKENDS)}; "
                         f"known: {', '.join(BACKENDS)}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ObliqError(f"n_jobs must be a non-zero integer (got {n_jobs!r})")
    if backend == "fork" and not FORK_AVAILABLE:
        raise ObliqError(f"backend fork runs on Linux only (this is {sys.platform}); "
                         "use loky")
    if scheduler and backend != "dask":
        raise ObliqError(f"--scheduler needs --backend dask (the backend is {backend})")
    if backend == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise ObliqError('backend dask needs dask.distributed: pip install "obliq[dask]"') \
                from None


@contextlib.contextmanager
def _dask_client(n_jobs: int, scheduler: str | None):
    """A dask Client: connected to ``scheduler``, else on a local cluster of
    single-threaded workers (tree growing holds the GIL; threads would contend)."""
    from dask.distributed import Client

    try:
        if scheduler:
            client = Client(scheduler, timeout="10s")
        else:
            client = Client(_local_cluster(None if n_jobs < 0 else n_jobs))
    except (OSError, TimeoutError) as exc:
        raise ObliqError(f"cannot reach the dask scheduler {scheduler or '(local)'}: "
                         f"{_one_line(exc)}") from None
    _install_quiet_client_del()
    if not scheduler:  # our own workers too: joblib makes a Client in each of them
        with contextlib.suppress(Exception):
            client.run(_install_quiet_client_del)
    try:
        yield client
    finally:
        cluster = None if scheduler else client.cluster
        try:
            client.close()
        finally:
            if cluster is not None:
                cluster.close()


def _install_quiet_client_del() -> None:
    """``_quiet_client_del`` as this process's unraisable hook (once)."""
    if not getattr(sys.unraisablehook, "obliq_quiet_client", False):
        sys.unraisablehook = _quiet_client_del(sys.unraisablehook)


def _quiet_client_del(previous):
    """An unraisable-exception hook that drops what dask's ``Client.__del__`` raises
    once its event loop is closed: a Ctrl-C landing inside ``client.close()`` leaves the
    client half closed, and its finaliser then printed "Exception ignored in
    Client.__del__ ... IOLoop is closed" beside the run's one ``error: interrupted``
    line, from the run and from each worker (the Client joblib makes there dies with
    the cluster). Everything else goes to ``previous``."""
    def hook(unraisable):
        where = getattr(getattr(unraisable, "object", None), "__qualname__", "")
        if where == "Client.__del__":
            return
        previous(unraisable)
    hook.obliq_quiet_client = True
    return hook


def _local_cluster(n_workers: int | None):
    """A LocalCluster of single-threaded workers that leave Ctrl-C to the run (they start
    with SIGINT ignored), log nothing short of a crash and serve no dashboard (whose port
    another run may hold)."""
    import logging

    from dask.distributed import LocalCluster

    with sigint_ignored():
        return LocalCluster(n_workers=n_workers, threads_per_worker=1,
                            dashboard_address=":0", scheduler_kwargs={"dashboard": False},
                            silence_logs=logging.CRITICAL)


CHUNKS_PER_WORKER = 16
"""Dispatch granularity: each worker gets its tasks in about this many chunks, so small
tasks cost one round trip per chunk and the last chunks still balance the load."""

_warming: list = []  # the thread of start_workers, joined before the tasks go out


def run_tasks(tasks) -> list[dict]:
    """``run_task`` over a chunk of tasks, in one call to a worker."""
    return [run_task(task) for task in tasks]


MAX_CHUNK = 8
"""At most this many tasks in a chunk: its rows reach runs.csv only when the whole chunk
is done, so a long run (3500 tasks of SVM grids) would otherwise show no progress for
minutes, lose a chunk's finished tasks to Ctrl-C and end on one worker's last chunk."""


def task_chunks(tasks: list, n_workers: int) -> list[list]:
    """Consecutive tasks (same dataset, neighbouring splits: a worker's dataset cache
    serves them) in about ``CHUNKS_PER_WORKER`` chunks per worker, ``MAX_CHUNK`` at most."""
    size = max(1, min(MAX_CHUNK, len(tasks) // (CHUNKS_PER_WORKER * max(1, n_workers))))
    return [tasks[i:i + size] for i in range(0, len(tasks), size)]


def _import_algorithms(names: tuple[str, ...]) -> None:
    """Look the run's algorithms up once: a built-in's module loads (scikit-learn, numba's
    cached kernels) in the warming worker, and only the modules the config names. A
    plugin's name is left to the tasks, which import their plugins first."""
    for name in names:
        if name in registry.BUILTIN_ALGORITHMS:
            registry.algorithm_entry(name)


def _pool_config(backend: str, n_jobs: int):
    """joblib's configuration for the run's pool: loky's workers ignore Ctrl-C (the run
    stops them) and die with the run (``children.worker_setup``). The same arguments
    for the early start and the tasks, so loky reuses the one executor."""
    import joblib

    setup = {"initializer": worker_setup} if backend == "loky" else {}
    if backend == "loky" and _QUIET_TRACKER not in sys.warnoptions:
        # loky's resource tracker (started with this interpreter's -W options) outlives a
        # run killed with -9 and cleans up after it, printing four lines of UserWarning
        # about the "leaked" semaphores it removes; the cleaning is all that is wanted
        sys.warnoptions.append(_QUIET_TRACKER)
    return joblib.parallel_config(backend=backend, n_jobs=n_jobs, **setup)


_QUIET_TRACKER = "ignore:resource_tracker:UserWarning"


def start_workers(n_jobs: int, backend: str, algorithms: tuple[str, ...] = ()) -> None:
    """Start loky's workers now and let them import obliq in the background, so their
    start-up overlaps the parent's planning (loky keeps one executor per process, which
    ``_parallel_results`` then reuses). Nothing to do for one job or dask."""
    if n_jobs == 1 or backend != "loky":
        return
    import threading

    import joblib

    def warm():
        with _pool_config(backend, n_jobs):
            workers = joblib.effective_n_jobs(n_jobs)
            joblib.Parallel()(joblib.delayed(_import_algorithms)(algorithms)
                                for _ in range(workers))

    thread = threading.Thread(target=warm, name="obliq-start-workers", daemon=True)
    thread.start()
    _warming.append(thread)


def _parallel_results(tasks, n_jobs: int, backend: str):
    """Rows of the finished tasks, in completion order (the parent writes them). The
    tasks go out in chunks (``task_chunks``); a row does not depend on its chunk."""
    import joblib

    if n_jobs == 1 and backend != "dask":
        yield from map(run_task, tasks)  # no pool: same rows, plain tracebacks when debugging
        return
    if backend == "fork":
        yield from _forked_results(tasks, n_jobs)
        return
    while _warming:
        _warming.pop().join()
    with _pool_config(backend, n_jobs):
        chunks = task_chunks(tasks, joblib.effective_n_jobs(n_jobs))
        outputs = joblib.Parallel(return_as="generator_unordered", batch_size=1)(
            joblib.delayed(run_tasks)(chunk) for chunk in chunks)
        try:
            for rows in outputs:
                yield from rows
        finally:
            with interrupts.deferred():  # a second Ctrl-C waits for the pool to stop
                _close_quietly(outputs)


def _forked_results(tasks, n_jobs: int):
    """``_parallel_results`` on a pool forked from this process: the workers start with
    what the run has imported and loaded (scikit-learn, the compiled kernels' module, the
    datasets ``plan`` read), so a short run pays no worker start-up. SIGINT and SIGTERM
    are blocked while the workers are forked (one arriving then would run the run's
    handler in a worker and print its traceback; the run gets it once they are out); the
    workers ignore SIGINT, die of SIGTERM and of their parent's death
    (``children.worker_setup``), and the pool is terminated however the run ends."""
    import multiprocessing

    import joblib

    workers = joblib.effective_n_jobs(n_jobs)
    pool = None
    try:
        with signals_blocked():
            pool = multiprocessing.get_context("fork").Pool(
                workers, initializer=worker_setup,
                initargs=(workers, tuple(results.HELD_LOCKS), os.getpid()))
        for rows in pool.imap_unordered(run_tasks, task_chunks(tasks, workers)):
            yield from rows
    finally:
        if pool is not None:
            with interrupts.deferred():  # a second Ctrl-C waits for the pool to stop
                pool.terminate()
                pool.join()


def _close_quietly(outputs) -> None:
    """Close joblib's generator here, in the parent's thread, without its warning. When
    the run stops early (Ctrl-C arriving while the parent writes a row) joblib cancels the
    tasks in flight and warns "N tasks which were still being processed by the workers
    have been cancelled": two more lines after the run's one ``error: interrupted`` line,
    about tasks ``--resume`` runs anyway."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning,
                                message=r".*(have been cancelled|executed +but not used)")
        outputs.close()


def run_experiment(config, *, n_jobs: int | None = None, backend: str | None = None,
                   scheduler: str | None = None, resume: bool = False, force: bool = False,
                   progress: bool = True, accept_changed_code: bool = False,
                   datasets=None, algorithms=None) -> RunSummary:
    """Run (or resume) the experiment ``config`` (an ExperimentConfig).

    ``n_jobs`` / ``backend`` default to the config's; ``scheduler`` is a dask scheduler
    address (backend dask only; else a LocalCluster). ``resume`` runs the tasks of the
    config not yet stored (the config may have grown since); ``force`` first deletes what
    obliq wrote in the folder. Raises ObliqError, having written nothing, when anything is
    wrong (another run holds the folder, a change that alters stored folds); a task that
    fails is recorded (status "error") and listed in ``RunSummary.failed``.
    A resume whose stored rows came from other plugin or estimator versions or other
    ``imports:`` files (``provenance``) is refused, unless ``accept_changed_code`` (the
    history entry then lists the changes).
    ``datasets`` / ``algorithms`` (lists of labels or names, None: all) run only those
    tasks (``select_tasks``); the whole config is still planned and checked, and
    meta.json holds all of its tasks' identities, so tables show the cells not run yet
    as such and a later run (``resume``) adds them, row for row as a full run would.
    """
    n_jobs = config.n_jobs if n_jobs is None else n_jobs
    backend = config.backend if backend is None else backend
    check_backend(backend, n_jobs, scheduler)
    # their imports overlap the planning
    start_workers(n_jobs, backend, tuple(dict.fromkeys(a.name for a in config.algorithms)))
    chosen = None if datasets is None else _chosen(config, "datasets", config.datasets,
                                                   datasets)
    tasks, records, skipped = plan(config, chosen)  # a piece loads its datasets only
    selected = select_tasks(config, tasks, datasets, algorithms)
    out = Path(config.output)
    if out.exists() and not out.is_dir():
        raise ObliqError(f"{out}: exists and is not a directory")
    with contextlib.ExitStack() as stack:
        if backend == "dask":  # connect before writing: an unreachable scheduler writes nothing
            stack.enter_context(_dask_client(n_jobs, scheduler))
        stack.enter_context(results.folder_lock(out))
        code = provenance.collect(config)
        accepted: list[str] = []

        def check_code(meta: dict) -> None:
            changed = provenance.changes(provenance.stored(meta), code)
            if changed and not accept_changed_code:
                more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
                raise ObliqError(f"{config.path}: {changed[0]}{more} since the rows stored "
                                 f"in {out / results.RUNS}; --accept-changed-code resumes "
                                 f"anyway, --force starts afresh")
            accepted.extend(changed)

        start = results.prepare(out, config, records, resume, force, check_code)
        todo = [t for t in selected if t.key not in start.done]
        summary = RunSummary(out, total=len(selected), skipped=len(selected) - len(todo),
                             notes=start.notes + _selection_notes(config, tasks, selected,
                                                                  skipped, datasets,
                                                                  algorithms))
        entry = _history_entry(config, resume, force, n_jobs, backend, len(selected),
                               summary.skipped, chosen)
        if datasets is not None or algorithms is not None:
            entry["selection"] = {"datasets": None if datasets is None else list(datasets),
                                  "algorithms": None if algorithms is None
                                  else list(algorithms),
                                  "tasks_planned": len(tasks)}
        entry[provenance.KEY] = code
        if accepted:
            entry["accepted_changed_code"] = accepted
        try:
            _run(config, out, records, tasks, todo, summary, start, n_jobs, backend, progress,
                 entry, skipped)
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the pool is stopped
            how, exit_code = ("terminated", 143) if isinstance(exc, Terminated) else \
                ("interrupted", 130)
            raise Interrupted(f"{how}: {summary.ran} task(s) finished and kept in "
                              f"{out / results.RUNS}; --resume continues", exit_code) from None
    return summary


def _run(config, out: Path, records, tasks, todo, summary, start, n_jobs, backend, progress,
         entry: dict, skipped: dict) -> None:
    """Write folds/ and meta.json (a new history entry), then one runs.csv row per task as
    it finishes, then the entry's finish and outcome: "finished", "interrupted" (Ctrl-C),
    "terminated" (SIGTERM) or "failed" (an error such as a full disk)."""
    for label, record in records.items():
        path = results.fold_file(out, label)
        if not (path.is_file() and results.fold_record_to_keep(path, record)):
            results.write_folds(path, record)
    meta = _meta(config, start.meta, tasks, skipped, set(records))
    runs_path = out / results.RUNS
    new_file = not runs_path.exists() or runs_path.stat().st_size == 0
    header = RUN_COLUMNS if new_file or not start.header else start.header
    from tqdm import tqdm

    outcome = "failed"
    try:
        # the entry is written and closed in this try: a signal between the two writes
        # would leave it unfinished ("finished": null) for ever
        meta["history"].append(entry)
        results.write_json(out / results.META, meta)
        with safe_io.open_append(runs_path, out, text=True) as handle, tqdm(
            total=len(todo), disable=not progress, file=sys.stderr, unit="task",
            desc=config.name, dynamic_ncols=True, smoothing=0.1,
            # In a log file (no terminal) each refresh is a new line: refresh rarely there.
            mininterval=0.1 if sys.stderr.isatty() else 10.0,
        ) as bar:
            # Rows follow the file's own header, so an older file stays one table.
            writer = csv.DictWriter(handle, fieldnames=header, extrasaction="ignore")
            if new_file:
                with naming_file(runs_path):
                    writer.writeheader()
                    handle.flush()
            for row in _parallel_results(todo, n_jobs, backend):
                with naming_file(runs_path):  # a full disk names the file
                    writer.writerow(row)
                    handle.flush()
                    results._step("row appended")
                summary.ran += 1
                if row["status"] != "ok":
                    summary.failed.append(f"{row['dataset']} rep {row['repetition']} fold "
                                          f"{row['fold']} {row['algorithm']}: {row['error']}")
                bar.update(1)
        outcome = "finished"
    except KeyboardInterrupt as exc:
        outcome = "terminated" if isinstance(exc, Terminated) else "interrupted"
        raise
    finally:
        with interrupts.deferred():  # a second signal waits for the entry to be closed
            entry.update(finished=datetime.now(UTC).isoformat(), outcome=outcome)
            entry["tasks"].update(ran=summary.ran, failed=len(summary.failed))
            results.write_json(out / results.META, meta)
