"""The compact summary of results folders that the docs quote (``docs/results/``).

Results folders are not kept in git, so the figures the README and docs/reproduction.md
quote are read from a summary that is: per experiment (config) a folder
``<out>/<config>/`` of small CSV files, written from its results folder by ``summarize``:

``run.csv``
    key, value rows (RUN_KEYS): where the summary came from (``source``), when it was
    summarised, the runs' dates, code commit and obliq version, tasks, wall time (the sum
    of meta.json's history, ``agreement.run_time``), the summed wall fit seconds of the tasks,
    the jobs, and the machine (CPU model, cores, 1-minute load average at each run's start,
    as the runner records them in the history entry's ``machine``), the reference's metrics
    not compared (times), ``obliq agree``'s notes on the comparison (the paper's file, the
    methods matched), and a ``note`` (why nothing was compared, or a seed's caveat).
``agree.csv``
    ``obliq agree``'s tally: per (metric, algorithm) the cells within tolerance of the
    paper's, the cells compared, the mean |ours - paper| (and the metric's decimals to
    print it with), and ``reads`` (the paper metric a
    reading not counted reads, ``agreement.ExperimentAgreement.readings``).
``cells.csv``
    every cell compared with the paper (``agreement.compare_experiment``): ours (mean, sd,
    repetitions), the paper's (its printed text, mean, sd), delta, tolerance, within,
    counted, and the metric's decimals; rounded to four decimals past the metric's own;
    then the cell's finished tasks, those flagged degenerate and their codes
    (experiment/degeneracy.py). A cells.csv written before flags lacks the last three
    (CELL_COLUMNS_BEFORE_FLAGS) and is read as holding no flagged task.
``claims.csv``
    ``obliq claims``' verdict of each claim whose experiment this is (id, verdict, counts,
    evidence); the claim's quote and section stay in the shipped claims files.

A benchmark (a config without a paper named in ``benchmarks``, by default the shipped
``benchmark``) has none of these: its folder holds its ranking, Friedman tests, Bayesian
pairs and figures instead (``leaderboard.py``: facts.csv, scores.csv, ranks.csv, ...).

Summarising is incremental: only the configs found under the results paths are rewritten,
each folder whole (written to a temporary name, then swapped in), and every other config's
summary is left as it is, saying its own date and commit. Nothing per fold is kept: the
docs quote aggregates only. ``tools/docs.py`` renders the docs from these files.
"""

from __future__ import annotations

import math
import re
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from obliq_cli.analysis.agreement import compare_experiment, run_time, tally
from obliq_cli.analysis.claims import evaluate, read_claims, shipped_claims
from obliq_cli.analysis.results import Results
from obliq_cli.errors import ObliqError

RUN_KEYS = ["config", "source", "summarized", "started", "finished", "commit", "obliq",
            "tasks_ok", "tasks_total", "tasks_failed", "run_seconds", "unfinished_runs",
            "runs", "fit_seconds", "jobs", "host", "cpu", "cores", "load", "not_compared",
            "agree_notes", "note"]
AGREE_COLUMNS = ["metric", "algorithm", "within", "compared", "mean_abs_delta", "decimals",
                 "reads"]
CELL_COLUMNS_BEFORE_FLAGS = ["metric", "algorithm", "dataset", "method", "mean", "sd", "n",
                             "paper_text", "paper_mean", "paper_sd", "delta", "tolerance",
                             "within", "counted", "decimals"]
