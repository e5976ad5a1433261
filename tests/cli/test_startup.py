"""Start-up: what ``import obliq_cli``, ``obliq --help`` and ``obliq run`` load, the
registry's table of built-in algorithms, and the command summaries of ``--help``."""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from obliq_cli import registry
from obliq_cli.cli import main

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "sklearn", "scipy", "numba", "matplotlib")


def loaded_after(code: str, cwd=None) -> dict:
    """The top-level packages and obliq_cli modules a fresh interpreter holds after
    ``code`` (run with this checkout first on the path)."""
    script = textwrap.dedent(code) + textwrap.dedent("""
        import json, sys
        print(json.dumps({"top": sorted({m.split(".")[0] for m in sys.modules}),
                          "obliq": sorted(m for m in sys.modules if m.startswith("obliq_cli"))}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=cwd or ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_obliq_cli_loads_no_heavy_package():
    seen = loaded_after("import obliq_cli")
    assert [p for p in HEAVY if p in seen["top"]] == []
    assert [m for m in seen["obliq"] if m.startswith("obliq_cli.algorithms")] == []
    # the lazy names are there all the same
    seen = loaded_after("""
        import obliq_cli
        assert callable(obliq_cli.run_experiment) and callable(obliq_cli.load_results)
        assert callable(obliq_cli.load_model) and obliq_cli.OC1Classifier.__name__
    """)
    assert "pandas" in seen["top"] and "obliq_cli.algorithms.oc1" in seen["obliq"]


def test_obliq_help_loads_no_heavy_package():
    seen = loaded_after("""
        import io, contextlib
        from obliq_cli.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                main(["--help"])
            except SystemExit:
                pass
    """)
    assert [p for p in HEAVY if p in seen["top"]] == []
    assert [m for m in seen["obliq"] if m.startswith("obliq_cli.algorithms")] == []


def test_a_workers_initializer_loads_no_heavy_package():
    # loky and dask workers import experiment.pools to run worker_setup, which starts the
    # watch on the run's pid: a kill -9 of the run during seconds of imports before it
    # would leave the worker behind (pools imports the fit and results late for this)
    seen = loaded_after("import obliq_cli.experiment.pools")
    assert [p for p in HEAVY + ("numpy", "joblib") if p in seen["top"]] == []
    assert "obliq_cli.experiment.fit" not in seen["obliq"]


@pytest.mark.slow
def test_a_run_loads_only_the_algorithms_its_config_names(tmp_path):
    (tmp_path / "c.yaml").write_text(textwrap.dedent("""
        name: c
        datasets: [balance]
        algorithms: [{name: c45, pruner: {name: pessimistic}}]
        protocol: {name: kfold, folds: 2}
        output: out
    """))
    seen = loaded_after("""
        from click.testing import CliRunner
        from obliq_cli.cli import main
        result = CliRunner().invoke(main, ["run", "c.yaml", "--no-progress"])
        assert result.exit_code == 0, result.output
    """, cwd=tmp_path)
    algorithms = {m.rsplit(".", 1)[1] for m in seen["obliq"]
                  if m.startswith("obliq_cli.algorithms.")}
    assert algorithms == {"base", "c45"}
    assert (tmp_path / "out" / "runs.csv").is_file()


def test_the_table_of_builtin_algorithms_matches_their_registrations():
    entries = registry.list_algorithms()  # imports every built-in module
    package = "obliq_cli.algorithms."
    builtin = {e.name: e.obj.__module__.removeprefix(package) for e in entries
               if e.obj.__module__.startswith(package)}
    assert builtin == registry.BUILTIN_ALGORITHMS
    # and every module of the package that registers something is in the table
    for path in (ROOT / "obliq_cli" / "algorithms").glob("*.py"):
        if "@register_algorithm" in path.read_text():
            assert path.stem in registry.BUILTIN_ALGORITHMS.values(), path.name


def test_a_plugin_cannot_take_a_builtin_name_before_its_module_loads():
    seen = loaded_after("""
        from obliq_cli import registry
        try:
            registry.register_algorithm("gdt")(type("Impostor", (), {}))
        except ValueError as exc:
            assert "'gdt' is registered twice (it is built in)" in str(exc), exc
        else:
            raise AssertionError("a plugin took the built-in name gdt")
    """)
    assert "obliq_cli.algorithms.gdt" not in seen["obliq"]


def _groups(command, path=()):
    """(command path, group) for main and every group below it."""
    if isinstance(command, click.Group):
        yield path, command
        for name, sub in command.commands.items():
            yield from _groups(sub, (*path, name))


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(\s|$)", flat)
    return match.group(1) if match else flat


@pytest.mark.parametrize("path, group", list(_groups(main)),
                         ids=lambda p: " ".join(p) if isinstance(p, tuple) else "")
def test_every_command_summary_is_a_whole_sentence(path, group):
    shown = CliRunner().invoke(main, [*path, "--help"], terminal_width=80)
    assert shown.exit_code == 0
    # the commands follow the options, under section titles ("Commands:" or main's own)
    listing = shown.output.split("\nOptions:\n", 1)[1].split("\n\n", 1)[1]
    summaries = {}
    for line in listing.splitlines():
        if not line.strip() or (not line.startswith(" ") and line.endswith(":")):
            continue
        name, _, text = line.strip().partition(" ")
        assert line.startswith("  ") and name in group.commands, line  # one line each
        assert name not in summaries, f"{name} listed twice"
        summaries[name] = text.strip()
    assert set(summaries) == set(group.commands)
    for name, text in summaries.items():
        command = group.commands[name]
        assert not text.endswith("..."), f"{name}: cut mid-phrase: {text!r}"
        assert text.endswith("."), f"{name}: {text!r}"
        assert text in (command.short_help, _first_sentence(command.help or "")), name


def test_main_help_lists_every_command_in_its_section_and_h_works_everywhere():
    shown = CliRunner().invoke(main, ["-h"], terminal_width=80).output
    titles = [line[:-1] for line in shown.splitlines()
              if line.endswith(":") and not line.startswith(" ")]
    assert titles == ["Options", "Experiments", "Results", "Models", "Catalog", "Shell"]
    results = shown.split("\nResults:\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[0] for line in results.splitlines()] == [
        "table", "stats", "agree", "claims", "report", "plot"]
    plot = CliRunner().invoke(main, ["plot", "-h"], terminal_width=80).output
    stored = plot.split("\nFrom stored results:\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[0] for line in stored.splitlines()] == ["cd", "bayes", "size"]
    for path, group in _groups(main):
        for name in group.commands:
            assert CliRunner().invoke(main, [*path, name, "-h"]).exit_code == 0, (path, name)


@pytest.mark.parametrize("shell, marker", [("bash", "complete -o nosort -F"),
                                           ("zsh", "#compdef obliq"),
                                           ("fish", "complete --no-files --command obliq")])
def test_completion_prints_clicks_script(shell, marker):
    shown = CliRunner().invoke(main, ["completion", shell])
    assert shown.exit_code == 0 and marker in shown.output
    assert "_OBLIQ_COMPLETE" in shown.output


def test_completion_completes_commands_and_their_options():
    from click.shell_completion import ShellComplete

    complete = ShellComplete(main, {}, "obliq", "_OBLIQ_COMPLETE")
    assert {"table", "stats"} <= {c.value for c in complete.get_completions([], "")}
    assert "--metric" in {c.value for c in complete.get_completions(["table"], "--m")}


def test_the_obliq_process_skips_the_last_collections_of_its_shutdown():
    """Once its command is done the obliq process freezes the garbage collector
    (``cli._quick_shutdown``: Python's shutdown would walk every object the imports
    made); a program calling the command in-process keeps its collector as it was."""
    import gc

    script = textwrap.dedent("""
        import atexit, gc, runpy, sys
        atexit.register(lambda: print("frozen", gc.get_freeze_count()))
        sys.argv = ["obliq", "configs", "list"]
        runpy.run_module("obliq_cli", run_name="__main__", alter_sys=True)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "quickstart" in done.stdout
    frozen = int(done.stdout.strip().splitlines()[-1].removeprefix("frozen "))
    assert frozen > 10_000  # the interpreter's and obliq's objects: all of them
    before = gc.get_freeze_count()
    assert CliRunner().invoke(main, ["configs", "list"]).exit_code == 0
    assert gc.get_freeze_count() == before


def test_a_runs_imports_are_kept_from_the_collector_in_the_obliq_process(monkeypatch):
    """``cli._imports_kept_from_the_collector``: in the obliq process the collector is
    off during the block and what it made is frozen after it (the collector on again);
    elsewhere the block leaves the collector alone."""
    import gc

    from obliq_cli import cli, interrupts

    frozen = gc.get_freeze_count()
    with cli._imports_kept_from_the_collector():
        assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
    monkeypatch.setattr(interrupts, "own_process", lambda: True)
    try:
        with cli._imports_kept_from_the_collector():
            assert not gc.isenabled()
            made = [[] for _ in range(1000)]
        assert gc.isenabled() and gc.get_freeze_count() >= frozen + len(made)
    finally:
        gc.unfreeze()
        gc.enable()
