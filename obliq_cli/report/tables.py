"""``obliq table``: results as the papers print them, optionally beside the papers' values.

Wide layout (the papers' printed tables): datasets as rows, algorithms (config labels) as
columns, cells "mean ± sd". Long layout (the form of the reference CSVs): one row
per (dataset, algorithm) with mean, sd and n_repetitions. ``sig=REF`` marks cells the Weka
Experimenter's way: ``v`` significantly better than REF, ``*`` significantly
worse, by a per-fold test over the folds both algorithms share (``test``: a name in
stats.TESTS; by default the protocol's, ``stats.protocol_test``: Dietterich's 5x2cv t for
r x 2 CV, Nadeau & Bengio's corrected t for other k-fold CV and random splits, the paired
t on a shared test part), named in the notes with its reason, and adds a "(w/t/l) vs
REF" row.
A reference CSV named in meta.json adds the paper's value and Δ = ours - paper beside each
algorithm it covers (references.py); csv then carries them as columns (CSV_COLUMNS).
"""

from __future__ import annotations

import pandas as pd

from ..analysis.aggregate import (
    POOLABLE,
    check_metric,
    failed_tasks,
)
from ..analysis.results import Results
from ..analysis.stats import (
    check_alpha,
    check_test,
    win_tie_loss,
)
from ..analysis.tables import experiment_table
from ..errors import ObliqError
from ..experiment import degeneracy
from .render import LAYOUTS, Heading, Plain, Table, Text, check_format, render

# The first seven are the columns csv had before the paper's; keep them first, in this order.
# method .. within: the paper's value the row is compared with (empty without one).
# versus .. mark: --sig REF's per-fold test against REF ("v" / "*" / "", empty without it).
# n_tasks .. flags: the cell's finished tasks, how many are flagged degenerate and their
# codes (degeneracy.py; "" when none).
CSV_COLUMNS = ["dataset", "algorithm", "metric", "mean", "sd", "n_repetitions", "experiment",
               "method", "paper_mean", "paper_sd", "delta", "tolerance", "within",
               "versus", "test", "pvalue", "mark", "n_tasks", "n_flagged", "flags"]


