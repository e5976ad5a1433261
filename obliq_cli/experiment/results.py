"""A results folder as the runner keeps it: the lock, safe file names, reading,
repairing and appending to runs.csv (its one reader and its writer), the folds, the
compatibility of a changed config, and the run history.

Rows are keyed by task identity (``tasks.task_identity``), so a config may grow and
``--resume`` runs exactly the tasks not yet stored. A change that would alter the folds of
stored tasks (seed, protocol, a dataset's params) is refused, naming the field
(``check_compatible``).

Crash safety: rows are only ever appended; a half-written last line is cut by truncating
at the last newline; any other rewrite (repairing a damaged runs.csv, meta.json, folds)
goes to a temporary file that is renamed over the old one, so a kill at any moment leaves
either the old or the new file. One run at a time holds an flock on ``.obliq.lock``.

Links: every file and folder of a results folder is opened through ``safe_io``, without
following links; ``check_own_files`` refuses a link or an odd file among them before
anything is written (a runs.csv linked to a file elsewhere would have grown there).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import interrupts, safe_io
from ..config import ExperimentConfig
from ..csvio import check_header_names
from ..errors import ObliqError, naming_file
from ..fields import Key, in_scope
from ..parameters import Described, several_problems
from . import predictions
from .schema import (
    COLUMN_RANGES,
    LABEL_COLUMNS,
    LATER_NUMERIC_COLUMNS,
    NUMERIC_COLUMNS,
    RATE_LIST_COLUMNS,
    RUN_COLUMNS,
    STATUSES,
)
from .tasks import config_of, drop_none, split_identity

RUNS = "runs.csv"
META = "meta.json"
FOLDS = "folds"
LOCK = ".obliq.lock"
DAMAGED = "runs.damaged"
WRITER = "obliq"
# A confusion matrix of a few hundred classes is far beyond csv's default 128 KiB field.
FIELD_LIMIT = 1 << 30

# Tests replace this to stop the process between two steps of a write (see
# tests/experiment/test_resume_kill.py); it names every point at which a kill leaves files behind.
def _step(name: str) -> None:
    """A point between two file operations (a no-op outside the kill test)."""


# ------------------------------------------------------------------ names and identity
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")


def safe_file_name(label: str) -> str:
    """A file name for a dataset label: the label itself when it is plain (letters, digits,
    ``._+-``, not starting with a dot, at most 64 characters), else its plain characters
    and a digest of the whole label, so that no label reaches outside its folder
    (``../x``, ``/abs/path``, a NUL byte) and two labels never share a file."""
    text = str(label)
    if text and len(text) <= 64 and not _UNSAFE.search(text) and not text.startswith("."):
        return text
    plain = _UNSAFE.sub("_", text).lstrip("._")[:40]
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{plain}-{digest}" if plain else digest


def fold_file(results_dir, label: str) -> Path:
    return Path(results_dir) / FOLDS / f"{safe_file_name(label)}.npz"


# ------------------------------------------------------------------------ the lock
HELD_LOCKS: set[int] = set()
"""File descriptors of the locks this process holds: a forked worker closes its copies,
since a flock lives while any process holds the file open, and a worker outliving a
killed run would keep the folder locked."""


@contextlib.contextmanager
def folder_lock(results_dir: Path):
    """Hold ``results_dir/.obliq.lock`` for the run (created with the folder). A second
    run into the same folder fails at once; the lock dies with its process (flock)."""
    results_dir.mkdir(parents=True, exist_ok=True)
    handle = safe_io.open_update(results_dir / LOCK, results_dir)  # held for the whole run
    try:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            fcntl = None
        if fcntl is not None:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.seek(0)
                holder = handle.read().strip() or "another process"
                raise ObliqError(f"{results_dir}: another obliq run is writing here "
                                 f"({holder}); wait for it to finish or use another "
                                 f"output") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        HELD_LOCKS.add(handle.fileno())
        yield
    finally:
        HELD_LOCKS.discard(handle.fileno())
        handle.close()


# ------------------------------------------------------------------ atomic writes
def atomic_write_bytes(path: Path, data: bytes, root: Path | None = None,
                       sync_folder: bool = True) -> None:
    """Write ``path`` through a temporary file in the same folder, then rename it
    (``safe_io.write_bytes``: no link followed below ``root``, default the file's
    folder; ``sync_folder=False``: the caller fsyncs the folder later)."""
    safe_io.write_bytes(path, data, root, step=lambda name: _step(name),
                        sync_folder=sync_folder)


def write_json(path: Path, data) -> None:
    atomic_write_bytes(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))


def write_folds(path: Path, record: dict) -> None:
    """A dataset's fold record as ``results_dir/folds/<label>.npz``."""
    buffer = io.BytesIO()
    # a Ctrl-C or SIGTERM inside numpy's zip writer came out as its cleanup's ValueError
    # ("Can't close the ZIP file while there is an open writing handle") and a traceback:
    # held until the file's bytes are made, then raised as the interrupt it is
    with interrupts.deferred():
        np.savez_compressed(buffer, **record)
    atomic_write_bytes(path, buffer.getvalue(), root=path.parent.parent)


