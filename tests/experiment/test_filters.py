"""Running a config piece by piece (``obliq run CONFIG --datasets --algorithms``), the
``skip`` rules that leave a cell out with a reason, how a table shows both, and the
shipped config ``benchmark`` that uses them."""

import json
from dataclasses import replace

import numpy as np
import pytest
from conftest import invoke, rows_without_times

import obliq_cli
from obliq_cli.config import SkipRule, dataset_facts, load_config, skip_terms
from obliq_cli.errors import ObliqError
from obliq_cli.experiment import results
from obliq_cli.experiment.plan import plan, select_tasks
from obliq_cli.experiment.runner import run_experiment
from obliq_cli.experiment.tasks import IDENTITIES, SKIPPED

# test-iris: 150 rows, 4 features, 3 classes; wine2: 130 rows, 13 features, 2 classes
SKIPPING = """
name: {name}
seed: 3
datasets: [test-iris, {{name: test-wine, label: wine2, params: {{classes: 2}}}}]
algorithms:
  - name: test-tree
    label: PRUNED
    pruner: {{name: test-prune, params: {{max_depth: 3}}}}
  - name: test-tree
    label: FULL
    params: {{max_features: 2}}
  - name: fdt
    label: FDT
    skip:
      - {{when: "classes > 2", reason: two-class method}}
  - name: test-tree
    label: SHALLOW
    params: {{max_depth: 2}}
    skip:
      - {{datasets: [wine2], reason: not on wine}}
protocol: {{name: kfold, folds: 2, repeats: 2, prune_fraction: 0.2}}
output: {out}
"""


@pytest.fixture
def skipping(write_config, tmp_path):
    def make(name="skipping", out=None):
        out = out or tmp_path / "results" / name
        return write_config(SKIPPING.format(name=name, out=out), f"{name}.yaml")
    return make


# ------------------------------------------------------------------ skip rules
def test_when_reads_and_before_or_with_every_operator():
    assert skip_terms("rows > 5000") == [[("rows", ">", 5000)]]
    assert skip_terms("rows>=10 and classes == 2 or features != 3") == [
        [("rows", ">=", 10), ("classes", "==", 2)], [("features", "!=", 3)]]
    facts = {"rows": 150, "features": 4, "classes": 3}
    cases = {"classes > 2": True, "classes <= 2": False, "rows < 150": False,
             "rows <= 150": True, "features == 4 and rows > 1000": False,
             "features == 5 or rows == 150": True, "rows > 1000 and classes > 2 or "
             "features < 2": False}
    for when, expected in cases.items():
        assert SkipRule("r", when=when).applies("iris", facts) is expected, when
    assert SkipRule("r", datasets=("iris",)).applies("iris", facts)
    assert not SkipRule("r", datasets=("wine",)).applies("iris", facts)


def test_dataset_facts_are_rows_columns_and_distinct_labels():
    X = np.zeros((7, 3))
    y = np.array(["a", "b", "a", "c", "c", "a", "b"])
    assert dataset_facts(X, y) == {"rows": 7, "features": 3, "classes": 3}


@pytest.mark.parametrize("rule, field, message", [
    ('{when: "rows > many", reason: r}', "algorithms[0].skip[0].when", "cannot read"),
    ('{when: "size > 3", reason: r}', "algorithms[0].skip[0].when", "unknown fact 'size'"),
    ('{when: "rows > 3"}', "algorithms[0].skip[0].reason", "required"),
    ('{when: "rows > 3", datasets: [pima], reason: r}', "algorithms[0].skip[0]",
     "either when"),
    ('{datasets: [pimx], reason: r}', "algorithms[0].skip[0].datasets[0]",
     "did you mean 'pima'"),
    ('{when: "rows > 3", reason: "' + "x" * 61 + '"}', "algorithms[0].skip[0].reason",
     "at most 60 characters"),
    ('{when: "rows > 3", reason: r, why: s}', "algorithms[0].skip[0].why", "unknown key"),
])
def test_a_bad_skip_rule_is_one_line_naming_its_field(write_config, rule, field, message):
    path = write_config(f"""
        name: bad
        datasets: [pima]
        algorithms:
          - {{name: cart-ap, skip: [{rule}]}}
        protocol: {{name: kfold, folds: 2}}
        """)
    result, lines = invoke(["run", path])
    assert result.exit_code == 2
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: {field}: "), lines
    assert message in lines[0]


