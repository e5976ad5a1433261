"""Reading results directories and aggregating per-fold scores as the papers do.

Input contract: ``experiment/schema.py`` (``runs.csv`` columns, ``meta.json`` layout).

A metric is first averaged over the folds of each repetition, then summarised as mean and
sample sd (ddof = 1) over the repetitions: "the reported values are the mean and sd over the
10 runs" (HHCART paper §4, 10 x 5-fold CV) and "mean and sd over the 10 repetitions" (GDT
paper Tables II-III, 10 x 10-fold CV). OC1's built-in cross-validation instead pools a
repetition's test rows, total correct / total tested (Murthy's ``cross_validate`` in
``oc1.c``): ``pooled=True``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ArgumentTypeError, ObliqError
from ..experiment import degeneracy
from ..experiment import results as results_folder
from ..experiment.metrics import METRICS, PER_CLASS, Metric, check_metric  # noqa: F401
from ..experiment.schema import LABEL_COLUMNS, LATER_NUMERIC_COLUMNS, NUMERIC_COLUMNS
from ..experiment.tasks import algorithm_identity, config_of, stored_identities

# Pooled accuracy (OC1's correct / tested over a repetition's folds) applies to these only.
POOLABLE = ("test_accuracy", "test_error")


def pooled_by_paper(meta: dict, metric: str) -> bool:
    """Whether ``metric`` of this experiment is summarised pooled because its paper computes
    it so (the config's ``reference: {pooled: true}``, stored as ``reference_pooled``):
    ``obliq table``, ``agree`` and ``claims`` then read accuracy and error as the paper
    does, without ``--pooled``. Other metrics (leaves, ...) are fold means as ever."""
    return metric in POOLABLE and bool((meta.get("config") or {}).get("reference_pooled"))

# Columns the report reads; all must be present, and the numbers numeric in "ok" rows.
# (``task``, the identity of a row's task, is read when present: older files lack it.)
REQUIRED_COLUMNS = ["config_hash"] + LABEL_COLUMNS + ["status"] + NUMERIC_COLUMNS


def _class_rate(runs: pd.DataFrame, metric: str) -> pd.Series:
    """The per-class rate ``metric`` (e.g. "tpr:2") of every row, read from its JSON
    ``classes`` and ``tpr``/``tnr`` lists. A dataset's class order is the sorted label
    order of its row with the most classes, so a fold missing a class still lines up."""
    kind, _, k = metric.partition(":")
    position = int(k) - 1
    out = pd.Series(np.nan, index=runs.index)
    if kind not in runs.columns or "classes" not in runs.columns:
        return out
    for _, part in runs.groupby("dataset", sort=False):
        lists = [json.loads(c) if isinstance(c, str) and c else [] for c in part["classes"]]
        labels = max(lists, key=len, default=[])
        if position >= len(labels):
            continue
        label = labels[position]
        for i, classes, rates in zip(part.index, lists, part[kind]):
            if label in classes and isinstance(rates, str) and rates:
                value = json.loads(rates)[classes.index(label)]
                out[i] = np.nan if value is None else float(value)
    return out


def results_paths(paths) -> list[Path]:
    """The folders ``paths`` names (a path, or a list of paths: ``str`` or
    ``os.PathLike``), checked before any is read: bytes, another type, an empty path (which
    would read the current folder) or one holding a NUL byte are one error saying so."""
    import os

    items = [paths] if isinstance(paths, (str, os.PathLike, bytes)) else paths
    if not isinstance(items, (list, tuple)):
        raise ArgumentTypeError(f"results: give a folder path or a list of them (got "
                                f"{type(paths).__name__})")
    if not items:
        raise ObliqError("no results directory given")
    out = []
    for i, item in enumerate(items):
        where = "results" if items is not paths else f"results[{i}]"
        if isinstance(item, bytes) or not isinstance(item, (str, os.PathLike)):
            raise ArgumentTypeError(f"{where}: a folder path must be a str or a path "
                                    f"(got {type(item).__name__})")
        text = os.fspath(item)
        if not isinstance(text, str):  # a PathLike of bytes
            raise ArgumentTypeError(f"{where}: a folder path must be text (got bytes)")
        if not text:
            raise ObliqError(f"{where}: an empty path (give the results folder, '.' for "
                             f"the current one)")
        if "\x00" in text:
            raise ObliqError(f"{where}: {text!r} holds a NUL byte")
        out.append(Path(text))
    return out


def experiment_dirs(path) -> list[Path]:
    """``path`` itself when it holds runs.csv, else its sub-folders that do (sorted)."""
    path = Path(path)
    if not path.exists():
        raise ObliqError(f"{path}: no such results directory")
    if (path / "runs.csv").is_file():
        return [path]
    found = sorted(p.parent for p in path.glob("*/runs.csv") if p.is_file())
    if not found:
        raise ObliqError(f"{path}: no runs.csv here or in its sub-folders "
                         f"(run `obliq run CONFIG` first)")
    return found


MAX_SAID = 5  # impossible rows named one by one; the rest are counted


def _read_runs_csv(runs_path: Path) -> pd.DataFrame:
    """The latest row of each task of runs.csv as text columns (``results.read_runs_file``
    and ``results.latest_rows``, as a resume reads it), without a row that a running or
    killed run left half-written; a damaged line is one error naming file and line."""
    runs = results_folder.read_runs_file(runs_path, REQUIRED_COLUMNS)
    problem = runs.first_problem(runs_path)
    if problem:
        raise ObliqError(problem)
    log = logging.getLogger("obliq")
    for impossible in runs.impossible[:MAX_SAID]:  # read as failed tasks, never averaged
        log.warning("warning: %s; its task is left out as failed", impossible)
    if len(runs.impossible) > MAX_SAID:
        log.warning("warning: %s: %d more rows with impossible numbers left out as failed",
                    runs_path, len(runs.impossible) - MAX_SAID)
    if not runs.header:
        # a run writes the header line before its first task: an empty file (or one of
        # NULs, a crash's filesystem leftovers) is not the runs.csv of any run
        what = "empty" if not runs.tail else "no header line (not text)"
        raise ObliqError(f"{runs_path}: {what}: not a runs.csv obliq wrote; `obliq run "
                         f"CONFIG --resume` writes it anew")
    return pd.DataFrame(results_folder.latest_rows(runs.rows), columns=runs.header,
                        dtype=str)


def _exact_numbers(texts: pd.Series) -> pd.Series:
    """Numbers parsed as Python's float does (exactly the value the runner wrote; pandas'
    fast parser may miss the last bit), NaN where a cell is blank (not measured)."""
    def number(text):
        try:
            return float(text)
        except (TypeError, ValueError):
            return np.nan
    return pd.Series([number(t) for t in texts], index=texts.index, dtype=np.float64)


def _to_numbers(runs: pd.DataFrame) -> pd.DataFrame:
    """Typed key and metric columns (the reader has checked every cell)."""
    for col in ("repetition", "fold"):
        runs[col] = runs[col].astype(int)
    ok = runs["status"] == "ok"
    for col in NUMERIC_COLUMNS + LATER_NUMERIC_COLUMNS:
        if col not in runs.columns:  # a folder written before the column: blank
            runs[col] = ""
        runs[col] = _exact_numbers(runs[col].where(ok, ""))
    return runs


def _visible(runs: pd.DataFrame, meta: dict, show_all: bool) -> pd.DataFrame:
    """The rows of the tasks of the config in meta.json (all rows with ``show_all``).

    A row whose task left the config (an algorithm's parameters changed, a dataset or
    repetitions dropped) is kept in runs.csv but not shown; shown with ``show_all``, its
    algorithm is then labelled "<label> (earlier)" where it would mix with a current task.
    Rows without a task identity (files of older obliq versions) are all shown."""
    if "task" not in runs.columns:
        return runs
    identities = stored_identities(meta)
    if identities is None:
        return runs
    current = runs["task"].isin(identities) | (runs["task"] == "")
    if not show_all:
        return runs[current]
    keys = ["dataset", "repetition", "fold", "algorithm"]
    taken = set(map(tuple, runs.loc[current, keys].itertuples(index=False)))
    clash = ~current & pd.Series([tuple(k) in taken for k in runs[keys].itertuples(
        index=False)], index=runs.index, dtype=bool)
    # A left task whose algorithm label is still in the config but with other settings
    # (say, its parameters changed and its dataset was removed) clashes with no current
    # row, yet would share a column with the current setting's results.
    configs = _configs(meta)
    changed = ~current & pd.Series(
        [_setting_changed(configs, *k) for k in runs[["config_hash", "dataset", "algorithm"]]
         .itertuples(index=False)], index=runs.index, dtype=bool)
    earlier = clash | changed
    return runs.assign(algorithm=runs["algorithm"].where(~earlier,
                                                         runs["algorithm"] + " (earlier)"))


def _configs(meta: dict) -> dict:
    """The typed configs of meta.json: the current one (key None) and those that wrote
    earlier rows (by config hash); an unreadable one is left out."""
    out = {None: config_of(meta.get("config"))}
    configs = meta.get("configs")
    for digest, plain in (configs.items() if isinstance(configs, dict) else ()):
        out[digest] = config_of(plain)
    return out


def _algorithm_identity(config, label: str, dataset_label: str) -> dict | None:
    """The identity of the algorithm ``label`` of ``config`` (typed) on a dataset; None
    when there is no config or no such algorithm."""
    for algorithm in config.algorithms if config is not None else ():
        if algorithm.label == label:
            return algorithm_identity(algorithm, dataset_label)
    return None


def _setting_changed(configs: dict, config_hash: str, dataset: str, algorithm: str) -> bool:
    """Whether the row's algorithm (by the config that wrote it, meta.json's
    ``configs``) differs from the current config's algorithm of the same label."""
    now = _algorithm_identity(configs[None], algorithm, dataset)
    then = _algorithm_identity(configs.get(config_hash), algorithm, dataset)
    return now is not None and then is not None and now != then


