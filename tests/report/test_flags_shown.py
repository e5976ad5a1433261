"""A number that rests on a degenerate fit carries its flag wherever it is shown: ``obliq
table`` (md, latex, html, csv; wide and long), ``obliq stats``, ``obliq report``, ``obliq
claims``, ``Results.to_frame``, the warning lines at the end of ``obliq run``, the
benchmark's summary and README block, and the docs rendered from a paper config's
cells.csv. The run (tests/conftest.py's ``flagged_run``) holds a clean tree (FULL) beside
a one-leaf tree (STUMP) and scikit-learn's most-frequent dummy (DUMMY), each flagged on all
6 of its tasks on both datasets."""

import io
import re

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from conftest import EXPECTED_FLAGS

import obliq_cli
from obliq_cli.analysis.claims import TableNumbers, check_claims, evaluate_on, parse_claim
from obliq_cli.cli import main
from obliq_cli.experiment.degeneracy import CODES
from obliq_cli.report.agreement import flagged_text
from obliq_cli.report.html_report import build_report
from obliq_cli.report.significance import render_stats
from obliq_cli.report.tables import render_tables
from tools import docs
from tools.leaderboard import benchmark_block, read_benchmark
from tools.summary import summarize

STUMP = "at_majority, one_leaf, constant_predictions"
DUMMY = "at_majority, constant_predictions"
CELLS = (f"test-iris / STUMP (6 of 6: {STUMP}), test-iris / DUMMY (6 of 6: {DUMMY}), "
         f"test-wine / STUMP (6 of 6: {STUMP}), test-wine / DUMMY (6 of 6: {DUMMY})")
MEANINGS = "; ".join(f"{code}: {text}" for code, text in CODES.items())


def md_rows(text):
    """The rows of the first pipe table in ``text``, each {header: cell}."""
    lines = text.split("\n\n|", 1)[1] if not text.startswith("|") else text[1:]
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in ("|" + lines).split("\n\n")[0].splitlines()
            if not set(line) <= set("|:- ")]
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def md_cells(text):
    """{first cell: {header: cell}} of the first pipe table in ``text``."""
    return {next(iter(r.values())): r for r in md_rows(text)}


def test_the_table_marks_each_flagged_cell_and_says_how_many(flagged_run):
    _, out = flagged_run
    text = render_tables([out])
    for dataset, cells in md_cells(text).items():
        assert not cells["FULL"].endswith("⚠"), (dataset, cells)
        for algorithm in ("STUMP", "DUMMY"):
            assert re.fullmatch(r"\d+\.\d\d ± \d+\.\d\d ⚠", cells[algorithm]), cells
    note = [line for line in text.splitlines() if line.startswith("⚠")]
    assert note == [f"⚠ degenerate tasks: 24 of 36 tasks flagged (runs.csv's flags), in 4 "
                    f"cells: {CELLS}; {MEANINGS}"]
    # the leaves of the one-leaf tree are a number too; the dummy has none ("-")
    leaves = md_cells(render_tables([out], metric="n_leaves"))
    assert leaves["test-iris"]["STUMP"] == "1.0 ± 0.0 ⚠" and leaves["test-iris"]["DUMMY"] == "-"
    assert "12 of 24 tasks flagged" in render_tables([out], metric="n_leaves")


def test_long_latex_html_and_csv_mark_the_same_cells(flagged_run):
    _, out = flagged_run
    long = [line for line in render_tables([out], layout="long").splitlines()
            if line.startswith("| test-")]
    marked = {tuple(c.strip() for c in line.strip("|").split("|")[:2]) for line in long
              if "⚠" in line}
    assert marked == {(d, a) for d in ("test-iris", "test-wine") for a in ("STUMP", "DUMMY")}
    latex = render_tables([out], fmt="latex")
    assert latex.count(r"\textbf{!}") == 4   # the cells; the note is a comment line
    assert all(line.startswith("% ") for line in latex.splitlines() if "⚠" in line)
    page = render_tables([out], fmt="html")
    spans = re.findall(r'<span class="degenerate" title="([^"]*)">⚠</span> *</td>', page)
    assert spans == [f"6 of 6 tasks flagged: {STUMP}", f"6 of 6 tasks flagged: {DUMMY}"] * 2
    frame = pd.read_csv(io.StringIO(render_tables([out], fmt="csv")),
                        keep_default_na=False).set_index(["dataset", "algorithm"])
    for (_, algorithm), row in frame.iterrows():
        assert row["n_tasks"] == 6
        assert row["n_flagged"] == (0 if algorithm == "FULL" else 6)
        assert row["flags"] == EXPECTED_FLAGS[algorithm]


