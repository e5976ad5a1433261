"""The installed package's own files: shipped configs by name, copies for editing, paths
relative to the config, the citation file covering every paper config, a quiet end when
the reader of our output leaves.

The wheel itself, installed into a fresh venv outside the checkout, is checked by
``make wheel-check`` (part of ``make test``), not here: a venv per test run is too slow.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from obliq_cli.cli import main
from obliq_cli.config import load_config
from obliq_cli.errors import ConfigError
from obliq_cli.resources import (
    catalog_file,
    configs_dir,
    copy_config,
    resolve_config,
    shipped_configs,
)

ROOT = Path(__file__).resolve().parents[2]


def test_shipped_files_are_inside_the_package():
    package = Path(__import__("obliq_cli").__file__).parent
    assert catalog_file() == package / "data" / "catalog.yaml" and catalog_file().is_file()
    assert configs_dir() == package / "configs"
    names = set(shipped_configs())
    assert {"quickstart", "hhcart_uci", "gdt_uci", "umt_2class", "apdt_ml"} <= names
    for path in shipped_configs().values():  # each names the reference it needs
        config = load_config(path)
        if config.reference:
            assert Path(config.reference).is_relative_to(configs_dir() / "references")


def test_the_docs_pipeline_stays_out_of_the_wheel():
    # tools/ (summary, leaderboard, docs) is the maintainers' and reads the checkout: the
    # package list ships obliq_cli only, and no module of it imports tools, so an installed
    # wheel needs no tools/ (make wheel-check runs its commands without one)
    import ast
    import fnmatch
    import tomllib

    found = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = found["tool"]["setuptools"]["packages"]["find"]["include"]
    assert any(fnmatch.fnmatch("obliq_cli.report", p) for p in include)
    assert not any(fnmatch.fnmatch(name, p) for p in include
                   for name in ("tools", "tools.docs"))
    importers = []
    for path in sorted((ROOT / "obliq_cli").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            importers += [f"{path.name} imports {n}" for n in names
                          if n.partition(".")[0] == "tools"]
    assert importers == []
    assert not (ROOT / "obliq_cli" / "report" / "docs.py").exists()


def test_a_shipped_config_runs_by_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_config("hhcart_uci") == configs_dir() / "hhcart_uci.yaml"
    assert resolve_config("hhcart_uci.yaml") == configs_dir() / "hhcart_uci.yaml"
    config = load_config("hhcart_uci")
    assert config.name == "hhcart_uci" and Path(config.reference).is_file()
    # a file of that name in the working folder wins over the shipped one
    (tmp_path / "hhcart_uci.yaml").write_text("name: mine\n")
    assert resolve_config("hhcart_uci.yaml") == Path("hhcart_uci.yaml")


def test_an_unknown_name_lists_the_shipped_configs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="hhcart_uc: no such file, and no shipped config "
                                          r"of that name \(obliq configs lists them: .*hhcart_uci"):
        resolve_config("hhcart_uc")
    with pytest.raises(ConfigError, match="^sub/x.yaml: no such file$"):
        resolve_config("sub/x.yaml")


def test_a_copied_config_runs_with_its_reference(tmp_path):
    written = copy_config("hhcart_uci", tmp_path)
    assert written == [tmp_path / "hhcart_uci.yaml", tmp_path / "references" / "hhcart_uci.csv"]
    assert written[0].read_text() == (configs_dir() / "hhcart_uci.yaml").read_text()
    config = load_config(written[0])
    assert config.reference == str(written[1].resolve())
    with pytest.raises(ConfigError, match="already exists"):
        copy_config("hhcart_uci", tmp_path)
    copy_config("hhcart_uci", tmp_path, force=True)


def test_configs_command_lists_and_copies(tmp_path):
    result = CliRunner().invoke(main, ["configs"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines] == list(shipped_configs())
    assert any(line.startswith("hhcart_uci") and "HHCART" in line for line in lines)
    result = CliRunner().invoke(main, ["configs", "copy", "quickstart", str(tmp_path)])
    assert result.exit_code == 0 and (tmp_path / "quickstart.yaml").is_file()
    result = CliRunner().invoke(main, ["configs", "copy", "quickstart", str(tmp_path)])
    assert result.exit_code == 2 and "already exists" in result.output


def test_data_path_is_relative_to_the_config_not_the_working_folder(write_config, tmp_path,
                                                                    monkeypatch):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "mine.csv").write_text("a,label\n1,p\n2,q\n3,p\n4,q\n")
    path = write_config("""
        name: own
        datasets: [{name: mine, path: data/mine.csv, target: label}]
        algorithms: [cart-ap]
        protocol: {name: kfold, folds: 2}
        """)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "data").mkdir(parents=True)
    (elsewhere / "data" / "mine.csv").write_text("decoy\n")
    monkeypatch.chdir(elsewhere)
    spec = load_config(path).datasets[0]
    assert spec.params["path"] == str(tmp_path / "data" / "mine.csv")


def test_citation_names_every_shipped_paper_config():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["license"] == "MIT" and (ROOT / "LICENSE").read_text().startswith("MIT")
    named = " ".join(ref.get("notes", "") for ref in citation["references"])
    missing = [name for name in shipped_configs() if name not in named]
    assert missing == []


@pytest.mark.slow
def test_output_into_a_closed_pipe_ends_quietly():
    # `obliq algorithms | head -1`: the reader leaves after one line. The pipe is shrunk to
    # one page so that the writer is still writing when the reader leaves.
    import fcntl

    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    proc = subprocess.Popen([sys.executable, "-m", "obliq_cli.cli", "algorithms"],
                            stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        first = reader.readline()
    err = proc.stderr.read()
    assert proc.wait() == 0 and first.startswith(b"apdt")
    assert err == b""


# Phrases that point at material kept outside the repository (working notes, a shared
# folder of papers and tables, a task's brief, an issue tracker's thread): a reader of
# the checkout or of the wheel cannot follow them.
OUTSIDE = re.compile(r"\bshared/|paper-tables|prior-art|\bdesign\.md|\bpapers/|issue note"
                     r"|\bthe brief\b|\bbrief's\b|\bissue #?\d+", re.IGNORECASE)
NOT_SOURCE = {".venv", ".git", "build", "dist", "results", "__pycache__", ".pytest_cache",
              ".ruff_cache", ".cache"}


def test_no_file_cites_material_outside_the_repository():
    found = []
    paths = []
    for folder, subfolders, files in os.walk(ROOT):  # not into .venv, .git, ...
        subfolders[:] = sorted(d for d in subfolders
                               if d not in NOT_SOURCE and not d.endswith(".egg-info"))
        paths += [Path(folder) / f for f in sorted(files)]
    for path in paths:
        rel = path.relative_to(ROOT)
        if path == Path(__file__).resolve():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # not a text file
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == []


def test_the_checkout_shows_configs_and_the_catalog_at_the_top(monkeypatch):
    # The layout a reader of the repository expects: configs/ and datasets/ at the top,
    # the very files the package ships (links), so `obliq run configs/X.yaml` works in a
    # checkout and an installed wheel carries the same files.
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("not a checkout")
    assert (ROOT / "configs").resolve() == configs_dir().resolve()
    assert (ROOT / "datasets" / "catalog.yaml").resolve() == catalog_file().resolve()
    monkeypatch.chdir(ROOT)
    config = load_config("configs/hhcart_uci.yaml")
    assert config.name == "hhcart_uci" and Path(config.reference).is_file()
