"""The docs' run-derived figures come from the committed summary (docs/results), never typed.

- The committed README.md and docs/reproduction.md are what ``make reproductions`` renders
  from the committed summary (a failure names the stale block or figure and the fix).
- A number changed in a copy of the summary, with the docs not rendered again, is caught.
- ``summary.summarize`` on a results folder written here by hand (numbers chosen so every
  aggregate is known), and the rendered ``obliq agree --summary`` / ``obliq claims`` equal
  what those commands print from the results themselves.
"""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from obliq_cli.errors import ObliqError
from obliq_cli.experiment.schema import RUN_COLUMNS
from obliq_cli.report.agreement import render_agreement
from obliq_cli.report.claims import render_claims
from tools import docs
from tools.leaderboard import stale_figures
from tools.summary import (
    AGREE_COLUMNS,
    CELL_COLUMNS,
    CELL_COLUMNS_BEFORE_FLAGS,
    CLAIM_COLUMNS,
    FILES,
    FROM_RESULTS,
    RUN_KEYS,
    claims_from_cells,
    reclaim,
    summarize,
)
from tools.summary import main as summary_main

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = ROOT / "docs" / "results"
FIX = "make reproductions"


# --- the committed docs against the committed summary ---------------------------------------

def test_committed_docs_are_rendered_from_the_committed_summary():
    summary = docs.read_summary(SUMMARY)
    problems = []
    for name in docs.DOCS:
        text = (ROOT / name).read_text(encoding="utf-8")
        problems += [f"{name}: {what}" for what in docs.stale(text, summary, ROOT / name)]
    for folder in sorted(p for p in SUMMARY.iterdir() if (p / "facts.csv").is_file()):
        # a benchmark's CD and Bayes SVGs are redrawn from its CSVs (leaderboard.py)
        problems += [f"{folder.name}/{f}" for f in stale_figures(folder)]
    assert not problems, (f"figures that differ from docs/results (run `{FIX}`; after new "
                          f"runs `{FIX} RESULTS=<folder>`):\n" + "\n".join(problems))


def _pages() -> str:
    """Every page the docs pipeline renders, one after the other."""
    return "\n".join((ROOT / name).read_text(encoding="utf-8") for name in docs.DOCS)


def test_the_docs_have_the_generated_sections_the_issue_names():
    readme = _pages()
    for block in ("obliq agree", "obliq runs", "obliq claims", "obliq bench", "obliq benchmark",
                  "obliq table gdt_svm test_accuracy", "obliq invariances"):
        assert readme.count(f"<!-- {block}: begin -->") == 1, block
        assert readme.count(f"<!-- {block}: end -->") == 1, block
    for paper in ("apdt", "gdt", "hhcart", "oc1", "umt"):  # each paper's own page
        page = (ROOT / "docs" / "reproduced" / f"{paper}.md").read_text(encoding="utf-8")
        assert page.count(f"<!-- obliq paper {paper}: begin -->") == 1, paper
    # the paragraph that listed changes since the table by hand is gone
    assert "Since this table was generated" not in readme
    reproduction = (ROOT / "docs" / "reproduction.md").read_text(encoding="utf-8")
    assert len(docs.INLINE.findall(reproduction)) >= 50


def test_a_paper_page_holds_its_own_configs_tables_and_claims_and_no_other_papers():
    """The per-paper block is the shared renderers split by paper: every config of the
    paper under its heading with the table block the reproduction page would render, and
    exactly the claims of the paper's claims file (the count line names them all)."""
    from obliq_cli.analysis.claims import read_claims, shipped_claims

    summary = docs.read_summary(SUMMARY)
    files = {path.stem: path for path in shipped_claims()}
    for paper in ("apdt", "gdt", "hhcart", "oc1", "umt"):
        block = docs.paper_block(summary, paper)
        mine = docs.paper_configs(summary, paper)
        assert mine and all(f"### {name}\n" in block for name in mine), paper
        assert not any(f"### {name}\n" in block for name in set(summary.cells) - set(mine))
        assert docs.table_block(summary, mine[0], "test_accuracy"
                                if paper != "umt" else "test_error") in block
        claims = read_claims(files[paper])
        assert f"\n{len(claims)} claims: " in block, paper
        assert claims[0].quote in block  # quoted as written, so the next check can fail
        other = next(p for p in files if p != paper)
        assert read_claims(files[other])[0].quote not in block
    with pytest.raises(ObliqError, match="no summarised config of paper 'c45'"):
        docs.paper_block(summary, "c45")