def test_stats_marks_the_algorithms_holding_flagged_cells(flagged_run):
    _, out = flagged_run
    text = render_stats([out])
    wtl = md_cells(text)
    assert set(wtl) == {"FULL", "STUMP ⚠", "DUMMY ⚠"}
    assert text.rstrip().endswith(f"in 4 cells: {CELLS}; {MEANINGS}")
    bayes = str(obliq_cli.load_results(out).stats(bayes=True))
    assert bayes.rstrip().endswith(f"in 4 cells: {CELLS}; {MEANINGS}")
    pairs = pd.read_csv(io.StringIO(render_stats([out], fmt="csv")))
    flagged = {"FULL": 0, "STUMP": 12, "DUMMY": 12}
    assert (pairs["n_flagged"] == pairs["algorithm"].map(flagged)).all()
    assert (pairs["versus_n_flagged"] == pairs["versus"].map(flagged)).all()


def test_the_report_page_marks_its_tables_and_its_benchmark_view(flagged_run):
    _, out = flagged_run
    page = build_report([out])
    titles = re.findall(r'<span class="degenerate" title="([^"]*)">⚠</span>', page)
    # accuracy (4 cells), leaves (2), the per-dataset views (4), the ranking (2
    # algorithms), the w/t/l and rank tables of the significance summary (2 + 2)
    assert titles.count(f"6 of 6 tasks flagged: {STUMP}") == 2 + 2 + 2
    assert titles.count(f"6 of 6 tasks flagged: {DUMMY}") == 2 + 2
    assert titles.count("12 of its tasks flagged degenerate: see the note below") == 2
    assert titles.count("holds tasks flagged degenerate (see the ⚠ note)") == 4
    assert ".degenerate {" in page
    # under the accuracy table, the significance summary, the benchmark view and its
    # Bayesian details
    assert page.count("⚠ degenerate tasks: 24 of 36 tasks flagged") == 4


def test_the_frame_and_the_run_s_warning_lines(flagged_run, tmp_path):
    path, out = flagged_run
    results = obliq_cli.load_results(out)
    frame = results.to_frame()
    flags = frame.drop_duplicates(["dataset", "repetition", "fold", "algorithm"])
    assert len(flags) == 36
    assert (flags["flags"] == flags["algorithm"].map(EXPECTED_FLAGS)).all()
    cells = results.flagged()
    assert list(zip(cells["dataset"], cells["algorithm"], cells["n_flagged"])) == [
        ("test-iris", "STUMP", 6), ("test-iris", "DUMMY", 6), ("test-wine", "STUMP", 6),
        ("test-wine", "DUMMY", 6)]
    # obliq run: one warning line per flagged cell, on standard error, after the tables
    shown = CliRunner().invoke(main, ["run", str(path), "-o", tmp_path / "again",
                                      "--no-progress"])
    assert shown.exit_code == 0, shown.output
    warned = [line for line in shown.stderr.splitlines() if line.startswith("degenerate:")]
    assert warned == [
        f"degenerate: {d} / {a}: 6 of 6 tasks flagged: {STUMP if a == 'STUMP' else DUMMY} "
        f"(runs.csv's flags)" for d in ("test-iris", "test-wine") for a in ("STUMP", "DUMMY")]
    assert "degenerate:" not in shown.stdout