def test_skip_rules_leave_cells_out_of_the_plan_and_say_why(skipping):
    config = load_config(skipping())
    tasks, _, skipped = plan(config)
    assert skipped == {"test-iris": {"FDT": "two-class method"},
                       "wine2": {"SHALLOW": "not on wine"}}
    cells = {(t.dataset.label, t.algorithm.label) for t in tasks}
    assert cells == {("test-iris", "PRUNED"), ("test-iris", "FULL"), ("test-iris", "SHALLOW"),
                     ("wine2", "PRUNED"), ("wine2", "FULL"), ("wine2", "FDT")}
    assert len(tasks) == 6 * 2 * 2  # cells x repetitions x folds
    # without the rule the same pairing is an error before the run (fdt is two-class)
    bare = replace(config, algorithms=tuple(replace(a, skip=()) for a in config.algorithms))
    with pytest.raises(ObliqError, match="fdt handles two classes only"):
        plan(bare)


def test_a_config_without_skip_rules_keeps_its_hash(small_config):
    config = load_config(small_config)
    plain = config.to_dict()
    assert all(a["skip"] == [] for a in plain["algorithms"])
    import hashlib

    keyed = {k: plain[k] for k in ("seed", "datasets", "algorithms", "protocol")}
    for dataset in keyed["datasets"]:
        dataset.pop("protocol")
    for algorithm in keyed["algorithms"]:
        for key in ("estimator", "missing", "nominal", "skip"):
            algorithm.pop(key)
    expected = hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()[:16]
    assert config.hash() == expected
    with_rule = replace(config, algorithms=(replace(config.algorithms[0], skip=(
        SkipRule("r", when="rows > 1"),)),) + config.algorithms[1:])
    assert with_rule.hash() != config.hash()
    assert type(config).from_dict(with_rule.to_dict()) == replace(with_rule, path=config.path)


# ------------------------------------------------------------------ subsets
def test_a_subset_then_a_resume_gives_the_rows_of_one_full_run(skipping, tmp_path):
    full = run_experiment(load_config(skipping("full")), progress=False)
    assert full.total == 24 and full.ran == 24
    part = load_config(skipping("part"))
    first = run_experiment(part, progress=False, datasets=["wine2"], algorithms=["FDT", "FULL"])
    assert (first.total, first.ran) == (8, 8)
    second = run_experiment(part, progress=False, resume=True, datasets=["test-iris"],
                            algorithms=["test-tree"])  # a name: PRUNED, FULL and SHALLOW
    assert (second.total, second.ran) == (12, 12)
    rest = run_experiment(part, progress=False, resume=True)
    assert (rest.total, rest.skipped, rest.ran) == (24, 20, 4)
    whole = rows_without_times(full.output / "runs.csv")
    pieces = rows_without_times(first.output / "runs.csv")
    assert set(whole) == set(pieces)
    for task, row in whole.items():
        assert {k: v for k, v in row.items() if k != "config_hash"} == \
            {k: v for k, v in pieces[task].items() if k != "config_hash"}
    meta_full = results.read_meta(full.output / "meta.json")
    meta_part = results.read_meta(first.output / "meta.json")
    assert meta_full[IDENTITIES] == meta_part[IDENTITIES]
    assert meta_part[SKIPPED] == meta_full[SKIPPED] == {
        "test-iris": {"FDT": "two-class method"}, "wine2": {"SHALLOW": "not on wine"}}
    selections = [h.get("selection") for h in meta_part["history"]]
    assert selections[0] == {"datasets": ["wine2"], "algorithms": ["FDT", "FULL"],
                             "tasks_planned": 12}
    assert selections[2] is None
    assert [h["tasks"]["total"] for h in meta_part["history"]] == [8, 12, 24]