def test_every_committed_config_summary_is_whole_and_its_tally_is_its_cells():
    # a benchmark's folder (facts.csv, no paper to agree with) is test_leaderboard's
    configs = [p for p in SUMMARY.iterdir() if p.is_dir() and not p.name.startswith(".")
               and not (p / "facts.csv").is_file()]
    assert len(configs) >= 16  # every shipped paper config
    for folder in configs:
        facts = pd.read_csv(folder / "run.csv", dtype=str, keep_default_na=False)
        assert list(facts["key"]) == RUN_KEYS, folder.name
        facts = dict(zip(facts["key"], facts["value"]))
        assert facts["config"] == folder.name
        agree = pd.read_csv(folder / "agree.csv")
        assert list(agree.columns) == AGREE_COLUMNS and len(agree), folder.name
        cells = pd.read_csv(folder / "cells.csv", dtype=str, keep_default_na=False)
        # summaries made before tasks carried degeneracy flags lack their three columns
        assert list(cells.columns) in (CELL_COLUMNS, CELL_COLUMNS_BEFORE_FLAGS), folder.name
        if facts["source"] != FROM_RESULTS:
            # a seeded summary says where its figures come from, never that they are fresh
            assert "results not kept" in facts["source"], folder.name
            continue
        assert facts["commit"] and facts["summarized"], folder.name
        # agree.csv is obliq agree's tally of cells.csv: recount it
        counts = cells.assign(ok=cells["within"] == "true").groupby(
            ["metric", "algorithm"], sort=False)["ok"].agg(["sum", "size"])
        for row in agree.itertuples():
            assert (row.within, row.compared) == tuple(counts.loc[(row.metric, row.algorithm)])


def test_committed_claims_are_the_claims_files_verdicts_where_the_cells_decide_them():
    """A claims file corrected after the runs: every claim the committed cells decide
    (means, sd rules, ranks) has the verdict the files give on them (summary --reclaim,
    which `make reproductions` without results runs)."""
    stale = []
    for folder in sorted(p for p in SUMMARY.iterdir() if (p / "cells.csv").is_file()):
        frame, _ = claims_from_cells(folder)
        committed = pd.read_csv(folder / "claims.csv", dtype=str, keep_default_na=False)
        fresh = frame.astype(str).replace("<NA>", "")
        stale += [f"{folder.name}: {row.claim}" for row, old in zip(
            fresh.itertuples(), committed.itertuples()) if tuple(row) != tuple(old)]
        if len(fresh) != len(committed):
            stale.append(f"{folder.name}: {len(committed)} claims, the files give "
                         f"{len(fresh)}")
    assert not stale, f"claims.csv differs from the claims files (run `{FIX}`): {stale}"


# --- a changed number is caught ----------------------------------------------------------------

def _edit(path: Path, column: str, where: dict, value) -> None:
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    rows = pd.Series(True, index=frame.index)
    for key, wanted in where.items():
        rows &= frame[key] == wanted
    assert rows.sum() == 1, (path, where)
    frame.loc[rows, column] = str(value)
    frame.to_csv(path, index=False, lineterminator="\n")


