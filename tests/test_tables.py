"""obliq table: hand-worked aggregation, pooled accuracy, paired tests, paper values."""

import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from obliq_cli.errors import ObliqError
from obliq_cli.experiment.schema import RUN_COLUMNS
from obliq_cli.report.aggregate import read_experiment, summarise
from obliq_cli.report.stats import paired_t_test
from obliq_cli.report.tables import render_tables


def write_results(directory, rows, name="exp", reference=None, algorithms=None):
    directory.mkdir(parents=True)
    full = []
    for r in rows:
        row = {c: "" for c in RUN_COLUMNS}
        row.update(config_hash="h", status="ok", n_leaves=3, n_internal=2, depth=2,
                   fit_time=0.1, predict_time=0.01, macro_f1=0.5, train_accuracy=100.0)
        row.update(r)
        if "n_test_correct" not in r:
            row["n_test_correct"] = round(row["test_accuracy"] * row["n_test"] / 100)
        full.append(row)
    pd.DataFrame(full, columns=RUN_COLUMNS).to_csv(directory / "runs.csv", index=False)
    config = {"algorithms": [{"label": a} for a in (algorithms or [])], "datasets": []}
    (directory / "meta.json").write_text(json.dumps({"name": name, "reference": reference,
                                                     "config": config}))
    return directory


def hand_rows():
    # Algorithm A on dataset d: repetition 0 folds 80, 90 (n_test 10, 30);
    # repetition 1 folds 70, 100 (n_test 20, 20).
    return [
        dict(dataset="d", algorithm="A", repetition=0, fold=0, test_accuracy=80.0, n_test=10),
        dict(dataset="d", algorithm="A", repetition=0, fold=1, test_accuracy=90.0, n_test=30),
        dict(dataset="d", algorithm="A", repetition=1, fold=0, test_accuracy=70.0, n_test=20),
        dict(dataset="d", algorithm="A", repetition=1, fold=1, test_accuracy=100.0, n_test=20),
    ]


def test_mean_of_folds_then_mean_sd_over_repetitions_by_hand(tmp_path):
    runs, _ = read_experiment(write_results(tmp_path / "e", hand_rows()))
    s = summarise(runs, "test_accuracy").iloc[0]
    # fold means: rep 0 = 85, rep 1 = 85 -> mean 85, sd 0
    assert (s["mean"], s["sd"], s["repetitions"]) == (85.0, 0.0, 2)
    pooled = summarise(runs, "test_accuracy", pooled=True).iloc[0]
    # pooled: rep 0 = (8 + 27) / 40 = 87.5; rep 1 = (14 + 20) / 40 = 85
    # mean 86.25, sd = |87.5 - 85| / sqrt(2) = 1.76777
    assert pooled["mean"] == pytest.approx(86.25)
    assert pooled["sd"] == pytest.approx(2.5 / np.sqrt(2))
    err = summarise(runs, "test_error").iloc[0]
    assert err["mean"] == pytest.approx(15.0)


def test_paired_t_equals_scipy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(80, 3, 50), rng.normal(79, 3, 50)
    t, p = paired_t_test(a, b)
    ref = stats.ttest_rel(a, b)
    assert t == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue)
    assert paired_t_test([1, 2, 3], [1, 2, 3]) == (0.0, 1.0)


def sig_rows():
    rng = np.random.default_rng(1)
    rows = []
    for rep in range(5):
        for fold in range(5):
            base = 80 + rng.normal(0, 1)
            for algo, shift, leaves in (("REF", 0, 10), ("BETTER", 5, 4), ("SAME", 0, 10)):
                rows.append(dict(dataset="d", algorithm=algo, repetition=rep, fold=fold,
                                 test_accuracy=base + shift + (rng.normal(0, 0.5) if algo !=
                                                               "SAME" else 0.0),
                                 n_test=20, n_leaves=leaves + rng.integers(0, 2)))
    return rows


