"""obliq claims: the papers' claims as data, one evaluator, verdicts on hand-built results.

The results are written here by hand in the runner's layout (as tests/report/test_agree.py does),
with per-fold numbers chosen so that every test's outcome is known without running it:

- B scores 70 + (0, 1, 2) on the folds of each repetition (mean 71);
- A = B + WIN on a dataset it wins (10 + (1, -1, 0) then 10 + (0.5, -0.5, 0): mean 10 with
  a small spread, so the paired t-test rejects), + TIE where it ties ((1, -1, 0) then
  (2, -2, 0): mean 0, t = 0, p = 1), - WIN where it loses;
- C = A - WIN on d1 and = A - TIE elsewhere.

Every number is a sum of halves, exact in binary, so equal means are equal.
"""

import io
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from obliq_cli.analysis.aggregate import each_experiment, load_results
from obliq_cli.analysis.claims import (
    CSV_COLUMNS,
    FAILS,
    HOLDS,
    PARTLY,
    UNTESTABLE,
    RunNumbers,
    TableNumbers,
    check_claims,
    claim_metrics,
    evaluate_on,
    parse_claim,
    read_claims,
    shipped_claims,
)
from obliq_cli.analysis.stats import TESTS
from obliq_cli.cli import main
from obliq_cli.errors import ObliqError
from obliq_cli.experiment.schema import RUN_COLUMNS
from obliq_cli.report.claims import render_claims
from obliq_cli.resources import shipped_path

WIN = (11.0, 9.0, 10.0, 10.5, 9.5, 10.0)
TIE = (1.0, -1.0, 0.0, 2.0, -2.0, 0.0)
LOSS = tuple(-v for v in WIN)
B_SCORES = (70.0, 71.0, 72.0, 70.0, 71.0, 72.0)      # (repetition, fold) in order
A_VS_B = {"d1": WIN, "d2": WIN, "d3": TIE, "d4": LOSS}   # A: 2 wins, 1 tie, 1 loss
A_VS_C = {"d1": WIN, "d2": TIE, "d3": TIE, "d4": TIE}    # A: 1 win, 3 ties
# leaves per repetition: A (4, 6) has mean 5 and sd sqrt(2); B (10, 10); C smaller than A
# on d1 only
LEAVES = {"A": {d: (4, 6) for d in A_VS_B}, "B": {d: (10, 10) for d in A_VS_B},
          "C": {"d1": (3, 3), "d2": (8, 8), "d3": (8, 8), "d4": (8, 8)}}
FIT_CPU = {"A": 0.125, "B": 1.0, "C": 0.0625}            # A / B = 1/8, A / C = 2
# wall seconds = CPU seconds x this: A ran beside other work, so its wall times say A / B
# = 1/2 and A / C = 8, and a speed claim read from them would get other verdicts
WALL_PER_CPU = {"A": 4.0, "B": 1.0, "C": 1.0}


def accuracy(dataset: str, algorithm: str, k: int) -> float:
    b = B_SCORES[k]
    a = b + A_VS_B[dataset][k]
    return {"A": a, "B": b, "C": a - A_VS_C[dataset][k]}[algorithm]


def rates(accuracy: float) -> list[float]:
    """Per-class rates that order the algorithms as accuracy does (class 0) and the other
    way round (class 1); x / 128 keeps them exact, so equal means stay equal."""
    return [accuracy / 128, 1 - accuracy / 128]


