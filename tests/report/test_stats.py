"""Significance tests: per-fold tests on one dataset, Wilcoxon / Friedman / Nemenyi across
datasets, and the `obliq table --test` / `obliq stats` commands.

Known answers are worked by hand on small fixed numbers (the value is written in a comment
beside its assert) or come from scipy; results folders are synthetic runs.csv + meta.json.
mlxtend is not used for a cross-check: its 5x2cv helpers fit the estimators themselves
(``paired_ttest_5x2cv(estimator1, estimator2, X, y)``) and take no stored differences.
"""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from obliq_cli.analysis.aggregate import load_results
from obliq_cli.analysis.stats import (
    COPIED_FITS,
    TESTS,
    FriedmanResult,
    alpaydin_5x2cv_f,
    chosen_test,
    combined_5x2cv_t,
    compare_to,
    corrected_resampled_t,
    dataset_scores,
    dietterich_5x2cv_t,
    friedman_test,
    nemenyi_critical_difference,
    paired_t_test,
    protocol_test,
    rank_algorithms,
    wilcoxon_test,
)
from obliq_cli.cli import main
from obliq_cli.errors import ObliqError
from obliq_cli.experiment.schema import RUN_COLUMNS
from obliq_cli.report.significance import render_stats

# A fixed 5 x 2 array of differences p = a - b (rows repetitions, columns folds).
P = np.array([[2.0, 1.0], [0.0, 1.0], [1.0, 3.0], [-1.0, 0.0], [2.0, 2.0]])
B = np.array([[80.0, 81.0], [79.0, 82.0], [78.0, 80.0], [83.0, 77.0], [81.0, 79.0]])
A = B + P


# --- per-fold tests on one dataset --------------------------------------------------------------

def test_paired_t_equals_scipy_ttest_rel_on_fixed_numbers():
    a = [81.0, 79.5, 84.0, 80.0, 77.5, 83.0]
    b = [80.0, 80.0, 81.5, 78.0, 77.0, 80.5]
    expected = stats.ttest_rel(a, b)
    t, p = paired_t_test(a, b)
    assert t == pytest.approx(expected.statistic, rel=1e-12)
    assert p == pytest.approx(expected.pvalue, rel=1e-10)


def five_by_two_by_hand(p):
    """The published formulas with plain arithmetic: s_i² = Σ_j (p_ij - p̄_i)²."""
    r = len(p)
    s2 = []
    for p1, p2 in p:
        mean = (p1 + p2) / 2
        s2.append((p1 - mean) ** 2 + (p2 - mean) ** 2)
    variance = sum(s2) / r
    all_p = [x for row in p for x in row]
    dietterich = p[0][0] / math.sqrt(variance)
    f = sum(x * x for x in all_p) / (2 * sum(s2))
    combined = math.sqrt(2 * r) * (sum(all_p) / (2 * r)) / math.sqrt(variance)
    return dietterich, f, combined


def test_5x2cv_tests_equal_the_published_formulas():
    dietterich, f, combined = five_by_two_by_hand(P.tolist())
    # By hand: s_i² = 0.5, 0.5, 2, 0.5, 0 -> Σ = 3.5, Σ/5 = 0.7.
    # Dietterich: t = p_1^(1) / sqrt(0.7) = 2 / sqrt(0.7) = 2.390457
    # Alpaydın: Σ p² = 4+1+0+1+1+9+1+0+4+4 = 25, f = 25 / (2 × 3.5) = 25/7 = 3.571429
    # combined: mean(p) = 11/10, t = sqrt(10) × 1.1 / sqrt(0.7) = 11 / sqrt(7) = 4.157609
    assert (dietterich, f, combined) == pytest.approx((2.390457, 3.571429, 4.157609), abs=1e-6)

    t = dietterich_5x2cv_t(A, B)
    assert t.statistic == pytest.approx(dietterich, abs=1e-12)
    assert t.statistic == pytest.approx(2.390457, abs=1e-6)
    assert t.pvalue == pytest.approx(2 * stats.t.sf(dietterich, 5), rel=1e-12)

    F = alpaydin_5x2cv_f(A, B)
    assert F.statistic == pytest.approx(f, abs=1e-12)
    assert F.statistic == pytest.approx(3.571429, abs=1e-6)
    assert F.pvalue == pytest.approx(stats.f.sf(f, 10, 5), rel=1e-12)  # one-sided

    c = combined_5x2cv_t(A, B)
    assert c.statistic == pytest.approx(combined, abs=1e-12)
    assert c.statistic == pytest.approx(4.157609, abs=1e-6)
    assert c.pvalue == pytest.approx(2 * stats.t.sf(combined, 5), rel=1e-12)

    # swapping the algorithms flips the t statistics' sign, not their p; F is unchanged
    assert dietterich_5x2cv_t(B, A) == pytest.approx((-t.statistic, t.pvalue))
    assert combined_5x2cv_t(B, A) == pytest.approx((-c.statistic, c.pvalue))
    assert alpaydin_5x2cv_f(B, A) == pytest.approx(tuple(F))


