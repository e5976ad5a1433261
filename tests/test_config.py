"""Configs: defaults, one-line errors naming file and field, the results hash.

Uses the test-only registrations of conftest (test-tree, test-prune, test-iris ...), so
these tests depend on no built-in algorithm or downloaded dataset.
"""

import dataclasses
import json

import pytest

from obliq_cli.config import ExperimentConfig, load_config
from obliq_cli.errors import ConfigError
from obliq_cli.registry import DEFAULT_BACKEND
from obliq_cli.resources import shipped_configs

MINIMAL = """
name: mini
datasets: [test-iris]
algorithms:
  - name: test-tree
    pruner: {name: test-prune}
protocol: {name: kfold, folds: 3, repeats: 1, prune_fraction: 0.1}
"""


def error_of(write_config, text, overrides=None) -> tuple[str, str]:
    path = write_config(text)
    with pytest.raises(ConfigError) as info:
        load_config(path, overrides or {})
    message = str(info.value)
    assert "\n" not in message, message
    assert message.startswith(f"{path}: "), message
    return message, str(path)


def test_defaults(write_config):
    config = load_config(write_config(MINIMAL), {})
    assert config.name == "mini" and config.seed == 0
    assert config.metrics == ("test_accuracy", "n_leaves")
    assert config.output == "results/mini"
    assert config.n_jobs == 1 and config.backend == DEFAULT_BACKEND
    assert config.reference is None and config.timeout is None  # no time limit
    (algo,) = config.algorithms
    assert algo.label == "test-tree" and algo.params == {}
    assert algo.pruner.name == "test-prune" and algo.pruner.params == {}
    (data,) = config.datasets
    assert (data.name, data.label, data.params) == ("test-iris", "test-iris", {})
    p = config.protocol
    assert (p.name, p.folds, p.repeats, p.stratified, p.prune_fraction) == (
        "kfold", 3, 1, False, 0.1)


