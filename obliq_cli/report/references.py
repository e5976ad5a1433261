"""The papers' published values, for showing beside ours.

A reference CSV (``configs/references/*.csv``) has the columns ``dataset, method,
metric, mean, sd``: dataset is our dataset label, method our algorithm label, metric our
metric name; sd may be empty.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import ObliqError

COLUMNS = ["dataset", "method", "metric", "mean", "sd"]


def read_reference(path) -> pd.DataFrame:
    path = Path(path)
    try:
        ref = pd.read_csv(path, dtype={"dataset": str, "method": str, "metric": str})
    except FileNotFoundError:
        raise ObliqError(f"{path}: reference file not found") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ObliqError(f"{path}: unreadable reference CSV ({str(exc).splitlines()[0]})") \
            from None
    missing = [c for c in COLUMNS if c not in ref.columns]
    if missing:
        raise ObliqError(f"{path}: reference CSV lacks column {missing[0]!r} "
                         f"(needs {', '.join(COLUMNS)})")
    for col in ("mean", "sd"):
        values = pd.to_numeric(ref[col], errors="coerce")
        bad = values.isna() & ref[col].notna()
        if bad.any():
            line = int(bad.to_numpy().nonzero()[0][0]) + 2
            value = ref[col][bad].iloc[0]
            raise ObliqError(f"{path}: line {line}: {col} is not a number ({value!r})")
        ref[col] = values
    return ref


def agrees(ours: float, paper: float, paper_sd: float) -> bool:
    """Whether ours is within max(2 points, 2 paper sd) of the paper's value."""
    tolerance = 2.0 if pd.isna(paper_sd) else max(2.0, 2.0 * float(paper_sd))
    return abs(ours - paper) <= tolerance