def test_5x2cv_generalises_to_r_repetitions_with_r_df():
    p = P[:3]
    dietterich, f, combined = five_by_two_by_hand(p.tolist())
    assert dietterich_5x2cv_t(B[:3] + p, B[:3]).pvalue == pytest.approx(
        2 * stats.t.sf(abs(dietterich), 3))
    assert alpaydin_5x2cv_f(B[:3] + p, B[:3]).pvalue == pytest.approx(stats.f.sf(f, 6, 3))
    assert combined_5x2cv_t(B[:3] + p, B[:3]).statistic == pytest.approx(combined)
    with pytest.raises(ObliqError, match="2 folds"):
        dietterich_5x2cv_t(np.zeros((5, 3)), np.zeros((5, 3)))


def test_corrected_t_is_the_formula_and_the_plain_t_shrunk():
    rng = np.random.default_rng(4)
    a, b = rng.normal(80, 2, 10), rng.normal(79, 2, 10)
    ratio = 1 / 9  # 10-fold CV: n_test / n_train = 1 / (k - 1)
    d = a - b
    n = d.size
    t_formula = d.mean() / math.sqrt((1 / n + ratio) * d.var(ddof=1))
    result = corrected_resampled_t(a, b, ratio)
    assert result.statistic == pytest.approx(t_formula, rel=1e-12)
    assert result.pvalue == pytest.approx(2 * stats.t.sf(abs(t_formula), n - 1), rel=1e-12)
    # t_corrected = t_plain / sqrt(1 + n n_test / n_train)
    plain = paired_t_test(a, b).statistic
    assert result.statistic == pytest.approx(plain / math.sqrt(1 + n * ratio), rel=1e-12)
    # ratio 0 is the plain paired t
    assert corrected_resampled_t(a, b, 0.0) == pytest.approx(tuple(paired_t_test(a, b)))


def test_degenerate_per_fold_scores_give_defined_answers_without_warnings():
    same = np.full((5, 2), 80.0)
    shifted = same + 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for test in (dietterich_5x2cv_t, alpaydin_5x2cv_f, combined_5x2cv_t):
            assert test(same, same) == (0.0, 1.0), test.__name__
            assert test(shifted, same) == (math.inf, 0.0), test.__name__
            empty = test(np.empty((0, 2)), np.empty((0, 2)))
            assert math.isnan(empty.statistic) and empty.pvalue == 1.0
        assert dietterich_5x2cv_t(same, shifted) == (-math.inf, 0.0)
        assert combined_5x2cv_t(same, shifted) == (-math.inf, 0.0)
        assert alpaydin_5x2cv_f(same, shifted) == (math.inf, 0.0)  # F has no sign
        assert corrected_resampled_t(same.ravel(), same.ravel(), 0.25) == (0.0, 1.0)
        assert corrected_resampled_t(shifted.ravel(), same.ravel(), 0.25) == (math.inf, 0.0)
        one = corrected_resampled_t([81.0], [80.0], 0.25)
        assert math.isnan(one.statistic) and one.pvalue == 1.0
        # Dietterich's numerator is p_1^(1) alone: 0 there gives t = 0 whatever follows
        p = np.array([[0.0, 0.0], [3.0, 3.0]])
        assert dietterich_5x2cv_t(same[:2] + p, same[:2]) == (0.0, 1.0)
        assert combined_5x2cv_t(same[:2] + p, same[:2]) == (math.inf, 0.0)


# --- across datasets --------------------------------------------------------------------------

def test_wilcoxon_by_hand_with_a_zero_split_between_the_rank_sums():
    # d = 0, 2, -1, 3: |d| ranks 1, 3, 2, 4; the zero's rank 1 is split: R+ = 3 + 4 + 0.5 =
    # 7.5, R- = 2 + 0.5 = 2.5, statistic min = 2.5 (Demšar 2006, §3.1.3)
    result = wilcoxon_test([80, 82, 79, 83], [80, 80, 80, 80])
    assert (result.rank_sum_plus, result.rank_sum_minus, result.statistic) == (7.5, 2.5, 2.5)
    assert result.pvalue == pytest.approx(
        stats.wilcoxon([0, 2, -1, 3], zero_method="zsplit").pvalue)
    # 6 datasets all one way: exact two-sided p = 2 / 2^6 = 0.03125
    assert wilcoxon_test(np.arange(6) + 1.0, np.zeros(6)).pvalue == pytest.approx(0.03125)


