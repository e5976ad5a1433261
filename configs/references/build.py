"""Rebuild the reference CSVs here from the transcribed paper tables in ../shared.

Run from the repository root: ``python configs/references/build.py [PAPER_TABLES_DIR]``
(default ``../shared/paper-tables``). Output columns: dataset, method, metric, mean, sd
(report/references.py). Datasets get our registry names (``obliq datasets``), metrics
our metric names; numbers keep the paper's printed text ("38.80" stays "38.80"); rows
where the paper reports nothing are left out. README.md lists files and mappings.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent

# HHCART paper Table 1 abbreviations -> our dataset names (catalog aliases agree).
HHCART_DATASETS = {
    "BS": "balance", "BH": "boston", "BC": "wisconsin", "BUPA": "bupa", "GLS": "glass",
    "HRT": "heart", "PIND": "pima", "SHUT": "shuttle", "WINE": "wine", "LET": "letter",
    "SUR": "survival",
}

# GDT paper Table I / Sec. IV names -> ours; Breast Cancer is the 683-row set, Magic the
# paper's 3000 + 3000 subset.
GDT_DATASETS = {
    "2x2 checkerboard": "checker2x2", "4x4 checkerboard": "checker4x4",
    "10-dimensional synthetic": "synthetic10d", "Breast Cancer": "wisconsin",
    "Bupa Liver": "bupa", "Pima Indian": "pima", "Magic": "magic6000", "Heart": "heart",
    "Votes": "votes", "Wine": "wine", "Vehicle": "vehicle", "Balance Scale": "balance",
    "Glass": "glass",
}
# The paper prints "CART"; its text names the CART-LC package (paper-tables README, GDT 5).
GDT_METHODS = {"Geometric DT": "Geometric DT", "OC1": "OC1", "CART": "CART-LC"}

# UMT paper names are lower case already; these differ from ours. Sets we do not have keep
# the paper's name (no dataset of ours will match them).
UMT_DATASETS = {"haberman": "survival", "ironosphere": "ionosphere", "srbc": "srbct"}


def _long(src: pd.DataFrame, metrics: dict, datasets, methods=None) -> pd.DataFrame:
    """Tidy rows for each our_metric: (mean column, sd column) of ``src``."""
    parts = []
    for metric, (mean, sd) in metrics.items():
        parts.append(pd.DataFrame({
            "dataset": src["dataset"].map(datasets),
            "method": src["method"] if methods is None else src["method"].map(methods),
            "metric": metric, "mean": src[mean], "sd": src[sd],
        }))
    out = pd.concat(parts, ignore_index=True)
    if out[["dataset", "method"]].isna().any(axis=None):
        raise SystemExit("a dataset or method of the paper table has no mapping")
    return out[out["mean"] != ""]


def _read(tables: Path, name: str) -> pd.DataFrame:
    # as text: the printed precision is part of the reference ("99.0 ± 0.50")
    return pd.read_csv(tables / name, dtype=str, keep_default_na=False)


def hhcart_table2(tables: Path) -> pd.DataFrame:
    """HHCART Table 2: accuracy (%) and size (terminal nodes = our n_leaves)."""
    return _long(_read(tables, "hhcart_table2.csv"),
                 {"test_accuracy": ("accuracy_mean", "accuracy_sd"),
                  "n_leaves": ("size_mean", "size_sd")}, HHCART_DATASETS)


def class_positions(dataset: str, paper_counts: list[int]) -> list[int]:
    """Our 1-based class position (sorted labels, the order of ``tpr:K``) for each of the
    paper's classes, matched by number of examples; equal counts keep their order
    (Balance Scale's L and R, 288 each). None where the dataset is not offline."""
    try:
        from obliq_cli import load_dataset

        _, y, _ = load_dataset(dataset)
    except Exception:  # not available offline: the paper's rows are still worth keeping
        return [None] * len(paper_counts)
    labels, counts = np.unique(y, return_counts=True)
    free = list(range(len(labels)))
    out = []
    for n in paper_counts:
        match = next((i for i in free if counts[i] == int(n)), None)
        if match is None:
            raise SystemExit(f"{dataset}: no class with {n} examples in our copy "
                             f"({dict(zip(labels.tolist(), counts.tolist()))})")
        free.remove(match)
        out.append(match + 1)
    return out


def _per_class(rows: pd.DataFrame, class_col: str, count_col: str, datasets: dict,
               pairs: dict) -> pd.DataFrame:
    """Tidy tpr:K / tnr:K rows; ``pairs`` maps kind -> (mean column, sd column or None)."""
    rows = rows.copy()
    rows["ours"] = rows["dataset"].map(datasets)
    position = {}
    for name, part in rows.groupby("ours", sort=False):
        classes = part[[class_col, count_col]].drop_duplicates()
        ks = class_positions(name, classes[count_col].tolist())
        position[name] = dict(zip(classes[class_col], ks))
    rows["k"] = [position[d][c] for d, c in zip(rows["ours"], rows[class_col])]
    rows = rows[rows["k"].notna()]
    parts = []
    for kind, (mean, sd) in pairs.items():
        parts.append(pd.DataFrame({
            "dataset": rows["ours"], "method": rows["method"],
            "metric": [f"{kind}:{int(k)}" for k in rows["k"]],
            "mean": rows[mean], "sd": rows[sd] if sd else ""}))
    out = pd.concat(parts, ignore_index=True)
    return out[out["mean"] != ""]


def hhcart_uci(tables: Path) -> pd.DataFrame:
    """HHCART Tables 2-4 (one experiment gives all three): accuracy and terminal nodes
    (Table 2), per-class TPR and, for HHCART, TNR (Table 3; the paper omits sds below
    0.2, so none is given), macro F-measure (Table 4)."""
    table3 = _read(tables, "hhcart_table3_tpr.csv")
    table3 = table3[table3["row_type"] == "class_rate"]
    f = _long(_read(tables, "hhcart_table4_fmeasure.csv"),
              {"macro_f1": ("fmeasure_mean", "fmeasure_sd")}, HHCART_DATASETS)
    return pd.concat([
        hhcart_table2(tables),
        _per_class(table3, "class", "class_n_examples", HHCART_DATASETS,
                   {"tpr": ("tpr_mean", "tpr_sd"), "tnr": ("tnr_mean", None)}),
        f,
    ], ignore_index=True)


def hhcart_fdt(tables: Path) -> pd.DataFrame:
    """HHCART Table 5 (HHCART vs FDT, stratified 10 x 5-fold CV): accuracy, terminal
    nodes (FDT's from one tree on all the data, no sd), TPR of both classes, F-measure."""
    src = _read(tables, "hhcart_table5_fdt.csv")
    main = _long(src, {"test_accuracy": ("accuracy_mean", "accuracy_sd"),
                       "n_leaves": ("size_mean", "size_sd"),
                       "macro_f1": ("fmeasure_mean", "fmeasure_sd")}, HHCART_DATASETS)
    per_class = []
    for c in ("class1", "class2"):
        rows = src.rename(columns={f"{c}_n_examples": "n", f"{c}_tpr_mean": "m",
                                   f"{c}_tpr_sd": "s"}).assign(paper_class=c)
        per_class.append(_per_class(rows, "paper_class", "n", HHCART_DATASETS,
                                    {"tpr": ("m", "s")}))
    return pd.concat([main, *per_class], ignore_index=True)


# HHCART Table 6 names -> ours (Bank is not offline; its rows are kept for when it is).
HHCART_MIXED = {"Income": "adult", "Bank": "bank", "StatLog": "australian"}


def hhcart_mixed(tables: Path) -> pd.DataFrame:
    """HHCART Table 7 (HHCART vs QUEST on mixed features): accuracy, terminal nodes."""
    return _long(_read(tables, "hhcart_table7_quest.csv"),
                 {"test_accuracy": ("accuracy_mean", "accuracy_sd"),
                  "n_leaves": ("size_mean", "size_sd")}, HHCART_MIXED)


def gdt_table2(tables: Path) -> pd.DataFrame:
    """GDT Table II: accuracy (%), leaves, depth, training time (s)."""
    return _long(_read(tables, "gdt_table2.csv"),
                 {"test_accuracy": ("accuracy_mean", "accuracy_sd"),
                  "n_leaves": ("size_mean", "size_sd"),
                  "depth": ("depth_mean", "depth_sd"),
                  "fit_time": ("time_sec_mean", "time_sec_sd")},
                 GDT_DATASETS, GDT_METHODS)


def umt_tables(tables: Path) -> pd.DataFrame:
    """UMT Tables 2 and 4: error (%); Table 3: nodes including leaves (our n_nodes)."""
    error = pd.concat([_read(tables, "umt_table2_error_2class.csv"),
                       _read(tables, "umt_table4_error_multiclass.csv")], ignore_index=True)
    nodes = _read(tables, "umt_table3_nodes_2class.csv")
    names = {d: UMT_DATASETS.get(d, d) for d in pd.concat([error, nodes])["dataset"]}
    return pd.concat([
        _long(error, {"test_error": ("error_mean", "error_sd")}, names),
        _long(nodes, {"n_nodes": ("size_mean", "size_sd")}, names),
    ], ignore_index=True)


def gdt_table3(tables: Path) -> pd.DataFrame:
    """GDT Table III: accuracy (%) and training time (s) of Geometric DT, SVM, GEPSVM."""
    return _long(_read(tables, "gdt_table3_svm.csv"),
                 {"test_accuracy": ("accuracy_mean", "accuracy_sd"),
                  "fit_time": ("time_sec_mean", "time_sec_sd")},
                 GDT_DATASETS, {"Geometric DT": "Geometric DT", "SVM": "SVM", "GEPSVM": "GEPSVM"})


APDT_DATASETS = {"1": "apdt_problem1", "2": "apdt_problem2", "3": "apdt_problem3",
                 "IRIS": "iris", "WINE": "wine"}
APDT_METRICS = {"train_accuracy": "train_accuracy", "test_accuracy": "test_accuracy",
                "size": "n_internal", "depth": "depth"}


def _apdt_rows(src: pd.DataFrame, key: str, methods, suffix: str = "",
               columns: dict | None = None) -> pd.DataFrame:
    """Tidy rows of an APDT table; the paper gives no sds. ``suffix`` '@best' marks the
    best-of-5 values (Table II) that `obliq table --best` stands beside."""
    parts = []
    for column, metric in (columns or APDT_METRICS).items():
        for mean_col in (column, f"{column}_mean"):
            if mean_col in src.columns:
                parts.append(pd.DataFrame({
                    "dataset": src[key].map(APDT_DATASETS), "method": methods,
                    "metric": metric + suffix, "mean": src[mean_col], "sd": ""}))
    out = pd.concat(parts, ignore_index=True)
    return out[out["mean"] != ""]


def apdt_tables(tables: Path) -> pd.DataFrame:
    """APDT Tables II (best of 5, as <metric>@best), III and IV (mean of 5), VI (one tree
    per grower x pruner; methods "OC1 CC" etc. as the configs label them). Size N is
    internal nodes (our n_internal)."""
    best = _read(tables, "apdt_table2_best.csv")
    average = _read(tables, "apdt_table3_average.csv")
    ml = _read(tables, "apdt_table4_ml.csv")
    pruning = _read(tables, "apdt_table6_pruning.csv")
    return pd.concat([
        _apdt_rows(best, "problem", best["method"], "@best"),
        _apdt_rows(average, "problem", average["method"]),
        _apdt_rows(ml, "dataset", ml["method"]),
        _apdt_rows(pruning, "problem", pruning["grower"] + " " + pruning["pruner"]),
    ], ignore_index=True)


def apdt_noise(tables: Path) -> pd.DataFrame:
    """APDT Table VII, the 15 % noise rows (its 0 % rows repeat Table VI); t_lrn is our
    fit_time. The grower is OC1 (inferred, see the paper-tables README)."""
    src = _read(tables, "apdt_table7_noise.csv")
    src = src[src["noise_pct"] == "15"]
    return _apdt_rows(src, "problem", "OC1 " + src["pruner"], columns={
        "train_accuracy": "train_accuracy", "test_accuracy": "test_accuracy",
        "size": "n_internal", "t_lrn_sec": "fit_time"})


BUILDERS = {"apdt_tables.csv": apdt_tables, "apdt_noise.csv": apdt_noise,
            "hhcart_uci.csv": hhcart_uci, "hhcart_fdt.csv": hhcart_fdt,
            "hhcart_mixed.csv": hhcart_mixed, "gdt_table2.csv": gdt_table2,
            "gdt_table3.csv": gdt_table3, "umt_tables.csv": umt_tables}


def main() -> None:
    default = HERE.parents[2] / "shared" / "paper-tables"
    tables = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    for name, build in BUILDERS.items():
        out = build(tables)
        out.to_csv(HERE / name, index=False)
        print(f"wrote {HERE / name} ({len(out)} rows)")


if __name__ == "__main__":
    main()
