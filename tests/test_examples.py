"""The example notebook (examples/quickstart.ipynb) runs as it stands: its code cells in
order in an IPython shell, each cell's last expression shown through IPython's own display
formatter, as Jupyter would show it (without a kernel: IPython is in the dev extra, a
kernel and nbclient are not)."""

import json
import tempfile
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "quickstart.ipynb"


@pytest.fixture
def shell(tmp_path, monkeypatch):
    """A fresh IPython shell keeping its profile and no history under ``tmp_path``, torn
    down after the test so that no later test runs 'inside IPython'."""
    pytest.importorskip("IPython", reason="pip install -e '.[dev]' installs IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    config = Config()
    config.HistoryManager.enabled = False
    instance = InteractiveShell.instance(config=config)
    yield instance
    InteractiveShell.clear_instance()


def test_the_quickstart_notebook_runs_and_shows_html(shell, tmp_path, monkeypatch, capsys):
    from obliq_cli.logs import in_ipython

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the notebook's mkdtemp
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4
    shown = []
    for cell in notebook["cells"]:
        assert cell.get("outputs", []) == []  # stored without outputs: a clean diff
        if cell["cell_type"] != "code":
            continue
        result = shell.run_cell("".join(cell["source"]), store_history=False)
        result.raise_error()
        if result.result is not None:
            shown.append(shell.display_formatter.format(result.result)[0])
    assert in_ipython()
    # the run drew its progress bar (on by default in IPython): 2 x 2 x 2 = 8 tasks
    assert "notebook: 100%" in capsys.readouterr().err
    results, leaves, frame, flagged = shown
    assert all("text/html" in data for data in shown)
    namespace = shell.user_ns
    assert results["text/html"] == namespace["results"]._repr_html_()
    assert "<h3>obliq results: notebook</h3>" in results["text/html"]
    assert "8 finished, 0 failed, 0 not run, of 8" in results["text/html"]
    # the one-leaf tree: 1 leaf on every fold, flagged; the table's text is the CLI's
    assert leaves["text/plain"] == str(namespace["leaves"])
    assert 'class="degenerate"' in leaves["text/html"]
    rows = namespace["leaves"].to_frame().set_index(["dataset", "algorithm"])
    for dataset in ("pima", "heart"):
        assert rows.loc[(dataset, "root only"), "mean"] == 1.0
        assert rows.loc[(dataset, "root only"), "n_flagged"] == 2
        assert rows.loc[(dataset, "CART-AP 0-SE"), "n_flagged"] == 0
    assert "<table" in frame["text/html"] and "<table" in flagged["text/html"]
    assert list(namespace["results"].flagged()["algorithm"]) == ["root only", "root only"]
