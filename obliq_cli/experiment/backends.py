"""The backends a run may use (the config, the CLI and the runner read this).

``fork``: a pool of worker processes forked from the run once it has planned, so each
worker starts with obliq, scikit-learn and the datasets already in memory (Linux only;
fork is unsafe with macOS's system libraries, and Windows has none). ``loky``: joblib's
default pool of fresh interpreters, each importing obliq itself (about a second per
worker), on every platform. ``threading`` and ``dask`` as joblib has them.
"""

import sys

BACKENDS = ("fork", "loky", "threading", "dask")
FORK_AVAILABLE = sys.platform.startswith("linux")
DEFAULT_BACKEND = "fork" if FORK_AVAILABLE else "loky"
