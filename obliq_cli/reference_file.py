"""The file of a paper's published values (a config's ``reference``): read and checked.

A reference CSV has the columns ``dataset, method, metric, mean, sd`` (see
``obliq_cli/configs/references/README.md``). The config reads it when it is loaded, so a
bad file is refused before a run; the analysis reads it to set the paper's values beside
ours (``analysis/references.py``). It lives below both, so neither imports the other.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd

from .csvio import read_text_csv
from .errors import ObliqError
from .parameters import Described, Interval, Real, Text, several_problems, violations

COLUMNS = ["dataset", "method", "metric", "mean", "sd"]

# What each cell of a row may hold (a row whose mean is empty is dropped: the paper reports
# nothing there). A mean or sd is printed finite by every paper; an infinite one, or a
# negative sd, is a typo that would pass as an ordinary number into every ✓.
_NAME = [Described([Text()], "must be a name")]
CELLS: dict[str, list] = {
    "dataset": _NAME,
    "method": _NAME,
    "metric": _NAME,
    "mean": [Described([Interval(Real, None, None, closed="neither")],
                       "must be a finite number")],
    "sd": [Described([Interval(Real, 0, None, closed="left"), None],
                     "must be a finite number >= 0, or empty")],
}


def read_reference(path) -> pd.DataFrame:
    """The reference CSV checked and typed: COLUMNS plus ``mean_text`` and ``sd_text``.

    A run reads its file when the config is checked and again for each table it prints,
    each row through its declaration: the frame of a file unchanged since (same size and
    modification time) is read once (``_read_stamped``, the memo ``data.files`` keeps
    for data files), and a copy of it given each time.

    Rows with an empty mean (the paper reports nothing there) are dropped. A missing file,
    a malformed CSV or a missing column raise ObliqError naming the file; every cell that
    is not a number or that its declaration in CELLS refuses, and every repeated (dataset,
    method, metric), is reported at once, a line each naming the file, line and column.
    """
    path = Path(path)
    try:
        stat = path.stat()
    except OSError:  # read_text says what is wrong
        return _read_reference(path)
    return _read_stamped(str(path), str(path.resolve()), stat.st_size,
                         stat.st_mtime_ns).copy()


@functools.lru_cache(maxsize=4)
def _read_stamped(path: str, resolved: str, size: int, mtime_ns: int) -> pd.DataFrame:
    """``_read_reference`` of ``path`` (errors name it as given) as the file ``resolved``
    was at (size, mtime_ns)."""
    return _read_reference(Path(path))


def _read_reference(path: Path) -> pd.DataFrame:
    """``read_reference`` of a file not read before."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ObliqError(f"{path}: reference file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ObliqError(f"{path}: unreadable reference file ({type(exc).__name__})") from None
    ref = read_text_csv(text, path, "reference CSV", COLUMNS)
    ref = ref[COLUMNS].apply(lambda col: col.str.strip())
    problems = []
    for col in ("mean", "sd"):
        values = pd.to_numeric(ref[col], errors="coerce")
        bad = values.isna() & (ref[col] != "")
        problems += [(i, f"{col} is not a number ({ref.at[i, col]!r})")
                     for i in bad[bad].index]
        ref[f"{col}_text"] = ref[col]
        ref[col] = values.where(~bad, 0.0)  # reported above; 0 keeps the checks below quiet
    ref = ref[ref["mean_text"] != ""]
    # a few hundred rows per file, read once: each row through the declaration
    for i, row in zip(ref.index, ref[COLUMNS].itertuples(index=False)):
        cells = dict(zip(COLUMNS, row))
        cells["sd"] = None if ref.at[i, "sd_text"] == "" else cells["sd"]
        problems += [(i, f"{col} {must}") for col, must in violations(cells, CELLS)]
    repeated = ref.duplicated(["dataset", "method", "metric"], keep="first")
    problems += [(i, f"({ref.at[i, 'dataset']}, {ref.at[i, 'method']}, "
                     f"{ref.at[i, 'metric']}) appears twice") for i in repeated[repeated].index]
    if problems:
        # line 1 is the header, so the row of index i is on line i + 2
        raise several_problems([f"{path}: line {int(i) + 2}: {problem}"
                                for i, problem in sorted(problems, key=lambda p: p[0])])
    return ref.reset_index(drop=True)