def test_wilcoxon_degenerate_cases():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = wilcoxon_test([80, 70, 90], [80, 70, 90])
        assert same.pvalue == 1.0 and same.statistic == 3.0  # N(N+1)/4 = 3
    with pytest.raises(ObliqError, match="at least 2 datasets"):
        wilcoxon_test([80.0], [79.0])


def test_friedman_chi2_equals_scipy_without_ties_and_its_tie_corrected_value_with_ties():
    rng = np.random.default_rng(7)
    scores = pd.DataFrame(rng.normal(80, 5, (12, 4)), columns=list("ABCD"))
    result = friedman_test(scores, higher=True)
    expected = stats.friedmanchisquare(*scores.to_numpy().T)
    assert result.chi2 == pytest.approx(expected.statistic, rel=1e-12)
    assert result.chi2_pvalue == pytest.approx(expected.pvalue, rel=1e-10)
    # with ties scipy divides by 1 - Σ(t³ - t) / (N k (k² - 1)); Demšar's formula does not
    tied = scores.round(-1)  # values 70, 80, 90: many ties within a dataset
    counts = [np.unique(row, return_counts=True)[1] for row in tied.to_numpy()]
    n, k = tied.shape
    correction = 1 - sum(((c ** 3) - c).sum() for c in counts) / (n * k * (k * k - 1))
    assert correction < 1
    scipy_chi2 = stats.friedmanchisquare(*tied.to_numpy().T).statistic
    assert friedman_test(tied, higher=True).chi2 == pytest.approx(scipy_chi2 * correction)


def test_tied_ranks_are_averaged_and_follow_the_metric_direction_by_hand():
    scores = pd.DataFrame({"A": [0.9, 0.7, 0.6], "B": [0.8, 0.7, 0.9], "C": [0.8, 0.7, 0.5]},
                          index=["d1", "d2", "d3"])
    # higher is better: d1 A 1, B 2.5, C 2.5; d2 all 2; d3 B 1, A 2, C 3
    ranks = rank_algorithms(scores, higher=True)
    assert ranks.loc["d1"].tolist() == [1.0, 2.5, 2.5]
    assert ranks.loc["d2"].tolist() == [2.0, 2.0, 2.0]
    result = friedman_test(scores, higher=True)
    # averages A 5/3, B 5.5/3, C 7.5/3; chi2 = 12·3/(3·4) (111.5/9 - 12) = 7/6
    # F_F = (3 - 1)(7/6) / (3·2 - 7/6) = 14/29
    assert list(result.average_ranks.index) == ["A", "B", "C"]
    assert result.average_ranks.tolist() == pytest.approx([5 / 3, 5.5 / 3, 2.5])
    assert result.chi2 == pytest.approx(7 / 6)
    assert result.iman_davenport == pytest.approx(14 / 29)
    assert result.iman_davenport_pvalue == pytest.approx(stats.f.sf(14 / 29, 2, 4))
    assert (result.n_datasets, result.n_algorithms) == (3, 3)
    # lower is better (error, leaves): the smallest values rank first
    lower = friedman_test(scores, higher=False).average_ranks
    # d1 B, C 1.5, A 3; d2 all 2; d3 C 1, A 2, B 3 -> C 1.5, B 6.5/3, A 7/3
    assert list(lower.index) == ["C", "B", "A"]
    assert lower.tolist() == pytest.approx([1.5, 6.5 / 3, 7 / 3])


def test_critical_difference_matches_demsars_table():
    n = 30
    for k, q in zip((2, 3, 4, 5), (1.960, 2.344, 2.569, 2.728)):
        cd = nemenyi_critical_difference(k, n, 0.05)
        assert cd / math.sqrt(k * (k + 1) / (6 * n)) == pytest.approx(q, abs=5e-4)
        assert friedman_test(pd.DataFrame(np.random.default_rng(k).normal(size=(n, k))),
                             higher=True).critical_difference == pytest.approx(cd)


def test_nemenyi_p_is_below_alpha_exactly_when_ranks_differ_by_at_least_cd():
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(20):
        scores = pd.DataFrame(rng.normal(size=(8, 4)) + np.arange(4) * 0.6,
                              columns=list("ABCD"))
        result = friedman_test(scores, higher=True)
        ranks = result.average_ranks
        for a in ranks.index:
            for b in ranks.index:
                if a != b:
                    gap = abs(ranks[a] - ranks[b])
                    p = result.nemenyi_pvalues.at[a, b]
                    assert (p <= 0.05) == (gap >= result.critical_difference)
                    checked += p <= 0.05
    assert checked > 0  # some pairs were significant, so both sides were exercised


