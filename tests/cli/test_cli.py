"""The command line: one-line errors with exit 2 and nothing written, flags over file
values, exit 1 with a summary when a task fails, the listing and table commands.

Uses the test-only registrations of conftest (test-tree, test-prune, test-iris ...).
"""

import io
import json

import pandas as pd
import pytest
from click.testing import CliRunner

from obliq_cli.cli import main

BASE = """
name: bad
datasets: [test-iris]
algorithms:
  - name: test-tree
    pruner: {name: test-prune}
protocol: {name: kfold, folds: 3, repeats: 1, prune_fraction: 0.2}
"""


def invoke(args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result, result.output.strip().splitlines()


def assert_one_line_error(args, out, fragments):
    result, lines = invoke(args)
    assert result.exit_code == 2, (result.exit_code, lines, result.exception)
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: "), lines
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert not out.exists(), "nothing may be written on bad input"


@pytest.mark.parametrize("change,fragments", [
    (("    pruner: {name: test-prune}", "    parms: {max_depth: 2}"),
     ["algorithms[0].parms: unknown key (did you mean 'params'?)"]),
    (("datasets: [test-iris]", "datasets: [test-irsi]"),
     ["datasets[0]: unknown dataset 'test-irsi' (did you mean 'test-iris'?)"]),
    (("  - name: test-tree", "  - name: tset-tree"),
     ["algorithms[0].name: unknown algorithm 'tset-tree'", "did you mean 'test-tree'"]),
    (("    pruner: {name: test-prune}", "    params: {criterion: gni}"),
     ["algorithms[0].params", "gni"]),
    (("folds: 3", "folds: 1"), ["protocol.folds: must be an integer >= 2 (got 1)"]),
    (("prune_fraction: 0.2", "prune_fraction: 0"), ["protocol.prune_fraction", "(got 0)"]),
    (("prune_fraction: 0.2", "prune_fraction: 1.5"),
     ["protocol.prune_fraction", "strictly between 0 and 1 (got 1.5)"]),
    (("datasets: [test-iris]", "datasets: [test-nan]"),
     ["datasets[0] (test-nan)", "missing or infinite value (row 7)"]),
    (("datasets: [test-iris]", "datasets: [test-lopsided]"),
     ["protocol", "dataset 'test-lopsided', repetition 0, fold",
      "training part has a single class"]),
])
def test_bad_config_is_one_line_exit_2_and_writes_nothing(write_config, tmp_path, change,
                                                          fragments):
    assert change[0] in BASE
    text = BASE.replace(*change)
    if "lopsided" in text:  # 10 rows: 2 folds, no prune part, so a fold lacks class b
        text = text.replace("folds: 3, repeats: 1, prune_fraction: 0.2", "folds: 2")
    path = write_config(text)
    out = tmp_path / "out"
    assert_one_line_error(["run", path, "-o", out, "--no-progress"], out,
                          [f"error: {path}: "] + fragments)


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.yaml"
    out = tmp_path / "out"
    assert_one_line_error(["run", missing, "-o", out], out, [f"error: {missing}: no such file"])


def test_yaml_syntax_error(write_config, tmp_path):
    path = write_config("name: x\ndatasets: [test-iris\nalgorithms: []\n")
    out = tmp_path / "out"
    assert_one_line_error(["run", path, "-o", out], out,
                          [f"error: {path}: line ", "invalid YAML"])


def test_option_conflicts(write_config, tmp_path):
    path = write_config(BASE)
    out = tmp_path / "out"
    assert_one_line_error(["run", path, "-o", out, "--resume", "--force"], out,
                          ["--resume and --force"])
    assert_one_line_error(["run", path, "-o", out, "--scheduler", "tcp://x:1"], out,
                          ["--scheduler needs --backend dask"])


def test_explicit_flags_override_the_file(test_config, tmp_path):
    path = test_config()
    path.write_text(path.read_text() + "n_jobs: 1\nbackend: threading\n")
    result, _ = invoke(["run", path, "--no-progress"])  # the file's values
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "results" / "tiny" / "meta.json").read_text())
    entry = meta["history"][-1]
    assert (entry["n_jobs"], entry["backend"]) == (1, "threading")
    out = tmp_path / "elsewhere"
    result, _ = invoke(["run", path, "-o", out, "-j", "2", "--backend", "loky",
                        "--no-progress"])
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "meta.json").read_text())
    entry = meta["history"][-1]
    assert (entry["n_jobs"], entry["backend"]) == (2, "loky")
    assert meta["config"]["output"] == str(out)
    # -o put the results elsewhere; the file's output folder got no second run
    assert len(pd.read_csv(tmp_path / "results" / "tiny" / "runs.csv")) == 32
    assert len(pd.read_csv(out / "runs.csv")) == 32


