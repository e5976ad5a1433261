"""Plugins from outside the package: entry points of an installed distribution, and a
config's ``imports`` of local code; both reach the worker processes of ``-j 2``.

The distribution is ``tests/plugin_example`` (obliq-toy). Here it is installed the way
pip lays it out (the package plus a ``.dist-info`` with ``entry_points.txt``) into a
temporary folder on PYTHONPATH of a fresh ``obliq`` process, so the real entry-point
discovery runs; ``make wheel-check`` pip-installs it into the fresh venv of the wheel.
"""

import csv
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from obliq_cli import registry
from obliq_cli.config import load_config
from obliq_cli.errors import ConfigError
from obliq_cli.experiment.runner import run_experiment

EXAMPLE = Path(__file__).resolve().parents[1] / "plugin_example"

ENTRY_POINTS = """\
[obliq.algorithms]
toy = obliq_toy

[obliq.datasets]
toy = obliq_toy

[obliq.pruners]
toy = obliq_toy
"""


@pytest.fixture
def installed_toy(tmp_path):
    """A site folder holding obliq-toy as pip installs it."""
    site = tmp_path / "site"
    shutil.copytree(EXAMPLE / "obliq_toy", site / "obliq_toy")
    info = site / "obliq_toy-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: obliq-toy\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return site


def obliq(args, site, cwd):
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-m", "obliq_cli.cli", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=cwd)


def runs(folder: Path) -> list[dict]:
    with open(folder / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return sorted(rows, key=lambda r: (r["dataset"], r["repetition"], r["fold"], r["algorithm"]))


def test_example_pyproject_declares_the_three_groups():
    text = (EXAMPLE / "pyproject.toml").read_text()
    for group in registry.ENTRY_POINT_GROUPS:
        assert f'[project.entry-points."{group}"]\ntoy = "obliq_toy"' in text


@pytest.mark.slow
def test_an_installed_distribution_registers_and_runs_in_workers(installed_toy, tmp_path):
    listed = obliq(["algorithms"], installed_toy, tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "toy-stump: CART-AP grown to depth 1" in listed.stdout
    assert "toy-keep: keeps the grown tree" in listed.stdout
    datasets = obliq(["datasets", "list"], installed_toy, tmp_path)
    assert "toy-band" in datasets.stdout

    (tmp_path / "toy.yaml").write_text(textwrap.dedent("""
        name: toy
        datasets: [toy-band, {name: toy-band, label: small, params: {n: 60}}]
        algorithms: [toy-stump, {name: toy-stump, label: kept, pruner: toy-keep}]
        protocol: {name: kfold, folds: 3, repeats: 2, prune_fraction: 0.2}
        """))
    serial = obliq(["run", "toy.yaml", "-j", "1", "--no-progress", "-o", "one"],
                   installed_toy, tmp_path)
    parallel = obliq(["run", "toy.yaml", "-j", "2", "--no-progress", "-o", "two"],
                     installed_toy, tmp_path)
    assert serial.returncode == 0 and parallel.returncode == 0, parallel.stderr
    one, two = runs(tmp_path / "one"), runs(tmp_path / "two")
    assert len(one) == 2 * 2 * 3 * 2 and all(r["status"] == "ok" for r in two)
    assert {r["n_leaves"] for r in two} == {"2"}  # a stump, grown by the plugin's class
    keys = ("dataset", "repetition", "fold", "algorithm", "test_accuracy", "n_leaves")
    assert [[r[k] for k in keys] for r in one] == [[r[k] for k in keys] for r in two]


def test_a_plugin_that_fails_to_import_is_one_clear_error(installed_toy, tmp_path):
    (installed_toy / "obliq_toy" / "__init__.py").write_text("raise ImportError('no numpy')\n")
    result = obliq(["algorithms"], installed_toy, tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: plugin 'toy' (obliq.algorithms = 'obliq_toy', distribution obliq-toy) "
        "failed to import: ImportError: no numpy")


LOCAL = """
import numpy as np
from obliq_cli.algorithms.cart import CARTClassifier
from obliq_cli.registry import register_algorithm


@register_algorithm("local-two-level", "CART-AP of depth 2, from a config's imports")
class TwoLevel(CARTClassifier):
    def __init__(self, criterion="gini", min_samples_split=2, max_depth=2,
                 max_misclassification_rate=0.0, random_state=None):
        super().__init__(criterion, min_samples_split, max_depth,
                         max_misclassification_rate, random_state)
"""


@pytest.mark.slow  # a loky pool and a subprocess: 9 CPU seconds, the fast set's costliest
def test_config_imports_a_local_file_for_every_worker(write_config, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "two_level.py").write_text(LOCAL)
    path = write_config(f"""
        name: local
        imports: [mine/two_level.py]
        datasets: [iris]
        algorithms: [local-two-level]
        protocol: {{name: kfold, folds: 3, repeats: 2}}
        output: {tmp_path / "out"}
        """)
    config = load_config(path)
    assert config.imports == (str(tmp_path / "mine" / "two_level.py"),)
    summary = run_experiment(config, n_jobs=2, backend="loky", progress=False)
    assert summary.failed == [] and summary.ran == 6
    rows = runs(tmp_path / "out")
    assert {r["depth"] for r in rows} == {"2"}
    # the config as run (meta.json) keeps the imports: a new process replays a stored
    # task of the local algorithm (obliq plot tree --results)
    assert load_config(path).to_dict()["imports"] == [str(tmp_path / "mine" / "two_level.py")]
    result = subprocess.run(
        [sys.executable, "-m", "obliq_cli.cli", "plot", "tree", "--results",
         str(tmp_path / "out"), "--dataset", "iris", "--algorithm", "local-two-level",
         "-o", str(tmp_path / "tree")], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "tree.svg").is_file()


@pytest.mark.parametrize("imports, fragment", [
    ("[missing.py]", "imports[0]: no such file"),
    ("[no_such_module_xyz]", "imports[0]: importing no_such_module_xyz failed: "
                             "ModuleNotFoundError"),
    ("mine.py", "imports: must be a list"),
])
def test_bad_imports_name_the_field(write_config, imports, fragment):
    path = write_config(f"""
        name: bad
        imports: {imports}
        datasets: [test-iris]
        algorithms: [test-tree]
        protocol: {{name: kfold, folds: 3}}
        """)
    with pytest.raises(ConfigError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        load_config(path)
