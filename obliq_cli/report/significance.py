"""``obliq stats``: every significance test of stats.py on every experiment, as text.

Per experiment (one section each):

a. the per-fold test (``--test``) for every ordered pair of algorithms on every dataset,
   counted as a matrix of wins / ties / losses of the row algorithm against the column
   algorithm (Weka's Experimenter summary, ``-s``);
b. across datasets (N = datasets, each scored by its mean over the folds as ``obliq
   table`` prints it): the Wilcoxon signed-rank p of every pair, and Nemenyi's p from the
   average ranks;
c. the Friedman test with Iman & Davenport's F, the average ranks (best first), Nemenyi's
   critical difference and the pairs whose ranks differ by at least that (Demšar 2006).

Formats: md (pipe tables and plain lines), html (tabulate's html tables and <p> notes, no
page wrapper, for embedding in a report) and csv (one row per ordered pair of algorithms
of every experiment, with the experiment's Friedman numbers repeated on each row).

Every test here reads the scores of each (dataset, algorithm) cell; a cell holding tasks
flagged degenerate (experiment/degeneracy.py) enters them like any other, so the text
names those cells under a note (``tables.degenerate_note``), the algorithms holding them
carry ⚠ in the w/t/l and rank tables, and csv counts their flagged tasks (n_flagged,
versus_n_flagged).
"""

from __future__ import annotations

import itertools
import math

import pandas as pd

from ..analysis.aggregate import (
    check_metric,
    config_order,
    each_experiment,
    failed_tasks,
    flag_counts,
    load_results,
    with_prediction_metric,
)
from ..analysis.stats import (
    FriedmanResult,
    check_alpha,
    check_test,
    compare_to,
    dataset_scores,
    friedman_test,
    nemenyi_q,
    protocol_caveat,
    wilcoxon_test,
)
from .render import Table, Text, check_format, render, section
from .tables import degenerate_note, flag_mark

CSV_COLUMNS = [
    "experiment", "metric", "test", "alpha", "algorithm", "versus",
    "wins", "ties", "losses",                                  # (a) per-dataset counts
    "n_datasets", "mean_wins", "mean_ties", "mean_losses",     # (b) over shared datasets
    "wilcoxon_statistic", "wilcoxon_pvalue",
    "average_rank", "versus_average_rank", "nemenyi_pvalue", "beyond_cd",
    "friedman_n_datasets", "friedman_chi2", "friedman_pvalue",   # (c) per experiment
    "iman_davenport", "iman_davenport_pvalue", "critical_difference",
    "n_flagged", "versus_n_flagged",   # tasks flagged degenerate (degeneracy.py) of each
]


def _p(value: float) -> str:
    if value != value:  # NaN
        return ""
    return "< 0.0001" if value < 1e-4 else f"{value:.4f}"


def p_text(value: float) -> str:
    """ "p = 0.0312" or "p < 0.0001" for the running text."""
    return "p < 0.0001" if value < 1e-4 else f"p = {value:.4f}"


def format_statistic(value: float, decimals: int = 3) -> str:
    """A test statistic for the running text: blank for NaN, "inf" for an infinite one."""
    if value != value:
        return ""
    return "inf" if math.isinf(value) else f"{value:.{decimals}f}"


def _fold_counts(runs, metric, test, alpha, algorithms) -> tuple[pd.DataFrame, int]:
    """Ordered pairs (algorithm, versus) with the per-dataset wins / ties / losses of
    ``algorithm`` against ``versus`` by the per-fold test; and how many
    (dataset, pair) tests had too few shared folds (counted as ties)."""
    rows, untested = [], 0
    for versus in algorithms:
        tests = compare_to(runs, metric, versus, alpha, test)
        untested += int(tests["statistic"].isna().sum())
        for algorithm in algorithms:
            if algorithm == versus:
                continue
            marks = tests.loc[tests["algorithm"] == algorithm, "mark"]
            wins, losses = int((marks == "v").sum()), int((marks == "*").sum())
            rows.append(dict(algorithm=algorithm, versus=versus, wins=wins,
                             ties=len(marks) - wins - losses, losses=losses))
    # each unordered pair was tested twice (once each way)
    return pd.DataFrame(rows), untested // 2


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