CELL_COLUMNS = CELL_COLUMNS_BEFORE_FLAGS + ["n_tasks", "n_flagged", "flags"]
CLAIM_COLUMNS = ["claim", "verdict", "unit", "wins", "ties", "losses", "n", "evidence"]
FROM_RESULTS = "results"
BENCHMARKS = ("benchmark",)
"""Configs without a paper summarised as benchmarks (their ranking) by default."""
FILES = ("run.csv", "agree.csv", "cells.csv", "claims.csv")
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def _round(value, decimals: int):
    """``value`` rounded to ``decimals`` places, or "" when missing (CSV stays compact)."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or pd.isna(value):
        return ""
    return round(float(value), decimals)


def _when(stamp) -> str:
    """An ISO time stamp cut to the minute, in UTC as the runner writes it ("" if none)."""
    if not stamp:
        return ""
    try:
        return datetime.fromisoformat(stamp).astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError):
        return ""


def _joined(values) -> str:
    """Distinct values in first-seen order, "; "-joined ("" for none)."""
    return "; ".join(dict.fromkeys(str(v) for v in values if v not in (None, "")))


def run_facts(meta: dict, part: pd.DataFrame, result, today: str) -> dict:
    """The run.csv facts of one experiment from its meta.json, its rows of runs.csv and its
    ``agreement.ExperimentAgreement`` (tasks as ``obliq agree`` counts them)."""
    history = [e for e in meta.get("history") or [] if isinstance(e, dict)]
    versions = [e.get("versions") or {} for e in history]
    machines = [e.get("machine") or {} for e in history]
    seconds, unfinished = run_time(meta)
    ok = part[part["status"] == "ok"]
    fit = ok["fit_time"].sum() if "fit_time" in ok.columns and len(ok) else None
    return {
        "config": result.name, "source": FROM_RESULTS, "summarized": today,
        "started": _when(history[0].get("started")) if history else "",
        "finished": _when(history[-1].get("finished")) if history else "",
        "commit": _joined(str(v.get("git_commit") or "")[:7] for v in versions),
        "obliq": _joined(v.get("obliq") for v in versions),
        "tasks_ok": result.tasks_ok,
        "tasks_total": "" if result.tasks_total is None else result.tasks_total,
        "tasks_failed": result.tasks_failed,
        "run_seconds": _round(seconds, 3), "unfinished_runs": unfinished,
        "runs": len(history), "fit_seconds": _round(fit, 3),
        "jobs": _joined(e.get("n_jobs") for e in history),
        "host": _joined(e.get("host") for e in history),
        "cpu": _joined(m.get("cpu") for m in machines),
        "cores": _joined(m.get("cores") for m in machines),
        "load": _joined(m.get("load_1min") for m in machines),
        "not_compared": "; ".join(result.times_skipped),
        "agree_notes": "; ".join(result.notes), "note": "",
    }


def agree_rows(result) -> pd.DataFrame:
    """agree.csv of one experiment: ``agreement.tally`` per (metric, algorithm), in the
    order ``obliq agree --summary`` prints them (metrics in the reference's order)."""
    if result.status or result.cells.empty:
        return pd.DataFrame(columns=AGREE_COLUMNS)
    counts = tally(result.cells)
    order = {m: i for i, m in enumerate(result.metrics)}
    counts = counts.assign(_m=counts["metric"].map(order)).sort_values("_m", kind="stable")
    return pd.DataFrame({
        "metric": counts["metric"], "algorithm": counts["algorithm"],
        "within": counts["within"].astype(int), "compared": counts["compared"].astype(int),
        "mean_abs_delta": [_round(v, int(d) + 4) for v, d in
                           zip(counts["mean_abs_delta"], counts["decimals"])],
        "decimals": counts["decimals"].astype(int),
        "reads": counts["metric"].map(lambda m: result.readings.get(m, "")),
    })[AGREE_COLUMNS]


def cell_rows(result) -> pd.DataFrame:
    """cells.csv of one experiment: every compared cell, rounded (see the module doc)."""
    if result.status or result.cells.empty:
        return pd.DataFrame(columns=CELL_COLUMNS)
    rows = []
    for c in result.cells.itertuples():
        d = int(c.decimals)
        # d + 4 places: printed at d places (obliq table's), a value rounded again comes
        # out as the one rounding would give unless its digits past d + 4 decide a tie
        rows.append([c.metric, c.algorithm, c.dataset, c.method, _round(c.mean, d + 4),
                     _round(c.sd, d + 4), int(c.n_repetitions), c.paper_text,
                     _round(c.paper_mean, d + 4), _round(c.paper_sd, d + 4),
                     _round(c.delta, d + 4), _round(c.tolerance, d + 4),
                     str(bool(c.within)).lower(), str(bool(c.counted)).lower(), d,
                     int(c.n_tasks), int(c.n_flagged), c.flags])
    return pd.DataFrame(rows, columns=CELL_COLUMNS)


def _claims_about(name: str, claim_files=()):
    """The claims of the claims files (default: the shipped ones) on experiment ``name``."""
    for path in list(claim_files) or shipped_claims():
        yield from (c for c in read_claims(path) if c.experiment == name)


def _claim_row(o) -> list:
    return [o.claim.id, o.verdict, o.unit, o.wins, o.ties, o.losses, o.n, o.evidence]


def _claims_frame(rows: list) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=CLAIM_COLUMNS)
    for column in ("wins", "ties", "losses", "n"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("Int64")
    return frame


def claim_rows(name: str, experiments: dict, claim_files=()) -> pd.DataFrame:
    """claims.csv of experiment ``name``: the verdict of every claim about it."""
    return _claims_frame([_claim_row(evaluate(c, experiments))
                          for c in _claims_about(name, claim_files)])


def claims_from_cells(folder, claim_files=()) -> tuple[pd.DataFrame, list[str]]:
    """claims.csv of one summarised config with its claims evaluated again, on its
    committed cells.csv (the runs' mean and sd per metric, algorithm and dataset), wherever
    those carry every number a claim reads (``claims.TableNumbers.carries``); the others
    (a per-fold test, fit times, a cell the paper has none of) keep the runs' row, and
    their ids are returned. So a claims file corrected after the runs reaches the docs
    without a rerun wherever the means decide the claim: the verdicts are still of those
    runs' numbers."""
    from obliq_cli.analysis.claims import TableNumbers, evaluate_on
    from obliq_cli.config import load_config
    from obliq_cli.errors import ConfigError

    folder = Path(folder)
    name = folder.name
    old = pd.read_csv(folder / "claims.csv", dtype=str, keep_default_na=False)
    cells = pd.read_csv(folder / "cells.csv")
    try:
        datasets = [d.label for d in load_config(name).datasets]
    except ConfigError:
        datasets = None          # not a shipped config: no claim names it anyway
    numbers = TableNumbers(name, cells, datasets, what=f"{name}/cells.csv")
    rows, kept = [], []
    for claim in _claims_about(name, claim_files):
        if datasets is not None and numbers.carries(claim):
            rows.append(_claim_row(evaluate_on(claim, numbers)))
            continue
        before = old[old["claim"] == claim.id]
        if len(before):
            rows.append(before.iloc[0][CLAIM_COLUMNS].tolist())
            kept.append(claim.id)
    return _claims_frame(rows), kept


def reclaim(out, names=(), claim_files=()) -> dict[str, list[str]]:
    """Rewrite claims.csv of the configs ``names`` (default: every config summarised in
    ``out``) by ``claims_from_cells``; returns config -> the claim ids kept from the
    runs."""
    out = Path(out)
    names = list(names) or sorted(p.name for p in out.iterdir()
                                  if (p / "claims.csv").is_file() and (p / "cells.csv").is_file()
                                  and not p.name.startswith("."))
    kept = {}
    for name in names:
        if not (out / name / "cells.csv").is_file():
            raise ObliqError(f"{out / name}: no summary of config {name} (cells.csv)")
        frame, kept[name] = claims_from_cells(out / name, claim_files)
        fresh = out / name / ".claims.csv.new"
        frame.to_csv(fresh, index=False, lineterminator="\n")
        fresh.replace(out / name / "claims.csv")
    return kept


def _write_config(out: Path, name: str, frames: dict, raw: dict | None = None) -> None:
    """Write one config's files (CSV frames, and ``raw`` bytes such as figures) to a fresh
    folder beside ``out/name``, then swap it in: a summary is never left half old, half
    new."""
    out.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=out))
    try:
        for file, frame in frames.items():
            frame.to_csv(fresh / file, index=False, lineterminator="\n")
        for file, data in (raw or {}).items():
            (fresh / file).write_bytes(data)
        target = out / name
        old = None
        if target.exists():
            old = out / f".{name}.old"
            shutil.rmtree(old, ignore_errors=True)
            target.rename(old)
        fresh.rename(target)
        if old is not None:
            shutil.rmtree(old)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