def read_experiment(directory, show_all: bool = False) -> tuple[pd.DataFrame, dict]:
    """(runs, meta) of one experiment directory.

    The last row of a task (``results.latest_rows``, the rule of the runner's resume)
    wins: a task that failed and was re-run ok counts once, as ok. A damaged line is an
    error naming it (a resume sets it aside); rows of tasks not in meta.json's config are dropped
    unless ``show_all`` (``_visible``). Adds ``experiment`` (meta["name"]), ``source``
    (the runs.csv path) and the derived ``test_error`` = 100 - test_accuracy and
    ``n_nodes`` = n_leaves + n_internal (the UMT paper's size, Table 3); ``flags`` and
    ``flags_undecided`` are ``degeneracy.read_flags``' (a file written before flags were
    recorded gets what its columns tell).
    """
    directory = Path(directory)
    runs_path = directory / "runs.csv"
    runs = _read_runs_csv(runs_path)
    meta_path = directory / "meta.json"
    if not meta_path.is_file():  # every run writes it before its first row
        raise ObliqError(f"{meta_path}: missing: {directory} holds a runs.csv but no "
                         f"meta.json (a folder obliq run did not write, or a damaged one)")
    meta = results_folder.read_meta(meta_path)
    # A metric or protocol a config's plugin registers is known here too, in a new
    # process; a plugin that moved away still leaves the built-in metrics readable.
    try:
        results_folder.import_config_plugins(meta, meta_path)
    except ObliqError as exc:
        logging.getLogger("obliq").warning("warning: %s", exc)
    meta.setdefault("name", directory.name)
    meta["results_dir"] = str(directory)
    runs = _to_numbers(runs)
    runs[degeneracy.COLUMN], runs["flags_undecided"] = degeneracy.read_flags(runs)
    if "task" not in runs.columns:
        runs["task"] = ""
    stored = len(runs)
    runs = _visible(runs, meta, show_all).reset_index(drop=True)
    if stored and runs.empty:
        raise ObliqError(f"{runs_path}: none of its {stored} task(s) belongs to the config "
                         f"in {meta_path} (results of another config; `--all` shows them)")
    runs["experiment"] = str(meta["name"])
    runs["source"] = str(runs_path)
    return _registered_metrics(runs), meta


