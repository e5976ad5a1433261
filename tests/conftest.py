"""Shared fixtures: small configs written to a temporary folder."""

import textwrap
from pathlib import Path

import pytest


@pytest.fixture
def write_config(tmp_path):
    """Write a YAML config into tmp_path; results default to tmp_path/results/<name>."""

    def write(text: str, name: str = "exp.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return path

    return write


SMALL = """
name: small
seed: 1
datasets: [heart, wisconsin]
algorithms:
  - name: cart-ap
    label: CC
    pruner: {name: cc}
  - name: cart-ap
    label: FULL
    params: {max_depth: 4}
protocol: {name: kfold, folds: 3, repeats: 2, prune_fraction: 0.2}
output: {out}
"""


@pytest.fixture
def small_config(write_config, tmp_path):
    return write_config(SMALL.replace("{out}", str(tmp_path / "results" / "small")))
