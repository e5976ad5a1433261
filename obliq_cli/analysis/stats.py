"""Significance tests on stored per-fold scores (no refitting, unlike mlxtend's helpers).

Two families (formulas in docs/reference-programs.md):

- per-fold tests of two algorithms on ONE dataset, paired by (repetition, fold): the plain
  k-fold paired t, Dietterich's 5x2cv t, Alpaydın's combined 5x2cv F, Yildiz's combined
  5x2cv t and Nadeau & Bengio's corrected resampled t; ``TESTS`` names them for the CLI;
- tests across datasets (N = datasets, each scored by its mean over the folds, as
  ``obliq table`` shows it): Wilcoxon signed-rank for two algorithms, Friedman with
  Iman & Davenport's F and the Nemenyi critical difference for k algorithms (Demšar 2006).

The mark convention is the Weka Experimenter's result matrix (``weka.experiment``
``PairedTTester``): ``v`` significantly better than the base scheme, ``*`` significantly
worse, and a (w/t/l) count per column.

Degenerate inputs never divide by zero: a statistic whose numerator is 0 is 0 with p = 1
(nothing to detect), a non-zero numerator over a zero variance is ±inf with p = 0 (every
pair moves the same way by the same amount, Weka's ``PairedStats`` convention), and too
few pairs for any test give statistic NaN with p = 1 (reported as "no test").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import ObliqError
from ..experiment.protocols import measured_per_task, shares_training_part
from .aggregate import check_metric, per_repetition, with_metric_column


class TTest(NamedTuple):
    statistic: float
    pvalue: float


NO_TEST = TTest(float("nan"), 1.0)


def check_alpha(alpha) -> float:
    """The significance level, or an ObliqError naming ``--alpha``."""
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise ObliqError(f"--alpha must be between 0 and 1 (got {alpha})")
    return float(alpha)


def _t_from(numerator: float, variance: float, df: float) -> TTest:
    """Two-sided t = numerator / sqrt(variance) on ``df`` degrees of freedom, with the
    zero cases of the module docstring instead of 0/0 or x/0."""
    if numerator == 0:
        return TTest(0.0, 1.0)
    if not variance > 0:
        return TTest(math.copysign(math.inf, numerator), 0.0)
    t = numerator / math.sqrt(variance)
    return TTest(float(t), float(2.0 * stats.t.sf(abs(t), df)))


def _differences(a, b) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"a paired test needs paired scores (got shapes {a.shape} and "
                         f"{b.shape})")
    return a - b


def paired_t_test(a, b) -> TTest:
    """Two-sided paired t-test of ``a - b``: t = mean(d) sqrt(n) / sd(d), n - 1 df.

    The "k-fold paired t test" of the UMT paper (§4, alpha = 0.05) and Weka's
    ``PairedStats``; equals ``scipy.stats.ttest_rel(a, b)`` whenever the differences vary.
    Differences with zero variance follow Weka's ``PairedStats.calculateDerived`` instead of
    dividing by zero (and warning): all zero (identical scores) gives t = 0, p = 1 (not
    significant); a constant non-zero shift gives t = ±inf, p = 0. Fewer than 2 pairs give
    t = nan, p = 1: there is nothing to test. It ignores that the training sets of k-fold
    CV overlap, so it rejects too often (Dietterich 1998, §3.5; Nadeau & Bengio 2003).
    """
    d = _differences(a, b).ravel()
    n = d.size
    if n < 2:
        return NO_TEST
    # exact equality on purpose: Weka tests sd > 0 and sum of squares == 0 the same way
    return _t_from(float(d.mean()), float(d.var(ddof=1)) / n, n - 1)


def _five_by_two(a, b) -> tuple[np.ndarray, np.ndarray]:
    """The differences p[i, j] (repetition i, fold j) and s_i² of a 5x2cv design.

    s_i² = (p_i1 - p̄_i)² + (p_i2 - p̄_i)² = (p_i1 - p_i2)² / 2 (Dietterich 1998, §3.5),
    computed in the second form so that equal differences give exactly 0.
    """
    p = _differences(a, b)
    if p.ndim != 2 or p.shape[1] != 2:
        raise ObliqError(f"the 5x2cv tests need scores shaped (repetitions, 2 folds); got "
                         f"shape {p.shape}")
    return p, (p[:, 0] - p[:, 1]) ** 2 / 2.0


def dietterich_5x2cv_t(a, b) -> TTest:
    """Dietterich's 5x2cv paired t-test (Dietterich 1998, Neural Computation 10(7), §3.5).

    ``a``, ``b``: scores shaped (r, 2), rows repetitions of 2-fold CV, columns folds;
    p = a - b. t = p_1^(1) / sqrt(Σ_i s_i² / r) on r degrees of freedom (r = 5 in the
    paper); only the FIRST difference is in the numerator, as published. Two-sided p.
    No complete repetition gives NaN, p = 1.
    """
    p, s2 = _five_by_two(a, b)
    r = p.shape[0]
    if r < 1:
        return NO_TEST
    return _t_from(float(p[0, 0]), float(s2.sum()) / r, r)


def alpaydin_5x2cv_f(a, b) -> TTest:
    """Alpaydın's combined 5x2cv F-test (Alpaydın 1999, Neural Computation 11(8), eq. 4).

    f = Σ_i Σ_j (p_i^(j))² / (2 Σ_i s_i²) ~ F(2r, r), F(10, 5) for r = 5; one-sided: the
    p-value is P(F >= f). The statistic has no sign; ``compare_to`` takes the direction
    from the mean difference. All differences zero give f = 0, p = 1; non-zero differences
    that agree within every repetition (Σ s_i² = 0) give f = inf, p = 0.
    """
    p, s2 = _five_by_two(a, b)
    r = p.shape[0]
    if r < 1:
        return NO_TEST
    numerator, denominator = float((p ** 2).sum()), 2.0 * float(s2.sum())
    if numerator == 0:
        return TTest(0.0, 1.0)
    if not denominator > 0:
        return TTest(math.inf, 0.0)
    f = numerator / denominator
    return TTest(f, float(stats.f.sf(f, 2 * r, r)))


def combined_5x2cv_t(a, b) -> TTest:
    """Yildiz's combined 5x2cv t-test (Yildiz 2013, Pattern Recognition Letters 34(16);
    ISELL ``tests.c:combined5x2t``).

    t = sqrt(2r) mean(p) / sqrt(Σ_i s_i² / r) on r degrees of freedom, i.e.
    sqrt(10) p̄ / sqrt(Σ s_i² / 5) for r = 5: every one of the 2r differences enters the
    numerator, not only the first. Two-sided p; the sign is the direction.
    """
    p, s2 = _five_by_two(a, b)
    r = p.shape[0]
    if r < 1:
        return NO_TEST
    return _t_from(math.sqrt(2 * r) * float(p.mean()), float(s2.sum()) / r, r)


def corrected_resampled_t(a, b, test_train_ratio: float) -> TTest:
    """Nadeau & Bengio's corrected resampled t-test (Machine Learning 52(3), 2003, §4;
    Bouckaert & Frank, PAKDD 2004; Weka's ``PairedStatsCorrected``).

    t = mean(d) / sqrt((1/n + n_test/n_train) var(d)), var with ddof = 1, n - 1 df, n =
    number of pairs. ``test_train_ratio`` = n_test / n_train (1/(k-1) for k-fold CV). The
    plain paired t times 1 / sqrt(1 + n n_test / n_train). Same degenerate cases as
    ``paired_t_test``.
    """
    if not test_train_ratio >= 0:
        raise ValueError(f"test_train_ratio must be >= 0 (got {test_train_ratio})")
    d = _differences(a, b).ravel()
    n = d.size
    if n < 2:
        return NO_TEST
    variance = (1.0 / n + test_train_ratio) * float(d.var(ddof=1))
    return _t_from(float(d.mean()), variance, n - 1)


# --- the per-fold tests by name ------------------------------------------------------------

@dataclass(frozen=True)
class FoldTest:
    """A per-fold test as ``compare_to`` and the CLI's ``--test`` use it."""

    name: str
    title: str              # "by <title>" in the notes under a table
    two_folds: bool         # needs r x 2 CV (the 5x2cv family)
    signed: bool            # the statistic's sign is the direction (False: the F test)
    run: Callable[[pd.DataFrame], tuple[int, TTest]]  # pairs -> (pairs used, result)
    # what the notes say it reads: McNemar's reads the rows predicted, not the scores
    reads: str = ("the per-fold scores of the (repetition, fold) pairs both algorithms "
                  "finished")


