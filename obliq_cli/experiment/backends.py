"""The joblib backends a run may use (the config, the CLI and the runner read this)."""

BACKENDS = ("loky", "threading", "dask")
