"""The papers' published values, shown beside ours.

A reference CSV (``obliq_cli/configs/references/*.csv``, see its README) has the columns
``dataset, method, metric, mean, sd``: dataset is our dataset name, method the algorithm
label it is compared with (a config may map its own labels onto the paper's methods with
``reference: {file, methods}``), metric one of ours (test_accuracy, n_leaves, ...), mean and
sd as printed in the paper (sd empty when the paper gives none). The printed text is kept,
so "99.0 ± 0.50" shows as the paper has it.

Agreement mark: ✓ when |ours - paper| <= max(2, 2 × paper sd), in the metric's own unit
(percentage points for accuracy and error, leaves or nodes for sizes); for a fraction in
[0, 1] (F-measure, per-class rates) the floor is 0.02, the same 2 points. A blank sd
counts as 0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..experiment.metrics import METRICS
from ..reference_file import COLUMNS, read_reference  # noqa: F401  (read here by the report)
from ..resources import shipped_path

TOLERANCE_POINTS = 2.0
TOLERANCE_SDS = 2.0
# accuracy and error (percent) are 100 - each other; the sd carries over unchanged
COMPLEMENTS = {"test_error": "test_accuracy", "test_accuracy": "test_error"}


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def values_for(ref: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, str]:
    """The reference rows of ``metric`` and a note ("" unless derived).

    Accuracy and error stand in for each other (value = 100 - value, same sd, same printed
    precision) when the file has only the other: the UMT paper prints error, HHCART accuracy.
    A metric that is a reading of another (its ``paper_metric``: macro_f1_pr of macro_f1)
    is compared with that one's values when the file has none of its own.
    """
    rows = ref[ref["metric"] == metric]
    declared = METRICS.get(metric)
    if not len(rows) and declared is not None and declared.paper_metric:
        rows = ref[ref["metric"] == declared.paper_metric].copy()
        if len(rows):
            rows["metric"] = metric
            return rows, f"the paper's {declared.paper_metric} is compared with {metric}"
    other = COMPLEMENTS.get(metric)
    if len(rows) or other is None or not (ref["metric"] == other).any():
        return rows.copy(), ""
    rows = ref[ref["metric"] == other].copy()
    rows["mean"] = 100.0 - rows["mean"]
    rows["mean_text"] = [f"{v:.{_decimals(t)}f}" for v, t in zip(rows["mean"],
                                                                   rows["mean_text"])]
    rows["metric"] = metric
    return rows, f"the paper's {metric} is 100 - its {other}"


def tolerance(paper_sd, floor: float = TOLERANCE_POINTS) -> np.ndarray:
    """max(floor, 2 × paper sd) elementwise; a missing sd counts as 0."""
    sd = np.nan_to_num(np.asarray(paper_sd, dtype=np.float64), nan=0.0)
    return np.maximum(floor, TOLERANCE_SDS * sd)


def agrees(ours, paper, paper_sd, floor: float = TOLERANCE_POINTS) -> np.ndarray | bool:
    """Whether |ours - paper| <= max(floor, 2 × paper sd) (elementwise for arrays)."""
    ok = np.abs(np.asarray(ours, dtype=np.float64) - np.asarray(paper, dtype=np.float64)) \
        <= tolerance(paper_sd, floor)
    return bool(ok) if np.ndim(ok) == 0 else ok


def resolve_reference(meta: dict) -> Path | None:
    """The reference file named by meta.json (absolute as the runner writes it; a relative
    path is tried against the working directory, the results directory, then the config's
    folder). An absolute path that no longer exists and names a shipped reference
    (``.../configs/references/NAME``) resolves to this install's shipped NAME. None when
    the experiment has no reference."""
    name = meta.get("reference")
    if not name:
        return None
    path = Path(name)
    if path.is_absolute():
        if not path.is_file() and path.parent.parts[-2:] == ("configs", "references"):
            # a shipped reference of another install or checkout (results copied from
            # another machine, a removed worktree): this install's file of that name
            shipped = shipped_path("configs", "references", path.name)
            if shipped.is_file():
                return shipped
        return path
    bases = [Path.cwd(), Path(meta.get("results_dir", ".")),
             Path(meta.get("config_path") or ".").parent]
    for base in bases:
        if (base / path).is_file():
            return base / path
    return path


def paper_values(meta: dict, metric: str) -> tuple[pd.DataFrame, list[str]]:
    """The paper's values for one experiment, keyed by OUR algorithm labels.

    Columns dataset, algorithm, method, paper_mean, paper_sd, paper_text ("mean ± sd" as
    printed); plus notes for the footer. A config's ``reference.methods`` (stored in
    meta["config"]["reference_methods"]) maps our label -> the paper's method; other labels
    are looked up as they are.
    """
    path = resolve_reference(meta)
    columns = ["dataset", "algorithm", "method", "paper_mean", "paper_sd", "paper_text"]
    if path is None:
        return pd.DataFrame(columns=columns), []
    ref, derived = values_for(read_reference(path), metric)
    methods = (meta.get("config") or {}).get("reference_methods") or {}
    # our label -> paper method; any other method compares with the algorithm of that label
    pairs = pd.DataFrame(
        list(methods.items()) + [(m, m) for m in ref["method"].unique() if m not in methods],
        columns=["algorithm", "method"])
    out = pairs.merge(ref, on="method")
    text = np.where(out["sd_text"] != "", out["mean_text"] + " ± " + out["sd_text"],
                    out["mean_text"])
    out = out.assign(paper_mean=out["mean"], paper_sd=out["sd"], paper_text=text)[columns]
    notes = [f"paper: {path.name}"]
    notes += [f"{label} is compared with the paper's {method}" for label, method
              in methods.items()]
    if derived:
        notes.append(derived)
    return out, notes
