"""The scikit-learn-style estimator every single-tree algorithm shares.

A subclass only says how to find a split (``_make_split_finder`` returns a two-phase
``SplitFinder``, see ``obliq_cli.tree.builder``) and which stopping rules apply;
fitting, label encoding, prediction and the size attributes live here,
so every algorithm is used, pruned, measured and exported the same way.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from ..errors import DataError, ObliqError
from ..tree.builder import SplitFinder, StoppingRules, build_tree
from ..tree.crimcoord import CrimcoordFinder, QualitativeCoding
from ..tree.structure import Tree


def check_X(X, n_features: int | None = None) -> np.ndarray:
    """A finite float64 2-D array, or a one-line DataError saying what is wrong."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise DataError(f"X must be a 2-D array (got {X.ndim} dimensions)")
    if not np.isfinite(X).all():
        row, col = np.argwhere(~np.isfinite(X))[0]
        raise DataError(f"X has a missing or infinite value at row {row}, column {col}")
    if n_features is not None and X.shape[1] != n_features:
        raise DataError(f"X has {X.shape[1]} features, the tree was grown on {n_features}")
    return X


def check_X_y(X, y) -> tuple[np.ndarray, np.ndarray]:
    """``check_X(X)`` and ``y`` as a 1-D array with one label per row, or a DataError."""
    X = check_X(X)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise DataError(f"y must be 1-D with {X.shape[0]} labels (got shape {y.shape})")
    return X, y


def as_rng(random_state) -> np.random.Generator:
    """A Generator from an int, a Generator (used as is) or None (fresh entropy)."""
    return np.random.default_rng(random_state)


class TreeClassifier(ClassifierMixin, BaseEstimator):
    """Base of the single-tree classifiers: subclasses implement ``_make_split_finder``.

    Fitted attributes: ``classes_``, ``tree_`` (a ``Tree``), ``n_features_in_``; the
    sizes ``n_leaves_``, ``n_nodes_``, ``depth_`` are read from ``tree_``, so a pruner
    that replaces ``tree_`` updates them too.

    A subclass that declares a ``categorical_features`` parameter (column indices)
    handles qualitative features with per-node CRIMCOORDs (``obliq_cli.tree.crimcoord``):
    the tree is grown on the dummy-coded matrix (``coding_``, also applied by
    ``tree_input``), and each node's split finder sees the node's quantitative columns
    plus one crimcoord per qualitative column. The runner fills the parameter from the
    dataset's qualitative columns unless the config sets it.
    """

    coding_: QualitativeCoding | None = None

    def _make_split_finder(self) -> SplitFinder:  # pragma: no cover
        """A fresh finder for one fit; it sees the data in its ``prepare``."""
        raise NotImplementedError

    def validate_params(self) -> None:
        """Raise a one-line ObliqError for a parameter value that cannot work.

        Called by ``fit`` and by the config check, so a bad value in a YAML file is
        reported before a run starts. Subclasses extend it for their own parameters.
        """
        params = self.get_params()
        mss = params.get("min_samples_split", 2)
        if isinstance(mss, bool) or not isinstance(mss, int) or mss < 2:
            raise ObliqError(f"min_samples_split must be an integer >= 2 (got {mss!r})")
        depth = params.get("max_depth")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int)
                                  or depth < 0):
            raise ObliqError(f"max_depth must be null or an integer >= 0 (got {depth!r})")
        rate = params.get("max_misclassification_rate", 0.0)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
            raise ObliqError(f"max_misclassification_rate must be in [0, 1) (got {rate!r})")

    def check_n_classes(self, n_classes: int) -> None:
        """Raise a one-line ObliqError when this estimator cannot fit ``n_classes``
        classes. The runner asks before a run, so a two-class method on a multiclass
        dataset is a config error, not a column of failed tasks."""

    def _stopping_rules(self) -> StoppingRules:
        return StoppingRules(
            min_samples_split=getattr(self, "min_samples_split", 2),
            max_depth=getattr(self, "max_depth", None),
            max_misclassification_rate=getattr(self, "max_misclassification_rate", 0.0),
        )

    def fit(self, X, y):
        self.validate_params()
        X, y = check_X_y(X, y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_features_in_ = X.shape[1]
        rng = as_rng(getattr(self, "random_state", None))
        n_classes = len(self.classes_)
        self.check_n_classes(n_classes)
        finder = self._make_split_finder()
        categorical = getattr(self, "categorical_features", None)
        self.coding_ = QualitativeCoding.fit(X, categorical) if categorical else None
        if self.coding_ is not None:
            X = self.coding_.transform(X)
            finder = CrimcoordFinder(finder, self.coding_)
        self.tree_ = build_tree(X, codes, n_classes, finder, self._stopping_rules(), rng)
        return self

    def encode(self, y) -> np.ndarray:
        """Class codes of labels ``y``; a label unseen in training gets code -1."""
        y = np.asarray(y)
        pos = np.clip(np.searchsorted(self.classes_, y), 0, len(self.classes_) - 1)
        return np.where(self.classes_[pos] == y, pos, -1)

    def tree_input(self, X) -> np.ndarray:
        """The matrix ``tree_`` reads for rows ``X`` (checked; subclasses that grow the
        tree on derived columns, e.g. dummy-coded qualitative features, extend it).
        Pruners evaluate the tree on ``tree_input(X)``, never on raw ``X``."""
        X = check_X(X, self.n_features_in_)
        return self.coding_.transform(X) if self.coding_ is not None else X

    def apply(self, X) -> np.ndarray:
        return self.tree_.apply(self.tree_input(X))

    def predict_proba(self, X) -> np.ndarray:
        return self.tree_.predict_proba(self.tree_input(X))

    def predict(self, X) -> np.ndarray:
        return self.classes_[self.tree_.predict(self.tree_input(X))]

    @property
    def n_leaves_(self) -> int:
        return self.tree_.n_leaves

    @property
    def n_nodes_(self) -> int:
        return self.tree_.n_nodes

    @property
    def depth_(self) -> int:
        return self.tree_.max_depth

    def export_text(self, feature_names=None) -> str:
        """The fitted tree as indented rules with class names; the features are named
        by ``feature_names``, else by the DataFrame columns it was fitted on
        (``feature_names_in_``), else x1, x2, ..."""
        if feature_names is None and hasattr(self, "feature_names_in_"):
            feature_names = [str(n) for n in self.feature_names_in_]
        if self.coding_ is not None:
            feature_names = self.coding_.feature_names(feature_names)
        return self.tree_.to_text(feature_names, [str(c) for c in self.classes_])

    def export_json(self) -> dict:
        """The fitted tree and class labels as plain data (see ``load_tree``)."""
        data = {"classes": self.classes_.tolist(), "tree": self.tree_.to_dict()}
        if self.coding_ is not None:
            data["qualitative_coding"] = self.coding_.to_dict()
        return data

    def load_tree(self, data: dict) -> TreeClassifier:
        """Restore a fitted tree written by ``export_json``; predictions are identical."""
        self.classes_ = np.asarray(data["classes"])
        self.tree_ = Tree.from_dict(data["tree"])
        coding = data.get("qualitative_coding")
        self.coding_ = QualitativeCoding.from_dict(coding) if coding else None
        self.n_features_in_ = (self.coding_.n_features if self.coding_ is not None
                               else self.tree_.n_features)
        return self
