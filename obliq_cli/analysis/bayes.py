"""The numbers of the Bayesian comparison of algorithms on stored scores (``obliq stats
--bayes``; report/bayes.py writes them out).

Two tests, both computed by ``baycomp`` (Benavoli, Corani, Demšar & Zaffalon, "Time for a
change: a tutorial for comparing multiple classifiers through Bayesian analysis", JMLR 18,
2017; the authors' group's implementation), not written again here:

- across datasets, the Bayesian signed-rank test (Benavoli et al., ICML 2014) on each
  dataset's mean score (the number ``obliq table`` prints): a Dirichlet process posterior
  of P(algorithm better by more than the rope), P(within the rope), P(versus better),
  estimated from ``SAMPLES`` Monte Carlo draws seeded from the experiment's seed
  (``pair_seed``), so the output is the same at every run;
- per dataset, the Bayesian correlated t-test (Corani & Benavoli, Machine Learning 100,
  2015): the posterior of the mean difference of the per-fold scores is Student t with
  location mean(d), scale² (1/n + rho/(1 - rho)) var(d) and n - 1 degrees of freedom,
  rho = n_test / n_total the correlation that overlapping training sets give; it needs
  folds of one resampling design (k-fold CV: rho = 1/k; repeated random splits: rho from
  the stored task sizes), so it is skipped, with the reason, for protocols whose tasks
  all share one test part.

The region of practical equivalence is in the metric's units: by default 1 percentage
point for percentages (Benavoli et al. 2017 use 0.01 on a 0-1 accuracy scale), 0.01 for
rates in [0, 1] and none (0) for other metrics. Probabilities are from the first
algorithm's side: "better" follows the metric's direction (lower error, fewer leaves).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ObliqError
from ..experiment.seeds import seed_sequence
from .aggregate import check_metric, config_order, flag_counts, with_metric_column
from .stats import FriedmanResult, dataset_scores, friedman_test, rank_algorithms

SAMPLES = 50000
"""Monte Carlo draws of the signed-rank posterior (baycomp's default): the probabilities'
sampling error is at most 0.5 / sqrt(50000) = 0.0022 (one standard error)."""

DECISION = 0.95
"""A probability above this decides a pair: a win, a loss, or (the rope) equivalence."""

PROTOCOL_RHO = {"kfold", "random_split"}
"""Protocols whose tasks are the resampling designs the correlated t-test models."""

PAIR_COLUMNS = ["algorithm", "versus", "n_datasets", "mean_difference", "p_better",
                "p_rope", "p_worse", "decision", "mean_wins", "mean_ties", "mean_losses",
                "seed"]
DATASET_COLUMNS = ["dataset", "algorithm", "versus", "n_folds", "repetitions", "rho",
                   "mean_difference", "p_better", "p_rope", "p_worse", "outcome"]


def default_rope(metric: str) -> float:
    """The rope when none is given: 1 point of a percentage, 0.01 of a rate, else 0."""
    m = check_metric(metric)
    if m.percent:
        return 1.0
    if m.fraction:
        return 0.01
    return 0.0


def check_rope(rope) -> float:
    """The rope as a float, or an ObliqError naming ``--rope``."""
    if isinstance(rope, bool) or not isinstance(rope, (int, float)) or not (
            math.isfinite(rope) and rope >= 0):
        raise ObliqError(f"--rope must be a number >= 0 in the metric's units (got {rope})")
    return float(rope)


def pair_seed(seed: int, algorithm: str, versus: str) -> int:
    """The signed-rank draws' seed of one pair: from (experiment seed, "bayes",
    algorithm, versus) as every other draw of obliq (``seeds.seed_sequence``), so it
    depends on neither the order of the pairs nor the other algorithms."""
    return int(seed_sequence(int(seed), "bayes-signed-rank", algorithm, versus)
               .generate_state(1)[0])


def _three(probs) -> tuple[float, float, float]:
    """baycomp's (left, rope, right), or (left, right) when the rope is 0."""
    values = [float(p) for p in probs]
    if len(values) == 2:
        return values[0], 0.0, values[1]
    return values[0], values[1], values[2]


def _decision(better: float, rope: float, worse: float) -> str:
    if better > DECISION:
        return "better"
    if worse > DECISION:
        return "worse"
    if rope > DECISION:
        return "equivalent"
    return "undecided"


def signed_rank(a, b, rope: float, seed: int, samples: int = SAMPLES):
    """(P(a better), P(rope), P(b better)) by baycomp's Bayesian signed-rank test on the
    per-dataset scores ``a`` and ``b`` (higher is better: negate both for a metric where
    lower is). baycomp takes the differences b - a, so its "left" is a."""
    from baycomp import SignedRankTest

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    posterior = SignedRankTest(a, b, rope, nsamples=int(samples), random_state=int(seed))
    return _three(posterior.probs(rope > 0))