def check_table_options(metric: str, fmt: str, layout: str, pooled: bool, alpha: float,
                   sig: str | None = None, test: str | None = None) -> None:
    """The options' checks but the metric's name (``render_tables`` checks it once the
    results are read: their config's plugins may register it); ``test`` None: the
    protocol's default."""
    if test is not None:
        check_test(test)
    if test is not None and sig is None:
        raise ObliqError(f"--test {test} chooses the test of --sig; give --sig REF too")
    check_format(fmt)
    if layout not in LAYOUTS:
        raise ObliqError(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    if pooled and metric not in POOLABLE:
        raise ObliqError(f"--pooled applies to {' and '.join(POOLABLE)} only (not {metric})")
    check_alpha(alpha)


NOT_RUN = "not run"  # a cell of the config whose tasks have no row yet
FAILED = "failed"  # a cell whose every task failed


def empty_cells(runs: pd.DataFrame, meta: dict, datasets, algorithms) -> dict:
    """What a cell without a result says, by (dataset, algorithm): the reason of the
    config's ``skip`` rule that leaves it out (meta.json's ``skipped_cells``), NOT_RUN for
    a cell of the config with no row yet (a subset run, an interrupted one), FAILED when
    all of its tasks failed. Cells the config never pairs (an ``only`` list) and
    algorithms of earlier configs stay blank."""
    from ..experiment.tasks import SKIPPED, config_of

    config = config_of(meta.get("config"))
    if config is None:
        return {}
    skipped = meta.get(SKIPPED) or {}
    labels = {a.label: a for a in config.algorithms}
    with_rows = set(zip(runs["dataset"], runs["algorithm"]))
    ok = runs[runs["status"] == "ok"]
    finished = set(zip(ok["dataset"], ok["algorithm"]))
    out = {}
    for d in datasets:
        for a in algorithms:
            if (d, a) in finished or a not in labels:
                continue
            reason = (skipped.get(d) or {}).get(a)
            if reason is not None:
                out[(d, a)] = reason
            elif labels[a].runs_on(d):
                out[(d, a)] = FAILED if (d, a) in with_rows else NOT_RUN
    return out


def cell_summary(cells: dict) -> list[str]:
    """The notes under a table with skipped or missing cells."""
    notes = []
    reasons = [t for t in cells.values() if t not in (NOT_RUN, FAILED)]
    if reasons:
        notes.append(f"{len(reasons)} cell{'s' if len(reasons) != 1 else ''} left out by the "
                     f"config's skip rules; the cell says why")
    missing = sum(t == NOT_RUN for t in cells.values())
    if missing:
        notes.append(f"{missing} cell{'s' if missing != 1 else ''} not run yet "
                     f"(`obliq run CONFIG --resume` runs them)")
    return notes


def flagged_methods(tidy: pd.DataFrame, datasets=None) -> dict[str, tuple[int, int]]:
    """{algorithm: (its cells holding tasks flagged degenerate, its cells)} of ``tidy``
    (rows of ``summarise``) on ``datasets`` (default: every dataset), for the algorithms
    with at least one such cell, in the order of their first row: what a figure that
    shows one mark per method (a CD diagram, a legend) says about the cells behind it."""
    if "n_flagged" not in tidy.columns or tidy.empty:
        return {}
    if datasets is not None:
        tidy = tidy[tidy["dataset"].isin(list(datasets))]
    counts = tidy.assign(_flagged=tidy["n_flagged"].fillna(0) > 0).groupby(
        "algorithm", sort=False)["_flagged"].agg(["sum", "size"])
    return {str(a): (int(r["sum"]), int(r["size"])) for a, r in counts.iterrows()
            if r["sum"] > 0}


def flag_mark(n_flagged) -> str:
    """" ⚠" after the number of a cell holding flagged tasks, "" otherwise."""
    return f" {degeneracy.MARK}" if not pd.isna(n_flagged) and n_flagged > 0 else ""


def format_number(value, decimals: int, sign: bool = False) -> str:
    """``value`` with ``decimals`` decimals (a leading sign with ``sign``), blank for a
    missing value: every table cell and docs figure of the report is written by it."""
    if pd.isna(value):
        return ""
    return f"{value:+.{decimals}f}" if sign else f"{value:.{decimals}f}"


def within_text(tidy: pd.DataFrame) -> pd.Series:
    """The verdict of each tidy row as csv writes it: "true" / "false", "" without a paper
    value."""
    verdict = tidy["agrees"].map({True: "true", False: "false"})
    return verdict.where(tidy["paper_mean"].notna(), "")


def _cells(tidy: pd.DataFrame, decimals: int) -> pd.DataFrame:
    """Formatted text per tidy row: value ("mean ± sd mark ⚠"), paper, delta (with ✓);
    ``title``: what a flagged cell's ⚠ stands for ("" for the others)."""
    mean = tidy["mean"].map(lambda v: format_number(v, decimals))
    sd = tidy["sd"].map(lambda v: format_number(v, decimals))
    value = mean.where(sd == "", mean + " ± " + sd)
    value = value.where(tidy["mark"] == "", value + " " + tidy["mark"])
    flagged = tidy["n_flagged"] if "n_flagged" in tidy.columns else pd.Series(
        0, index=tidy.index)
    value = value + flagged.map(flag_mark)
    title = pd.Series([degeneracy.cell_text(int(f), int(t), str(c).split(";"))
                       if flag_mark(f) else "" for f, t, c in zip(
                           flagged, tidy.get("n_tasks", flagged), tidy.get("flags", flagged))],
                      index=tidy.index, dtype=object)
    delta = tidy["delta"].map(lambda v: format_number(v, decimals, sign=True))
    delta = delta.where(~tidy["agrees"], delta + " ✓")
    return pd.DataFrame({"value": value, "mean": mean, "sd": sd,
                         "paper": tidy["paper_text"].fillna(""), "delta": delta,
                         "title": title})


NOT_MEASURED = "-"  # the cell of an algorithm that ran but has no such value (no tree)


def wide_rows(tidy, datasets, algorithms, sig, decimals, ran=frozenset(),
               empty=None) -> tuple[list[str], list[list[str]], list[str]]:
    """The wide table's headers and rows, and the titles of its cells marked ⚠ in
    reading order (``_cells``); ``ran``: the (dataset, algorithm) pairs with finished
    tasks, whose empty value cell reads ``NOT_MEASURED`` (a forest's leaves), not blank;
    ``empty``: the text of cells without a result (``empty_cells``)."""
    empty = empty or {}
    cells = _cells(tidy, decimals).set_index([tidy["dataset"], tidy["algorithm"]])
    with_paper = set(tidy.loc[tidy["paper_mean"].notna(), "algorithm"])
    method = tidy.dropna(subset=["paper_mean"]).groupby("algorithm")["method"].first()
    headers, columns = ["dataset"], []
    for a in algorithms:
        headers.append(a)
        columns.append((a, "value"))
        if a in with_paper:
            headers += [f"{method[a]} (paper)", "Δ"]
            columns += [(a, "paper"), (a, "delta")]
    grid = cells.unstack("algorithm").swaplevel(axis=1)
    grid = grid.reindex(index=datasets, columns=pd.MultiIndex.from_tuples(columns)).fillna("")
    def cell(d, a, part, text):
        if part != "value" or text != "":
            return text
        return NOT_MEASURED if (d, a) in ran else empty.get((d, a), "")

    rows = [[d, *(cell(d, a, part, text) for (a, part), text in zip(columns, grid.loc[d]))]
            for d in datasets]
    titles = [cells.at[(d, a), "title"] for d in datasets for a, part in columns
              if part == "value" and (d, a) in cells.index and cells.at[(d, a), "title"]]
    if sig is not None:
        counts = tidy[tidy["algorithm"] != sig].groupby("algorithm")["mark"].agg(win_tie_loss)
        row = [f"(w/t/l) vs {sig}"]
        for a, part in columns:
            row.append(counts.get(a, "") if part == "value" and a != sig else "")
        rows.append(row)
    return headers, rows, titles


def _long_rows(tidy, datasets, algorithms, sig, decimals, ran=frozenset(),
               empty=None) -> tuple[list[str], list[list[str]], list[str]]:
    """The long table's headers and rows: one per (dataset, algorithm) with a result
    (its mean marked ⚠ when the cell holds flagged tasks), and one per cell of ``empty``
    (``empty_cells``) with its text in place of the mean; and the titles of the cells
    marked ⚠ in reading order."""
    missing = pd.DataFrame([{"dataset": d, "algorithm": a, "_text": text}
                            for (d, a), text in (empty or {}).items()],
                           columns=["dataset", "algorithm", "_text"])
    tidy = pd.concat([tidy.assign(_text=""), missing], ignore_index=True)
    tidy["mark"] = tidy["mark"].fillna("")
    tidy["agrees"] = tidy["agrees"].astype("boolean").fillna(False).astype(bool)
    tidy = tidy.assign(_d=tidy["dataset"].map({d: i for i, d in enumerate(datasets)}),
                       _a=tidy["algorithm"].map({a: i for i, a in enumerate(algorithms)}))
    tidy = tidy.sort_values(["_d", "_a"], kind="stable")
    cells = _cells(tidy, decimals)
    text = tidy["_text"].fillna("")
    flagged = tidy["n_flagged"] if "n_flagged" in tidy.columns else pd.Series(
        0, index=tidy.index)
    mean = cells["mean"] + flagged.map(flag_mark)
    table = pd.DataFrame({"dataset": tidy["dataset"], "algorithm": tidy["algorithm"],
                          "mean": mean.where(text == "", text), "sd": cells["sd"],
                          "n_repetitions": tidy["n_repetitions"].map(
                              lambda v: "" if pd.isna(v) else str(int(v)))})
    if sig is not None:
        table[f"vs {sig}"] = tidy["mark"]
    if tidy["paper_mean"].notna().any():
        table["paper"] = cells["paper"]
        table["Δ"] = cells["delta"]
    titles = [t for t, x in zip(cells["title"], text) if t and not x]
    return list(table.columns), table.to_numpy().tolist(), titles


def _section(headers, rows, caption: str, notes: list[str], title: str | None,
             titles=()) -> list:
    """One experiment's table as a section of a page (``render.render``): its title, the
    caption, the table and the notes under it."""
    section = [Heading(title)] if title else []
    section += [Text(caption), Table(headers, rows, list(titles))]
    return section + ([Text(*notes)] if notes else [])


def render_tables(results, metric: str = "test_accuracy", fmt: str = "md", layout: str = "wide",
                  sig: str | None = None, pooled: bool = False, alpha: float = 0.05,
                  best: bool = False, test: str | None = None, show_all: bool = False) -> str:
    """One table per experiment of ``results`` (a ``Results``, or the paths of experiment
    folders or a folder of them, read here; a heading each when there are several).

    ``fmt``: md (pipe table), latex (booktabs, ± as $\\pm$), html, or csv (``table_frame``
    as text: one tidy row per experiment, dataset and algorithm with columns CSV_COLUMNS,
    plain numbers; each row's paper method, paper_mean, paper_sd, delta = mean -
    paper_mean, tolerance and within ("true" / "false" by references.agrees), all empty
    where the paper has no value; with ``sig`` the test's versus, test, pvalue and mark).
    ``layout``: wide or long (ignored by csv). ``sig``: mark cells against that algorithm
    at level ``alpha`` by the per-fold test ``test`` (stats.TESTS; None: each experiment's
    protocol default, ``stats.protocol_test``). ``pooled``: OC1's
    pooled accuracy instead of the fold mean.
    ``best``: each algorithm's best repetition (highest test accuracy) instead of the mean.
    ``show_all``: also the rows of tasks that left the config (``aggregate._visible``).
    """
    check_table_options(metric, fmt, layout, pooled, alpha, sig, test)
    results = Results.of(results, show_all)
    check_metric(metric)
    return format_tables(results, metric, fmt, layout, sig, pooled, alpha, best, test)


def format_tables(results: Results, metric: str = "test_accuracy",
                  fmt: str = "md", layout: str = "wide", sig: str | None = None,
                  pooled: bool = False, alpha: float = 0.05, best: bool = False,
                  test: str | None = None) -> str:
    """``render_tables`` on results already read, options checked."""
    return render(tables_page(results, metric, fmt, layout, sig, pooled, alpha, best, test),
                  fmt)


def tables_page(results: Results, metric: str = "test_accuracy",
                fmt: str = "md", layout: str = "wide", sig: str | None = None,
                pooled: bool = False, alpha: float = 0.05, best: bool = False,
                test: str | None = None):
    """What ``format_tables`` renders, before ``render.render``: for csv the frame it
    writes (``table_frame`` with ``within`` as the text "true" / "false" / ""), else the
    page, which is the same for md, latex and html (``api.Results.table`` renders it in
    each)."""
    if fmt == "csv":
        out = table_frame(results, metric, sig, pooled, alpha, best, test)
        return out.assign(within=out["within"].map({True: "true", False: "false"}).fillna(""))
    decimals = check_metric(metric).decimals
    page = []
    for experiment in results.experiments():
        meta, part, title = experiment
        if not experiment.finished:
            failed = failed_tasks(part)
            page.append([Plain(f"{meta['name']}: no finished task yet"
                               + (f" ({failed} failed)" if failed else ""))])
            continue
        tidy, datasets, algorithms, caption, notes = experiment_table(
            part, meta, metric, sig, pooled, alpha, best, test)
        if tidy.empty:  # with the reason (say, no stored predictions)
            page.append([Plain("; ".join([f"{meta['name']}: {caption}"] + notes))])
            continue
        build = wide_rows if layout == "wide" else _long_rows
        finished = part[part["status"] == "ok"]
        ran = set(zip(finished["dataset"], finished["algorithm"]))
        empty = empty_cells(part, meta, datasets, algorithms)
        notes += cell_summary(empty)
        headers, rows, titles = build(tidy, datasets, algorithms, sig, decimals, ran, empty)
        if layout == "long" and sig is not None:
            counts = tidy[tidy["algorithm"] != sig].groupby("algorithm")["mark"].agg(win_tie_loss)
            notes.insert(1, f"(w/t/l) vs {sig}: " + "; ".join(
                f"{a} {counts[a]}" for a in algorithms if a in counts))
        page.append(_section(headers, rows, caption, notes, title, titles))
    return page


def table_frame(results: Results, metric: str = "test_accuracy",
                sig: str | None = None, pooled: bool = False, alpha: float = 0.05,
                best: bool = False, test: str | None = None) -> pd.DataFrame:
    """The numbers of ``format_tables`` as one frame (what ``--format csv`` writes): one
    row per (experiment, dataset, algorithm) with a result, columns CSV_COLUMNS, numbers
    as floats; ``within`` True / False, NA without a paper value; without ``sig`` the
    columns versus, test and mark are empty and pvalue NaN (with it, ``test`` names the
    per-fold test used, the protocol's default when ``test`` is None). Experiments without a
    finished task have no rows."""
    frames = []
    for meta, part, _ in results.finished_experiments():
        tidy = experiment_table(part, meta, metric, sig, pooled, alpha, best, test)[0]
        if tidy.empty:
            continue
        within = tidy["agrees"].astype("boolean").where(tidy["paper_mean"].notna())
        frames.append(tidy.assign(metric=metric, experiment=meta["name"], within=within,
                                  versus=sig or "",
                                  test=tidy["test"] if sig else "")[CSV_COLUMNS])
    if not frames:
        return pd.DataFrame(columns=CSV_COLUMNS)
    return pd.concat(frames, ignore_index=True)