def _two_fold_arrays(pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(r, 2) arrays of the repetitions whose both folds both algorithms finished, in
    repetition order (so p_1^(1) is the first complete repetition's fold 0)."""
    wide = pairs[["a", "b"]].unstack("fold").sort_index()
    wide = wide.reindex(columns=pd.MultiIndex.from_product([["a", "b"], [0, 1]])).dropna()
    return wide["a"].to_numpy(), wide["b"].to_numpy()


def _run_paired_t(pairs):
    return len(pairs), paired_t_test(pairs["a"], pairs["b"])


def _run_two_fold(test):
    def run(pairs):
        a, b = _two_fold_arrays(pairs)
        return a.size, test(a, b)
    return run


def _run_corrected(pairs):
    # Weka's PairedCorrectedTTester: the ratio of the summed test sizes to the summed
    # training sizes over the pairs.
    ratio = float(pairs["n_test"].sum() / pairs["n_train"].sum()) if len(pairs) else 0.0
    return len(pairs), corrected_resampled_t(pairs["a"], pairs["b"], ratio)


def _run_mcnemar(pairs):
    """McNemar's test (``predictions.mcnemar``) on the discordant rows of the lowest
    repetition's folds with stored predictions (joined as ``only_a``, ``only_b`` by
    ``compare_to``; none: no test, a tie): in k-fold
    CV one repetition tests every row once, as the test assumes independent rows, where
    pooling repetitions would count each row r times. The statistic carries the sign of
    only_a - only_b (who is right more often)."""
    from ..experiment.predictions import mcnemar

    pairs = pairs.dropna(subset=["only_a", "only_b"])
    if pairs.empty:
        return 0, NO_TEST
    first = pairs.xs(pairs.index.get_level_values("repetition").min(), level="repetition")
    b, c = int(first["only_a"].sum()), int(first["only_b"].sum())
    statistic, pvalue, _ = mcnemar(b, c)
    return len(first), TTest(math.copysign(statistic, b - c) if b != c else 0.0, pvalue)


TESTS: dict[str, FoldTest] = {
    "t": FoldTest("t", "two-sided paired t-test (k-fold; UMT paper §4, Weka PairedStats)",
                  False, True, _run_paired_t),
    "5x2t": FoldTest("5x2t", "Dietterich's 5x2cv paired t-test (Dietterich 1998: "
                     "t = p_1^(1) / sqrt(Σ s_i² / r), r df, two-sided)",
                     True, True, _run_two_fold(dietterich_5x2cv_t)),
    "5x2f": FoldTest("5x2f", "Alpaydın's combined 5x2cv F-test (Alpaydın 1999: "
                     "f = Σ p² / (2 Σ s_i²) ~ F(2r, r), one-sided; direction from the mean "
                     "difference)", True, False, _run_two_fold(alpaydin_5x2cv_f)),
    "5x2t-combined": FoldTest("5x2t-combined", "the combined 5x2cv t-test (Yildiz 2013: "
                              "t = sqrt(2r) mean(p) / sqrt(Σ s_i² / r), r df, two-sided)",
                              True, True, _run_two_fold(combined_5x2cv_t)),
    "corrected-t": FoldTest("corrected-t", "Nadeau & Bengio's corrected resampled t-test "
                            "(2003: variance × (1/n + Σ n_test / Σ n_train), n - 1 df, "
                            "two-sided)", False, True, _run_corrected),
    "mcnemar": FoldTest("mcnemar", "McNemar's test on the stored test predictions of the "
                        "lowest repetition's folds (Dietterich 1998 §3.1: exact binomial "
                        "below 25 discordant rows, else chi-square with continuity "
                        "correction, 1 df)", False, True, _run_mcnemar,
                        reads="the test rows both algorithms predicted in the folds both "
                              "finished"),
}


def check_test(test: str) -> FoldTest:
    """The per-fold test named ``test``, or an ObliqError listing the names."""
    if test in TESTS:
        return TESTS[test]
    raise ObliqError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")


def _design_size(protocol: dict, runs: pd.DataFrame | None, key: str, column: str) -> int:
    """The protocol's ``key`` (folds, repeats) from meta.json, else counted in the runs'
    ``column`` (a hand-written meta.json may name the protocol only)."""
    value = protocol.get(key)
    if value is None and runs is not None and column in runs.columns:
        value = pd.unique(runs[column].dropna()).size
    return int(value or 1)


def protocol_test(protocol: dict | None, runs: pd.DataFrame | None = None
                  ) -> tuple[str, str]:
    """(test name, why) of the per-fold test that fits ``protocol`` (meta.json's), the
    default where the user names none:

    - k-fold CV with 2 folds (r x 2 CV): Dietterich's 5x2cv t (Dietterich 1998, §3.5),
      the test that design was made for: its variance estimate reads each repetition's two
      folds, which share no training row, where the plain t over all 2r differences
      ignores that every repetition reuses the data;
    - k-fold CV with more folds, and repeated random splits: Nadeau & Bengio's corrected
      resampled t (2003, §4), whose (1/J + n_test/n_train) accounts for the training
      sets' overlap that makes the plain t reject too often;
    - a shared held-out test part (holdout_cv, fixed_split), and any other protocol: the
      paired t (the UMT paper's k-fold paired t on holdout_cv, §4).

    ``runs`` gives the folds and repetitions when meta.json's protocol lacks them.
    """
    protocol = protocol or {}
    name = protocol.get("name")
    if name == "kfold":
        folds = _design_size(protocol, runs, "folds", "fold")
        repeats = _design_size(protocol, runs, "repeats", "repetition")
        design = f"{repeats} x {folds}-fold CV" if repeats > 1 else f"{folds}-fold CV"
        if folds == 2:
            return "5x2t", f"default for {repeats} x 2-fold CV"
        return "corrected-t", f"default for {design}"
    if name == "random_split":
        repeats = _design_size(protocol, runs, "repeats", "repetition")
        return "corrected-t", f"default for {repeats} repeated random splits"
    if name in ("holdout_cv", "fixed_split"):
        return "t", f"default for {name}, whose tasks share one held-out test part"
    return "t", f"default: no protocol-specific test for {name or 'an unnamed protocol'}"


def chosen_test(test: str | None, protocol: dict | None,
                runs: pd.DataFrame | None = None) -> tuple[FoldTest, str]:
    """(FoldTest, why): the one ``test`` names ("--test NAME"), else the protocol's
    default (``protocol_test``); ``why`` goes beside its name in every header."""
    if test is not None:
        return check_test(test), f"--test {test}"
    name, why = protocol_test(protocol, runs)
    return TESTS[name], why


def protocol_caveat(test: str, protocol: str | None) -> str | None:
    """What the per-fold test ``test`` assumes that the experiment's ``protocol`` (its
    meta.json protocol name) does not give, as a note for the tables; None when nothing.

    holdout_cv (UMT paper: a test third drawn once, 2 x 5 CV on the rest) scores every
    task on the same test part. The 5x2cv tests assume the two folds of a repetition are
    tested on disjoint halves; the corrected t uses Σ n_test / Σ n_train with n_train =
    grow + prune rows, i.e. (1/3) / (2/3) = 0.5 there, but Nadeau & Bengio derived the
    correction for independently drawn test sets.
    """
    if not measured_per_task({"name": protocol}):
        return None
    if test == "mcnemar":
        return (f"{protocol} tests every fold on the same held-out part: McNemar's test "
                f"pools a repetition's folds, so it counts each test row once per fold and "
                f"rejects more often than alpha says")
    if check_test(test).two_folds:
        return (f"{protocol} scores both folds of a repetition on the same held-out test "
                f"part, not on disjoint halves as {test} assumes, so the fold differences "
                f"agree more and the test rejects more often than alpha says")
    if test == "corrected-t":
        return (f"{protocol}: the ratio is Σ n_test / Σ (grow + prune rows), the held-out "
                "test part over the cross-validated rest (0.5 for a third held out); every "
                "task shares that test part, so the pairs correlate more than Nadeau & "
                "Bengio's correction allows for and the test stays somewhat liberal")
    return None


def _experiment_name(runs: pd.DataFrame) -> str:
    if "experiment" in runs.columns and len(runs):
        return str(runs["experiment"].iloc[0])
    return "?"


def _check_two_folds(runs: pd.DataFrame, test: FoldTest) -> None:
    folds = sorted(int(f) for f in pd.unique(runs["fold"]))
    if folds and folds != [0, 1]:
        raise ObliqError(f"--test {test.name} needs a 2-fold protocol (r x 2 CV, protocol "
                         f"folds: 2); experiment {_experiment_name(runs)!r} has "
                         f"{len(folds)} fold{'s' if len(folds) != 1 else ''} per repetition")


def _training_sizes(ok: pd.DataFrame) -> pd.DataFrame:
    """n_test and n_train of every ok row; n_train counts grow + prune rows, all the rows
    the learner was given (the same for every algorithm of a split, whether it prunes or
    grows on the pruning rows too)."""
    sizes = pd.DataFrame({
        "n_test": pd.to_numeric(ok["n_test"], errors="coerce"),
        "n_train": (pd.to_numeric(ok["n_train"], errors="coerce")
                    + pd.to_numeric(ok["n_prune"], errors="coerce").fillna(0)),
    }, index=ok.index)
    bad = sizes.isna().any(axis=1) | (sizes["n_train"] <= 0) | (sizes["n_test"] <= 0)
    if bad.any():
        i = bad.idxmax()
        where = ok.at[i, "source"] if "source" in ok.columns else "runs.csv"
        raise ObliqError(f"{where}: the corrected resampled t (corrected-t, the default "
                         f"for repeated k-fold CV) needs n_train and n_test of every task "
                         f"(another --test reads no sizes); ({ok.at[i, 'dataset']}, "
                         f"repetition {ok.at[i, 'repetition']}, fold {ok.at[i, 'fold']}, "
                         f"{ok.at[i, 'algorithm']}) lacks them")
    return sizes


COMPARE_COLUMNS = ["dataset", "algorithm", "n_pairs", "statistic", "pvalue",
                   "mean_difference", "no_test", "mark"]

# Why compare_to ran no test on a (dataset, algorithm) pair (its ``no_test`` column).
TOO_FEW_PAIRS = "fewer than 2 shared folds"
TOO_FEW_REPETITIONS = "no repetition with both folds shared"
NO_PREDICTIONS = "no stored predictions"
COPIED_FITS = ("the tasks repeat one fit: every task grows on the same rows, none held out "
               "for pruning")


def copied_fits(runs: pd.DataFrame, protocol: dict | None) -> set[tuple[str, str]]:
    """The (dataset, algorithm) cells whose finished tasks all grew on the same rows.

    Under a protocol whose tasks share their training part (``shares_training_part``:
    holdout_cv, fixed_split) a task given no prune rows (``n_prune`` 0: no pruner that
    reads them, or no ``prune_fraction``) grows on the whole of that part, as every other
    task does, and is scored on the same test part. Its scores then differ from task to
    task by the algorithm's seed alone (not at all for a deterministic one), so a paired
    test over them would count one comparison as k x r: a constant difference gives
    t = ±inf and p = 0. No training set was resampled, so there is nothing to test.
    """
    if not shares_training_part(protocol) or "n_prune" not in runs.columns:
        return set()
    ok = runs[runs["status"] == "ok"]
    held = pd.to_numeric(ok["n_prune"], errors="coerce").fillna(0)
    none_held = held.groupby([ok["dataset"], ok["algorithm"]], sort=False).max() == 0
    return {(str(d), str(a)) for d, a in none_held.index[none_held.to_numpy()]}


def compare_to(runs: pd.DataFrame, metric: str, ref: str, alpha: float = 0.05,
               test: str = "t", protocol: dict | None = None) -> pd.DataFrame:
    """Per (dataset, algorithm != ref) of ONE experiment: the per-fold test ``test`` (a
    name in TESTS) of the algorithm against ``ref``.

    Only the (repetition, fold) keys that both algorithms finished enter a test (an inner
    join), so the pairs share the same training and test rows; the 5x2cv tests further
    keep only repetitions with both folds. Columns: dataset, algorithm, n_pairs (pairs
    used), statistic, pvalue, mean_difference (algorithm - ref over those pairs),
    no_test, mark; mark is "v" when the algorithm is significantly better than ``ref`` at
    level ``alpha`` in the metric's direction (higher accuracy, fewer leaves), "*" when
    significantly worse, "" otherwise (p <= alpha decides, as in Weka). The direction is
    the statistic's sign, or for the unsigned F test the sign of the mean difference.
    ``no_test`` says why a pair has no statistic (TOO_FEW_PAIRS, TOO_FEW_REPETITIONS,
    NO_PREDICTIONS, or
    COPIED_FITS where either side's tasks repeat one fit under ``protocol``, meta.json's:
    ``copied_fits``), "" where it has one.
    """
    chosen = check_test(test)
    higher = check_metric(metric).higher
    if chosen.two_folds:
        _check_two_folds(runs, chosen)
    if chosen.name == "mcnemar" and metric != "test_accuracy":
        raise ObliqError(f"--test mcnemar counts the test rows each algorithm predicts "
                         f"right: it goes with --metric test_accuracy (not {metric})")
    ok = with_metric_column(runs[runs["status"] == "ok"], metric)
    keys = ["dataset", "repetition", "fold", "algorithm"]
    scores = ok.groupby(keys, sort=False)[metric].mean().unstack("algorithm")
    if ref not in scores.columns:
        return pd.DataFrame(columns=COMPARE_COLUMNS)
    sizes = None
    if chosen.name == "corrected-t":
        sizes = _training_sizes(ok).groupby([ok[k] for k in keys[:3]], sort=False).mean()
    copies = copied_fits(ok, protocol)
    too_few = (NO_PREDICTIONS if chosen.name == "mcnemar" else
               TOO_FEW_REPETITIONS if chosen.two_folds else TOO_FEW_PAIRS)
    rows = []
    for algorithm in scores.columns.drop(ref):
        pairs = scores[[algorithm, ref]].dropna().set_axis(["a", "b"], axis=1)
        if sizes is not None:
            pairs = pairs.join(sizes)
        if chosen.name == "mcnemar":  # the pairs of tasks with stored predictions
            from ..experiment.predictions import discordant_counts

            # a task without stored predictions (an older folder) leaves its pair untested
            pairs = pairs.join(discordant_counts(ok, algorithm, ref), how="left")
        for dataset, group in pairs.groupby(level="dataset", sort=False):
            group = group.droplevel("dataset")
            difference = _used_mean_difference(group, chosen)
            if (str(dataset), str(algorithm)) in copies or (str(dataset), str(ref)) in copies:
                rows.append([dataset, algorithm, len(group), np.nan, np.nan, difference,
                             COPIED_FITS])
                continue
            n_used, result = chosen.run(group)
            rows.append([dataset, algorithm, n_used, result.statistic, result.pvalue,
                         difference, too_few if np.isnan(result.statistic) else ""])
    if not rows:
        return pd.DataFrame(columns=COMPARE_COLUMNS)
    out = pd.DataFrame(rows, columns=COMPARE_COLUMNS[:-1])
    direction = np.sign(out["statistic"] if chosen.signed else out["mean_difference"])
    significant = out["pvalue"] <= alpha
    better = (direction > 0) if higher else (direction < 0)
    out["mark"] = np.where(significant & better, "v", np.where(significant, "*", ""))
    return out[COMPARE_COLUMNS]


def untested_note(tests: pd.DataFrame, ordered_twice: bool = False) -> str | None:
    """One sentence on the pairs of ``tests`` (compare_to's rows) with no test and why,
    counted as ties; None when every pair was tested. ``ordered_twice``: each unordered
    pair appears once each way (significance's every-against-every rows)."""
    reasons = tests["no_test"][tests["statistic"].isna()].replace("", TOO_FEW_PAIRS)
    if reasons.empty:
        return None
    counts = reasons.value_counts(sort=False)
    if ordered_twice:
        counts = counts // 2
    parts = [f"{int(n)} ({why})" for why, n in counts.items() if n]
    return (f"no test for {int(counts.sum())} dataset/algorithm pair(s), counted as ties: "
            + "; ".join(parts))


def _used_mean_difference(pairs: pd.DataFrame, test: FoldTest) -> float:
    if test.two_folds:
        a, b = _two_fold_arrays(pairs)
    else:
        a, b = pairs["a"].to_numpy(), pairs["b"].to_numpy()
    return float((a - b).mean()) if a.size else float("nan")


def win_tie_loss(marks: pd.Series) -> str:
    """Weka's "(w/t/l)" count of one column's marks: v = win, * = loss, anything else tie."""
    wins = int((marks == "v").sum())
    losses = int((marks == "*").sum())
    return f"({wins}/{len(marks) - wins - losses}/{losses})"


# --- across datasets (Demšar 2006) -----------------------------------------------------------

def dataset_scores(runs: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One score per (dataset, algorithm) of ONE experiment: index dataset, columns
    algorithm (first-seen order), value the metric's mean over the dataset's ok folds.

    Computed as ``obliq table`` prints it: the mean over each repetition's ok folds, then
    the mean over repetitions (the same number as the plain mean over the ok folds when
    every repetition is complete). NaN where an algorithm has no ok fold on a dataset.
    """
    check_metric(metric)
    if "experiment" not in runs.columns:
        runs = runs.assign(experiment="")
    experiments = pd.unique(runs["experiment"])
    if len(experiments) > 1:
        raise ObliqError(f"dataset_scores takes one experiment's runs (got "
                         f"{len(experiments)}: {', '.join(map(str, experiments))})")
    reps = per_repetition(runs, metric)
    scores = reps.groupby(["dataset", "algorithm"], sort=False)["value"].mean()
    table = scores.unstack("algorithm")
    return table.reindex(index=pd.unique(reps["dataset"]),
                         columns=pd.unique(reps["algorithm"])).rename_axis(
        index="dataset", columns="algorithm")


class WilcoxonResult(NamedTuple):
    statistic: float    # scipy's: min(R+, R-), zero differences split between the two
    pvalue: float       # two-sided
    n_datasets: int
    rank_sum_plus: float   # R+: the ranks of the datasets where a - b > 0 (+ half the zeros)
    rank_sum_minus: float  # R-: where a - b < 0 (+ half the zeros)


def wilcoxon_test(a, b) -> WilcoxonResult:
    """Wilcoxon signed-rank test of per-dataset scores ``a`` vs ``b`` (Demšar 2006, §3.1.3).

    ``scipy.stats.wilcoxon(a - b, zero_method="zsplit")``: Demšar ranks the zero
    differences too and splits their ranks evenly between R+ and R- ("zsplit"; scipy does
    not drop one zero when their number is odd, as Demšar suggests). scipy's "auto" method
    is exact for up to 50 datasets without ties or zeros, a full permutation
    distribution for up to 13 with them, and the normal approximation otherwise. All
    differences zero: R+ = R- = N(N+1)/4, p = 1. Fewer than 2 datasets: ObliqError.
    """
    d = _differences(a, b).ravel()
    n = d.size
    if n < 2:
        raise ObliqError(f"the Wilcoxon signed-rank test needs at least 2 datasets with "
                         f"results for both algorithms (got {n})")
    ranks = stats.rankdata(np.abs(d))
    half_zeros = ranks[d == 0].sum() / 2.0
    plus = float(ranks[d > 0].sum() + half_zeros)
    minus = float(ranks[d < 0].sum() + half_zeros)
    if np.all(d == 0):
        return WilcoxonResult(min(plus, minus), 1.0, n, plus, minus)
    result = stats.wilcoxon(d, zero_method="zsplit")
    return WilcoxonResult(float(result.statistic), float(result.pvalue), n, plus, minus)


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Demšar's q_alpha for k algorithms: the studentized range quantile (infinite df)
    divided by sqrt(2) (Demšar 2006, §3.2.2, Table 5a: 1.960, 2.344, 2.569, 2.728 for
    k = 2..5 at alpha = 0.05)."""
    if k < 2:
        raise ObliqError(f"the Nemenyi test needs at least 2 algorithms (got {k})")
    check_alpha(alpha)
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def nemenyi_critical_difference(k: int, n_datasets: int, alpha: float = 0.05) -> float:
    """CD = q_alpha sqrt(k (k + 1) / (6 N)) (Demšar 2006, §3.2.2): two algorithms whose
    average ranks over N datasets differ by at least CD differ significantly."""
    if n_datasets < 1:
        raise ObliqError(f"the critical difference needs at least 1 dataset (got "
                         f"{n_datasets})")
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * n_datasets))


def rank_algorithms(scores: pd.DataFrame, higher: bool) -> pd.DataFrame:
    """Each dataset's (row's) ranks of the algorithms (columns): 1 = best in the metric's
    direction, ties get the average of the ranks they span (Demšar 2006, §3.2.2)."""
    values = scores.to_numpy(dtype=np.float64)
    ranks = stats.rankdata(-values if higher else values, axis=1)
    return pd.DataFrame(ranks, index=scores.index, columns=scores.columns)


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman test with Iman & Davenport's F and Nemenyi's CD (Demšar 2006, §3.2.2)."""

    average_ranks: pd.Series    # algorithm -> average rank over the datasets, best first
    n_datasets: int             # N: datasets on which every algorithm has a score
    n_algorithms: int           # k
    chi2: float                 # Friedman's chi2_F, k - 1 df
    chi2_pvalue: float
    iman_davenport: float       # F_F, (k - 1, (k - 1)(N - 1)) df; inf when every dataset
    iman_davenport_pvalue: float  # ranks the algorithms the same way
    critical_difference: float  # Nemenyi's CD at ``alpha``
    alpha: float
    dropped_datasets: tuple = ()          # datasets left out: some algorithm has no score
    nemenyi_pvalues: pd.DataFrame | None = None  # algorithm x algorithm, two-sided


def friedman_test(scores: pd.DataFrame, higher: bool, alpha: float = 0.05) -> FriedmanResult:
    """Friedman / Iman-Davenport / Nemenyi on ``scores`` (datasets x algorithms, e.g. from
    ``dataset_scores``), Demšar 2006 §3.2.2:

    - R_j = average rank of algorithm j over the N datasets (``rank_algorithms``);
    - chi2_F = 12N / (k(k+1)) [Σ_j R_j² - k(k+1)²/4], chi2 with k - 1 df (no tie
      correction, unlike ``scipy.stats.friedmanchisquare``, which divides by
      1 - Σ(t³ - t) / (N k (k² - 1)); the two agree when no dataset has tied scores);
    - F_F = (N - 1) chi2_F / (N(k - 1) - chi2_F) ~ F(k - 1, (k - 1)(N - 1)); when every
      dataset ranks the algorithms the same way chi2_F = N(k - 1) and F_F is infinite
      (p = 0), reported as such instead of dividing by zero;
    - CD = q_alpha sqrt(k(k+1)/(6N)); pairwise Nemenyi p = P(studentized range(k, inf) >=
      |R_i - R_j| sqrt(2) / sqrt(k(k+1)/(6N))) (scikit-posthocs' posthoc_nemenyi_friedman).

    Only datasets on which every algorithm has a score enter (``dropped_datasets`` names
    the others). Fewer than 2 datasets or algorithms: ObliqError.
    """
    check_alpha(alpha)
    k = scores.shape[1]
    if k < 2:
        raise ObliqError(f"the Friedman test needs at least 2 algorithms (got {k})")
    complete = scores.dropna()
    dropped = tuple(scores.index[scores.isna().any(axis=1)])
    n = complete.shape[0]
    if n < 2:
        raise ObliqError(f"the Friedman test needs at least 2 datasets on which every "
                         f"algorithm has results (got {n}"
                         + (f"; {len(dropped)} dropped for missing results)" if dropped
                            else ")"))
    average = rank_algorithms(complete, higher).mean(axis=0)
    chi2 = 12.0 * n / (k * (k + 1)) * (float((average ** 2).sum()) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(chi2, 0.0)  # rounding can leave -1e-15 when every algorithm ties
    denominator = n * (k - 1) - chi2
    if denominator <= 1e-12 * n * (k - 1):
        iman, iman_p = math.inf, 0.0
    else:
        iman = (n - 1) * chi2 / denominator
        iman_p = float(stats.f.sf(iman, k - 1, (k - 1) * (n - 1)))
    scale = math.sqrt(k * (k + 1) / (6.0 * n))
    gaps = np.abs(average.to_numpy()[:, None] - average.to_numpy()[None, :])
    pvalues = stats.studentized_range.sf(gaps / scale * math.sqrt(2.0), k, np.inf)
    np.fill_diagonal(pvalues, 1.0)
    nemenyi = pd.DataFrame(pvalues, index=average.index, columns=average.index)
    return FriedmanResult(
        average_ranks=average.sort_values(kind="stable"), n_datasets=n, n_algorithms=k,
        chi2=float(chi2), chi2_pvalue=float(stats.chi2.sf(chi2, k - 1)),
        iman_davenport=float(iman), iman_davenport_pvalue=iman_p,
        critical_difference=nemenyi_critical_difference(k, n, alpha), alpha=alpha,
        dropped_datasets=dropped, nemenyi_pvalues=nemenyi)