def correlated_t(a, b, rope: float, repetitions: int | None = None,
                 rho: float | None = None):
    """(P(a better), P(rope), P(b better)) by the Bayesian correlated t-test on per-fold
    scores ``a``, ``b`` (higher is better).

    k-fold CV: ``repetitions`` complete repetitions in (repetition, fold) order; baycomp's
    ``CorrelatedTTest`` sets rho = repetitions / n = 1/k. Other designs: ``rho`` given
    (n_test / n_total), and baycomp's Student posterior gets the Corani & Benavoli (2015)
    statistics mean(d), (1/n + rho/(1 - rho)) var(d), n - 1 with that rho."""
    from baycomp import CorrelatedTTest
    from baycomp.single import Posterior

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if rho is None:
        return _three(CorrelatedTTest(a, b, rope, runs=int(repetitions)).probs())
    d = b - a
    n = d.size
    variance = float(np.var(d, ddof=1)) * (1.0 / n + rho / (1.0 - rho))
    return _three(Posterior(float(d.mean()), variance, n - 1, rope).probs())


def _oriented(values, higher: bool):
    values = np.asarray(values, dtype=np.float64)
    return values if higher else -values


def signed_rank_pairs(scores: pd.DataFrame, higher: bool, rope: float, seed: int,
                      samples: int = SAMPLES) -> pd.DataFrame:
    """Every unordered pair of the columns of ``scores`` (datasets x algorithms, e.g.
    ``stats.dataset_scores``), in column order, over the datasets both have a score on
    (taken in name order): PAIR_COLUMNS. mean_difference is algorithm - versus (raw
    units); mean_wins / ties / losses count the datasets where the algorithm's mean is
    better by more than the rope / within it / worse by more than it."""
    rows = []
    for algorithm, versus in itertools.combinations(scores.columns, 2):
        # the datasets in name order: baycomp hands its Dirichlet weights out by position,
        # so the draws must not follow the order in which runs.csv's rows arrived (-j)
        both = scores[[algorithm, versus]].dropna().sort_index(key=lambda i: i.map(str))
        n = len(both)
        seed_ab = pair_seed(seed, str(algorithm), str(versus))
        x, y = _oriented(both[algorithm], higher), _oriented(both[versus], higher)
        gain = x - y  # > 0: the algorithm is better
        row = dict(algorithm=algorithm, versus=versus, n_datasets=n,
                   mean_difference=float((both[algorithm] - both[versus]).mean())
                   if n else math.nan,
                   p_better=math.nan, p_rope=math.nan, p_worse=math.nan,
                   decision="no test", mean_wins=int((gain > rope).sum()),
                   mean_ties=int((np.abs(gain) <= rope).sum()),
                   mean_losses=int((gain < -rope).sum()), seed=seed_ab)
        if n >= 2:
            better, within, worse = signed_rank(x, y, rope, seed_ab, samples)
            row.update(p_better=better, p_rope=within, p_worse=worse,
                       decision=_decision(better, within, worse))
        rows.append(row)
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def correlated_t_design(protocol: dict | None, ok: pd.DataFrame) -> tuple[str, str]:
    """("kfold" | "split" | "", why not) for the correlated t-test under ``protocol``
    (meta.json's): k-fold CV and repeated random splits are resampling designs whose
    correlation rho = n_test / n_total is known; tasks that share one test part
    (holdout_cv's held-out third, fixed_split's test part) are not."""
    name = (protocol or {}).get("name")
    if name == "kfold":
        return "kfold", ""
    if name == "random_split":
        if "n_test" not in ok.columns:
            return "", "the runs lack n_test, so rho = n_test / n_total is unknown"
        return "split", ""
    if name in ("holdout_cv", "fixed_split"):
        return "", (f"protocol {name} tests every task on the same test part, so its "
                    f"scores are not the resampled measures whose correlation the test "
                    f"models (rho = n_test / n_total)")
    return "", (f"protocol {name!r} is not one whose correlation rho the test knows "
                f"(k-fold CV or repeated random splits)")


def _split_rho(ok: pd.DataFrame) -> pd.Series:
    """n_test / (n_train + n_prune + n_test) of every task (one per dataset, repetition,
    fold: the same rows for every algorithm of a split)."""
    n_test = pd.to_numeric(ok["n_test"], errors="coerce")
    total = (pd.to_numeric(ok["n_train"], errors="coerce")
             + pd.to_numeric(ok.get("n_prune", 0), errors="coerce").fillna(0) + n_test)
    return (n_test / total).groupby(ok["dataset"], sort=False).mean()