def write_predictions(results_dir: Path, identity: str, arrays: dict,
                      sync_folder: bool = True) -> None:
    """One task's test predictions as ``predictions/<identity>.npz`` (``predictions.
    encode``: the same bytes for the same predictions), through a temporary file, its
    data fsynced; the folder too unless ``sync_folder`` is False, when the caller runs
    ``sync_predictions`` after its last file and before any of their rows is written."""
    atomic_write_bytes(predictions.prediction_file(results_dir, identity),
                       predictions.encode(arrays), root=results_dir,
                       sync_folder=sync_folder)


def sync_predictions(results_dir: Path) -> None:
    """fsync ``results_dir``'s predictions folder: the files written into it with
    ``sync_folder=False`` keep their names through a power loss from now on."""
    safe_io.sync_folder(Path(results_dir) / predictions.FOLDER, results_dir)
    _step("predictions folder synced")


def store_folds(results_dir: Path, records: dict) -> None:
    """Write each dataset's fold record (label -> record) to folds/, unless the file
    there already holds it (``fold_record_to_keep``: a resume keeps its file)."""
    for label, record in records.items():
        path = fold_file(results_dir, label)
        if not (path.is_file() and fold_record_to_keep(path, record)):
            write_folds(path, record)


def check_own_files(out: Path, labels=()) -> None:
    """Refuse (one ObliqError naming the path) a results folder where a file obliq
    writes, deletes or appends to (the lock, runs.csv, runs.damaged, meta.json, folds/
    and the fold files of ``labels``) is a symbolic link or not a regular file (folds/:
    not a folder); called before anything is written."""
    for name in (LOCK, RUNS, DAMAGED, META):
        safe_io.check_file(out / name, out, in_place=name != META)
    safe_io.check_folder(out / FOLDS, out)
    safe_io.check_folder(out / predictions.FOLDER, out)
    for label in labels:
        safe_io.check_file(fold_file(out, label), out)


# --------------------------------------------------------------- reading runs.csv
# Every reader of runs.csv (resume, table, stats, agree, report) goes through
# ``read_runs_file`` and keeps one row per task with ``latest_rows``.
RESUME_COLUMNS = LABEL_COLUMNS + ["status"]


@dataclass
class RunsFile:
    """runs.csv split into its parts: the header, the rows obliq wrote (each with its line
    number and its exact bytes), the damaged lines (each with what is wrong with it), and
    an unfinished last line."""

    header: list[str]
    rows: list[dict] = field(default_factory=list)
    lines: list[bytes] = field(default_factory=list)
    damaged: list[tuple[int, bytes]] = field(default_factory=list)
    tail: bytes = b""
    header_bytes: bytes = b""
    problems: dict[int, str] = field(default_factory=dict)  # line number -> what is wrong
    # rows whose numbers no task can have written (``impossible_cell``), each as one line
    # naming file, line and column: read as failed tasks
    impossible: list[str] = field(default_factory=list)

    def first_problem(self, path: Path) -> str | None:
        """One line naming the file, the first damaged line and its fault (None when no
        line is damaged)."""
        if not self.damaged:
            return None
        number = self.damaged[0][0]
        more = f" (and {len(self.damaged) - 1} more damaged lines)" if len(self.damaged) > 1 \
            else ""
        problem = self.problems[number].replace("{line}", str(number), 1)
        return f"{path}: {problem}{more}; `obliq run CONFIG --resume` sets damaged lines aside"


def _is_int(text: str) -> bool:
    return text.isascii() and text.isdigit()  # "²" is a digit to str.isdigit, not to int