def _registered_metrics(runs: pd.DataFrame) -> pd.DataFrame:
    """Columns for the registered metrics that have none in runs.csv: those stored in
    a row's ``extra`` JSON, and those derived from stored columns (test_error, n_nodes)."""
    extra = runs["extra"] if "extra" in runs.columns else pd.Series("", index=runs.index)
    parsed = [json.loads(text) if isinstance(text, str) and text.startswith("{") else {}
              for text in extra]
    for metric in METRICS.values():
        if metric.compute is not None and metric.column is None:
            runs[metric.name] = pd.Series([p.get(metric.name, np.nan) for p in parsed],
                                          index=runs.index, dtype=np.float64)
    for metric in METRICS.values():
        if metric.derive is not None:
            runs[metric.name] = metric.derive(runs)
    return runs


def load_results(paths, show_all: bool = False) -> tuple[pd.DataFrame, list[dict]]:
    """All runs under ``paths`` as one frame, and each experiment's meta, in order.

    Each path is an experiment directory (it holds runs.csv) or a folder of them
    (``obliq table results/``). A directory reached twice is read once. Two experiments with
    the same meta["name"] in different directories keep apart: the later one is renamed
    "<name> (<directory>)". ``runs["experiment"]`` equals the meta's "name".
    """
    paths = results_paths(paths)
    dirs: list[Path] = []
    for path in paths:
        for d in experiment_dirs(path):
            if d.resolve() not in {x.resolve() for x in dirs}:
                dirs.append(d)
    frames, metas = [], []
    for d in dirs:
        runs, meta = read_experiment(d, show_all)
        if meta["name"] in {m["name"] for m in metas}:
            meta["name"] = f"{meta['name']} ({d})"
            runs["experiment"] = meta["name"]
        frames.append(runs)
        metas.append(meta)
    return pd.concat(frames, ignore_index=True), metas


