"""``obliq agree``'s page: the cells compared with the papers (``analysis.agreement``, whose
docstring says what is compared and counted) rendered as the tally, the totals and the misses,
or one summary row per experiment."""

from __future__ import annotations

import pandas as pd

from ..analysis.agreement import (
    CELL_COLUMNS,
    ExperimentAgreement,
    _holds_flags,
    compare,
    flagged_tally,
    metric_kind,
    tally,
)
from ..analysis.references import TOLERANCE_POINTS, TOLERANCE_SDS
from ..experiment import degeneracy
from .render import Table, Text, check_format, render
from .tables import flag_mark, format_number, within_text

NOTHING_COMPARED = "no cell has both a value of ours and the paper's"
SUMMARY_COLUMNS = ["experiment", "tasks_ok", "tasks_total", "run_time_s", "unfinished_runs",
                   "agreement"]


def format_duration(seconds: float) -> str:
    """"33 s" under a minute, "25 min" under an hour, else "1 h 05 min" (rounded)."""
    if round(seconds) < 60:
        return f"{round(seconds)} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def agreement_text(result: ExperimentAgreement) -> str:
    """The compact agreement of one experiment: "test_accuracy: A 9/9, B 8/9; n_leaves:
    ...; tpr:*: A 20/24" (metrics in the reference's order, algorithms in the config's;
    per-class rates summed over the classes), or its status."""
    if result.status:
        return result.status
    if result.cells.empty:
        return NOTHING_COMPARED
    counts = tally(result.cells)
    # The per-class rates of a kind (tpr:1, tpr:2, ...) count together as "tpr:*", so a
    # table of rates reads as one entry per algorithm.
    counts["kind"] = counts["metric"].map(metric_kind)
    flagged = flagged_tally(result.cells)
    parts = []
    for kind in dict.fromkeys(map(metric_kind, result.metrics)):
        rows = counts[counts["kind"] == kind].groupby("algorithm", sort=False)[
            ["within", "compared"]].sum()
        parts.append(f"{reading_text(kind, result.readings.get(kind))}: " + ", ".join(
            tally_entry(a, r.within, r.compared, flagged.get((kind, a)))
            for a, r in rows.iterrows()))
    return "; ".join(parts)


def tally_entry(algorithm, within: int, compared: int, flagged=None) -> str:
    """"A 8/9" of ``agreement_text``, and when some of those cells hold tasks flagged
    degenerate (``flagged``: (within, outside) of ``flagged_tally``) how many on each
    side: "A 8/9 (⚠ flagged: 1 within, 1 outside)"."""
    text = f"{algorithm} {within}/{compared}"
    if flagged:
        text += f" ({degeneracy.MARK} flagged: {flagged[0]} within, {flagged[1]} outside)"
    return text


def tolerance_rule() -> str:
    return (f"A cell (dataset, algorithm, metric) is within tolerance when |ours - paper| <= "
            f"max({TOLERANCE_POINTS:g}, {TOLERANCE_SDS:g} × paper sd) in the metric's unit "
            f"(the floor is {TOLERANCE_POINTS / 100:g} for a fraction in [0, 1]; a blank "
            f"paper sd counts as 0): the ✓ of `obliq table`, obliq_cli/analysis/references.py. "
            f"Ours are as `obliq table` prints them; <metric>@best is the best repetition "
            f"(`--best`).")


def flagged_text(cells: pd.DataFrame) -> str:
    """"⚠ 2 of 30 cells compared hold tasks flagged degenerate: d1 / A (...)" of one
    experiment's compared cells (CELL_COLUMNS, as numbers or as the summary's text;
    cells.csv written before flags has no n_flagged and says nothing), "" when none."""
    if "n_flagged" not in cells.columns or cells.empty:
        return ""
    flagged = cells[[_holds_flags(v) for v in cells["n_flagged"]]]
    if flagged.empty:
        return ""
    listed = flagged.drop_duplicates(["dataset", "algorithm"])
    return (f"{degeneracy.MARK} {len(flagged)} of {len(cells)} cells compared hold tasks "
            f"flagged degenerate: " + degeneracy.cells_text(
                (r.dataset, r.algorithm, int(float(r.n_flagged)), int(float(r.n_tasks)),
                 str(r.flags).split(";")) for r in listed.itertuples()))


