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


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


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
