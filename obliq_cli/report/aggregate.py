"""Reading results directories and aggregating per-fold scores as the papers do.

A metric is first averaged over the folds of each repetition, then summarised as mean
and sample sd (ddof = 1) over repetitions — "the mean and sd over the 10 runs" of the
HHCART paper (§4). OC1's built-in CV instead pools a repetition's test rows
(total correct / total rows, Murthy's ``cross_validate``): ``pooled=True``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ObliqError
from ..experiment.schema import KEY_COLUMNS, RUN_COLUMNS

# metric: (column or derivation, unit, higher is better, decimals)
METRICS = {
    "test_accuracy": ("test_accuracy", "%", True, 2),
    "test_error": ("test_error", "%", False, 2),
    "train_accuracy": ("train_accuracy", "%", True, 2),
    "n_leaves": ("n_leaves", "leaves", False, 1),
    "n_internal": ("n_internal", "internal nodes", False, 1),
    "n_nodes": ("n_nodes", "nodes", False, 1),
    "depth": ("depth", "levels", False, 1),
    "fit_time": ("fit_time", "s", False, 3),
    "predict_time": ("predict_time", "s", False, 4),
    "macro_f1": ("macro_f1", "", True, 3),
}
POOLABLE = ("test_accuracy", "test_error")


def experiment_dirs(path: Path) -> list[Path]:
    """``path`` itself when it holds runs.csv, else its sub-folders that do."""
    if not path.exists():
        raise ObliqError(f"{path}: no such results directory")
    if (path / "runs.csv").is_file():
        return [path]
    found = sorted(p.parent for p in path.glob("*/runs.csv"))
    if not found:
        raise ObliqError(f"{path}: no runs.csv here or in its sub-folders "
                         f"(run `obliq run CONFIG` first)")
    return found


def read_experiment(directory: Path) -> tuple[pd.DataFrame, dict]:
    """(runs, meta) of one experiment directory; the last row of a task key wins."""
    runs_path = directory / "runs.csv"
    try:
        runs = pd.read_csv(runs_path, dtype={"dataset": str, "algorithm": str},
                           keep_default_na=False, na_values={"test_accuracy": [""]})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ObliqError(f"{runs_path}: unreadable CSV ({str(exc).splitlines()[0]})") from None
    missing = [c for c in RUN_COLUMNS if c not in runs.columns]
    if missing:
        raise ObliqError(f"{runs_path}: missing column {missing[0]!r}; is this an obliq "
                         f"results file?")
    meta_path = directory / "meta.json"
    try:
        meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    except ValueError:
        raise ObliqError(f"{meta_path}: not valid JSON") from None
    meta.setdefault("name", directory.name)
    runs = runs.drop_duplicates(KEY_COLUMNS, keep="last").copy()
    runs["experiment"] = meta["name"]
    ok = runs["status"] == "ok"
    for col in ("test_accuracy", "train_accuracy", "n_leaves", "n_internal", "depth",
                "fit_time", "predict_time", "macro_f1", "n_test", "n_test_correct"):
        runs[col] = pd.to_numeric(runs[col].where(ok), errors="coerce")
    runs["test_error"] = 100.0 - runs["test_accuracy"]
    runs["n_nodes"] = runs["n_leaves"] + runs["n_internal"]
    return runs, meta


def check_metric(metric: str) -> None:
    if metric not in METRICS:
        raise ObliqError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")


def per_repetition(runs: pd.DataFrame, metric: str, pooled: bool = False) -> pd.DataFrame:
    """One value per (dataset, algorithm, repetition): the fold mean, or pooled."""
    check_metric(metric)
    ok = runs[runs["status"] == "ok"]
    keys = ["dataset", "algorithm", "repetition"]
    if pooled:
        if metric not in POOLABLE:
            raise ObliqError(f"--pooled applies to {' and '.join(POOLABLE)} only")
        sums = ok.groupby(keys, sort=False)[["n_test_correct", "n_test"]].sum()
        acc = 100.0 * sums["n_test_correct"] / sums["n_test"]
        value = acc if metric == "test_accuracy" else 100.0 - acc
        return value.rename("value").reset_index()
    return ok.groupby(keys, sort=False)[metric].mean().rename("value").reset_index()


def summarise(runs: pd.DataFrame, metric: str, pooled: bool = False) -> pd.DataFrame:
    """Mean, sd (ddof 1; NaN with one repetition) and repetitions per (dataset, algorithm)."""
    reps = per_repetition(runs, metric, pooled)
    grouped = reps.groupby(["dataset", "algorithm"], sort=False)["value"]
    out = grouped.agg(mean="mean", sd=lambda v: v.std(ddof=1) if len(v) > 1 else np.nan,
                      repetitions="size").reset_index()
    return out


def describe(runs: pd.DataFrame, metric: str, pooled: bool) -> str:
    """The header line saying exactly how the numbers were made."""
    _, unit, higher, _ = METRICS[metric]
    ok = runs[runs["status"] == "ok"]
    folds = ok.groupby(["dataset", "algorithm", "repetition"]).size()
    reps = ok.groupby(["dataset", "algorithm"])["repetition"].nunique()
    fold_text = (f"{int(folds.min())}" if folds.min() == folds.max()
                 else f"{int(folds.min())}-{int(folds.max())}")
    rep_text = (f"{int(reps.min())}" if reps.min() == reps.max()
                else f"{int(reps.min())}-{int(reps.max())}")
    how = ("pooled over the test rows of each repetition's folds" if pooled
           else f"mean over the {fold_text} fold(s) of each repetition")
    unit_text = f" ({unit})" if unit else ""
    better = "higher" if higher else "lower"
    return (f"{metric}{unit_text}: {how}, then mean ± sd (ddof 1) over {rep_text} "
            f"repetition(s); {better} is better")