def label_order(preferred, present, keep_all: bool = False) -> list[str]:
    """The labels of ``preferred`` (a config's order) that occur in ``present`` (all of them
    with ``keep_all``), then the rest of ``present`` as first seen: the order of every
    table's rows and columns."""
    seen = list(dict.fromkeys(present))
    return [x for x in dict.fromkeys(preferred) if keep_all or x in seen] + \
        [x for x in seen if x not in preferred]


def config_order(meta: dict, field: str, present, keep_all: bool = False) -> list[str]:
    """``label_order`` of the labels of the experiment's config ``field`` ("datasets" or
    "algorithms", from meta.json) and ``present`` (a column of runs.csv, say)."""
    items = (meta.get("config") or {}).get(field, [])
    return label_order([x.get("label") for x in items if isinstance(x, dict)], present,
                       keep_all)


def each_experiment(runs: pd.DataFrame, metas: list[dict]):
    """(meta, that experiment's rows of ``runs``, heading) in the order of ``metas`` (as
    ``load_results`` returns them); the heading is the experiment's name when there are
    several, None when one (a lone table or summary needs none)."""
    several = len(metas) > 1
    for meta in metas:
        yield meta, runs[runs["experiment"] == meta["name"]], (meta["name"] if several
                                                                 else None)


def failed_tasks(runs: pd.DataFrame) -> int:
    """Tasks whose latest row has status "error" (they are left out of every aggregate)."""
    return int((runs["status"] == "error").sum())


def with_metric_column(ok: pd.DataFrame, metric: str) -> pd.DataFrame:
    """``ok`` with a column ``metric``: stored metrics are columns already; a per-class
    rate ("tpr:2") is read from each row's JSON lists (``_class_rate``); a
    stored-prediction metric (balanced_accuracy, auc, log_loss) from each task's
    predictions file (``with_prediction_metric``)."""
    if metric not in ok.columns and metric.partition(":")[0] in PER_CLASS:
        return ok.assign(**{metric: _class_rate(ok, metric)})
    return with_prediction_metric(ok, metric)[0]


def with_prediction_metric(runs: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, list]:
    """(``runs`` with the column of the stored-prediction metric ``metric``, notes on the
    rows left blank and why); ``runs`` as it is, no notes, for any other metric or when
    the column is there already (read once, then reused by every aggregate)."""
    declared = METRICS.get(metric)
    if metric in runs.columns or declared is None or declared.from_predictions is None:
        return runs, []
    from ..experiment import predictions

    values, notes = predictions.values(runs, declared)
    return runs.assign(**{metric: values}), notes


