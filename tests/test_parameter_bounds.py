"""Every parameter of every built-in algorithm and pruner has a declaration with finite
bounds, and a value far outside them is refused before a run: by the config check, in
one line naming ``algorithms[i].params.NAME``, and by ``fit`` or the pruner itself.

Before these bounds a config could say ``n_jumps: 1000000000`` (OC1 never ended),
``max_stagnant`` or APDT's ``temperature_window`` as an int beyond int64 (a numba
TypingError in every task), UMT's ``c_step`` as a huge int (OverflowError), an SVM grid
of 1e308 (libsvm never ended) or ``cv_folds: 1000`` (every task failed)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
import yaml

from obliq_cli import registry
from obliq_cli.config import load_config
from obliq_cli.errors import ConfigError
from obliq_cli.parameters import MAX_SEED, Interval, ListOf, ParameterError, Real
from obliq_cli.weights import WEIGHT_ARGUMENTS

ALGORITHMS = [e for e in registry.list_algorithms() if e.obj.__module__.startswith("obliq_cli")]
PRUNERS = [e for e in registry.list_pruners() if e.obj.__module__.startswith("obliq_cli")]

# Far outside any sane bound: too large, negative, not a number, infinite, beyond int64.
FAR = [1e29, -1e29, float("nan"), float("inf"), float("-inf"), 10**30, -(10**30), 2**63]
# Parameters for which -1 is an ordinary value (UMT's margins are signed).
NEGATIVE_OK = {"c_min", "c_max"}


def _intervals(constraints) -> list[Interval]:
    """Every Interval of a parameter's constraints, those of a list's items included."""
    found = []
    for c in constraints if isinstance(constraints, list) else []:
        if isinstance(c, ListOf):
            c = c.item
        if isinstance(c, Interval):
            found.append(c)
    return found


def _is_list(constraints) -> bool:
    return any(isinstance(c, ListOf) for c in constraints)


def _pruner_parameters(entry) -> set[str]:
    """The keyword parameters a pruner takes (its signature, not only its defaults), but
    the seed and the rows' weights, which the runner passes and no config sets."""
    signature = inspect.signature(entry.obj)
    runner_supplied = {"random_state", *WEIGHT_ARGUMENTS}
    return {p.name for p in signature.parameters.values()
            if p.kind == p.KEYWORD_ONLY and p.name not in runner_supplied} | set(entry.params)


def _numeric():
    """(kind, name, parameter, constraints) for every parameter with an Interval."""
    out = []
    for e in ALGORITHMS:
        for p, c in e.obj._parameter_constraints.items():
            if _intervals(c):
                out.append(("algorithm", e.name, p, c))
    for e in PRUNERS:
        for p, c in getattr(e.obj, "_parameter_constraints", {}).items():
            if _intervals(c):
                out.append(("pruner", e.name, p, c))
    return out


NUMERIC = _numeric()


def test_the_registry_has_the_built_ins():
    assert len(ALGORITHMS) >= 19 and {e.name for e in PRUNERS} >= {"cc", "pessimistic"}
    assert len(NUMERIC) > 40


def test_every_parameter_is_declared():
    undeclared = []
    for e in ALGORITHMS:
        declared = e.obj._parameter_constraints
        undeclared += [f"{e.name}.{p}" for p in e.obj().get_params(deep=False)
                       if p not in declared]
    for e in PRUNERS:
        declared = getattr(e.obj, "_parameter_constraints", {})
        undeclared += [f"pruner {e.name}.{p}" for p in sorted(_pruner_parameters(e))
                       if p not in declared]
    assert not undeclared, f"parameters without a declaration: {', '.join(undeclared)}"


def test_every_interval_has_two_finite_bounds():
    unbounded = [f"{kind} {name}.{p}: {i}" for kind, name, p, c in NUMERIC
                 for i in _intervals(c)
                 if i.left is None or i.right is None
                 or not (math.isfinite(i.left) and math.isfinite(i.right))]
    assert not unbounded, "\n".join(unbounded)