def impossible_cell(row: dict) -> str | None:
    """What no task can have written in an "ok" row (a hand edit, another program's
    file): the first numeric cell outside its declared range (``schema.COLUMN_RANGES``:
    NaN, infinities, 150 %, a negative count or time, 1e308 seconds) or a per-class rate
    list that is not fractions; as
    ``line {line}: column NAME: ...``, or None."""
    for column, (low, high) in COLUMN_RANGES.items():
        text = row.get(column, "").strip()
        if not text:
            continue  # blank: not measured (a folder older than the column)
        value = float(text)  # _parse_line has checked it is a number
        if not low <= value <= high:
            return f"line {{line}}: column {column}: {text[:40]} is outside [{low:g}, {high:g}]"
        if column in ("n_test", "n_test_correct", "n_leaves", "n_internal", "depth") \
                and value != int(value):
            return f"line {{line}}: column {column}: {text[:40]} is not a whole count"
    for column in RATE_LIST_COLUMNS:
        text = row.get(column, "").strip()
        if not text:
            continue
        try:
            rates = json.loads(text)
        except ValueError:
            rates = None
        if not isinstance(rates, list) or not all(
                rate is None or (isinstance(rate, (int, float)) and not isinstance(rate, bool)
                                 and 0 <= rate <= 1) for rate in rates):
            return f"line {{line}}: column {column}: {text[:40]} is not a list of fractions"
    return None


