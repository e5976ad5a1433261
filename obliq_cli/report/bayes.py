"""``obliq stats --bayes`` as text: the numbers of ``analysis.bayes`` (Benavoli et al.
2017's Bayesian signed-rank test across datasets, the correlated t-test per dataset, mean
ranks with the Friedman test) written out as blocks for ``render.render``."""

from __future__ import annotations

from ..analysis.bayes import (
    DECISION,
    SAMPLES,
    BayesNumbers,
    bayes_frame,
    bayes_numbers,
    check_rope,
    default_rope,
)
from ..errors import ObliqError
from .render import Table, Text

FEW_DATASETS = 5
"""Below this many datasets every Bayesian output warns: the signed-rank test's datasets
are its observations (Benavoli et al. 2014), and with fewer than five a handful that
happen to agree push a probability past DECISION where no two-sided Wilcoxon p can reach
0.05 (its smallest p is 2 / 2^N)."""


def datasets_text(pairs) -> str:
    """How many datasets the signed-rank test of ``pairs`` (``analysis.bayes``'
    signed_rank_pairs rows) rests on: "N = 3 datasets", or "N = 3 to 5 datasets (each
    pair over those both have results on)" when the pairs differ; pairs without a test (fewer than 2
    shared datasets) do not count."""
    counts = sorted({int(n) for n in pairs["n_datasets"] if n >= 2})
    if not counts:
        return "no pair sharing 2 datasets"
    if len(counts) == 1:
        return f"N = {counts[0]} dataset{'s' if counts[0] != 1 else ''}"
    return (f"N = {counts[0]} to {counts[-1]} datasets (each pair over those both have "
            f"results on)")


def few_datasets_warning(pairs) -> str:
    """The one-line warning of a signed-rank posterior resting on fewer than FEW_DATASETS
    datasets (the smallest tested pair's count); "" when none does."""
    counts = [int(n) for n in pairs["n_datasets"] if n >= 2]
    if not counts or min(counts) >= FEW_DATASETS:
        return ""
    return (f"⚠ the posterior rests on too few datasets ({min(counts)}; fewer than "
            f"{FEW_DATASETS}): a few datasets that agree can push a probability past "
            f"{DECISION}, so read it as a description of these datasets, not as evidence "
            f"about others")


def _f(value: float, decimals: int = 3) -> str:
    if value != value:
        return ""
    return f"{value:.{decimals}f}"


