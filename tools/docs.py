"""The run-derived figures of README.md and docs/*.md, rendered from the committed summary.

``make reproductions`` summarises results folders into ``docs/results/`` (summary.py)
and then renders every marked figure of the docs from those files, in place: prose is
written by hand, numbers are not. Two kinds of marks, both HTML comments that markdown
does not show:

Blocks, whole generated sections::

    <!-- obliq agree: begin -->
    (generated)
    <!-- obliq agree: end -->

``obliq agree``
    ``obliq agree --summary`` of every summarised config (the same table, from the summary).
``obliq agreement``
    the full ``obliq agree``: the tally per metric, the totals and the misses.
``obliq claims``
    ``obliq claims`` of every paper with a summarised config.
``obliq runs``
    per config where its figures come from: date, commit, tasks, wall time, the tasks'
    wall fit times summed, jobs, machine and load, or the source of a summary not made
    from kept results.
``obliq table CONFIG METRIC``
    ``obliq table``'s wide table of one metric: a row per dataset; ours, the paper's and Δ
    per algorithm (✓ within tolerance).
``obliq table CONFIG METRIC[=TITLE],METRIC[=TITLE] DATASET``
    one dataset's row per algorithm, those metrics side by side.
``obliq bench``
    the speed targets' table from ``bench.csv`` (``benchmarks/bench_targets.py --csv``).
``obliq benchmark [CONFIG]``
    a benchmark's ranking, CD diagrams, Bayesian summary of the papers' methods and
    sentences read off them, from ``docs/results/CONFIG/`` (default ``benchmark``;
    leaderboard.py), or "not yet run" / a labelled partial summary.
``obliq ranking [CONFIG] N``
    the first N places of a benchmark's ranking (default ``benchmark``) and a link to
    docs/benchmark.md: the README's headline.
``obliq config``
    every config key, a table per place it may appear (top level, dataset entry,
    algorithm entry, protocol, ...): what it takes, its default, what it does, rendered
    from the one declaration the config reader checks with (``obliq_cli.config_schema``).
``obliq invariances``
    what every built-in algorithm declares it keeps of each transformation
    (``obliq_cli.invariances``), read from the registry rather than the summary: the
    table that tests/algorithms/test_invariances.py holds the algorithms to.

Inline figures: ``<!--= EXPRESSION -->VALUE<!--/-->``, VALUE rewritten from EXPRESSION
(words split as a shell does, so a quoted word may hold spaces):

- ``agree CONFIGS METRIC ALGORITHMS``: "within/compared", summed over CONFIGS and
  ALGORITHMS (each ``+``-joined, ``*`` for all; METRIC ``*``: every metric read as
  printed) and over METRIC's per-class rates when it is a kind such as ``tpr:*``;
  ``agree-of``: "within of compared"; ``within`` and ``compared``: one of the two;
  ``agree-list CONFIG METRIC``: "A w/c, B w/c" per algorithm.
- ``cell CONFIG METRIC ALGORITHM DATASET FIELD[:DECIMALS]``: one cell; FIELD mean, sd,
  mean_sd ("mean ± sd"), paper (as printed), paper_mean, delta, abs_delta, tolerance, n;
  the metric's decimals unless given.
- ``misses CONFIG METRIC [ALGORITHMS]``: "A on d1 and d2, B on d3", the cells out of
  tolerance.
- ``range CONFIG METRIC DATASET ALGORITHMS FIELD[:DECIMALS]``: "lo to hi" of mean,
  delta or abs_delta over those algorithms' cells; ``mad CONFIGS METRIC ALGORITHMS
  DECIMALS``: the mean |ours - paper| over their cells (an ablation's reading, say).
- ``run CONFIG FIELD``: wall and fit (durations), tasks, date, or any key of run.csv.
- ``bench MEASURE FIELD``: a cell of bench.csv's row MEASURE; ``fit ALGORITHM DATASET
  ROWS FIELD``: a cell of bench_fits.csv (seconds, s_per_1000_rows, ms_per_node, nodes).

``render`` is the one pure function (text, summary -> text); ``stale`` names what differs
from the committed file, which tests/tools/test_docs_generated.py asserts is nothing.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from obliq_cli import config_schema, registry
from obliq_cli.analysis.agreement import flagged_tally, metric_kind
from obliq_cli.analysis.claims import UNTESTABLE, read_claims, shipped_claims
from obliq_cli.analysis.tables import degenerate_note
from obliq_cli.errors import ObliqError
from obliq_cli.invariances import ROUNDING_TOLERANCE, invariance_table
from obliq_cli.report.agreement import (
    NOTHING_COMPARED,
    agreement_page,
    flagged_text,
    format_duration,
    miss_row,
    ours_text,
    reading_text,
    run_time_text,
    summary_page,
    tally_entry,
    tally_row,
    tasks_text,
    total_line,
)
from obliq_cli.report.claims import claim_row, claims_page
from obliq_cli.report.render import md_table
from obliq_cli.report.render import render as render_page
from obliq_cli.report.tables import flag_mark, format_number, wide_rows
from tools.leaderboard import benchmark_block, ranking_top, read_benchmark, text_csv
from tools.summary import FROM_RESULTS

BLOCK = re.compile(r"^<!-- (obliq [^\n]*?): begin -->\n(.*?)^<!-- \1: end -->$",
                   re.DOTALL | re.MULTILINE)
INLINE = re.compile(r"<!--= (.+?) -->(.*?)<!--/-->")
FIX = "make reproductions"
# every page holding a generated block or figure (the documentation site's pages under
# docs/ and the README's headline block)
DOCS = ("README.md", "docs/reproduction.md", "docs/agreement.md", "docs/reproduced/index.md",
        "docs/benchmark.md", "docs/internals.md", "docs/guide/algorithms.md",
        "docs/guide/configs.md", "docs/reproduced/apdt.md", "docs/reproduced/gdt.md",
        "docs/reproduced/hhcart.md", "docs/reproduced/oc1.md", "docs/reproduced/umt.md")


@dataclass
class Summary:
    """docs/results read back: per config its run facts (key -> text), agree, cells and
    claims frames (every value as text, as written), and the bench files if present."""

    runs: dict = field(default_factory=dict)
    agree: dict = field(default_factory=dict)
    cells: dict = field(default_factory=dict)
    claims: dict = field(default_factory=dict)
    bench: pd.DataFrame | None = None
    fits: pd.DataFrame | None = None
    benchmarks: dict = field(default_factory=dict)
    where: str = "docs/results"



def read_summary(folder) -> Summary:
    """Every config folder of ``folder`` (one with a run.csv) and its bench files."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ObliqError(f"{folder}: no summary folder (run `{FIX}`)")
    out = Summary(where=str(folder))
    for sub in sorted(p for p in folder.iterdir() if (p / "run.csv").is_file()
                      and not p.name.startswith(".")):
        facts = text_csv(sub / "run.csv")
        if list(facts.columns) != ["key", "value"]:
            raise ObliqError(f"{sub / 'run.csv'}: columns must be key, value")
        out.runs[sub.name] = dict(zip(facts["key"], facts["value"]))
        for name, store in (("agree", out.agree), ("cells", out.cells),
                            ("claims", out.claims)):
            path = sub / f"{name}.csv"
            if path.is_file():
                store[sub.name] = text_csv(path)
    for sub in sorted(p for p in folder.iterdir() if (p / "facts.csv").is_file()
                      and not p.name.startswith(".")):
        out.benchmarks[sub.name] = read_benchmark(sub)
    if (folder / "bench.csv").is_file():
        out.bench = text_csv(folder / "bench.csv")
    if (folder / "bench_fits.csv").is_file():
        out.fits = text_csv(folder / "bench_fits.csv")
    return out