def test_run_prints_the_table(test_config):
    result, _ = invoke(["run", test_config(), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "32 task(s) run, 0 already done, 0 failed" in result.output
    for text in ("| test-iris", "| wine2", "PRUNED", "FULL"):
        assert text in result.output, text


def test_a_failing_task_is_recorded_and_exits_1(test_config, tmp_path):
    marker = tmp_path / "marker"
    marker.touch()
    path = test_config(name="flaky", extra=f", fail_marker: '{marker}'")
    result, lines = invoke(["run", path, "--no-progress"])
    assert result.exit_code == 1, result.output
    runs = pd.read_csv(tmp_path / "results" / "flaky" / "runs.csv", keep_default_na=False)
    failed = runs[runs["status"] == "error"]
    assert len(failed) > 0 and (failed["algorithm"] == "FULL").all()
    assert failed["error"].str.startswith("RuntimeError: marker present").all()
    assert "second line" not in "".join(failed["error"])  # one line per error
    assert (runs.loc[runs["algorithm"] == "PRUNED", "status"] == "ok").all()
    assert f"{len(failed)} failed" in result.output
    assert any(line.startswith("failed: ") for line in lines)
    # resume after the fix: only the failed tasks run, exit 0
    marker.unlink()
    result, _ = invoke(["run", path, "--resume", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert f"{len(failed)} task(s) run, {32 - len(failed)} already done, 0 failed" \
        in result.output


def test_existing_results_ask_for_resume_or_force(test_config, tmp_path):
    path = test_config()
    assert invoke(["run", path, "--no-progress"])[0].exit_code == 0
    result, lines = invoke(["run", path, "--no-progress"])
    assert result.exit_code == 2 and len(lines) == 1
    assert "--resume" in lines[0] and "--force" in lines[0]
    result, _ = invoke(["run", path, "--force", "--no-progress"])
    assert result.exit_code == 0
    assert len(pd.read_csv(tmp_path / "results" / "tiny" / "runs.csv")) == 32


def test_table_command(test_config, tmp_path):
    assert invoke(["run", test_config(), "--no-progress"])[0].exit_code == 0
    out = tmp_path / "results" / "tiny"
    result, _ = invoke(["table", out, "--metric", "n_leaves", "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert "PRUNED" in result.output and "test-iris" in result.output
    result, lines = invoke(["table", out, "--metric", "leaves"])
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: ")
    result, lines = invoke(["table", tmp_path / "none"])
    assert result.exit_code == 2 and lines == [f"error: {tmp_path / 'none'}: no such "
                                               f"results directory"]


def test_metric_repeated_gives_each_metrics_table_in_turn(test_config, tmp_path):
    assert invoke(["run", test_config(), "--no-progress"])[0].exit_code == 0
    out = tmp_path / "results" / "tiny"
    one = {m: invoke(["table", out, "--metric", m])[0].output
           for m in ("test_accuracy", "n_leaves")}
    both = invoke(["table", out, "--metric", "test_accuracy", "--metric", "n_leaves"])[0]
    assert both.exit_code == 0, both.output
    # md: the two tables one after the other, a blank line between, as obliq run prints
    assert both.output == one["test_accuracy"].rstrip("\n") + "\n\n" + one["n_leaves"]
    # csv: one file (one header), its metric column telling the tables apart
    csv = {m: pd.read_csv(io.StringIO(invoke(["table", out, "--metric", m, "--format",
                                              "csv"])[0].output)) for m in one}
    joined = pd.read_csv(io.StringIO(invoke(
        ["table", out, "--metric", "n_leaves", "--metric", "test_accuracy", "--format",
         "csv"])[0].output))
    pd.testing.assert_frame_equal(joined, pd.concat([csv["n_leaves"], csv["test_accuracy"]],
                                                    ignore_index=True))
    assert joined["metric"].drop_duplicates().tolist() == ["n_leaves", "test_accuracy"]
    # a metric given twice is one table; stats takes the same repetition
    assert invoke(["table", out, "--metric", "n_leaves", "--metric", "n_leaves"])[0].output \
        == one["n_leaves"]
    stats = {m: invoke(["stats", out, "--metric", m])[0].output for m in one}
    result = invoke(["stats", out, "--metric", "test_accuracy", "--metric", "n_leaves"])[0]
    assert result.exit_code == 0, result.output
    assert result.output == stats["test_accuracy"].rstrip("\n") + "\n\n" + stats["n_leaves"]
    # an unknown metric among several is the one-line error of a single one
    result, lines = invoke(["table", out, "--metric", "n_leaves", "--metric", "leaves"])
    assert result.exit_code == 2 and len(lines) == 1 and "leaves" in lines[0]


def test_listing_commands():
    result, _ = invoke(["algorithms"])
    assert result.exit_code == 0 and "test-tree: test only" in result.output
    assert "max_features=None" in result.output
    result, _ = invoke(["pruners"])
    assert result.exit_code == 0 and "test-prune: test only" in result.output
    assert "max_depth=4" in result.output
    assert invoke(["datasets"])[0].exit_code == 0


def test_a_config_with_several_problems_prints_each_and_writes_nothing(write_config,
                                                                       tmp_path):
    out = tmp_path / "out"
    config = write_config(BASE.replace("folds: 3", "folds: 1").replace(
        "datasets: [test-iris]", "datasets: [test-irsi]") + f"output: {out}\n")
    result, lines = invoke(["run", config])
    assert result.exit_code == 2
    assert [line.split(": ")[2] for line in lines] == ["datasets[0]", "protocol.folds"]
    assert all(line.startswith(f"error: {config}: ") for line in lines)
    assert not out.exists()


def test_quiet_and_verbose(test_config):
    result, lines = invoke(["-q", "run", test_config(), "--no-progress"])
    assert result.exit_code == 0
    assert not any("task(s) run" in line for line in lines)
    assert any("| test-iris" in line for line in lines)
    result, lines = invoke(["run", test_config(), "--force"])
    # not a terminal: no progress frames, only the summary line
    assert "\r" not in result.output
    assert any("32 task(s) run" in line for line in lines)
    result, lines = invoke(["-v", "run", test_config(), "--resume"])
    assert any(line.startswith("debug: config ") and "2 dataset(s) x 2 algorithm(s)" in line
               for line in lines)
