"""The benchmark's committed summary (leaderboard.py via summary.summarize) and the README
block rendered from it, on a small real piece of the shipped config ``benchmark``:
checked against ``obliq stats --bayes`` on the same folder and against rankings
computed here from runs.csv with scipy."""

import io
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from obliq_cli.cli import main
from tools import docs, leaderboard
from tools.summary import summarize

# FDT runs on two-class sets only (a declared skip rule): iris is a skipped cell, so the
# "all" ranking has heart and pima, the "everywhere" ranking the other three on all three
DATASETS = "iris,heart,pima"
ALGORITHMS = "CART-AP,C4.5,FDT,RF"
BLOCK = "<!-- obliq benchmark: begin -->\n<!-- obliq benchmark: end -->"


def invoke(args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def piece(tmp_path_factory):
    """(results folder, summary folder) of the piece, summarised once."""
    root = tmp_path_factory.mktemp("bench")
    results = root / "benchmark"
    invoke(["run", "benchmark", "--datasets", DATASETS, "--algorithms", ALGORITHMS,
            "-o", results, "-j", "1", "--no-progress"])
    out = root / "summary"
    written = summarize([results], out, today="2026-01-02", partial=False)
    assert written == ["benchmark"]
    return results, out


def _means(results: Path) -> pd.DataFrame:
    """Each dataset's mean test accuracy per algorithm, from runs.csv by pandas alone:
    the mean over each repetition's folds, then over the repetitions."""
    runs = pd.read_csv(results / "runs.csv")
    runs = runs[runs["status"] == "ok"]
    reps = runs.groupby(["dataset", "algorithm", "repetition"])["test_accuracy"].mean()
    return reps.groupby(["dataset", "algorithm"]).mean().unstack("algorithm")


@pytest.mark.slow
def test_files_and_skip_reasons(piece):
    results, out = piece
    folder = out / "benchmark"
    for name in (*leaderboard.FILES, *leaderboard.FIGURES):
        assert (folder / name).is_file(), name
    assert not (folder / "run.csv").exists()  # not mistaken for a paper config
    scores = pd.read_csv(folder / "scores.csv", keep_default_na=False)
    fdt_iris = scores[(scores["dataset"] == "iris") & (scores["algorithm"] == "FDT")]
    assert fdt_iris["note"].item().startswith("two-class method")
    assert fdt_iris["accuracy_mean"].item() == ""
    means = _means(results)
    got = scores[scores["accuracy_mean"] != ""].set_index(["dataset", "algorithm"])
    for (d, a), row in got.iterrows():
        assert float(row["accuracy_mean"]) == pytest.approx(means.at[d, a], abs=1e-4)
    assert len(got) == 11  # 3 x 4 cells, less FDT on iris
    facts = docs.read_summary(out).benchmarks["benchmark"]["facts"]
    assert facts["tasks_ok"] == "110" and facts["complete"] == "false"
    assert int(facts["config_tasks"]) > 7000  # the whole config, not the piece
    assert facts["datasets"] == "3" and facts["config_datasets"] == "41"


@pytest.mark.slow
def test_rankings_match_scipy(piece):
    results, out = piece
    means = _means(results)
    ranks = pd.read_csv(out / "benchmark" / "ranks.csv")
    friedman = pd.read_csv(out / "benchmark" / "friedman.csv", keep_default_na=False)
    for scope, table in (("all", means.dropna()),
                         ("everywhere", means.drop(columns="FDT"))):
        expected = pd.Series(stats.rankdata(-table.to_numpy(), axis=1).mean(axis=0),
                             index=table.columns)
        mine = ranks[ranks["scope"] == scope].set_index("algorithm")["mean_rank"]
        assert set(mine.index) == set(table.columns)
        for a in table.columns:
            assert mine[a] == pytest.approx(expected[a], abs=1e-4)
        assert list(mine) == sorted(mine)  # best first
        row = friedman[friedman["scope"] == scope].iloc[0]
        assert int(row["n_datasets"]) == len(table) and int(row["k"]) == table.shape[1]
        ties = any(len(set(r)) < len(r) for r in table.to_numpy())
        if not ties:  # scipy's tie correction is then 1: the same chi2
            chi2 = stats.friedmanchisquare(*table.to_numpy().T).statistic
            assert float(row["chi2"]) == pytest.approx(chi2, abs=1e-4)
    assert friedman.set_index("scope").at["all", "left_out"] == "iris"
    assert friedman.set_index("scope").at["everywhere", "left_out"] == "FDT"


@pytest.mark.slow
def test_pairs_are_obliq_stats_bayes(piece):
    results, out = piece
    csv = invoke(["stats", results, "--bayes", "--format", "csv"])
    theirs = pd.read_csv(io.StringIO(csv))
    theirs = theirs[theirs["test"] == "signed-rank"].set_index(["algorithm", "versus"])
    mine = pd.read_csv(out / "benchmark" / "pairs.csv").set_index(["algorithm", "versus"])
    assert set(mine.index) == set(theirs.index) and len(mine) == 6
    for key, row in mine.iterrows():
        for column in ("p_better", "p_rope", "p_worse", "mean_difference"):
            assert row[column] == pytest.approx(theirs.at[key, column], abs=1e-4), key
        assert row["decision"] == theirs.at[key, "verdict"]
        assert row["n_datasets"] == theirs.at[key, "n"]
    # win/tie/loss beyond the rope (1 point), recounted from the dataset means
    means = _means(results)
    for (a, b), row in mine.iterrows():
        gain = (means[a] - means[b]).dropna()
        assert (row["wins"], row["ties"], row["losses"]) == (
            int((gain > 1).sum()), int((gain.abs() <= 1).sum()), int((gain < -1).sum()))


@pytest.mark.slow
def test_summary_bytes_are_deterministic(piece, tmp_path):
    results, out = piece
    again = tmp_path / "again"
    summarize([results], again, today="2026-01-02")
    for name in (*leaderboard.FILES, *leaderboard.FIGURES):
        assert (again / "benchmark" / name).read_bytes() == \
            (out / "benchmark" / name).read_bytes(), name
    assert b"<dc:date>" not in (out / "benchmark" / "bayes.svg").read_bytes()


@pytest.mark.slow
def test_block_renders_a_labelled_partial_summary(piece):
    _, out = piece
    summary = docs.read_summary(out)
    text = docs.render(BLOCK, summary)
    assert "**Not yet run in full: this is a partial summary, not the result**" in text
    assert "110 of at most" in text
    ranks = pd.read_csv(out / "benchmark" / "ranks.csv")
    order = list(ranks[ranks["scope"] == "all"]["algorithm"])
    rows = [line.split("|")[2].strip() for line in text.splitlines()
            if line.startswith("| ") and line.split("|")[1].strip().isdigit()]
    assert rows == order
    assert f"]({out}/benchmark/cd_all.svg)" in text
    assert docs.stale(text, summary) == []


@pytest.mark.slow
def test_reading_sentences_come_from_the_numbers(piece):
    _, out = piece
    bench = docs.read_summary(out).benchmarks["benchmark"]
    text = leaderboard.benchmark_block(bench, "benchmark", "docs/results",
                                       methods=("FDT",), references=("RF",))
    ranks = pd.read_csv(out / "benchmark" / "ranks.csv")
    scope = ranks[ranks["scope"] == "all"].reset_index(drop=True)
    mine = scope.loc[scope["algorithm"] == "FDT", "mean_rank"].item()
    place = 1 + int((scope["mean_rank"] < mine).sum())  # equal mean ranks share a place
    assert f"- FDT ranks {place} of 4 " in text
    pairs = pd.read_csv(out / "benchmark" / "pairs.csv")
    pair = pairs[(pairs["algorithm"] == "FDT") & (pairs["versus"] == "RF")]
    if pair.empty:  # stored from RF's side: FDT's P(better) is RF's P(worse)
        pair = pairs[(pairs["algorithm"] == "RF") & (pairs["versus"] == "FDT")]
        p_better = float(pair["p_worse"].item())
    else:
        p_better = float(pair["p_better"].item())
    assert f"P(FDT better than RF) = {p_better:.2f}" in text


@pytest.mark.slow
def test_a_changed_number_is_caught(piece, tmp_path):
    _, out = piece
    text = docs.render(BLOCK, docs.read_summary(out))
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    ranks_csv = copy / "benchmark" / "ranks.csv"
    ranks = pd.read_csv(ranks_csv)
    ranks.loc[0, "mean_rank"] = ranks.loc[0, "mean_rank"] + 0.5
    ranks.to_csv(ranks_csv, index=False)
    summary = docs.read_summary(copy)
    summary.where = str(out)  # the same image paths: only the number differs
    assert docs.stale(text, summary) == ["block <!-- obliq benchmark -->"]


def test_no_summary_says_not_yet_run(tmp_path):
    (tmp_path / "empty").mkdir()
    text = docs.render(BLOCK, docs.read_summary(tmp_path / "empty"))
    assert "Not yet run: docs/results holds no summary of `benchmark`" in text


@pytest.mark.slow
def test_paper_baselines_are_read_from_the_paper_configs(piece):
    results, _ = piece
    import json

    meta = json.loads((results / "meta.json").read_text())
    table = leaderboard.paper_baselines(meta)
    of = {m: set(table.loc[table["method"] == m, "baseline"]) for m in table["method"]}
    # hhcart_uci.yaml runs OC1, OC1-AP and OC1-LC beside HHCART(A); umt_multiclass.yaml
    # C4.5 and LDT beside UMT(OVO), the benchmark's UMT
    assert {"OC1", "OC1-AP", "OC1-LC"} <= of["HHCART(A)"]
    assert {"C4.5", "LDT"} <= of["UMT"]
    assert not any("RF" in b or "sklearn CART-CCP" in b for b in of.values())
    assert not any(m in b for m in leaderboard.PAPER_METHODS for b in of.values())
    assert all(not c.startswith("ablation_") for cs in table["configs"]
               for c in cs.split("; "))


@pytest.mark.slow
def test_reading_against_own_baselines(piece):
    _, out = piece
    bench = docs.read_summary(out).benchmarks["benchmark"]
    bench = dict(bench, baselines=pd.DataFrame([["FDT", "C4.5", "x"], ["FDT", "RF", "y"]],
                                               columns=leaderboard.BASELINE_COLUMNS))
    text = leaderboard.benchmark_block(bench, "benchmark", "docs/results",
                                       methods=("FDT",), references=("CART-AP",))
    pairs = bench["pairs"]
    decided = leaderboard._decided(pairs, "FDT")
    worse = [b for b in ("C4.5", "RF") if b in decided["worse"]]
    better = [b for b in ("C4.5", "RF") if b in decided["better"]]
    assert (f"against its paper's baselines (C4.5 and RF) it is decided better than "
            f"{leaderboard._names_text(better)} and worse than "
            f"{leaderboard._names_text(worse)}") in text
    assert "| FDT      | C4.5     | its paper (x)" in text
    held = "FDT" if len(better) == 2 else "none"
    assert f"paper outside that paper: {held};" in text


@pytest.mark.slow
def test_figures_are_redrawn_from_the_committed_numbers(piece, tmp_path):
    _, out = piece
    assert leaderboard.stale_figures(out / "benchmark") == []
    copy = tmp_path / "copy"
    shutil.copytree(out / "benchmark", copy)
    pairs = pd.read_csv(copy / "pairs.csv")
    pairs.loc[0, ["p_better", "p_worse"]] = pairs.loc[0, ["p_worse", "p_better"]].to_numpy()
    pairs.to_csv(copy / "pairs.csv", index=False)
    assert leaderboard.stale_figures(copy) == ["bayes.svg"]
    (copy / "cd_all.svg").unlink()
    assert leaderboard.stale_figures(copy) == ["cd_all.svg", "bayes.svg"]


def test_equal_mean_ranks_share_a_place():
    ranking = pd.DataFrame({"mean_rank": ["1.5", "2.25", "2.25", "4.0", "4.0", "6"]})
    assert leaderboard._places(ranking) == [1, 2, 2, 4, 4, 6]
