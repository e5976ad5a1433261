"""obliq agree: per (experiment, algorithm, metric) the cells within tolerance of the paper's,
the mean |ours - paper|, the misses, the per-cell csv and the per-experiment summary (make
reproductions renders README.md's table from its summary: tests/tools/test_docs_generated.py).

The results are written here by hand in the runner's layout (schema.RUN_COLUMNS in
runs.csv, meta.json with the config's labels, the reference and the run history), with
numbers chosen so that every verdict is known in advance (see EXPECTED).
"""

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from obliq_cli.analysis.aggregate import pooled_by_paper
from obliq_cli.analysis.agreement import CELL_COLUMNS, compare, run_time, tally
from obliq_cli.analysis.claims import check_claims
from obliq_cli.cli import main
from obliq_cli.errors import ObliqError
from obliq_cli.experiment.schema import RUN_COLUMNS
from obliq_cli.report.agreement import agreement_text, format_duration, render_agreement
from obliq_cli.report.tables import render_tables

# Per (dataset, algorithm): test accuracy and leaves of repetitions 0 and 1 (both folds of
# a repetition score the same, so a repetition's mean is its value).
VALUES = {
    ("d1", "A"): {"test_accuracy": (80.0, 82.0), "n_leaves": (4, 6), "macro_f1": 0.5},
    ("d1", "B"): {"test_accuracy": (70.0, 70.0), "n_leaves": (10, 10), "macro_f1": 0.5},
    ("d2", "A"): {"test_accuracy": (90.0, 94.0), "n_leaves": (3, 3), "macro_f1": 0.5},
    ("d2", "B"): {"test_accuracy": (60.0, 64.0), "n_leaves": (8, 12), "macro_f1": 0.5},
}

# The paper gives error, not accuracy (the UMT paper's way), names B "B-paper", and
# has a fit time, a best-of-runs size and a fraction (macro F1, floor 0.02).
REFERENCE = """dataset,method,metric,mean,sd
d1,A,test_error,20.0,0.5
d1,B-paper,test_error,33.0,0.4
d2,A,test_error,12.0,2.5
d2,B-paper,test_error,40.0,
d1,A,n_leaves,5.5,
d1,B-paper,n_leaves,6.0,1.0
d2,A,n_leaves,3.0,
d1,A,n_leaves@best,9,
d2,B-paper,n_leaves@best,11,
d1,A,fit_time,0.5,0.1
d1,A,macro_f1,0.515,0.005
d1,B-paper,macro_f1,0.45,
"""

# (dataset, algorithm, metric): (ours, paper, tolerance, within)
EXPECTED = {
    # ours error = 100 - accuracy: d1/A 19, d1/B 30, d2/A 8, d2/B 38
    ("d1", "A", "test_error"): (19.0, 20.0, 2.0, True),     # |-1| <= max(2, 1)
    ("d2", "A", "test_error"): (8.0, 12.0, 5.0, True),      # |-4| <= max(2, 5): the sd rule
    ("d1", "B", "test_error"): (30.0, 33.0, 2.0, False),    # |-3| > max(2, 0.8)
    ("d2", "B", "test_error"): (38.0, 40.0, 2.0, True),     # |-2| = 2: on the boundary
    ("d1", "A", "n_leaves"): (5.0, 5.5, 2.0, True),
    ("d2", "A", "n_leaves"): (3.0, 3.0, 2.0, True),
    ("d1", "B", "n_leaves"): (10.0, 6.0, 2.0, False),       # |+4| > max(2, 2)
    # best repetition = highest accuracy: d1/A repetition 1 (6 leaves), d2/B repetition 1 (12)
    ("d1", "A", "n_leaves@best"): (6.0, 9.0, 2.0, False),
    ("d2", "B", "n_leaves@best"): (12.0, 11.0, 2.0, True),
    ("d1", "A", "macro_f1"): (0.5, 0.515, 0.02, True),      # fraction: floor 0.02
    ("d1", "B", "macro_f1"): (0.5, 0.45, 0.02, False),
}
MISSES = {key for key, (_, _, _, within) in EXPECTED.items() if not within}


