"""``obliq stats --bayes``: baycomp's Bayesian tests on stored scores.

Cross-checks: (a) the published example of baycomp's guide (nbc vs aode on sonar, 10 x
10-fold CV; "A Quick Guide to Bayesian Comparison of Classifiers", baycomp's docs),
reproduced through our function and through the command on a results folder; the
correlated t-test's closed form (Corani & Benavoli 2015: Student t) with scipy; the
signed-rank probabilities against our own Monte Carlo of the Dirichlet process posterior
(Benavoli et al. 2014), within sampling error; (b) a real tiny experiment, whose
``--format csv`` numbers equal baycomp called directly on the means and folds read from
runs.csv with pandas.
"""

import json

import numpy as np
import pandas as pd
import pytest
from conftest import invoke
from scipy import stats

from obliq_cli.analysis.bayes import (
    DECISION,
    correlated_t,
    default_rope,
    pair_seed,
    signed_rank,
)
from obliq_cli.config import load_config
from obliq_cli.experiment.runner import run_experiment
from obliq_cli.experiment.schema import RUN_COLUMNS

# baycomp's guide, cell 1: nbc's 100 accuracies (%) on sonar, 10 runs of 10-fold CV (mean
# 92.19582); aode's are the "sonar" row of the guide's docs/code/accuracies.txt (mean
# 93.30815, as the guide prints).
NBC = np.array("""
94.203 92.754 95.652 91.176 92.647 91.176 92.647 92.647 86.765 91.176 91.304 94.203 88.406
98.529 95.588 97.059 91.176 89.706 85.294 89.706 97.101 92.754 94.203 92.647 92.647 91.176
88.235 97.059 94.118 88.235 92.754 95.652 89.855 94.118 88.235 91.176 94.118 92.647 94.118
91.176 91.304 88.406 91.304 92.647 91.176 85.294 92.647 97.059 92.647 95.588 84.058 97.101
94.203 95.588 91.176 92.647 92.647 91.176 89.706 89.706 89.855 92.754 91.304 94.118 89.706
92.647 91.176 98.529 86.765 95.588 91.304 92.754 97.101 94.118 86.765 98.529 91.176 82.353
94.118 97.059 88.406 86.957 91.304 94.118 97.059 92.647 92.647 89.706 92.647 94.118 94.203
94.203 92.754 95.588 89.706 88.235 94.118 94.118 88.235 91.176""".split(), dtype=float)
AODE = np.array("""
95.652 94.203 95.652 91.176 94.118 91.176 98.529 92.647 91.176 89.706 92.754 94.203 91.304
98.529 94.118 97.059 92.647 91.176 86.765 92.647 100.000 94.203 94.203 92.647 91.176 91.176
91.176 97.059 94.118 89.706 94.203 95.652 92.754 94.118 88.235 94.118 94.118 95.588 94.118
91.176 92.754 89.855 94.203 94.118 95.588 88.235 92.647 97.059 92.647 95.588 85.507 95.652
95.652 95.588 91.176 95.588 92.647 91.176 94.118 92.647 91.304 94.203 92.754 94.118 92.647
94.118 91.176 98.529 89.706 95.588 91.304 94.203 97.101 97.059 86.765 98.529 88.235 86.765
94.118 97.059 91.304 88.406 92.754 95.588 98.529 94.118 94.118 92.647 92.647 95.588 92.754
95.652 94.203 95.588 92.647 94.118 92.647 94.118 88.235 92.647""".split(), dtype=float)
# The guide's outputs: two_on_single(nbc, aode, runs=10) and the same with rope=0.5.
PUBLISHED = (0.024471493163386815, 0.97552850683661319)
PUBLISHED_ROPE = (0.0023685180162288377, 0.13517773046085313, 0.86245375152291803)


def test_the_published_example_data_are_the_guides():
    assert NBC.size == AODE.size == 100
    assert NBC.mean() == pytest.approx(92.19582, abs=1e-9)
    assert AODE.mean() == pytest.approx(93.30815, abs=1e-9)


def test_correlated_t_reproduces_the_published_example():
    better, rope, worse = correlated_t(NBC, AODE, 0.0, repetitions=10)
    assert (better, worse) == pytest.approx(PUBLISHED, abs=1e-12)
    assert rope == 0.0
    assert correlated_t(NBC, AODE, 0.5, repetitions=10) == pytest.approx(PUBLISHED_ROPE,
                                                                          abs=1e-12)