def write_experiment(directory: Path, name="e", repetitions=2, folds=3,
                     fit_time=True, fit_cpu=True, first_task_slower=1.0) -> Path:
    """The results described above; ``fit_cpu=False`` leaves that column blank, as a
    folder written before it has none; ``first_task_slower`` multiplies both times of
    A's first task (repetition 0, fold 0) of every dataset."""
    directory.mkdir(parents=True)
    rows = []
    for dataset in A_VS_B:
        for algorithm in ("A", "B", "C"):
            for repetition in range(repetitions):
                for fold in range(folds):
                    k = (repetition * folds + fold) % 6
                    leaves = LEAVES[algorithm][dataset][repetition % 2]
                    cpu = FIT_CPU[algorithm] * (first_task_slower if algorithm == "A"
                                                and repetition == fold == 0 else 1.0)
                    row = dict.fromkeys(RUN_COLUMNS, "")
                    row.update(task="", config_hash="h", dataset=dataset,
                               repetition=repetition, fold=fold, algorithm=algorithm,
                               algorithm_name="x", status="ok", n_train=40, n_prune=0,
                               n_test=50, test_accuracy=accuracy(dataset, algorithm, k),
                               train_accuracy=100.0, n_leaves=leaves, n_internal=leaves - 1,
                               depth=2,
                               fit_time=cpu * WALL_PER_CPU[algorithm] if fit_time else "",
                               fit_cpu=cpu if fit_cpu else "", predict_time=0.01, classes="[0, 1]",
                               tpr=json.dumps(rates(accuracy(dataset, algorithm, k))),
                               tnr="[]", confusion="[]")
                    rows.append(row)
    pd.DataFrame(rows, columns=RUN_COLUMNS).to_csv(directory / "runs.csv", index=False)
    config = {"name": name, "algorithms": [{"label": a} for a in "ABC"],
              "datasets": [{"label": d} for d in A_VS_B],
              "protocol": {"name": "kfold", "folds": folds, "repeats": repetitions}}
    (directory / "meta.json").write_text(json.dumps({"name": name, "reference": None,
                                                     "config": config, "history": []}))
    return directory


def claim(id, kind, **fields) -> dict:
    return {"id": id, "section": "§1", "quote": f"claim {id}", "experiment": "e",
            "kind": kind, **fields}


