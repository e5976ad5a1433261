"""What the results readers refuse or set aside (#35 items 2 and 4): arguments of the wrong
kind, folders no run leaves behind, and stored numbers no task can have written, which are
named with file, line and column and never averaged."""

import csv
import io
import json
import logging
import math

import pytest
from test_report import hand_rows, write_results

from obliq_cli.analysis.aggregate import load_results, summarise
from obliq_cli.analysis.agreement import run_time
from obliq_cli.analysis.results import Results
from obliq_cli.api import load_results as api_load_results
from obliq_cli.api import run_experiment
from obliq_cli.errors import ObliqError
from obliq_cli.report.agreement import run_time_text


@pytest.mark.parametrize("value, fragment, is_type", [
    (5, "give a folder path or a list of them (got int)", True),
    (b"results", "must be a str or a path (got bytes)", True),
    (["a", 3], "results[1]: a folder path must be a str or a path (got int)", True),
    ("", "results: an empty path", False),
    ("res\0ults", "holds a NUL byte", False),
    ([], "no results directory given", False),
])
def test_a_bad_path_is_one_line_saying_why(value, fragment, is_type):
    with pytest.raises(ObliqError) as raised:
        api_load_results(value)
    assert fragment in str(raised.value) and "\n" not in str(raised.value)
    assert isinstance(raised.value, TypeError) == is_type


def test_a_flag_must_be_a_bool(tmp_path):
    folder = write_results(tmp_path / "e", hand_rows())
    with pytest.raises(TypeError, match="show_all: must be True or False"):
        api_load_results(folder, show_all="no")  # "no" is true: it must not mean yes
    with pytest.raises(ObliqError, match="resume: must be True or False"):
        run_experiment("quickstart", output=tmp_path / "q", resume="no")


@pytest.mark.parametrize("output", ["", "a\0b"])
def test_run_refuses_an_output_that_is_empty_or_holds_nul(output, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ObliqError, match="--output: must be a folder path"):
        run_experiment("quickstart", output=output)
    assert list(tmp_path.iterdir()) == []  # "" once wrote the results here


@pytest.mark.parametrize("content, fragment", [
    (b"", "runs.csv: empty"), (b"\0" * 64, "no header line"), (b"\0" * 64 + b"\n", "line 1")])
def test_a_runs_file_no_run_writes_is_refused(tmp_path, content, fragment):
    folder = write_results(tmp_path / "e", hand_rows())
    (folder / "runs.csv").write_bytes(content)
    with pytest.raises(ObliqError, match=fragment):
        load_results([folder])


def test_a_folder_without_meta_json_is_refused(tmp_path):
    folder = write_results(tmp_path / "e", hand_rows())
    (folder / "meta.json").unlink()
    with pytest.raises(ObliqError, match="meta.json: missing"):
        Results.read(folder)


def test_rows_of_another_config_are_refused_not_hidden(tmp_path):
    folder = write_results(tmp_path / "e", [dict(r, task=f"t{i}") for i, r in
                                            enumerate(hand_rows())])
    meta = json.loads((folder / "meta.json").read_text())
    meta["task_identities"] = ["u0", "u1"]
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ObliqError, match="none of its 4 task"):
        load_results([folder])
    assert len(load_results([folder], show_all=True)[0]) == 4  # --all still shows them


@pytest.mark.parametrize("column, value", [
    ("test_accuracy", "150"), ("test_accuracy", "nan"), ("test_accuracy", "-inf"),
    ("n_leaves", "-2"), ("n_leaves", "2.5"), ("fit_time", "1e308"), ("fit_time", "-0.5"),
    ("macro_f1", "1.5"), ("n_test_correct", "-1"), ("tpr", "[0.5, 2]"),
])
def test_an_impossible_number_is_named_and_never_averaged(tmp_path, caplog, column, value):
    folder = write_results(tmp_path / "e", hand_rows())
    lines = (folder / "runs.csv").read_text().splitlines()
    header = lines[0].split(",")
    # line 3 (repetition 0, fold 1: 90 % of 30 rows) gets the impossible cell
    cells = next(csv.reader([lines[2]]))
    cells[header.index(column)] = value
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(cells)
    lines[2] = buffer.getvalue().rstrip("\n")
    (folder / "runs.csv").write_text("\n".join(lines) + "\n")
    with caplog.at_level(logging.WARNING, logger="obliq"):
        runs, _ = load_results([folder])
    said = [r.getMessage() for r in caplog.records]
    assert any(f"runs.csv: line 3: column {column}: {value}" in m for m in said), said
    assert list(runs["status"]) == ["ok", "error", "ok", "ok"]
    # repetition 0 is left with its fold of 80 %: (80 + 75) / 2, never the 150 or the NaN
    row = summarise(runs, "test_accuracy").iloc[0]
    assert math.isclose(row["mean"], (80 + (70 + 80) / 2) / 2)


def test_a_history_whose_clock_went_back_has_an_unknown_run_time():
    meta = {"history": [
        {"started": "2026-01-01T10:00:00+00:00", "finished": "2026-01-01T10:00:30+00:00"},
        {"started": "2026-01-01T12:00:00+00:00", "finished": "2026-01-01T11:00:00+00:00"}]}
    seconds, unfinished = run_time(meta)
    assert math.isnan(seconds) and unfinished == 0
    assert run_time_text(seconds, unfinished) == "unknown (the clock went back)"
    assert run_time({"history": meta["history"][:1]}) == (30.0, 0)
