"""The config's keys declared once (config_schema): the reader allows, requires, fills in
and checks what the declaration says, the specs store what it declares, and every error
of a file names the line of its field."""

import dataclasses

import pytest

from obliq_cli import config_schema as schema
from obliq_cli.config import AlgorithmSpec, ProtocolSpec, config_from_dict, load_config
from obliq_cli.errors import ConfigError
from obliq_cli.registry import PROTOCOLS, list_protocols
from obliq_cli.yaml_input import line_of, parse_yaml

CONFIG = """\
name: lines
datasets: [test-iris]
algorithms:
  - name: test-tree
  - name: test-tree
    label: second
    missing: drop
protocol: {name: kfold, folds: 3}
"""


def problems_of(path) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return getattr(info.value, "problems", None) or [str(info.value)]


def test_errors_name_the_line_of_their_field(write_config):
    # line 7 holds algorithms[1].missing; line 8 the protocol
    path = write_config(CONFIG)
    assert problems_of(path) == [
        f"{path}: algorithms[1].missing: must be impute or native (got 'drop'); drop and "
        f"error are set on the dataset (line 7)"]
    bad = CONFIG.replace("folds: 3", "folds: 1").replace("missing: drop", "missing: native")
    assert problems_of(write_config(bad)) == [
        f"{write_config(bad)}: protocol.folds: must be an integer >= 2 (got 1) (line 8)"]
    # a missing key: the line of the mapping that lacks it
    bad = CONFIG.replace("missing: drop", "missing: native") + "reference: {pooled: true}\n"
    assert problems_of(write_config(bad))[-1].endswith("reference.file: required (line 9)")
    bad = CONFIG.replace("  - name: test-tree\n    label", "  - label")
    assert problems_of(write_config(bad))[0].endswith("(line 5)")  # algorithms[1].name


def test_a_config_given_as_a_dict_has_no_lines():
    data = parse_yaml(CONFIG, "x")
    with pytest.raises(ConfigError) as info:
        config_from_dict(data)
    assert str(info.value).endswith("are set on the dataset"), str(info.value)


def test_line_of_merged_and_nested_fields():
    lines: dict = {}
    parse_yaml("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\nl: [a, {k: 1}]\n", "s", lines)
    assert lines["d.x"] == 1 and lines["d.y"] == 4  # merged from line 1, overridden on 4
    assert lines["l[1].k"] == 5
    assert line_of(lines, "d.y.deeper[3]") == 4 and line_of(lines, "nowhere") is None


def test_every_scope_s_keys_are_the_reader_s():
    assert schema.keys("config") == ("name", "description", "seed", "imports", "datasets",
                                      "algorithms", "protocol", "metrics", "output", "n_jobs",
                                      "backend", "timeout", "reference")
    assert schema.required("config") == ("name", "datasets", "algorithms", "protocol")
    assert schema.per_dataset_protocol_keys() == ("prune_fraction", "test_fraction",
                                                  "train_size", "test_size")


def test_the_specs_store_the_declared_keys():
    # a protocol key is a field of ProtocolSpec and back; every protocol's keys declared
    assert set(schema.keys("protocol")) == {f.name for f in dataclasses.fields(ProtocolSpec)}
    for name in list_protocols():
        assert set(PROTOCOLS[name].keys) <= set(schema.keys("protocol")), name
    # an algorithm entry's keys are AlgorithmSpec's fields but pipeline (stored as an
    # estimator with its steps in params)
    assert set(schema.keys("algorithm")) - {"pipeline"} == {
        f.name for f in dataclasses.fields(AlgorithmSpec)}


@pytest.mark.parametrize("check,value,words", [
    (schema.IntegerRange(2), 1, "must be an integer >= 2 (got 1)"),
    (schema.IntegerRange(1, 1000), 1001, "must be an integer <= 1000 (got 1001)"),
    (schema.IntegerRange(1, 1000), True, "must be an integer (got True)"),
    (schema.IntegerRange(1, 1000), 2.0, "must be an integer (got 2.0)"),
    (schema.FRACTION, 1, "must be a number strictly between 0 and 1 (got 1)"),
    (schema.FRACTION, float("nan"), "must be a number strictly between 0 and 1 (got nan)"),
    (schema.SIZE, 1.5, "a fraction must be below 1; use an integer for a row count (got 1.5)"),
    (schema.SIZE, float("inf"), "must be a fraction in (0, 1) or a row count >= 1 (got inf)"),
    (schema.BOOLEAN, "yes", "must be true or false (got 'yes')"),
    (schema.LABEL, "a\nb", "must not hold a control character (got '\\n' in 'a\\nb')"),
    (schema.declared("config")["backend"].check, "lokky",
     "unknown backend 'lokky' (did you mean 'loky'?); known: fork, loky, threading, dask"),
])
def test_constraints_say_what_is_wrong(check, value, words):
    assert not check.is_satisfied_by(value)
    assert check.problem(value) == words


@pytest.mark.parametrize("check,value", [
    (schema.IntegerRange(2), 2), (schema.FRACTION, None), (schema.FRACTION, 0.5),
    (schema.SIZE, 100), (schema.SIZE, 0.25), (schema.SIZE, None), (schema.BOOLEAN, False),
    (schema.LABEL, "CART-AP 0-SE")])
def test_constraints_accept_what_they_say(check, value):
    assert check.is_satisfied_by(value)