def test_integer_bounds_fit_the_kernels_int64():
    from numbers import Integral

    wide = [f"{kind} {name}.{p}" for kind, name, p, c in NUMERIC for i in _intervals(c)
            if i.type is Integral and not (-(2**63) <= i.left and i.right < 2**63)]
    assert not wide


def test_an_interval_refuses_nan_and_infinities_even_where_unbounded():
    unbounded = Interval(Real, None, None, closed="neither")
    both = Interval(Real, 0, None, closed="both")
    for value in (float("nan"), float("inf"), float("-inf"), np.float64("inf")):
        assert not unbounded.is_satisfied_by(value)
        assert not both.is_satisfied_by(value)
    assert unbounded.is_satisfied_by(1e300) and both.is_satisfied_by(10**400)


def _far_values(p: str) -> list:
    return FAR + ([] if p in NEGATIVE_OK else [-1])


def _config(tmp_path, kind: str, name: str, p: str, value) -> str:
    params = {p: value}
    if kind == "algorithm":
        algorithm = {"name": name, "params": params}
    else:
        algorithm = {"name": "cart-ap", "pruner": {"name": name, "params": params}}
    data = {"name": "bounds", "datasets": ["heart"], "algorithms": [algorithm],
            "protocol": {"name": "kfold", "folds": 3}}
    path = tmp_path / "bounds.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


@pytest.mark.parametrize("kind, name, p, constraints", NUMERIC,
                         ids=[f"{k}-{n}-{p}" for k, n, p, _ in NUMERIC])
def test_a_far_value_is_one_config_error_line(tmp_path, kind, name, p, constraints):
    field = (f"algorithms[0].params.{p}" if kind == "algorithm"
             else f"algorithms[0].pruner.params.{p}")
    for far in _far_values(p):
        value = [far] if _is_list(constraints) else far
        path = _config(tmp_path, kind, name, p, value)
        with pytest.raises(ConfigError) as info:
            load_config(path)
        message = str(info.value)
        assert "\n" not in message, message
        assert message.startswith(f"{path}: {field}: must be "), message
        assert "(got " in message, message


X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0], [1.0, 1.0]] * 3)
Y = np.array(["a", "b", "a", "b"] * 3)


@pytest.mark.parametrize("kind, name, p, constraints",
                         [n for n in NUMERIC if n[0] == "algorithm"],
                         ids=[f"{n[1]}-{n[2]}" for n in NUMERIC if n[0] == "algorithm"])
def test_fit_refuses_a_far_value_before_any_work(kind, name, p, constraints):
    for far in (1e29, float("nan"), 10**30):
        value = [far] if _is_list(constraints) else far
        estimator = registry.make_estimator(name, **{p: value})
        with pytest.raises(ParameterError) as info:
            estimator.fit(X, Y)
        assert info.value.param == p


@pytest.mark.parametrize("name, p", [(n, p) for k, n, p, _ in NUMERIC if k == "pruner"])
def test_a_pruner_refuses_a_far_value_when_called(name, p):
    fitted = registry.make_estimator("cart-ap").fit(X, Y)
    with pytest.raises(ParameterError) as info:
        registry.get_pruner(name)(fitted, X, Y, X, Y, random_state=0, **{p: 1e29})
    assert info.value.param == p


@pytest.mark.parametrize("name", [e.name for e in PRUNERS])
def test_a_config_cannot_set_the_rows_weights_a_pruner_reads(tmp_path, name):
    # every built-in pruner takes them from the runner (test_pruner_weights.py)
    assert set(WEIGHT_ARGUMENTS) <= set(inspect.signature(registry.get_pruner(name)).parameters)
    for p in WEIGHT_ARGUMENTS:
        path = _config(tmp_path, "pruner", name, p, 1.0)
        with pytest.raises(ConfigError) as info:
            load_config(path)
        message = str(info.value)
        assert "\n" not in message, message
        assert message.startswith(f"{path}: algorithms[0].pruner.params"), message
        assert p in message, message


def test_a_float_where_an_int_is_declared_is_refused_not_cast(tmp_path):
    # 1e29 written as a float: an int parameter never receives it truncated
    path = _config(tmp_path, "algorithm", "oc1", "n_jumps", 5.0)
    with pytest.raises(ConfigError, match=r"n_jumps: must be an int in the range"):
        load_config(path)