PERTURBATIONS = [
    # (file, column, row, new value, what the check must name)
    ("gdt_svm/agree.csv", "within", {"metric": "test_accuracy", "algorithm": "SVM"}, 3,
     ["block <!-- obliq agree -->", "figure <!--= agree-of gdt_svm test_accuracy * -->"]),
    ("hhcart_letter/cells.csv", "mean", {"metric": "n_leaves", "algorithm": "OC1"}, 999.5,
     ['block <!-- obliq table hhcart_letter "test_accuracy=accuracy,n_leaves=terminal '
      'nodes" letter -->']),
    ("gdt_svm/cells.csv", "mean", {"algorithm": "GEPSVM", "dataset": "magic6000"}, 70.01,
     ["block <!-- obliq table gdt_svm test_accuracy -->",
      "figure <!--= cell gdt_svm test_accuracy GEPSVM magic6000 mean:1 -->"]),
    ("umt_letter/run.csv", "value", {"key": "run_seconds"}, 59,
     ["block <!-- obliq agree -->", "block <!-- obliq runs -->",
      "figure <!--= run umt_letter wall -->"]),
    ("bench.csv", "seen", {"measure": "gdt on letter"}, "4.9x",
     ["block <!-- obliq bench -->"]),
]


# the first perturbation in the fast set, the others (the same check on other files) slow
@pytest.mark.parametrize("file, column, where, new, named", [
    pytest.param(*p, id=p[0], marks=[pytest.mark.slow] if i else [])
    for i, p in enumerate(PERTURBATIONS)])
def test_a_number_changed_in_a_copy_of_the_summary_fails_the_check(tmp_path, file, column,
                                                                   where, new, named):
    copy = tmp_path / "results"
    shutil.copytree(SUMMARY, copy)
    _edit(copy / file, column, where, new)
    readme = _pages()
    found = docs.stale(readme, docs.read_summary(copy))
    for what in named:
        assert any(f.startswith(what) for f in found), (what, found)
    # and the command-line check says so, with the fix, and exits 1 without writing
    files = [str(ROOT / name) for name in docs.DOCS]
    assert docs.main(["--check", "--summary", str(copy), *files]) == 1
    assert _pages() == readme
    # rendered again from the changed summary, the copy is up to date
    again = docs.render(readme, docs.read_summary(copy))
    assert docs.stale(again, docs.read_summary(copy)) == []


def test_check_names_the_stale_section_and_the_fix(tmp_path, capsys):
    copy = tmp_path / "results"
    shutil.copytree(SUMMARY, copy)
    # a verdict the rendered table does not show, whatever the last make bench found
    _edit(copy / "bench.csv", "met", {"measure": "gdt on letter"}, "not a verdict")
    page = str(ROOT / "docs" / "internals.md")
    assert docs.main(["--check", "--summary", str(copy), page]) == 1
    err = capsys.readouterr().err
    assert f"{page}: block <!-- obliq bench --> is stale; run `make reproductions`" in err


# --- summarize on a results folder written by hand ---------------------------------------------

# Per (dataset, algorithm): test accuracy of repetitions 0 and 1 (both folds the same), leaves
VALUES = {("d1", "A"): ((80.0, 84.0), 4), ("d1", "B"): ((70.0, 70.0), 9),
          ("d2", "A"): ((90.0, 90.0), 3), ("d2", "B"): ((60.0, 66.0), 7)}
# paper: A d1 within (|82 - 81| <= 2), B d1 out (|70 - 75| > max(2, 2 x 1)),
# A d2 within by its sd (|90 - 94| <= 2 x 2.5), B d2 within (|63 - 62| <= 2); leaves A d1 out
REFERENCE = """dataset,method,metric,mean,sd
d1,A,test_accuracy,81.0,
d1,B,test_accuracy,75.0,1.0
d2,A,test_accuracy,94.0,2.5
d2,B,test_accuracy,62.0,
d1,A,n_leaves,8.0,
d1,A,fit_time,0.2,
"""
HISTORY = [
    {"started": "2026-03-01T09:00:00+00:00", "finished": "2026-03-01T09:01:30+00:00",
     "command": "run", "tasks": {"total": 16}, "n_jobs": 2, "host": "box",
     "versions": {"obliq": "0.1.0", "git_commit": "0123456789abcdef"},
     "machine": {"cpu": "Some CPU", "cores": 4, "load_1min": 0.5}},
    {"started": "2026-03-02T10:00:00+00:00", "finished": "2026-03-02T10:00:30+00:00",
     "command": "run --resume", "tasks": {"total": 16}, "n_jobs": 1, "host": "box",
     "versions": {"obliq": "0.1.0", "git_commit": "0123456789abcdef"},
     "machine": {"cpu": "Some CPU", "cores": 4, "load_1min": 1.25}},
]


