"""obliq table: reading results, aggregation as the papers do, paired tests, paper values.

Every fixture is a synthetic runs.csv / meta.json written here (schema.py's columns), so
these tests do not depend on the runner.
"""

import io
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from obliq_cli.analysis.aggregate import describe, load_results, summarise
from obliq_cli.analysis.references import agrees, read_reference
from obliq_cli.analysis.results import Results
from obliq_cli.analysis.stats import compare_to, paired_t_test
from obliq_cli.errors import ObliqError
from obliq_cli.experiment.schema import RUN_COLUMNS
from obliq_cli.report.tables import render_tables
from obliq_cli.resources import shipped_path

DEFAULTS = dict(config_hash="h", algorithm_name="x", pruner="", status="ok", error="",
                n_train=90, n_prune=10, n_test=20, n_leaves=3, n_internal=2, depth=2,
                fit_time=0.1, predict_time=0.01, macro_f1=0.5, train_accuracy=100.0,
                classes="[]", tpr="[]", tnr="[]", confusion="[]")


def write_results(directory, rows, name="exp", reference=None, algorithms=None,
                  datasets=None, methods=None, protocol=None):
    """An experiment folder: runs.csv from ``rows`` (schema columns) and meta.json."""
    directory.mkdir(parents=True)
    full = []
    for r in rows:
        row = {**DEFAULTS, **r}
        if "n_test_correct" not in r and row["status"] == "ok":
            row["n_test_correct"] = round(row["test_accuracy"] * row["n_test"] / 100)
        full.append(row)
    pd.DataFrame(full, columns=RUN_COLUMNS).to_csv(directory / "runs.csv", index=False)
    config = {"algorithms": [{"label": a} for a in (algorithms or [])],
              "datasets": [{"label": d} for d in (datasets or [])],
              "reference_methods": methods or {}}
    if protocol:
        config["protocol"] = {"name": protocol}
    (directory / "meta.json").write_text(json.dumps(
        {"name": name, "reference": None if reference is None else str(reference),
         "config": config}))
    return directory


def hand_rows(algorithm="A", dataset="d"):
    # repetition 0: folds 80 % of 10 rows, 90 % of 30 rows; repetition 1: 70 % and 80 % of 20
    return [
        dict(dataset=dataset, algorithm=algorithm, repetition=0, fold=0, test_accuracy=80.0,
             n_test=10, n_test_correct=8, n_leaves=2, n_internal=1),
        dict(dataset=dataset, algorithm=algorithm, repetition=0, fold=1, test_accuracy=90.0,
             n_test=30, n_test_correct=27, n_leaves=4, n_internal=3),
        dict(dataset=dataset, algorithm=algorithm, repetition=1, fold=0, test_accuracy=70.0,
             n_test=20, n_test_correct=14, n_leaves=3, n_internal=2),
        dict(dataset=dataset, algorithm=algorithm, repetition=1, fold=1, test_accuracy=80.0,
             n_test=20, n_test_correct=16, n_leaves=5, n_internal=4),
    ]