def correlated_t_pairs(runs: pd.DataFrame, metric: str, rope: float, algorithms,
                       protocol: dict | None) -> tuple[pd.DataFrame, str]:
    """Per dataset and unordered pair of ``algorithms``: the correlated t-test on the
    per-fold scores both finished (DATASET_COLUMNS; outcome win / tie / loss of the
    algorithm: P(better) > DECISION is a win, P(worse) > DECISION a loss, anything else
    a tie). k-fold CV keeps the repetitions where both finished every fold. Returns
    (rows, why not) with no rows when the protocol does not fit the test."""
    higher = check_metric(metric).higher
    ok = with_metric_column(runs[runs["status"] == "ok"], metric)
    design, why = correlated_t_design(protocol, ok)
    if not design:
        return pd.DataFrame(columns=DATASET_COLUMNS), why
    keys = ["dataset", "repetition", "fold", "algorithm"]
    scores = ok.groupby(keys, sort=False)[metric].mean().unstack("algorithm")
    folds = 1
    if design == "kfold":  # meta.json's protocol; the runs' folds if it does not say
        folds = int((protocol or {}).get("folds") or ok["fold"].nunique())
    rhos = _split_rho(ok) if design == "split" else None
    rows = []
    for algorithm, versus in itertools.combinations(algorithms, 2):
        if algorithm not in scores.columns or versus not in scores.columns:
            continue
        pairs = scores[[algorithm, versus]].dropna()
        for dataset, group in pairs.groupby(level="dataset", sort=False):
            group = group.droplevel("dataset").sort_index()
            if design == "kfold":
                counts = group.groupby(level="repetition").size()
                complete = counts.index[counts == folds]
                group = group[group.index.get_level_values("repetition").isin(complete)]
                repetitions, rho = len(complete), 1.0 / folds
            else:
                repetitions, rho = len(group), float(rhos[dataset])
            n = len(group)
            row = dict(dataset=dataset, algorithm=algorithm, versus=versus, n_folds=n,
                       repetitions=repetitions, rho=rho,
                       mean_difference=float((group[algorithm] - group[versus]).mean())
                       if n else math.nan,
                       p_better=math.nan, p_rope=math.nan, p_worse=math.nan,
                       outcome="no test")
            if n >= 2 and (design == "kfold" or 0 < rho < 1):
                x, y = _oriented(group[algorithm], higher), _oriented(group[versus], higher)
                better, within, worse = (
                    correlated_t(x, y, rope, repetitions=repetitions) if design == "kfold"
                    else correlated_t(x, y, rope, rho=rho))
                row.update(p_better=better, p_rope=within, p_worse=worse,
                           outcome="win" if better > DECISION else
                           "loss" if worse > DECISION else "tie")
            rows.append(row)
    return pd.DataFrame(rows, columns=DATASET_COLUMNS), ""


def probability_matrix(pairs: pd.DataFrame, algorithms) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray]:
    """(better, rope, worse) as k x k arrays from the row algorithm's side, NaN on the
    diagonal and where a pair has no test; each unordered pair of ``pairs`` fills its
    mirror cell with better and worse swapped."""
    index = {a: i for i, a in enumerate(algorithms)}
    k = len(algorithms)
    better, rope, worse = (np.full((k, k), np.nan) for _ in range(3))
    for r in pairs.itertuples(index=False):
        i, j = index[r.algorithm], index[r.versus]
        better[i, j], rope[i, j], worse[i, j] = r.p_better, r.p_rope, r.p_worse
        better[j, i], rope[j, i], worse[j, i] = r.p_worse, r.p_rope, r.p_better
    return better, rope, worse


# ------------------------------------------------------------------ obliq stats --bayes
BAYES_CSV_COLUMNS = ["experiment", "metric", "rope", "test", "dataset", "algorithm",
                     "versus", "n", "repetitions", "rho", "mean_difference", "p_better",
                     "p_rope", "p_worse", "verdict", "seed"]


@dataclass
class BayesNumbers:
    """The Bayesian analysis of one experiment (``bayes_numbers``).

    ``frame``: BAYES_CSV_COLUMNS but the experiment's (one "signed-rank" row per pair,
    one "correlated-t" row per dataset and pair); ``pairs``: the signed-rank rows
    (``signed_rank_pairs``); ``per_dataset``: the correlated t-test's rows
    (``correlated_t_pairs``) in the config's dataset order, ``why`` the reason it does
    not apply ("" when it does); ``scores``: each dataset's mean per algorithm;
    ``friedman``: the Friedman test over the datasets every algorithm has (None with
    fewer than 2) and ``firsts`` how many of them each algorithm ranks first on;
    ``flags``: ``aggregate.flag_counts`` of the rows; ``seed`` and ``protocol``: the
    experiment's (meta.json).
    """

    metric: str
    higher: bool
    rope: float
    seed: int
    algorithms: list
    datasets: list
    scores: pd.DataFrame
    friedman: FriedmanResult | None
    firsts: pd.Series | None
    pairs: pd.DataFrame
    per_dataset: pd.DataFrame
    why: str
    flags: pd.DataFrame
    frame: pd.DataFrame
    protocol: dict | None