def closed_form(a, b, rope, rho):
    """Corani & Benavoli (2015): the mean difference's posterior is Student t with
    location mean(d), scale sqrt((1/n + rho/(1-rho)) var(d)), n - 1 df; d = b - a."""
    d = np.asarray(b, float) - np.asarray(a, float)
    n = d.size
    scale = np.sqrt((1 / n + rho / (1 - rho)) * d.var(ddof=1))
    t = stats.t(n - 1, loc=d.mean(), scale=scale)
    return t.cdf(-rope), t.cdf(rope) - t.cdf(-rope), t.sf(rope)


@pytest.mark.parametrize("rope", [0.0, 0.5, 2.0])
def test_correlated_t_equals_the_closed_form(rope):
    expected = closed_form(NBC, AODE, rope, rho=1 / 10)
    assert correlated_t(NBC, AODE, rope, repetitions=10) == pytest.approx(expected, abs=1e-10)
    # another rho (a random-split design): the same closed form with that rho
    assert correlated_t(NBC, AODE, rope, rho=0.3) == pytest.approx(
        closed_form(NBC, AODE, rope, rho=0.3), abs=1e-10)


def dirichlet_process_probs(a, b, rope, draws, rng, prior=0.5):
    """Our own Monte Carlo of the Bayesian signed-rank posterior (Benavoli et al. 2014):
    the differences z = b - a with a pseudo-observation 0 of weight ``prior``; per
    Dirichlet draw w, theta_left = Σ_ij w_i w_j [z_i + z_j < -2 rope] (ties count a half),
    theta_right likewise above 2 rope, theta_rope the rest; the probabilities are how
    often each theta is the largest."""
    z = np.concatenate([[0.0], np.asarray(b, float) - np.asarray(a, float)])
    sums = z[:, None] + z[None, :]
    left = (sums < -2 * rope) + 0.5 * (sums == -2 * rope)
    right = (sums > 2 * rope) + 0.5 * (sums == 2 * rope)
    w = rng.dirichlet(np.r_[prior, np.ones(z.size - 1)], draws)
    theta_left = np.einsum("si,ij,sj->s", w, left, w)
    theta_right = np.einsum("si,ij,sj->s", w, right, w)
    thetas = np.stack([theta_left, 1 - theta_left - theta_right, theta_right], axis=1)
    return np.bincount(thetas.argmax(axis=1), minlength=3) / draws


@pytest.mark.parametrize("shift, rope", [(0.4, 1.0), (1.5, 1.0), (-0.8, 0.5)])
def test_signed_rank_agrees_with_our_monte_carlo(shift, rope):
    rng = np.random.default_rng(11)
    a = rng.uniform(70, 95, 12)
    b = a + shift + rng.normal(0, 1.2, 12)
    ours = np.array(signed_rank(a, b, rope, seed=5, samples=50000))
    theirs = dirichlet_process_probs(a, b, rope, 40000, np.random.default_rng(3))
    # two independent estimates: 5 standard errors of their difference at most
    se = np.sqrt(ours * (1 - ours) / 50000 + theirs * (1 - theirs) / 40000)
    assert np.all(np.abs(ours - theirs) <= 5 * se + 1e-9), (ours, theirs)
    assert ours.sum() == pytest.approx(1.0)


def test_signed_rank_is_seeded_and_mirrors():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(60, 90, 8), rng.uniform(60, 90, 8)
    first = signed_rank(a, b, 1.0, seed=9, samples=5000)
    assert signed_rank(a, b, 1.0, seed=9, samples=5000) == first
    # swapping the algorithms swaps the tails exactly (the same draws, mirrored)
    assert signed_rank(b, a, 1.0, seed=9, samples=5000) == pytest.approx(first[::-1])


def test_pair_seed_comes_from_the_experiment_seed():
    assert pair_seed(0, "A", "B") == pair_seed(0, "A", "B")
    assert len({pair_seed(0, "A", "B"), pair_seed(1, "A", "B"),
                pair_seed(0, "B", "A")}) == 3


def test_default_rope_is_in_the_metrics_units():
    assert default_rope("test_accuracy") == 1.0  # percent: 1 point (0.01 of a 0-1 scale)
    assert default_rope("macro_f1") == 0.01
    assert default_rope("n_leaves") == 0.0


# --- through the command ---------------------------------------------------------------