# (claim, verdict, (wins, ties, losses, n)) with the counts worked out by hand above
CASES = [
    # A vs B and C by the paired t: better than both on d1 only, worse than B on d4
    (claim("net", "significantly_better_count", algorithm="A", versus=["B", "C"],
           metric="test_accuracy", test="t"), PARTLY, (1, 2, 1, 4)),
    (claim("vs-c", "significantly_better_count", algorithm="A", versus="C",
           metric="test_accuracy", test="t"), HOLDS, (1, 3, 0, 4)),
    # the paper won 2 of 4: ours 1 of 4 is short of its share, though wins > losses
    (claim("short", "significantly_better_count", algorithm="A", versus="C",
           metric="test_accuracy", test="t", paper_counts={"wins": 2, "of": 4}),
     PARTLY, (1, 3, 0, 4)),
    (claim("c-vs-a", "significantly_better_count", algorithm="C", versus="A",
           metric="test_accuracy", test="t"), FAILS, (0, 3, 1, 4)),
    # at least as good: 1 loss, 1 win; with over all no loss is allowed, vs C alone none
    (claim("good", "at_least_as_good", algorithm="A", versus=["B", "C"],
           metric="test_accuracy", test="t"), HOLDS, (1, 2, 1, 4)),
    (claim("good-all", "at_least_as_good", algorithm="A", versus=["B", "C"],
           metric="test_accuracy", test="t", over="all"), PARTLY, (1, 2, 1, 4)),
    # B loses to A on d1 and d2 and wins d4: 2 of 4 lost, more than the paper's 1 of 4
    (claim("b-good", "at_least_as_good", algorithm="B", versus="A", metric="test_accuracy",
           test="t", paper_counts={"losses": 1, "of": 4}), FAILS, (1, 1, 2, 4)),
    # ... but within a paper that lost 2 of 4 and still called it as good
    (claim("b-paper", "at_least_as_good", algorithm="B", versus="A", metric="test_accuracy",
           test="t", paper_counts={"losses": 2, "of": 4}), HOLDS, (1, 1, 2, 4)),
    # means: A smaller than B everywhere, than C on 3 of 4
    (claim("smaller", "better_means", algorithm="A", versus="B", metric="n_leaves",
           over="all"), HOLDS, (4, 0, 0, 4)),
    # over all asks for every dataset: 3 of 4 is short of it, but wins > losses
    (claim("smaller-c-all", "better_means", algorithm="A", versus="C", metric="n_leaves",
           over="all"), PARTLY, (3, 0, 1, 4)),
    (claim("smaller-c-most", "better_means", algorithm="A", versus="C", metric="n_leaves",
           over="most"), HOLDS, (3, 0, 1, 4)),
    # two metrics: A vs B more accurate on d1, d2 and smaller everywhere: wins d1, d2
    (claim("both", "better_means", algorithm="A", versus="B",
           metric=["test_accuracy", "n_leaves"], over="all"), PARTLY, (2, 1, 1, 4)),
    # sd rules on leaves: gap 5, A's sd sqrt(2) = 1.414, B's 0
    (claim("gap2", "significantly_better_count", algorithm="A", versus="B",
           metric="n_leaves", test="sd_gap", sds=2, paper_counts={"wins": 4, "of": 4}),
     HOLDS, (4, 0, 0, 4)),
    (claim("gap4", "significantly_better_count", algorithm="A", versus="B",
           metric="n_leaves", test="sd_gap", sds=4), FAILS, (0, 4, 0, 4)),
    (claim("intervals", "significantly_better_count", algorithm="A", versus="B",
           metric="n_leaves", test="sd_intervals", sds=1, datasets=["d2", "d3"]),
     HOLDS, (2, 0, 0, 2)),
    # sd of the difference sqrt(2 + 0) = 1.414: 3 of them (4.24) are below the gap 5
    (claim("diff3", "significantly_better_count", algorithm="A", versus="B",
           metric="n_leaves", test="sd_difference", sds=3), HOLDS, (4, 0, 0, 4)),
    # against each alone: vs B 2/1/1, vs C 1/3/0, both net wins; against both at once
    # d1 is the one win and d4 the one loss (PARTLY, as "net" first above)
    (claim("each", "better_means", algorithm="A", versus=["B", "C"],
           metric="test_accuracy", against="each"), HOLDS, (2, 0, 0, 2)),
    # with leaves too: vs B d1, d2 won, d3 tied, d4 lost; vs C smaller but as accurate on
    # d2-d4 and larger on d1: 0/3/1, so one pair of two
    (claim("each-both", "better_means", algorithm="A", versus=["B", "C"],
           metric=["test_accuracy", "n_leaves"], against="each"), PARTLY, (1, 0, 1, 2)),
    # average ranks of accuracy: A 1.75, B 2.125, C 2.125
    (claim("rank", "rank_above", algorithm="A", versus=["B", "C"], metric="test_accuracy"),
     HOLDS, (2, 0, 0, 2)),
    (claim("rank-partly", "rank_above", algorithm=["A", "B"], versus="C",
           metric="test_accuracy"), PARTLY, (1, 0, 1, 2)),
    (claim("rank-b", "rank_above", algorithm="B", versus=["A", "C"], metric="test_accuracy"),
     FAILS, (0, 0, 2, 2)),
    # each dataset its own metric (the HHCART paper's minority-class TPR): tpr:1 orders as
    # accuracy, tpr:2 reverses it. d1: A 1, B 2.5, C 2.5; d2 (tpr:2): B 1, A 2.5, C 2.5;
    # d4: B 1, A 2.5, C 2.5; average ranks B 1.5, A 2.0, C 2.5
    (claim("rank-tpr", "rank_above", algorithm="B", versus=["A", "C"],
           metric={"d1": "tpr:1", "d2": "tpr:2", "d4": "tpr:1"}), HOLDS, (2, 0, 0, 2)),
    # fit times: A / B = 0.125 (faster by a factor of 8), A / C = 2. Factor 4: 0.125 is
    # below 0.25 / 1.25 = 0.2, clear of timing noise (TIME_NOISE); factor 8: 0.125 is the
    # bound itself, a tie on every dataset, so partly whichever side the next run puts it
    (claim("fast", "faster", algorithm="A", versus="B", factor=4), HOLDS, (4, 0, 0, 4)),
    (claim("at-bound", "faster", algorithm="A", versus="B", factor=8), PARTLY, (0, 4, 0, 4)),
    # factor 6.5: bound 0.154, 0.125 within its noise (0.123-0.192): a tie, partly
    (claim("near-bound", "faster", algorithm="A", versus="B", factor=6.5), PARTLY,
     (0, 4, 0, 4)),
    # factor 6: bound 0.167, 0.125 below 0.167 / 1.25 = 0.133: clear, holds
    (claim("clear-bound", "faster", algorithm="A", versus="B", factor=6), HOLDS, (4, 0, 0, 4)),
    (claim("slow", "faster", algorithm="A", versus="C"), FAILS, (0, 0, 4, 4)),
    (claim("twice", "time_ratio", algorithm="A", versus=["B", "C"], between=[1.5, 3]),
     PARTLY, (4, 0, 4, 8)),
]