def test_config_is_frozen_and_plain_data(write_config):
    config = load_config(write_config(MINIMAL), {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.seed = 5
    data = config.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["protocol"]["folds"] == 3
    assert data["algorithms"][0]["pruner"] == {"name": "test-prune", "params": {}}


def test_protocol_defaults_per_protocol(write_config):
    holdout = MINIMAL.replace("{name: kfold, folds: 3, repeats: 1, prune_fraction: 0.1}",
                              "{name: holdout_cv, test_fraction: 0.25, folds: 3}")
    p = load_config(write_config(holdout), {}).protocol
    assert p.stratified is True and p.test_fraction == 0.25 and p.folds == 3
    rnd = MINIMAL.replace("{name: kfold, folds: 3, repeats: 1, prune_fraction: 0.1}",
                          "{name: random_split, train_size: 100, test_size: 0.2, runs: 4}")
    p = load_config(write_config(rnd), {}).protocol
    assert (p.train_size, p.test_size, p.repeats, p.stratified) == (100, 0.2, 4, False)
    fixed = MINIMAL.replace("{name: kfold, folds: 3, repeats: 1, prune_fraction: 0.1}",
                            "{name: fixed_split}")
    p = load_config(write_config(fixed), {}).protocol
    assert (p.repeats, p.prune_fraction) == (1, None)


@pytest.mark.parametrize("change,fragments", [
    (("    pruner: {name: test-prune}", "    parms: {max_depth: 2}"),
     ["algorithms[0].parms: unknown key (did you mean 'params'?)"]),
    (("name: mini", "name: mini\nseeed: 3"), ["seeed: unknown key (did you mean 'seed'?)"]),
    (("datasets: [test-iris]", "datasets: [test-irsi]"),
     ["datasets[0]: unknown dataset 'test-irsi' (did you mean 'test-iris'?)"]),
    (("datasets: [test-iris]", "datasets: [{name: test-wine, params: {clases: 2}}]"),
     ["datasets[0].params.clases", "did you mean 'classes'"]),
    (("  - name: test-tree", "  - name: test-tre"),
     ["algorithms[0].name: unknown algorithm 'test-tre' (did you mean 'test-tree'?)"]),
    (("    pruner: {name: test-prune}", "    params: {max_dept: 3}"),
     ["algorithms[0].params", "no parameter 'max_dept'", "did you mean 'max_depth'"]),
    (("{name: test-prune}", "{name: test-prun}"),
     ["algorithms[0].pruner.name", "unknown pruner 'test-prun'", "did you mean 'test-prune'"]),
    (("{name: test-prune}", "{name: test-prune, params: {max_dpth: 2}}"),
     ["algorithms[0].pruner.params.max_dpth", "did you mean 'max_depth'"]),
    (("folds: 3", "folds: 1"), ["protocol.folds: must be an integer >= 2 (got 1)"]),
    (("folds: 3", "folds: three"), ["protocol.folds: must be an integer"]),
    (("repeats: 1", "repeats: 0"), ["protocol.repeats: must be an integer >= 1 (got 0)"]),
    (("prune_fraction: 0.1", "prune_fraction: 0"), ["protocol.prune_fraction", "(got 0)"]),
    (("prune_fraction: 0.1", "prune_fraction: 1.5"),
     ["protocol.prune_fraction: must be a number strictly between 0 and 1 (got 1.5)"]),
    (("prune_fraction: 0.1", "prune_fraction: 0.1, test_fraction: 0.2"),
     ["protocol.test_fraction: unknown key"]),
    (("name: kfold", "name: kfodl"), ["protocol.name: unknown protocol 'kfodl'",
                                      "did you mean 'kfold'"]),
    (("name: mini", "name: mini\nbackend: lokky"), ["backend: unknown backend 'lokky'",
                                                     "did you mean 'loky'"]),
    (("name: mini", "name: mini\nn_jobs: 0"), ["n_jobs"]),
    (("name: mini", "name: mini\ntimeout: 0"), ["timeout: must be a number of seconds above 0",
                                                 "(got 0)"]),
    (("name: mini", "name: mini\ntimeout: .nan"), ["timeout:", "(got nan)"]),
    (("name: mini", "name: mini\ntimeout: 1e308"), ["timeout:", "at most 604800"]),
    (("name: mini", "name: mini\ntimeout: ten"), ["timeout:", "(got 'ten')"]),
    (("name: mini", "name: mini\ntimeout: true"), ["timeout:", "(got True)"]),
    (("name: mini", "name: mini\nmetrics: [test_acuracy]"),
     ["metrics[0]: unknown metric 'test_acuracy'", "did you mean 'test_accuracy'"]),
    (("name: mini", "name: mini\nreference: nowhere.csv"), ["reference.file: no such file"]),
    (("name: mini\n", ""), ["name: required"]),
])
def test_errors_name_file_and_field(write_config, change, fragments):
    assert change[0] in MINIMAL
    message, _ = error_of(write_config, MINIMAL.replace(*change))
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_duplicate_labels(write_config):
    text = MINIMAL.replace("  - name: test-tree\n", "  - name: test-tree\n  - name: test-tree\n")
    message, _ = error_of(write_config, text)
    assert "algorithms[1]" in message and "'test-tree' appears twice" in message


def test_random_split_runs_and_repeats_conflict(write_config):
    text = MINIMAL.replace("{name: kfold, folds: 3, repeats: 1, prune_fraction: 0.1}",
                           "{name: random_split, train_size: 0.5, runs: 0}")
    message, _ = error_of(write_config, text)
    assert "protocol.runs: must be an integer >= 1 (got 0)" in message
    text = text.replace("runs: 0", "runs: 2, repeats: 2")
    assert "protocol.runs: give either runs or repeats" in error_of(write_config, text)[0]


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError, match="^" + str(missing) + ": no such file$"):
        load_config(missing, {})


def test_yaml_syntax_error_gives_the_line(write_config):
    path = write_config("name: x\ndatasets: [test-iris\nalgorithms: []\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, {})
    message = str(info.value)
    assert message.startswith(f"{path}: line ") and "invalid YAML" in message
    assert "\n" not in message


def test_reference_is_relative_to_the_config(write_config, tmp_path):
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "paper.csv").write_text("dataset,method,metric,mean,sd\n")
    config = load_config(write_config(MINIMAL + "reference: refs/paper.csv\n"), {})
    assert config.reference == str((tmp_path / "refs" / "paper.csv").resolve())


def test_hash_covers_what_determines_results(write_config):
    base = load_config(write_config(MINIMAL, "a.yaml"), {})
    same = load_config(write_config(
        MINIMAL + "n_jobs: 4\nbackend: threading\noutput: elsewhere\nmetrics: [depth]\n"
        "timeout: 2.5\n", "b.yaml"), {})
    assert same.timeout == 2.5 and ExperimentConfig.from_dict(same.to_dict()).timeout == 2.5
    assert base.hash() == same.hash()
    assert base.hash() == load_config(write_config(MINIMAL, "a.yaml"), {}).hash()  # stable
    assert base.hash() == base.with_overrides(n_jobs=3, output="x").hash()
    for change in [("name: mini", "name: mini\nseed: 1"), ("folds: 3", "folds: 4"),
                   ("datasets: [test-iris]", "datasets: [test-wine]"),
                   ("{name: test-prune}", "{name: test-prune, params: {max_depth: 2}}")]:
        other = load_config(write_config(MINIMAL.replace(*change), "c.yaml"), {})
        assert other.hash() != base.hash(), change


def test_overrides_replace_file_values_and_none_keeps_them(write_config):
    path = write_config(MINIMAL + "n_jobs: 3\nbackend: threading\noutput: out/here\n")
    kept = load_config(path, {"n_jobs": None, "backend": None, "output": None})
    assert (kept.n_jobs, kept.backend, kept.output) == (3, "threading", "out/here")
    given = load_config(path, {"n_jobs": 2, "backend": "loky", "output": "x"})
    assert (given.n_jobs, given.backend, given.output) == (2, "loky", "x")
    with pytest.raises(ConfigError, match="--backend"):
        load_config(path, {"backend": "spark"})


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
    assert load_config(ok).reference_pooled is False  # the papers' fold means, by default
    pooled = write_config(ok.read_text().replace("}}", "}, pooled: true}"), "pooled.yaml")
    assert load_config(pooled).reference_pooled is True
    bad = write_config(ok.read_text().replace("}}", "}, pooled: yes please}"), "bad.yaml")
    with pytest.raises(ConfigError, match=r"bad.yaml: reference.pooled: must be true or "
                                          r"false \(got 'yes please'\)"):
        load_config(bad)



@pytest.mark.parametrize("path", sorted(shipped_configs().values()),
                         ids=lambda p: p.name)
def test_from_dict_inverts_to_dict(path):
    # The report rebuilds the config as run from meta.json: every shipped config (dataset
    # protocols, per-dataset parameters, "only" lists, pruners) must come back equal.
    config = load_config(path, {})
    data = json.loads(json.dumps(config.to_dict()))  # through JSON, as meta.json stores it
    assert ExperimentConfig.from_dict(data) == config


def test_several_problems_are_reported_at_once_each_with_file_and_field(write_config):
    path = write_config("""
        name: bad/name
        datasets: [test-irsi, {name: test-iris, parms: 1}, test-wine]
        algorithms:
          - {name: test-tree, params: {criterion: gni}}
          - {name: tset-tree}
          - {name: test-tree, label: other, only: [test-iris]}
        protocol: {name: kfold, folds: 1}
        metrics: [test_acc]
        n_jobs: 0
        """)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    problems = info.value.problems
    fields = [p.split(": ")[1] for p in problems]
    assert fields == ["name", "datasets[0]", "datasets[1].parms", "algorithms[0].params",
                      "algorithms[1].name", "protocol.folds", "metrics[0]", "n_jobs"]
    assert all(p.startswith(f"{path}: ") for p in problems)
    assert str(info.value) == "\n".join(problems)
    # `only: [test-iris]` is not reported: the datasets failed, so labels are unknown


def test_problems_in_different_keys_of_one_field_are_each_reported(write_config):
    # a misspelt top-level key does not hide the rest, and each protocol key, the
    # experiment's or a dataset's own, is checked on its own
    path = write_config("""
        name: several
        seeed: 3
        datasets: [test-iris, {name: test-wine, protocol: {train_size: 0, test_size: 2.5}}]
        algorithms: [tset-tree]
        protocol: {name: random_split, train_size: 0, test_size: 2.5, runs: 0, flods: 3}
        """)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    fields = [p.split(": ")[1] for p in info.value.problems]
    assert fields == ["seeed", "algorithms[0].name", "protocol.flods", "protocol.train_size",
                      "protocol.test_size", "protocol.runs"]
    # with the experiment's protocol right, a dataset's own sizes are reported alike
    fixed = path.read_text().replace("train_size: 0, test_size: 2.5, runs: 0, flods: 3",
                                     "train_size: 0.5, runs: 2")
    with pytest.raises(ConfigError) as info:
        load_config(write_config(fixed, "fixed.yaml"))
    fields = [p.split(": ")[1] for p in info.value.problems]
    assert fields == ["seeed", "algorithms[0].name", "datasets[1].protocol.train_size",
                      "datasets[1].protocol.test_size"]
    # a required key that is missing is reported beside the misspelling that caused it;
    # each names the line of its key (the text starts with a newline: seeed is on line 3),
    # the missing one none
    typo = fixed.replace("protocol: {name", "protocl: {name")
    with pytest.raises(ConfigError) as info:
        load_config(write_config(typo, "typo.yaml"))
    assert [p.split(": ", 1)[1] for p in info.value.problems] == [
        "seeed: unknown key (did you mean 'seed'?) (line 3)",
        "protocl: unknown key (did you mean 'protocol'?) (line 6)", "protocol: required"]


def test_at_most_ten_problems_then_a_count(write_config):
    metrics = ", ".join(f"m{i}" for i in range(14))
    path = write_config(f"""
        name: many
        datasets: [test-iris]
        algorithms: [test-tree]
        protocol: {{name: kfold, folds: 3}}
        metrics: [{metrics}]
        """)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    problems = info.value.problems
    assert len(problems) == 11 and problems[-1] == "... and 4 more problems"
    assert problems[0].startswith(f"{path}: metrics[0]: unknown metric 'm0'")
