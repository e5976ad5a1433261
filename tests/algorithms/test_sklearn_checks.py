"""scikit-learn's estimator checks over every registered algorithm.

The list is read from the registry when the tests are collected, so an algorithm
registered later (a plugin too) is checked without an edit here; only the test doubles
that other test modules register are left out. Each runs with the
``check_params`` of its registration (a smaller grid or fewer restarts: the checks fit
hundreds of small trees); a check it cannot pass for a reason of its method is listed in
its ``expected_failed_checks`` with that reason, and any other failure fails here.
"""

import pytest
from sklearn.utils.estimator_checks import check_param_validation, parametrize_with_checks

import obliq_cli
from obliq_cli import registry


def _test_double(cls) -> bool:
    module = cls.__module__.split(".")[-1]
    return module == "conftest" or module.startswith("test_")


NAMES = [entry.name for entry in registry.list_algorithms() if not _test_double(entry.obj)]
ESTIMATORS = [registry.estimator_for_checks(name) for name in NAMES]
NAME_OF = {type(est): name for est, name in zip(ESTIMATORS, NAMES)}


def _expected(estimator) -> dict:
    return obliq_cli.expected_failed_checks(NAME_OF[type(estimator)])


# The fast set (make test) runs every check on these three: the axis-parallel tree that
# takes missing values, the oblique randomised search and the tree with nominal splits;
# on every other algorithm it runs the checks below, which fit at most once on a few rows
# or refuse bad input before fitting. The rest, the fitting checks on every other
# algorithm (hundreds of small trees each, most of the fast set's CPU), are marked slow:
# CI still runs every check on every algorithm (make test-slow).
EVERY_CHECK_IN_THE_FAST_SET = ("cart-ap", "oc1", "c45")
CHEAP_CHECKS = frozenset({
    "check_estimator_cloneable", "check_estimator_tags_renamed", "check_valid_tag_types",
    "check_estimator_repr", "check_no_attributes_set_in_init", "check_estimators_unfitted",
    "check_do_not_raise_errors_in_init_or_set_params", "check_mixin_order",
    "check_parameters_default_constructible", "check_get_params_invariance",
    "check_set_params", "check_estimators_empty_data_messages", "check_complex_data",
    "check_fit1d", "check_classifiers_regression_target", "check_supervised_y_no_nan",
    "check_all_zero_sample_weights_error", "check_estimators_fit_returns_self",
    "check_fit2d_1sample", "check_fit2d_1feature",
})


def _check_name(check) -> str:
    return getattr(check, "func", check).__name__


def _with_slow_marks(decorator):
    """scikit-learn's parametrization, the fitting checks of the algorithms outside
    EVERY_CHECK_IN_THE_FAST_SET marked slow (an expected failure keeps its xfail mark)."""
    mark = decorator.mark
    params = []
    for value in mark.args[1]:
        values, marks = (value.values, list(value.marks)) if hasattr(value, "values") \
            else (value, [])
        estimator, check = values
        if (NAME_OF[type(estimator)] not in EVERY_CHECK_IN_THE_FAST_SET
                and _check_name(check) not in CHEAP_CHECKS):
            marks.append(pytest.mark.slow)
        params.append(pytest.param(*values, marks=marks))
    return pytest.mark.parametrize(mark.args[0], params, **mark.kwargs)


@_with_slow_marks(parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected))
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_the_fast_set_runs_every_check_on_its_representatives():
    """The names above are registered algorithms and the cheap checks are scikit-learn's
    (a renamed check would otherwise silently move to the slow set)."""
    from sklearn.utils.estimator_checks import estimator_checks_generator

    assert set(EVERY_CHECK_IN_THE_FAST_SET) <= set(NAMES)
    names = {_check_name(value.values[1] if hasattr(value, "values") else value[1])
             for value in estimator_checks_generator(ESTIMATORS[NAMES.index("cart-ap")],
                                                     mark="xfail")}
    assert CHEAP_CHECKS <= names, sorted(CHEAP_CHECKS - names)


@pytest.mark.parametrize("name", NAMES)
def test_every_parameter_is_declared_and_refused_the_scikit_learn_way(name):
    """scikit-learn's ``check_param_validation`` (not among the checks above for
    estimators outside scikit-learn): one constraint per parameter, and fit raises
    InvalidParameterError naming the parameter for a value of no valid type and for a
    value just outside each declared range."""
    check_param_validation(type(ESTIMATORS[NAMES.index(name)]).__name__,
                           ESTIMATORS[NAMES.index(name)])


def test_two_class_methods_say_so_in_their_tags():
    two_class = {name for name, est in zip(NAMES, ESTIMATORS)
                 if not est.__sklearn_tags__().classifier_tags.multi_class}
    assert {"apdt", "fdt", "gepsvm", "umt"} <= two_class
    assert not two_class & {"cart-ap", "oc1", "umt-ovo", "umt-ovr", "svm"}
    # APDT's one-vs-rest extension handles any number of classes
    apdt = obliq_cli.make_estimator("apdt", multiclass="ovr")
    assert apdt.__sklearn_tags__().classifier_tags.multi_class


def test_classes_are_importable_by_consistent_names():
    for name, est in zip(NAMES, ESTIMATORS):
        cls = type(est)
        assert getattr(obliq_cli, cls.__name__) is cls, name
        assert cls.__name__.endswith("Classifier"), name
    assert obliq_cli.GeometricDecisionTree is obliq_cli.GeometricTreeClassifier
    assert obliq_cli.UMTOneVsOne is obliq_cli.UMTOneVsOneClassifier


def test_only_c45_and_cart_ap_take_missing_values():
    # The data side asks exactly this: input_tags.allow_nan, and a categorical_features
    # parameter for native nominal handling.
    takes_nan = {name for name, est in zip(NAMES, ESTIMATORS)
                 if est.__sklearn_tags__().input_tags.allow_nan}
    builtin = {name for name, est in zip(NAMES, ESTIMATORS)
               if type(est).__module__.startswith("obliq_cli.")}
    assert takes_nan & builtin == {"c45", "cart-ap"}
    nominal = {name for name, est in zip(NAMES, ESTIMATORS)
               if "categorical_features" in est.get_params()}
    assert {"c45", "id3"} <= nominal
