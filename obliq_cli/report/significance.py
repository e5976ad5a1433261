"""``obliq stats``: every significance test of stats.py on every experiment, as text (the
numbers are ``analysis.significance``'s).

Per experiment (one section each):

a. the per-fold test (``--test``, else the protocol's: ``stats.protocol_test``, named
   with its reason) for every ordered pair of algorithms on every dataset, counted as a
   matrix of wins / ties / losses of the row algorithm against the column algorithm
   (Weka's Experimenter summary, ``-s``); with one dataset also each pair's statistic
   and p;
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

from ..analysis.aggregate import check_metric
from ..analysis.results import Results
from ..analysis.significance import SignificanceNumbers, significance_numbers, stats_frame
from ..analysis.stats import check_alpha, check_test, nemenyi_q, untested_note
from ..analysis.tables import degenerate_note
from .render import Table, Text, check_format, render, section
from .tables import flag_mark


def _p(value: float) -> str:
    if value != value:  # NaN
        return ""
    return "< 0.0001" if value < 1e-4 else f"{value:.4f}"


def p_text(value: float) -> str:
    """ "p = 0.0312" or "p < 0.0001" for the running text."""
    return "p < 0.0001" if value < 1e-4 else f"p = {value:.4f}"


def format_statistic(value: float, decimals: int = 3) -> str:
    """A test statistic for the running text: blank for NaN, "inf" / "-inf" for an
    infinite one (a constant shift of every paired difference)."""
    if value != value:
        return ""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{decimals}f}"


def stats_blocks(numbers: SignificanceNumbers, alpha: float) -> list:
    """The text of one experiment's significance tests, in reading order."""
    metric, algorithms = numbers.metric, numbers.algorithms
    better = "higher" if numbers.higher else "lower"
    blocks: list = [Text(note) for note in numbers.notes]
    failed = numbers.failed
    if failed:
        blocks.append(Text(f"{failed} failed task{'s' if failed != 1 else ''} (status "
                            f"error in runs.csv) left out"))
    if len(algorithms) < 2:
        blocks.append(Text(f"only {len(algorithms)} algorithm with results "
                            f"({', '.join(algorithms) or 'none'}): nothing to compare"))
        return blocks
    flagged = numbers.flagged

    def label(algorithm):
        return f"{algorithm}{flag_mark(flagged.get(algorithm, 0))}"

    # (a) per-fold tests, dataset by dataset
    counts, untested = numbers.counts, numbers.untested
    blocks.append(Text(f"{metric}: {better} is better. Per dataset, {numbers.test.title}, "
                        f"test name {numbers.test.name} ({numbers.test_why}), at "
                        f"alpha = {alpha} on {numbers.test.reads}; each cell counts the "
                        f"datasets where the row algorithm is significantly better / not "
                        f"significantly different / significantly worse than the column "
                        f"algorithm (w/t/l)"))
    grid = counts.assign(cell=counts["wins"].astype(str) + "/" + counts["ties"].astype(str)
                         + "/" + counts["losses"].astype(str))
    grid = grid.pivot(index="algorithm", columns="versus", values="cell").reindex(
        index=algorithms, columns=algorithms).fillna("")
    blocks.append(Table(["w/t/l", *algorithms],
                   [[label(a), *grid.loc[a]] for a in algorithms]))
    if untested:
        blocks.append(Text(untested_note(numbers.fold_tests, ordered_twice=True)))
    if numbers.caveat:
        blocks.append(Text(numbers.caveat))

    # (b), (c) across datasets
    if len(numbers.scores) < 2:
        blocks += _one_dataset_blocks(numbers, alpha)
        blocks.append(Text(f"the tests across datasets (Wilcoxon, Friedman, Nemenyi) need "
                            f"at least 2 datasets; this experiment has {len(numbers.scores)}"))
    else:
        blocks += _across_blocks(numbers.friedman, numbers.across, numbers.complete,
                                 numbers.dropped, algorithms, metric, better, alpha, label)
    return blocks + [Text(text) for text in degenerate_note(numbers.cells, numbers.datasets,
                                                            algorithms)]


def _one_dataset_blocks(numbers: SignificanceNumbers, alpha: float) -> list:
    """The per-fold test of every unordered pair (config order) on an experiment's only
    dataset, with its statistic and p: there the w/t/l matrix counts a single test, and
    nothing across datasets can add to it."""
    tests = numbers.fold_tests
    if tests is None or tests.empty:
        return []
    index = {a: i for i, a in enumerate(numbers.algorithms)}
    once = tests[tests["algorithm"].map(index) < tests["versus"].map(index)]
    once = once.assign(_a=once["algorithm"].map(index), _v=once["versus"].map(index)
                       ).sort_values(["_a", "_v"], kind="stable")
    dataset = once["dataset"].iloc[0]
    rows = [[r.algorithm, r.versus, str(int(r.n_pairs)), format_statistic(r.mean_difference, 4),
             format_statistic(r.statistic), _p(r.pvalue) if r.statistic == r.statistic
             else "no test", r.mark] for r in once.itertuples(index=False)]
    return [Text(f"On {dataset}, the one dataset: {numbers.test.name} of every pair "
                 f"(mean difference: the first's {numbers.metric} minus the second's over "
                 f"the pairs used; v / *: the first is significantly better / worse at "
                 f"alpha = {alpha})"),
            Table(["algorithm", "versus", "pairs used", "mean difference", "statistic", "p",
                   "mark"], rows)]


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


def check_stats_options(test: str | None, alpha: float, fmt: str = "md") -> None:
    """The options' checks but the metric's (checked once the results are read: their
    config's plugins may register it); ``test`` None: the protocol's default."""
    if test is not None:
        check_test(test)
    check_format(fmt)
    check_alpha(alpha)


def render_stats(results, metric: str = "test_accuracy", test: str | None = None,
                 alpha: float = 0.05, fmt: str = "md") -> str:
    """The significance summary of every experiment of ``results`` (a ``Results`` or the
    paths to read; a section each when there are several). ``test``: the per-fold test's
    name, None for each experiment's protocol default (``stats.protocol_test``). ``fmt``:
    md, html (no page wrapper) or csv (``analysis.significance.CSV_COLUMNS``)."""
    check_stats_options(test, alpha, fmt)
    results = Results.of(results)
    check_metric(metric)  # after reading: the results' config may import the metric's plugin
    return format_stats(results, metric, test, alpha, fmt)


def format_stats(results: Results, metric: str = "test_accuracy",
                 test: str | None = None, alpha: float = 0.05, fmt: str = "md") -> str:
    """``render_stats`` on results already read, options checked (csv:
    ``analysis.significance.stats_frame``)."""
    return render(stats_page(results, metric, test, alpha, fmt), fmt)


def stats_page(results: Results, metric: str = "test_accuracy", test: str | None = None,
               alpha: float = 0.05, fmt: str = "md"):
    """What ``format_stats`` renders, before ``render.render``: for csv the frame
    (``analysis.significance.stats_frame``), else the page (the same for md and html)."""
    if fmt == "csv":
        return stats_frame(results, metric, test, alpha)
    page = []
    for experiment in results.experiments():
        meta, part, title = experiment
        if not experiment.finished:
            page.append([Text(f"{meta['name']}: no finished task yet")])
            continue
        numbers = significance_numbers(part, meta, metric, test, alpha)
        page.append(section(title, stats_blocks(numbers, alpha)))
    return page
