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
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from .. import interrupts, registry, safe_io
from ..config import dataset_facts
from ..data.preprocess import (
    check_missing_support,
    encoding_for,
    missing_policy,
)
from ..errors import Interrupted, ObliqError, Terminated, naming_file, one_line
from ..version import __version__
from . import pools, provenance, results
from .fit import grow_and_prune_rows, load_dataset_spec
from .metrics import METRICS
from .protocols import fold_record, make_splits
from .schema import RUN_COLUMNS
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


def _plugin_modules(config) -> tuple[str, ...]:
    """Modules outside obliq_cli whose import registers a name the config uses."""
    objs = [registry.dataset_entry(d.name).obj for d in config.datasets]
    for algo in config.algorithms:
        if algo.estimator is not None:
            continue  # imported by its dotted path wherever it is made
        objs.append(registry.algorithm_entry(algo.name).obj)
        if algo.pruner is not None:
            objs.append(registry.pruner_entry(algo.pruner.name).obj)
    # the config's registered metrics are measured by every task (in the workers too)
    objs += [METRICS[m].compute for m in config.metrics
             if m in METRICS and METRICS[m].compute is not None]
    modules = {getattr(obj, "__module__", "") or "" for obj in objs}
    # a plugin loaded from a file (a config's imports) travels as its path
    return tuple(sorted(registry.plugin_ref(m) for m in modules
                        if m and m != "__main__" and m.split(".")[0] != "obliq_cli"))



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
        raise ObliqError(f"{where}: {one_line(exc)}") from None
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
        raise ObliqError(f"{where}: {one_line(exc)}") from None


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
    for i, spec in enumerate(config.datasets):
        if labels is not None and spec.label not in labels:
            continue
        where = f"{config.path}: datasets[{i}] ({spec.label})"
        try:
            X, y, info = load_dataset_spec(spec)
        except ObliqError as exc:
            raise ObliqError(f"{where}: {exc}") from None
        except (ValueError, TypeError, LookupError, MemoryError) as exc:  # a loader's own
            raise ObliqError(f"{where}: cannot load it ({one_line(exc)})") from None
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
    pools.check_backend(backend, n_jobs, scheduler)
    # their imports overlap the planning
    pools.start_workers(n_jobs, backend, tuple(dict.fromkeys(a.name for a in config.algorithms)))
    chosen = None if datasets is None else _chosen(config, "datasets", config.datasets,
                                                   datasets)
    tasks, records, skipped = plan(config, chosen)  # a piece loads its datasets only
    selected = select_tasks(config, tasks, datasets, algorithms)
    out = Path(config.output)
    if out.exists() and not out.is_dir():
        raise ObliqError(f"{out}: exists and is not a directory")
    with contextlib.ExitStack() as stack:
        if backend == "dask":  # connect before writing: an unreachable scheduler writes nothing
            stack.enter_context(pools.dask_client(n_jobs, scheduler))
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
            for row in pools.parallel_results(todo, n_jobs, backend):
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