# --- helpers -------------------------------------------------------------------------------

def _link_base(where: str, page=None) -> str:
    """The summary folder as the page ``page`` links to it: the committed docs/results
    relative to the page's folder (``docs/results`` from README.md, ``results`` from a page
    of docs/; README.md's when no page is given), however the folder was given (an
    absolute path renders the same text); any other folder as given."""
    folder = Path(where).resolve()
    if tuple(folder.parts[-2:]) != ("docs", "results"):
        return where
    if page is None:
        return "docs/results"
    return Path(os.path.relpath(folder, Path(page).resolve().parent)).as_posix()


def _int(text) -> int:
    return int(float(text)) if str(text).strip() else 0


def _seconds(text) -> float | None:
    return float(text) if str(text).strip() else None


def _config(summary: Summary, name: str) -> dict:
    """A config's run facts: a paper config's run.csv, or a benchmark's facts.csv (the
    same keys for the run: tasks, wall time, fit time, date)."""
    if name in summary.runs:
        return summary.runs[name]
    if name in summary.benchmarks:
        return summary.benchmarks[name]["facts"]
    raise ObliqError(f"no summary of config {name!r} in {summary.where}")


def _pick(names: str, present) -> list[str]:
    present = list(present)
    if names == "*":
        return present
    return names.split("+")