def _total_line(result: ExperimentAgreement) -> str:
    if result.status:
        return total_line(result.name, result.status)
    cells = result.cells
    if len(cells):
        counted = cells[cells["counted"].astype(bool)]
        head = f"{int(counted['within'].sum())} of {len(counted)} cells within tolerance"
    else:
        head = NOTHING_COMPARED
    flagged = flagged_text(cells)
    return total_line(result.name, head, result.notes + ([flagged] if flagged else []))


def total_line(name: str, head: str, notes=()) -> str:
    """"- name: head; note; note": an experiment's line under the tally."""
    return f"- {name}: " + "; ".join([head, *notes])


def telling_decimals(delta: float, tolerance: float, decimals: int) -> int:
    """The metric's decimals, or more until |delta| and the tolerance print differently (a
    miss by 0.021 against 0.02 must not read "-0.02" beside "0.02")."""
    for d in range(decimals, decimals + 4):
        if f"{abs(delta):.{d}f}" != f"{tolerance:.{d}f}":
            return d
    return decimals + 4


def ours_text(mean: float, sd: float, decimals: int, n_flagged) -> str:
    """A cell of ours as the tables print it: "mean ± sd" (the mean alone without an sd),
    then ⚠ when it holds flagged tasks."""
    text = format_number(mean, decimals)
    if not pd.isna(sd):
        text += f" ± {format_number(sd, decimals)}"
    return text + flag_mark(n_flagged)


def miss_row(experiment, dataset, algorithm, metric, ours: str, paper_text, delta: float,
             tolerance: float, decimals: int) -> list:
    """A row of the misses table, delta and tolerance with ``telling_decimals``."""
    d = telling_decimals(delta, tolerance, decimals)
    return [experiment, dataset, algorithm, metric, ours, paper_text,
            format_number(delta, d, sign=True), format_number(tolerance, d)]


def _misses_rows(results: list[ExperimentAgreement]) -> list[list[str]]:
    return [miss_row(c.experiment, c.dataset, c.algorithm, c.metric,
                     ours_text(c.mean, c.sd, c.decimals, c.n_flagged), c.paper_text, c.delta,
                     c.tolerance, c.decimals)
            for result in results
            for c in result.cells[~result.cells["within"].astype(bool)].itertuples()]


def reading_text(metric: str, paper: str | None) -> str:
    """The metric's name, marked when it is a reading not counted in the total."""
    return f"{metric} (reads {paper}; not counted)" if paper else metric


TALLY_HEADERS = ["experiment", "algorithm", "metric", "within/compared", "mean abs diff"]
MISSES_HEADERS = ["experiment", "dataset", "algorithm", "metric", "ours", "paper", "delta",
                  "tolerance"]


def tally_row(experiment, algorithm, metric: str, reads: str | None, within, compared,
              mean_abs_delta: float, decimals: int) -> list:
    """A row of the tally: the metric (marked when a reading not counted), within/compared
    and the mean |ours - paper|."""
    return [experiment, algorithm, reading_text(metric, reads), f"{within}/{compared}",
            format_number(mean_abs_delta, decimals)]


def agreement_page(tally: list[list], totals: list[str], misses: list[list]) -> list:
    """``obliq agree``'s page (``render.render``): the tolerance rule, the tally
    (``tally_row``s, none without a compared cell), a ``total_line`` per experiment, then
    the misses (``miss_row``s) or a line saying there are none. ``tools/docs.py`` renders
    the same page from the committed summary."""
    blocks = [Text(tolerance_rule())]
    if tally:
        blocks.append(Table(TALLY_HEADERS, tally))
    blocks.append(Text(*totals))
    if misses:
        blocks += [Text(f"Misses ({len(misses)}):"), Table(MISSES_HEADERS, misses)]
    else:
        blocks.append(Text("Misses: none."))
    return [blocks]