def write_experiment(directory: Path, name: str, reference: Path | None) -> Path:
    """runs.csv (2 datasets x 2 algorithms x 2 repetitions x 2 folds) and meta.json."""
    directory.mkdir(parents=True)
    rows = []
    for (dataset, algorithm), (accuracies, leaves) in VALUES.items():
        for repetition in (0, 1):
            for fold in (0, 1):
                row = dict.fromkeys(RUN_COLUMNS, "")
                row.update(task=f"{dataset}{algorithm}{repetition}{fold}", config_hash="h",
                           dataset=dataset, repetition=repetition, fold=fold,
                           algorithm=algorithm, algorithm_name="x", status="ok", n_train=40,
                           n_prune=0, n_test=50, n_test_correct=round(accuracies[repetition] / 2),
                           test_accuracy=accuracies[repetition], train_accuracy=100.0,
                           n_leaves=leaves, n_internal=leaves - 1, depth=2, fit_time=0.125,
                           predict_time=0.01, macro_f1=0.5, classes="[]", tpr="[]", tnr="[]",
                           confusion="[]")
                rows.append(row)
    pd.DataFrame(rows, columns=RUN_COLUMNS).to_csv(directory / "runs.csv", index=False)
    config = {"name": name, "algorithms": [{"label": "A"}, {"label": "B"}],
              "datasets": [{"label": "d1"}, {"label": "d2"}], "metrics": ["test_accuracy"]}
    meta = {"name": name, "reference": str(reference) if reference else None,
            "config": config, "history": HISTORY}
    (directory / "meta.json").write_text(json.dumps(meta))
    return directory


CLAIMS = [
    {"id": "a-better", "section": "§1", "quote": "A beats B", "experiment": "exp",
     "kind": "better_means", "algorithm": "A", "versus": ["B"], "metric": "test_accuracy",
     "over": "all"},
    {"id": "b-smaller", "section": "§2", "quote": "B is smaller", "experiment": "exp",
     "kind": "better_means", "algorithm": "B", "versus": ["A"], "metric": "n_leaves",
     "over": "all"},
    {"id": "elsewhere", "section": "§3", "quote": "on other data", "experiment": "other",
     "kind": "better_means", "algorithm": "A", "versus": ["B"], "metric": "test_accuracy"},
    {"id": "never", "section": "§4", "quote": "a theorem", "kind": "not_testable",
     "why": "a statement about complexity"},
]


