"""The numbers of ``obliq stats`` (report/significance.py writes them out): for one
experiment, the per-fold test of every ordered pair of algorithms on every dataset
counted as wins / ties / losses (Weka's Experimenter summary), and across datasets (each
scored by its mean over the folds) the Wilcoxon signed-rank test of every pair, the
Friedman test with Iman & Davenport's F, the average ranks and Nemenyi's critical
difference (Demšar 2006, sections 3.2.2 and 3.2.4). The tests themselves are stats.py's.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pandas as pd

from .aggregate import (
    check_metric,
    config_order,
    failed_tasks,
    flag_counts,
    with_prediction_metric,
)
from .stats import (
    FriedmanResult,
    chosen_test,
    compare_to,
    dataset_scores,
    friedman_test,
    protocol_caveat,
    wilcoxon_test,
)

CSV_COLUMNS = [
    "experiment", "metric", "test", "alpha", "algorithm", "versus",
    "wins", "ties", "losses",                                  # (a) per-dataset counts
    "n_datasets", "mean_wins", "mean_ties", "mean_losses",     # (b) over shared datasets
    "wilcoxon_statistic", "wilcoxon_pvalue",
    "average_rank", "versus_average_rank", "nemenyi_pvalue", "beyond_cd",
    "friedman_n_datasets", "friedman_chi2", "friedman_pvalue",   # (c) per experiment
    "iman_davenport", "iman_davenport_pvalue", "critical_difference",
    "n_flagged", "versus_n_flagged",   # tasks flagged degenerate (degeneracy.py) of each
    # the per-fold test of the pair on the experiment's one dataset (empty with several:
    # wins / ties / losses count those)
    "fold_n_pairs", "fold_statistic", "fold_pvalue",
]



def _fold_counts(runs, metric, test, alpha, algorithms, protocol
                 ) -> tuple[pd.DataFrame, int, pd.DataFrame]:
    """Ordered pairs (algorithm, versus) with the per-dataset wins / ties / losses of
    ``algorithm`` against ``versus`` by the per-fold test; how many (dataset, pair) tests
    had no test (counted as ties; compare_to's no_test says why); and every test's row
    (``compare_to``'s columns and ``versus``)."""
    rows, untested, every = [], 0, []
    for versus in algorithms:
        tests = compare_to(runs, metric, versus, alpha, test, protocol)
        every.append(tests.assign(versus=versus))
        untested += int(tests["statistic"].isna().sum())
        for algorithm in algorithms:
            if algorithm == versus:
                continue
            marks = tests.loc[tests["algorithm"] == algorithm, "mark"]
            wins, losses = int((marks == "v").sum()), int((marks == "*").sum())
            rows.append(dict(algorithm=algorithm, versus=versus, wins=wins,
                             ties=len(marks) - wins - losses, losses=losses))
    # each unordered pair was tested twice (once each way)
    return pd.DataFrame(rows), untested // 2, pd.concat(every, ignore_index=True)


def _across_datasets(scores: pd.DataFrame, higher: bool, alpha: float,
                     friedman: FriedmanResult | None) -> pd.DataFrame:
    """Ordered pairs with the Wilcoxon test over the datasets both have scores on, the
    count of datasets where ``algorithm``'s mean is better / equal / worse, and the
    Nemenyi p of their average ranks (when the Friedman test ran)."""
    rows = []
    for algorithm, versus in itertools.permutations(scores.columns, 2):
        both = scores[[algorithm, versus]].dropna()
        difference = both[algorithm] - both[versus]
        better = difference > 0 if higher else difference < 0
        worse = difference < 0 if higher else difference > 0
        row = dict(algorithm=algorithm, versus=versus, n_datasets=len(both),
                   mean_wins=int(better.sum()), mean_ties=int((difference == 0).sum()),
                   mean_losses=int(worse.sum()), wilcoxon_statistic=float("nan"),
                   wilcoxon_pvalue=float("nan"), wilcoxon_mark="")
        if len(both) >= 2:
            result = wilcoxon_test(both[algorithm], both[versus])
            # R+ collects the ranks where algorithm - versus > 0
            ahead = (result.rank_sum_plus > result.rank_sum_minus) == higher
            row.update(wilcoxon_statistic=result.statistic, wilcoxon_pvalue=result.pvalue)
            if result.pvalue <= alpha and result.rank_sum_plus != result.rank_sum_minus:
                row["wilcoxon_mark"] = "v" if ahead else "*"
        if friedman is not None:
            ranks = friedman.average_ranks
            gap = ranks[versus] - ranks[algorithm]   # > 0: algorithm ranks better
            row.update(average_rank=ranks[algorithm], versus_average_rank=ranks[versus],
                       nemenyi_pvalue=float(friedman.nemenyi_pvalues.at[algorithm, versus]),
                       beyond_cd=bool(abs(gap) >= friedman.critical_difference))
            row["nemenyi_mark"] = ("v" if gap > 0 else "*") if row["beyond_cd"] else ""
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass
class SignificanceNumbers:
    """The significance tests of one experiment (``significance_numbers``).

    ``pairs``: one row per ordered pair of algorithms, CSV_COLUMNS but the experiment's
    four (empty with fewer than 2 algorithms, when the rest is None); ``test``: the
    per-fold test (``stats.chosen_test``: ``--test``'s or the protocol's default) and
    ``test_why`` the reason ("--test 5x2f", "default for 5 x 2-fold CV"); ``counts``: its
    w/t/l per ordered pair, ``fold_tests`` every (dataset, ordered pair) test's row
    (``compare_to``'s and ``versus``) and ``untested`` the (dataset, pair) tests with
    no test (too few shared folds, tasks repeating one fit: ``compare_to``'s no_test);
    ``across``: ``_across_datasets``' rows; ``scores``: each
    dataset's mean per algorithm, ``complete`` its datasets with every algorithm and
    ``dropped`` the others; ``friedman``: the Friedman test on ``complete`` (None with
    fewer than 2 such datasets); ``cells``: ``aggregate.flag_counts`` and ``flagged`` the
    flagged tasks per algorithm; ``caveat``: ``stats.protocol_caveat``'s warning ("" for
    none); ``failed``: failed tasks left out.
    """

    metric: str
    higher: bool
    test: object
    algorithms: list
    datasets: list
    failed: int
    pairs: pd.DataFrame
    cells: pd.DataFrame | None = None
    flagged: pd.Series | None = None
    counts: pd.DataFrame | None = None
    untested: int = 0
    caveat: str = ""
    scores: pd.DataFrame | None = None
    complete: pd.DataFrame | None = None
    dropped: list | None = None
    friedman: FriedmanResult | None = None
    across: pd.DataFrame | None = None
    notes: tuple = ()  # a stored-prediction metric's blank tasks and why
    test_why: str = ""
    fold_tests: pd.DataFrame | None = None


def significance_numbers(runs: pd.DataFrame, meta: dict, metric: str, test: str | None,
                         alpha: float) -> SignificanceNumbers:
    """Every significance test of one experiment's rows ``runs`` (its meta.json
    ``meta``): the per-fold ``test`` per dataset at level ``alpha`` (None: the
    protocol's default, ``stats.protocol_test``), then Wilcoxon, Friedman /
    Iman-Davenport and Nemenyi across datasets."""
    m = check_metric(metric)
    config = meta.get("config") or {}
    # a stored-prediction metric (auc, ...) is read from the tasks' files once, here
    runs, notes = with_prediction_metric(runs, metric)
    ok = runs[runs["status"] == "ok"]
    chosen, why = chosen_test(test, config.get("protocol"), ok)
    algorithms = config_order(meta, "algorithms", ok["algorithm"])
    failed = failed_tasks(runs)
    if len(algorithms) < 2:
        return SignificanceNumbers(metric, m.higher, chosen, algorithms, [], failed,
                                   pd.DataFrame(columns=CSV_COLUMNS[4:]),
                                   notes=tuple(notes), test_why=why)
    # the cells holding tasks flagged degenerate: their scores enter every test below
    cells = flag_counts(runs)
    flagged = cells.groupby("algorithm", sort=False)["n_flagged"].sum()
    flagged = flagged.reindex(algorithms).fillna(0).astype(int)
    counts, untested, fold_tests = _fold_counts(runs, metric, chosen.name, alpha,
                                                algorithms, config.get("protocol"))
    caveat = protocol_caveat(chosen.name, (config.get("protocol") or {}).get("name"))
    scores = dataset_scores(runs, metric).reindex(columns=algorithms)
    complete = scores.dropna()
    dropped = [str(d) for d in scores.index if d not in complete.index]
    friedman = None
    if len(complete) >= 2:
        friedman = friedman_test(scores, m.higher, alpha)
    across = _across_datasets(scores, m.higher, alpha, friedman)
    datasets = config_order(meta, "datasets", ok["dataset"])
    pairs = counts.merge(across.drop(columns=[c for c in ("wilcoxon_mark", "nemenyi_mark")
                                              if c in across.columns]),
                         on=["algorithm", "versus"], how="left")
    if friedman is not None:
        pairs = pairs.assign(
            friedman_n_datasets=friedman.n_datasets, friedman_chi2=friedman.chi2,
            friedman_pvalue=friedman.chi2_pvalue, iman_davenport=friedman.iman_davenport,
            iman_davenport_pvalue=friedman.iman_davenport_pvalue,
            critical_difference=friedman.critical_difference)
    pairs = pairs.assign(n_flagged=pairs["algorithm"].map(flagged),
                         versus_n_flagged=pairs["versus"].map(flagged))
    if fold_tests["dataset"].nunique() == 1:
        # one dataset: no test across datasets, so each pair's own p is the answer
        one = fold_tests.rename(columns={"n_pairs": "fold_n_pairs",
                                         "statistic": "fold_statistic",
                                         "pvalue": "fold_pvalue"})
        pairs = pairs.merge(one[["algorithm", "versus", "fold_n_pairs", "fold_statistic",
                                 "fold_pvalue"]], on=["algorithm", "versus"], how="left")
    order = {a: i for i, a in enumerate(algorithms)}
    pairs = pairs.sort_values(["algorithm", "versus"], key=lambda c: c.map(order),
                              kind="stable", ignore_index=True)
    return SignificanceNumbers(metric, m.higher, chosen, algorithms, datasets, failed,
                               pairs.reindex(columns=CSV_COLUMNS[4:]), cells, flagged,
                               counts, untested, caveat or "", scores, complete, dropped,
                               friedman, across, tuple(notes), why, fold_tests)


def stats_frame(results, metric: str = "test_accuracy", test: str | None = None,
                alpha: float = 0.05) -> pd.DataFrame:
    """Every experiment of ``results`` (an ``analysis.results.Results``) with a finished
    task as one frame (``obliq stats --format csv``): one row per experiment and ordered
    pair of algorithms, columns CSV_COLUMNS; ``test`` is the per-fold test used (None:
    each experiment's protocol default, named in its rows)."""
    frames = []
    for meta, part, _ in results.finished_experiments():
        numbers = significance_numbers(part, meta, metric, test, alpha)
        if len(numbers.pairs):
            frames.append(numbers.pairs.assign(experiment=meta["name"], metric=metric,
                                               test=numbers.test.name, alpha=alpha))
    if not frames:
        return pd.DataFrame(columns=CSV_COLUMNS)
    return pd.concat(frames, ignore_index=True)[CSV_COLUMNS]
