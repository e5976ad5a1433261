"""``obliq agree``: how many of our values agree with the papers', per experiment, algorithm
and metric, and which do not.

A cell is one (dataset, algorithm) value of one metric that both the results and the
experiment's reference file (meta.json ``reference``) give. Both numbers are those ``obliq
table`` prints (``tables.experiment_table``), and a cell is within tolerance exactly when
``obliq table`` marks it ✓: the rule of references.py (``references.agrees`` against
``references.tolerance``), which this module only counts.

Metrics compared: every metric the reference file has for the algorithms present (in the
file's order), or those asked for. Accuracy and error stand in for each other as
``references.values_for`` lets them; ``<metric>@best`` is the best repetition (``obliq table
--best``). Times (NOT_COMPARED) depend on the machine that ran them and are never compared;
each experiment whose reference has them says so once.

A paper's cell counts once. A config metric that is a reading of a paper metric (its
``paper_metric``: HHCART's ``macro_f1_pr_skip`` of the paper's F-measure, ``macro_f1``) is
compared with the same published values and reported beside the paper's metric, but when
both are compared the experiment's total counts the cell by the paper's own metric only
(``counted`` false on the reading's cells): picking, cell by cell, whichever reading happens
to land nearer would make agreement a matter of trying readings. A reading compared alone
(``--metric macro_f1_pr_skip``) is the only reading of its cells and counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd

from ..errors import ObliqError
from ..experiment.metrics import METRICS
from ..experiment.schema import TIME_COLUMNS
from .aggregate import check_metric, failed_tasks
from .references import (
    paper_values,
    read_reference,
    resolve_reference,
)
from .results import Results
from .tables import experiment_table

BEST = "@best"
NOT_COMPARED = tuple(TIME_COLUMNS)  # seconds (wall or CPU) on the machine that ran them
# counted: "false" on a reading's cells when the paper's own metric is compared too
# (each paper cell counts once); within is "true" / "false" (tables.within_text);
# n_tasks, n_flagged, flags: the cell's finished tasks, those flagged degenerate and their
# codes (experiment/degeneracy.py).
CELL_COLUMNS = ["experiment", "dataset", "algorithm", "method", "metric", "mean",
                "paper_mean", "paper_sd", "delta", "tolerance", "within", "counted",
                "n_tasks", "n_flagged", "flags"]
@dataclass
class ExperimentAgreement:
    """One experiment's comparison with its paper.

    ``status`` is "" when it was compared, else why not ("no reference", ...). ``cells``:
    CELL_COLUMNS (``within`` and ``counted`` boolean) plus sd, n_repetitions, paper_text
    and decimals, ordered by algorithm (config order), metric, dataset (config order).
    ``notes``: how the paper's values were matched and what was not compared;
    ``times_skipped``: the reference's NOT_COMPARED metrics for these algorithms;
    ``readings``: reading -> the paper metric it reads, for the readings not counted (the
    paper's own metric was).
    """

    name: str
    status: str = ""
    cells: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=CELL_COLUMNS))
    metrics: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    times_skipped: list[str] = field(default_factory=list)
    readings: dict[str, str] = field(default_factory=dict)
    tasks_ok: int = 0
    tasks_total: int | None = None
    tasks_failed: int = 0
    run_seconds: float | None = None
    unfinished_runs: int = 0


def split_metric(name: str) -> tuple[str, bool]:
    """("n_leaves", True) for a reference's "n_leaves@best"; (name, False) otherwise."""
    if name.endswith(BEST):
        return name[: -len(BEST)], True
    return name, False


def check_asked_metric(name: str) -> str:
    """A ``--metric`` value checked: a known metric, optionally with @best, not a time."""
    base, _ = split_metric(name)
    check_metric(base)
    if base in NOT_COMPARED:
        raise ObliqError(f"--metric {name}: times depend on the machine and are not "
                         f"compared with the papers'")
    return name


def run_time(meta: dict) -> tuple[float | None, int]:
    """(seconds, unfinished): the sum of finished - started over meta.json's history
    entries that have both, and how many entries lack either (a run killed or still
    running). Seconds is None when no entry has both, NaN (unknown) when an entry
    finished before it started (the machine's clock was set back during the run: its
    duration, and so the sum, is not known)."""
    seconds, counted, unfinished = 0.0, 0, 0
    for entry in meta.get("history") or []:
        if not isinstance(entry, dict):
            continue
        try:
            took = (datetime.fromisoformat(entry["finished"])
                    - datetime.fromisoformat(entry["started"])).total_seconds()
        except (KeyError, TypeError, ValueError):
            unfinished += 1
            continue
        if not took >= 0:  # negative, or NaN: not a duration
            took = float("nan")
        seconds += took
        counted += 1
    return (seconds if counted else None), unfinished


def _tasks(part: pd.DataFrame, meta: dict) -> tuple[int, int | None, int]:
    """(ok, total, failed): the experiment's finished tasks, the total its latest run
    planned (meta.json history; None when not recorded) and its failed tasks."""
    total = None
    history = [e for e in meta.get("history") or [] if isinstance(e, dict)]
    if history:
        tasks = history[-1].get("tasks")
        if isinstance(tasks, dict) and isinstance(tasks.get("total"), int):
            total = tasks["total"]
    return int((part["status"] == "ok").sum()), total, failed_tasks(part)


def _reference_metrics(meta: dict) -> list[str]:
    """The metrics of the experiment's reference file in the file's order, except that the
    per-class rates of a kind stand together by class: tpr:1, tpr:2, ... where "tpr:"
    first occurs; each metric of the config's ``metrics`` that is a reading of one of
    them (its ``paper_metric``, e.g. macro_f1_pr_skip of macro_f1) follows that one."""
    names = list(dict.fromkeys(read_reference(resolve_reference(meta))["metric"]))
    first: dict[str, int] = {}
    for i, name in enumerate(names):
        first.setdefault(name.partition(":")[0], i)

    def key(name):
        kind, _, k = name.partition(":")
        return first[kind], int(k) if k.isascii() and k.isdigit() else -1, name

    ordered = sorted(names, key=key)
    readings = [m for m in (meta.get("config") or {}).get("metrics") or []
                if m in METRICS and METRICS[m].paper_metric in ordered]
    for reading in readings:
        if reading not in ordered:
            at = ordered.index(METRICS[reading].paper_metric) + 1
            while at < len(ordered) and ordered[at] in readings:
                at += 1
            ordered.insert(at, reading)
    return ordered


def reading_of(metric: str) -> str:
    """The paper metric that ``metric`` (optionally with @best) is a reading of, with the
    same suffix ("macro_f1" for "macro_f1_pr_skip"); "" when it is no reading."""
    base, best = split_metric(metric)
    declared = METRICS.get(base)
    if declared is None or not declared.paper_metric:
        return ""
    return declared.paper_metric + (BEST if best else "")


def _order(values: pd.Series, order: list[str]) -> pd.Series:
    rank = {v: i for i, v in enumerate(order)}
    return values.map(lambda v: rank.get(v, len(rank)))


def compare_experiment(part: pd.DataFrame, meta: dict, asked: list[str] = (),
                       algorithms: list[str] = ()) -> ExperimentAgreement:
    """The cells of one experiment (its rows of runs.csv, its meta) against its paper.

    ``asked``: the metrics to compare (checked by ``check_asked_metric``); empty: every
    metric of the reference but NOT_COMPARED. ``algorithms``: only these labels (empty:
    all); the tasks counted are all of the experiment's.
    """
    out = ExperimentAgreement(str(meta["name"]))
    out.tasks_ok, out.tasks_total, out.tasks_failed = _tasks(part, meta)
    out.run_seconds, out.unfinished_runs = run_time(meta)
    if resolve_reference(meta) is None:
        out.status = "no reference"
        return out
    if not out.tasks_ok:
        out.status = "no finished task yet"
        return out
    if algorithms:
        part = part[part["algorithm"].isin(algorithms)]
        if not (part["status"] == "ok").any():
            out.status = f"no finished task of {', '.join(algorithms)}"
            return out
    present = set(part.loc[part["status"] == "ok", "algorithm"])
    metrics = asked or _reference_metrics(meta)
    frames, notes, unknown, without = [], [], [], []
    for metric in metrics:
        base, best = split_metric(metric)
        paper, paper_notes = paper_values(meta, metric)
        if not paper["algorithm"].isin(present).any():
            without.append(metric)
            continue
        if base in NOT_COMPARED:
            out.times_skipped.append(metric)
            continue
        try:
            decimals = check_metric(base).decimals
        except ObliqError:
            unknown.append(metric)  # a reference's metric that no loaded plugin registers
            continue
        notes += paper_notes[1:]  # [0] names the file: said once, below
        tidy, dataset_order, algorithm_order, _, _ = experiment_table(part, meta, base,
                                                                      best=best)
        tidy = tidy[tidy["paper_mean"].notna()]
        if tidy.empty:
            without.append(metric)
            continue
        frames.append(tidy.assign(
            experiment=out.name, metric=metric, within=tidy["agrees"], decimals=decimals,
            counted=True,
            _a=_order(tidy["algorithm"], algorithm_order),
            _d=_order(tidy["dataset"], dataset_order),
            _m=len(frames)))
        out.metrics.append(metric)
    # a reading whose paper metric is compared too: beside it, not counted again
    out.readings = {m: reading_of(m) for m in out.metrics if reading_of(m) in out.metrics}
    for i, metric in enumerate(out.metrics):
        if metric in out.readings:
            frames[i] = frames[i].assign(counted=False)
    if frames:
        cells = pd.concat(frames, ignore_index=True).sort_values(["_a", "_m", "_d"],
                                                                 kind="stable")
        out.cells = cells[CELL_COLUMNS + ["sd", "n_repetitions", "paper_text",
                                          "decimals"]].reset_index(drop=True)
    out.notes = [f"paper: {resolve_reference(meta).name}"] + list(dict.fromkeys(notes))
    if out.times_skipped:
        out.notes.append(f"{', '.join(out.times_skipped)} not compared (times depend on the "
                         f"machine)")
    for reading, paper in out.readings.items():
        out.notes.append(f"{reading} reads the paper's {paper}: shown beside it, not "
                         f"counted in the total (each paper cell counts once, by {paper})")
    if unknown:
        out.notes.append(f"{', '.join(unknown)} not compared (not a metric obliq knows)")
    if asked and without:
        out.notes.append(f"no paper value for {', '.join(without)} here")
    return out


def compare(results, metrics=(), algorithms=()) -> list[ExperimentAgreement]:
    """Every experiment of ``results`` (a ``Results``, or ``obliq table``'s paths:
    experiment folders or a folder of them) against its paper, in the order read.

    ``metrics``: compare only these (default: the reference's, times left out);
    ``algorithms``: only these labels (each must occur in the results).
    """
    results = Results.of(results)
    runs = results.runs
    # after reading: the results' config may import a plugin that registers the metric
    asked = list(dict.fromkeys(check_asked_metric(m) for m in metrics))
    chosen = list(dict.fromkeys(algorithms))
    missing = [a for a in chosen if a not in set(runs["algorithm"])]
    if missing:
        raise ObliqError(f"--algorithm: no algorithm {missing[0]!r} in the results "
                         f"(algorithms: {', '.join(dict.fromkeys(runs['algorithm']))})")
    return [compare_experiment(part, meta, asked, chosen)
            for meta, part, _ in results.experiments()]


def tally(cells: pd.DataFrame) -> pd.DataFrame:
    """Per (experiment, algorithm, metric), in the cells' order: within (cells within
    tolerance), compared (cells) and mean_abs_delta (mean |ours - paper|)."""
    keyed = cells.assign(abs_delta=cells["delta"].abs(), within=cells["within"].astype(int))
    return keyed.groupby(["experiment", "algorithm", "metric"], sort=False).agg(
        within=("within", "sum"), compared=("within", "size"),
        mean_abs_delta=("abs_delta", "mean"), decimals=("decimals", "first")).reset_index()


def _holds_flags(n_flagged) -> bool:
    """A cell's n_flagged (a number, or cells.csv's text; blank in a file written before
    flags) counts one or more tasks flagged degenerate."""
    try:
        return float(n_flagged) > 0
    except (TypeError, ValueError):
        return False


def flagged_tally(cells: pd.DataFrame) -> dict[tuple[str, str], tuple[int, int]]:
    """{(metric kind, algorithm): (cells within tolerance, cells outside it) holding
    tasks flagged degenerate} of compared cells (CELL_COLUMNS as numbers, or as a
    summary's cells.csv text), only where there is one; {} for cells without n_flagged."""
    if "n_flagged" not in cells.columns or cells.empty:
        return {}
    rows = cells[[_holds_flags(v) for v in cells["n_flagged"]]]
    within = [str(v).strip().lower() == "true" for v in rows["within"]]
    counted = rows.assign(kind=rows["metric"].map(metric_kind), _in=within).groupby(
        ["kind", "algorithm"], sort=False)["_in"].agg(["sum", "size"])
    return {key: (int(r["sum"]), int(r["size"] - r["sum"])) for key, r in counted.iterrows()}


def metric_kind(metric: str) -> str:
    """"tpr:*" for tpr:1, tpr:2, ...; any other metric is its own kind."""
    kind, sep, _ = metric.partition(":")
    return f"{kind}:*" if sep else metric