@pytest.fixture
def results(tmp_path):
    reference = tmp_path / "paper.csv"
    reference.write_text(REFERENCE)
    write_experiment(tmp_path / "results" / "exp", "exp", reference)
    write_experiment(tmp_path / "results" / "plain", "plain", None)  # no paper: skipped
    claims = tmp_path / "p.yaml"
    claims.write_text(yaml.safe_dump({"paper": "P", "claims": CLAIMS}, sort_keys=False))
    return tmp_path / "results", claims


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_summarize_writes_the_known_aggregates_and_run_facts(results, tmp_path):
    folder, claims = results
    out = tmp_path / "summary"
    assert summarize([folder], out, today="2026-03-03", claim_files=[claims]) == ["exp"]
    assert sorted(p.name for p in out.iterdir()) == ["exp"]  # plain has no paper
    assert sorted(p.name for p in (out / "exp").iterdir()) == sorted(FILES)
    facts = dict(read(out / "exp" / "run.csv").values)
    assert list(facts) == RUN_KEYS
    assert (facts["source"], facts["summarized"], facts["started"], facts["finished"]) == (
        "results", "2026-03-03", "2026-03-01 09:00", "2026-03-02 10:00")
    assert (facts["commit"], facts["obliq"], facts["jobs"], facts["host"]) == (
        "0123456", "0.1.0", "2; 1", "box")
    assert (facts["cpu"], facts["cores"], facts["load"]) == ("Some CPU", "4", "0.5; 1.25")
    assert float(facts["run_seconds"]) == 90 + 30
    assert float(facts["fit_seconds"]) == 16 * 0.125
    assert (facts["tasks_ok"], facts["tasks_total"], facts["runs"]) == ("16", "16", "2")
    assert facts["not_compared"] == "fit_time"

    cells = read(out / "exp" / "cells.csv").set_index(["metric", "algorithm", "dataset"])
    expected = {  # mean over the two repetitions, sd of the two, within
        ("test_accuracy", "A", "d1"): (82.0, 2.8284, "true", 1.0),
        ("test_accuracy", "B", "d1"): (70.0, 0.0, "false", -5.0),
        ("test_accuracy", "A", "d2"): (90.0, 0.0, "true", -4.0),
        ("test_accuracy", "B", "d2"): (63.0, 4.2426, "true", 1.0),
    }
    for key, (mean, sd, within, delta) in expected.items():
        c = cells.loc[key]
        assert float(c["mean"]) == pytest.approx(mean)
        assert float(c["sd"]) == pytest.approx(sd, abs=1e-4)  # rounded to 4 places
        assert (c["within"], c["n"], c["counted"]) == (within, "2", "true")
        assert float(c["delta"]) == pytest.approx(delta)
    assert float(cells.loc[("test_accuracy", "A", "d2"), "tolerance"]) == 5.0  # 2 x 2.5
    assert cells.loc[("n_leaves", "A", "d1"), "within"] == "false"  # 4 against 8

    agree = read(out / "exp" / "agree.csv")
    assert agree[["metric", "algorithm", "within", "compared"]].values.tolist() == [
        ["test_accuracy", "A", "2", "2"], ["test_accuracy", "B", "1", "2"],
        ["n_leaves", "A", "0", "1"]]
    assert float(agree.loc[1, "mean_abs_delta"]) == pytest.approx((5 + 1) / 2)

    verdicts = read(out / "exp" / "claims.csv").set_index("claim")
    assert list(read(out / "exp" / "claims.csv").columns) == CLAIM_COLUMNS
    # only the claims about exp: A's accuracy is higher on both sets, B's trees smaller
    assert list(verdicts.index) == ["a-better", "b-smaller"]
    assert verdicts.loc["a-better", ["verdict", "wins", "losses"]].tolist() == [
        "holds", "2", "0"]
    assert verdicts.loc["b-smaller", ["verdict", "wins"]].tolist() == ["does not hold", "0"]


def test_rendered_agree_and_claims_are_what_the_commands_print(results, tmp_path):
    folder, claims = results
    out = tmp_path / "summary"
    summarize([folder], out, claim_files=[claims])
    summary = docs.read_summary(out)
    exp_only = folder / "exp"  # the summary keeps configs with a paper only
    assert docs.agree_block(summary) == render_agreement([exp_only], summary=True)
    assert docs.agreement_block(summary) == render_agreement([exp_only])
    assert docs.claims_block(summary, [claims]) == render_claims([exp_only], [claims])


def test_summarize_is_incremental_and_replaces_a_config_whole(results, tmp_path):
    folder, claims = results
    out = tmp_path / "summary"
    older = out / "older"
    older.mkdir(parents=True)
    (older / "run.csv").write_text("key,value\nconfig,older\nsource,seeded, results not kept\n")
    summarize([folder], out, claim_files=[claims])
    stray = out / "exp" / "stray.csv"
    stray.write_text("x\n")
    _edit(out / "exp" / "agree.csv", "within", {"metric": "n_leaves"}, 1)
    summarize([folder], out, claim_files=[claims])
    # exp rewritten whole (no stray file, the tally back), older left as it was
    assert not stray.exists()
    assert read(out / "exp" / "agree.csv")["within"].tolist() == ["2", "1", "0"]
    assert (older / "run.csv").read_text().startswith("key,value\nconfig,older\n")
    assert sorted(p.name for p in out.iterdir()) == ["exp", "older"]  # no temporary left


