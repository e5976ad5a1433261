"""``Results``: the finished tasks of one or more experiments, read once, and the one loop
over their experiments that every table, test, figure and the Python API walk.

Modelled on mlr3's ``BenchmarkResult``: one object holds the stored rows of every
experiment (``runs``, ``aggregate.load_results``) with each experiment's meta.json
(``metas``), and hands out one experiment at a time (``experiments``), by name
(``by_name``) or the only one (``only``), so no caller pairs rows with their meta again.
``api.Results`` adds the rendered tables and statistics on top.
"""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

from ..errors import ArgumentTypeError, ObliqError
from .aggregate import each_experiment, flag_counts, label_order, load_results, results_paths

# the columns of ``Results.to_frame`` (``experiment`` tells several experiments apart;
# ``flags``: the task's degeneracy codes, experiment/degeneracy.py)
FRAME_COLUMNS = ["experiment", "dataset", "repetition", "fold", "algorithm", "metric",
                 "value", "status", "flags"]


def _flag(value, name: str, none: bool = False):
    """``value`` when it is a bool (or None, with ``none``): a "no" or a 0 given for a
    yes/no argument is refused rather than read by its truth (``"no"`` is true)."""
    if isinstance(value, bool) or (none and value is None):
        return value
    raise ArgumentTypeError(f"{name}: must be True or False (got {value!r:.40})")


class Experiment(NamedTuple):
    """One experiment of a ``Results``: its meta.json, its rows of ``runs`` and its
    heading (the name when the results hold several experiments, else None: a lone table
    needs none). Unpacks as (meta, rows, title)."""

    meta: dict
    rows: pd.DataFrame
    title: str | None

    @property
    def name(self) -> str:
        return self.meta["name"]

    @property
    def finished(self) -> bool:
        """Whether any of its tasks finished ("ok"): the others have nothing to tabulate."""
        return bool((self.rows["status"] == "ok").any())


class Results:
    """Finished tasks of one or more experiments, as ``obliq table`` reads them.

    ``runs``: the stored rows (``aggregate.load_results``: the last row of each task of
    the config in meta.json, typed); ``metas``: each experiment's meta.json, in the order
    read; ``paths``: the folders given; ``show_all``: whether ``runs`` also holds the rows
    of tasks that left the config (``obliq table --all``).
    """

    def __init__(self, paths, runs: pd.DataFrame, metas: list[dict], show_all: bool = False):
        if not isinstance(runs, pd.DataFrame) or "experiment" not in runs.columns:
            raise ArgumentTypeError(f"Results: runs must be the DataFrame load_results reads "
                                    f"(got {type(runs).__name__}); use load_results(path)")
        if not isinstance(metas, list) or not all(isinstance(m, dict) and "name" in m
                                                  for m in metas):
            raise ArgumentTypeError("Results: metas must be a list of meta.json objects; "
                                    "use load_results(path)")
        self.paths = results_paths(paths)
        self.runs = runs
        self.metas = metas
        self.show_all = _flag(show_all, "show_all")

    @classmethod
    def read(cls, paths, show_all: bool = False):
        """The results under ``paths`` (an experiment folder, a folder of them, or a list
        of such paths)."""
        paths = results_paths(paths)
        runs, metas = load_results(paths, _flag(show_all, "show_all"))
        return cls(paths, runs, metas, show_all)

    @classmethod
    def of(cls, source, show_all: bool | None = None):
        """``source`` when it is a ``Results`` already (read again from its folders when
        ``show_all`` asks for other rows than it holds), else the results under the
        paths ``source`` names: what the report's functions take."""
        if isinstance(source, Results):
            return source.showing(show_all)
        return cls.read(source, bool(_flag(show_all, "show_all", none=True)))

    def showing(self, show_all: bool | None):
        """These results, or the same folders read again when ``show_all`` (None: as
        held) asks for other rows than those held."""
        if show_all is None or _flag(show_all, "show_all") == self.show_all:
            return self
        return type(self).read(self.paths, show_all)

    def __repr__(self) -> str:
        names = ", ".join(str(m["name"]) for m in self.metas)
        ok = int((self.runs["status"] == "ok").sum())
        return f"<obliq Results {names}: {ok} task(s) ok of {len(self.runs)}>"

    def experiments(self) -> list[Experiment]:
        """Every experiment, in the order read (``aggregate.each_experiment``)."""
        return [Experiment(*item) for item in each_experiment(self.runs, self.metas)]

    def finished_experiments(self) -> list[Experiment]:
        """The experiments with a finished task (the others give no number)."""
        return [item for item in self.experiments() if item.finished]

    def alone(self, experiment: Experiment):
        """A ``Results`` of that one experiment (untitled, as a lone table is)."""
        return type(self)(self.paths, experiment.rows, [experiment.meta], self.show_all)

    def by_name(self) -> dict[str, tuple[dict, pd.DataFrame]]:
        """(meta, rows) of every experiment by its (unique) name: what a claim looks its
        experiment up in (``analysis.claims.evaluate``)."""
        return {item.name: (item.meta, item.rows) for item in self.experiments()}

    def only(self) -> Experiment:
        """The one experiment these results hold; ObliqError naming the folder when they
        hold several (a figure of one experiment)."""
        if len(self.metas) != 1:
            where = ", ".join(str(p) for p in self.paths)
            raise ObliqError(f"{where}: holds {len(self.metas)} experiments; give one of them")
        return self.experiments()[0]

    def _config_order(self, frame, by=("e", "d", "r", "f", "a")):
        """The index of ``frame`` (rows with experiment, dataset, algorithm and, when
        ``by`` names them, repetition and fold) sorted in the configs' order of
        experiments, datasets and algorithms (labels no config names after them, as
        first seen)."""
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

    def to_frame(self) -> pd.DataFrame:
        """One row per task and metric: experiment, dataset, repetition, fold, algorithm
        (the config's labels), metric, value, status ("ok" or "error"; a failed task's
        values are NaN), flags (the task's degeneracy codes, ";"-joined, "" for none:
        experiment/degeneracy.py). The metrics are the registered ones stored or derived
        for every row (test_accuracy, test_error, n_leaves, n_nodes, depth, fit_time,
        ...; per-class rates are in ``runs``). Rows in the config's order of datasets and
        algorithms, then repetition, fold and the metrics' declaration order, whatever
        order the tasks finished in."""
        from ..experiment.metrics import METRICS

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

    def flagged(self) -> pd.DataFrame:
        """The cells holding tasks flagged degenerate (experiment/degeneracy.py), in the
        configs' order: experiment, dataset, algorithm, n_tasks (finished), n_flagged,
        flags (their codes), n_undecided (``aggregate.flag_counts``)."""
        counts = flag_counts(self.runs)
        counts = counts[counts["n_flagged"] > 0]
        return counts.loc[self._config_order(counts, ("e", "d", "a"))].reset_index(drop=True)