def per_repetition(runs: pd.DataFrame, metric: str, pooled: bool = False) -> pd.DataFrame:
    """One value per (experiment, dataset, algorithm, repetition), with its fold count.

    Mean over the repetition's folds, or with ``pooled`` (accuracy and error only) OC1's
    100 * sum(n_test_correct) / sum(n_test) over the repetition's folds.
    """
    check_metric(metric)
    ok = with_metric_column(runs[runs["status"] == "ok"], metric)
    keys = ["experiment", "dataset", "algorithm", "repetition"]
    grouped = ok.groupby(keys, sort=False)
    if pooled:
        if metric not in POOLABLE:
            raise ObliqError(f"--pooled applies to {' and '.join(POOLABLE)} only "
                             f"(not {metric})")
        counts = ok[["n_test", "n_test_correct"]]
        bad = counts.isna().any(axis=1) | (ok["n_test"] <= 0)
        if bad.any():
            i = bad.idxmax()
            raise ObliqError(f"{ok.at[i, 'source']}: task ({ok.at[i, 'dataset']}, repetition "
                             f"{ok.at[i, 'repetition']}, fold {ok.at[i, 'fold']}, "
                             f"{ok.at[i, 'algorithm']}) lacks n_test / n_test_correct "
                             f"needed for --pooled")
        sums = grouped[["n_test_correct", "n_test"]].sum()
        accuracy = 100.0 * sums["n_test_correct"] / sums["n_test"]
        value = accuracy if metric == "test_accuracy" else 100.0 - accuracy
    else:
        value = grouped[metric].mean()
    out = pd.DataFrame({"value": value, "n_folds": grouped.size()}).reset_index()
    # a metric left blank in every fold of a repetition gives no value for it
    return out.dropna(subset=["value"])