def write_experiment(directory: Path, name="exp", reference=None, history=None) -> Path:
    """runs.csv (2 datasets x 2 algorithms x 2 repetitions x 2 folds) and meta.json."""
    directory.mkdir(parents=True)
    rows = []
    for (dataset, algorithm), v in VALUES.items():
        for repetition in (0, 1):
            for fold in (0, 1):
                accuracy = v["test_accuracy"][repetition]
                row = dict.fromkeys(RUN_COLUMNS, "")
                row.update(task="", config_hash="h", dataset=dataset, repetition=repetition,
                           fold=fold, algorithm=algorithm, algorithm_name="x", status="ok",
                           n_train=40, n_prune=0, n_test=50,
                           n_test_correct=round(accuracy / 2), test_accuracy=accuracy,
                           train_accuracy=100.0, n_leaves=v["n_leaves"][repetition],
                           n_internal=v["n_leaves"][repetition] - 1, depth=2,
                           fit_time=0.25, predict_time=0.01, macro_f1=v["macro_f1"],
                           classes="[]", tpr="[]", tnr="[]", confusion="[]")
                rows.append(row)
    pd.DataFrame(rows, columns=RUN_COLUMNS).to_csv(directory / "runs.csv", index=False)
    config = {"name": name, "algorithms": [{"label": "A"}, {"label": "B"}],
              "datasets": [{"label": "d1"}, {"label": "d2"}],
              "reference_methods": {"B": "B-paper"} if reference else {}}
    meta = {"name": name, "reference": str(reference) if reference else None,
            "config": config, "history": history or []}
    (directory / "meta.json").write_text(json.dumps(meta))
    return directory


HISTORY = [
    # a run killed without a finish time, then a resume of 1 h 05 min 10 s
    {"started": "2026-01-01T09:00:00+00:00", "finished": None, "tasks": {"total": 20}},
    {"started": "2026-01-01T10:00:00+00:00", "finished": "2026-01-01T11:05:10+00:00",
     "tasks": {"total": 20}},
]


@pytest.fixture
def results(tmp_path):
    """results/exp (with the reference) and results/plain (no reference)."""
    reference = tmp_path / "paper.csv"
    reference.write_text(REFERENCE)
    write_experiment(tmp_path / "results" / "exp", reference=reference, history=HISTORY)
    write_experiment(tmp_path / "results" / "plain", name="plain")
    return tmp_path / "results"


def cells_by_key(cells: pd.DataFrame) -> dict:
    return {(c.dataset, c.algorithm, c.metric): c for c in cells.itertuples()}


