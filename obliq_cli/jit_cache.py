"""Where numba keeps obliq's compiled kernels.

numba's ``cache=True`` checks only the source file of the function it loads: a kernel
that calls a kernel of another module (OC1's climb calls the shared line search) keeps
running the old callee after that module changes, until its own file changes too. A
developer editing ``kernels/line_search.py`` would silently time, test and fingerprint
stale code.

So obliq points ``NUMBA_CACHE_DIR`` at a folder named by a digest of every source file
of ``obliq_cli/kernels/``, where every compiled function lives and which imports nothing
but numpy, numba and itself (tests/test_layers.py and tests/test_jit_cache.py hold both):
an edit of a kernel (or another installed version of them) compiles afresh into a new
folder, and processes running the same kernels, a run's workers among them, share one.
An edit anywhere else keeps the compiled kernels (it once recompiled all of them, about
a CPU minute, at every edit of a test helper or a docstring).
Folders of other digests that were not used for ``STALE_DAYS`` are removed. Nothing is
changed when the user has set ``NUMBA_CACHE_DIR`` or numba was imported before obliq.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

STALE_DAYS = 7


def sources_digest(package_dir: Path) -> str:
    """A digest of the names and contents of every ``.py`` file below ``package_dir``."""
    digest = hashlib.sha1()
    for path in sorted(package_dir.rglob("*.py")):
        digest.update(path.relative_to(package_dir).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def kernels_dir() -> Path:
    """The folder of every compiled function's source: ``obliq_cli/kernels``."""
    return Path(__file__).resolve().parent / "kernels"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "obliq" / "numba"


def configure() -> None:
    """Set ``NUMBA_CACHE_DIR`` for this process and its workers (see the module doc)."""
    if "NUMBA_CACHE_DIR" in os.environ or "numba" in sys.modules:
        return
    try:
        folder = cache_root() / sources_digest(kernels_dir())
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
    except OSError:  # no writable home: numba's own default applies
        return
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    _remove_stale(folder)


def _remove_stale(current: Path) -> None:
    cutoff = time.time() - STALE_DAYS * 86400
    for other in current.parent.iterdir():
        try:
            if other != current and other.is_dir() and other.stat().st_mtime < cutoff:
                shutil.rmtree(other, ignore_errors=True)
        except OSError:
            pass
