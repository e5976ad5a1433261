"""``obliq table``: results as the papers print them, optionally beside the papers' values.

Wide layout: datasets as rows, algorithms (config labels) as columns, cells mean ± sd.
Long layout: one row per (dataset, algorithm), the papers' tidy form. ``sig=REF`` marks
a cell ``v`` (significantly better than REF) or ``*`` (worse), Weka's convention, by a
paired t-test over the folds both algorithms share, and adds a (w/t/l) row.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from tabulate import tabulate

from ..errors import ObliqError
from .aggregate import METRICS, check_metric, describe, experiment_dirs, read_experiment, summarise
from .references import agrees, read_reference
from .stats import paired_t_test

FORMATS = ("md", "latex", "csv", "html")
LAYOUTS = ("wide", "long")
_TABLEFMT = {"md": "pipe", "latex": "latex_raw", "html": "html"}


def _fmt(mean, sd, decimals: int) -> str:
    if pd.isna(mean):
        return ""
    text = f"{mean:.{decimals}f}"
    return text if pd.isna(sd) else f"{text} ± {sd:.{decimals}f}"


def _ordered(preferred: list[str], present: pd.Series) -> list[str]:
    seen = list(dict.fromkeys(present))
    return [x for x in preferred if x in seen] + [x for x in seen if x not in preferred]


def significance(runs: pd.DataFrame, metric: str, ref: str, alpha: float) -> dict:
    """(dataset, algorithm) -> 'v', '*' or '' against ``ref`` over shared folds."""
    higher = METRICS[metric][2]
    ok = runs[runs["status"] == "ok"]
    marks = {}
    base = ok[ok["algorithm"] == ref].set_index(["dataset", "repetition", "fold"])[metric]
    for algo in ok["algorithm"].unique():
        if algo == ref:
            continue
        other = ok[ok["algorithm"] == algo].set_index(["dataset", "repetition", "fold"])[metric]
        joined = pd.concat([other.rename("a"), base.rename("b")], axis=1, join="inner")
        for dataset, part in joined.groupby(level="dataset", sort=False):
            t, p = paired_t_test(part["a"], part["b"])
            mark = ""
            if p < alpha and t != 0:
                better = (t > 0) == higher
                mark = "v" if better else "*"
            marks[(dataset, algo)] = mark
    return marks


def _one_table(runs, meta, metric, fmt, layout, sig, pooled, alpha) -> tuple[str, pd.DataFrame]:
    summary = summarise(runs, metric, pooled)
    decimals = METRICS[metric][3]
    # The config's order, not the order tasks happened to finish in.
    config = meta.get("config") or {}
    datasets = _ordered([d["label"] for d in config.get("datasets", [])], runs["dataset"])
    algorithms = _ordered([a["label"] for a in config.get("algorithms", [])], runs["algorithm"])
    notes = [describe(runs, metric, pooled)]
    marks = {}
    if sig is not None:
        if sig not in algorithms:
            raise ObliqError(f"--sig: no algorithm {sig!r} in {meta['name']} "
                             f"(algorithms: {', '.join(algorithms)})")
        marks = significance(runs, metric, sig, alpha)
        notes.append(f"v / *: significantly better / worse than {sig} by a two-sided paired "
                     f"t-test over the shared (repetition, fold) scores, alpha = {alpha}")
    reference = None
    methods = (meta.get("config") or {}).get("reference_methods") or {}
    if meta.get("reference"):
        ref = read_reference(meta["reference"])
        reference = ref[ref["metric"] == metric].set_index(["dataset", "method"])
        mapped = "".join(f"; {a} is compared with the paper's {m}" for a, m in methods.items())
        notes.append(f"paper: {Path(meta['reference']).name}; Δ = ours - paper; ✓ when "
                     f"|Δ| <= max(2, 2 × paper sd){mapped}")
    failed = int((runs["status"] != "ok").sum())
    if failed:
        notes.append(f"{failed} task(s) failed and are left out (see runs.csv, column error)")

    cell = {(r.dataset, r.algorithm): r for r in summary.itertuples()}
    records = []  # tidy rows for csv/long
    for d in datasets:
        for a in algorithms:
            r = cell.get((d, a))
            rec = {"dataset": d, "algorithm": a, "metric": metric,
                   "mean": None if r is None else r.mean, "sd": None if r is None else r.sd,
                   "repetitions": None if r is None else r.repetitions,
                   "sig": marks.get((d, a), "")}
            method = methods.get(a, a)
            if reference is not None and (d, method) in reference.index:
                paper = reference.loc[(d, method)]
                paper = paper.iloc[0] if isinstance(paper, pd.DataFrame) else paper
                rec.update(paper_mean=paper["mean"], paper_sd=paper["sd"])
            records.append(rec)
    tidy = pd.DataFrame(records)
    if fmt == "csv":
        return "", tidy

    def paper_cells(rec):
        if "paper_mean" not in rec or pd.isna(rec.get("paper_mean")):
            return "", ""
        paper = _fmt(rec["paper_mean"], rec["paper_sd"], decimals)
        if rec["mean"] is None or pd.isna(rec["mean"]):
            return paper, ""
        delta = rec["mean"] - rec["paper_mean"]
        ok = " ✓" if agrees(rec["mean"], rec["paper_mean"], rec["paper_sd"]) else ""
        return paper, f"{delta:+.{decimals}f}{ok}"

    with_paper = {a for a in algorithms if reference is not None and any(
        (d, methods.get(a, a)) in reference.index for d in datasets)}
    if layout == "long":
        headers = ["dataset", "algorithm", metric, "reps"]
        if with_paper:
            headers += ["paper", "Δ"]
        rows = []
        for rec in records:
            row = [rec["dataset"], rec["algorithm"],
                   (_fmt(rec["mean"], rec["sd"], decimals) + f" {rec['sig']}").strip(),
                   rec["repetitions"]]
            if with_paper:
                row += list(paper_cells(rec))
            rows.append(row)
    else:
        headers = ["dataset"]
        for a in algorithms:
            headers.append(a)
            if a in with_paper:
                headers += [f"{methods.get(a, a)} (paper)", "Δ"]
        by_key = {(rec["dataset"], rec["algorithm"]): rec for rec in records}
        rows = []
        for d in datasets:
            row = [d]
            for a in algorithms:
                rec = by_key[(d, a)]
                row.append((_fmt(rec["mean"], rec["sd"], decimals) + f" {rec['sig']}").strip())
                if a in with_paper:
                    row += list(paper_cells(rec))
            rows.append(row)
        if sig is not None:
            row = [f"(w/t/l) vs {sig}"]
            for a in algorithms:
                m = [marks.get((d, a), "") for d in datasets]
                row.append("" if a == sig else f"({m.count('v')}/{m.count('')}/{m.count('*')})")
                if a in with_paper:
                    row += ["", ""]
            rows.append(row)
    table = tabulate(rows, headers=headers, tablefmt=_TABLEFMT[fmt], disable_numparse=True)
    if fmt == "latex":
        table = table.replace("±", r"$\pm$").replace("Δ", r"$\Delta$").replace("✓", r"\checkmark")
        notes = [f"% {n}" for n in notes]
    elif fmt == "html":
        notes = [f"<p>{n}</p>" for n in notes]
    title = {"md": f"### {meta['name']}", "latex": f"% {meta['name']}",
             "html": f"<h3>{meta['name']}</h3>"}[fmt]
    return "\n".join([title, "", notes[0], "", table, ""] + notes[1:]), tidy


def render_tables(paths, metric: str = "test_accuracy", fmt: str = "md", layout: str = "wide",
                  sig: str | None = None, pooled: bool = False, alpha: float = 0.05) -> str:
    """The tables of every experiment under ``paths`` as one string."""
    check_metric(metric)
    if fmt not in FORMATS:
        raise ObliqError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if layout not in LAYOUTS:
        raise ObliqError(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    if not 0 < alpha < 1:
        raise ObliqError(f"--alpha must be between 0 and 1 (got {alpha})")
    dirs = [d for p in paths for d in experiment_dirs(Path(p))]
    texts, frames = [], []
    for directory in dirs:
        runs, meta = read_experiment(directory)
        if not (runs["status"] == "ok").any():
            texts.append(f"{meta['name']}: no finished task yet")
            continue
        text, tidy = _one_table(runs, meta, metric, fmt, layout, sig, pooled, alpha)
        texts.append(text)
        frames.append(tidy.assign(experiment=meta["name"]))
    if fmt == "csv":
        if not frames:
            return ""
        out = pd.concat(frames, ignore_index=True)
        cols = ["experiment"] + [c for c in out.columns if c != "experiment"]
        return out[cols].to_csv(index=False, float_format=lambda v: repr(float(v)))
    return "\n\n".join(texts)