DEFAULTS = dict(config_hash="h", status="ok", error="", n_train=81, n_prune=0, n_test=9,
                n_test_correct=8, n_leaves=3, n_internal=2, depth=2, fit_time=0.1,
                predict_time=0.01, macro_f1=0.5, train_accuracy=100.0, classes="[]",
                tpr="[]", tnr="[]", confusion="[]")


def write_experiment(directory, scores, protocol, seed=0, name="exp"):
    """runs.csv + meta.json; ``scores``: (dataset, algorithm) -> (repetitions, folds)."""
    directory.mkdir(parents=True)
    rows = []
    for (dataset, algorithm), values in scores.items():
        for (rep, fold), value in np.ndenumerate(np.asarray(values, dtype=float)):
            rows.append({**DEFAULTS, "experiment": name, "dataset": dataset,
                         "algorithm": algorithm, "repetition": rep, "fold": fold,
                         "test_accuracy": value})
    pd.DataFrame(rows, columns=RUN_COLUMNS).to_csv(directory / "runs.csv", index=False)
    (directory / "meta.json").write_text(json.dumps({"name": name, "config": {
        "seed": seed,
        "algorithms": [{"label": a} for a in dict.fromkeys(a for _, a in scores)],
        "datasets": [{"label": d} for d in dict.fromkeys(d for d, _ in scores)],
        "protocol": protocol}}))
    return directory


_PRINTED: dict = {}  # obliq stats' csv by its arguments: one Bayesian analysis costs seconds


def csv_rows(args):
    key = tuple(str(a) for a in args)
    if key not in _PRINTED:
        result, lines = invoke(["stats", *args, "--bayes", "--format", "csv"])
        assert result.exit_code == 0, result.output
        _PRINTED[key] = result.output
    return pd.read_csv(pd.io.common.StringIO(_PRINTED[key]), keep_default_na=False,
                       na_values=[""])


def test_the_command_reproduces_the_published_example(tmp_path):
    scores = {("sonar", "nbc"): NBC.reshape(10, 10), ("sonar", "aode"): AODE.reshape(10, 10),
              ("other", "nbc"): NBC.reshape(10, 10), ("other", "aode"): NBC.reshape(10, 10)}
    folder = write_experiment(tmp_path / "exp", scores, {"name": "kfold", "folds": 10,
                                                         "repeats": 10})
    out = csv_rows([folder, "--rope", "0.5"])
    row = out[(out["test"] == "correlated-t") & (out["dataset"] == "sonar")].iloc[0]
    assert (row["algorithm"], row["versus"]) == ("nbc", "aode")
    assert (row["p_better"], row["p_rope"], row["p_worse"]) == pytest.approx(
        PUBLISHED_ROPE, abs=1e-12)
    assert (row["n"], row["repetitions"], row["rho"]) == (100, 10, 0.1)
    assert row["verdict"] == "tie"  # 0.862 < 0.95
    # identical scores on "other": all the mass in the rope
    same = out[(out["test"] == "correlated-t") & (out["dataset"] == "other")].iloc[0]
    assert (same["p_better"], same["p_rope"], same["p_worse"]) == (0.0, 1.0, 0.0)


def test_correlated_t_needs_a_resampling_design(tmp_path):
    rng = np.random.default_rng(4)
    scores = {(d, a): rng.uniform(70, 90, (5, 2)) for d in ("d1", "d2", "d3")
              for a in ("A", "B")}
    folder = write_experiment(tmp_path / "exp", scores, {"name": "holdout_cv", "folds": 2,
                                                         "repeats": 5})
    result, lines = invoke(["stats", folder, "--bayes"])
    assert result.exit_code == 0, result.output
    assert any("correlated t-test is not applicable: protocol holdout_cv tests every "
               "task on the same test part" in line for line in lines)
    out = csv_rows([folder])
    assert set(out["test"]) == {"signed-rank"}