# --- blocks --------------------------------------------------------------------------------

def _tasks_text(facts: dict) -> str:
    """``agreement.tasks_text`` of a config's run facts."""
    total = facts.get("tasks_total", "")
    return tasks_text(_int(facts.get("tasks_ok", "")), _int(total) if str(total).strip()
                      else None, _int(facts.get("tasks_failed", "")))


def _run_time_text(facts: dict) -> str:
    """``agreement.run_time_text`` of a config's run facts."""
    return run_time_text(_seconds(facts.get("run_seconds", "")),
                         _int(facts.get("unfinished_runs", "")))


def agreement_text(summary: Summary, name: str) -> str:
    """``agreement.agreement_text`` from a config's agree.csv (metrics in the file's order,
    per-class rates summed as one kind)."""
    facts = _config(summary, name)
    agree = summary.agree.get(name)
    if agree is None or agree.empty:
        return facts.get("note") or NOTHING_COMPARED
    kinds = agree.assign(kind=agree["metric"].map(metric_kind),
                         within=agree["within"].map(_int), compared=agree["compared"].map(_int))
    flagged = flagged_tally(summary.cells.get(name, pd.DataFrame()))
    parts = []
    for kind, rows in kinds.groupby("kind", sort=False):
        counts = rows.groupby("algorithm", sort=False)[["within", "compared"]].sum()
        reads = next((r for r in rows["reads"] if r), None)
        parts.append(f"{reading_text(kind, reads)}: " + ", ".join(
            tally_entry(a, r.within, r.compared, flagged.get((kind, a)))
            for a, r in counts.iterrows()))
    return "; ".join(parts)


def agree_block(summary: Summary) -> str:
    """What ``obliq agree --summary`` prints (``agreement.summary_page``), from the summary."""
    rows = [[name, _tasks_text(f), _run_time_text(f), agreement_text(summary, name)]
            for name, f in summary.runs.items()]
    skipped = list(dict.fromkeys(m for f in summary.runs.values()
                                 for m in f.get("not_compared", "").split("; ") if m))
    return render_page(summary_page(rows, skipped), "md")


def agreement_block(summary: Summary) -> str:
    """What ``obliq agree`` prints (``agreement.agreement_page``), from the summary: the
    tally per (experiment, algorithm, metric), a total line per experiment, then the misses
    that the summary holds (all of them for a config summarised from its results)."""
    tally = []
    for name, agree in summary.agree.items():
        # obliq agree lists the tally by algorithm (config order), then metric
        order = {a: i for i, a in enumerate(dict.fromkeys(agree["algorithm"]))}
        agree = agree.sort_values("algorithm", key=lambda c: c.map(order), kind="stable")
        for r in agree.itertuples():
            mean = float(r.mean_abs_delta) if str(r.mean_abs_delta).strip() else float("nan")
            tally.append(tally_row(name, r.algorithm, r.metric, r.reads or None, r.within,
                                   r.compared, mean, _int(r.decimals)))
    totals = []
    for name, facts in summary.runs.items():
        agree = summary.agree.get(name)
        if agree is None or agree.empty:
            totals.append(total_line(name, facts.get("note") or NOTHING_COMPARED))
            continue
        counted = agree[agree["reads"] == ""]
        head = (f"{sum(map(_int, counted['within']))} of {sum(map(_int, counted['compared']))} "
                f"cells within tolerance")
        notes = [n for n in (facts.get("agree_notes", ""),) if n]
        if facts.get("source") != FROM_RESULTS:
            notes.append(f"figures from the {facts.get('source')}; of the misses, the "
                         f"summary holds only those below")
        flagged = flagged_text(summary.cells.get(name, pd.DataFrame()))
        if flagged:
            notes.append(flagged)
        totals.append(total_line(name, head, notes))
    misses = [miss_row(name, c["dataset"], c["algorithm"], c["metric"], _ours(c),
                       c["paper_text"], float(c["delta"]), float(c["tolerance"]),
                       _int(c["decimals"]))
              for name, cells in summary.cells.items()
              for _, c in cells[cells["within"] != "true"].iterrows()]
    return render_page(agreement_page(tally, totals, misses), "md")


