"""Rebuild the reference CSVs here from the transcribed paper tables in ../shared.

Run from the repository root: ``python configs/references/build.py [PAPER_TABLES_DIR]``.
The output uses our dataset names and metric names; methods keep the paper's names
(a config maps its own labels onto them, see README "Config reference").
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent

# HHCART paper Table 1 abbreviations -> our dataset names.
HHCART_DATASETS = {
    "BS": "balance", "BH": "boston", "BC": "wisconsin", "BUPA": "bupa", "GLS": "glass",
    "HRT": "heart", "PIND": "pima", "SHUT": "shuttle", "WINE": "wine", "LET": "letter",
    "SUR": "survival",
}


def hhcart_table2(tables: Path) -> pd.DataFrame:
    """HHCART paper Table 2: accuracy (%) and size (terminal nodes = our n_leaves)."""
    src = pd.read_csv(tables / "hhcart_table2.csv")
    parts = []
    for metric, mean, sd in (("test_accuracy", "accuracy_mean", "accuracy_sd"),
                             ("n_leaves", "size_mean", "size_sd")):
        parts.append(pd.DataFrame({
            "dataset": src["dataset"].map(HHCART_DATASETS), "method": src["method"],
            "metric": metric, "mean": src[mean], "sd": src[sd],
        }))
    out = pd.concat(parts, ignore_index=True)
    if out["dataset"].isna().any():
        raise SystemExit("hhcart_table2.csv: a dataset abbreviation has no mapping")
    return out


def main() -> None:
    tables = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "shared" / "paper-tables"
    hhcart_table2(tables).to_csv(HERE / "hhcart_table2.csv", index=False)
    print(f"wrote {HERE / 'hhcart_table2.csv'}")


if __name__ == "__main__":
    main()