def test_random_split_rho_comes_from_the_stored_sizes(tmp_path):
    rng = np.random.default_rng(6)
    scores = {(d, a): rng.uniform(70, 90, (6, 1)) for d in ("d1", "d2") for a in ("A", "B")}
    folder = write_experiment(tmp_path / "exp", scores, {"name": "random_split",
                                                         "train_size": 0.9, "repeats": 6})
    out = csv_rows([folder, "--rope", "0.5"])
    runs = pd.read_csv(folder / "runs.csv")
    for r in out[out["test"] == "correlated-t"].itertuples():
        assert r.rho == pytest.approx(9 / 90)  # n_test / (n_train + n_prune + n_test)
        a = runs[(runs.dataset == r.dataset) & (runs.algorithm == "A")].test_accuracy
        b = runs[(runs.dataset == r.dataset) & (runs.algorithm == "B")].test_accuracy
        assert (r.p_better, r.p_rope, r.p_worse) == pytest.approx(
            closed_form(a, b, 0.5, 0.1), abs=1e-10)


@pytest.mark.parametrize("args, message", [
    (["--bayes", "--rope", "-1"], "--rope must be a number >= 0"),
    (["--rope", "1"], "--rope goes with --bayes"),
    (["--bayes", "--metric", "no_such_metric"], "no_such_metric"),
])
def test_bad_options_are_one_line(tmp_path, args, message):
    scores = {(d, a): np.full((1, 2), 80.0) for d in ("d1", "d2") for a in ("A", "B")}
    folder = write_experiment(tmp_path / "exp", scores, {"name": "kfold", "folds": 2})
    result, lines = invoke(["stats", folder, *args])
    assert result.exit_code == 2
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("error: ")


def test_one_algorithm_is_an_error(tmp_path):
    scores = {(d, "A"): np.full((1, 2), 80.0) for d in ("d1", "d2")}
    folder = write_experiment(tmp_path / "exp", scores, {"name": "kfold", "folds": 2})
    result, lines = invoke(["stats", folder, "--bayes"])
    assert result.exit_code == 2 and len(lines) == 1
    assert "needs at least 2 algorithms" in lines[0]


# --- on our stored scores: a real tiny experiment ----------------------------------------