def _page(results: list[ExperimentAgreement]) -> list:
    compared = [r for r in results if not r.cells.empty]
    rows = []
    if compared:
        counts = pd.concat([tally(r.cells) for r in compared], ignore_index=True)
        readings = {(r.name, m): p for r in compared for m, p in r.readings.items()}
        rows = [tally_row(r.experiment, r.algorithm, r.metric,
                           readings.get((r.experiment, r.metric)), r.within, r.compared,
                           r.mean_abs_delta, int(r.decimals)) for r in counts.itertuples()]
    return agreement_page(rows, [_total_line(r) for r in results], _misses_rows(results))


def _cells_frame(results: list[ExperimentAgreement]) -> pd.DataFrame:
    frames = [r.cells for r in results if not r.cells.empty]
    if not frames:
        return pd.DataFrame(columns=CELL_COLUMNS)
    cells = pd.concat(frames, ignore_index=True)
    cells = cells.assign(within=within_text(cells.assign(agrees=cells["within"].astype(bool))),
                         counted=within_text(cells.assign(agrees=cells["counted"].astype(bool))))
    return cells[CELL_COLUMNS]


def _run_time_text(result: ExperimentAgreement) -> str:
    return run_time_text(result.run_seconds, result.unfinished_runs)


def run_time_text(seconds: float | None, unfinished: int) -> str:
    """The run time column: the runs' summed duration, "+n unfinished runs" beside it."""
    text = "" if seconds is None else "unknown (the clock went back)" \
        if seconds != seconds else format_duration(seconds)
    if unfinished:
        more = f"+{unfinished} unfinished run" + ("s" if unfinished != 1 else "")
        text = f"{text} ({more})" if text else more
    return text


def tasks_text(ok: int, total: int | None, failed: int) -> str:
    """The tasks column: "ok", "ok of total" when some are missing, "(n failed)"."""
    text = str(ok)
    if total is not None and ok < total:
        text += f" of {total}"
    if failed:
        text += f" ({failed} failed)"
    return text


SUMMARY_HEADERS = ["experiment", "tasks ok", "run time", "agreement"]


def summary_page(rows: list[list], skipped: list[str]) -> list:
    """``obliq agree --summary``'s page (``render.render``): a row per experiment
    (experiment, ``tasks_text``, ``run_time_text``, ``agreement_text``) and the metrics
    not compared; ``tools/docs.py`` renders the same page from the committed summary."""
    blocks = [Text("Agreement with the papers: per metric and algorithm, the cells within "
                   "tolerance of the paper's / the cells compared (`obliq agree`; the rule "
                   "of `obliq table`'s ✓, obliq_cli/analysis/references.py). Run time: the "
                   "sum over the results' runs (meta.json history)."),
              Table(SUMMARY_HEADERS, rows)]
    if skipped:
        blocks.append(Text(f"{', '.join(skipped)}: not compared (times depend on the "
                           f"machine)."))
    return [blocks]


def _summary(results: list[ExperimentAgreement], fmt: str) -> str:
    if fmt == "csv":
        frame = pd.DataFrame(
            [[r.name, r.tasks_ok, r.tasks_total, r.run_seconds, r.unfinished_runs,
              agreement_text(r)] for r in results], columns=SUMMARY_COLUMNS)
        frame["tasks_total"] = frame["tasks_total"].astype("Int64")
        return render(frame, fmt)
    rows = [[r.name, tasks_text(r.tasks_ok, r.tasks_total, r.tasks_failed),
             _run_time_text(r), agreement_text(r)] for r in results]
    return render(summary_page(rows, list(dict.fromkeys(
        m for r in results for m in r.times_skipped))), fmt)


def render_agreement(results, metrics=(), algorithms=(), fmt: str = "md",
                     summary: bool = False) -> str:
    """``obliq agree``: the agreement of every experiment of ``results`` (a ``Results`` or
    the paths to read) with its paper.

    md: the tally per (experiment, algorithm, metric) with within/compared and the mean
    |ours - paper|, a total line per experiment (what was not compared and why), then the
    misses. csv: one row per compared cell (CELL_COLUMNS), enough to recompute everything.
    ``summary``: one row per experiment instead (tasks ok, run time, ``agreement_text``).
    """
    check_format(fmt)
    results = compare(results, metrics, algorithms)
    if summary:
        return _summary(results, fmt)
    return render(_cells_frame(results) if fmt == "csv" else _page(results), fmt)

