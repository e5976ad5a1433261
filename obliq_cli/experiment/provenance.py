"""What a run records of itself in meta.json: the config on top with its tasks'
identities and skipped cells (``run_meta``), and one history entry per ``obliq run``
(``history_entry``: command, task counts, backend, versions, machine, the data's
preprocessing; closed by ``entry_kept`` with its outcome).

The code beyond obliq that a run's rows come from is kept in each history entry, so that
``--resume`` does not silently mix rows of two versions of it.

Per run: the version of every installed plugin distribution (the entry points of the
groups ``obliq.algorithms``, ``obliq.pruners``, ``obliq.datasets``), of the top-level
package of each ``estimator:`` class the config names (of each step of a ``pipeline:``),
and the sha256 digest of each ``imports:`` file. A resume whose stored rows were made
under other values is refused (``changes`` names what changed) unless the user accepts it
(``--accept-changed-code``); the history entry then lists what was accepted.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import logging
import os
import platform
import socket
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from .. import interrupts, registry
from ..data.preprocess import encoding_for, missing_policy
from ..errors import ObliqError, Terminated
from ..version import __version__
from . import results
from .fit import load_dataset_spec
from .tasks import IDENTITIES, SKIPPED, unplanned_identities

log = logging.getLogger("obliq")

KEY = "provenance"  # the history entry's key


def _plugins() -> dict[str, str]:
    out = {}
    for group in registry.ENTRY_POINT_GROUPS:
        for point in importlib.metadata.entry_points(group=group):
            dist = point.dist
            if dist is not None:
                out[dist.name] = dist.version
    return out


def _digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def collect(config) -> dict:
    """The provenance of a run of ``config`` (an ExperimentConfig), as plain data."""
    adapter = registry.external_estimators() if any(
        a.estimator is not None for a in config.algorithms) else None
    estimators = {}
    for algo in config.algorithms:
        if algo.estimator is not None:  # a pipeline: each step's package
            for path in adapter.paths(algo.estimator, algo.params):
                package, version = adapter.package_version(path)
                estimators[package] = version
    imports = {ref: _digest(ref) for ref in config.imports if ref.endswith(".py")}
    return {"plugins": _plugins(), "estimators": estimators, "imports": imports}


def stored(meta: dict) -> dict | None:
    """The provenance of the latest run in ``meta`` (meta.json) that recorded one; None
    for folders written before it was kept."""
    for entry in reversed(meta.get("history") or []):
        if isinstance(entry, dict) and isinstance(entry.get(KEY), dict):
            return entry[KEY]
    return None


_WHAT = {"plugins": "plugin distribution", "estimators": "estimator package",
         "imports": "imports file"}


def changes(old: dict | None, new: dict) -> list[str]:
    """One phrase per item of ``old`` whose version or digest differs in ``new``, e.g.
    "imports file /x/mytree.py changed (sha256 3f2a1b0c... -> 9e8d7c6b...)". Items only
    one side has (a plugin installed since, a file added to ``imports``) are no change to
    the stored rows."""
    if not old:
        return []
    out = []
    for part, what in _WHAT.items():
        before, now = old.get(part) or {}, new.get(part) or {}
        for name in sorted(set(before) & set(now)):
            if before[name] != now[name]:
                if part == "imports":
                    out.append(f"{what} {name} changed (sha256 {str(before[name])[:8]}... "
                               f"-> {str(now[name])[:8]}...)")
                else:
                    out.append(f"{what} {name} changed ({before[name]} -> {now[name]})")
    return out


@dataclass
class CodeCheck:
    """A resume's last check (``results.prepare``'s ``check_stored``): the stored rows'
    code (``stored``) against this run's (``code``, from ``collect``). A change is refused
    naming the config, unless ``accept`` (``--accept-changed-code``); the accepted changes
    go into the history entry (``record``)."""

    config_path: str
    runs_path: Path
    accept: bool
    code: dict
    accepted: list[str] = field(default_factory=list)

    def __call__(self, meta: dict) -> None:
        changed = changes(stored(meta), self.code)
        if changed and not self.accept:
            more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
            raise ObliqError(f"{self.config_path}: {changed[0]}{more} since the rows stored "
                             f"in {self.runs_path}; --accept-changed-code resumes "
                             f"anyway, --force starts afresh")
        self.accepted.extend(changed)

    def record(self, entry: dict) -> None:
        """This run's code, and the changes accepted, in its history ``entry``."""
        entry[KEY] = self.code
        if self.accepted:
            entry["accepted_changed_code"] = self.accepted