def test_a_claim_resting_on_flagged_cells_says_so(flagged_run, tmp_path):
    _, out = flagged_run
    claims = tmp_path / "claims.yaml"
    claims.write_text(yaml.safe_dump({"paper": "P", "claims": [
        {"id": "dummy", "section": "§1", "quote": "FULL beats the dummy",
         "experiment": "degenerate", "kind": "better_means", "algorithm": "FULL",
         "versus": "DUMMY", "metric": "test_accuracy"},
        {"id": "iris", "section": "§1", "quote": "FULL beats the stump on iris",
         "experiment": "degenerate", "kind": "better_means", "algorithm": "FULL",
         "versus": "STUMP", "metric": "test_accuracy", "datasets": ["test-iris"]}]}))
    dummy, iris = check_claims([out], [claims])
    assert dummy.verdict == "holds" and dummy.evidence.endswith(
        f"; ⚠ rests on 2 cells holding tasks flagged degenerate: test-iris / DUMMY (6 of 6: "
        f"{DUMMY}), test-wine / DUMMY (6 of 6: {DUMMY})")
    # only the cells of the claim's own datasets
    assert iris.evidence.endswith(f"; ⚠ rests on 1 cell holding tasks flagged degenerate: "
                                  f"test-iris / STUMP (6 of 6: {STUMP})")


def test_a_claim_read_on_a_summary_s_cells_says_so_too():
    # summary --reclaim evaluates claims on cells.csv (claims.TableNumbers): its counts
    # say which means rest on flagged tasks; a table without them (a paper's) says nothing
    cells = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "algorithm": ["A", "B"] * 2,
                          "metric": "test_accuracy", "mean": [80.0, 60.0, 81.0, 61.0],
                          "sd": 1.0, "n_tasks": 10, "n_flagged": [0, 3, 0, 0],
                          "flags": ["", "one_leaf", "", ""]})
    claim = parse_claim({"id": "c", "section": "§1", "quote": "A beats B",
                         "experiment": "e", "kind": "better_means", "algorithm": "A",
                         "versus": "B", "metric": "test_accuracy"}, "P", "test")
    outcome = evaluate_on(claim, TableNumbers("e", cells))
    assert outcome.verdict == "holds" and outcome.evidence.endswith(
        "; ⚠ rests on 1 cell holding tasks flagged degenerate: d1 / B (3 of 10: one_leaf)")
    plain = evaluate_on(claim, TableNumbers("e", cells.drop(columns=["n_tasks", "n_flagged",
                                                                     "flags"])))
    assert plain.verdict == "holds" and "⚠" not in plain.evidence


@pytest.mark.slow
def test_the_benchmark_summary_and_its_block_count_the_flagged_cells(flagged_run, tmp_path):
    _, out = flagged_run
    assert summarize([out], tmp_path, today="2026-01-02",
                     benchmarks=("degenerate",)) == ["degenerate"]
    bench = read_benchmark(tmp_path / "degenerate")
    scores = bench["scores"].set_index(["dataset", "algorithm"])
    for (_, algorithm), row in scores.iterrows():
        assert (row["n_tasks"], row["n_flagged"], row["flags"]) == (
            "6", "0" if algorithm == "FULL" else "6", EXPECTED_FLAGS[algorithm])
    block = benchmark_block(bench, "degenerate", "docs/results")
    names = {row["algorithm"] for row in md_rows(block.split("Ranking by")[1])}
    assert names == {"FULL", "STUMP ⚠", "DUMMY ⚠"}
    assert f"⚠ degenerate tasks: 24 of 36 tasks flagged (runs.csv's flags), in 4 cells: " \
           f"{CELLS}; {MEANINGS}" in block
    # the sentences read off the ranking say it of each method they read
    reading = benchmark_block(bench, "degenerate", "docs/results", methods=("STUMP", "FULL"),
                              references=("DUMMY",)).split("Read off the numbers above:")[1]
    lines = {line.split()[1]: line for line in reading.strip().splitlines()}
    assert "ranks" in lines["STUMP"] and " ⚠ 2 of its 2 cells hold tasks flagged " \
        "degenerate;" in lines["STUMP"]
    assert "⚠" not in lines["FULL"]
    # a summary written before flags reads as it did: no mark, no note
    bench["scores"] = bench["scores"].drop(columns=["n_tasks", "n_flagged", "flags"])
    assert "⚠" not in benchmark_block(bench, "degenerate", "docs/results")