def test_identical_rankings_give_an_infinite_iman_davenport_without_dividing_by_zero():
    scores = pd.DataFrame({"A": [90.0, 80, 70], "B": [85.0, 75, 65], "C": [80.0, 70, 60]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = friedman_test(scores, higher=True)
        # chi2 = N (k - 1) = 6
        assert result.chi2 == pytest.approx(6.0)
        assert (result.iman_davenport, result.iman_davenport_pvalue) == (math.inf, 0.0)
        tie = friedman_test(pd.DataFrame({"A": [1.0, 2.0], "B": [1.0, 2.0]}), higher=True)
        assert (tie.chi2, tie.chi2_pvalue, tie.iman_davenport) == (0.0, 1.0, 0.0)


def test_friedman_drops_incomplete_datasets_and_needs_two_of_each():
    scores = pd.DataFrame({"A": [1.0, 2.0, 3.0], "B": [2.0, np.nan, 1.0]},
                          index=["d1", "d2", "d3"])
    result = friedman_test(scores, higher=True)
    assert isinstance(result, FriedmanResult)
    assert result.n_datasets == 2 and result.dropped_datasets == ("d2",)
    with pytest.raises(ObliqError, match="at least 2 datasets") as info:
        friedman_test(scores.iloc[:2], higher=True)
    assert "\n" not in str(info.value)
    with pytest.raises(ObliqError, match="at least 2 algorithms"):
        friedman_test(scores[["A"]], higher=True)


# --- results folders, compare_to and the commands -----------------------------------------------

DEFAULTS = dict(config_hash="h", algorithm_name="x", pruner="", status="ok", error="",
                n_train=45, n_prune=5, n_test=50, n_test_correct=40, n_leaves=3,
                n_internal=2, depth=2, fit_time=0.1, predict_time=0.01, macro_f1=0.5,
                train_accuracy=100.0, classes="[]", tpr="[]", tnr="[]", confusion="[]")


def write_experiment(directory, scores, name="exp", protocol="kfold", **extra):
    """runs.csv + meta.json: ``scores`` maps (dataset, algorithm) to a (repetitions, folds)
    array of test accuracies."""
    directory.mkdir(parents=True)
    rows = []
    for (dataset, algorithm), values in scores.items():
        for (rep, fold), value in np.ndenumerate(np.asarray(values, dtype=float)):
            rows.append({**DEFAULTS, **extra, "dataset": dataset, "algorithm": algorithm,
                         "repetition": rep, "fold": fold, "test_accuracy": value})
    pd.DataFrame(rows, columns=RUN_COLUMNS).to_csv(directory / "runs.csv", index=False)
    algorithms = list(dict.fromkeys(a for _, a in scores))
    datasets = list(dict.fromkeys(d for d, _ in scores))
    (directory / "meta.json").write_text(json.dumps({"name": name, "config": {
        "algorithms": [{"label": a} for a in algorithms],
        "datasets": [{"label": d} for d in datasets], "protocol": {"name": protocol}}}))
    return directory


def five_by_two_experiment(tmp_path):
    """2 x 5 CV scores on d1..d3: REF, SAME (= REF) and BIG: REF + P on d1 (f = 25/7,
    p = 0.083: no mark), REF + P + 3 on d2 (f = 181/7: better), REF - P - 3 on d3 (worse)."""
    scores = {}
    shift = P + 3.0  # every difference positive and large against the spread
    for d in ("d1", "d2", "d3"):
        scores[(d, "REF")] = B
        scores[(d, "SAME")] = B
    scores[("d1", "BIG")] = B + P        # not significant (p = 0.083)
    scores[("d2", "BIG")] = B + shift    # significant better
    scores[("d3", "BIG")] = B - shift    # significant worse
    return write_experiment(tmp_path / "e", scores, name="fivebytwo")


def test_compare_to_uses_the_chosen_test_and_the_mean_for_the_f_direction(tmp_path):
    runs, _ = load_results(five_by_two_experiment(tmp_path))
    tests = compare_to(runs, "test_accuracy", "REF", test="5x2f").set_index(
        ["dataset", "algorithm"])
    # d1: f = 25/7 (hand value above), one-sided F(10, 5) p = 0.083
    assert tests.loc[("d1", "BIG"), "statistic"] == pytest.approx(25 / 7)
    assert tests.loc[("d1", "BIG"), "pvalue"] == pytest.approx(stats.f.sf(25 / 7, 10, 5))
    assert tests.loc[("d1", "BIG"), "mark"] == ""
    assert tests.loc[("d2", "BIG"), "mark"] == "v"
    assert tests.loc[("d3", "BIG"), "mark"] == "*"  # same f as d2; the mean sets the sign
    assert tests.loc[("d2", "BIG"), "statistic"] == tests.loc[("d3", "BIG"), "statistic"]
    assert (tests.loc[("d1", "SAME"), "statistic"], tests.loc[("d1", "SAME"), "pvalue"]) == (
        0.0, 1.0)
    assert (tests["n_pairs"] == 10).all()
    # the t-type test against the same data agrees with the array function
    dietterich = compare_to(runs, "test_accuracy", "REF", test="5x2t").set_index(
        ["dataset", "algorithm"])
    assert dietterich.loc[("d1", "BIG"), "statistic"] == pytest.approx(2.390457, abs=1e-6)
    with pytest.raises(ObliqError, match="unknown test 'nonsense'.*5x2f"):
        compare_to(runs, "test_accuracy", "REF", test="nonsense")


def test_compare_to_keeps_complete_repetitions_for_5x2_tests(tmp_path):
    d = five_by_two_experiment(tmp_path)
    runs = pd.read_csv(d / "runs.csv")
    # BIG's repetition 0 fold 1 on d1 failed: repetitions 1..4 remain
    failed = (runs["algorithm"] == "BIG") & (runs["dataset"] == "d1") & (
        runs["repetition"] == 0) & (runs["fold"] == 1)
    runs.loc[failed, "status"] = "error"
    runs.to_csv(d / "runs.csv", index=False)
    loaded, _ = load_results(d)
    row = compare_to(loaded, "test_accuracy", "REF", test="5x2t").set_index(
        ["dataset", "algorithm"]).loc[("d1", "BIG")]
    assert row["n_pairs"] == 8
    # numerator: p of the first complete repetition's first fold (0), so t = 0, p = 1
    assert (row["statistic"], row["pvalue"]) == (0.0, 1.0)


def test_corrected_t_reads_the_fold_sizes(tmp_path):
    rng = np.random.default_rng(2)
    base = rng.normal(80, 2, (3, 5))
    diff = rng.normal(1, 1, (3, 5))
    # 5-fold CV of 100 rows: 80 training rows (72 grow + 8 prune), 20 test rows
    d = write_experiment(tmp_path / "e", {("d", "REF"): base, ("d", "X"): base + diff},
                         n_train=72, n_prune=8, n_test=20)
    runs, _ = load_results(d)
    row = compare_to(runs, "test_accuracy", "REF", test="corrected-t").iloc[0]
    expected = corrected_resampled_t((base + diff).ravel(), base.ravel(), 20 / 80)
    assert row["statistic"] == pytest.approx(expected.statistic)
    assert row["pvalue"] == pytest.approx(expected.pvalue)


def invoke(args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result, result.output.strip().splitlines()


def test_cli_table_marks_by_the_chosen_test_and_names_it(tmp_path):
    d = five_by_two_experiment(tmp_path)
    result, lines = invoke(["table", d, "--sig", "REF", "--test", "5x2f"])
    assert result.exit_code == 0, result.output
    cells = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
             for line in lines if line.startswith("|")}
    # columns REF, SAME, BIG
    assert not cells["d1"][2].endswith(("v", "*"))
    assert cells["d2"][2].endswith(" v") and cells["d3"][2].endswith(" *")
    assert cells["(w/t/l) vs REF"] == ["", "(0/3/0)", "(1/1/1)"]
    assert "Alpaydın's combined 5x2cv F-test" in result.output
    # without --test, 5 x 2-fold CV gets Dietterich's 5x2cv t, and the note says why
    result, lines = invoke(["table", d, "--sig", "REF"])
    assert "Dietterich's 5x2cv paired t-test" in result.output
    assert "test name 5x2t (default for 5 x 2-fold CV)" in result.output
    # an explicit --test still wins, and the note names it as chosen
    result, _ = invoke(["table", d, "--sig", "REF", "--test", "t"])
    assert "by a two-sided paired t-test (--test t)" in result.output


def test_cli_rejects_an_unknown_test_and_a_5x2_test_on_5_folds(tmp_path):
    d = five_by_two_experiment(tmp_path)
    for command in (["table", d, "--sig", "REF"], ["stats", d]):
        result, lines = invoke([*command, "--test", "nonsense"])
        assert result.exit_code == 2 and len(lines) == 1, lines
        assert lines[0].startswith("error: unknown test 'nonsense'")
        assert "5x2t, 5x2f, 5x2t-combined, corrected-t" in lines[0]
    five = write_experiment(tmp_path / "five", {("d", "A"): np.zeros((2, 5)) + 80,
                                                ("d", "B"): np.zeros((2, 5)) + 81})
    for command in (["table", five, "--sig", "A"], ["stats", five]):
        result, lines = invoke([*command, "--test", "5x2t"])
        assert result.exit_code == 2 and len(lines) == 1, lines
        assert "5x2t needs a 2-fold protocol" in lines[0] and "has 5 folds" in lines[0]


def test_cli_stats_prints_friedman_and_the_cd(tmp_path):
    d = five_by_two_experiment(tmp_path)
    result, lines = invoke(["stats", d, "--test", "5x2f"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Friedman test over N = 3 datasets" in text
    ranks = friedman_test(dataset_scores(load_results(d)[0], "test_accuracy"), higher=True)
    assert f"CD = q_alpha sqrt(k(k+1)/(6N)) = 2.344 × sqrt(12/18) = " \
           f"{ranks.critical_difference:.3f}" in text
    # the w/t/l matrix: BIG vs REF by 5x2f is 1 win, 1 tie, 1 loss (as the table marks)
    first_table = text.split("\n\n")[1].splitlines()
    matrix = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
              for line in first_table if line.startswith("|")}
    assert matrix["w/t/l"] == ["REF", "SAME", "BIG"]
    assert matrix["BIG"][0] == "1/1/1" and matrix["REF"][2] == "1/1/1"
    assert matrix["SAME"][0] == "0/3/0"


def test_stats_csv_has_one_row_per_ordered_pair(tmp_path):
    d = five_by_two_experiment(tmp_path)
    out = pd.read_csv(pd.io.common.StringIO(render_stats([d], test="5x2f", fmt="csv")))
    assert len(out) == 3 * 2
    row = out.set_index(["algorithm", "versus"]).loc[("BIG", "REF")]
    assert (row["wins"], row["ties"], row["losses"]) == (1, 1, 1)
    assert row["friedman_n_datasets"] == 3


def test_stats_with_one_dataset_prints_the_per_fold_part_and_a_note(tmp_path):
    d = write_experiment(tmp_path / "e", {("d", "A"): B, ("d", "B"): B + P})
    text = render_stats([d], test="5x2t")
    assert "| A " in text and "at least 2 datasets" in text and "Friedman test over" not in text
    html = render_stats([d], fmt="html")
    assert html.startswith("<p>") and "<table>" in html and "<html" not in html


def test_dataset_scores_are_the_table_means(tmp_path):
    d = five_by_two_experiment(tmp_path)
    scores = dataset_scores(load_results(d)[0], "test_accuracy")
    assert list(scores.columns) == ["REF", "SAME", "BIG"]
    assert scores.at["d1", "REF"] == pytest.approx(B.mean())
    assert scores.at["d2", "BIG"] == pytest.approx((B + P + 3).mean())
    assert list(TESTS) == ["t", "5x2t", "5x2f", "5x2t-combined", "corrected-t", "mcnemar"]


def test_notes_name_the_protocol_caveat_and_test_needs_sig(tmp_path):
    d = write_experiment(tmp_path / "e", {("d", "A"): B, ("d", "B"): B + P},
                         protocol="holdout_cv")
    result, _ = invoke(["table", d, "--sig", "A", "--test", "5x2t"])
    assert "same held-out test part" in result.output
    result, _ = invoke(["table", d, "--sig", "A", "--test", "corrected-t"])
    assert "Σ n_test / Σ (grow + prune rows)" in result.output
    result, lines = invoke(["table", d, "--test", "5x2t"])
    assert result.exit_code == 2 and lines == [
        "error: --test 5x2t chooses the test of --sig; give --sig REF too"]
    out = pd.read_csv(pd.io.common.StringIO(render_stats([d], fmt="csv")))
    assert out[["algorithm", "versus"]].values.tolist() == [["A", "B"], ["B", "A"]]


# --- the per-fold test that follows the protocol (no --test) ---------------------------------

@pytest.mark.parametrize("protocol, expected", [
    ({"name": "kfold", "folds": 2, "repeats": 5}, ("5x2t", "default for 5 x 2-fold CV")),
    ({"name": "kfold", "folds": 2, "repeats": 3}, ("5x2t", "default for 3 x 2-fold CV")),
    ({"name": "kfold", "folds": 10, "repeats": 10},
     ("corrected-t", "default for 10 x 10-fold CV")),
    ({"name": "kfold", "folds": 5, "repeats": 1}, ("corrected-t", "default for 5-fold CV")),
    ({"name": "random_split", "repeats": 5},
     ("corrected-t", "default for 5 repeated random splits")),
    # UMT's held-out third with 2 x 5 CV on the rest: 2 folds, yet not a 5x2cv design
    ({"name": "holdout_cv", "folds": 2, "repeats": 5},
     ("t", "default for holdout_cv, whose tasks share one held-out test part")),
    ({"name": "fixed_split", "repeats": 5},
     ("t", "default for fixed_split, whose tasks share one held-out test part")),
    ({"name": "mine"}, ("t", "default: no protocol-specific test for mine")),
    (None, ("t", "default: no protocol-specific test for an unnamed protocol")),
])
def test_the_default_test_follows_the_protocol(protocol, expected):
    assert protocol_test(protocol) == expected
    test, why = chosen_test(None, protocol)
    assert (test.name, why) == expected
    # an explicit test wins whatever the protocol
    test, why = chosen_test("5x2f", protocol)
    assert (test.name, why) == ("5x2f", "--test 5x2f")


def test_a_protocol_without_folds_is_counted_in_the_runs(tmp_path):
    # the synthetic meta.json names the protocol only: folds and repetitions from the rows
    runs, _ = load_results(five_by_two_experiment(tmp_path))
    assert protocol_test({"name": "kfold"}, runs) == ("5x2t", "default for 5 x 2-fold CV")
    assert protocol_test({"name": "kfold", "folds": 10}, runs) == (
        "corrected-t", "default for 5 x 10-fold CV")


def test_corrected_t_by_hand_and_as_the_default_for_repeated_k_fold(tmp_path):
    # 2 x 3-fold CV of 90 rows: every training part 60 rows (54 grow + 6 prune), test 30.
    # d = 2, 0, 1, 3, 1, -1: J = 6, mean 1, Σ (d - 1)² = 1+1+0+4+0+4 = 10, var = 10/5 = 2;
    # n_test / n_train = 30/60 = 1/2; t = 1 / sqrt((1/6 + 1/2) × 2) = 1 / sqrt(4/3)
    # = sqrt(3)/2 = 0.866025, 5 df
    d = np.array([[2.0, 0.0, 1.0], [3.0, 1.0, -1.0]])
    base = np.array([[80.0, 78.0, 81.0], [79.0, 82.0, 80.0]])
    hand = math.sqrt(3) / 2
    assert hand == pytest.approx(0.866025, abs=1e-6)
    direct = corrected_resampled_t((base + d).ravel(), base.ravel(), 30 / 60)
    assert direct.statistic == pytest.approx(hand, rel=1e-12)
    # the p independently: P(|T_5| >= t) from scipy's t distribution, and the same from
    # its cdf, 0.426 by a table of Student's t
    assert direct.pvalue == pytest.approx(2 * stats.t.sf(hand, 5), rel=1e-12)
    assert direct.pvalue == pytest.approx(2 * (1 - stats.t.cdf(hand, 5)), rel=1e-9)
    assert direct.pvalue == pytest.approx(0.426, abs=5e-4)
    folder = write_experiment(tmp_path / "e", {("d", "REF"): base, ("d", "X"): base + d},
                              n_train=54, n_prune=6, n_test=30)
    meta = json.loads((folder / "meta.json").read_text())
    meta["config"]["protocol"] = {"name": "kfold", "folds": 3, "repeats": 2}
    (folder / "meta.json").write_text(json.dumps(meta))
    result, lines = invoke(["stats", folder, "--format", "csv"])
    assert result.exit_code == 0, result.output
    row = pd.read_csv(pd.io.common.StringIO(result.output)).set_index(
        ["algorithm", "versus"]).loc[("X", "REF")]
    assert row["test"] == "corrected-t"
    assert (row["fold_n_pairs"], row["fold_statistic"], row["fold_pvalue"]) == pytest.approx(
        (6, hand, 2 * stats.t.sf(hand, 5)), rel=1e-12)
    text = render_stats([folder])
    assert "Nadeau & Bengio's corrected resampled t-test" in text
    assert "test name corrected-t (default for 2 x 3-fold CV)" in text
    # the plain t on the same differences would say more than the corrected one
    assert paired_t_test((base + d).ravel(), base.ravel()).pvalue < direct.pvalue


def test_one_dataset_gets_each_pairs_statistic_and_p(tmp_path):
    d = write_experiment(tmp_path / "e", {("d", "A"): B, ("d", "B"): B + P,
                                          ("d", "C"): B + P + 3})
    text = render_stats([d])
    assert "test name 5x2t (default for 5 x 2-fold CV)" in text
    rows = {tuple(c.strip() for c in line.split("|")[1:3]): [c.strip() for c in
                                                             line.split("|")[3:-1]]
            for line in text.splitlines() if line.startswith("| A ") or
            line.startswith("| B ")}
    # A - B = -P: Dietterich's t = -2 / sqrt(0.7) = -2.390, 5 df (hand value above)
    assert rows[("A", "B")] == ["10", "-1.1000", "-2.390",
                                f"{2 * stats.t.sf(2 / math.sqrt(0.7), 5):.4f}", ""]
    # B - C = -3 in every pair: zero variance, a constant shift (t = -inf, p = 0)
    assert rows[("B", "C")] == ["10", "-3.0000", "-inf", "< 0.0001", "*"]
    out = pd.read_csv(pd.io.common.StringIO(render_stats([d], fmt="csv"))).set_index(
        ["algorithm", "versus"])
    assert out.at[("A", "B"), "fold_statistic"] == pytest.approx(-2 / math.sqrt(0.7))
    assert out.at[("B", "A"), "fold_statistic"] == pytest.approx(2 / math.sqrt(0.7))
    assert (out["test"] == "5x2t").all()
    # with several datasets the w/t/l count them, and the one-dataset columns stay empty
    several = render_stats([five_by_two_experiment(tmp_path / "several")], fmt="csv")
    assert pd.read_csv(pd.io.common.StringIO(several))["fold_pvalue"].isna().all()


def test_holdout_cv_defaults_to_the_paired_t_without_a_caveat(tmp_path):
    d = write_experiment(tmp_path / "e", {("d", "A"): B, ("d", "B"): B + P},
                         protocol="holdout_cv")
    result, _ = invoke(["table", d, "--sig", "A"])
    assert "by a two-sided paired t-test (default for holdout_cv" in result.output
    assert "same held-out test part, not on disjoint halves" not in result.output
    out = pd.read_csv(pd.io.common.StringIO(render_stats([d], fmt="csv")))
    assert (out["test"] == "t").all()
    table = pd.read_csv(pd.io.common.StringIO(
        invoke(["table", d, "--sig", "A", "--format", "csv"])[0].output))
    assert (table["test"] == "t").all()


def _copies_experiment(tmp_path, protocol, n_prune):
    """REF scores 80 and X 85 in every task: what two deterministic fits repeated on one
    training part give (or, under kfold, a constant gain over resampled training sets)."""
    same = np.full((5, 2), 80.0)
    return write_experiment(tmp_path / f"{protocol}-{n_prune}",
                            {("d", "REF"): same, ("d", "X"): same + 5.0},
                            protocol=protocol, n_train=50, n_prune=n_prune, n_test=25)


@pytest.mark.parametrize("protocol, n_prune, tested", [
    ("holdout_cv", 0, False),    # every task grows on the same non-test rows
    ("fixed_split", 0, False),   # every repetition grows on the dataset's training part
    ("holdout_cv", 10, True),    # a held-out fold for pruning: each task grows on its own
    ("kfold", 0, True),          # the folds resample the training rows
])
def test_tasks_repeating_one_fit_get_no_test(tmp_path, protocol, n_prune, tested):
    directory = _copies_experiment(tmp_path, protocol, n_prune)
    runs, _ = load_results(directory)
    row = compare_to(runs, "test_accuracy", "REF", test="t",
                     protocol={"name": protocol}).iloc[0]
    if tested:  # a constant gain over resampled training sets: t = inf, p = 0 (Weka's rule)
        assert (row["statistic"], row["pvalue"], row["mark"], row["no_test"]) == (
            math.inf, 0.0, "v", "")
    else:
        assert math.isnan(row["statistic"]) and math.isnan(row["pvalue"])
        assert (row["mark"], row["no_test"], row["n_pairs"]) == ("", COPIED_FITS, 10)
        assert row["mean_difference"] == 5.0
    # the table and obliq stats say why instead of marking X better
    table = CliRunner().invoke(main, ["table", str(directory), "--sig", "REF"])
    assert table.exit_code == 0, table.output
    assert ("the tasks repeat one fit" in table.output) is not tested
    assert ("85.00 ± 0.00 v" in table.output) is tested
    report = CliRunner().invoke(main, ["stats", str(directory)])
    assert report.exit_code == 0, report.output
    assert ("1 (the tasks repeat one fit" in report.output) is not tested
