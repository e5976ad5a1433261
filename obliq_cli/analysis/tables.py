"""The numbers of ``obliq table`` (``report/tables.py`` renders them): one experiment's
tidy frame of mean, sd, the per-fold test's marks and the paper's values with the tolerance
verdict, and the cells holding tasks flagged degenerate."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import ObliqError
from ..experiment import degeneracy
from ..experiment.protocols import measured_per_task
from .aggregate import (
    as_single_folds,
    check_metric,
    config_order,
    describe,
    failed_tasks,
    pooled_by_paper,
    summarise,
    with_prediction_metric,
)
from .references import TOLERANCE_POINTS, TOLERANCE_SDS, agrees, paper_values, tolerance
from .stats import (
    chosen_test,
    compare_to,
    protocol_caveat,
    untested_note,
)


def flagged_cells(tidy: pd.DataFrame, datasets=None, algorithms=None) -> list[tuple]:
    """(dataset, algorithm, flagged, tasks, codes) of each cell of ``tidy`` (rows of
    ``summarise``) holding tasks flagged degenerate, in the order of ``datasets`` and
    ``algorithms`` (default: as the rows come)."""
    if "n_flagged" not in tidy.columns:
        return []
    flagged = tidy[tidy["n_flagged"].fillna(0) > 0]
    if datasets is not None or algorithms is not None:
        rank = {d: i for i, d in enumerate(datasets or [])}
        order = {a: i for i, a in enumerate(algorithms or [])}
        flagged = flagged.assign(
            _d=flagged["dataset"].map(lambda d: rank.get(d, len(rank))),
            _a=flagged["algorithm"].map(lambda a: order.get(a, len(order)))).sort_values(
            ["_d", "_a"], kind="stable")
    return [(r.dataset, r.algorithm, int(r.n_flagged), int(r.n_tasks),
             [c for c in str(r.flags).split(";") if c]) for r in flagged.itertuples()]


def degenerate_note(tidy: pd.DataFrame, datasets=None, algorithms=None) -> list[str]:
    """The note under a table whose cells (``tidy``: rows of ``summarise``) hold tasks
    flagged degenerate or tasks whose flags could not all be decided
    (``degeneracy.note``); empty when there are none."""
    if "n_tasks" not in tidy.columns:
        return []
    text = degeneracy.note(flagged_cells(tidy, datasets, algorithms),
                           int(tidy["n_tasks"].fillna(0).sum()),
                           int(tidy["n_undecided"].fillna(0).sum()))
    return [text] if text else []


def experiment_table(runs: pd.DataFrame, meta: dict, metric: str, sig: str | None = None,
                     pooled: bool = False, alpha: float = 0.05, best: bool = False,
                     test: str | None = None):
    """The numbers of one experiment's table, before formatting.

    Returns (tidy, datasets, algorithms, caption, notes): ``tidy`` has one row per
    (dataset, algorithm) with a result: mean, sd, n_repetitions, mark ("v", "*", "") and
    pvalue of the test against ``sig`` (NaN without one, and for ``sig`` itself; the test
    is ``test``, None: the protocol's default, and its name is the column ``test``), and
    when the reference covers it paper_mean, paper_sd, paper_text, method, delta,
    tolerance (references.tolerance: max(floor, 2 × paper sd)) and agrees (references.agrees;
    False without a paper value); ``datasets`` and ``algorithms`` are in config order;
    ``notes`` go under the table. Accuracy and error are pooled with ``pooled`` or when
    the experiment's paper pools them (``aggregate.pooled_by_paper``).
    """
    m = check_metric(metric)
    config = meta.get("config") or {}
    pooled = pooled or pooled_by_paper(meta, metric)
    # every dataset and algorithm of the config, run or not (a partial folder's table
    # shows the cells still to run), then those only earlier rows name
    datasets = config_order(meta, "datasets", runs["dataset"], keep_all=True)
    algorithms = config_order(meta, "algorithms", runs["algorithm"], keep_all=True)
    # A protocol whose tasks share one test part (holdout_cv, the UMT paper): each of the
    # k x r trees is one measurement (its declaration says so).
    per_fold = measured_per_task(config.get("protocol")) and not pooled and not best
    # a stored-prediction metric (auc, ...) is read from the tasks' files once, here
    runs, notes = with_prediction_metric(runs, metric)
    summary_runs = as_single_folds(runs) if per_fold else runs
    tidy = summarise(summary_runs, metric, pooled, best).drop(columns=["experiment"])
    caption = describe(tidy, metric, pooled, best, per_fold)

    tidy["mark"] = ""
    tidy["pvalue"] = np.nan
    if sig is not None:
        if sig not in algorithms:
            raise ObliqError(f"--sig: no algorithm {sig!r} in experiment {meta['name']!r} "
                             f"(algorithms: {', '.join(algorithms)})")
        chosen, why = chosen_test(test, config.get("protocol"), runs[runs["status"] == "ok"])
        tests = compare_to(runs, metric, sig, alpha, chosen.name, config.get("protocol"))
        tidy = tidy.drop(columns=["mark", "pvalue"]).merge(
            tests[["dataset", "algorithm", "mark", "pvalue"]], on=["dataset", "algorithm"],
            how="left")
        tidy["mark"] = tidy["mark"].fillna("")
        tidy["pvalue"] = tidy["pvalue"].astype(np.float64)
        tidy["test"] = chosen.name
        better = "higher" if m.higher else "lower"
        if chosen.name == "t":
            notes.append(f"v / *: significantly better / worse than {sig} ({better} {metric} "
                         f"is better) by a two-sided paired t-test ({why}), alpha = {alpha}, "
                         f"on the per-fold scores of the (repetition, fold) pairs both "
                         f"algorithms finished, i.e. the same folds (no correction for "
                         f"overlapping training sets); (w/t/l) counts them per algorithm")
        else:
            notes.append(f"v / *: significantly better / worse than {sig} ({better} {metric} "
                         f"is better) by {chosen.title}, test name {chosen.name} ({why}), "
                         f"alpha = {alpha}, on {chosen.reads}; (w/t/l) counts them per "
                         f"algorithm")
            caveat = protocol_caveat(chosen.name, (config.get("protocol") or {}).get("name"))
            if caveat:
                notes.append(caveat)
        if len(tests):
            # The papers' summary sentences ("in 3 of 20 data sets UMT is significantly
            # better than both C4.5 and LDT"): all others marked worse / all better.
            per_set = tests.groupby("dataset", sort=False)["mark"]
            ref_best = int(per_set.apply(lambda marks: bool((marks == "*").all())).sum())
            ref_worst = int(per_set.apply(lambda marks: bool((marks == "v").all())).sum())
            notes.append(f"{sig} is significantly better than every other algorithm on "
                         f"{ref_best} of {per_set.ngroups} datasets, significantly worse "
                         f"than every other on {ref_worst}")
        untested = untested_note(tests)
        if untested:
            notes.append(untested)

    # A reference gives a best-of-runs value as "<metric>@best" (APDT Table II).
    paper, paper_notes = paper_values(meta, f"{metric}@best" if best else metric)
    tidy = tidy.merge(paper, on=["dataset", "algorithm"], how="left")
    tidy["delta"] = tidy["mean"] - tidy["paper_mean"]
    floor = TOLERANCE_POINTS / 100 if m.fraction else TOLERANCE_POINTS
    covered = tidy["paper_mean"].notna()
    tidy["tolerance"] = np.where(covered, tolerance(tidy["paper_sd"], floor), np.nan)
    tidy["agrees"] = covered & agrees(tidy["mean"], tidy["paper_mean"], tidy["paper_sd"], floor)
    if paper_notes:
        notes.append(f"agreement: {int(tidy['agrees'].sum())} of {int(covered.sum())} values "
                     f"within tolerance of the paper's (✓)")
        unit = "percentage points" if m.percent else (m.unit or "units")
        notes.append(f"{paper_notes[0]}; Δ = ours - paper; ✓ when |Δ| <= "
                     f"max({floor:g}, {TOLERANCE_SDS:g} × paper sd), in {unit} "
                     f"(a blank paper sd counts as 0)" + "".join(f"; {n}" for n in
                                                                paper_notes[1:]))
    notes += degenerate_note(tidy, datasets, algorithms)
    failed = failed_tasks(runs)
    if failed:
        notes.append(f"{failed} task{'s' if failed != 1 else ''} failed (status error in "
                     f"runs.csv, see its error column) and {'are' if failed != 1 else 'is'} "
                     f"left out")
    return tidy, datasets, algorithms, caption, notes