def _summary(cells: pd.DataFrame) -> docs.Summary:
    return docs.Summary(runs={"paper": {"config": "paper", "source": "results"}},
                        cells={"paper": cells.astype(str)},
                        agree={"paper": pd.DataFrame(columns=["metric", "algorithm", "within",
                                                              "compared", "reads"])})


def test_a_paper_config_s_published_cells_carry_the_flag():
    cells = pd.DataFrame({
        "metric": "test_accuracy", "algorithm": ["A", "B"], "dataset": "d", "method": "M",
        "mean": ["80.0", "55.5"], "sd": ["1.0", "0.0"], "n": "2", "paper_text": "81.0",
        "paper_mean": "81.0", "paper_sd": "", "delta": ["-1.0", "-25.5"],
        "tolerance": "1.0", "within": ["true", "false"], "counted": "true",
        "decimals": "2", "n_tasks": "10", "n_flagged": ["0", "4"],
        "flags": ["", "one_leaf;constant_predictions"]})
    summary = _summary(cells)
    table = docs.table_block(summary, "paper", "test_accuracy")
    assert md_cells(table)["d"]["A"] == "80.00 ± 1.00"
    assert md_cells(table)["d"]["B"] == "55.50 ± 0.00 ⚠"
    assert table.endswith(
        "⚠ degenerate tasks: 4 of 20 tasks flagged (runs.csv's flags), in 1 cell: d / B (4 "
        f"of 10: one_leaf, constant_predictions); one_leaf: {CODES['one_leaf']}; "
        f"constant_predictions: {CODES['constant_predictions']}")
    assert docs.value(summary, "cell paper test_accuracy B d mean_sd") == "55.50 ± 0.00 ⚠"
    assert docs.value(summary, "cell paper test_accuracy B d mean") == "55.50 ⚠"
    assert flagged_text(cells) == ("⚠ 1 of 2 cells compared hold tasks flagged degenerate: "
                                   "d / B (4 of 10: one_leaf, constant_predictions)")
    misses = docs.agreement_block(summary).split("Misses")[1]
    assert "| 55.50 ± 0.00 ⚠ |" in misses
    # a cells.csv written before flags: the same table without marks or note
    old = _summary(cells.drop(columns=["n_tasks", "n_flagged", "flags"]))
    assert "⚠" not in docs.table_block(old, "paper", "test_accuracy")
    assert flagged_text(old.cells["paper"]) == ""


def _flagless(out, tmp_path):
    """A copy of the run whose runs.csv says no task is flagged: the same numbers, so the
    same figures, without a mark."""
    import shutil

    copy = tmp_path / "flagless"
    shutil.copytree(out, copy)
    runs = pd.read_csv(copy / "runs.csv", keep_default_na=False, dtype=str)
    runs["flags"] = ""
    runs.to_csv(copy / "runs.csv", index=False)
    return copy


FIGURE_NOTE = "⚠ cells holding tasks flagged degenerate (runs.csv's flags): "