def claims_block(summary: Summary, claim_files=(), paper: str | None = None) -> str:
    """What ``obliq claims`` prints (``claims.claims_page``), from the summary: the
    verdicts of the summarised configs, the quotes from the claims files; with ``paper``
    (a claims file's stem: oc1, apdt, ...) only that paper's."""
    rows = []
    files = list(claim_files) or shipped_claims()
    if paper is not None:
        files = [path for path in files if Path(path).stem == paper]
        if not files:
            raise ObliqError(f"no claims file of paper {paper!r}")
    for path in files:
        claims = read_claims(path)
        if not any(c.experiment in summary.runs for c in claims):
            continue
        rows += [claim_row(c, *_verdict(summary, c)) for c in claims]
    return render_page(claims_page(rows), "md")


def _verdict(summary: Summary, claim) -> tuple[str, str]:
    if claim.kind == "not_testable":
        return UNTESTABLE, claim.why
    facts = summary.runs.get(claim.experiment)
    if facts is None:
        return UNTESTABLE, f"no results of experiment {claim.experiment}"
    if facts.get("source") != FROM_RESULTS:
        return UNTESTABLE, f"{claim.experiment}: {facts.get('source')}"
    table = summary.claims.get(claim.experiment)
    found = None if table is None else table[table["claim"] == claim.id]
    if found is None or found.empty:
        return UNTESTABLE, (f"not in the summary of {claim.experiment} "
                            f"({facts.get('summarized')}); run `{FIX}`")
    row = found.iloc[0]
    return row["verdict"], row["evidence"]


def runs_block(summary: Summary) -> str:
    """Where each config's figures come from."""
    rows = []
    for name, f in summary.runs.items():
        if f.get("source") != FROM_RESULTS:
            rows.append([name, f.get("source", ""), "", _tasks_text(f), _run_time_text(f),
                         "", "", "", ""])
            continue
        fit = _seconds(f.get("fit_seconds", ""))
        machine = f.get("cpu", "")
        if f.get("cores"):
            machine = f"{machine}, {f['cores']} cores" if machine else f"{f['cores']} cores"
        rows.append([name, f"results of {f.get('started', '')[:10]}", f.get("commit", ""),
                     _tasks_text(f), _run_time_text(f),
                     "" if fit is None else format_duration(fit), f.get("jobs", ""),
                     machine or f.get("host", ""), f.get("load", "")])
    table = md_table(rows, ["experiment", "figures from", "commit", "tasks ok", "run time",
                              "fit time (wall)", "jobs", "machine", "load at start"])
    notes = [f"- {name}: {f['note']}" for name, f in summary.runs.items() if f.get("note")]
    return "\n\n".join([table] + (["\n".join(notes)] if notes else []))


def _cells(summary: Summary, name: str) -> pd.DataFrame:
    _config(summary, name)
    cells = summary.cells.get(name)
    if cells is None or cells.empty:
        raise ObliqError(f"no cells in the summary of {name!r} ({summary.where})")
    return cells


def _flagged(c) -> int:
    """The tasks of a cells.csv row flagged degenerate (0 for a file written before
    flags)."""
    return _int(c.get("n_flagged", ""))


def _ours(c, d: int | None = None) -> str:
    """``agreement.ours_text`` of a cells.csv row."""
    sd = float(c["sd"]) if str(c["sd"]).strip() else float("nan")
    return ours_text(float(c["mean"]), sd, _int(c["decimals"]) if d is None else d,
                     _flagged(c))


def _tidy(part: pd.DataFrame) -> pd.DataFrame:
    """cells.csv rows of one metric as the tidy rows of ``tables.experiment_table`` (numbers,
    the ✓ as agrees, no test marks), which ``tables.wide_rows`` lays out as ``obliq table``
    does."""
    def numbers(column):
        return part[column].map(lambda t: float(t) if str(t).strip() else float("nan"))

    tidy = pd.DataFrame({"dataset": part["dataset"], "algorithm": part["algorithm"],
                         "method": part["method"], "mean": numbers("mean"),
                         "sd": numbers("sd"), "mark": "", "paper_text": part["paper_text"],
                         "paper_mean": numbers("paper_mean"), "delta": numbers("delta"),
                         "agrees": part["within"] == "true"})
    if "n_flagged" in part.columns:
        tidy = tidy.assign(n_flagged=[_flagged(r) for _, r in part.iterrows()],
                           n_tasks=part["n_tasks"].map(_int), flags=part["flags"],
                           n_undecided=0)
    return tidy.reset_index(drop=True)