def md_rows(text):
    """The body rows of every pipe table in ``text`` as lists of stripped cells."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not set(line) <= set("|:- "):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def md_table(text):
    """The first pipe table as {first cell: {header: cell}}."""
    rows = md_rows(text)
    header = rows[0]
    return {r[0]: dict(zip(header, r)) for r in rows[1:]}


# --- aggregation ------------------------------------------------------------------------

def test_mean_over_folds_then_mean_and_sd_over_repetitions_by_hand(tmp_path):
    runs, metas = load_results(write_results(tmp_path / "e", hand_rows()))
    s = summarise(runs, "test_accuracy").iloc[0]
    # repetition means: (80 + 90) / 2 = 85 and (70 + 80) / 2 = 75
    # mean = (85 + 75) / 2 = 80; sd (ddof 1) = sqrt((5² + 5²) / (2 - 1)) = sqrt(50)
    assert s["mean"] == 80.0
    assert s["sd"] == math.sqrt(50)
    assert s["n_repetitions"] == 2
    assert metas[0]["name"] == "exp" and set(runs["experiment"]) == {"exp"}
    # test_error = 100 - accuracy: repetition means 15 and 25 -> 20, same sd
    e = summarise(runs, "test_error").iloc[0]
    assert (e["mean"], e["sd"]) == (20.0, math.sqrt(50))
    # n_nodes = leaves + internal: folds 3, 7 | 5, 9 -> repetitions 5 and 7 -> 6, sd sqrt(2)
    n = summarise(runs, "n_nodes").iloc[0]
    assert (n["mean"], n["sd"]) == (6.0, math.sqrt(2))
    assert describe(summarise(runs, "test_accuracy"), "test_accuracy") == (
        "test_accuracy (%): mean over 2 folds of each repetition, then mean ± sd over 2 "
        "repetitions (sample sd, ddof = 1); higher is better")


def test_pooled_differs_from_mean_of_folds_when_fold_sizes_differ(tmp_path):
    runs, _ = load_results(write_results(tmp_path / "e", hand_rows()))
    pooled = summarise(runs, "test_accuracy", pooled=True).iloc[0]
    # repetition 0: (8 + 27) / (10 + 30) = 87.5 % (fold mean 85); repetition 1: 30 / 40 = 75
    # mean = 81.25; sd = sqrt(6.25² + 6.25²) = sqrt(78.125)
    assert pooled["mean"] == 81.25
    assert pooled["sd"] == math.sqrt(78.125)
    assert summarise(runs, "test_accuracy")["mean"].iloc[0] == 80.0
    error = summarise(runs, "test_error", pooled=True).iloc[0]
    assert error["mean"] == 100 - 81.25
    text = render_tables([tmp_path / "e"], pooled=True)
    assert "81.25 ± 8.84" in text and "pooled over the 2 folds of each repetition" in text


def test_one_repetition_has_a_blank_sd(tmp_path):
    third = dict(dataset="d", algorithm="A", repetition=0, fold=2, test_accuracy=40.0)
    d = write_results(tmp_path / "e", hand_rows()[:2] + [third])
    runs, _ = load_results(d)
    s = summarise(runs, "test_accuracy").iloc[0]
    # (80 + 90 + 40) / 3 = 70 (the median would be 80)
    assert s["mean"] == 70.0 and np.isnan(s["sd"]) and s["n_repetitions"] == 1
    text = render_tables([d])
    assert md_table(text)["d"]["A"] == "70.00"
    assert "mean over 3 folds of each repetition, then mean ± sd over 1 repetition (no sd " \
        "with one repetition)" in text


def test_failed_tasks_are_counted_and_left_out_and_the_last_row_wins(tmp_path):
    rows = hand_rows()
    rows += [
        # B failed everywhere except one fold; its error rows must not enter the mean
        dict(dataset="d", algorithm="B", repetition=0, fold=0, status="error",
             error="RuntimeError: boom", test_accuracy=""),
        dict(dataset="d", algorithm="B", repetition=0, fold=1, test_accuracy=60.0),
        # A's repetition 1 fold 1 re-run after an earlier row: the later row (80) wins
    ]
    rows.insert(3, dict(dataset="d", algorithm="A", repetition=1, fold=1,
                        test_accuracy=0.0, n_test=20))
    d = write_results(tmp_path / "e", rows)
    runs, _ = load_results(d)
    assert len(runs) == 6
    assert summarise(runs, "test_accuracy").set_index("algorithm").loc["A", "mean"] == 80.0
    text = render_tables([d])
    assert md_table(text)["d"]["B"] == "60.00"
    assert "1 task failed" in text


def test_a_half_written_last_line_is_ignored(tmp_path):
    d = write_results(tmp_path / "e", hand_rows())
    with open(d / "runs.csv", "a") as handle:
        handle.write('h,d,1,2,A,x,,ok,,90,10,20,"[unfinished')
    runs, _ = load_results(d)
    assert len(runs) == 4


def test_rows_and_columns_follow_the_config_then_first_seen_order(tmp_path):
    rows = (hand_rows("Z", "second") + hand_rows("A", "second") + hand_rows("Z", "first")
            + hand_rows("A", "first") + hand_rows("A", "third"))
    d = write_results(tmp_path / "e", rows, datasets=["first", "second"], algorithms=["A", "Z"])
    table = md_rows(render_tables([d]))
    assert table[0] == ["dataset", "A", "Z"]
    assert [r[0] for r in table[1:]] == ["first", "second", "third"]
    assert table[3] == ["third", "80.00 ± 7.07", ""]


# --- paired t-test and v/* marks ----------------------------------------------------------

def test_paired_t_test_equals_scipy_ttest_rel():
    rng = np.random.default_rng(0)
    for n in (2, 5, 50):
        a, b = rng.normal(80, 3, n), rng.normal(79, 3, n)
        t, p = paired_t_test(a, b)
        ref = stats.ttest_rel(a, b)
        assert t == pytest.approx(ref.statistic, rel=1e-12)
        assert p == pytest.approx(ref.pvalue, rel=1e-10)


def test_paired_t_test_degenerate_cases_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert paired_t_test([80, 85, 90], [80, 85, 90]) == (0.0, 1.0)   # identical
        t, p = paired_t_test([81, 86, 91], [80, 85, 90])                # constant shift
        assert (t, p) == (math.inf, 0.0)                                # Weka: p = 0
        t, p = paired_t_test([81], [80])
        assert math.isnan(t) and p == 1.0
    with pytest.raises(ValueError):
        paired_t_test([1, 2], [1, 2, 3])


def sig_rows():
    """REF, BETTER (+5 points, 4 fewer leaves), WORSE (-5, +6 leaves), SAME (= REF),
    on dataset "clear"; on "tie" every algorithm equals REF."""
    rng = np.random.default_rng(1)
    rows = []
    for rep in range(3):
        for fold in range(5):
            base = 80 + rng.normal(0, 2)
            leaves = 10 + int(rng.integers(0, 3))
            for algo, acc, size in (("REF", 0, 0), ("BETTER", 5, -4), ("WORSE", -5, 6),
                                    ("SAME", 0, 0)):
                noise = 0.0 if algo in ("REF", "SAME") else rng.normal(0, 0.5)
                rows.append(dict(dataset="clear", algorithm=algo, repetition=rep, fold=fold,
                                 test_accuracy=base + acc + noise, n_leaves=leaves + size))
                rows.append(dict(dataset="tie", algorithm=algo, repetition=rep, fold=fold,
                                 test_accuracy=base, n_leaves=leaves))
    return rows


def test_marks_follow_the_metric_direction_and_count_w_t_l(tmp_path):
    algos = ["REF", "BETTER", "WORSE", "SAME"]
    d = write_results(tmp_path / "e", sig_rows(), algorithms=algos)
    for metric in ("test_accuracy", "n_leaves"):  # higher is better, lower is better
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            text = render_tables([d], metric, sig="REF")
        table = md_table(text)
        clear, tie = table["clear"], table["tie"]
        assert clear["BETTER"].endswith(" v"), metric
        assert clear["WORSE"].endswith(" *"), metric
        assert not clear["SAME"].endswith(("v", "*")) and not clear["REF"].endswith(("v", "*"))
        assert not any(tie[a].endswith(("v", "*")) for a in algos)
        wtl = table["(w/t/l) vs REF"]
        assert (wtl["REF"], wtl["BETTER"], wtl["WORSE"], wtl["SAME"]) == (
            "", "(1/1/0)", "(0/1/1)", "(0/2/0)")
        # a meta.json naming no protocol: the paired t, and the note says why
        assert ("paired t-test (default: no protocol-specific test for an unnamed "
                "protocol), alpha = 0.05") in text and "the same folds" in text
        plain = render_tables([d], metric, sig="REF", test="t")
        assert "paired t-test (--test t), alpha = 0.05" in plain and "the same folds" in plain
    # the other way round: against BETTER, REF is worse in accuracy and in size
    table = md_table(render_tables([d], "n_leaves", sig="BETTER"))
    assert table["clear"]["REF"].endswith(" *")
    assert table["(w/t/l) vs BETTER"]["REF"] == "(0/1/1)"



def test_csv_keeps_the_marks_of_sig_with_the_tests_p(tmp_path):
    algos = ["REF", "BETTER", "WORSE", "SAME"]
    d = write_results(tmp_path / "e", sig_rows(), algorithms=algos)
    table = md_table(render_tables([d], sig="REF"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # REF vs SAME: zero differences, no t
        rows = pd.read_csv(io.StringIO(render_tables([d], fmt="csv", sig="REF")),
                           keep_default_na=False)
    assert list(rows.columns[-7:]) == ["versus", "test", "pvalue", "mark", "n_tasks",
                                       "n_flagged", "flags"]
    assert set(rows["versus"]) == {"REF"} and set(rows["test"]) == {"t"}
    for row in rows.itertuples():
        cell = table[row.dataset][row.algorithm]  # "mean ± sd" then the mark, if any
        assert row.mark == (cell.rsplit(" ", 1)[1] if cell[-1] in "v*" else ""), cell
    assert sorted(rows.loc[rows["mark"] != "", "algorithm"]) == ["BETTER", "WORSE"]
    # the p of each row is scipy's paired t over the per-fold scores
    runs, _ = load_results(d)
    scores = runs.set_index(["dataset", "repetition", "fold", "algorithm"])[
        "test_accuracy"].unstack("algorithm")
    for algo in ("BETTER", "WORSE"):
        row = rows[(rows["dataset"] == "clear") & (rows["algorithm"] == algo)].iloc[0]
        part = scores.loc["clear"]
        assert float(row.pvalue) == pytest.approx(stats.ttest_rel(part[algo],
                                                                  part["REF"]).pvalue)
    assert (rows.loc[rows["algorithm"] == "REF", "pvalue"] == "").all()
    # without --sig the columns are there, empty
    plain = pd.read_csv(io.StringIO(render_tables([d], fmt="csv")), keep_default_na=False)
    assert list(plain.columns) == list(rows.columns)
    assert (plain[["versus", "test", "pvalue", "mark"]] == "").all().all()


def test_sig_summary_counts_datasets_where_ref_beats_or_loses_to_all_others(tmp_path):
    rows = [r for r in sig_rows() if r["algorithm"] != "SAME"]
    d = write_results(tmp_path / "e", rows, algorithms=["REF", "BETTER", "WORSE"])
    # On "clear" BETTER beats REF and WORSE loses to it: neither count moves.
    text = render_tables([d], sig="REF")
    assert "better than every other algorithm on 0 of 2 datasets" in text
    assert "worse than every other on 0" in text
    # With WORSE alone, REF is better than every other on "clear", WORSE worse than all.
    rows = [r for r in rows if r["algorithm"] != "BETTER"]
    d2 = write_results(tmp_path / "e2", rows, algorithms=["REF", "WORSE"])
    assert "better than every other algorithm on 1 of 2 datasets" in render_tables(
        [d2], sig="REF")
    assert "worse than every other on 1" in render_tables([d2], sig="WORSE")


def test_the_test_uses_only_the_folds_both_algorithms_share(tmp_path):
    rows = [r for r in sig_rows() if r["dataset"] == "clear"]
    # BETTER failed in repetition 2 and has no row for repetition 0 fold 4
    rows = [r if not (r["algorithm"] == "BETTER" and r["repetition"] == 2)
            else {**r, "status": "error", "test_accuracy": ""} for r in rows]
    rows = [r for r in rows if not (r["algorithm"] == "BETTER" and r["repetition"] == 0
                                    and r["fold"] == 4)]
    runs, _ = load_results(write_results(tmp_path / "e", rows))
    tests = compare_to(runs, "test_accuracy", "REF").set_index("algorithm")
    assert tests.loc["BETTER", "n_pairs"] == 9  # 15 folds - 5 failed - 1 missing
    ok = runs[runs["status"] == "ok"].set_index(["repetition", "fold", "algorithm"])
    pairs = ok["test_accuracy"].unstack("algorithm")[["BETTER", "REF"]].dropna()
    expected = stats.ttest_rel(pairs["BETTER"], pairs["REF"])
    assert tests.loc["BETTER", "statistic"] == pytest.approx(expected.statistic)
    assert tests.loc["BETTER", "pvalue"] == pytest.approx(expected.pvalue)


def test_alpha_decides(tmp_path):
    # differences 1, 2, 3, 1, 2 points: t = 1.8 sqrt(5) / 0.8367 = 4.81, p = 0.0086
    rows = []
    for fold, diff in enumerate([1, 2, 3, 1, 2]):
        rows += [dict(dataset="d", algorithm="REF", repetition=0, fold=fold,
                      test_accuracy=80.0 + fold),
                 dict(dataset="d", algorithm="B", repetition=0, fold=fold,
                      test_accuracy=80.0 + fold + diff)]
    d = write_results(tmp_path / "e", rows, algorithms=["REF", "B"])
    assert md_table(render_tables([d], sig="REF", alpha=0.01))["d"]["B"].endswith(" v")
    assert not md_table(render_tables([d], sig="REF", alpha=0.005))["d"]["B"].endswith("v")


# --- paper values ---------------------------------------------------------------------------

def test_reference_columns_and_agreement_marks(tmp_path):
    ref = tmp_path / "ref.csv"
    ref.write_text(
        "dataset,method,metric,mean,sd\n"
        "d,A,test_accuracy,78.50,0.5\n"      # Δ = 80 - 78.5 = +1.5 <= max(2, 1): ✓
        "d,B,test_accuracy,84.5,2.5\n"       # Δ = -4.5 <= max(2, 5): ✓ by the sd rule
        "e,B,test_accuracy,90.0,3\n"         # Δ = -10 > max(2, 6): no ✓
        "d,A,n_leaves,5.5,\n"                # leaves: ours 3.5, Δ = -2.0 <= 2: ✓
        "d,B,n_leaves,1.4,0.2\n")            # Δ = +2.1 > max(2, 0.4): no ✓
    rows = hand_rows("A") + hand_rows("B") + hand_rows("B", "e") + hand_rows("C")
    d = write_results(tmp_path / "e", rows, reference=ref, algorithms=["A", "B", "C"])
    text = render_tables([d])
    header = md_rows(text)[0]
    assert header == ["dataset", "A", "A (paper)", "Δ", "B", "B (paper)", "Δ", "C"]
    table = md_rows(text)[1:]
    assert table[0] == ["d", "80.00 ± 7.07", "78.50 ± 0.5", "+1.50 ✓", "80.00 ± 7.07",
                        "84.5 ± 2.5", "-4.50 ✓", "80.00 ± 7.07"]
    assert table[1] == ["e", "", "", "", "80.00 ± 7.07", "90.0 ± 3", "-10.00", ""]
    assert "✓ when |Δ| <= max(2, 2 × paper sd), in percentage points" in text
    leaves = md_rows(render_tables([d], "n_leaves"))
    # ours: repetitions (2 + 4) / 2 = 3 and (3 + 5) / 2 = 4 -> 3.5
    assert leaves[1][1:7] == ["3.5 ± 0.7", "5.5", "-2.0 ✓", "3.5 ± 0.7", "1.4 ± 0.2", "+2.1"]
    assert "in leaves" in render_tables([d], "n_leaves")
    # no reference value for this metric: no paper columns at all
    assert "paper" not in md_rows(render_tables([d], "depth"))[0]


def test_reference_with_mapped_methods_and_derived_error(tmp_path):
    ref = tmp_path / "ref.csv"
    ref.write_text("dataset,method,metric,mean,sd\nd,OC1-AP,test_accuracy,79.0,1.0\n")
    d = write_results(tmp_path / "e", hand_rows(), reference=ref, algorithms=["A"],
                      methods={"A": "OC1-AP"})
    text = render_tables([d])
    assert md_rows(text)[0] == ["dataset", "A", "OC1-AP (paper)", "Δ"]
    assert md_rows(text)[1][2:] == ["79.0 ± 1.0", "+1.00 ✓"]
    assert "A is compared with the paper's OC1-AP" in text
    row = pd.read_csv(io.StringIO(render_tables([d], fmt="csv")), dtype=str).iloc[0]
    assert (row["method"], row["paper_mean"], row["paper_sd"], row["delta"],
            row["tolerance"], row["within"]) == ("OC1-AP", "79.0", "1.0", "1.0", "2.0", "true")
    error = render_tables([d], "test_error")
    # ours 20; paper 100 - 79.0 = 21.0 printed with the paper's precision
    assert md_rows(error)[1][2:] == ["21.0 ± 1.0", "-1.00 ✓"]
    assert "the paper's test_error is 100 - its test_accuracy" in error


def test_agrees_boundaries():
    assert agrees(82.0, 80.0, float("nan"))          # |Δ| = 2 = tolerance
    assert not agrees(82.01, 80.0, 0.5)
    assert agrees(86.0, 80.0, 3.0) and not agrees(86.1, 80.0, 3.0)
    assert list(agrees(np.array([1.0, 5.0]), np.array([0.0, 0.0]), np.array([0.0, 0.0]))) \
        == [True, False]


def test_shipped_reference_files_are_well_formed_and_transcribed():
    refs = shipped_path("configs", "references")
    hh = read_reference(refs / "hhcart_uci.csv")
    hh = hh[hh["metric"].isin(["test_accuracy", "n_leaves"])]
    assert len(hh) == 11 * 5 * 2
    row = hh.set_index(["dataset", "method", "metric"]).loc[("pima", "OC1", "test_accuracy")]
    # HHCART Table 2, PIND / OC1, as printed: "73.4 ± 1.0" (the text is kept, not a float)
    assert (row["mean_text"], row["sd_text"]) == ("73.4", "1.0")
    assert (row["mean"], row["sd"]) == (73.4, 1.0)
    gdt = read_reference(refs / "gdt_table2.csv")
    assert set(gdt["metric"]) == {"test_accuracy", "n_leaves", "depth", "fit_time"}
    assert set(gdt["method"]) == {"Geometric DT", "OC1", "CART-LC"}
    assert not ((gdt["dataset"] == "magic6000") & (gdt["method"] == "CART-LC")).any()
    umt = read_reference(refs / "umt_tables.csv")
    assert set(umt["metric"]) == {"test_error", "n_nodes"}
    assert {"survival", "ionosphere", "srbct"} <= set(umt["dataset"])
    assert "haberman" not in set(umt["dataset"])


# --- several experiments, formats, layouts --------------------------------------------------

def test_a_folder_of_experiments_gives_one_table_each(tmp_path):
    write_results(tmp_path / "results" / "one", hand_rows(), name="one")
    write_results(tmp_path / "results" / "two", hand_rows("B"), name="two")
    text = render_tables([tmp_path / "results"])
    assert text.count("### ") == 2 and "### one" in text and "### two" in text
    assert len([r for r in md_rows(text) if r[0] == "dataset"]) == 2
    runs, metas = load_results([tmp_path / "results", tmp_path / "results" / "one"])
    assert [m["name"] for m in metas] == ["one", "two"] and len(runs) == 8
    # a single experiment has no heading
    assert "###" not in render_tables([tmp_path / "results" / "one"])


def test_results_hand_out_each_experiment_with_its_own_rows(tmp_path):
    # folders a, b, c: read in name order
    write_results(tmp_path / "results" / "a", hand_rows(), name="one")
    write_results(tmp_path / "results" / "b", hand_rows("B", "e")
                  + [dict(dataset="e", algorithm="C", repetition=0, fold=0, status="error",
                          test_accuracy="")], name="two")
    write_results(tmp_path / "results" / "c",
                  [dict(dataset="d", algorithm="A", repetition=0, fold=0, status="error",
                        test_accuracy="")], name="three")
    results = Results.read(tmp_path / "results")
    items = results.experiments()
    assert [item.name for item in items] == ["one", "two", "three"]
    # each experiment's rows are its runs.csv's, nothing of the others; titled when several
    assert [(len(item.rows), set(item.rows["experiment"])) for item in items] == [
        (4, {"one"}), (5, {"two"}), (1, {"three"})]
    assert [item.title for item in items] == ["one", "two", "three"]
    meta, rows, title = items[1]  # unpacks as each_experiment's triples did
    assert meta["name"] == title == "two" and set(rows["algorithm"]) == {"B", "C"}
    # "three" has only a failed task: nothing to tabulate
    assert [item.finished for item in items] == [True, True, False]
    assert [item.name for item in results.finished_experiments()] == ["one", "two"]
    assert list(results.by_name()) == ["one", "two", "three"]
    assert results.by_name()["two"][1].equals(rows)
    # one experiment alone: untitled, as a lone table; the table is the folder's own
    alone = results.alone(items[0])
    assert alone.metas == [items[0].meta] and alone.experiments()[0].title is None
    assert render_tables(alone) == render_tables([tmp_path / "results" / "a"])
    assert Results.of(alone) is alone and Results.of(alone, show_all=False) is alone
    assert alone.only().name == "one"
    one_line_error(results.only, "results: holds 3 experiments; give one of them")


def test_csv_output_parses_back_into_the_numbers(tmp_path):
    write_results(tmp_path / "results" / "one", hand_rows(), name="one")
    write_results(tmp_path / "results" / "two", hand_rows()[:2], name="two")
    text = render_tables([tmp_path / "results"], fmt="csv", sig="A")
    # round_trip: pandas' default fast float parser may be 1 ulp off the written repr
    frame = pd.read_csv(io.StringIO(text), float_precision="round_trip")
    # the first seven columns as they always were, then the paper's (empty: no reference),
    # then --sig's test (A alone: nothing to test it against, so no p and no mark)
    assert list(frame.columns) == ["dataset", "algorithm", "metric", "mean", "sd",
                                   "n_repetitions", "experiment", "method", "paper_mean",
                                   "paper_sd", "delta", "tolerance", "within", "versus",
                                   "test", "pvalue", "mark", "n_tasks", "n_flagged", "flags"]
    # then each cell's finished tasks, none flagged degenerate (an empty flags cell)
    assert frame["n_tasks"].tolist() == [4, 2] and frame["n_flagged"].eq(0).all()
    assert frame["flags"].isna().all()
    assert frame[["method", "paper_mean", "paper_sd", "delta", "tolerance",
                  "within", "pvalue", "mark"]].isna().all().all()
    assert frame["versus"].eq("A").all() and frame["test"].eq("t").all()
    assert frame["mean"].tolist() == [80.0, 85.0]
    assert frame["sd"].iloc[0] == math.sqrt(50) and np.isnan(frame["sd"].iloc[1])
    assert frame["experiment"].tolist() == ["one", "two"]
    assert frame["metric"].eq("test_accuracy").all()


def test_long_latex_and_html(tmp_path):
    d = write_results(tmp_path / "e", hand_rows() + hand_rows("B"), algorithms=["A", "B"])
    long = md_rows(render_tables([d], layout="long", sig="A"))
    assert long[0] == ["dataset", "algorithm", "mean", "sd", "n_repetitions", "vs A"]
    assert long[1] == ["d", "A", "80.00", "7.07", "2", ""]
    assert "(w/t/l) vs A: B (0/1/0)" in render_tables([d], layout="long", sig="A")
    latex = render_tables([d], fmt="latex")
    assert r"80.00 $\pm$ 7.07" in latex and r"\toprule" in latex
    assert "% test_accuracy (%)" in latex
    html = render_tables([d], fmt="html")
    assert "<table>" in html and "<td>80.00 ± 7.07</td>" in html


def test_times_and_sizes_use_their_precision(tmp_path):
    d = write_results(tmp_path / "e", hand_rows())
    assert md_table(render_tables([d], "fit_time"))["d"]["A"] == "0.100 ± 0.000"
    assert md_table(render_tables([d], "macro_f1"))["d"]["A"] == "0.500 ± 0.000"
    assert md_table(render_tables([d], "n_leaves"))["d"]["A"] == "3.5 ± 0.7"


# --- errors ---------------------------------------------------------------------------------

def one_line_error(call, *match):
    with pytest.raises(ObliqError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message
    for text in match:
        assert text in message, message
    return message


def test_option_errors_list_the_choices(tmp_path):
    d = write_results(tmp_path / "e", hand_rows(), algorithms=["A"])
    one_line_error(lambda: render_tables([d], "acc"), "unknown metric 'acc'", "test_accuracy",
                   "n_leaves")
    one_line_error(lambda: render_tables([d], fmt="xls"), "unknown format 'xls'", "md, latex")
    one_line_error(lambda: render_tables([d], layout="tall"), "unknown layout", "wide, long")
    one_line_error(lambda: render_tables([d], sig="Z"), "no algorithm 'Z'", "algorithms: A")
    one_line_error(lambda: render_tables([d], "n_leaves", pooled=True), "--pooled")
    one_line_error(lambda: render_tables([d], alpha=1.5), "--alpha")


def test_input_errors_name_the_file(tmp_path):
    one_line_error(lambda: load_results([tmp_path / "none"]), f"{tmp_path / 'none'}: no such")
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    one_line_error(lambda: load_results([tmp_path / "empty"]), "empty: no runs.csv")
    bad = tmp_path / "cols"
    bad.mkdir()
    (bad / "runs.csv").write_text("a,b\n1,2\n")
    one_line_error(lambda: load_results([bad]), f"{bad / 'runs.csv'}: missing column",
                   "'config_hash'")
    d = write_results(tmp_path / "malformed", hand_rows())
    with open(d / "runs.csv", "a") as handle:
        handle.write("h,d,0,2,A" + ",1" * 40 + "\n")  # more fields than the header
    one_line_error(lambda: load_results([d]), f"{d / 'runs.csv'}: malformed CSV")
    d = write_results(tmp_path / "text", hand_rows()[:1] + [
        dict(dataset="d", algorithm="A", repetition=0, fold=1, test_accuracy="high",
             n_test_correct=1)])
    one_line_error(lambda: load_results([d]), "runs.csv: line 3: test_accuracy is not a number")
    d = write_results(tmp_path / "rep", [dict(hand_rows()[0], repetition="one")])
    one_line_error(lambda: load_results([d]), "line 2: repetition must be an integer")
    d = write_results(tmp_path / "meta", hand_rows())
    (d / "meta.json").write_text("{not json")
    one_line_error(lambda: load_results([d]), "meta.json: not valid JSON")


def test_reference_errors_name_the_file(tmp_path):
    cases = {
        "cols.csv": ("dataset,method,mean\nd,A,1\n", "missing column(s) 'metric', 'sd'"),
        "number.csv": ("dataset,method,metric,mean,sd\nd,A,test_accuracy,8O.5,1\n",
                       "line 2: mean is not a number"),
        "twice.csv": ("dataset,method,metric,mean,sd\nd,A,n_leaves,1,\nd,A,n_leaves,2,\n",
                      "line 3: (d, A, n_leaves) appears twice"),
        "quote.csv": ('dataset,method,metric,mean,sd\n"d,A,n_leaves,1,\n', "malformed"),
    }
    for i, (name, (text, match)) in enumerate(cases.items()):
        ref = tmp_path / name
        ref.write_text(text)
        d = write_results(tmp_path / f"e{i}", hand_rows(), reference=ref, algorithms=["A"])
        one_line_error(lambda d=d: render_tables([d]), str(ref), match)
    d = write_results(tmp_path / "gone", hand_rows(), reference=tmp_path / "gone.csv")
    one_line_error(lambda: render_tables([d]), "gone.csv: reference file not found")


def test_an_experiment_with_no_finished_task_yet(tmp_path):
    write_results(tmp_path / "results" / "new", [], name="new")  # a run's header, no row
    (tmp_path / "results" / "new" / "runs.csv").write_text(",".join(RUN_COLUMNS) + "\n")
    write_results(tmp_path / "results" / "done", hand_rows(), name="done")
    text = render_tables([tmp_path / "results"])
    assert "new: no finished task yet" in text and "### done" in text


def test_a_metric_left_blank_everywhere_says_so(tmp_path):
    d = write_results(tmp_path / "e", [dict(r, macro_f1="") for r in hand_rows()])
    assert render_tables([d], "macro_f1") == "exp: macro_f1: no values in the finished tasks"
    assert render_tables([d], "macro_f1", fmt="csv").startswith("dataset,algorithm,metric")


def test_per_class_rates_line_up_by_label_when_a_fold_misses_a_class(tmp_path):
    rows = [
        dict(dataset="d", algorithm="A", repetition=0, fold=0, test_accuracy=80.0,
             classes='["a", "b", "c"]', tpr="[0.5, 1.0, 0.25]", tnr="[1.0, 0.5, 0.75]"),
        # this fold saw no class "a": its list is shorter, "b" is still the 2nd class
        dict(dataset="d", algorithm="A", repetition=0, fold=1, test_accuracy=80.0,
             classes='["b", "c"]', tpr="[0.5, null]", tnr="[0.0, 1.0]"),
        dict(dataset="d", algorithm="A", repetition=1, fold=0, test_accuracy=80.0,
             classes='["a", "b", "c"]', tpr="[1.0, 0.0, 0.5]", tnr="[1.0, 1.0, 1.0]"),
    ]
    runs, _ = load_results(write_results(tmp_path / "e", rows))
    tpr2 = summarise(runs, "tpr:2").iloc[0]
    assert tpr2["mean"] == pytest.approx(((1.0 + 0.5) / 2 + 0.0) / 2)
    tpr3 = summarise(runs, "tpr:3").iloc[0]  # a null rate is left out of the fold mean
    assert tpr3["mean"] == pytest.approx((0.25 + 0.5) / 2)
    assert summarise(runs, "tnr:1").iloc[0]["mean"] == pytest.approx(1.0)
    assert summarise(runs, "tpr:4").empty
    with pytest.raises(ObliqError, match="tpr:K"):
        summarise(runs, "tpr:0")


def test_fractions_agree_within_two_hundredths_not_two_units():
    assert agrees(0.71, 0.70, float("nan"), floor=0.02)
    assert not agrees(0.75, 0.70, 0.01, floor=0.02)
    assert agrees(0.75, 0.70, 0.03, floor=0.02)  # 2 paper sds


def test_best_reports_the_repetition_with_the_highest_test_accuracy(tmp_path):
    # repetition 1 has the best mean test accuracy (90 + 94) / 2; its leaves are 5 and 7
    rows = []
    for rep, accs, leaves in ((0, (80, 96), (3, 3)), (1, (90, 94), (5, 7)), (2, (92, 91), (9, 9))):
        for fold, (acc, nl) in enumerate(zip(accs, leaves)):
            rows.append(dict(dataset="d", algorithm="A", repetition=rep, fold=fold,
                             test_accuracy=float(acc), n_leaves=nl))
    ref = tmp_path / "ref.csv"
    ref.write_text("dataset,method,metric,mean,sd\nd,A,n_leaves@best,6,\nd,A,n_leaves,99,1\n")
    d = write_results(tmp_path / "e", rows, reference=ref, algorithms=["A"])
    runs, _ = load_results(d)
    best = summarise(runs, "n_leaves", best=True).iloc[0]
    assert best["mean"] == 6.0 and np.isnan(best["sd"]) and best["n_repetitions"] == 3
    assert summarise(runs, "test_accuracy", best=True).iloc[0]["mean"] == 92.0
    text = render_tables([d], "n_leaves", best=True)
    assert "best of 3 repetitions" in text
    cell = md_table(text)["d"]
    assert cell["A (paper)"] == "6" and cell["A"].startswith("6.0")
    assert md_table(render_tables([d], "n_leaves"))["d"]["A (paper)"] == "99 ± 1"


def test_holdout_cv_reports_mean_and_sd_over_every_training_fold(tmp_path):
    # 2 repetitions x 2 folds, all on one test part: the UMT paper's sd is over the 4 trees
    values = {(0, 0): 10.0, (0, 1): 20.0, (1, 0): 30.0, (1, 1): 40.0}
    rows = [dict(dataset="d", algorithm="A", repetition=r, fold=f, test_accuracy=100 - v)
            for (r, f), v in values.items()]
    d = write_results(tmp_path / "e", rows, algorithms=["A"], protocol="holdout_cv")
    text = render_tables([d], "test_error")
    assert "mean ± sd over 4 training folds" in text
    cell = md_table(text)["d"]["A"]
    assert cell == f"25.00 ± {np.std(list(values.values()), ddof=1):.2f}"
    plain = write_results(tmp_path / "k", rows, algorithms=["A"], protocol="kfold")
    assert md_table(render_tables([plain], "test_error"))["d"]["A"] == \
        f"25.00 ± {np.std([15.0, 35.0], ddof=1):.2f}"


def test_a_moved_shipped_reference_resolves_to_this_installs_file(tmp_path):
    """Results copied from another checkout name its absolute reference path; when that
    path is gone and it names a shipped reference, this install's file of that name is
    read. Any other missing path stays as it is (and is reported as not found)."""
    from obliq_cli.analysis.references import resolve_reference
    from obliq_cli.resources import shipped_path

    gone = tmp_path / "old-checkout" / "obliq_cli" / "configs" / "references" / "umt_tables.csv"
    assert resolve_reference({"reference": str(gone)}) == \
        shipped_path("configs", "references", "umt_tables.csv")
    mine = tmp_path / "mine" / "umt_tables.csv"
    assert resolve_reference({"reference": str(mine)}) == mine
    unknown = tmp_path / "configs" / "references" / "no_such_paper.csv"
    assert resolve_reference({"reference": str(unknown)}) == unknown
