"""A results folder that grows, survives damage and stays inside its walls.

Task-keyed rows (a config may grow between runs and --resume runs only the new tasks), the
run history in meta.json, the lock, damaged files, and names that reach the file system.
"""

import csv
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from obliq_cli.cli import main
from obliq_cli.config import load_config
from obliq_cli.errors import ObliqError
from obliq_cli.experiment import results
from obliq_cli.experiment.runner import run_experiment
from obliq_cli.experiment.schema import TIME_COLUMNS
from obliq_cli.registry import register_dataset
from obliq_cli.report.tables import render_tables

BASE = """
name: grow
seed: 5
datasets: [test-iris]
algorithms:
  - {{name: test-tree, label: DEEP}}
{more_algorithms}
protocol: {{name: kfold, folds: 3, repeats: {repeats}, prune_fraction: 0.2}}
output: {out}
"""


def grow_config(write_config, out, *, repeats=2, datasets=None, more="", file="grow.yaml"):
    text = BASE.format(more_algorithms=more, repeats=repeats, out=out)
    if datasets:
        text = text.replace("datasets: [test-iris]", f"datasets: {datasets}")
    return write_config(text, file)


def invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def data_lines(out: Path) -> list[bytes]:
    return (out / "runs.csv").read_bytes().splitlines(keepends=True)[1:]


def test_a_grown_config_runs_only_its_new_tasks_and_keeps_the_stored_bytes(write_config,
                                                                           tmp_path):
    out = tmp_path / "grow"
    first = grow_config(write_config, out)
    assert invoke(["run", first, "--no-progress"]).exit_code == 0
    stored = data_lines(out)
    assert len(stored) == 1 * 2 * 3 * 1
    # one algorithm, one dataset and two repetitions more
    grown = grow_config(write_config, out, repeats=4, datasets="[test-iris, test-fixed]",
                        more="  - {name: test-tree, label: STUMP, params: {max_depth: 1}}",
                        file="grown.yaml")
    result = invoke(["run", grown, "--resume", "--no-progress"])
    assert result.exit_code == 0, result.output
    # 2 datasets x 4 repetitions x 3 folds x 2 algorithms = 48 tasks, 6 of them stored
    assert "42 task(s) run, 6 already done" in result.output
    lines = data_lines(out)
    assert lines[:6] == stored and len(lines) == 48
    # the same rows as a run of the grown config from nothing (times aside)
    whole = tmp_path / "whole"
    run_experiment(load_config(grown, {"output": str(whole)}), progress=False)

    def rows(path):
        frame = pd.read_csv(path / "runs.csv", keep_default_na=False)
        return frame.drop(columns=TIME_COLUMNS + ["config_hash"]).sort_values(
            "task").reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(out), rows(whole))
    table = render_tables([out], sig="DEEP")
    assert table.count("| test-") == 2 and "STUMP" in table and "(w/t/l) vs DEEP" in table
    assert "4 repetitions" in table


