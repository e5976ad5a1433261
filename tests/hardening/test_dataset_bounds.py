"""Dataset parameters are checked against their declarations wherever a dataset loads."""

import re

import pytest

from obliq_cli import load_dataset, registry
from obliq_cli.data.generators import GENERATOR_PARAMS, GENERATORS, MAX_ROWS
from obliq_cli.errors import DataError


@pytest.mark.parametrize("params,fragment", [
    ({"n": -5}, "n must be an int in the range [2, 1000000] (got -5)"),
    ({"n": MAX_ROWS + 1}, "got 1000001"),
    ({"n": "lots"}, "got 'lots'"),
    ({"seed": "abc"}, "seed must be an int in the range [0, 4294967295]"),
    ({"seed": 2**32}, "(got 4294967296)"),
])
def test_generator_bounds_hold_outside_a_config(params, fragment):
    with pytest.raises(DataError, match=re.escape(fragment)):
        load_dataset("twonorm_gen", **params)


def test_every_generator_declares_what_it_takes():
    import inspect

    assert set(GENERATOR_PARAMS) == set(GENERATORS)
    for name, func in GENERATORS.items():
        taken = set(inspect.signature(func).parameters) & {"n", "seed"}
        assert set(GENERATOR_PARAMS[name]) == taken, name


def test_a_catalog_generator_accepts_only_its_declared_parameters():
    # balance enumerates all 625 rows: no size or seed to give
    assert set(registry.dataset_entry("balance").params) == {"path"}
    assert set(registry.dataset_entry("checker4x4").params) == {"path", "n", "seed"}