def test_sig_marks_follow_the_metric_direction(tmp_path):
    d = write_results(tmp_path / "e", sig_rows(), algorithms=["REF", "BETTER", "SAME"])
    acc = render_tables([d], "test_accuracy", sig="REF")
    row = [line for line in acc.splitlines() if line.startswith("| d ")][0]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2].endswith(" v") and not cells[3].endswith(("v", "*"))
    assert "(1/0/0)" in acc and "(0/1/0)" in acc
    leaves = render_tables([d], "n_leaves", sig="BETTER")
    row = [line for line in leaves.splitlines() if line.startswith("| d ")][0]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1].endswith(" *")  # REF has more leaves than BETTER: worse


def test_reference_values_beside_ours(tmp_path):
    ref = tmp_path / "ref.csv"
    ref.write_text("dataset,method,metric,mean,sd\nd,A,test_accuracy,84.0,0.5\n"
                   "d,A,n_leaves,9,\n")
    d = write_results(tmp_path / "e", hand_rows(), reference=str(ref), algorithms=["A"])
    text = render_tables([d], "test_accuracy")
    assert "A (paper)" in text and "84.00 ± 0.50" in text and "+1.00 ✓" in text
    leaves = render_tables([d], "n_leaves")
    assert "-6.0" in leaves and "✓" not in leaves.split("\n\n")[1].split("paper:")[0]


def test_folder_of_experiments_and_csv_output(tmp_path):
    write_results(tmp_path / "all" / "one", hand_rows(), name="one")
    write_results(tmp_path / "all" / "two", hand_rows(), name="two")
    text = render_tables([tmp_path / "all"])
    assert "### one" in text and "### two" in text
    csv_text = render_tables([tmp_path / "all"], fmt="csv")
    frame = pd.read_csv(io.StringIO(csv_text))
    assert list(frame["experiment"]) == ["one", "two"]
    assert frame["mean"].tolist() == [85.0, 85.0]
    latex = render_tables([tmp_path / "all"], fmt="latex")
    assert r"85.00 $\pm$ 0.00" in latex
    assert "<table>" in render_tables([tmp_path / "all"], fmt="html")


def test_table_input_errors(tmp_path):
    d = write_results(tmp_path / "e", hand_rows())
    with pytest.raises(ObliqError, match="unknown metric 'acc'"):
        render_tables([d], "acc")
    with pytest.raises(ObliqError, match="no algorithm 'Z'"):
        render_tables([d], sig="Z")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "runs.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ObliqError, match="missing column"):
        render_tables([bad])


def test_reference_methods_map_our_labels_to_the_papers(tmp_path):
    ref = tmp_path / "ref.csv"
    ref.write_text("dataset,method,metric,mean,sd\nd,OC1-AP,test_accuracy,90.0,1.0\n")
    d = write_results(tmp_path / "e", hand_rows(), reference=str(ref), algorithms=["A"])
    meta = json.loads((d / "meta.json").read_text())
    meta["config"]["reference_methods"] = {"A": "OC1-AP"}
    (d / "meta.json").write_text(json.dumps(meta))
    text = render_tables([d], "test_accuracy")
    assert "OC1-AP (paper)" in text and "-5.00" in text and "✓" not in text.split("paper:")[0]
    assert "A is compared with the paper's OC1-AP" in text


def test_config_reference_names_unknown_labels(write_config, tmp_path):
    from obliq_cli.config import load_config
    from obliq_cli.errors import ConfigError

    (tmp_path / "ref.csv").write_text("dataset,method,metric,mean,sd\n")
    path = write_config("""
        name: r
        datasets: [heart]
        algorithms: [{name: cart-ap, label: CART}]
        protocol: {name: kfold}
        reference: {file: ref.csv, methods: {CRT: OC1-AP}}
        """)
    with pytest.raises(ConfigError, match=r"reference.methods.CRT: no algorithm .*'CART'"):
        load_config(path)
    ok = write_config(path.read_text().replace("CRT:", "CART:"), "ok.yaml")
    assert load_config(ok).reference_methods == {"CART": "OC1-AP"}