TINY = """
name: tiny-bayes
seed: 4
datasets: [test-iris, {{name: test-wine, label: wine2, params: {{classes: 2}}}},
           {{name: test-wine, label: wine3}}]
algorithms:
  - name: test-tree
    label: PRUNED
    pruner: {{name: test-prune, params: {{max_depth: 2}}}}
  - name: test-tree
    label: FULL
  - name: test-tree
    label: STUMP
    params: {{max_depth: 1}}
protocol: {{name: kfold, folds: 3, repeats: 2, prune_fraction: 0.2}}
output: {out}
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("bayes")
    path = root / "tiny.yaml"
    out = root / "results" / "tiny-bayes"
    path.write_text(TINY.format(out=out))
    summary = run_experiment(load_config(path), progress=False)
    assert not summary.failed and summary.ran == 3 * 3 * 6
    return out


@pytest.mark.slow
def test_stored_scores_equal_baycomp_called_directly(tiny):
    import baycomp

    out = csv_rows([tiny, "--rope", "0.5"])
    runs = pd.read_csv(tiny / "runs.csv")
    means = runs.groupby(["dataset", "algorithm"])["test_accuracy"].mean().unstack()
    signed = out[out["test"] == "signed-rank"]
    assert [tuple(p) for p in signed[["algorithm", "versus"]].to_numpy()] == [
        ("PRUNED", "FULL"), ("PRUNED", "STUMP"), ("FULL", "STUMP")]
    for r in signed.itertuples():
        seed = pair_seed(4, r.algorithm, r.versus)
        assert r.seed == seed
        expected = baycomp.SignedRankTest.probs(
            means[r.algorithm].to_numpy(), means[r.versus].to_numpy(), 0.5,
            random_state=seed)
        assert (r.p_better, r.p_rope, r.p_worse) == pytest.approx(expected, abs=1e-12)
        assert r.n == 3
        decided = max(r.p_better, r.p_rope, r.p_worse) > DECISION
        assert (r.verdict != "undecided") == decided
    per_dataset = out[out["test"] == "correlated-t"]
    assert len(per_dataset) == 3 * 3
    for r in per_dataset.itertuples():
        part = runs[runs.dataset == r.dataset].sort_values(["repetition", "fold"])
        x = part[part.algorithm == r.algorithm]["test_accuracy"].to_numpy()
        y = part[part.algorithm == r.versus]["test_accuracy"].to_numpy()
        expected = baycomp.CorrelatedTTest.probs(x, y, 0.5, runs=2)
        assert (r.p_better, r.p_rope, r.p_worse) == pytest.approx(expected, abs=1e-12)
        assert (r.n, r.repetitions, r.rho) == (6, 2, pytest.approx(1 / 3))
        assert r.verdict == ("win" if r.p_better > DECISION else
                             "loss" if r.p_worse > DECISION else "tie")


@pytest.mark.slow
def test_error_gives_the_accuracys_probabilities(tiny):
    """test_error = 100 - accuracy with lower better: the same comparisons, so the same
    probabilities from the same seeded draws."""
    accuracy = csv_rows([tiny, "--rope", "0.5"])
    error = csv_rows([tiny, "--rope", "0.5", "--metric", "test_error"])
    columns = ["p_better", "p_rope", "p_worse"]
    np.testing.assert_allclose(error[columns], accuracy[columns], atol=1e-9)
    np.testing.assert_allclose(error["mean_difference"], -accuracy["mean_difference"],
                               atol=1e-9)


@pytest.mark.slow
def test_markdown_output_is_reproducible_and_complete(tiny):
    first, lines = invoke(["stats", tiny, "--bayes"])
    second, _ = invoke(["stats", tiny, "--bayes"])
    assert first.exit_code == 0 and first.output == second.output
    text = first.output
    assert "rope) of 1 in the metric's units" in text
    assert "Friedman chi2_F" in text and "Iman-Davenport F_F" in text
    assert "rho = n_test / n_total = 0.333333" not in text  # rounded to 4 places
    assert "rho = n_test / n_total = 0.3333" in text
    header = next(line for line in lines if line.startswith("| algorithm"))
    assert "P(better)" in header and "P(rope)" in header and "P(worse)" in header
    assert sum(line.startswith("| PRUNED ") or line.startswith("| FULL ")
               for line in lines) >= 3


def test_api_gives_the_commands_frame(tiny):
    import obliq_cli

    frame = obliq_cli.load_results(tiny).stats(bayes=True, rope=0.5, frame=True)
    printed = csv_rows([tiny, "--rope", "0.5"])
    assert list(frame.columns) == list(printed.columns)
    np.testing.assert_allclose(frame["p_better"].astype(float), printed["p_better"])


@pytest.mark.slow
def test_plot_bayes_draws_every_pair_and_saves_the_same_bytes(tiny, tmp_path):
    from obliq_cli.analysis.bayes import probability_matrix, signed_rank_pairs
    from obliq_cli.report.plots import plot_bayes_matrix

    scores = pd.DataFrame({"A": [80.0, 70.0, 90.0], "B": [79.0, 75.0, 85.0],
                           "C": [60.0, 65.0, 70.0]}, index=["d1", "d2", "d3"])
    pairs = signed_rank_pairs(scores, True, 1.0, seed=0, samples=2000)
    better, rope, worse = probability_matrix(pairs, ["A", "B", "C"])
    # the mirror cell swaps better and worse
    assert better[1, 0] == worse[0, 1] and worse[2, 0] == better[0, 2]
    assert np.isnan(better[0, 0])
    fig = plot_bayes_matrix(["A", "B", "C"], better, rope, worse, title="t")
    texts = {t.get_gid(): t.get_text() for t in fig.axes[0].texts}
    assert texts["bayes-0-2"] == (f"better {better[0, 2]:.2f}\nrope {rope[0, 2]:.2f}\n"
                                  f"worse {worse[0, 2]:.2f}")
    assert texts["bayes-1-1"] == "—"
    for name in ("one", "two"):
        result, lines = invoke(["plot", "bayes", tiny, "-o", tmp_path / name])
        assert result.exit_code == 0, result.output
    for ext in ("png", "svg"):
        assert (tmp_path / f"one.{ext}").read_bytes() == (tmp_path / f"two.{ext}").read_bytes()


@pytest.mark.slow
def test_baycomp_is_imported_only_for_a_bayesian_analysis():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = ("import sys, obliq_cli.report.bayes, obliq_cli.cli; "
            "print('baycomp' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=root, env={"PYTHONPATH": str(root), "PATH": "/usr/bin"},
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.slow
def test_one_algorithm_in_one_of_several_experiments_is_a_note(tmp_path):
    rng = np.random.default_rng(8)
    write_experiment(tmp_path / "all" / "solo", {(d, "A"): rng.uniform(70, 90, (1, 2))
                                                 for d in ("d1", "d2")},
                     {"name": "kfold", "folds": 2}, name="solo")
    write_experiment(tmp_path / "all" / "pair", {(d, a): rng.uniform(70, 90, (1, 2))
                                                 for d in ("d1", "d2") for a in "AB"},
                     {"name": "kfold", "folds": 2}, name="pair")
    result, lines = invoke(["stats", tmp_path / "all", "--bayes"])
    assert result.exit_code == 0, result.output
    assert any("solo: the Bayesian comparison needs at least 2 algorithms" in line
               for line in lines)
    out = csv_rows([tmp_path / "all"])
    assert set(out["experiment"]) == {"pair"}


@pytest.mark.slow
def test_the_order_of_runs_csv_rows_changes_nothing(tiny, tmp_path):
    """With -j the rows arrive in any order; the signed-rank draws are handed to the
    datasets in name order, so the probabilities stay the same."""
    import shutil

    copy = tmp_path / "shuffled"
    shutil.copytree(tiny, copy)
    runs = pd.read_csv(copy / "runs.csv", dtype=str, keep_default_na=False)
    runs.iloc[::-1].to_csv(copy / "runs.csv", index=False)
    assert pd.read_csv(copy / "runs.csv")["dataset"].iloc[0] == "wine3"
    assert csv_rows([copy, "--rope", "0.5"]).equals(csv_rows([tiny, "--rope", "0.5"]))


# --- how many datasets the posterior rests on -----------------------------------------------

def shifted_experiment(tmp_path, n_datasets, name="exp"):
    """A beats B by 3 points on every one of ``n_datasets`` datasets (5 x 2-fold CV)."""
    rng = np.random.default_rng(3)
    scores = {}
    for i in range(n_datasets):
        base = rng.normal(80, 1, (5, 2))
        scores[(f"d{i}", "A")], scores[(f"d{i}", "B")] = base + 3, base
    return write_experiment(tmp_path / name, scores,
                            {"name": "kfold", "folds": 2, "repeats": 5})


def test_the_bayesian_text_states_its_datasets_and_warns_below_five(tmp_path):
    three = shifted_experiment(tmp_path, 3, "three")
    result, lines = invoke(["stats", three, "--bayes"])
    assert result.exit_code == 0, result.output
    assert "over the datasets both algorithms have results on (N = 3 datasets)" in \
        result.output
    # the case: three datasets that agree give "better", and now a caveat
    row = next(line for line in lines if line.startswith("| A "))
    assert "| better " in row
    warnings = [line for line in lines if line.startswith("⚠ the posterior rests on too few")]
    assert warnings == [
        "⚠ the posterior rests on too few datasets (3; fewer than 5): a few datasets that "
        "agree can push a probability past 0.95, so read it as a description of these "
        "datasets, not as evidence about others"]
    five = shifted_experiment(tmp_path, 5, "five")
    result, lines = invoke(["stats", five, "--bayes"])
    assert "(N = 5 datasets)" in result.output
    assert "too few datasets" not in result.output


def test_datasets_text_and_warning_read_the_tested_pairs():
    from obliq_cli.report.bayes import datasets_text, few_datasets_warning

    pairs = pd.DataFrame({"n_datasets": [7, 4, 1]})  # the pair on 1 dataset has no test
    assert datasets_text(pairs) == ("N = 4 to 7 datasets (each pair over those both have "
                                    "results on)")
    assert few_datasets_warning(pairs).startswith("⚠ the posterior rests on too few "
                                                  "datasets (4; fewer than 5)")
    assert datasets_text(pairs.iloc[[0]]) == "N = 7 datasets"
    assert few_datasets_warning(pairs.iloc[[0]]) == ""
    assert datasets_text(pairs.iloc[[2]]) == "no pair sharing 2 datasets"
    assert few_datasets_warning(pairs.iloc[[2]]) == ""


def test_the_bayesian_figure_caption_states_its_datasets(tmp_path):
    from obliq_cli.analysis.aggregate import load_results
    from obliq_cli.report.html_report import bayes_figure

    runs, metas = load_results(shifted_experiment(tmp_path, 3))
    fig, pairs, _ = bayes_figure(runs, metas[0])
    assert fig.obliq_note.startswith("Signed-rank posterior over N = 3 datasets. ⚠ the "
                                     "posterior rests on too few datasets (3; fewer than 5)")
    # the same line under the picture, where a saved file carries it
    assert fig._supxlabel.get_text().replace("\n", " ") == fig.obliq_note