def _unfinished(meta: dict) -> bool:
    """True when the latest ``obliq run`` of the folder has not finished (still running, or
    killed): its rows are a part of the config's tasks."""
    history = [e for e in meta.get("history") or [] if isinstance(e, dict)]
    return bool(history) and not history[-1].get("finished")


def summarize(paths, out, today: str | None = None, claim_files=(), partial: bool = False,
              skipped: list | None = None, benchmarks=BENCHMARKS) -> list[str]:
    """Summarise every experiment under ``paths`` (``obliq agree``'s paths) that has a
    paper reference into ``out/<config>/`` and return the configs written, in the order
    read. A config named in ``benchmarks`` that has no paper reference is summarised as a
    benchmark instead (``leaderboard.summarize_benchmark``: its ranking, no agreement).
    Other configs' summaries in ``out`` are kept. ``today``: the date to record
    (default: today, UTC). A folder whose latest run has not finished is left out (its
    earlier summary stays) unless ``partial``; ``skipped`` collects (config, why) of the
    folders left out."""
    skipped = [] if skipped is None else skipped
    results = Results.read(paths)
    today = today or datetime.now(UTC).strftime("%Y-%m-%d")
    experiments = results.by_name()
    written = []
    for meta, part, _ in results.experiments():
        name = str(meta["name"])
        if not _NAME.match(name):
            raise ObliqError(f"{meta.get('results_dir', name)}: experiment name {name!r} "
                             f"cannot name a summary folder (two results folders of one "
                             f"config? summarise them separately)")
        if _unfinished(meta) and not partial:
            skipped.append((name, "its latest run has not finished"))
            continue
        result = compare_experiment(part, meta)
        if result.status == "no reference" and name in benchmarks:
            from tools.leaderboard import summarize_benchmark

            frames, figures = summarize_benchmark(meta, part,
                                                  run_facts(meta, part, result, today))
            _write_config(Path(out), name, frames, figures)
            written.append(name)
            continue
        if result.status == "no reference":
            # a config with no paper (the quick start, a user's) has no figure in the docs
            skipped.append((name, "no paper reference"))
            continue
        facts = run_facts(meta, part, result, today)
        if result.status:
            facts["note"] = result.status
        frames = {
            "run.csv": pd.DataFrame({"key": RUN_KEYS, "value": [facts[k] for k in RUN_KEYS]}),
            "agree.csv": agree_rows(result),
            "cells.csv": cell_rows(result),
            "claims.csv": claim_rows(name, experiments, claim_files),
        }
        _write_config(Path(out), name, frames)
        written.append(name)
    return written


