"""One parameter declaration per estimator and pruner: the config check before a run
reads it (one line naming file and field), ``fit`` and the pruners read it too."""

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.utils._param_validation import InvalidParameterError

from obliq_cli import make_estimator
from obliq_cli.cli import main
from obliq_cli.errors import ObliqError
from obliq_cli.parameters import ParameterError
from obliq_cli.registry import check_pruner_parameters

BASE = """
name: bad
datasets: [heart]
algorithms:
  - name: ALGO
    params: PARAMS
    pruner: PRUNER
protocol: {name: kfold, folds: 3, repeats: 1, prune_fraction: 0.1}
"""


def run_config(write_config, tmp_path, algo="cart-ap", params="{}", pruner="null"):
    text = BASE.replace("ALGO", algo).replace("PARAMS", params).replace("PRUNER", pruner)
    path = write_config(text)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(path), "-o", str(out), "--no-progress"])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, (result.exit_code, lines, result.exception)
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: "), lines
    assert not out.exists(), "nothing may be written on bad input"
    return lines[0]


# Values that once passed the config check and then failed (or ran wrongly) in every task.
@pytest.mark.parametrize("name, params, field, fragment", [
    ("cc", "{se_rule: -1}", "se_rule", "in the range [0.0, 1000.0] (got -1)"),
    ("cc", "{se_rule: abc}", "se_rule", "(got 'abc')"),
    ("cc", "{risk: bogus}", "risk", "among {'impurity', 'misclassification'}"),
    ("cc", "{cv_folds: 0}", "cv_folds", "an int in the range [2, 1000] (got 0)"),
    ("cc", "{keep_root: 1}", "keep_root", "must be true or false (got 1)"),
    ("pessimistic", "{confidence: 5}", "confidence", "in the range (0.0, 1.0) (got 5)"),
    ("ga", "{n_units: 0}", "n_units", "an int in the range [1, 1000] (got 0)"),
    ("la", "{q0: bogus}", "q0", "or a str among {'sparse'} (got 'bogus')"),
    ("la", "{q0: 1}", "q0", "(got 1)"),
])
def test_bad_pruner_values_are_config_errors(write_config, tmp_path, name, params, field,
                                             fragment):
    line = run_config(write_config, tmp_path, pruner=f"{{name: {name}, params: {params}}}")
    assert f"algorithms[0].pruner.params.{field}: must be " in line
    assert fragment in line


@pytest.mark.parametrize("algo, params, field, fragment", [
    ("svm", "{c_grid: []}", "c_grid", "a list of 1 to 100 values"),
    ("svm", "{gamma_grid: [1, -2]}", "gamma_grid", "each a float in the range [1e-06, 1e+06]"),
    ("umt", "{c_step: 1.0e-9}", "c_step", "at most 10001 values"),
    ("umt", "{c_min: .inf}", "c_min", "(got inf)"),
    ("cart-lc", "{tol: abc}", "tol", "(got 'abc')"),
    ("cart-lc", "{max_cycles: 0}", "max_cycles", "[1, 100000] (got 0)"),
    ("cart-lc", "{max_cycles: -3}", "max_cycles", "(got -3)"),
    ("gepsvm", "{delta: -1}", "delta", "[0.0, 1e+12] or null (got -1)"),
    ("cart-ap", "{random_state: abc}", "random_state", "Generator"),
    ("cart-ap", "{max_depth: true}", "max_depth", "(got True)"),
    ("oc1", "{n_restarts: 1000000}", "n_restarts", "[1, 1000]"),
    ("hhcart-a", "{categorical_features: [a]}", "categorical_features", "a list of"),
    ("umt-ovo", "{c_step: 0}", "c_step", "(0.0, 2e+06]"),
])
def test_bad_algorithm_values_are_config_errors(write_config, tmp_path, algo, params, field,
                                                fragment):
    line = run_config(write_config, tmp_path, algo=algo, params=params)
    assert f"algorithms[0].params.{field}: " in line
    assert fragment in line


def test_a_column_index_beyond_the_data_is_refused_before_the_run(write_config, tmp_path):
    # heart has 13 columns: index 99 is known to be wrong only once the data is loaded
    line = run_config(write_config, tmp_path, algo="hhcart-a",
                      params="{categorical_features: [2, 99]}")
    assert "algorithms[0] (hhcart-a) on heart" in line
    assert "[99] are not column indices of data with 13 features" in line


def test_fit_reads_the_same_declaration():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = [0, 0, 1, 1]
    with pytest.raises(ParameterError, match="'max_cycles' parameter of CARTLCClassifier"):
        make_estimator("cart-lc", max_cycles=0).fit(X, y)
    # one error for scikit-learn and for us
    with pytest.raises(InvalidParameterError):
        make_estimator("cart-ap", random_state="abc").fit(X, y)
    with pytest.raises(ObliqError):
        make_estimator("umt", c_step=1e-9).fit(X, y)
    assert issubclass(ParameterError, ValueError) and issubclass(ParameterError, TypeError)
    # a valid value that is a numpy scalar passes
    make_estimator("cart-ap", max_depth=np.int64(2), random_state=np.int64(3)).fit(X, y)


def test_pruners_check_their_declaration_on_every_call():
    from obliq_cli.pruning.cost_complexity import prune_cost_complexity

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    est = make_estimator("cart-ap").fit(X, [0, 1, 0, 1])
    with pytest.raises(ParameterError, match="'se_rule' parameter of cc pruner"):
        prune_cost_complexity(est, X, [0, 1, 0, 1], X, [0, 1, 0, 1], se_rule=-1)
    check_pruner_parameters("cc", {"se_rule": 1, "risk": "impurity"})  # valid: silent


def test_messages_never_print_an_unbounded_value():
    with pytest.raises(ParameterError) as info:
        make_estimator("svm", c_grid=["x" * 10_000] * 10_000).validate_params()
    assert len(str(info.value)) < 400


def test_declarations_are_merged_once_per_class():
    from obliq_cli.algorithms.base import TreeClassifier
    from obliq_cli.algorithms.oc1 import OC1APClassifier

    shared = TreeClassifier._declared_here["max_depth"]
    assert OC1APClassifier._parameter_constraints["max_depth"] is shared
    assert "categorical_features" not in OC1APClassifier._parameter_constraints
    assert "criterion" in OC1APClassifier._parameter_constraints