def test_a_folder_whose_run_has_not_finished_keeps_its_earlier_summary(results, tmp_path):
    folder, claims = results
    out = tmp_path / "summary"
    summarize([folder], out, claim_files=[claims])
    before = (out / "exp" / "run.csv").read_text()
    meta = json.loads((folder / "exp" / "meta.json").read_text())
    meta["history"].append({"started": "2026-03-04T08:00:00+00:00", "finished": None,
                            "tasks": {"total": 16}})
    (folder / "exp" / "meta.json").write_text(json.dumps(meta))
    skipped = []
    assert summarize([folder], out, claim_files=[claims], skipped=skipped) == []
    assert skipped == [("exp", "its latest run has not finished"), ("plain", "no paper "
                                                                             "reference")]
    assert (out / "exp" / "run.csv").read_text() == before
    assert summarize([folder], out, claim_files=[claims], partial=True) == ["exp"]
    facts = dict(read(out / "exp" / "run.csv").values)
    assert (facts["unfinished_runs"], facts["runs"]) == ("1", "3")


def test_a_claim_on_a_config_whose_results_were_not_kept_says_so(results, tmp_path):
    folder, claims = results
    out = tmp_path / "summary"
    summarize([folder], out, claim_files=[claims])
    _edit(out / "exp" / "run.csv", "value", {"key": "source"},
          "README table of 2026-01-01, results not kept")
    text = docs.claims_block(docs.read_summary(out), [claims])
    assert "| exp          | not testable here | exp: README table of 2026-01-01, results " \
           "not kept" in text
    assert "a statement about complexity" in text


CELLS = [("test_accuracy", "HHCART(A)", "wisconsin", 97.0, 0.3),
         ("test_accuracy", "FDT", "wisconsin", 95.7, 0.7),
         ("test_accuracy", "HHCART(A)", "pima", 73.5, 1.0),
         ("test_accuracy", "FDT", "pima", 69.04, 1.3)]


def test_reclaim_evaluates_what_the_cells_decide_and_keeps_the_runs_rows_of_the_rest(
        tmp_path):
    """A summary folder of a shipped config (its datasets are the config's), written by
    hand: the claims the cells decide are evaluated on them, a per-fold test and a metric
    without cells keep the runs' row, an undecided claim without one is left out."""
    folder = tmp_path / "summary" / "hhcart_fdt"
    folder.mkdir(parents=True)
    pd.DataFrame([dict(zip(["metric", "algorithm", "dataset", "mean", "sd"], c), n=10)
                  for c in CELLS], columns=CELL_COLUMNS).to_csv(folder / "cells.csv",
                                                                index=False)
    old = [["acc", "does not hold", "datasets", 0, 0, 2, 2, "stale"],
           ["folds", "holds", "datasets", 1, 0, 0, 1, "from the runs, with a t-test"],
           ["leaves", "partly", "datasets", 1, 1, 0, 2, "from the runs, by leaves"]]
    pd.DataFrame(old, columns=CLAIM_COLUMNS).to_csv(folder / "claims.csv", index=False)
    pair = {"experiment": "hhcart_fdt", "algorithm": "HHCART(A)", "versus": "FDT",
            "datasets": ["wisconsin", "pima"]}
    claims = tmp_path / "p.yaml"
    claims.write_text(yaml.safe_dump({"paper": "P", "claims": [
        {"id": "acc", "section": "§1", "quote": "q", "kind": "better_means",
         "metric": "test_accuracy", **pair},
        {"id": "folds", "section": "§1", "quote": "q", "kind": "significantly_better_count",
         "metric": "test_accuracy", "test": "t", **pair},
        {"id": "leaves", "section": "§1", "quote": "q", "kind": "better_means",
         "metric": "n_leaves", **pair},
        {"id": "new-leaves", "section": "§1", "quote": "q", "kind": "better_means",
         "metric": "n_leaves", **pair},
        # gaps 1.3 and 4.46 against sqrt(0.3² + 0.7²) = 0.76 and sqrt(1 + 1.69) = 1.64
        {"id": "new-sd", "section": "§1", "quote": "q", "kind": "significantly_better_count",
         "metric": "test_accuracy", "test": "sd_difference", "sds": 1, **pair},
        {"id": "away", "section": "§1", "quote": "q", "kind": "better_means",
         "metric": "test_accuracy", **{**pair, "experiment": "hhcart_uci"}},
    ]}, sort_keys=False))
    assert reclaim(tmp_path / "summary", claim_files=[claims]) == {
        "hhcart_fdt": ["folds", "leaves"]}
    rows = read(folder / "claims.csv")
    assert list(rows.columns) == CLAIM_COLUMNS
    assert rows.values.tolist() == [
        ["acc", "holds", "datasets", "2", "0", "0", "2",
         "HHCART(A) better than FDT on 2 of 2 datasets, worse than FDT on 0; w/t/l vs FDT "
         "2/0/0; test_accuracy by means compared (test_accuracy higher is better)"],
        ["folds", "holds", "datasets", "1", "0", "0", "1", "from the runs, with a t-test"],
        ["leaves", "partly", "datasets", "1", "1", "0", "2", "from the runs, by leaves"],
        ["new-sd", "holds", "datasets", "2", "0", "0", "2",
         "HHCART(A) better than FDT on 2 of 2 datasets, worse than FDT on 0; w/t/l vs FDT "
         "2/0/0; test_accuracy by difference > 1 × √(sd₁² + sd₂²) (test_accuracy higher is "
         "better)"]]
    assert summary_main(["--reclaim", "nowhere", "-o", str(tmp_path / "summary")]) == 2


