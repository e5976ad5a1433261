"""The file of a paper's published values (a config's ``reference``): read and checked.

A reference CSV has the columns ``dataset, method, metric, mean, sd`` (see
``obliq_cli/configs/references/README.md``). The config reads it when it is loaded, so a
bad file is refused before a run; the report reads it to print the paper's values beside
ours (``report/references.py``). It lives below both, so neither imports the other.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .csvio import read_text_csv
from .errors import ObliqError

COLUMNS = ["dataset", "method", "metric", "mean", "sd"]


def read_reference(path) -> pd.DataFrame:
    """The reference CSV checked and typed: COLUMNS plus ``mean_text`` and ``sd_text``.

    Rows with an empty mean (the paper reports nothing there) are dropped. A missing file,
    a malformed CSV, a missing column, a value that is not a number or a repeated
    (dataset, method, metric) raise ObliqError naming the file (and line).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ObliqError(f"{path}: reference file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ObliqError(f"{path}: unreadable reference file ({type(exc).__name__})") from None
    ref = read_text_csv(text, path, "reference CSV", COLUMNS)
    ref = ref[COLUMNS].apply(lambda col: col.str.strip())
    for col in ("mean", "sd"):
        values = pd.to_numeric(ref[col], errors="coerce")
        bad = values.isna() & (ref[col] != "")
        if bad.any():
            i = bad.idxmax()
            raise ObliqError(f"{path}: line {int(i) + 2}: {col} is not a number "
                             f"({ref.at[i, col]!r})")
        ref[f"{col}_text"] = ref[col]
        ref[col] = values
    ref = ref[ref["mean"].notna()]
    repeated = ref.duplicated(["dataset", "method", "metric"], keep="first")
    if repeated.any():
        i = repeated.idxmax()
        raise ObliqError(f"{path}: line {int(i) + 2}: ({ref.at[i, 'dataset']}, "
                         f"{ref.at[i, 'method']}, {ref.at[i, 'metric']}) appears twice")
    return ref.reset_index(drop=True)
