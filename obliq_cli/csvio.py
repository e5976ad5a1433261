"""Reading obliq's own CSV inputs (runs.csv, reference files) as text columns."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from .errors import ObliqError


def read_text_csv(text: str, path: Path, what: str, required: list[str]) -> pd.DataFrame:
    """Cells as strings; a malformed file or a missing column is one line naming ``path``."""
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else "empty file"
        raise ObliqError(f"{path}: malformed CSV, not a readable {what} ({reason})") from None
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ObliqError(f"{path}: missing column(s) {', '.join(map(repr, missing))} "
                         f"(a {what} has {', '.join(required)})")
    return frame
