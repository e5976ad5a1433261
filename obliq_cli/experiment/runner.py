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

from .. import interrupts
from ..data.preprocess import (
    encoding_for,
    missing_policy,
)
from ..errors import Interrupted, ObliqError, Terminated
from ..version import __version__
from . import pools, provenance, results
from .fit import load_dataset_spec
from .plan import chosen_labels, plan, select_tasks, selection_notes
from .tasks import IDENTITIES, SKIPPED, Task, unplanned_identities

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
    chosen = None if datasets is None else chosen_labels(config, "datasets", config.datasets,
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
                             notes=start.notes + selection_notes(config, tasks, selected,
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
    results.store_folds(out, records)
    meta = _meta(config, start.meta, tasks, skipped, set(records))
    from tqdm import tqdm

    outcome = "failed"
    try:
        # the entry is written and closed in this try: a signal between the two writes
        # would leave it unfinished ("finished": null) for ever
        meta["history"].append(entry)
        results.write_json(out / results.META, meta)
        with results.runs_appender(out, start.header) as append, tqdm(
            total=len(todo), disable=not progress, file=sys.stderr, unit="task",
            desc=config.name, dynamic_ncols=True, smoothing=0.1,
            # In a log file (no terminal) each refresh is a new line: refresh rarely there.
            mininterval=0.1 if sys.stderr.isatty() else 10.0,
        ) as bar:
            for row in pools.parallel_results(todo, n_jobs, backend):
                append(row)
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