def test_a_piece_loads_only_its_datasets(skipping, monkeypatch):
    from obliq_cli.experiment import fit, provenance
    from obliq_cli.experiment import plan as planning

    loaded = []
    real = fit.load_dataset_spec

    def spy(spec):
        loaded.append(spec.label)
        return real(spec)

    for module in (planning, provenance):  # the plan's loads, the history entry's data notes
        monkeypatch.setattr(module, "load_dataset_spec", spy)
    config = load_config(skipping())
    summary = run_experiment(config, progress=False, datasets=["wine2"])
    assert set(loaded) == {"wine2"} and summary.ran == 12
    meta = results.read_meta(summary.output / "meta.json")
    # test-iris was not loaded: its label rule is known, its rule on classes is not yet
    assert meta[SKIPPED] == {"wine2": {"SHALLOW": "not on wine"}}
    assert len(meta[IDENTITIES]) == 12 + 4 * 4  # wine2's tasks, test-iris's 4 algorithms
    assert not (summary.output / "folds" / "test-iris.npz").exists()
    loaded.clear()
    rest = run_experiment(config, progress=False, resume=True)
    assert set(loaded) == {"wine2", "test-iris"} and rest.ran == 12
    meta = results.read_meta(summary.output / "meta.json")
    assert meta[SKIPPED]["test-iris"] == {"FDT": "two-class method"}
    assert len(meta[IDENTITIES]) == 24


def test_select_tasks_by_label_or_name_and_unknown_names_listed(skipping):
    config = load_config(skipping())
    tasks, _, _ = plan(config)
    labels = {t.algorithm.label for t in select_tasks(config, tasks, None, ["test-tree"])}
    assert labels == {"PRUNED", "FULL", "SHALLOW"}
    picked = select_tasks(config, tasks, ["test-wine"], ["FULL"])  # the dataset's name
    assert {(t.dataset.label, t.algorithm.label) for t in picked} == {("wine2", "FULL")}
    with pytest.raises(ObliqError) as info:
        select_tasks(config, tasks, None, ["FUL"])
    assert str(info.value) == ("--algorithms: skipping has no algorithm 'FUL' (did you mean "
                               "'FULL'?); its algorithms: PRUNED, FULL, FDT, SHALLOW")


def test_cli_filters_run_a_piece_and_refuse_unknown_names(skipping):
    path = skipping()
    result, lines = invoke(["run", path, "--datasets", "wine2", "--algorithms", "FULL,FDT",
                            "--no-progress"])
    assert result.exit_code == 0, lines
    runs = rows_without_times(path.parent / "results" / "skipping" / "runs.csv")
    assert {(r["dataset"], r["algorithm"]) for r in runs.values()} == {
        ("wine2", "FULL"), ("wine2", "FDT")}
    result, lines = invoke(["run", path, "--resume", "--datasets", "iris", "--no-progress"])
    assert result.exit_code == 2
    assert lines == ["error: --datasets: skipping has no dataset 'iris' (did you mean "
                     "'test-iris'?); its datasets: test-iris, wine2"]
    # nothing was written by the refused run
    assert len(rows_without_times(path.parent / "results" / "skipping" / "runs.csv")) == 8