@pytest.fixture
def results(tmp_path):
    write_experiment(tmp_path / "results" / "e")
    return tmp_path / "results"


def claims_file(tmp_path, entries, paper="P", name="p.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"paper": paper, "claims": entries}, sort_keys=False))
    return path


def by_id(outcomes):
    return {o.claim.id: o for o in outcomes}


def test_every_verdict_and_count_is_the_hand_worked_one(results, tmp_path):
    path = claims_file(tmp_path, [c for c, _, _ in CASES])
    outcomes = by_id(check_claims([results], [path]))
    for entry, verdict, counts in CASES:
        o = outcomes[entry["id"]]
        assert (o.verdict, (o.wins, o.ties, o.losses, o.n)) == (verdict, counts), entry["id"]


def test_a_runs_own_means_as_a_table_give_the_runs_verdicts(results):
    """One evaluator reads runs (RunNumbers) and tables of means (TableNumbers, a paper's
    own): the runs' means and sds handed over as a table give the same verdict, counts and
    evidence for every claim that needs neither folds nor fit times."""
    runs, metas = load_results([results])
    (meta, part, _), = each_experiment(runs, metas)
    on_runs = RunNumbers("e", meta, part[part["status"] == "ok"])
    compared = 0
    for entry, _, _ in CASES:
        c = parse_claim(entry, "P", "test")
        if c.test in TESTS or c.kind in ("time_ratio", "faster"):
            continue
        rows = [on_runs.summary(m).assign(metric=m) for m in claim_metrics(c)]
        table = TableNumbers("e", pd.concat(rows), on_runs.datasets())
        a, b = evaluate_on(c, on_runs), evaluate_on(c, table)
        assert (a.verdict, a.wins, a.ties, a.losses, a.n, a.evidence) == (
            b.verdict, b.wins, b.ties, b.losses, b.n, b.evidence), c.id
        compared += 1
    assert compared == 14


def test_evidence_says_counts_test_and_paper_in_one_line(results, tmp_path):
    path = claims_file(tmp_path, [c for c, _, _ in CASES])
    outcomes = by_id(check_claims([results], [path]))
    net = outcomes["net"].evidence
    assert "\n" not in net
    assert net.startswith("A better than each of B, C on 1 of 4 datasets, worse than B or C "
                          "on 1")
    assert "w/t/l vs B 2/1/1, vs C 1/3/0" in net
    assert "paired t-test over the shared folds, alpha 0.05" in net
    assert "(paper: 2 won of 4)" in outcomes["short"].evidence
    assert outcomes["b-good"].evidence.startswith("B worse than A on 2 of 4 datasets, better "
                                                  "than A on 1 (paper: 1 lost of 4)")
    assert "difference > 2 × the larger sd" in outcomes["gap2"].evidence
    rank = outcomes["rank"].evidence
    assert "A 1.75, B 2.12, C 2.12" in rank or "A 1.75, C 2.12, B 2.12" in rank
    assert outcomes["rank-tpr"].evidence.startswith(
        "average ranks over 3 datasets (1 = best): B 1.50, A 2.00, C 2.50")
    assert "metric d1 tpr:1, d2 tpr:2, d4 tpr:1 (higher is better)" in \
        outcomes["rank-tpr"].evidence
    fast = outcomes["fast"].evidence
    assert fast.startswith("fit CPU time ratio A/B median 0.125 over 4 datasets; "
                           "<= 0.25 on 4 of 4 (dataset, pair)s; a dataset's ratio is the "
                           "median of the per-task ratios of fit_cpu over the 6 (repetition, "
                           "fold) tasks both finished in the same run")
    assert ("<= 0.125 on 0 of 4 (dataset, pair)s, within timing noise (a factor 1.25) of "
            "the bound on 4;") in outcomes["at-bound"].evidence
    assert "wall" not in fast
    assert ("against each alone vs B 2/1/1, vs C 1/3/0: the claim met against 2 of 2"
            in outcomes["each"].evidence)
    assert ("against each alone (test_accuracy and n_leaves together) vs B 2/1/1, vs C "
            "0/3/1: the claim met against 1 of 2" in outcomes["each-both"].evidence)
    assert "difference > 3 × √(sd₁² + sd₂²)" in outcomes["diff3"].evidence
    # at least as good also gives the Friedman ranks of the algorithms it names
    assert "average ranks A 1.75" in outcomes["good"].evidence


def test_a_speed_claim_is_the_median_of_per_task_ratios_not_a_ratio_of_sums(tmp_path):
    """A's first task of each dataset took 100 times its CPU (a worker's first call of its
    kernels, had it been timed): summed, A / B would be (100 + 5) x 0.125 / 6 = 2.19, and
    A no faster than B; the median of the six per-task ratios is still 0.125."""
    write_experiment(tmp_path / "r" / "e", first_task_slower=100.0)
    entries = [claim("fast", "faster", algorithm="A", versus="B", factor=4)]
    o = check_claims([tmp_path / "r"], [claims_file(tmp_path, entries)])[0]
    assert (o.verdict, o.wins, o.n) == (HOLDS, 4, 4)
    assert "A/B median 0.125 over 4 datasets" in o.evidence


def test_results_without_cpu_times_are_read_by_wall_time_and_say_so(tmp_path):
    """Wall times say A / B = 1/2 and A / C = 8 (WALL_PER_CPU): the verdicts turn over,
    and the evidence names the clock and why."""
    write_experiment(tmp_path / "r" / "e", fit_cpu=False)
    path = claims_file(tmp_path, [claim("fast", "faster", algorithm="A", versus="B",
                                        factor=8),
                                  claim("slow", "faster", algorithm="A", versus="C")])
    outcomes = by_id(check_claims([tmp_path / "r"], [path]))
    assert outcomes["fast"].verdict == FAILS and outcomes["slow"].verdict == FAILS
    evidence = outcomes["fast"].evidence
    assert evidence.startswith("wall fit time ratio A/B median 0.5 over 4 datasets")
    assert ("wall-clock fit_time, which counts the machine's other work and the kernels' "
            "compilation, as there is no fit_cpu (these results predate it)") in evidence


def test_a_folder_written_before_fit_cpu_still_reads(tmp_path):
    """runs.csv of an older obliq has no fit_cpu column at all: tables show it blank, the
    claims read fit_time."""
    folder = write_experiment(tmp_path / "r" / "e")
    runs = pd.read_csv(folder / "runs.csv", dtype=str, keep_default_na=False)
    runs.drop(columns=["fit_cpu"]).to_csv(folder / "runs.csv", index=False)
    # wall A / B = 0.5, clear of factor 1.5's bound 0.667 by more than timing noise
    entries = [claim("fast", "faster", algorithm="A", versus="B", factor=1.5)]
    o = check_claims([tmp_path / "r"], [claims_file(tmp_path, entries)])[0]
    assert o.verdict == HOLDS and "(these results predate it)" in o.evidence
    result = CliRunner().invoke(main, ["table", str(tmp_path / "r"), "--metric", "fit_cpu"])
    assert (result.exit_code, result.output.strip()) == (
        0, "e: fit_cpu: no values in the finished tasks")


def test_the_paired_t_verdicts_are_obliq_stats_own(results):
    """The per-pair w/t/l of a claim are the cells of `obliq stats` (the same test)."""
    from obliq_cli.report.significance import render_stats

    frame = pd.read_csv(io.StringIO(render_stats([results], "test_accuracy", fmt="csv")))
    pairs = frame.set_index(["algorithm", "versus"])
    assert tuple(pairs.loc[("A", "B"), ["wins", "ties", "losses"]]) == (2, 1, 1)
    assert tuple(pairs.loc[("A", "C"), ["wins", "ties", "losses"]]) == (1, 3, 0)
    assert pairs.loc[("A", "B"), "average_rank"] == pytest.approx(1.75)
    assert pairs.loc[("B", "A"), "average_rank"] == pytest.approx(2.125)


def test_what_the_results_lack_is_not_testable_with_the_reason(tmp_path):
    write_experiment(tmp_path / "r" / "e", repetitions=1, fit_time=False, fit_cpu=False)
    entries = [
        claim("other", "better_means", algorithm="A", versus="B", metric="n_leaves",
              experiment="missing"),
        claim("label", "better_means", algorithm="A", versus="Z", metric="n_leaves"),
        claim("sd", "significantly_better_count", algorithm="A", versus="B",
              metric="n_leaves", test="sd_gap", sds=2),
        claim("5x2", "significantly_better_count", algorithm="A", versus="B",
              metric="test_accuracy", test="5x2t"),
        claim("time", "faster", algorithm="A", versus="B"),
        claim("f1", "better_means", algorithm="A", versus="B", metric="macro_f1"),
        claim("ranks", "rank_above", algorithm="A", versus="B", metric="n_leaves",
              datasets=["d1", "nowhere"]),
        claim("design", "not_testable", why="a property of the method, not of a run"),
    ]
    outcomes = by_id(check_claims([tmp_path / "r"], [claims_file(tmp_path, entries)]))
    assert {o.verdict for o in outcomes.values()} == {UNTESTABLE}
    why = {k: o.evidence for k, o in outcomes.items()}
    assert why["other"] == "no results of experiment missing"
    assert why["label"] == "no finished task of Z in e"
    assert why["sd"] == "sd_gap needs an sd over at least 2 repetitions of A and B"
    assert "needs a 2-fold protocol" in why["5x2"]
    assert why["time"] == "no fit times stored in e"
    assert why["f1"].startswith("no dataset with results of A and B for macro_f1")
    assert why["ranks"].startswith("ranks need at least 2 datasets")
    assert why["design"] == "a property of the method, not of a run"


def test_only_papers_with_an_experiment_here_are_listed(results, tmp_path):
    here = claims_file(tmp_path, [claim("x", "better_means", algorithm="A", versus="B",
                                        metric="n_leaves"),
                                  claim("y", "better_means", algorithm="A", versus="B",
                                        metric="n_leaves", experiment="elsewhere")],
                       paper="Here", name="here.yaml")
    away = claims_file(tmp_path, [claim("z", "better_means", algorithm="A", versus="B",
                                        metric="n_leaves", experiment="elsewhere")],
                       paper="Away", name="away.yaml")
    outcomes = check_claims([results], [here, away])
    assert [(o.claim.paper, o.claim.id, o.verdict) for o in outcomes] == [
        ("Here", "x", HOLDS), ("Here", "y", UNTESTABLE)]
    assert render_claims([results], [away]) == ("No claim of the papers concerns the "
                                                "experiments here.")


def test_csv_has_one_row_per_claim_with_the_counts(results, tmp_path):
    path = claims_file(tmp_path, [c for c, _, _ in CASES])
    text = render_claims([results], [path], fmt="csv")
    frame = pd.read_csv(io.StringIO(text), keep_default_na=False, dtype=str)
    assert list(frame.columns) == CSV_COLUMNS
    assert list(frame["claim"]) == [c["id"] for c, _, _ in CASES]
    for (_, verdict, counts), row in zip(CASES, frame.itertuples()):
        assert row.verdict == verdict
        assert (int(row.wins), int(row.ties), int(row.losses), int(row.n)) == counts
    short = frame.set_index("claim").loc["short"]
    assert (short.paper_wins, short.paper_losses, short.paper_of, short.test) == (
        "2", "", "4", "t")
    assert frame.set_index("claim").loc["rank", "unit"] == "algorithm pairs"
    smaller = frame.set_index("claim").loc["smaller"]
    assert (smaller.kind, smaller.test) == ("better_means", "means")
    assert frame.set_index("claim").loc["fast", "test"] == ""


def test_markdown_quotes_each_claim_with_its_verdict(results, tmp_path):
    path = claims_file(tmp_path, [c for c, _, _ in CASES[:2]])
    text = render_claims([results], [path])
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in text.splitlines() if line.startswith("| P ")]
    assert [row[:5] for row in rows] == [["P", "§1", "“claim net”", "e", PARTLY],
                                         ["P", "§1", "“claim vs-c”", "e", HOLDS]]
    assert rows[0][5].startswith("A better than each of B, C on 1 of 4 datasets")
    assert text.endswith("2 claims: holds 1, partly 1, does not hold 0, not testable here 0.")


