"""Running an experiment: tasks = dataset x repetition x fold x algorithm.

The runner only orchestrates, in this order: the backend checked and loky's workers
started (``pools``), the plan made and checked (``plan``: everything that can be checked
is, before a byte is written, so bad input leaves no half-written results), the dask
scheduler reached, the folder locked and prepared (``results``), folds/ and meta.json
written with a new history entry (``provenance``); then each finished task (``fit.
run_task``, in a worker) is appended at once to ``runs.csv`` by the parent process, so an
interrupted run loses only the tasks in flight and ``--resume`` skips what is done. The
runner knows no algorithm: the fit asks the registry for estimators and pruners by name.

Reproducibility: every random draw comes from ``seeds.rng_for`` keyed by names (seed,
dataset label, repetition, fold, algorithm label), never from task order, so runs.csv
holds the same rows (all columns but the times) for any ``n_jobs``, backend or order of
completion; rows are written in completion order and readers sort by key.

Resume: rows are keyed by task identity (``tasks.task_identity``): a task whose latest
row is "ok" is skipped; an "error" row is run again and the new row appended, so the file
may hold several rows for one task and readers keep the last one. A config may grow
between runs (algorithms, datasets, repetitions); see ``results`` for what is refused.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .. import interrupts
from ..errors import Interrupted, ObliqError, Terminated
from ..logs import in_ipython
from . import pools, provenance, results
from .plan import chosen_labels, plan, select_tasks, selection_notes


@dataclass(frozen=True)
class RunSettings:
    """How one invocation runs its config: ``run_experiment``'s options, with the
    config's ``n_jobs`` and ``backend`` where the caller gave none."""

    n_jobs: int
    backend: str
    scheduler: str | None = None
    resume: bool = False
    force: bool = False
    progress: bool = True
    accept_changed_code: bool = False
    datasets: tuple | None = None    # --datasets: labels or names (None: all)
    algorithms: tuple | None = None  # --algorithms: labels or names (None: all)


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
    settings = RunSettings(
        config.n_jobs if n_jobs is None else n_jobs,
        config.backend if backend is None else backend, scheduler, resume, force, progress,
        accept_changed_code, None if datasets is None else tuple(datasets),
        None if algorithms is None else tuple(algorithms))
    return _run(config, settings)


def _run(config, settings: RunSettings) -> RunSummary:
    """Check the backend, plan (a piece of the config loads its datasets only), reach
    the dask scheduler and lock the folder, all before a byte is written."""
    pools.check_backend(settings.backend, settings.n_jobs, settings.scheduler)
    # their imports overlap the planning
    pools.start_workers(settings.n_jobs, settings.backend,
                        tuple(dict.fromkeys(a.name for a in config.algorithms)))
    labels = None if settings.datasets is None else chosen_labels(
        config, "datasets", config.datasets, settings.datasets)
    planned = plan(config, labels)
    selected = select_tasks(config, planned.tasks, settings.datasets, settings.algorithms)
    out = Path(config.output)
    if out.exists() and not out.is_dir():
        raise ObliqError(f"{out}: exists and is not a directory")
    with contextlib.ExitStack() as stack:
        if settings.backend == "dask":  # an unreachable scheduler writes nothing
            stack.enter_context(pools.dask_client(settings.n_jobs, settings.scheduler))
        stack.enter_context(results.folder_lock(out))
        return _run_locked(config, settings, planned, selected)


def _run_locked(config, settings: RunSettings, planned, selected: list) -> RunSummary:
    """The run once its folder is locked: check and prepare the folder (``results.
    prepare``), write folds/ and meta.json with a new history entry, then one runs.csv row
    per task as it finishes; the entry is closed with the outcome however the run ends."""
    out = Path(config.output)
    interrupts.checkpoint()  # a signal dropped while planning: stop before a byte is written
    check = provenance.CodeCheck(config.path, out / results.RUNS,
                                 settings.accept_changed_code, provenance.collect(config))
    start = results.prepare(out, config, planned.records, settings.resume, settings.force,
                            check)
    todo = [t for t in selected if t.key not in start.done]
    notes = selection_notes(config, planned.tasks, selected, planned.skipped,
                            settings.datasets, settings.algorithms)
    summary = RunSummary(out, total=len(selected), skipped=len(selected) - len(todo),
                         notes=start.notes + notes)
    entry = provenance.history_entry(config, settings, planned, summary)
    check.record(entry)
    try:
        results.store_folds(out, planned.records)
        meta = provenance.run_meta(config, start.meta, planned)
        with provenance.entry_kept(out / results.META, meta, entry, summary):
            _append_rows(config.name, settings, start.header, todo, summary)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the pool is stopped
        interrupts.acted_on()
        how, exit_code = ("terminated", 143) if isinstance(exc, Terminated) else \
            ("interrupted", 130)
        raise Interrupted(f"{how}: {summary.ran} task(s) finished and kept in "
                          f"{out / results.RUNS}; --resume continues", exit_code) from None
    return summary


def _append_rows(name: str, settings: RunSettings, header, todo: list,
                 summary: RunSummary) -> None:
    """Run ``todo`` in the pool and append each row to runs.csv as it comes (after the
    stored ``header``, when the file has one), counting it in ``summary``."""
    # tqdm.auto: a widget in a Jupyter kernel that has ipywidgets, the text bar elsewhere
    from tqdm.auto import tqdm

    with results.runs_appender(summary.output, header) as append, tqdm(
        total=len(todo), disable=not settings.progress, file=sys.stderr, unit="task",
        desc=name, dynamic_ncols=True, smoothing=0.1,
        # In a log file (no terminal) each refresh is a new line: refresh rarely there; a
        # notebook's output area redraws the bar in place, as a terminal does.
        mininterval=0.1 if sys.stderr.isatty() or in_ipython() else 10.0,
    ) as bar:
        for row in pools.parallel_results(todo, settings.n_jobs, settings.backend,
                                          summary.output):
            append(row)
            summary.ran += 1
            if row["status"] != "ok":
                summary.failed.append(f"{row['dataset']} rep {row['repetition']} fold "
                                      f"{row['fold']} {row['algorithm']}: {row['error']}")
            bar.update(1)
            interrupts.checkpoint()  # a signal whose exception was dropped (interrupts)
