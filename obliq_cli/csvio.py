"""Reading obliq's own CSV inputs (runs.csv, reference files) as text columns."""

from __future__ import annotations

import csv
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
    _check_header(text, path)
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ObliqError(f"{path}: missing column(s) {', '.join(map(repr, missing))} "
                         f"(a {what} has {', '.join(required)})")
    return frame


def _check_header(text: str, path: Path) -> None:
    check_header_names(next(csv.reader(io.StringIO(text.split("\n", 1)[0])), []), path)


def check_header_names(names: list[str], path) -> None:
    """A header with an empty or a repeated column name is refused: pandas would rename
    them ("Unnamed: 3", "x.1") and a reader asking for a column by name would silently
    get one of two."""
    seen: dict[str, int] = {}
    for i, name in enumerate(names, start=1):
        if not name.strip():
            raise ObliqError(f"{path}: line 1: column {i} has no name")
        if name in seen:
            raise ObliqError(f"{path}: line 1: the column name {name!r} appears twice "
                             f"(columns {seen[name]} and {i})")
        seen[name] = i