def _delta(c) -> str:
    if not str(c["delta"]).strip():
        return ""
    mark = " ✓" if c["within"] == "true" else ""
    return format_number(float(c["delta"]), _int(c["decimals"]), sign=True) + mark


def table_block(summary: Summary, name: str, metrics: str, dataset: str | None = None) -> str:
    """``obliq table``'s wide layout of one metric (a row per dataset), or with ``dataset``
    a row per algorithm and the metrics side by side (each ``metric=title``)."""
    cells = _cells(summary, name)
    if dataset is None:
        part = cells[cells["metric"] == metrics]
        if part.empty:
            raise ObliqError(f"no cells of metric {metrics!r} in the summary of {name!r}")
        tidy = _tidy(part)
        headers, rows, _ = wide_rows(tidy, list(dict.fromkeys(tidy["dataset"])),
                                     list(dict.fromkeys(tidy["algorithm"])), None,
                                     _int(part["decimals"].iloc[0]))
        # the note lists the flagged cells as the file holds them (by algorithm)
        return "\n\n".join([md_table(rows, headers)] + degenerate_note(tidy))
    wanted = [m.partition("=") for m in metrics.split(",")]
    part = cells[cells["dataset"] == dataset]
    headers = ["method"]
    for metric, _, title in wanted:
        headers += [title or metric, "paper", "Δ"]
    rows = []
    for a in dict.fromkeys(part["algorithm"]):
        row = [a]
        for metric, _, _ in wanted:
            found = part[(part["algorithm"] == a) & (part["metric"] == metric)]
            row += ["", "", ""] if found.empty else [
                _ours(found.iloc[0]), found.iloc[0]["paper_text"], _delta(found.iloc[0])]
        rows.append(row)
    if not rows:
        raise ObliqError(f"no cells of dataset {dataset!r} in the summary of {name!r}")
    chosen = part[part["metric"].isin([metric for metric, _, _ in wanted])]
    once = chosen.drop_duplicates(["dataset", "algorithm"])
    return "\n\n".join([md_table(rows, headers)] + degenerate_note(_tidy(once)))


def paper_configs(summary: Summary, paper: str) -> list[str]:
    """The summarised configs of one paper: the shipped configs are named ``<paper>_...``
    (oc1_jair, hhcart_uci, ...), as their claims files are ``<paper>.yaml``."""
    return sorted(name for name in summary.cells if name.split("_")[0] == paper)


def _table_command(name: str, metric: str) -> str:
    base, _, best = metric.partition("@")
    return f"obliq table results/{name} --metric {base}" + (" --best" if best else "")


def paper_block(summary: Summary, paper: str) -> str:
    """One paper's page: per config of the paper, its agreement tally and, per metric
    the paper prints (the per-class rates tpr:K / tnr:K are left to the agreement page),
    ``obliq table``'s ours-beside-the-paper's (``table_block``); then the paper's claims
    with their verdicts (``claims_block``). The same renderers as the pages of every
    paper, split per paper."""
    names = paper_configs(summary, paper)
    if not names:
        raise ObliqError(f"no summarised config of paper {paper!r} in {summary.where}")
    parts = []
    for name in names:
        cells = _cells(summary, name)
        printed = cells.loc[cells["paper_text"].fillna("") != "", "metric"]
        parts.append(f"### {name}\n\nWithin the tolerance: {agreement_text(summary, name)}.")
        for metric in dict.fromkeys(printed):
            if ":" in metric:
                continue
            parts.append(f"`{_table_command(name, metric)}`\n\n"
                         + table_block(summary, name, metric))
    parts.append("### Claims\n\n" + claims_block(summary, paper=paper))
    return "\n\n".join(parts)


def bench_block(summary: Summary) -> str:
    """The speed targets' table from bench.csv, with when and where it was measured."""
    if summary.bench is None:
        raise ObliqError(f"no bench.csv in {summary.where} (run `make bench`)")
    b = summary.bench
    rows = [[r["measure"], r["target"], r["seen"], r["met"]] for _, r in b.iterrows()]
    runs = b.groupby(["date", "commit", "machine", "source"], sort=False).size()
    said = "; ".join(
        f"{source} of {date}" + (f", commit {commit}" if commit else "")
        + (f", {machine}" if machine else "") + f" ({n} rows)"
        for (date, commit, machine, source), n in runs.items())
    return md_table(rows, ["measure", "target", "seen", "met"]) + f"\n\nMeasured: {said}."