@pytest.mark.parametrize("entry, message", [
    (claim("k", "bigger"), "claims[0].kind: must be one of"),
    (claim("k", "better_means", algorithm="A", versus="B", metric="n_leaves", tset="t"),
     "claims[0].tset: not a field of kind better_means"),
    (claim("k", "significantly_better_count", algorithm="A", versus="B", metric="n_leaves"),
     "claims[0].test: missing"),
    (claim("k", "better_means", algorithm="A", versus="B", metric="leaves"),
     "claims[0].metric: unknown metric 'leaves'"),
    (claim("k", "significantly_better_count", algorithm="A", versus="B",
           metric="n_leaves", test="z"), "claims[0].test: must be one of"),
    (claim("k", "significantly_better_count", algorithm="A", versus="B",
           metric="n_leaves", test="means"), "claims[0].test: means are no significance"),
    (claim("k", "better_means", algorithm="A", versus=[], metric="n_leaves"),
     "claims[0].versus: must be a name or a list of names"),
    (claim("k", "better_means", algorithm="A", versus="B", metric="n_leaves",
           paper_counts={"wins": 5, "of": 4}), "claims[0].paper_counts: counts must not"),
    (claim("k", "time_ratio", algorithm="A", versus="B", between=[3, 1]),
     "claims[0].between: low 3 > high 1"),
    (claim("k", "better_means", algorithm="A", versus="B", metric={"d1": "n_leaves"}),
     "claims[0].metric: a mapping of dataset -> metric is for rank_above only"),
    (claim("k", "rank_above", algorithm="A", versus="B",
           metric={"d1": "n_leaves", "d2": "tpr:1"}),
     "claims[0].metric: the datasets' metrics must all be better higher, or all lower"),
    (claim("k", "rank_above", algorithm="A", versus="B", metric={"d1": "tpr:1"},
           datasets=["d1"]), "claims[0].datasets: not with a per-dataset metric"),
    (claim("k", "better_means", algorithm="A", versus="B", metric="n_leaves",
           against="some"), "claims[0].against: must be one of all, each"),
    (claim("k", "rank_above", algorithm="A", versus="B", metric="n_leaves",
           against="each"), "claims[0].against: not a field of kind rank_above"),
    (claim("k", "faster", algorithm="A", versus="B", paper_methods=["A"]),
     "claims[0].paper_methods: must map our label -> the paper's method"),
    (claim("k", "faster", algorithm="A", versus="B", own_table=" "),
     "claims[0].own_table: must be a non-empty text"),
])
def test_a_bad_claim_is_one_error_naming_file_and_field(tmp_path, entry, message):
    path = claims_file(tmp_path, [entry])
    with pytest.raises(ObliqError) as raised:
        read_claims(path)
    assert str(raised.value).startswith(f"{path}: {message}")