@pytest.mark.slow
def test_the_figures_mark_the_flagged_methods_and_count_their_cells(flagged_run, tmp_path):
    from obliq_cli.report.html_report import bayes_figure, cd_figure, size_figure

    _, out = flagged_run
    meta, runs, _ = obliq_cli.load_results(out).only()

    def texts(fig):
        return [t.get_text() for ax in fig.axes for t in ax.texts]

    # CD diagram: every algorithm is ranked on both datasets; its labels are "NAME (rank)"
    cd, _ = cd_figure(runs, "degenerate")
    names = {t.rsplit(" (", 1)[0] for t in texts(cd) if t.endswith(")") and " (" in t}
    assert names == {"FULL", "STUMP ⚠", "DUMMY ⚠"}
    note = FIGURE_NOTE + "STUMP 2 of 2, DUMMY 2 of 2"
    assert cd.obliq_note == note and cd._supxlabel.get_text().replace("\n", " ") == note
    # Bayesian matrix: the row and column labels
    bayes, _, _ = bayes_figure(runs, meta)
    ticks = [t.get_text() for t in bayes.axes[0].get_yticklabels()]
    assert ticks == [t.get_text() for t in bayes.axes[0].get_xticklabels()] == [
        "FULL", "STUMP ⚠", "DUMMY ⚠"]
    # after the line on its datasets (2 here, so the warning too)
    assert bayes.obliq_note == ("Signed-rank posterior over N = 2 datasets. ⚠ the posterior "
                                "rests on too few datasets (2; fewer than 5): a few datasets "
                                "that agree can push a probability past 0.95, so read it as a "
                                "description of these datasets, not as evidence about "
                                "others. " + note)
    # accuracy against size: the dummy has no size, so it is neither drawn nor counted
    size = size_figure(runs, meta)
    assert [t.get_text() for t in size.legends[0].get_texts()] == ["FULL", "STUMP ⚠"]
    assert size.obliq_note == FIGURE_NOTE + "STUMP 2 of 2"
    # the same numbers without flags: no mark, no line
    plain_meta, plain, _ = obliq_cli.load_results(_flagless(out, tmp_path)).only()
    for fig in (cd_figure(plain, "degenerate")[0], size_figure(plain, plain_meta)):
        assert fig.obliq_note == "" and fig._supxlabel is None
        assert not any("⚠" in t for t in texts(fig))
    # the Bayesian figure keeps only its line on the datasets
    plain_bayes = bayes_figure(plain, plain_meta)[0]
    assert plain_bayes.obliq_note.startswith("Signed-rank posterior over N = 2 datasets. ⚠")
    assert "flagged" not in plain_bayes.obliq_note
    assert not any("⚠" in t for t in texts(plain_bayes))
    # obliq plot prints the line after the two paths; the page puts it in the captions
    shown = CliRunner().invoke(main, ["plot", "cd", str(out), "-o", str(tmp_path / "cd")])
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines()[-1] == note
    captions = re.findall(r"<figcaption>([^<]*)</figcaption>", build_report([out]))
    assert sum(c.endswith(" " + note.replace("'", "&#x27;")) for c in captions) == 2  # CD, Bayes
    assert sum(c.endswith(" " + FIGURE_NOTE.replace("'", "&#x27;") + "STUMP 2 of 2")
               for c in captions) == 1


def test_agree_summary_says_how_many_agreeing_and_missing_cells_hold_flagged_tasks(
        flagged_run, tmp_path):
    import json
    import shutil

    from obliq_cli.report.agreement import render_agreement

    _, out = flagged_run
    copy = tmp_path / "degenerate"
    shutil.copytree(out, copy)
    # a paper whose FULL agrees on both datasets, STUMP on iris only, DUMMY on neither
    # (an sd of 100 makes the tolerance 200 points; a mean of -100 is missed by any)
    reference = tmp_path / "paper.csv"
    reference.write_text("dataset,method,metric,mean,sd\n"
                         "test-iris,FULL,test_accuracy,50,100\n"
                         "test-wine,FULL,test_accuracy,50,100\n"
                         "test-iris,STUMP,test_accuracy,50,100\n"
                         "test-wine,STUMP,test_accuracy,-100,\n"
                         "test-iris,DUMMY,test_accuracy,-100,\n")
    meta = json.loads((copy / "meta.json").read_text())
    meta["reference"], meta["results_dir"] = str(reference), str(copy)
    (copy / "meta.json").write_text(json.dumps(meta))
    row = md_cells(render_agreement([copy], summary=True))["degenerate"]
    assert row["agreement"] == (
        "test_accuracy: FULL 2/2, STUMP 1/2 (⚠ flagged: 1 within, 1 outside), "
        "DUMMY 0/1 (⚠ flagged: 0 within, 1 outside)")
    # the README's block, rendered from the committed summary, reads the same
    assert summarize([copy], tmp_path / "summary", today="2026-01-02") == ["degenerate"]
    summary = docs.read_summary(tmp_path / "summary")
    assert docs.agree_block(summary) == render_agreement([copy], summary=True)
    # results written before flags: the tally as it was
    plain = _flagless(copy, tmp_path)
    meta["results_dir"] = str(plain)
    (plain / "meta.json").write_text(json.dumps(meta))
    assert md_cells(render_agreement([plain], summary=True))["degenerate"]["agreement"] == (
        "test_accuracy: FULL 2/2, STUMP 1/2, DUMMY 0/1")