def invariance_block() -> str:
    """The built-in algorithms' declared invariances, a row each in name order, then the
    legend and the numbered reasons (``invariances.invariance_table``)."""
    entries = [(e.name, registry.invariances(e.name)) for e in registry.list_algorithms()
               if e.name in registry.BUILTIN_ALGORITHMS]
    headers, rows, reasons = invariance_table(entries)
    tolerance = f"{ROUNDING_TOLERANCE:.0e}".replace("e-0", "e-")
    legend = (f"✓ the same predictions to the bit; ≈ the same up to rounding (a test row "
              f"within {tolerance}, relative, of a split may go the other way); "
              f"✗ n not kept, for reason n below (✗ n*: read from the method, the test's "
              f"data do not show it); – n not applicable.")
    notes = "\n".join(f"{i}. {reason}" for i, reason in enumerate(reasons, 1))
    return "\n\n".join([md_table(rows, headers), legend, notes])


def config_block() -> str:
    """The config reference: for each scope of ``config_schema.SCOPES`` a heading line
    (where it is read) and a table of its keys."""
    parts = []
    for scope, (where, title) in config_schema.SCOPES.items():
        at = f" (`{where}`)" if where else ""
        parts.append(f"**{title[0].upper()}{title[1:]}**{at}\n\n"
                     + md_table(config_schema.reference_rows(scope),
                                ["key", "takes", "default", "what it does"]))
    return "\n\n".join(parts)


def _block(summary: Summary, words: list[str], page=None) -> str:
    kind, args = words[0], words[1:]
    if kind == "agree" and not args:
        return agree_block(summary)
    if kind == "agreement" and not args:
        return agreement_block(summary)
    if kind == "claims" and len(args) <= 1:
        return claims_block(summary, paper=args[0] if args else None)
    if kind == "paper" and len(args) == 1:
        return paper_block(summary, args[0])
    if kind == "runs" and not args:
        return runs_block(summary)
    if kind == "bench" and not args:
        return bench_block(summary)
    if kind == "table" and len(args) in (2, 3):
        return table_block(summary, *args)
    if kind == "invariances" and not args:
        return invariance_block()
    if kind == "config" and not args:
        return config_block()
    if kind == "benchmark" and len(args) <= 1:
        name = args[0] if args else "benchmark"
        return benchmark_block(summary.benchmarks.get(name), name,
                               _link_base(summary.where, page))
    if kind == "ranking" and len(args) in (1, 2) and args[-1].isdigit():
        name = args[0] if len(args) == 2 else "benchmark"
        return ranking_top(summary.benchmarks.get(name), name, int(args[-1]),
                           "docs/benchmark.md")
    raise ObliqError(f"unknown generated block {' '.join(words)!r}")


# --- inline figures ------------------------------------------------------------------------

def _agree_counts(summary: Summary, configs: str, metric: str, algorithms: str):
    within = compared = 0
    found = False
    for name in _pick(configs, summary.agree):
        _config(summary, name)
        agree = summary.agree.get(name)
        if agree is None or agree.empty:
            raise ObliqError(f"no agreement in the summary of {name!r}")
        rows = agree if metric == "*" else agree[
            (agree["metric"] == metric) | (agree["metric"].map(metric_kind) == metric)]
        if metric == "*":
            rows = rows[rows["reads"] == ""]
        chosen = _pick(algorithms, dict.fromkeys(rows["algorithm"]))
        rows = rows[rows["algorithm"].isin(chosen)]
        found = found or not rows.empty
        within += sum(map(_int, rows["within"]))
        compared += sum(map(_int, rows["compared"]))
    if not found:
        raise ObliqError(f"no agreement of {metric} {algorithms} in {configs}")
    return within, compared