def test_random_state_takes_what_scikit_learn_takes():
    registry.make_estimator("cart-ap", random_state=MAX_SEED).fit(X, Y)
    with pytest.raises(ParameterError):
        registry.make_estimator("cart-ap", random_state=MAX_SEED + 1).fit(X, Y)


def test_the_largest_accepted_values_still_run():
    """The upper bounds are not a step away from a crash: OC1 at its most jumps and
    stagnant moves on a tiny problem, UMT at its widest step, APDT at its longest window."""
    for name, params in [("oc1", {"n_restarts": 1, "n_jumps": 1000, "max_stagnant": 10**6}),
                         ("umt", {"c_step": 2e6}),
                         ("apdt", {"temperature_window": 10_000_000, "alopex_iterations": 20}),
                         ("cart-lc", {"tol": 1e12})]:
        assert registry.make_estimator(name, random_state=0, **params).fit(X, Y).score(X, Y) > 0


def test_gepsvm_refuses_delta_zero_only_with_the_gaussian_kernel(tmp_path):
    # the Gaussian version divides by delta (an ARPACK error in every task before)
    for params, field in [({"kernel": "rbf", "delta": 0.0}, "delta"),
                          ({"kernel": "rbf", "delta_grid": [0.0, 1.0]}, "delta_grid")]:
        path = tmp_path / "g.yaml"
        path.write_text(yaml.safe_dump({
            "name": "g", "datasets": ["heart"], "protocol": {"name": "kfold"},
            "algorithms": [{"name": "gepsvm", "params": params}]}))
        with pytest.raises(ConfigError, match=rf"algorithms\[0\]\.params\.{field}: must be "
                                              r"above 0 with kernel 'rbf'"):
            load_config(path)
    fitted = registry.make_estimator("gepsvm", kernel="linear", delta=0.0).fit(X, Y)
    assert fitted.score(X, Y) >= 0.5


def test_cv_folds_beyond_the_growing_rows_is_refused_before_the_run(tmp_path):
    from click.testing import CliRunner

    from obliq_cli.cli import main

    rows = "a,b,class\n" + "".join(f"{i % 5},{i % 3},{'xy'[i % 2]}\n" for i in range(40))
    (tmp_path / "d.csv").write_text(rows)
    config = tmp_path / "c.yaml"
    config.write_text("name: c\ndatasets: [{name: d, path: d.csv, target: class}]\n"
                      "algorithms: [{name: cart-ap, pruner: {name: cc, params: "
                      "{cv_folds: 25}}}]\nprotocol: {name: kfold, folds: 2}\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(config), "-o", str(out), "--no-progress"])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"error: {config}: algorithms[0].pruner.params.cv_folds (cart-ap) on d: must be at "
        f"most the 20 rows of the smallest growing part (got 25)"]
    assert not out.exists()
    # with a pruning part held out no CV runs: the same value is fine
    config.write_text(config.read_text().replace("folds: 2}", "folds: 2, prune_fraction: 0.2}"))
    result = CliRunner().invoke(main, ["run", str(config), "-o", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output


def test_every_dataset_parameter_is_declared_and_bounded():
    from obliq_cli.parameters import first_violation

    undeclared, unbounded, accepted = [], [], []
    for e in registry.list_datasets(aliases=True):
        if not e.obj.__module__.startswith("obliq_cli"):
            continue  # the tests' own datasets (conftest.py)
        constraints = e.extra.get("constraints", {})
        undeclared += [f"{e.name}.{p}" for p in e.params if p not in constraints]
        for p, c in constraints.items():
            for i in _intervals(c):
                if i.left is None or i.right is None:
                    unbounded.append(f"{e.name}.{p}")
            if _intervals(c):
                accepted += [f"{e.name}.{p}={v!r}" for v in FAR + [-1]
                             if first_violation({p: v}, constraints) is None]
    assert not undeclared, undeclared
    assert not unbounded, unbounded
    assert not accepted, accepted