# --- rendering --------------------------------------------------------------------------------

def test_render_rewrites_marked_figures_only_and_refuses_unknown_ones(results, tmp_path):
    folder, claims = results
    out = tmp_path / "summary"
    summarize([folder], out, claim_files=[claims])
    summary = docs.read_summary(out)
    text = ("Prose 1/2 stays. A: <!--= agree exp test_accuracy A -->0/0<!--/-->, all: "
            "<!--= agree-of exp * * -->?<!--/-->; B on d1 <!--= cell exp test_accuracy B d1 "
            "mean_sd:1 -->old<!--/--> (paper <!--= cell exp test_accuracy B d1 paper -->x<!--/-->"
            "); misses <!--= misses exp test_accuracy -->?<!--/-->; took "
            "<!--= run exp wall -->?<!--/-->.\n<!-- obliq table exp test_accuracy: begin -->\n"
            "old table\n<!-- obliq table exp test_accuracy: end -->\ntail 3.5\n")
    rendered = docs.render(text, summary)
    assert rendered.startswith("Prose 1/2 stays. A: <!--= agree exp test_accuracy A -->2/2<!--/"
                               "-->, all: <!--= agree-of exp * * -->3 of 5<!--/-->")
    assert "-->70.0 ± 0.0<!--/--> (paper <!--= cell exp test_accuracy B d1 paper -->75.0 ± " \
           "1.0<!--/-->" in rendered
    assert "-->B on d1<!--/-->; took <!--= run exp wall -->2 min<!--/-->." in rendered
    table = rendered.split("begin -->\n\n")[1].split("\n\n<!--")[0].splitlines()
    assert [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]] == [
        ["d1", "82.00 ± 2.83", "81.0", "+1.00 ✓", "70.00 ± 0.00", "75.0 ± 1.0", "-5.00"],
        ["d2", "90.00 ± 0.00", "94.0 ± 2.5", "-4.00 ✓", "63.00 ± 4.24", "62.0", "+1.00 ✓"]]
    assert rendered.endswith("<!-- obliq table exp test_accuracy: end -->\ntail 3.5\n")
    assert docs.stale(rendered, summary) == []
    assert docs.render(rendered, summary) == rendered
    # |delta| on d1: A 1, B 5; over all four cells (1 + 5 + 4 + 1) / 4
    assert docs.value(summary, "range exp test_accuracy d1 * abs_delta:1") == "1.0 to 5.0"
    assert docs.value(summary, "range exp test_accuracy d2 A+B delta") == "-4.00 to +1.00"
    assert docs.value(summary, "mad exp test_accuracy * 2") == "2.75"
    assert docs.value(summary, "mad exp test_accuracy B 1") == "3.0"
    with pytest.raises(ObliqError, match="no cell test_accuracy B d9"):
        docs.render("<!--= cell exp test_accuracy B d9 mean -->1<!--/-->", summary)
    with pytest.raises(ObliqError, match="no summary of config 'nope'"):
        docs.render("<!--= run nope wall -->1<!--/-->", summary)
    (out / "broken").mkdir()
    (out / "broken" / "run.csv").write_text("config,broken\n")
    with pytest.raises(ObliqError, match="broken/run.csv: columns must be key, value"):
        docs.read_summary(out)
    with pytest.raises(ObliqError, match="unknown generated block"):
        docs.render("<!-- obliq nonsense: begin -->\n<!-- obliq nonsense: end -->", summary)


