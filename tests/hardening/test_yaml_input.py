"""yaml_input reads what yaml.safe_load reads, and refuses only the traps."""

from pathlib import Path

import pytest
import yaml

from obliq_cli.errors import ConfigError
from obliq_cli.yaml_input import MAX_EXPANDED_NODES, brief, load_yaml

CONFIGS = Path(__file__).resolve().parents[2] / "obliq_cli" / "configs"


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_config_reads_as_safe_load_reads_it(path):
    assert load_yaml(path) == yaml.safe_load(path.read_text(encoding="utf-8"))


def write(tmp_path, text):
    path = tmp_path / "x.yaml"
    path.write_text(text)
    return path


def test_merge_keys_and_shared_aliases_keep_their_meaning(tmp_path):
    text = "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\nl: [*b, *b]\n"
    data = load_yaml(write(tmp_path, text))
    assert data == yaml.safe_load(text)
    assert data["d"] == {"x": 1, "y": 3} and data["l"] == [{"x": 1, "y": 2}] * 2


def test_expansion_is_counted_through_aliases(tmp_path):
    # 3 levels of 30 aliases: 30^3 = 27000 strings, more than the bound; 2 levels are fine.
    row = "[" + ", ".join(["s"] * 30) + "]"
    two = f"a: &a {row}\nb: &b [" + ", ".join(["*a"] * 30) + "]\n"
    assert len(load_yaml(write(tmp_path, two))["b"]) == 30
    three = two + "c: [" + ", ".join(["*b"] * 30) + "]\n"
    assert 30 ** 3 > MAX_EXPANDED_NODES
    with pytest.raises(ConfigError, match="line 3: aliases expand to more than"):
        load_yaml(write(tmp_path, three))


def test_duplicate_keys_name_both_lines(tmp_path):
    with pytest.raises(ConfigError, match=r"x.yaml: line 3: duplicate key 'a' \(first on line 1\)"):
        load_yaml(write(tmp_path, "a: 1\nb: 2\na: 3\n"))
    # equal as values though written differently: YAML would keep the last one
    with pytest.raises(ConfigError, match="duplicate key 1"):
        load_yaml(write(tmp_path, "{1: a, 0x1: b}\n"))


def test_brief_cuts_long_and_deep_values():
    assert brief("x" * 1000) == repr("x" * 60 + "...")
    assert len(brief(list(range(10 ** 5)))) < 120
    nested = []
    nested.append(nested)  # a list that contains itself
    assert len(brief(nested)) < 120
    assert brief(5) == "5" and brief("abc") == "'abc'"
