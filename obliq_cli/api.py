"""Experiments from Python: what ``obliq run``, ``obliq table`` and ``obliq stats`` call.

::

    import obliq_cli
    results = obliq_cli.run_experiment("quickstart", output="results/qs", n_jobs=2)
    results.to_frame()                   # one row per task and metric
    print(results.table(sig="CART-AP gini unpruned"))   # the text `obliq table` prints
    results.table(frame=True)            # the same numbers as a DataFrame (--format csv)
    results.stats(frame=True)            # what `obliq stats` computes
    obliq_cli.load_results("results/qs") # a finished folder, read into the same object

A thin layer: a config is read by ``config.load_config`` (or ``config.config_from_dict``),
run by ``experiment.runner.run_experiment`` and read back by
``analysis.aggregate.load_results``; tables and statistics are ``report.tables`` and
``report.significance``. Errors are ``ObliqError``s (ValueErrors), the one-line messages
the command line prints.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from .errors import ObliqError

log = logging.getLogger("obliq")

# the columns of ``Results.to_frame`` (``experiment`` tells several experiments apart;
# ``flags``: the task's degeneracy codes, experiment/degeneracy.py)
FRAME_COLUMNS = ["experiment", "dataset", "repetition", "fold", "algorithm", "metric",
                 "value", "status", "flags"]


class Results:
    """Finished tasks of one or more experiments, as ``obliq table`` reads them.

    ``runs``: the stored rows (``analysis.aggregate.load_results``: the last row of each
    task of the config in meta.json, typed); ``metas``: each experiment's meta.json;
    ``summary``: what the run did (``experiment.runner.RunSummary``: ran, skipped,
    failed) when the object comes from ``run_experiment``, else None.
    """

    def __init__(self, paths, runs, metas, show_all: bool = False, summary=None,
                 config=None):
        self.paths = list(paths)
        self.runs = runs
        self.metas = metas
        self.show_all = show_all
        self.summary = summary
        self.config = config

    def __repr__(self) -> str:
        names = ", ".join(str(m["name"]) for m in self.metas)
        ok = int((self.runs["status"] == "ok").sum())
        return f"<obliq Results {names}: {ok} task(s) ok of {len(self.runs)}>"

    def _read(self, show_all: bool | None):
        """(runs, metas), read again from the folders when ``show_all`` asks for other
        rows than those held."""
        if show_all is None or bool(show_all) == self.show_all:
            return self.runs, self.metas
        from .analysis.aggregate import load_results as read

        return read(self.paths, bool(show_all))

    def _config_order(self, frame, by=("e", "d", "r", "f", "a")):
        """The index of ``frame`` (rows with experiment, dataset, algorithm and, when
        ``by`` names them, repetition and fold) sorted in the configs' order of
        experiments, datasets and algorithms (labels no config names after them, as
        first seen)."""
        import pandas as pd

        from .analysis.aggregate import label_order

        rank = {}
        for column, field in (("dataset", "datasets"), ("algorithm", "algorithms")):
            preferred = [item.get("label") for meta in self.metas
                         for item in (meta.get("config") or {}).get(field, [])]
            seen = label_order(preferred, [*self.runs[column], *frame[column]], keep_all=True)
            rank[column] = frame[column].map({label: i for i, label in enumerate(seen)})
        experiments = {str(m["name"]): i for i, m in enumerate(self.metas)}
        keys = pd.DataFrame({"e": frame["experiment"].map(experiments),
                             "d": rank["dataset"], "a": rank["algorithm"]})
        if "r" in by:
            keys = keys.assign(r=frame["repetition"], f=frame["fold"])
        return keys.sort_values(list(by), kind="stable").index

    def to_frame(self):
        """One row per task and metric: experiment, dataset, repetition, fold, algorithm
        (the config's labels), metric, value, status ("ok" or "error"; a failed task's
        values are NaN), flags (the task's degeneracy codes, ";"-joined, "" for none:
        experiment/degeneracy.py). The metrics are the registered ones stored or derived
        for every row (test_accuracy, test_error, n_leaves, n_nodes, depth, fit_time,
        ...; per-class rates are in ``runs``). Rows in the config's order of datasets and
        algorithms, then repetition, fold and the metrics' declaration order, whatever
        order the tasks finished in."""
        from .experiment.metrics import METRICS

        runs = self.runs
        metrics = [name for name in METRICS if name in runs.columns]
        keys = ["experiment", "dataset", "repetition", "fold", "algorithm", "status",
                "flags"]
        order = self._config_order(runs)
        tasks = runs.loc[order, keys + metrics].reset_index(drop=True)
        tasks["_task"] = range(len(tasks))
        long = tasks.melt(id_vars=keys + ["_task"], value_vars=metrics, var_name="metric",
                          value_name="value")
        long["_metric"] = long["metric"].map({m: i for i, m in enumerate(metrics)})
        long = long.sort_values(["_task", "_metric"], kind="stable", ignore_index=True)
        long["value"] = long["value"].astype(float)
        return long[FRAME_COLUMNS]

    def flagged(self):
        """The cells holding tasks flagged degenerate (experiment/degeneracy.py), in the
        configs' order: experiment, dataset, algorithm, n_tasks (finished), n_flagged,
        flags (their codes), n_undecided (``analysis.aggregate.flag_counts``)."""
        from .analysis.aggregate import flag_counts

        counts = flag_counts(self.runs)
        counts = counts[counts["n_flagged"] > 0]
        return counts.loc[self._config_order(counts, ("e", "d", "a"))].reset_index(drop=True)

    def table(self, metric: str = "test_accuracy", fmt: str = "md", layout: str = "wide",
              sig: str | None = None, alpha: float = 0.05, pooled: bool = False,
              best: bool = False, test: str = "t", show_all: bool | None = None,
              frame: bool = False):
        """What ``obliq table`` prints, with its options (``fmt`` is --format, ``show_all``
        --all). ``frame=True``: the numbers as a DataFrame instead (the rows and columns
        of ``--format csv``, ``report.tables.CSV_COLUMNS``; ``fmt`` and ``layout`` do not
        apply)."""
        from .experiment.metrics import check_metric
        from .report.tables import check_table_options, format_tables, table_frame

        check_table_options(metric, "csv" if frame else fmt, layout, pooled, alpha, sig, test)
        runs, metas = self._read(show_all)
        check_metric(metric)
        if frame:
            return table_frame(runs, metas, metric, sig, pooled, alpha, best, test)
        return format_tables(runs, metas, metric, fmt, layout, sig, pooled, alpha, best, test)

    def stats(self, metric: str = "test_accuracy", test: str = "t", alpha: float = 0.05,
              fmt: str = "md", frame: bool = False, bayes: bool = False,
              rope: float | None = None):
        """What ``obliq stats`` prints: per-dataset w/t/l of every pair of algorithms by
        the per-fold test, Wilcoxon across datasets, Friedman / Iman-Davenport / Nemenyi.
        ``frame=True``: the numbers as a DataFrame (``--format csv``'s rows,
        ``report.significance.CSV_COLUMNS``). ``bayes=True``: ``obliq stats --bayes``
        instead (``report.bayes``: mean ranks, the Bayesian signed-rank test across
        datasets and the correlated t-test per dataset, with ``rope`` in the metric's
        units; None: 1 point of a percentage); its frame has BAYES_CSV_COLUMNS."""
        from .experiment.metrics import check_metric
        from .report.significance import check_stats_options, format_stats, stats_frame

        check_stats_options(test, alpha, "csv" if frame else fmt)
        check_metric(metric)
        if bayes:
            from .report.bayes import bayes_frame, check_rope, format_bayes

            if rope is not None:
                check_rope(rope)
            if frame:
                return bayes_frame(self.runs, self.metas, metric, rope, alpha)
            return format_bayes(self.runs, self.metas, metric, rope, alpha, fmt)
        if frame:
            return stats_frame(self.runs, self.metas, metric, test, alpha)
        return format_stats(self.runs, self.metas, metric, test, alpha, fmt)


def load_results(path, show_all: bool = False) -> Results:
    """The finished tasks under ``path`` (an experiment folder, a folder of them, or a
    list of such paths), as ``obliq table`` reads them; ``show_all`` also keeps the rows
    of tasks that left the config (``obliq table --all``)."""
    from .analysis.aggregate import load_results as read

    paths = [path] if isinstance(path, (str, Path)) else list(path)
    runs, metas = read(paths, show_all)
    return Results(paths, runs, metas, show_all)


def name_list(value, option: str) -> list[str] | None:
    """A selection of names (``--datasets a,b``, ``datasets=["a", "b"]``): a string or
    strings, each split at commas, stripped; None when not given. ObliqError for an empty
    selection or a value that is not text."""
    if value is None:
        return None
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) for v in items):
        raise ObliqError(f"--{option}: give names separated by commas (got "
                         f"{type(value).__name__})")
    names = [part.strip() for item in items for part in item.split(",") if part.strip()]
    if not names:
        raise ObliqError(f"--{option}: give at least one name")
    return list(dict.fromkeys(names))


def run_experiment(config, output=None, n_jobs: int | None = None, backend: str | None = None,
                   resume: bool = False, force: bool = False, progress: bool = False,
                   scheduler: str | None = None, accept_changed_code: bool = False,
                   datasets=None, algorithms=None) -> Results:
    """Run (or with ``resume`` continue) an experiment and read its results back.

    ``config``: a YAML file's path, a shipped config's name ("quickstart", ``obliq
    configs``), a dict holding what the YAML would (relative paths in it are taken from
    the current folder) or an ``ExperimentConfig``. ``output``, ``n_jobs`` and
    ``backend`` override the config's (None keeps it); ``force`` first deletes what
    obliq wrote in the output folder; ``scheduler``: a dask scheduler's address;
    ``accept_changed_code``: resume although the plugins, estimator packages or
    ``imports:`` files of the stored rows changed (meta.json's history says so);
    ``datasets`` / ``algorithms``: run only the tasks of these (labels or names as the
    config gives them; a string is split at commas), as ``obliq run --datasets
    --algorithms`` (the rows are those a full run writes; ``resume`` later adds the
    rest). Raises
    ObliqError, having written nothing, for bad input; a task that fails is stored with
    status "error" and listed in ``Results.summary.failed``.
    """
    from .config import ExperimentConfig, config_from_dict, load_config
    from .experiment.runner import run_experiment as run

    if resume and force:
        raise ObliqError("--resume and --force exclude each other")
    overrides = {"output": None if output is None else str(output), "n_jobs": n_jobs,
                 "backend": backend}
    if isinstance(config, ExperimentConfig):
        spec = config.with_overrides(**overrides)
    elif isinstance(config, dict):
        spec = config_from_dict(config, overrides)
    elif isinstance(config, (str, os.PathLike)):
        spec = load_config(config, overrides)
    else:
        raise ObliqError(f"config: give a YAML file's path, a shipped config's name or a "
                         f"dict of settings (got {type(config).__name__})")
    log.debug("config %s: %d dataset(s) x %d algorithm(s), %s protocol, %d job(s) on %s",
              spec.path, len(spec.datasets), len(spec.algorithms), spec.protocol.name,
              spec.n_jobs, spec.backend)
    summary = run(spec, n_jobs=spec.n_jobs, backend=spec.backend, scheduler=scheduler,
                  resume=resume, force=force, progress=progress,
                  accept_changed_code=accept_changed_code,
                  datasets=name_list(datasets, "datasets"),
                  algorithms=name_list(algorithms, "algorithms"))
    results = load_results(summary.output)
    results.summary, results.config = summary, spec
    return results