def _parse_line(line: bytes, header: list[str]) -> tuple[dict | None, str]:
    """The row of one runs.csv line, or (None, what is wrong with it: a message with a
    ``{line}`` field) when the line is not a row obliq wrote."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None, "line {line}: damaged (bytes that are not text)"
    if text.endswith("\r"):  # csv writes \r\n line ends
        text = text[:-1]
    if "\x00" in text or "\r" in text:
        return None, "line {line}: damaged (a NUL byte or a stray carriage return)"
    try:
        fields = next(csv.reader([text]))
    except (csv.Error, StopIteration):
        return None, "malformed CSV, line {line}: not one CSV record"
    if len(fields) != len(header):
        return None, (f"malformed CSV, line {{line}}: {len(fields)} fields where the header "
                      f"has {len(header)}")
    row = dict(zip(header, fields))
    if row.get("status") not in STATUSES:
        return None, (f"line {{line}}: status must be {' or '.join(STATUSES)} (got "
                      f"{row.get('status')!r:.40})")
    for column in ("repetition", "fold"):
        if not _is_int(row.get(column, "")):
            return None, (f"line {{line}}: {column} must be an integer (got "
                          f"{row.get(column)!r:.40})")
    if row["status"] == "ok":
        for column in NUMERIC_COLUMNS + LATER_NUMERIC_COLUMNS:
            value = row.get(column, "")
            if value.strip():
                try:
                    float(value)
                except ValueError:
                    return None, (f"line {{line}}: {column} is not a number (got "
                                  f"{value!r:.40})")
    return row, ""


def read_runs_file(path: Path, required: list[str] = RESUME_COLUMNS) -> RunsFile:
    """Every line of runs.csv, sorted into rows, damaged lines and an unfinished tail;
    ObliqError when line 1 is not a header holding the ``required`` columns."""
    # csv's field limit is global to the process: raised for runs.csv's long error
    # messages only, so a data file read afterwards still meets the usual limit
    previous = csv.field_size_limit(FIELD_LIMIT)
    try:
        return _read_runs_file(path, required)
    finally:
        csv.field_size_limit(previous)


def _read_runs_file(path: Path, required: list[str]) -> RunsFile:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ObliqError(f"{path}: unreadable ({exc.strerror or exc})") from None
    cut = data.rfind(b"\n") + 1
    body, tail = data[:cut], data[cut:]
    lines = body.split(b"\n")[:-1] if body else []
    if not lines:
        return RunsFile(header=[], tail=tail)
    try:
        header = next(csv.reader([lines[0].decode("utf-8").rstrip("\r")]))
    except (UnicodeDecodeError, csv.Error, StopIteration):
        header = []
    check_header_names(header, path)
    missing = [c for c in required if c not in header]
    if missing:
        raise ObliqError(f"{path}: missing column(s) {', '.join(map(repr, missing))}: line "
                         f"1 is not the header of an obliq runs.csv; move the file away or "
                         f"use another output")
    out = RunsFile(header=header, tail=tail, header_bytes=lines[0] + b"\n")
    for number, line in enumerate(lines[1:], start=2):
        row, problem = _parse_line(line, header)
        if row is None:
            out.damaged.append((number, line))
            out.problems[number] = problem
            continue
        impossible = impossible_cell(row) if row["status"] == "ok" else None
        if impossible is not None:
            # a row, but not a finished task's: its task counts as failed everywhere
            # (left out of every summary, run again by a resume), and readers say why
            impossible = f"{path}: {impossible.replace('{line}', str(number), 1)}"
            out.impossible.append(impossible)
            row = {**row, "status": "error", "error": f"not read: {impossible}"}
        out.rows.append(row)
        out.lines.append(line + b"\n")
    return out


def row_key(row: dict) -> str:
    """The task a row belongs to: its identity; rows of files written before identities
    existed (no or an empty ``task``) by config hash, dataset, repetition, fold and
    algorithm."""
    return row.get("task") or "\x1f".join(
        str(row.get(c, "")) for c in ["config_hash"] + LABEL_COLUMNS)


def latest_rows(rows: list[dict]) -> list[dict]:
    """The last row of each task, in file order: a task that failed and was run again
    counts once, by its latest row (the one rule of every reader)."""
    last = {row_key(row): i for i, row in enumerate(rows)}
    return [rows[i] for i in sorted(last.values())]


def repair_runs_file(path: Path, runs: RunsFile) -> str | None:
    """Make runs.csv hold only whole rows: an unfinished last line is cut (truncate at the
    last newline); damaged lines are moved to runs.damaged and the rows rewritten through a
    temporary file. Every row keeps its bytes. Returns a one-line note, or None."""
    if runs.damaged:
        aside = path.with_name(DAMAGED)
        with naming_file(aside), safe_io.open_append(aside) as handle:
            for number, line in runs.damaged:
                handle.write(f"# {RUNS} line {number}\n".encode() + line + b"\n")
            if runs.tail:
                handle.write(f"# {RUNS} unfinished last line\n".encode() + runs.tail + b"\n")
        _step("damaged lines set aside")
        atomic_write_bytes(path, runs.header_bytes + b"".join(runs.lines))
        numbers = ", ".join(str(n) for n, _ in runs.damaged[:5])
        more = "" if len(runs.damaged) <= 5 else f" and {len(runs.damaged) - 5} more"
        return (f"{path}: {len(runs.damaged)} damaged line(s) (line {numbers}{more}) moved "
                f"to {aside.name}; their tasks run again")
    if runs.tail:
        _step("truncate the unfinished line")
        safe_io.truncate(path, path.stat().st_size - len(runs.tail))
    return None


def done_tasks(rows: list[dict]) -> set[str]:
    """Tasks whose latest row is "ok" (an "error" row is run again)."""
    return {row_key(row) for row in latest_rows(rows) if row["status"] == "ok"}


# --------------------------------------------------------------- writing runs.csv
@contextlib.contextmanager
def runs_appender(results_dir: Path, header: list[str] | None):
    """A function that appends one row (a dict) to ``results_dir``'s runs.csv and flushes
    it, so a kill loses no finished task. The row's test predictions (``predictions.KEY``,
    when it carries them) are written first, atomically, to predictions/<task>.npz: the
    row that follows is the record of completion (a file without its row is never read,
    and the task's rerun replaces it). A new or empty file gets ``RUN_COLUMNS`` as its
    header; an existing one keeps its own ``header`` (read by ``prepare``), so an older
    file stays one table. A full disk names the file (``naming_file``)."""
    path = results_dir / RUNS
    new_file = not path.exists() or path.stat().st_size == 0
    columns = RUN_COLUMNS if new_file or not header else header
    with safe_io.open_append(path, results_dir, text=True) as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        if new_file:
            with naming_file(path):
                writer.writeheader()
                handle.flush()

        def append(row: dict) -> None:
            arrays = row.get(predictions.KEY)
            if arrays is not None and row.get("status") == "ok":
                write_predictions(results_dir, row["task"], arrays)
            with naming_file(path):
                writer.writerow(row)
                handle.flush()
                _step("row appended")

        yield append


# ------------------------------------------------------------------------ meta.json
def read_meta(path: Path, check: bool = True) -> dict:
    """meta.json as a dict; ObliqError in one line when it is missing, not JSON or not an
    object, or (``check``) when a field obliq reads has the wrong type (``check_meta``)."""
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ObliqError(f"{path}: missing") from None
    except RecursionError:
        raise ObliqError(f"{path}: not valid JSON (nested too deep)") from None
    except (OSError, ValueError, UnicodeDecodeError):
        raise ObliqError(f"{path}: not valid JSON") from None
    if not isinstance(meta, dict):
        raise ObliqError(f"{path}: must hold a JSON object (got {type(meta).__name__})")
    if check:
        check_meta(meta, path)
    return meta


class _Json(Described):
    """A meta.json value of one of ``types`` (a bool only where ``bool`` is one of them;
    None too when ``optional``), refused in the words the readers have always used, the
    value shown as JSON."""

    def __init__(self, types: tuple, expected: str, optional: bool = True):
        super().__init__([object], f"must be {expected}")
        self.types, self.optional = types, optional

    def is_satisfied_by(self, val):
        if val is None:
            return self.optional
        return isinstance(val, self.types) and not (isinstance(val, bool)
                                                     and bool not in self.types)

    def problem(self, value) -> str:
        shown = json.dumps(value, default=str)
        shown = shown if len(shown) <= 60 else shown[:60] + "..."
        return f"{self.must} (got {shown})"


_STRING, _INTEGER = _Json((str,), "a string"), _Json((int,), "an integer")
_OBJECT = _Json((dict,), "an object")
_NAME = _Json((str,), "a name", optional=False)
_AN_OBJECT = _Json((dict,), "an object", optional=False)

# The fields of a meta.json that obliq reads (schema.py writes them), declared once
# (fields.Key: scope, about, check): ``check_meta`` checks each with its declaration and
# walks into the objects and lists (the item's check is the key's scope of that name).
# Other fields (machine, code, ...) are kept, never read back, and not checked.
META_KEYS: tuple[Key, ...] = (
    *(Key(k, "meta", about, _STRING) for k, about in (
        ("written_by", "the program that wrote the file"), ("name", "the experiment"),
        ("config_hash", "the hash of the last run's config"),
        ("config_path", "the last run's config file"),
        ("reference", "the paper's values file"))),
    Key("config", "meta", "the last run's config", _Json((dict,), "an object")),
    Key("configs", "meta", "every config a run of the folder used, by hash",
        _Json((dict,), "an object (config hash -> config)")),
    Key("history", "meta", "one entry per run", _Json((list,), "a list of runs")),
    Key("skipped_cells", "meta", "the cells a skip rule left out, with its reason",
        _Json((dict,), "an object (dataset -> algorithm -> reason)")),
    Key("task_identities", "meta", "the tasks' identities",
        _Json((list,), "a list of task identities")),
    # a stored config (ExperimentConfig.to_dict), as config and each of configs
    *(Key(k, "config", "", _STRING) for k in ("name", "path", "output", "backend")),
    Key("seed", "config", "", _INTEGER),
    Key("n_jobs", "config", "", _INTEGER),
    Key("protocol", "config", "", _OBJECT),
    Key("reference_methods", "config", "", _OBJECT),
    Key("reference_pooled", "config", "", _Json((bool,), "true or false")),
    Key("metrics", "config", "", _Json((list,), "a list of names")),
    Key("imports", "config", "", _Json((list,), "a list of names")),
    Key("datasets", "config", "", _Json((list,), "a list")),
    Key("algorithms", "config", "", _Json((list,), "a list")),
    Key("name", "protocol", "", _STRING),
    # a stored config's dataset or algorithm entry
    Key("label", "entry", "", _Json((str,), "a string", optional=False)),
    Key("name", "entry", "", _STRING),
    *(Key(k, "entry", "", _OBJECT) for k in ("params", "protocol", "dataset_params")),
    Key("pruner", "entry", "", _Json((dict, str), "an object or a name")),
    Key("only", "entry", "", _Json((list,), "a list")),
    Key("skip", "entry", "", _Json((list,), "a list")),
    # a run of the history
    *(Key(k, "run", "", _STRING) for k in ("started", "finished", "command", "config_hash",
                                            "config_path", "backend", "host", "outcome")),
    Key("n_jobs", "run", "", _INTEGER),
    *(Key(k, "run", "", _OBJECT) for k in ("tasks", "versions", "data")),
)


def _checked(value: dict, scope: str, at: str) -> list[tuple[str, object]]:
    """(field, problem) for each declared field of ``scope`` that ``value`` (an object)
    gives wrong (an absent field is None: wrong only where None is refused), each field
    named ``at`` + its name."""
    out = []
    for name, key in in_scope(META_KEYS, scope).items():
        if not key.check.is_satisfied_by(value.get(name)):
            out.append((f"{at}{name}", key.check.problem(value.get(name))))
    return out


def _each(values, where: str, check: _Json) -> list[tuple[str, str]]:
    """(field, problem) for each item of a list (or value of an object) ``check``
    refuses."""
    items = values.items() if isinstance(values, dict) else enumerate(values or [])
    return [(f"{where}.{k}" if isinstance(values, dict) else f"{where}[{k}]", check.problem(v))
            for k, v in items if not check.is_satisfied_by(v)]


def _config_problems(config, where: str) -> list[tuple[str, str]]:
    """The problems of a stored config (``ExperimentConfig.to_dict``) the readers use; a
    wrong one used to be a TypeError deep in a reader, or rows silently hidden (no task
    identity of the config matched them)."""
    if not _AN_OBJECT.is_satisfied_by(config):
        return [(where, _AN_OBJECT.problem(config))]
    out = _checked(config, "config", f"{where}.")
    wrong = {f for f, _ in out}
    if f"{where}.protocol" not in wrong and config.get("protocol"):
        out += _checked(config["protocol"], "protocol", f"{where}.protocol.")
    for key in ("metrics", "imports"):
        if f"{where}.{key}" not in wrong:
            out += _each(config.get(key), f"{where}.{key}", _NAME)
    for key in ("datasets", "algorithms"):
        if f"{where}.{key}" in wrong:
            continue
        for i, entry in enumerate(config.get(key) or []):
            at = f"{where}.{key}[{i}]"
            if not isinstance(entry, dict):
                out.append((at, _AN_OBJECT.problem(entry)))
            else:
                out += _checked(entry, "entry", f"{at}.")
    return out


def _meta_problems(meta: dict) -> list[tuple[str, str]]:
    out = _checked(meta, "meta", "")
    wrong = {f for f, _ in out}
    if "config" in meta and "config" not in wrong:
        out += _config_problems(meta["config"], "config")
    if "configs" not in wrong:
        for key, config in (meta.get("configs") or {}).items():
            out += _config_problems(config, f"configs.{key}")
    if "history" not in wrong:
        for i, entry in enumerate(meta.get("history") or []):
            if not isinstance(entry, dict):
                out.append((f"history[{i}]", _AN_OBJECT.problem(entry)))
                continue
            runs = _checked(entry, "run", f"history[{i}].")
            out += runs
            if f"history[{i}].tasks" not in {f for f, _ in runs}:
                out += _each(entry.get("tasks") or {}, f"history[{i}].tasks", _INTEGER)
    if "skipped_cells" not in wrong:
        for dataset, cells in (meta.get("skipped_cells") or {}).items():
            if not isinstance(cells, dict):
                out.append((f"skipped_cells.{dataset}", _Json(
                    (dict,), "an object (algorithm -> reason)", optional=False).problem(cells)))
                continue
            out += _each(cells, f"skipped_cells.{dataset}",
                         _Json((str,), "a reason", optional=False))
    if "task_identities" not in wrong:
        out += _each(meta.get("task_identities"), "task_identities",
                     _Json((str,), "a task identity", optional=False))
    return out


def check_meta(meta: dict, path) -> None:
    """The types of the fields of a meta.json (META_KEYS) that obliq reads: an ObliqError
    with a line for every field that is wrong (of a list's items, the first), each naming
    the file and field. (JSON keeps no lines once read, so the field path is the
    place.)"""
    first = {}  # of a list's items, the first wrong one stands for the rest (one damage)
    for where, problem in _meta_problems(meta):
        first.setdefault(re.sub(r"\[\d+\]", "[]", where), (where, problem))
    problems = [f"{path}: {where}: {problem}; the file is damaged: restore it, or rerun "
                f"with --force" for where, problem in first.values()]
    if problems:
        raise several_problems(problems)


def import_config_plugins(meta: dict, where) -> None:
    """Import the plugins the config stored in ``meta`` names (its ``imports``: module
    names and absolute .py paths), so that a reader in a new process (``obliq table``,
    the report, a replay) knows the metrics, protocols, algorithms and datasets they
    register. ObliqError naming ``where`` (the meta.json) when one cannot be imported."""
    config = meta.get("config")
    refs = config.get("imports") if isinstance(config, dict) else None
    if not refs:
        return
    if not isinstance(refs, list) or not all(isinstance(ref, str) for ref in refs):
        raise ObliqError(f"{where}: imports: must be a list of module names or .py files")
    from .. import registry

    for ref in refs:
        try:
            registry.import_plugin(ref)
        except Exception as exc:
            raise ObliqError(f"{where}: imports: {ref} cannot be imported "
                             f"({type(exc).__name__}: {exc})") from None


def is_obliq_meta(meta) -> bool:
    """Whether a meta.json (parsed) is one obliq wrote: ours, or an older one with the
    config and its hash."""
    return isinstance(meta, dict) and (meta.get("written_by") == WRITER or (
        isinstance(meta.get("config"), dict) and "config_hash" in meta))


def _owned_meta(out: Path) -> dict | None:
    """meta.json of ``out`` when obliq wrote it, None when there is none; ObliqError when
    there is one obliq did not write (it is never overwritten or deleted)."""
    path = out / META
    if not path.exists():
        return None
    try:
        meta = read_meta(path, check=False)
    except ObliqError as exc:
        meta = exc
    if not is_obliq_meta(meta):
        reason = f" ({meta})" if isinstance(meta, ObliqError) else ""
        raise ObliqError(f"{path}: not a meta.json written by obliq{reason}; obliq does not "
                         f"overwrite or delete it: move it away or use another output")
    check_meta(meta, path)  # ours, but damaged: said before anything is appended to it
    return meta


def delete_own_files(out: Path) -> None:
    """``--force``: delete what obliq wrote in ``out`` (runs.csv, meta.json, runs.damaged,
    the fold files of the datasets meta.json names and the tasks' prediction files),
    nothing else; refused when
    meta.json or runs.csv is not obliq's."""
    meta = _owned_meta(out)
    runs_path = out / RUNS
    if runs_path.exists():
        if meta is None:
            raise ObliqError(f"{runs_path}: no obliq meta.json beside it, so obliq does not "
                             f"delete it: move it away or use another output")
        read_runs_file(runs_path)  # refuses a file whose header is not ours
    labels = set()
    for config in [meta.get("config")] + list((meta.get("configs") or {}).values()) \
            if meta else []:
        for dataset in (config or {}).get("datasets", []) if isinstance(config, dict) else []:
            if isinstance(dataset, dict) and "label" in dataset:
                labels.add(str(dataset["label"]))
    check_own_files(out, labels)
    safe_io.unlink(runs_path, out)
    safe_io.unlink(out / DAMAGED, out)
    for label in labels:
        safe_io.unlink(fold_file(out, label), out)
    safe_io.remove_empty_folder(out / FOLDS, out)  # files obliq did not write stay
    folder = out / predictions.FOLDER
    for name in sorted(os.listdir(folder)) if folder.is_dir() else ():
        if predictions.OWN_FILE.fullmatch(name):  # a task's file; others stay
            safe_io.unlink(folder / name, out)
    safe_io.remove_empty_folder(folder, out)
    safe_io.unlink(out / META, out)


# --------------------------------------------------------- changed configs on resume
def _differences(old, new, where: str) -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new), key=str):
            out += _differences(old.get(key), new.get(key), f"{where}.{key}")
        return out
    return [] if old == new else [where]


def check_compatible(config: ExperimentConfig, stored: ExperimentConfig,
                     stored_labels: set[str], records: dict, results_dir: Path) -> None:
    """Refuse (ObliqError naming the field) a config that changes the folds of tasks
    already stored: the seed, the protocol (except its repetitions) or a stored dataset's
    name, params or own sizes; and, as a last check, any dataset whose stored folds differ
    from the ones the config makes now (its data changed)."""
    if not stored_labels:
        return
    path = config.path

    def refuse(field_name: str, old, new):
        raise ObliqError(f"{path}: {field_name}: the config changed the folds of tasks "
                         f"already stored in {results_dir} ({old!r} -> {new!r}); use --force "
                         f"to start afresh or another output")

    if stored.seed != config.seed:
        refuse("seed", stored.seed, config.seed)
    old_protocol = {k: v for k, v in stored.to_dict()["protocol"].items() if k != "repeats"}
    new_protocol = {k: v for k, v in config.to_dict()["protocol"].items() if k != "repeats"}
    for name in _differences(drop_none(old_protocol), drop_none(new_protocol), "protocol"):
        key = name.split(".", 1)[1]
        refuse(name, old_protocol.get(key.split(".")[0]), new_protocol.get(key.split(".")[0]))
    old_datasets = {d.label: d for d in stored.datasets}
    for i, dataset in enumerate(config.datasets):
        label = dataset.label
        if label not in stored_labels or label not in old_datasets:
            continue
        old = split_identity(stored, old_datasets[label])
        new = split_identity(config, dataset)
        for name in _differences(old, new, f"datasets[{i}]"):
            part = name.split(".", 1)[1].split(".")[0]
            refuse(name, old.get(part), new.get(part))
    for i, dataset in enumerate(config.datasets):
        label = dataset.label
        stored_file = fold_file(results_dir, label)
        if label not in stored_labels or label not in records or not stored_file.is_file():
            continue
        if not _same_folds(stored_file, records[label]):
            raise ObliqError(f"{path}: datasets[{i}] ({label}): its folds differ from the "
                             f"ones stored in {stored_file} (has its data changed?); use "
                             f"--force to start afresh or another output")


def _same_folds(stored_file: Path, record: dict) -> bool:
    """The stored fold roles equal the new ones on the repetitions both hold."""
    try:
        with safe_io.read_npz(stored_file) as stored:
            old = stored["roles"]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return True  # unreadable (a truncated file too): it is rewritten from the config
    new = record["roles"]
    reps = min(old.shape[0], new.shape[0])
    return old.shape[1:] == new.shape[1:] and bool((old[:reps] == new[:reps]).all())


def fold_record_to_keep(stored_file: Path, record: dict) -> bool:
    """Whether the stored file already holds ``record`` (same or more repetitions)."""
    try:
        with safe_io.read_npz(stored_file) as stored:
            old_reps = stored["roles"].shape[0]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return False
    return old_reps >= record["roles"].shape[0] and _same_folds(stored_file, record)


# ------------------------------------------------------------------- preparing a run
@dataclass
class Prepared:
    """What a run starts from: the tasks done, the header to append with, meta.json to
    continue, notes for the user."""

    done: set[str]
    header: list[str] | None
    meta: dict
    notes: list[str]


def prepare(out: Path, config: ExperimentConfig, records: dict, resume: bool,
            force: bool, check_stored=None) -> Prepared:
    """Check the folder, then (only when everything is fine) delete for ``force`` or
    repair for ``resume``. Returns the starting point of the run. ``check_stored(meta)``,
    when given, is a last check of a resume with stored rows (the code they came from),
    raising ObliqError before anything is repaired."""
    runs_path = out / RUNS
    check_own_files(out, records)
    if force:
        delete_own_files(out)
        return Prepared(set(), None, {}, [])
    meta = _owned_meta(out)
    has_rows = runs_path.exists() and runs_path.stat().st_size > 0
    if not has_rows:
        return Prepared(set(), None, meta or {}, [])
    if not resume:
        raise ObliqError(f"{runs_path} exists: use --resume to continue it or --force to "
                         f"start over")
    if meta is None:
        raise ObliqError(f"{out / META}: missing; cannot resume (use --force to start "
                         f"afresh)")
    runs = read_runs_file(runs_path)
    if runs.header and "task" not in runs.header:
        raise ObliqError(f"{runs_path}: written by an older obliq (no task column); it "
                         f"cannot be resumed: use --force or another output")
    if not isinstance(meta.get("config"), dict):
        raise ObliqError(f"{out / META}: holds no config; cannot resume (use --force)")
    stored = config_of(meta["config"])
    stored_labels = {row["dataset"] for row in runs.rows}
    try:
        if stored is None:
            raise TypeError
        check_compatible(config, stored, stored_labels, records, out)
    except (KeyError, TypeError, AttributeError):
        raise ObliqError(f"{out / META}: its config is not one obliq wrote; cannot resume "
                         f"(use --force)") from None
    if check_stored is not None:
        check_stored(meta)
    notes = []
    note = repair_runs_file(runs_path, runs)
    if note:
        notes.append(note)
    return Prepared(done_tasks(runs.rows), runs.header or None, meta, notes)

