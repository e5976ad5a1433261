"""The documentation site, built once for the tests of this folder.

``OBLIQ_DOCS_HTML`` names a site ``make docs`` has just built (CI builds it once and the
tests read it); otherwise the site is built here, from docs/, into a temporary folder,
with the options of ``make docs``: warnings are errors, and the build's failure is the
test's."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def build_site(out: Path) -> subprocess.CompletedProcess:
    """``make docs``'s Sphinx call into ``out`` (the venv's bin first on PATH: the
    tutorial's kernel and ``python -m obliq_cli`` are the venv's)."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
                                f"{os.environ.get('PATH', '')}")
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q",
         "-d", str(out.parent / "doctrees"), str(ROOT / "docs"), str(out)],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    built = os.environ.get("OBLIQ_DOCS_HTML")
    if built:
        folder = Path(built)
        assert (folder / "index.html").is_file(), f"OBLIQ_DOCS_HTML={built}: no index.html"
        return folder
    for module in ("sphinx", "myst_nb", "furo", "sphinx_click"):
        pytest.importorskip(module, reason="make docs installs the docs extra "
                                           "(pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site") / "html"
    done = build_site(out)
    assert done.returncode == 0, f"the docs build failed:\n{done.stderr[-6000:]}"
    return out