def test_a_folder_written_before_fit_cpu_resumes_in_its_own_columns(write_config, tmp_path):
    """runs.csv of an obliq that had no fit_cpu column: a resume appends rows in the
    file's header (no fit_cpu for them either), and the folder reads as one table."""
    out = tmp_path / "grow"
    first = grow_config(write_config, out)
    assert invoke(["run", first, "--no-progress"]).exit_code == 0
    frame = pd.read_csv(out / "runs.csv", dtype=str, keep_default_na=False)
    assert (frame["fit_cpu"].astype(float) > 0).all()
    old = frame.drop(columns=["fit_cpu"])
    old.to_csv(out / "runs.csv", index=False)
    grown = grow_config(write_config, out, repeats=3, file="grown.yaml")
    result = invoke(["run", grown, "--resume", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "3 task(s) run, 6 already done" in result.output
    resumed = pd.read_csv(out / "runs.csv", dtype=str, keep_default_na=False)
    assert list(resumed.columns) == list(old.columns) and len(resumed) == 9
    pd.testing.assert_frame_equal(resumed.iloc[:6], old)
    table = invoke(["table", out, "--metric", "fit_cpu"])
    assert (table.exit_code, table.output.strip()) == (
        0, "grow: fit_cpu: no values in the finished tasks")
    assert "3 repetitions" in invoke(["table", out, "--metric", "fit_time"]).output


def test_a_folder_written_before_oblique_fraction_reads_it_blank(write_config, tmp_path):
    """runs.csv of an obliq that had no oblique_fraction column: the folder still loads,
    its table of the metric says it has none, and a resume keeps the file's columns."""
    out = tmp_path / "grow"
    cart = "  - {name: cart-ap, label: CART, params: {max_depth: 2}}"
    first = grow_config(write_config, out, more=cart)
    assert invoke(["run", first, "--no-progress"]).exit_code == 0
    frame = pd.read_csv(out / "runs.csv", dtype=str, keep_default_na=False)
    by_algorithm = frame.groupby("algorithm")["oblique_fraction"].agg(set).to_dict()
    # CART-AP splits on one column at a time; the test double is no obliq tree: blank
    assert by_algorithm == {"CART": {"0.0"}, "DEEP": {""}}
    shown = invoke(["table", out, "--metric", "oblique_fraction"])
    assert shown.exit_code == 0 and "0.00 ± 0.00" in shown.output, shown.output
    old = frame.drop(columns=["oblique_fraction"])
    old.to_csv(out / "runs.csv", index=False)
    table = invoke(["table", out, "--metric", "oblique_fraction"])
    assert (table.exit_code, table.output.strip()) == (
        0, "grow: oblique_fraction: no values in the finished tasks")
    grown = grow_config(write_config, out, repeats=3, more=cart, file="grown.yaml")
    assert invoke(["run", grown, "--resume", "--no-progress"]).exit_code == 0
    resumed = pd.read_csv(out / "runs.csv", dtype=str, keep_default_na=False)
    assert list(resumed.columns) == list(old.columns) and len(resumed) == 18


def test_tasks_that_left_the_config_are_kept_but_shown_only_with_all(write_config, tmp_path):
    out = tmp_path / "grow"
    two = grow_config(write_config, out, more="  - {name: test-tree, label: STUMP, params: "
                                              "{max_depth: 1}}")
    run_experiment(load_config(two), progress=False)
    # STUMP's depth changes: its old rows leave the config, the new ones are run
    changed = grow_config(write_config, out, more="  - {name: test-tree, label: STUMP, "
                                                  "params: {max_depth: 2}}", file="c.yaml")
    summary = run_experiment(load_config(changed), resume=True, progress=False)
    assert (summary.ran, summary.skipped) == (6, 6)
    assert len(data_lines(out)) == 18
    shown = render_tables([out], fmt="csv")
    assert set(pd.read_csv(pd.io.common.StringIO(shown))["algorithm"]) == {"DEEP", "STUMP"}
    every = pd.read_csv(pd.io.common.StringIO(render_tables([out], fmt="csv", show_all=True)))
    assert set(every["algorithm"]) == {"DEEP", "STUMP", "STUMP (earlier)"}
    result = invoke(["table", out, "--all"])
    assert result.exit_code == 0 and "STUMP (earlier)" in result.output


def test_a_left_task_of_a_changed_algorithm_is_earlier_on_a_dropped_dataset(write_config,
                                                                            tmp_path):
    """STUMP's depth changes and test-fixed leaves the config: with --all, STUMP's old rows
    on test-fixed meet no current STUMP row, but they would share STUMP's column with the
    new depth's results on test-iris, so they are "STUMP (earlier)" too."""
    out = tmp_path / "grow"
    stump = "  - {{name: test-tree, label: STUMP, params: {{max_depth: {depth}}}}}"
    two = grow_config(write_config, out, datasets="[test-iris, test-fixed]",
                      more=stump.format(depth=1))
    run_experiment(load_config(two), progress=False)
    changed = grow_config(write_config, out, more=stump.format(depth=2), file="c.yaml")
    summary = run_experiment(load_config(changed), resume=True, progress=False)
    assert (summary.ran, summary.skipped) == (6, 6)
    every = pd.read_csv(pd.io.common.StringIO(render_tables([out], fmt="csv", show_all=True)))
    cells = set(zip(every["dataset"], every["algorithm"]))
    assert ("test-fixed", "STUMP (earlier)") in cells
    assert ("test-fixed", "STUMP") not in cells
    # DEEP did not change: its rows on the dropped dataset stay in its own column
    assert ("test-fixed", "DEEP") in cells and ("test-fixed", "DEEP (earlier)") not in cells


@pytest.mark.parametrize("change, field", [
    ("seed: 5", "seed"),
    ("folds: 3", "protocol.folds"),
    ("prune_fraction: 0.2", "protocol.prune_fraction"),
])
def test_a_change_of_stored_folds_is_refused_naming_the_field(write_config, tmp_path, change,
                                                              field):
    out = tmp_path / "grow"
    path = grow_config(write_config, out)
    run_experiment(load_config(path), progress=False)
    before = (out / "runs.csv").read_bytes(), (out / "meta.json").read_bytes()
    new = {"seed: 5": "seed: 6", "folds: 3": "folds: 4",
           "prune_fraction: 0.2": "prune_fraction: 0.3"}[change]
    changed = write_config(path.read_text().replace(change, new), "changed.yaml")
    result = invoke(["run", changed, "--resume", "--no-progress"])
    assert result.exit_code == 2
    assert f"{field}: the config changed the folds of tasks already stored" in result.output
    assert ((out / "runs.csv").read_bytes(), (out / "meta.json").read_bytes()) == before


def test_a_dataset_whose_params_change_is_refused(write_config, tmp_path):
    out = tmp_path / "wine"
    path = write_config(f"""
        name: wine
        datasets: [{{name: test-wine, params: {{classes: 3}}}}]
        algorithms: [test-tree]
        protocol: {{name: kfold, folds: 2}}
        output: {out}
        """)
    run_experiment(load_config(path), progress=False)
    changed = write_config(path.read_text().replace("classes: 3", "classes: 2"), "c.yaml")
    with pytest.raises(ObliqError, match=r"datasets\[0\].params.classes: the config changed"):
        run_experiment(load_config(changed), resume=True, progress=False)


def test_history_appends_one_entry_per_invocation_and_keeps_the_first(write_config,
                                                                      tmp_path):
    out = tmp_path / "grow"
    path = grow_config(write_config, out)
    run_experiment(load_config(path), progress=False)
    first = json.loads((out / "meta.json").read_text())["history"][0]
    run_experiment(load_config(path), resume=True, progress=False)  # nothing to run
    grown = grow_config(write_config, out, repeats=3, file="g.yaml")
    run_experiment(load_config(grown), resume=True, progress=False, n_jobs=1)
    history = json.loads((out / "meta.json").read_text())["history"]
    assert len(history) == 3 and history[0] == first
    assert [h["command"] for h in history] == ["run", "run --resume", "run --resume"]
    assert [h["tasks"]["ran"] for h in history] == [6, 0, 3]
    assert [h["tasks"]["skipped"] for h in history] == [0, 6, 6]
    assert all(h["finished"] >= h["started"] and h["host"] for h in history)


def test_a_second_run_into_a_held_folder_is_refused(write_config, tmp_path):
    out = tmp_path / "grow"
    path = grow_config(write_config, out)
    with results.folder_lock(out):
        result = invoke(["run", path, "--no-progress"])
        assert result.exit_code == 2
        assert "another obliq run is writing here (pid" in result.output
        assert not (out / "runs.csv").exists()
    assert invoke(["run", path, "--no-progress"]).exit_code == 0


def test_force_deletes_only_what_obliq_wrote(write_config, tmp_path):
    out = tmp_path / "theirs"
    out.mkdir()
    (out / "runs.csv").write_text("their,own,file\n")
    path = grow_config(write_config, out)
    result = invoke(["run", path, "--force", "--no-progress"])
    assert result.exit_code == 2 and "no obliq meta.json beside it" in result.output
    assert (out / "runs.csv").read_text() == "their,own,file\n"
    (out / "runs.csv").unlink()
    (out / "meta.json").write_text('{"mine": 1}')
    for flag in ("--force", "--resume"):
        result = invoke(["run", path, flag, "--no-progress"])
        assert result.exit_code == 2 and "not a meta.json written by obliq" in result.output
    assert (out / "meta.json").read_text() == '{"mine": 1}'


@register_dataset("test-many-classes", "test only: 260 classes of 4 rows each")
def load_many_classes():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(260), 4)
    X = np.column_stack([y + rng.normal(0, 0.1, y.size), rng.normal(size=y.size)])
    return X, y, {"name": "test-many-classes", "feature_names": ["a", "b"], "source": "test"}


def test_damaged_results_are_recovered_or_one_line(write_config, tmp_path):
    out = tmp_path / "grow"
    path = grow_config(write_config, out)
    run_experiment(load_config(path), progress=False)
    good = (out / "runs.csv").read_bytes()
    # 300 random bytes appended: set aside, the rows kept byte for byte
    noise = np.random.default_rng(1).integers(0, 256, 300, dtype=np.uint8).tobytes()
    (out / "runs.csv").write_bytes(good + b"\n" + noise)
    result = invoke(["table", out])
    assert result.exit_code == 2 and result.output.startswith("error: ")
    assert len(result.output.strip().splitlines()) == 1
    result = invoke(["run", path, "--resume", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "moved to runs.damaged" in result.output and "0 task(s) run" in result.output
    assert (out / "runs.csv").read_bytes() == good
    assert noise[:20] in (out / "runs.damaged").read_bytes()
    # a row whose repetition is x: set aside, its task runs again
    lines = good.splitlines(keepends=True)
    cells = lines[3].split(b",")
    cells[3] = b"x"
    (out / "runs.csv").write_bytes(b"".join(lines[:3]) + b",".join(cells) + b"".join(lines[4:]))
    result = invoke(["table", out])
    assert result.exit_code == 2 and "repetition must be an integer" in result.output
    result = invoke(["run", path, "--resume", "--no-progress"])
    assert result.exit_code == 0 and "1 task(s) run, 5 already done" in result.output
    assert set((out / "runs.csv").read_bytes().splitlines()) - set(good.splitlines()) != set()
    # meta.json holding [1, 2]: one line, nothing changed
    (out / "meta.json").write_text("[1, 2]")
    for args in (["run", path, "--resume", "--no-progress"], ["table", out]):
        result = invoke(args)
        assert result.exit_code == 2, result.output
        assert "meta.json" in result.output and len(result.output.strip().splitlines()) == 1


def test_a_confusion_matrix_beyond_the_csv_field_limit_resumes(write_config, tmp_path):
    out = tmp_path / "many"
    path = write_config(f"""
        name: many
        datasets: [test-many-classes]
        algorithms: [{{name: test-tree, params: {{max_depth: 3}}}}]
        protocol: {{name: kfold, folds: 2, stratified: true}}
        output: {out}
        """)
    run_experiment(load_config(path), progress=False)
    assert max(len(line) for line in data_lines(out)) > 131072  # csv's default limit
    limit = csv.field_size_limit()
    result = invoke(["run", path, "--resume", "--no-progress"])
    assert result.exit_code == 0 and "0 task(s) run, 2 already done" in result.output
    assert invoke(["table", out]).exit_code == 0
    # the raised limit was runs.csv's only: a data file read later in the same process
    # still refuses a field beyond csv's usual limit (the hardening corpus checks that)
    assert csv.field_size_limit() == limit


@pytest.mark.parametrize("label", ["../../TRAVERSED", "../../../../TRAVERSED",
                                   "/tmp/obliq-absolute-label",
                                   "..", "a/b", "cache.npz"])
def test_dataset_labels_never_name_a_file_outside_the_folder(write_config, tmp_path, label):
    out = tmp_path / "deep" / "er" / "out"
    path = write_config(f"""
        name: labels
        datasets: [{{name: test-iris, label: '{label}'}}]
        algorithms: [test-tree]
        protocol: {{name: kfold, folds: 2}}
        output: {out}
        """)
    before = set(tmp_path.rglob("*"))
    run_experiment(load_config(path), progress=False)
    written = set(tmp_path.rglob("*")) - before
    assert all(out in p.parents or p == out or p in out.parents for p in written), written
    assert not Path(f"{label}.npz").exists() or label == "cache.npz"
    (fold_file,) = (out / "folds").iterdir()
    assert fold_file == results.fold_file(out, label) and fold_file.parent == out / "folds"
    assert render_tables([out]).count(f"| {label}") == 1


def test_safe_file_names_are_plain_and_distinct():
    assert results.safe_file_name("heart") == "heart"
    names = {results.safe_file_name(x) for x in
             ["a/b", "a_b", "a\\b", "../a_b", "/a_b", ".hidden", "x" * 65, "x" * 66, "é"]}
    assert len(names) == 9
    for name in names:
        assert "/" not in name and "\\" not in name and not name.startswith(".")
        assert len(name) <= 64


@pytest.mark.parametrize("label", ["a\x00b", "two\nlines", "tab\there"])
def test_control_characters_in_labels_are_config_errors(write_config, tmp_path, label):
    path = write_config(f"""
        name: labels
        datasets: [{{name: test-iris, label: {json.dumps(label)}}}]
        algorithms: [test-tree]
        protocol: {{name: kfold, folds: 2}}
        output: {tmp_path / 'out'}
        """)
    result = invoke(["run", path, "--no-progress"])
    assert result.exit_code == 2 and "datasets[0].label: must not hold a control" in \
        result.output
    assert not (tmp_path / "out").exists()


def test_a_run_killed_before_its_first_row_keeps_its_history(write_config, tmp_path):
    out = tmp_path / "grow"
    path = grow_config(write_config, out)
    run_experiment(load_config(path), progress=False)
    os.truncate(out / "runs.csv", 0)
    run_experiment(load_config(path), progress=False)
    history = json.loads((out / "meta.json").read_text())["history"]
    assert len(history) == 2 and history[1]["tasks"]["ran"] == 6


@pytest.mark.slow
def test_a_label_in_math_text_is_drawn_as_it_is(write_config, tmp_path):
    out = tmp_path / "math"
    path = write_config(f"""
        name: math
        datasets: [test-iris, {{name: test-wine, label: '$\\\\undefinedmacro$'}}]
        algorithms: [test-tree, {{name: test-tree, label: '$x_{{1}}$', params: {{max_depth: 1}}}}]
        protocol: {{name: kfold, folds: 2}}
        output: {out}
        """)
    run_experiment(load_config(path), progress=False)
    for args in (["report", out], ["plot", "size", out], ["plot", "cd", out]):
        result = invoke(args)
        assert result.exit_code == 0, (args, result.output)


def test_a_label_naming_a_cached_dataset_file_leaves_it_alone(write_config, tmp_path):
    # the fold file is <label>.npz: a label equal to a cache file's path without (or with)
    # its .npz must not reach the cache, even with the output in the cache folder itself
    from obliq_cli.data.catalog import cache_dir

    cached = cache_dir() / "victim-0123456789abcdef.npz"
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(b"cached arrays")
    out = cache_dir()
    path = write_config(f"""
        name: cached
        datasets: [{{name: test-iris, label: '{cached.with_suffix("")}'}},
                   {{name: test-iris, label: '{cached}'}},
                   {{name: test-iris, label: '{cached.name}'}}]
        algorithms: [test-tree]
        protocol: {{name: kfold, folds: 2}}
        output: {out}
        """)
    try:
        run_experiment(load_config(path), progress=False)
        assert cached.read_bytes() == b"cached arrays"
        assert len(list((out / "folds").iterdir())) == 3
    finally:  # the session's cache folder: take our results away again
        results.delete_own_files(out)
        cached.unlink()
    assert not (out / "folds").exists() and not (out / "runs.csv").exists()


def test_a_relative_output_is_relative_to_the_working_folder(write_config, tmp_path,
                                                              monkeypatch):
    work = tmp_path / "a" / "b" / "c"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    path = write_config(BASE.format(more_algorithms="", repeats=1, out="../../x"))
    before = set(tmp_path.rglob("*"))
    assert invoke(["run", path, "--no-progress"]).exit_code == 0
    written = set(tmp_path.rglob("*")) - before
    assert written and all(p == tmp_path / "a" / "x" or tmp_path / "a" / "x" in p.parents
                           for p in written), written


def test_a_symlinked_output_is_followed_and_force_keeps_what_is_not_ours(write_config,
                                                                         tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    link = tmp_path / "link"
    link.symlink_to(target)
    path = grow_config(write_config, link, repeats=1)
    for flags in ([], ["--force"]):
        assert invoke(["run", path, "--no-progress", *flags]).exit_code == 0
    assert link.is_symlink() and (target / "runs.csv").is_file()
    assert (target / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("damage", [lambda b: b[: len(b) // 2], lambda b: b"hello" * 50])
def test_an_unreadable_fold_file_is_rewritten_the_same_on_resume(write_config, tmp_path,
                                                                 damage):
    out = tmp_path / "out"
    config = grow_config(write_config, out)
    assert invoke(["run", config, "--no-progress"]).exit_code == 0
    folds = next((out / "folds").glob("*.npz"))
    with np.load(folds) as stored:
        before = stored["roles"].copy()
    rows = data_lines(out)
    folds.write_bytes(damage(folds.read_bytes()))  # truncated: was a BadZipFile traceback
    result = invoke(["run", config, "--resume", "--no-progress"])
    assert result.exit_code == 0, result.output
    with np.load(folds) as stored:
        assert np.array_equal(stored["roles"], before)
    assert data_lines(out) == rows  # no task re-run, no row lost


def test_every_damaged_meta_json_field_is_a_line_of_one_error(tmp_path):
    # each field declared in results.META_KEYS, refused in its own line, in the file's
    # order of checks (top level, the stored config, the history)
    path = tmp_path / "meta.json"
    path.write_text(json.dumps({"name": ["x"], "config": {"seed": True, "datasets": [
        {"name": "d"}]}, "history": [{"tasks": {"ok": 1.5}}]}))
    with pytest.raises(ObliqError) as raised:
        results.read_meta(path)
    damaged = "; the file is damaged: restore it, or rerun with --force"
    assert raised.value.problems == [f"{path}: {line}{damaged}" for line in [
        'name: must be a string (got ["x"])',
        "config.seed: must be an integer (got true)",
        "config.datasets[0].label: must be a string (got null)",
        "history[0].tasks.ok: must be an integer (got 1.5)"]]
    assert results.read_meta(path, check=False)["name"] == ["x"]  # not checked: read


def test_damaged_meta_json_fields_are_one_line_naming_the_field(write_config, tmp_path):
    out = tmp_path / "out"
    config = grow_config(write_config, out)
    assert invoke(["run", config, "--no-progress"]).exit_code == 0
    meta = json.loads((out / "meta.json").read_text())
    meta["history"][0]["tasks"] = {"total": "twelve"}
    (out / "meta.json").write_text(json.dumps(meta))
    for args in (["table", out], ["run", config, "--resume", "--no-progress"]):
        result = invoke(args)
        assert result.exit_code == 2
        assert result.output.strip() == (
            f"error: {out / 'meta.json'}: history[0].tasks.total: must be an integer (got "
            '"twelve"); the file is damaged: restore it, or rerun with --force')
