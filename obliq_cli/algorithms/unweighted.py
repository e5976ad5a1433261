"""The scikit-learn check that a tree reading row weights still cannot pass unpruned.

Every tree reads ``sample_weight`` and ``class_weight`` (``TreeClassifier.fit``); this
holds the one expected failure they share, declared by each in its registration.
"""

from __future__ import annotations

GROWN_UNTIL_PURE = {
    "check_class_weight_classifiers":
        "grown until pure with no minimum leaf weight (the check sets scikit-learn's "
        "min_weight_fraction_leaf, which this tree has not): its unpruned tree separates "
        "the check's noisy training rows whatever the class weights",
}
"""The scikit-learn check a tree that reads weights still cannot pass unpruned."""