def bayes_numbers(runs: pd.DataFrame, meta: dict, metric: str, rope: float,
                  alpha: float = 0.05, samples: int = SAMPLES) -> BayesNumbers:
    """The Bayesian analysis of one experiment's rows ``runs`` (its meta.json ``meta``):
    mean ranks with the Friedman test, the signed-rank test of every pair across datasets
    and the correlated t-test per dataset. ObliqError with fewer than 2 algorithms."""
    m = check_metric(metric)
    rope = check_rope(rope)
    config = meta.get("config") or {}
    seed = int(config.get("seed") or 0)
    ok = runs[runs["status"] == "ok"]
    algorithms = config_order(meta, "algorithms", ok["algorithm"])
    if len(algorithms) < 2:
        raise ObliqError(f"{meta.get('name', '?')}: the Bayesian comparison needs at least "
                         f"2 algorithms with results (got {len(algorithms)}: "
                         f"{', '.join(map(str, algorithms)) or 'none'})")
    scores = dataset_scores(runs, metric).reindex(columns=algorithms)
    friedman = firsts = None
    complete = scores.dropna()
    if len(complete) >= 2:
        friedman = friedman_test(scores, m.higher, alpha)
        firsts = (rank_algorithms(complete, m.higher) == 1).sum(axis=0)
    pairs = signed_rank_pairs(scores, m.higher, rope, seed, samples)
    per_dataset, why = correlated_t_pairs(runs, metric, rope, algorithms,
                                          config.get("protocol"))
    # rows in the config's dataset order (then by name), not runs.csv's arrival order
    datasets = [d.get("label") for d in config.get("datasets", []) if isinstance(d, dict)]
    place = {d: i for i, d in enumerate(datasets)}
    per_dataset = per_dataset.assign(
        _at=per_dataset["dataset"].map(lambda d: (place.get(d, len(place)), str(d)))
    ).sort_values("_at", kind="stable").drop(columns="_at").reset_index(drop=True)
    parts = [pd.DataFrame({
        "test": "signed-rank", "dataset": "", "algorithm": pairs["algorithm"],
        "versus": pairs["versus"], "n": pairs["n_datasets"], "repetitions": math.nan,
        "rho": math.nan, "mean_difference": pairs["mean_difference"],
        "p_better": pairs["p_better"], "p_rope": pairs["p_rope"], "p_worse": pairs["p_worse"],
        "verdict": pairs["decision"], "seed": pairs["seed"]})]
    if len(per_dataset):
        parts.append(per_dataset.rename(columns={"n_folds": "n", "outcome": "verdict"})
                     .assign(test="correlated-t", seed=math.nan))
    frame = pd.concat(parts, ignore_index=True).assign(metric=metric, rope=rope)
    return BayesNumbers(metric, m.higher, rope, seed, algorithms, datasets, scores, friedman,
                        firsts, pairs, per_dataset, why, flag_counts(runs), frame,
                        config.get("protocol"))


def bayes_frame(results, metric: str = "test_accuracy", rope: float | None = None,
                alpha: float = 0.05, samples: int = SAMPLES) -> pd.DataFrame:
    """``bayes_numbers``' frames of every experiment of ``results`` (an
    ``analysis.results.Results``) as one (BAYES_CSV_COLUMNS; ``obliq stats --bayes
    --format csv``). ``rope`` None: ``default_rope(metric)``. An experiment with one
    algorithm has no row, and is an error when it is the only one."""
    rope = default_rope(metric) if rope is None else check_rope(rope)
    frames = []
    several = len(results.metas) > 1
    for meta, part, _ in results.finished_experiments():
        try:
            frame = bayes_numbers(part, meta, metric, rope, alpha, samples).frame
        except ObliqError:
            if not several:
                raise
            continue  # an experiment with one algorithm has no pair to give a row
        frames.append(frame.assign(experiment=meta["name"]))
    if not frames:
        return pd.DataFrame(columns=BAYES_CSV_COLUMNS)
    out = pd.concat(frames, ignore_index=True)[BAYES_CSV_COLUMNS]
    # counts and seeds stay integers beside the empty cells of the other test's rows
    return out.astype({"n": "Int64", "repetitions": "Int64", "seed": "Int64"})