def _cell(summary: Summary, name, metric, algorithm, dataset, what: str) -> str:
    cells = _cells(summary, name)
    found = cells[(cells["metric"] == metric) & (cells["algorithm"] == algorithm)
                  & (cells["dataset"] == dataset)]
    if found.empty:
        raise ObliqError(f"no cell {metric} {algorithm} {dataset} in the summary of {name!r}")
    c = found.iloc[0]
    what, _, decimals = what.partition(":")
    d = int(decimals) if decimals else _int(c["decimals"])
    if what == "paper":
        return c["paper_text"]
    if what == "n":
        return c["n"]
    if what == "mean_sd":
        return _ours(c, d)
    if what == "mean":
        return format_number(float(c["mean"]), d) + flag_mark(_flagged(c))
    if what == "abs_delta":
        return format_number(abs(float(c["delta"])), d)
    if what in ("mean", "sd", "paper_mean", "delta", "tolerance"):
        if not str(c[what]).strip():
            raise ObliqError(f"cell {metric} {algorithm} {dataset} of {name!r} has no {what}")
        return format_number(float(c[what]), d)
    raise ObliqError(f"unknown cell field {what!r}")


def _misses(summary: Summary, name: str, metric: str, algorithms: str = "*") -> str:
    """"A on d1, d2 and d3, B on d4": the cells of ``metric`` out of tolerance (of these
    algorithms, ``+``-joined, or all)."""
    cells = _cells(summary, name)
    out = cells[(cells["metric"] == metric) & (cells["within"] != "true")]
    out = out[out["algorithm"].isin(_pick(algorithms, cells["algorithm"]))]
    if out.empty:
        return "none"
    parts = []
    order = list(dict.fromkeys(cells["algorithm"]))
    for algorithm, rows in sorted(out.groupby("algorithm", sort=False),
                                  key=lambda item: order.index(item[0])):
        sets = list(rows["dataset"])
        sets = sets[0] if len(sets) == 1 else ", ".join(sets[:-1]) + f" and {sets[-1]}"
        parts.append(f"{algorithm} on {sets}")
    return ", ".join(parts)


def _range(summary: Summary, name, metric, dataset, algorithms, what: str) -> str:
    """"lo to hi" of one field over the algorithms' cells of ``metric`` on ``dataset``."""
    cells = _cells(summary, name)
    part = cells[(cells["metric"] == metric) & (cells["dataset"] == dataset)]
    part = part[part["algorithm"].isin(_pick(algorithms, part["algorithm"]))]
    if part.empty:
        raise ObliqError(f"no cells {metric} {dataset} {algorithms} in the summary of {name!r}")
    what, _, decimals = what.partition(":")
    d = int(decimals) if decimals else _int(part["decimals"].iloc[0])
    if what not in ("mean", "delta", "abs_delta"):
        raise ObliqError(f"unknown range field {what!r}")
    values = [float(v) for v in part["delta" if what == "abs_delta" else what]]
    values = sorted(abs(v) for v in values) if what == "abs_delta" else sorted(values)
    sign = what == "delta"
    low, high = format_number(values[0], d, sign), format_number(values[-1], d, sign)
    return low if low == high else f"{low} to {high}"


def _mad(summary: Summary, configs: str, metric: str, algorithms: str, decimals: str) -> str:
    """The mean |ours - paper| over the cells of agree.csv's rows (weighted by cells)."""
    total = cells = 0.0
    for name in _pick(configs, summary.agree):
        _config(summary, name)
        agree = summary.agree.get(name)
        rows = pd.DataFrame() if agree is None else agree[
            (agree["metric"] == metric) | (agree["metric"].map(metric_kind) == metric)]
        rows = rows[rows["algorithm"].isin(_pick(algorithms, rows["algorithm"]))] \
            if len(rows) else rows
        if rows.empty or (rows["mean_abs_delta"] == "").any():
            raise ObliqError(f"no mean |delta| of {metric} {algorithms} in {name!r}")
        total += sum(float(m) * _int(c) for m, c in zip(rows["mean_abs_delta"],
                                                          rows["compared"]))
        cells += sum(map(_int, rows["compared"]))
    return format_number(total / cells, int(decimals))


def _run(summary: Summary, name: str, what: str) -> str:
    facts = _config(summary, name)
    if what == "wall":
        return _run_time_text(facts)
    if what == "fit":
        seconds = _seconds(facts.get("fit_seconds", ""))
        if seconds is None:
            raise ObliqError(f"no fit_seconds in the summary of {name!r}")
        return format_duration(seconds)
    if what == "tasks":
        return _tasks_text(facts)
    if what == "date":
        return facts.get("started", "")[:10]
    if what not in facts:
        raise ObliqError(f"no {what!r} in the run facts of {name!r}")
    return facts[what]