def invoke(args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result, result.output.splitlines()


# --- the comparison -------------------------------------------------------------------------

def test_every_cell_has_the_known_verdict_tolerance_and_delta(results):
    exp, plain = compare([results])
    assert (exp.name, exp.status, plain.name, plain.status) == ("exp", "", "plain",
                                                                "no reference")
    cells = cells_by_key(exp.cells)
    assert set(cells) == set(EXPECTED)
    for key, (ours, paper, tolerance, within) in EXPECTED.items():
        cell = cells[key]
        assert cell.mean == pytest.approx(ours) and cell.paper_mean == pytest.approx(paper)
        assert cell.delta == pytest.approx(ours - paper)
        assert cell.tolerance == pytest.approx(tolerance)
        assert bool(cell.within) is within, key
    # the paper's method names: B is compared with the paper's B-paper
    assert {c.method for c in exp.cells.itertuples() if c.algorithm == "B"} == {"B-paper"}
    # the reference's order of metrics, algorithms and datasets in the config's
    assert exp.metrics == ["test_error", "n_leaves", "n_leaves@best", "macro_f1"]
    assert list(exp.cells["algorithm"]) == ["A"] * 6 + ["B"] * 5


def test_tallies_count_the_cells_within_and_average_the_absolute_deltas(results):
    exp = compare([results])[0]
    counts = {(r.algorithm, r.metric): (r.within, r.compared, r.mean_abs_delta)
              for r in tally(exp.cells).itertuples()}
    assert counts == {
        ("A", "test_error"): (2, 2, pytest.approx(2.5)),     # |-1|, |-4|
        ("A", "n_leaves"): (2, 2, pytest.approx(0.25)),      # |-0.5|, 0
        ("A", "n_leaves@best"): (0, 1, pytest.approx(3.0)),
        ("A", "macro_f1"): (1, 1, pytest.approx(0.015)),
        ("B", "test_error"): (1, 2, pytest.approx(2.5)),     # |-3|, |-2|
        ("B", "n_leaves"): (0, 1, pytest.approx(4.0)),
        ("B", "n_leaves@best"): (1, 1, pytest.approx(1.0)),
        ("B", "macro_f1"): (0, 1, pytest.approx(0.05)),
    }
    assert agreement_text(exp) == ("test_error: A 2/2, B 1/2; n_leaves: A 2/2, B 0/1; "
                                   "n_leaves@best: A 0/1, B 1/1; macro_f1: A 1/1, B 0/1")


def test_fit_time_is_never_compared_and_said_once(results):
    exp = compare([results])[0]
    assert "fit_time" not in set(exp.cells["metric"]) and exp.times_skipped == ["fit_time"]
    text = render_agreement([results])
    assert text.count("fit_time not compared (times depend on the machine)") == 1
    with pytest.raises(ObliqError, match="--metric fit_time: times depend on the machine"):
        compare([results], metrics=["fit_time"])


def test_accuracy_is_compared_with_a_paper_that_prints_error(results):
    exp = compare([results], metrics=["test_accuracy"])[0]
    cells = cells_by_key(exp.cells)
    # paper accuracy = 100 - its error, the same sd: the same verdicts as for test_error
    assert cells[("d1", "A", "test_accuracy")].paper_mean == 80.0
    assert cells[("d1", "A", "test_accuracy")].delta == pytest.approx(1.0)
    assert {k[:2]: bool(c.within) for k, c in cells.items()} == {
        k[:2]: v[3] for k, v in EXPECTED.items() if k[2] == "test_error"}
    assert "the paper's test_accuracy is 100 - its test_error" in exp.notes


def test_best_compares_the_best_repetition_only_when_asked_by_name(results):
    exp = compare([results], metrics=["n_leaves@best"])[0]
    assert exp.metrics == ["n_leaves@best"]
    cells = cells_by_key(exp.cells)
    assert cells[("d1", "A", "n_leaves@best")].mean == 6.0       # repetition 1 (82 %)
    assert cells[("d2", "B", "n_leaves@best")].mean == 12.0      # repetition 1 (64 %)


def test_metric_and_algorithm_options_restrict_and_check(results):
    exp = compare([results], metrics=["n_leaves", "depth"], algorithms=["B"])[0]
    assert set(exp.cells["algorithm"]) == {"B"} and exp.metrics == ["n_leaves"]
    assert "no paper value for depth here" in exp.notes
    with pytest.raises(ObliqError, match=r"--algorithm: no algorithm 'Z' .*algorithms: A, B"):
        compare([results], algorithms=["Z"])
    with pytest.raises(ObliqError, match="unknown metric 'leaves'"):
        compare([results], metrics=["leaves"])


# --- output ---------------------------------------------------------------------------------

def md_rows(text: str, first_header: str) -> list[list[str]]:
    """The body rows of the pipe table whose first header cell is ``first_header``."""
    rows, inside = [], False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_header:
            inside = True
        elif inside and line.startswith("|") and not set(line) <= set("|:- "):
            rows.append(cells)
        elif inside and not line.startswith("|"):
            break
    return rows


def test_markdown_has_the_tally_the_totals_and_the_misses(results):
    text = render_agreement([results])
    tally_rows = md_rows(text, "experiment")
    assert tally_rows[0] == ["exp", "A", "test_error", "2/2", "2.50"]
    assert ["exp", "B", "n_leaves", "0/1", "4.0"] in tally_rows
    assert ["exp", "B", "macro_f1", "0/1", "0.050"] in tally_rows
    assert "- exp: 7 of 11 cells within tolerance; paper: paper.csv" in text
    assert "B is compared with the paper's B-paper" in text
    assert "- plain: no reference" in text
    assert "max(2, 2 × paper sd)" in text and "references.py" in text
    assert "Misses (4):" in text
    misses = [row for row in md_rows(text.split("Misses")[1], "experiment")]
    assert {(r[1], r[2], r[3]) for r in misses} == MISSES
    assert ["exp", "d1", "B", "test_error", "30.00 ± 0.00", "33.0 ± 0.4", "-3.00",
            "2.00"] in misses
    assert ["exp", "d1", "A", "n_leaves@best", "6.0", "9", "-3.0", "2.0"] in misses


def test_a_miss_just_past_the_tolerance_prints_enough_decimals_to_show_it(tmp_path):
    reference = tmp_path / "paper.csv"
    # ours 0.5; the paper 0.521: |Δ| = 0.021 prints "0.02" at the metric's 2 decimals
    reference.write_text("dataset,method,metric,mean,sd\nd1,A,tpr:1,0.521,\n")
    d = write_experiment(tmp_path / "e", name="e", reference=reference)
    runs = pd.read_csv(d / "runs.csv", dtype=str, keep_default_na=False)
    runs["classes"], runs["tpr"] = "[0, 1]", "[0.5, 0.5]"
    runs.to_csv(d / "runs.csv", index=False)
    misses = md_rows(render_agreement([d]).split("Misses")[1], "experiment")
    assert misses == [["e", "d1", "A", "tpr:1", "0.50 ± 0.00", "0.521", "-0.021", "0.020"]]


def test_csv_has_one_row_per_cell_enough_to_recompute(results):
    text = render_agreement([results], fmt="csv")
    frame = pd.read_csv(io.StringIO(text), float_precision="round_trip")
    assert list(frame.columns) == CELL_COLUMNS == [
        "experiment", "dataset", "algorithm", "method", "metric", "mean", "paper_mean",
        "paper_sd", "delta", "tolerance", "within", "counted", "n_tasks", "n_flagged",
        "flags"]
    assert frame["n_flagged"].eq(0).all() and frame["flags"].isna().all()
    assert frame["counted"].all()   # no reading here: every cell is a paper cell once
    assert len(frame) == len(EXPECTED) and set(frame["experiment"]) == {"exp"}
    assert (frame["delta"] == frame["mean"] - frame["paper_mean"]).all()
    assert (frame["within"] == (frame["delta"].abs() <= frame["tolerance"])).all()
    assert frame["within"].sum() == 7
    assert set(text.splitlines()[1].split(",")[-5:-3]) <= {"true", "false"}
    # nothing compared: the header alone
    empty = render_agreement([results / "plain"], fmt="csv")
    assert empty == ",".join(CELL_COLUMNS) + "\n"


def test_table_csv_within_is_agree_s_verdict(results):
    agree = pd.read_csv(io.StringIO(render_agreement([results / "exp"], fmt="csv")))
    for metric, best in (("test_error", False), ("n_leaves", False), ("n_leaves", True),
                         ("macro_f1", False)):
        table = pd.read_csv(io.StringIO(render_tables([results / "exp"], metric, fmt="csv",
                                                      best=best)), dtype=str,
                            keep_default_na=False)
        name = f"{metric}@best" if best else metric
        mine = agree[agree["metric"] == name].set_index(["dataset", "algorithm"])
        for row in table.itertuples():
            key = (row.dataset, row.algorithm)
            if key in mine.index:
                assert row.within == ("true" if mine.loc[key, "within"] else "false")
                assert row.method == mine.loc[key, "method"]
                assert float(row.tolerance) == mine.loc[key, "tolerance"]
            else:  # the paper has no value: the paper's columns stay empty
                assert (row.method, row.paper_mean, row.delta, row.within) == ("", "", "", "")


# --- summary --------------------------------------------------------------------------------

def test_summary_has_tasks_run_time_and_agreement_per_experiment(results):
    rows = md_rows(render_agreement([results], summary=True), "experiment")
    assert rows == [
        ["exp", "16 of 20", "1 h 05 min (+1 unfinished run)",
         "test_error: A 2/2, B 1/2; n_leaves: A 2/2, B 0/1; n_leaves@best: A 0/1, B 1/1; "
         "macro_f1: A 1/1, B 0/1"],
        ["plain", "16", "", "no reference"],
    ]
    assert "fit_time: not compared" in render_agreement([results], summary=True)
    frame = pd.read_csv(io.StringIO(render_agreement([results], fmt="csv", summary=True)))
    assert list(frame["run_time_s"].fillna(-1)) == [3910.0, -1]
    assert list(frame["unfinished_runs"]) == [1, 0]


def test_run_time_sums_the_finished_runs_and_reads_like_a_clock():
    assert run_time({"history": HISTORY}) == (3910.0, 1)
    assert run_time({}) == (None, 0)
    assert run_time({"history": [{"started": "x", "finished": "y"}, "junk"]}) == (None, 1)
    assert [format_duration(s) for s in (33.2, 59.4, 59.6, 1500, 3599, 3910, 7260)] == [
        "33 s", "59 s", "1 min", "25 min", "1 h 00 min", "1 h 05 min", "2 h 01 min"]


# --- command line ---------------------------------------------------------------------------

def test_exit_code_is_0_with_misses_and_2_with_bad_input_on_one_line(results, tmp_path):
    result, lines = invoke(["agree", results])
    assert result.exit_code == 0 and "Misses (4):" in result.output
    result, _ = invoke(["agree", results / "exp", "--format", "csv", "--metric", "n_leaves"])
    assert result.exit_code == 0 and len(result.output.splitlines()) == 1 + 3
    result, _ = invoke(["agree", results, "--summary"])
    assert result.exit_code == 0 and "| exp " in result.output
    for args, message in (
            ([tmp_path / "none"], f"error: {tmp_path / 'none'}: no such results directory"),
            ([results, "--metric", "leaves"], "error: unknown metric 'leaves'"),
            ([results, "--metric", "fit_time"], "error: --metric fit_time: times depend"),
            ([results, "--algorithm", "Z"], "error: --algorithm: no algorithm 'Z'")):
        result, lines = invoke(["agree", *args])
        assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith(message)


def test_a_missing_reference_file_is_one_error_line(tmp_path):
    write_experiment(tmp_path / "e", reference=tmp_path / "gone.csv")
    result, lines = invoke(["agree", tmp_path / "e"])
    assert result.exit_code == 2 and lines == [f"error: {tmp_path / 'gone.csv'}: reference "
                                               f"file not found"]


def test_recomputed_from_the_csv_the_tally_is_the_same(results):
    frame = pd.read_csv(io.StringIO(render_agreement([results], fmt="csv")))
    for (algorithm, metric), part in frame.groupby(["algorithm", "metric"]):
        row = tally(compare([results])[0].cells).set_index(["algorithm", "metric"]).loc[
            (algorithm, metric)]
        assert row["within"] == part["within"].sum() and row["compared"] == len(part)
        assert math.isclose(row["mean_abs_delta"], part["delta"].abs().mean())


def test_a_config_metric_that_reads_a_paper_metric_is_compared_after_it(tmp_path):
    """macro_f1_pr_skip is a reading of the paper's macro_f1 (its paper_metric): when the
    config lists it, agree compares it too, right after macro_f1; a config that does not
    list it compares the reference's metrics only."""
    from obliq_cli.analysis.agreement import _reference_metrics

    ref = tmp_path / "ref.csv"
    ref.write_text("dataset,method,metric,mean,sd\nd1,A,test_accuracy,80,\n"
                   "d1,A,macro_f1,0.5,\nd1,A,n_leaves,3,\n")
    meta = {"reference": str(ref),
            "config": {"metrics": ["test_accuracy", "macro_f1", "macro_f1_pr_skip"]}}
    assert _reference_metrics(meta) == ["test_accuracy", "macro_f1", "macro_f1_pr_skip",
                                        "n_leaves"]
    meta["config"]["metrics"] = ["test_accuracy", "macro_f1"]
    assert _reference_metrics(meta) == ["test_accuracy", "macro_f1", "n_leaves"]


def test_summary_counts_per_class_rates_of_a_kind_together():
    """tpr:1 and tpr:2 read as one "tpr:*" entry whose counts are the classes' sums."""
    from obliq_cli.analysis.agreement import ExperimentAgreement

    rows = [("d1", "A", "tpr:1", True), ("d2", "A", "tpr:1", False),
            ("d1", "A", "tpr:2", True), ("d1", "B", "tpr:2", True),
            ("d1", "A", "test_accuracy", False)]
    cells = pd.DataFrame([{"experiment": "e", "dataset": d, "algorithm": a, "method": a,
                           "metric": m, "mean": 0.5, "paper_mean": 0.5, "paper_sd": 0.0,
                           "delta": 0.0, "tolerance": 0.02, "within": w, "decimals": 2}
                          for d, a, m, w in rows])
    result = ExperimentAgreement("e", cells=cells,
                                 metrics=["test_accuracy", "tpr:1", "tpr:2"])
    assert agreement_text(result) == "test_accuracy: A 0/1; tpr:*: A 2/3, B 1/1"


# --- a reading of a paper metric counts the paper's cell once -------------------------------

def reading_experiment(tmp_path) -> Path:
    """The paper gives macro_f1 only; the config also lists its reading macro_f1_pr_skip.
    Every task's confusion matrix is [[40, 10], [0, 50]]: macro precision (1 + 50/60) / 2
    = 0.9167, macro recall (0.8 + 1) / 2 = 0.9, so macro_f1_pr_skip = 2PR/(P+R) = 0.9083;
    the stored macro_f1 is 0.5. Against the paper's A 0.515 only macro_f1 is within, against
    its B 0.90 only the reading is."""
    reference = tmp_path / "paper.csv"
    reference.write_text("dataset,method,metric,mean,sd\nd1,A,macro_f1,0.515,\n"
                         "d1,B-paper,macro_f1,0.90,\n")
    d = write_experiment(tmp_path / "e", name="e", reference=reference)
    runs = pd.read_csv(d / "runs.csv", dtype=str, keep_default_na=False)
    runs["confusion"] = "[[40, 10], [0, 50]]"
    runs.to_csv(d / "runs.csv", index=False)
    meta = json.loads((d / "meta.json").read_text())
    meta["config"]["metrics"] = ["macro_f1", "macro_f1_pr_skip"]
    (d / "meta.json").write_text(json.dumps(meta))
    return d


def test_a_reading_is_shown_beside_the_paper_metric_but_the_cell_counts_once(tmp_path):
    d = reading_experiment(tmp_path)
    exp = compare([d])[0]
    assert exp.metrics == ["macro_f1", "macro_f1_pr_skip"]
    assert exp.readings == {"macro_f1_pr_skip": "macro_f1"}
    cells = cells_by_key(exp.cells)
    assert cells[("d1", "A", "macro_f1_pr_skip")].mean == pytest.approx(
        2 * (11 / 12) * 0.9 / (11 / 12 + 0.9))
    verdicts = {k: (bool(c.within), bool(c.counted)) for k, c in cells.items()}
    assert verdicts == {("d1", "A", "macro_f1"): (True, True),
                        ("d1", "B", "macro_f1"): (False, True),
                        ("d1", "A", "macro_f1_pr_skip"): (False, False),
                        ("d1", "B", "macro_f1_pr_skip"): (True, False)}
    # two paper cells, counted by the paper's own metric: 1 of 2 (either reading: 2 of 2)
    text = render_agreement([d])
    assert "- e: 1 of 2 cells within tolerance" in text
    assert "macro_f1_pr_skip reads the paper's macro_f1: shown beside it, not counted" in text
    assert ["e", "B", "macro_f1_pr_skip (reads macro_f1; not counted)", "1/1", "0.008"] in \
        md_rows(text, "experiment")
    assert agreement_text(exp) == ("macro_f1: A 1/1, B 0/1; macro_f1_pr_skip (reads "
                                   "macro_f1; not counted): A 0/1, B 1/1")
    # the csv says which cells count; the total recomputes from it
    frame = pd.read_csv(io.StringIO(render_agreement([d], fmt="csv")))
    assert list(frame["counted"]) == [True, False, True, False]
    assert frame.loc[frame["counted"], "within"].sum() == 1


def test_a_reading_compared_alone_is_the_cell_s_only_reading_and_counts(tmp_path):
    d = reading_experiment(tmp_path)
    exp = compare([d], metrics=["macro_f1_pr_skip"])[0]
    assert exp.readings == {} and exp.cells["counted"].all()
    text = render_agreement([d], metrics=["macro_f1_pr_skip"])
    assert "- e: 1 of 2 cells within tolerance" in text and "not counted" not in text



def test_a_paper_that_pools_is_compared_pooled_in_table_agree_and_claims(tmp_path):
    # OC1's cross-validation: correct / tested over a repetition's folds. A's folds of 10
    # and 30 test rows scoring 100 % and 50 % pool to 25 / 40 = 62.5 %, their mean is 75 %;
    # B's (70 % and 20 / 30) pool to 27 / 40 = 67.5 %, mean 68.33 %. So A is ahead by the
    # fold means and behind pooled. The paper printed the pooled numbers.
    reference = tmp_path / "paper.csv"
    reference.write_text("dataset,method,metric,mean,sd\nd1,A,test_accuracy,62.5,0.1\n"
                         "d1,B,test_accuracy,67.5,0.1\n")
    folds = {"A": [(10, 10), (30, 15)], "B": [(10, 7), (30, 20)]}  # (n_test, correct)
    rows = []
    for algorithm, parts in folds.items():
        for repetition in (0, 1):
            for fold, (n_test, correct) in enumerate(parts):
                row = dict.fromkeys(RUN_COLUMNS, "")
                row.update(task="", config_hash="h", dataset="d1", repetition=repetition,
                           fold=fold, algorithm=algorithm, algorithm_name="x", status="ok",
                           n_train=40, n_prune=0, n_test=n_test, n_test_correct=correct,
                           test_accuracy=100.0 * correct / n_test, n_leaves=3,
                           classes="[]", tpr="[]", tnr="[]", confusion="[]")
                rows.append(row)

    def experiment(name: str, pooled: bool) -> Path:
        directory = tmp_path / "results" / name
        directory.mkdir(parents=True)
        pd.DataFrame(rows, columns=RUN_COLUMNS).to_csv(directory / "runs.csv", index=False)
        config = {"name": name, "algorithms": [{"label": "A"}, {"label": "B"}],
                  "datasets": [{"label": "d1"}], "reference_methods": {},
                  "reference_pooled": pooled,
                  "protocol": {"name": "kfold", "folds": 2, "repeats": 2}}
        (directory / "meta.json").write_text(json.dumps(
            {"name": name, "reference": str(reference), "config": config, "history": []}))
        return directory

    pooled, means = experiment("pooled", True), experiment("means", False)
    (by_pool,), (by_mean,) = compare([pooled]), compare([means])
    cells = cells_by_key(by_pool.cells)
    assert [cells[("d1", a, "test_accuracy")].mean for a in "AB"] == [62.5, 67.5]
    assert cells[("d1", "A", "test_accuracy")].within
    cell = cells_by_key(by_mean.cells)[("d1", "A", "test_accuracy")]
    assert (cell.mean, cell.within) == (75.0, False)
    assert "pooled over the 2 folds" in render_tables([pooled])
    assert "pooled" not in render_tables([means])
    meta = {"config": {"reference_pooled": True}}
    assert pooled_by_paper(meta, "test_error") and not pooled_by_paper(meta, "n_leaves")
    # a claim on means reads accuracy as the table does: A beats B by the fold means only
    claims = tmp_path / "c.yaml"
    claims.write_text("paper: P\nclaims:\n" + "".join(
        f"  - {{id: {e}, section: §1, quote: q, experiment: {e}, kind: better_means, "
        f"algorithm: A, versus: B, metric: test_accuracy}}\n" for e in ("pooled", "means")))
    outcomes = {o.claim.id: o for o in check_claims([tmp_path / "results"], [claims])}
    assert (outcomes["pooled"].wins, outcomes["pooled"].losses) == (0, 1)
    assert (outcomes["means"].wins, outcomes["means"].losses) == (1, 0)