def test_the_command_line_renders_in_place_and_fails_cleanly(results, tmp_path, capsys):
    folder, claims = results
    out = tmp_path / "summary"
    summarize([folder], out, claim_files=[claims])
    page = tmp_path / "page.md"
    page.write_text("<!--= agree exp test_accuracy B -->0/0<!--/-->\n")
    assert docs.main(["--summary", str(out), str(page)]) == 0
    assert page.read_text() == "<!--= agree exp test_accuracy B -->1/2<!--/-->\n"
    assert docs.main(["--check", "--summary", str(out), str(page)]) == 0
    page.write_text("<!--= agree exp n_leaves Z -->0/0<!--/-->\n")
    assert docs.main(["--summary", str(out), str(page)]) == 2
    assert capsys.readouterr().err.startswith("error: no agreement of n_leaves Z in exp")
    assert page.read_text() == "<!--= agree exp n_leaves Z -->0/0<!--/-->\n"  # untouched


# --- make bench's summary ----------------------------------------------------------------------

def test_bench_csv_is_replaced_by_a_whole_run_and_merged_by_a_partial_one(tmp_path, bench):
    fit = bench.Fit("oc1", "magic", 1000, 0.5, 0.01, 200, [50.0], 0.3)
    bench.write_csv(tmp_path, [bench.Row("oc1 on magic", "<= 100x", "50.0x", True),
                               bench.Row("old row", "<= 1x", "2.0x", False)], [fit], True)
    bench.write_csv(tmp_path, [bench.Row("gdt on letter", "<= 5x", "4.0x", True),
                               bench.Row("old row", "<= 1x", "0.5x", True)], [], False)
    rows = read(tmp_path / "bench.csv")
    assert rows[["measure", "seen", "met"]].values.tolist() == [
        ["oc1 on magic", "50.0x", "yes"], ["gdt on letter", "4.0x", "yes"],
        ["old row", "0.5x", "yes"]]
    fits = read(tmp_path / "bench_fits.csv")
    assert fits[["rows", "seconds", "s_per_1000_rows", "nodes", "ms_per_node"]].values.tolist() \
        == [["1000", "0.500", "0.5000", "200", "2.500"]]
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "run.csv").write_text("key,value\nconfig,x\n")
    block = docs.bench_block(docs.read_summary(tmp_path))
    assert "| gdt on letter | <= 5x    | 4.0x   | yes   |" in block
    assert block.endswith("(3 rows).")


def test_the_runner_records_the_machine_a_run_starts_on():
    import os

    from obliq_cli.experiment.provenance import machine

    facts = machine()
    assert facts["cores"] == os.cpu_count()
    assert facts["load_1min"] == pytest.approx(os.getloadavg()[0], abs=2.0)
    assert isinstance(facts["cpu"], str)


def test_an_inline_run_figure_reads_a_benchmark_facts_too():
    from tools.docs import Summary, value

    facts = {"tasks_ok": "7250", "tasks_total": "7250", "tasks_failed": "0",
             "run_seconds": "4822.0", "unfinished_runs": "0", "started": "2026-11-26 10:36"}
    summary = Summary(benchmarks={"benchmark": {"facts": facts}})
    assert value(summary, "run benchmark tasks") == "7250"
    assert value(summary, "run benchmark wall") == "1 h 20 min"
    assert value(summary, "run benchmark date") == "2026-11-26"
    with pytest.raises(ObliqError, match="no summary of config 'other'"):
        value(summary, "run other wall")