def experiment_stats(runs: pd.DataFrame, meta: dict, metric: str, test: str, alpha: float):
    """The numbers and the text blocks of one experiment.

    Returns (pairs, blocks): ``pairs`` one row per ordered pair of algorithms (CSV_COLUMNS
    but the experiment's), ``blocks`` a list of Text(text) and Table(headers, rows)
    in reading order.
    """
    chosen = check_test(test)
    m = check_metric(metric)
    config = meta.get("config") or {}
    # a stored-prediction metric (auc, ...) is read from the tasks' files once, here
    runs, notes = with_prediction_metric(runs, metric)
    ok = runs[runs["status"] == "ok"]
    algorithms = config_order(meta, "algorithms", ok["algorithm"])
    better = "higher" if m.higher else "lower"
    blocks: list = [Text(note) for note in notes]
    failed = failed_tasks(runs)
    if failed:
        blocks.append(Text(f"{failed} failed task{'s' if failed != 1 else ''} (status "
                            f"error in runs.csv) left out"))
    if len(algorithms) < 2:
        blocks.append(Text(f"only {len(algorithms)} algorithm with results "
                            f"({', '.join(algorithms) or 'none'}): nothing to compare"))
        return pd.DataFrame(columns=CSV_COLUMNS[4:]), blocks

    # the cells holding tasks flagged degenerate: their scores enter every test below
    cells = flag_counts(runs)
    flagged = cells.groupby("algorithm", sort=False)["n_flagged"].sum()
    flagged = flagged.reindex(algorithms).fillna(0).astype(int)

    def label(algorithm):
        return f"{algorithm}{flag_mark(flagged.get(algorithm, 0))}"

    # (a) per-fold tests, dataset by dataset
    counts, untested = _fold_counts(runs, metric, test, alpha, algorithms)
    blocks.append(Text(f"{metric}: {better} is better. Per dataset, {chosen.title} at "
                        f"alpha = {alpha} on the per-fold scores of the (repetition, fold) "
                        f"pairs both algorithms finished; each cell counts the datasets "
                        f"where the row algorithm is significantly better / not "
                        f"significantly different / significantly worse than the column "
                        f"algorithm (w/t/l)"))
    grid = counts.assign(cell=counts["wins"].astype(str) + "/" + counts["ties"].astype(str)
                         + "/" + counts["losses"].astype(str))
    grid = grid.pivot(index="algorithm", columns="versus", values="cell").reindex(
        index=algorithms, columns=algorithms).fillna("")
    blocks.append(Table(["w/t/l", *algorithms],
                   [[label(a), *grid.loc[a]] for a in algorithms]))
    if untested:
        blocks.append(Text(f"no test (too few shared folds) for {untested} dataset/pair "
                            f"combination(s), counted as ties"))
    caveat = protocol_caveat(test, (config.get("protocol") or {}).get("name"))
    if caveat:
        blocks.append(Text(caveat))

    # (b), (c) across datasets
    scores = dataset_scores(runs, metric).reindex(columns=algorithms)
    complete = scores.dropna()
    dropped = [str(d) for d in scores.index if d not in complete.index]
    friedman = None
    if len(complete) >= 2:
        friedman = friedman_test(scores, m.higher, alpha)
    across = _across_datasets(scores, m.higher, alpha, friedman)
    if len(scores) < 2:
        blocks.append(Text(f"the tests across datasets (Wilcoxon, Friedman, Nemenyi) need "
                            f"at least 2 datasets; this experiment has {len(scores)}"))
    else:
        blocks += _across_blocks(friedman, across, complete, dropped, algorithms, metric,
                                 better, alpha, label)
    datasets = config_order(meta, "datasets", ok["dataset"])
    blocks += [Text(text) for text in degenerate_note(cells, datasets, algorithms)]
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
    order = {a: i for i, a in enumerate(algorithms)}
    pairs = pairs.sort_values(["algorithm", "versus"], key=lambda c: c.map(order),
                              kind="stable", ignore_index=True)
    return pairs.reindex(columns=CSV_COLUMNS[4:]), blocks


