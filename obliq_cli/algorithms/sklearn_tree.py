"""scikit-learn's CART pruned by its own cost-complexity search: a modern reference point
for the benchmark config (``estimator: obliq_cli.algorithms.sklearn_tree.
CostComplexityTreeClassifier``), not a registered algorithm.

``DecisionTreeClassifier`` grows a full tree; its ``ccp_alpha`` prunes it by Breiman et
al.'s (1984, ch. 3) minimal cost-complexity rule, but scikit-learn leaves the choice of
alpha to the user. This class makes the choice the way CART's book does when there is no
separate pruning sample (§3.4, V-fold cross-validation) and scikit-learn's own
documentation suggests ("Post pruning decision trees with cost complexity pruning"):

1. the candidate alphas are the effective alphas of the weakest-link sequence of the
   tree grown on all training rows (``cost_complexity_pruning_path``), thinned to at
   most ``max_alphas`` evenly spaced by rank (the first, 0, and the last always kept),
   so that a tree of thousands of leaves does not cost thousands of fits;
2. each candidate is scored by ``cv``-fold cross-validated accuracy (stratified folds
   when every class has ``cv`` rows, else plain folds; both shuffled from
   ``random_state``);
3. the alpha of the highest mean accuracy wins (the 0-SE rule, as the cc pruner's
   default and the OC1 program use; ties go to the larger alpha, the smaller tree),
   and the tree is grown again on all rows with it.

An external estimator gets no prune rows from the runner (it grows on grow + prune), so
the search is internal, from the training rows alone. ``n_leaves_``, ``n_nodes_`` and
``depth_`` are the pruned tree's, so the size columns of a table are filled for it.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import KFold, StratifiedKFold, check_cv
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Integral, Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

SEED_BOUND = 2**31 - 1


def thinned(alphas: np.ndarray, max_alphas: int) -> np.ndarray:
    """At most ``max_alphas`` of the sorted distinct ``alphas``, evenly spaced by rank,
    the first and the last kept."""
    alphas = np.unique(alphas)
    if alphas.size <= max_alphas:
        return alphas
    picks = np.unique(np.round(np.linspace(0, alphas.size - 1, max_alphas)).astype(int))
    return alphas[picks]


class CostComplexityTreeClassifier(ClassifierMixin, BaseEstimator):
    """scikit-learn's ``DecisionTreeClassifier`` with ``ccp_alpha`` chosen by ``cv``-fold
    cross-validation over its own pruning path (module docstring)."""

    _parameter_constraints = {
        "criterion": [StrOptions({"gini", "entropy", "log_loss"})],
        # a number of folds, or (as scikit-learn's weight checks pass) the folds themselves
        "cv": [Interval(Integral, 2, 100, closed="both"), "cv_object"],
        "max_alphas": [Interval(Integral, 1, 10_000, closed="both")],
        "random_state": ["random_state"],
        # scikit-learn's tree checks it (None, "balanced", a dict or a list of dicts)
        "class_weight": [StrOptions({"balanced"}), dict, list, None],
    }

    def __init__(self, criterion="gini", cv=5, max_alphas=20, random_state=None,
                 class_weight=None):
        self.criterion = criterion
        self.cv = cv
        self.max_alphas = max_alphas
        self.random_state = random_state
        self.class_weight = class_weight

    def _tree(self, alpha: float, seed: int) -> DecisionTreeClassifier:
        return DecisionTreeClassifier(criterion=self.criterion, ccp_alpha=float(alpha),
                                      random_state=seed, class_weight=self.class_weight)

    def _folds(self, y, seed: int):
        if not isinstance(self.cv, Integral):
            return list(check_cv(self.cv).split(np.zeros((y.size, 1)), y))
        counts = np.unique(y, return_counts=True)[1]
        if counts.min() >= self.cv:
            return StratifiedKFold(self.cv, shuffle=True, random_state=seed).split(y, y)
        return KFold(self.cv, shuffle=True, random_state=seed).split(y)

    def fit(self, X, y, sample_weight=None):
        """Choose alpha and grow the pruned tree; ``sample_weight`` and ``class_weight``
        weigh every fit (scikit-learn's) and each held-out fold's accuracy (a weighted
        mean), so an integer weight counts as that many copies of the row."""
        self._validate_params()
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        w = None if sample_weight is None else _check_sample_weight(sample_weight, X)
        # a held-out row scores with its weight and its class's (the fits weigh both)
        score_w = w
        if self.class_weight is not None:
            per_class = compute_sample_weight(self.class_weight, y)
            score_w = per_class if w is None else w * per_class
        seed = int(check_random_state(self.random_state).randint(SEED_BOUND))
        alphas = thinned(self._tree(0.0, seed).cost_complexity_pruning_path(
            X, y, sample_weight=w).ccp_alphas, int(self.max_alphas))
        scores = np.zeros(alphas.size)
        folds = list(self._folds(y, seed)) if alphas.size > 1 and (
            not isinstance(self.cv, Integral) or y.size >= self.cv) else []
        if folds:
            for train, test in folds:
                for i, alpha in enumerate(alphas):
                    tree = self._tree(alpha, seed).fit(
                        X[train], y[train], sample_weight=None if w is None else w[train])
                    right = tree.predict(X[test]) == y[test]
                    if score_w is not None and score_w[test].sum() > 0:
                        scores[i] += np.average(right, weights=score_w[test])
                    else:
                        scores[i] += np.mean(right)
        # the best mean accuracy; among equals the largest alpha (the smallest tree)
        best = int(np.flatnonzero(scores == scores.max())[-1])
        self.ccp_alpha_ = float(alphas[best])
        self.cv_accuracy_ = scores / max(len(folds), 1)
        self.candidate_alphas_ = alphas
        self.tree_model_ = self._tree(self.ccp_alpha_, seed).fit(X, y, sample_weight=w)
        return self

    def predict(self, X):
        check_is_fitted(self, "tree_model_")
        X = validate_data(self, X, reset=False)
        return self.tree_model_.predict(X)

    def predict_proba(self, X):
        check_is_fitted(self, "tree_model_")
        X = validate_data(self, X, reset=False)
        return self.tree_model_.predict_proba(X)

    @property
    def n_leaves_(self) -> int:
        return int(self.tree_model_.get_n_leaves())

    @property
    def n_nodes_(self) -> int:
        return int(self.tree_model_.tree_.node_count)

    @property
    def depth_(self) -> int:
        return int(self.tree_model_.get_depth())

    @property
    def n_oblique_(self) -> int:
        """scikit-learn's splits are all axis-parallel."""
        check_is_fitted(self, "tree_model_")
        return 0

    @property
    def feature_importances_(self) -> np.ndarray:
        """The pruned tree's (scikit-learn's mean decrease in impurity)."""
        check_is_fitted(self, "tree_model_")
        return self.tree_model_.feature_importances_