def test_the_table_of_a_partial_folder_says_not_run_and_skipped(skipping):
    path = skipping()
    res = obliq_cli.run_experiment(path, datasets="test-iris", algorithms="PRUNED,FDT")
    text = str(res.table())
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("| dataset"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "dataset", "PRUNED", "FULL", "FDT", "SHALLOW"]
    iris = next(line for line in lines if line.startswith("| test-iris"))
    wine = next(line for line in lines if line.startswith("| wine2"))
    assert [c.strip() for c in iris.strip("|").split("|")][2:] == [
        "not run", "two-class method", "not run"]
    assert [c.strip() for c in wine.strip("|").split("|")][1:] == [
        "not run", "not run", "not run", "not on wine"]
    assert "2 cells left out by the config's skip rules; the cell says why" in text
    assert "5 cells not run yet" in text
    long = str(res.table(layout="long"))
    assert "| wine2     | SHALLOW     | not on wine" in long
    # csv keeps one row per cell with a result, as documented
    frame = res.table(frame=True)
    assert set(zip(frame["dataset"], frame["algorithm"])) == {("test-iris", "PRUNED")}
    done = obliq_cli.run_experiment(path, resume=True)
    assert "not run" not in str(done.table())


def test_a_cell_whose_tasks_all_failed_says_so(tmp_path, monkeypatch):
    # DummyClassifier(strategy="constant") without its constant fails every fit; the
    # pre-run trial fit (experiment/trial.py) would refuse the run before any task, so it
    # is switched off here to reach a results folder whose cell holds failed tasks only
    from obliq_cli.experiment import trial
    monkeypatch.setattr(trial, "check", lambda *args, **kwargs: None)
    config = {"name": "failing", "datasets": ["test-iris"], "output": str(tmp_path / "f"),
              "algorithms": [{"name": "test-tree", "label": "OK"},
                             {"estimator": "sklearn.dummy.DummyClassifier", "label": "BAD",
                              "params": {"strategy": "constant"}}],
              "protocol": {"name": "kfold", "folds": 2}}
    res = obliq_cli.run_experiment(config)
    assert len(res.summary.failed) == 2
    row = next(line for line in str(res.table()).splitlines() if line.startswith("| test-iris"))
    assert [c.strip() for c in row.strip("|").split("|")][2] == "failed"


def test_a_damaged_skipped_cells_entry_is_refused(skipping):
    path = skipping()
    res = obliq_cli.run_experiment(path, datasets="wine2", algorithms="FULL")
    meta_path = res.summary.output / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta[SKIPPED] = {"test-iris": {"FDT": 3}}
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ObliqError, match="skipped_cells.test-iris.FDT: must be a reason"):
        obliq_cli.load_results(res.summary.output)


# ------------------------------------------------------------------ the benchmark
def test_the_benchmark_config_plans_each_algorithm_as_its_paper_runs_it():
    config = load_config("benchmark")
    assert config.protocol.name == "kfold" and config.protocol.folds == 2
    assert config.protocol.repeats == 5 and config.protocol.stratified
    labels = [a.label for a in config.algorithms]
    assert len(labels) == 19
    from obliq_cli import registry

    names = {a.name for a in config.algorithms if a.estimator is None}
    # every registered algorithm but the umt variants umt-ovo stands for
    assert names | {"umt", "umt-ovr"} == set(registry.BUILTIN_ALGORITHMS)
    # a slice of it: two-class rules on a multiclass and a two-class set
    small = replace(config, datasets=tuple(d for d in config.datasets
                                           if d.label in ("iris", "heart")))
    tasks, _, skipped = plan(small)
    assert set(skipped["iris"]) >= {"APDT", "FDT", "GEPSVM"}
    assert "heart" not in skipped or not {"APDT", "FDT", "GEPSVM"} & set(skipped["heart"])
    per_cell = {}
    for t in tasks:
        per_cell[(t.dataset.label, t.algorithm.label)] = per_cell.get(
            (t.dataset.label, t.algorithm.label), 0) + 1
    assert set(per_cell.values()) == {10}  # 5 x 2 folds a cell
    assert len(per_cell) == 19 + 19 - len(skipped["iris"]) - len(skipped.get("heart", {}))