def _across_blocks(friedman, across, complete, dropped, algorithms, metric, better, alpha,
                   label=str):
    """The blocks of (b) and (c); ``label``: an algorithm's name as the rank table shows
    it (marked when it holds flagged tasks)."""
    blocks: list = []
    n = len(complete)
    if friedman is None:
        blocks.append(Text(f"Friedman test: needs at least 2 datasets on which every "
                            f"algorithm has results; {n} here ({len(dropped)} dropped for "
                            f"missing results: {', '.join(dropped)})"))
    else:
        k = friedman.n_algorithms
        where = (f"; {len(dropped)} dataset{'s' if len(dropped) != 1 else ''} dropped "
                 f"because some algorithm has no results there: {', '.join(dropped)}"
                 if dropped else "")
        iman = (f"Iman-Davenport F_F = {format_statistic(friedman.iman_davenport)} "
                f"({k - 1}, {(k - 1) * (n - 1)} df), {p_text(friedman.iman_davenport_pvalue)}")
        if math.isinf(friedman.iman_davenport):
            iman += (" (every dataset ranks the algorithms the same way: chi2_F = N(k-1), "
                     "so F_F's denominator is 0 and F_F is infinite)")
        blocks.append(Text(f"Across datasets: each dataset's score is the mean of "
                            f"{metric} over its folds; Friedman test over N = {n} datasets "
                            f"with results for all k = {k} algorithms{where}: chi2_F = "
                            f"{format_statistic(friedman.chi2)} ({k - 1} df), "
                            f"{p_text(friedman.chi2_pvalue)}; {iman} (Demšar 2006)"))
        ranks = friedman.average_ranks
        blocks.append(Text(f"Average ranks (1 = best, {better} {metric} is better, ties "
                            f"share the average of their ranks):"))
        blocks.append(Table(["algorithm", "average rank"],
                       [[label(a), format_statistic(r, 2)] for a, r in ranks.items()]))
        beyond = [f"{a} vs {b} ({format_statistic(abs(ranks[a] - ranks[b]), 2)})"
                  for a, b in itertools.combinations(ranks.index, 2)
                  if abs(ranks[a] - ranks[b]) >= friedman.critical_difference]
        q = nemenyi_q(k, alpha)
        blocks.append(Text(f"Nemenyi critical difference at alpha = {alpha}: CD = q_alpha "
                            f"sqrt(k(k+1)/(6N)) = {q:.3f} × sqrt({k * (k + 1)}/{6 * n}) = "
                            f"{friedman.critical_difference:.3f}; pairs whose average ranks "
                            f"differ by at least CD: {', '.join(beyond) or 'none'}"))
    # the pair table: every unordered pair once, in config order
    blocks.append(Text("Pairs across datasets: Wilcoxon signed-rank test on the datasets "
                        "both have results for (zero differences split between the rank "
                        "sums, Demšar 2006), and Nemenyi's p from the average ranks (rank "
                        "difference: the first's average rank minus the second's, negative "
                        "when the first ranks better); v / * after a p: the first algorithm "
                        f"is significantly better / worse at alpha = {alpha}"))
    index = {a: i for i, a in enumerate(algorithms)}
    once = across[across["algorithm"].map(index) < across["versus"].map(index)]
    rows = []
    for r in once.itertuples(index=False):
        wilcoxon = _p(r.wilcoxon_pvalue)
        if r.wilcoxon_mark:
            wilcoxon += f" {r.wilcoxon_mark}"
        row = [r.algorithm, r.versus, str(r.n_datasets),
               f"{r.mean_wins}/{r.mean_ties}/{r.mean_losses}", wilcoxon]
        if friedman is not None:
            nemenyi = _p(r.nemenyi_pvalue)
            if r.nemenyi_mark:
                nemenyi += f" {r.nemenyi_mark}"
            row += [format_statistic(r.average_rank - r.versus_average_rank, 2), nemenyi]
        rows.append(row)
    headers = ["algorithm", "versus", "datasets", "better/equal/worse means", "Wilcoxon p"]
    if friedman is not None:
        headers += ["rank difference", "Nemenyi p"]
    blocks.append(Table(headers, rows))
    most = int(once["n_datasets"].max()) if len(once) else 0
    if most >= 2 and 2.0 ** (1 - most) > alpha:
        # the exact null distribution puts 1/2^N on each sign pattern: p >= 2 / 2^N
        blocks.append(Text(f"with {most} datasets no two-sided Wilcoxon p can be below "
                            f"{2.0 ** (1 - most):.4f}, so it cannot be significant at "
                            f"alpha = {alpha}"))
    return blocks


def check_stats_options(test: str, alpha: float, fmt: str = "md") -> None:
    """The options' checks but the metric's (checked once the results are read: their
    config's plugins may register it)."""
    check_test(test)
    check_format(fmt)
    check_alpha(alpha)


def render_stats(paths, metric: str = "test_accuracy", test: str = "t", alpha: float = 0.05,
                 fmt: str = "md") -> str:
    """The significance summary of every experiment under ``paths`` (a section each when
    there are several). ``fmt``: md, html (no page wrapper) or csv (CSV_COLUMNS)."""
    check_stats_options(test, alpha, fmt)
    runs, metas = load_results(paths)
    check_metric(metric)  # after reading: the results' config may import the metric's plugin
    return format_stats(runs, metas, metric, test, alpha, fmt)


def format_stats(runs: pd.DataFrame, metas: list[dict], metric: str = "test_accuracy",
                 test: str = "t", alpha: float = 0.05, fmt: str = "md") -> str:
    """``render_stats`` on results already read (``load_results``), options checked."""
    if fmt == "csv":
        return render(stats_frame(runs, metas, metric, test, alpha), fmt)
    page = []
    for meta, part, title in each_experiment(runs, metas):
        if not (part["status"] == "ok").any():
            page.append([Text(f"{meta['name']}: no finished task yet")])
            continue
        page.append(section(title, experiment_stats(part, meta, metric, test, alpha)[1]))
    return render(page, fmt)


def stats_frame(runs: pd.DataFrame, metas: list[dict], metric: str = "test_accuracy",
                test: str = "t", alpha: float = 0.05) -> pd.DataFrame:
    """The numbers of ``format_stats`` as one frame (what ``--format csv`` writes): one row
    per experiment and ordered pair of algorithms, columns CSV_COLUMNS."""
    frames = []
    for meta, part, _ in each_experiment(runs, metas):
        if not (part["status"] == "ok").any():
            continue
        pairs = experiment_stats(part, meta, metric, test, alpha)[0]
        if len(pairs):
            frames.append(pairs.assign(experiment=meta["name"], metric=metric, test=test,
                                       alpha=alpha))
    if not frames:
        return pd.DataFrame(columns=CSV_COLUMNS)
    return pd.concat(frames, ignore_index=True)[CSV_COLUMNS]