def test_an_id_given_twice_is_refused(tmp_path):
    entry = claim("k", "not_testable", why="w")
    with pytest.raises(ObliqError, match="id 'k' given twice"):
        read_claims(claims_file(tmp_path, [entry, entry]))


def test_command_line_exit_codes(results, tmp_path):
    path = claims_file(tmp_path, [c for c, _, _ in CASES])
    result = CliRunner().invoke(main, ["claims", str(results), "--claims", str(path),
                                       "--format", "csv"])
    assert result.exit_code == 0 and len(result.output.splitlines()) == 1 + len(CASES)
    bad = claims_file(tmp_path, [claim("k", "bigger")], name="bad.yaml")
    result = CliRunner().invoke(main, ["claims", str(results), "--claims", str(bad)])
    lines = result.output.splitlines()
    assert result.exit_code == 2 and len(lines) == 1
    assert lines[0].startswith(f"error: {bad}: claims[0].kind")
    # the shipped claims on results of none of the papers' experiments: said so
    result = CliRunner().invoke(main, ["claims", str(results)])
    assert result.exit_code == 0 and "No claim of the papers" in result.output


# --- the shipped claims ---------------------------------------------------------------------

def _config(name: str) -> dict:
    return yaml.safe_load(shipped_path("configs", f"{name}.yaml").read_text())


