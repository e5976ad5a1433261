"""The split finders that do not read row weights yet, and how they refuse them.

``TreeClassifier.fit`` takes ``sample_weight`` for every tree and hands the weights to
the root as ``Node.weights``; a finder whose search still reads unweighted class
statistics (APDT's misclassification counts, UMT's margin sweep and validation
errors) would grow the tree of the unweighted rows under weighted leaves. It refuses
instead, in one line, at the first node it is asked to split.
"""

from __future__ import annotations

from ..errors import DataTypeError

WEIGHTS_NOT_READ = {
    "check_sample_weight_equivalence_on_dense_data":
        "its split search reads no row weights yet: a weighted fit is refused",
    "check_sample_weights_not_overwritten":
        "its split search reads no row weights yet: a weighted fit is refused",
    "check_class_weight_classifiers":
        "its split search reads no row weights yet: a class-weighted fit is refused",
}
"""The scikit-learn checks a refusing finder's estimator cannot pass (its
``expected_failed_checks``): both fit with unequal weights."""


def refuse_row_weights(node, method: str) -> None:
    """A DataTypeError (a TypeError) when ``node`` carries row weights: ``method``'s
    search would ignore them."""
    if node.weights is not None:
        raise DataTypeError(f"{method}: sample_weight and class_weight are not supported "
                            f"yet (its split search reads unweighted class statistics)")


GROWN_UNTIL_PURE = {
    "check_class_weight_classifiers":
        "grown until pure with no minimum leaf weight (the check sets scikit-learn's "
        "min_weight_fraction_leaf, which this tree has not): its unpruned tree separates "
        "the check's noisy training rows whatever the class weights",
}
"""The scikit-learn check a tree that reads weights still cannot pass unpruned."""