@functools.lru_cache(maxsize=1)
def versions() -> dict:
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
    each algorithm's encoding of them (native, onehot or codes), and the column of row
    weights its fits and pruners read (``weights``). Datasets with none of these
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
        if info.get("weights"):  # its fits and pruners were weighted by this column
            note["weights"] = info["weights"]
        if info.get("categorical"):
            note["nominal"] = {
                algo.label: encoding_for(algo.make_estimator(spec.label), info, algo.nominal)
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


def history_entry(config, settings, planned, summary) -> dict:
    """One invocation of ``obliq run`` in meta.json's history (finished when it ends):
    ``settings`` (``runner.RunSettings``), ``planned`` (``plan.Plan``: its datasets'
    preprocessing under ``data``) and the task counts of ``summary``
    (``runner.RunSummary``)."""
    command = "run --resume" if settings.resume else "run --force" if settings.force else "run"
    entry = {"started": datetime.now(UTC).isoformat(), "finished": None, "command": command,
             "config_hash": config.hash(), "config_path": config.path,
             "tasks": {"total": summary.total, "skipped": summary.skipped, "ran": 0,
                       "failed": 0},
             "n_jobs": settings.n_jobs, "backend": settings.backend,
             "host": socket.gethostname(), "pid": os.getpid(), "versions": versions(),
             "machine": machine()}
    data = data_notes(config, set(planned.records))
    if data:  # missing values and nominal columns: what each algorithm got
        entry["data"] = data
    if settings.datasets is not None or settings.algorithms is not None:
        entry["selection"] = {"datasets": None if settings.datasets is None
                              else list(settings.datasets),
                              "algorithms": None if settings.algorithms is None
                              else list(settings.algorithms),
                              "tasks_planned": len(planned.tasks)}
    return entry


@contextlib.contextmanager
def entry_kept(path: Path, meta: dict, entry: dict, summary):
    """meta.json (``path``, ``meta`` from ``run_meta``) written with the run's history
    ``entry`` before the block, and again after it with the entry's finish, task counts
    (``summary``) and outcome: "finished", "interrupted" (Ctrl-C), "terminated" (SIGTERM)
    or "failed" (an error such as a full disk)."""
    outcome = "failed"
    try:
        # the entry is written and closed in this try: a signal between the two writes
        # would leave it unfinished ("finished": null) for ever
        meta["history"].append(entry)
        results.write_json(path, meta)
        yield
        outcome = "finished"
    except KeyboardInterrupt as exc:
        outcome = "terminated" if isinstance(exc, Terminated) else "interrupted"
        raise
    finally:
        with interrupts.deferred():  # a second signal waits for the entry to be closed
            entry.update(finished=datetime.now(UTC).isoformat(), outcome=outcome)
            entry["tasks"].update(ran=summary.ran, failed=len(summary.failed))
            results.write_json(path, meta)


def run_meta(config, meta: dict, planned) -> dict:
    """meta.json for this run: the latest config on top with the identities of its tasks
    (``tasks.stored_identities`` reads them) and the cells its skip rules leave out, with
    their reasons (``tasks.SKIPPED``); the history is kept as it is. A run of a piece
    plans only some datasets: the others' identities come from the config
    (``tasks.unplanned_identities``) and their skipped cells from the last meta.json when
    it holds the same config. ``planned``: the run's ``plan.Plan``."""
    plain = config.to_dict()
    identities = {task.identity for task in planned.tasks}
    skipped = dict(planned.skipped)
    same = meta.get("config_hash") == config.hash()
    labels = {a.label for a in config.algorithms}
    for spec in config.datasets:
        if spec.label in planned.records:
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