def _label(entry) -> str:
    if isinstance(entry, str):
        return entry
    return entry.get("label") or entry["name"]


def test_shipped_claims_name_the_shipped_configs_labels_and_datasets():
    """Every paper has at least 3 claims quoted with a section, and every testable claim
    names a shipped config with the algorithms and datasets it compares."""
    files = shipped_claims()
    assert [f.name for f in files] == ["apdt.yaml", "gdt.yaml", "hhcart.yaml", "oc1.yaml",
                                      "umt.yaml"]
    for path in files:
        claims = read_claims(path)
        assert len(claims) >= 3, path.name
        assert len({c.paper for c in claims}) == 1
        for c in claims:
            assert c.quote and c.section.startswith(("Abstract", "§")), c.id
            if c.kind == "not_testable":
                assert c.why
                continue
            config = _config(c.experiment)
            algorithms = {_label(a) for a in config["algorithms"]}
            datasets = {_label(d) for d in config["datasets"]}
            assert set(c.algorithms + c.versus) <= algorithms, c.id
            assert set(c.datasets) <= datasets, c.id
            assert set(c.metric_by_dataset) <= datasets, c.id


def test_shipped_claims_are_package_data():
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"configs/references/claims/*.yaml"' in pyproject


def test_a_per_fold_claim_on_repeated_fits_is_not_testable(tmp_path):
    """Under holdout_cv every task trains on the same non-test rows; with none held out for
    pruning (n_prune 0 in every row written above) the tasks repeat one fit, and a
    significance verdict drawn from them would be one comparison counted many times."""
    directory = write_experiment(tmp_path / "r" / "e")
    meta = json.loads((directory / "meta.json").read_text())
    meta["config"]["protocol"] = {"name": "holdout_cv", "folds": 3, "repeats": 2}
    (directory / "meta.json").write_text(json.dumps(meta))
    entries = [claim("net", "significantly_better_count", algorithm="A", versus="B",
                     metric="test_accuracy", test="t"),
               claim("means", "better_means", algorithm="A", versus="B",
                     metric="test_accuracy")]
    outcomes = by_id(check_claims([tmp_path / "r"], [claims_file(tmp_path, entries)]))
    assert outcomes["net"].verdict == UNTESTABLE
    assert "the tasks repeat one fit" in outcomes["net"].evidence
    assert outcomes["means"].verdict != UNTESTABLE  # means need no resampled training sets