def bayes_blocks(numbers: BayesNumbers, alpha: float = 0.05,
                 samples: int = SAMPLES) -> list:
    """The text blocks of one experiment's Bayesian analysis, as
    ``significance.stats_blocks`` gives its own."""
    from ..analysis.tables import degenerate_note
    from .significance import format_statistic, p_text

    metric, rope, seed = numbers.metric, numbers.rope, numbers.seed
    algorithms, friedman = numbers.algorithms, numbers.friedman
    better = "higher" if numbers.higher else "lower"
    blocks: list = [Text(
        f"{metric}: {better} is better. Bayesian analysis (Benavoli et al. 2017, computed "
        f"by baycomp) with a region of practical equivalence (rope) of {rope:g} in the "
        f"metric's units; P(better) / P(rope) / P(worse) are from the first algorithm's "
        f"side; a probability above {DECISION} decides (better / equivalent / worse), "
        f"else undecided.")]
    if friedman is not None:
        k, n = friedman.n_algorithms, friedman.n_datasets
        ranks = friedman.average_ranks
        blocks.append(Text(
            f"Mean ranks over the N = {n} datasets with results for all k = {k} "
            f"algorithms (1 = best; each dataset scored by its mean over the folds): "
            f"Friedman chi2_F = {format_statistic(friedman.chi2)} ({k - 1} df), "
            f"{p_text(friedman.chi2_pvalue)}; Iman-Davenport F_F = "
            f"{format_statistic(friedman.iman_davenport)} ({k - 1}, {(k - 1) * (n - 1)} df), "
            f"{p_text(friedman.iman_davenport_pvalue)}; Nemenyi CD = "
            f"{friedman.critical_difference:.3f} at alpha = {alpha} (Demšar 2006)"))
        blocks.append(Table(["rank", "algorithm", "mean rank", "datasets ranked first"],
                       [[str(i + 1), a, format_statistic(r, 2), str(int(numbers.firsts[a]))]
                        for i, (a, r) in enumerate(ranks.items())]))
    else:
        complete = len(numbers.scores.dropna())
        blocks.append(Text(f"mean ranks and the Friedman test need at least 2 datasets "
                            f"on which every algorithm has results ({complete} here)"))

    pairs = numbers.pairs
    blocks.append(Text(
        f"Across datasets: Bayesian signed-rank test (Benavoli et al. 2014) on each "
        f"dataset's mean {metric}, over the datasets both algorithms have results on "
        f"({datasets_text(pairs)}); "
        f"{samples} posterior draws seeded from the experiment's seed ({seed}) and the "
        f"pair. w/t/l: datasets where the first algorithm's mean is better by more than "
        f"the rope / within the rope / worse by more than the rope."))
    blocks.append(Table(["algorithm", "versus", "datasets", "mean difference",
                             "P(better)", "P(rope)", "P(worse)", "decision", "w/t/l"],
                   [[r.algorithm, r.versus, str(r.n_datasets), _f(r.mean_difference, 4),
                     _f(r.p_better), _f(r.p_rope), _f(r.p_worse), r.decision,
                     f"{r.mean_wins}/{r.mean_ties}/{r.mean_losses}"]
                    for r in pairs.itertuples(index=False)]))
    if (pairs["n_datasets"] < 2).any():
        blocks.append(Text("no test for a pair with fewer than 2 shared datasets"))
    warning = few_datasets_warning(pairs)
    if warning:
        blocks.append(Text(warning))

    per_dataset, why = numbers.per_dataset, numbers.why
    if why:
        blocks.append(Text(f"Per dataset: the Bayesian correlated t-test is not "
                            f"applicable: {why}."))
    else:
        rhos = sorted({round(float(v), 4) for v in per_dataset["rho"].dropna()})
        rho_text = ", ".join(f"{v:g}" for v in rhos) or "?"
        protocol = (numbers.protocol or {}).get("name")
        blocks.append(Text(
            f"Per dataset: Bayesian correlated t-test (Corani & Benavoli 2015) on the "
            f"per-fold scores both algorithms finished, rho = n_test / n_total = "
            f"{rho_text} (from the protocol: {protocol}); "
            f"each cell counts the datasets where the row algorithm wins (P(better) > "
            f"{DECISION}) / ties (neither probability above {DECISION}, including "
            f"practical equivalence) / loses (P(worse) > {DECISION}) against the column "
            f"algorithm. --format csv lists every dataset's probabilities."))
        grid = {a: {b: "" for b in algorithms} for a in algorithms}
        for (a, b), part in per_dataset.groupby(["algorithm", "versus"], sort=False):
            tested = part[part["outcome"] != "no test"]
            wins = int((tested["outcome"] == "win").sum())
            losses = int((tested["outcome"] == "loss").sum())
            ties = len(tested) - wins - losses
            grid[a][b], grid[b][a] = f"{wins}/{ties}/{losses}", f"{losses}/{ties}/{wins}"
        blocks.append(Table(["w/t/l", *algorithms],
                       [[a, *(grid[a][b] for b in algorithms)] for a in algorithms]))
        untested = int((per_dataset["outcome"] == "no test").sum())
        if untested:
            blocks.append(Text(f"no test (fewer than 2 shared folds, or no complete "
                                f"repetition) for {untested} dataset/pair combination(s)"))
    # the cells holding tasks flagged degenerate enter these tests like any other
    return blocks + [Text(text) for text in degenerate_note(numbers.flags, numbers.datasets,
                                                            algorithms)]


def experiment_bayes(runs, meta: dict, metric: str, rope: float, alpha: float = 0.05,
                     samples: int = SAMPLES):
    """The Bayesian analysis of one experiment: (frame, blocks, pairs, friedman), the
    numbers of ``analysis.bayes.bayes_numbers`` with their text (``bayes_blocks``)."""
    numbers = bayes_numbers(runs, meta, metric, rope, alpha, samples)
    return (numbers.frame, bayes_blocks(numbers, alpha, samples), numbers.pairs,
            numbers.friedman)


def format_bayes(results, metric: str = "test_accuracy",
                 rope: float | None = None, alpha: float = 0.05, fmt: str = "md",
                 samples: int = SAMPLES) -> str:
    """``obliq stats --bayes``: every experiment's ``experiment_bayes`` as md, html (no
    page wrapper) or csv (``analysis.bayes.bayes_frame``). ``rope`` None:
    ``default_rope(metric)``."""
    from .render import render

    return render(bayes_page(results, metric, rope, alpha, fmt, samples), fmt)


def bayes_page(results, metric: str = "test_accuracy", rope: float | None = None,
               alpha: float = 0.05, fmt: str = "md", samples: int = SAMPLES):
    """What ``format_bayes`` renders, before ``render.render``: for csv the frame
    (``analysis.bayes.bayes_frame``), else the page (the same for md and html)."""
    from .render import section

    rope = default_rope(metric) if rope is None else check_rope(rope)
    if fmt == "csv":
        return bayes_frame(results, metric, rope, alpha, samples)
    page = []
    experiments = results.experiments()
    for experiment in experiments:
        meta, part, title = experiment
        if not experiment.finished:
            page.append([Text(f"{meta['name']}: no finished task yet")])
            continue
        try:
            blocks = experiment_bayes(part, meta, metric, rope, alpha, samples)[1]
        except ObliqError as exc:
            if len(experiments) == 1:  # nothing else to show: the error is the answer
                raise
            blocks = [Text(str(exc))]  # one experiment of several: say so in its section
        page.append(section(title, blocks))
    return page