def _row(frame: pd.DataFrame | None, file: str, where: dict, what: str) -> str:
    if frame is None:
        raise ObliqError(f"no {file} in the summary (run `make bench`)")
    found = frame
    for column, value in where.items():
        found = found[found[column] == value]
    if found.empty:
        raise ObliqError(f"no row {where} in {file}")
    if what not in found.columns:
        raise ObliqError(f"no column {what!r} in {file}")
    return found.iloc[0][what]


def value(summary: Summary, expression: str) -> str:
    """The text of one inline figure (see the module doc)."""
    words = shlex.split(expression)
    kind, args = words[0], words[1:]
    if kind in ("agree", "agree-of", "within", "compared") and len(args) == 3:
        within, compared = _agree_counts(summary, *args)
        return {"agree": f"{within}/{compared}", "agree-of": f"{within} of {compared}",
                "within": str(within), "compared": str(compared)}[kind]
    if kind == "agree-list" and len(args) == 2:
        agree = summary.agree.get(args[0])
        names = [] if agree is None else dict.fromkeys(
            agree.loc[agree["metric"].map(metric_kind).isin([args[1]])
                      | (agree["metric"] == args[1]), "algorithm"])
        if not names:
            raise ObliqError(f"no agreement of {args[1]} in {args[0]}")
        return ", ".join("{} {}/{}".format(a, *_agree_counts(summary, args[0], args[1], a))
                         for a in names)
    if kind == "range" and len(args) == 5:
        return _range(summary, *args)
    if kind == "mad" and len(args) == 4:
        return _mad(summary, *args)
    if kind == "misses" and len(args) in (2, 3):
        return _misses(summary, *args)
    if kind == "cell" and len(args) == 5:
        return _cell(summary, *args)
    if kind == "run" and len(args) == 2:
        return _run(summary, *args)
    if kind == "bench" and len(args) == 2:
        return _row(summary.bench, "bench.csv", {"measure": args[0]}, args[1])
    if kind == "fit" and len(args) == 4:
        return _row(summary.fits, "bench_fits.csv", {"algorithm": args[0], "dataset": args[1],
                                                     "rows": args[2]}, args[3])
    raise ObliqError(f"unknown figure {expression!r}")


# --- rendering -----------------------------------------------------------------------------

def render(text: str, summary: Summary, page=None) -> str:
    """``text`` with every generated block and inline figure rewritten from ``summary``;
    everything else byte for byte. ``page``: the file's path, which links to the summary
    are made relative to (README.md's when None)."""
    def block(match):
        head = match.group(1)
        body = _block(summary, shlex.split(head)[1:], page).strip("\n")
        return f"<!-- {head}: begin -->\n\n{body}\n\n<!-- {head}: end -->"

    def inline(match):
        return f"<!--= {match.group(1)} -->{value(summary, match.group(1))}<!--/-->"

    return INLINE.sub(inline, BLOCK.sub(block, text))


def stale(text: str, summary: Summary, page=None) -> list[str]:
    """What of ``text`` differs from its rendering: each block's name and each inline
    figure's expression (empty when the text is up to date)."""
    out = []
    for match in BLOCK.finditer(text):
        if render(match.group(0), summary, page) != match.group(0):
            out.append(f"block <!-- {match.group(1)} -->")
    for match in INLINE.finditer(text):
        if render(match.group(0), summary) != match.group(0):
            out.append(f"figure <!--= {match.group(1)} --> ({match.group(2)!r})")
    return out


def main(argv=None) -> int:
    """``python -m tools.docs [--check] [--summary docs/results] FILE...``:
    render the files in place, or with --check only say which are stale (exit 1)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tools.docs")
    parser.add_argument("files", nargs="*", default=list(DOCS))
    parser.add_argument("--summary", default="docs/results")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    try:
        summary = read_summary(args.summary)
        worse = 0
        for file in args.files:
            path = Path(file)
            text = path.read_text(encoding="utf-8")
            if args.check:
                for what in stale(text, summary, path):
                    print(f"{file}: {what} is stale; run `{FIX}`", file=sys.stderr)
                    worse = 1
                continue
            new = render(text, summary, path)
            if new != text:
                tmp = path.with_name(f".{path.name}.tmp")
                tmp.write_text(new, encoding="utf-8")
                tmp.replace(path)
                print(f"rendered {file}")
    except ObliqError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return worse


if __name__ == "__main__":
    raise SystemExit(main())
