"""obliq-toy: an algorithm, a pruner and a dataset registered from outside obliq."""

import numpy as np

from obliq_cli.algorithms.cart import CARTClassifier
from obliq_cli.registry import register_algorithm, register_dataset, register_pruner


@register_algorithm("toy-stump", "CART-AP grown to depth 1: one split (a plugin example)")
class Stump(CARTClassifier):
    def __init__(self, criterion="gini", min_samples_split=2, max_depth=1,
                 max_misclassification_rate=0.0, random_state=None):
        super().__init__(criterion, min_samples_split, max_depth,
                         max_misclassification_rate, random_state)


@register_pruner("toy-keep", "keeps the grown tree as it is (a plugin example)")
def keep(estimator, X_grow, y_grow, X_prune, y_prune, *, random_state):
    return estimator


@register_dataset("toy-band", "class 1 where 0.3 < a < 0.7 (a plugin example)",
                  params={"n": 200})
def band(n=200):
    X = np.random.default_rng(0).uniform(size=(n, 2))
    y = ((X[:, 0] > 0.3) & (X[:, 0] < 0.7)).astype(int)
    return X, y, {"name": "toy-band", "feature_names": ["a", "b"], "source": "obliq-toy"}