def best_repetitions(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs of each (experiment, dataset, algorithm)'s best repetition: the one with
    the highest test accuracy (mean over its folds; the lowest repetition on ties). The
    APDT paper's Table II reports "the best tree of 5 runs" chosen this way."""
    reps = per_repetition(runs, "test_accuracy")
    keys = ["experiment", "dataset", "algorithm"]
    order = reps.sort_values(keys + ["value", "repetition"],
                             ascending=[True, True, True, False, True], kind="stable")
    best = order.drop_duplicates(keys)[keys + ["repetition"]]
    return runs.merge(best, on=keys + ["repetition"], how="inner")


def as_single_folds(runs: pd.DataFrame) -> pd.DataFrame:
    """Every (repetition, fold) task as a repetition of its own, so that summaries are
    mean ± sd over all tasks: the UMT paper's 2 x 5 CV gives 10 trees tested on one test
    set and reports mean ± sd over those 10 (holdout_cv)."""
    width = int(runs["fold"].max()) + 1 if len(runs) else 1
    return runs.assign(repetition=runs["repetition"] * width + runs["fold"], fold=0)


def flag_counts(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (experiment, dataset, algorithm) with "ok" rows: n_tasks (those rows),
    n_flagged (those with a ``degeneracy`` code), flags (their codes, ";"-joined in
    ``degeneracy.CODES`` order) and n_undecided (rows read from a runs.csv without the
    flags column, whose at_majority is unknown)."""
    keys = ["experiment", "dataset", "algorithm"]
    ok = runs[runs["status"] == "ok"]
    flags = (ok[degeneracy.COLUMN].fillna("").astype(str) if degeneracy.COLUMN in ok.columns
             else pd.Series("", index=ok.index, dtype=object))
    undecided = (ok["flags_undecided"].astype(bool) if "flags_undecided" in ok.columns
                 else pd.Series(False, index=ok.index))
    rows = ok[keys].assign(_flags=flags, _flagged=flags != "", _undecided=undecided)
    out = rows.groupby(keys, sort=False).agg(
        n_tasks=("_flags", "size"), n_flagged=("_flagged", "sum"),
        n_undecided=("_undecided", "sum")).reset_index()
    # the codes of the few cells that hold flagged rows (a join per cell, not per row)
    codes = rows[rows["_flagged"]].groupby(keys, sort=False)["_flags"].agg(
        lambda f: ";".join(degeneracy.codes_of(f))).rename("flags").reset_index()
    out = out.merge(codes, on=keys, how="left")
    out["flags"] = out["flags"].fillna("")
    return out[keys + ["n_tasks", "n_flagged", "flags", "n_undecided"]]


def summarise(runs: pd.DataFrame, metric: str, pooled: bool = False,
              best: bool = False) -> pd.DataFrame:
    """Mean and sd over repetitions per (experiment, dataset, algorithm).

    Columns: experiment, dataset, algorithm, mean, sd (sample sd, ddof = 1; NaN with one
    repetition), n_repetitions, min_folds, max_folds, and ``flag_counts``' n_tasks,
    n_flagged, flags and n_undecided of the rows behind the numbers. Groups keep
    first-seen order. ``best``: the value of the best repetition alone
    (``best_repetitions``), no sd; n_repetitions still counts the repetitions it was
    chosen from, the flag counts are those of the best repetition's tasks.
    """
    if best:
        counts = per_repetition(runs, "test_accuracy").groupby(
            ["experiment", "dataset", "algorithm"], sort=False).size().rename("n_from")
        out = summarise(best_repetitions(runs), metric, pooled)
        out = out.merge(counts.reset_index(), on=["experiment", "dataset", "algorithm"])
        return out.assign(n_repetitions=out.pop("n_from"), sd=np.nan)
    reps = per_repetition(runs, metric, pooled)
    grouped = reps.groupby(["experiment", "dataset", "algorithm"], sort=False)
    out = grouped.agg(mean=("value", "mean"), sd=("value", "std"),
                      n_repetitions=("value", "size"), min_folds=("n_folds", "min"),
                      max_folds=("n_folds", "max")).reset_index()
    # pandas' std is already ddof = 1 and NaN for a single value; make that explicit
    out.loc[out["n_repetitions"] < 2, "sd"] = np.nan
    return out.merge(flag_counts(runs), on=["experiment", "dataset", "algorithm"],
                     how="left")


def _count(low: int, high: int, noun: str) -> str:
    number = f"{low}" if low == high else f"{low}-{high}"
    return f"{number} {noun}{'' if high == 1 else 's'}"


def describe(summary: pd.DataFrame, metric: str, pooled: bool = False,
             best: bool = False, per_fold: bool = False) -> str:
    """The caption: exactly how the numbers of ``summary`` (from summarise) were made.

    e.g. "test_accuracy (%): mean over 5 folds of each repetition, then mean ± sd over 10
    repetitions (sample sd, ddof = 1); higher is better".
    """
    m = check_metric(metric)
    if summary.empty:
        return f"{metric}: no values in the finished tasks"
    folds = _count(int(summary["min_folds"].min()), int(summary["max_folds"].max()), "fold")
    reps = _count(int(summary["n_repetitions"].min()), int(summary["n_repetitions"].max()),
                  "repetition")
    if pooled:
        how = (f"pooled over the {folds} of each repetition (100 × Σ n_test_correct / "
               f"Σ n_test, as OC1's cross-validation)")
        if metric == "test_error":
            how += ", as 100 - accuracy"
    else:
        how = f"mean over {folds} of each repetition"
    sd_note = ("sample sd, ddof = 1" if summary["n_repetitions"].max() > 1
               else "no sd with one repetition")
    unit = f" ({m.unit})" if m.unit else ""
    better = "higher" if m.higher else "lower"
    if per_fold:
        tasks = _count(int(summary["n_repetitions"].min()),
                       int(summary["n_repetitions"].max()), "training fold")
        return (f"{metric}{unit}: mean ± sd over {tasks} (every fold of every repetition, "
                f"all tested on the same held-out test part; sample sd, ddof = 1); "
                f"{better} is better")
    if best:
        return (f"{metric}{unit}: {how} of the best of {reps} (the one with the highest test "
                f"accuracy); {better} is better")
    return f"{metric}{unit}: {how}, then mean ± sd over {reps} ({sd_note}); {better} is better"