def main(argv=None) -> int:
    """``python -m tools.summary RESULTS... -o docs/results``."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m tools.summary",
                                     description="Summarise results folders into "
                                                 "docs/results/<config>/ (see the module doc).")
    parser.add_argument("results", nargs="*", help="results folders or folders of them "
                                                   "(with --reclaim: config names)")
    parser.add_argument("-o", "--out", default="docs/results")
    parser.add_argument("--reclaim", action="store_true",
                        help="no results: evaluate the claims of the configs summarised in "
                             "OUT (all, or those named) again on their committed cells, "
                             "where those decide them")
    parser.add_argument("--partial", action="store_true",
                        help="also summarise a folder whose latest run has not finished")
    parser.add_argument("--benchmarks", default=",".join(BENCHMARKS), metavar="A,B",
                        help="configs without a paper to summarise as benchmarks "
                             "(their ranking; default: %(default)s)")
    args = parser.parse_args(argv)
    if args.reclaim:
        try:
            kept = reclaim(args.out, args.results)
        except ObliqError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"claims evaluated again on the cells of {args.out}: {', '.join(kept)}")
        for name, ids in kept.items():
            if ids:
                print(f"kept from the runs of {name} (the cells do not decide them): "
                      f"{', '.join(ids)}")
        return 0
    if not args.results:
        parser.error("give RESULTS, or --reclaim")
    skipped: list = []
    try:
        names = summarize(args.results, args.out, partial=args.partial, skipped=skipped,
                          benchmarks=tuple(b for b in args.benchmarks.split(",") if b))
    except ObliqError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"summarised into {args.out}: {', '.join(names) or 'nothing'}")
    for name, why in skipped:
        print(f"left out {name}: {why} (its summary, if any, stays as it was)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
