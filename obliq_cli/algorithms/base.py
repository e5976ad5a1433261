"""The scikit-learn-style estimator every single-tree algorithm shares.

A subclass only says how to find a split (``_make_split_finder`` returns a two-phase
``SplitFinder``, see ``obliq_cli.tree.builder``) and which stopping rules apply;
fitting, label encoding, prediction and the size attributes live here,
so every algorithm is used, pruned, measured and exported the same way.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ..errors import DataError, DataTypeError, ObliqError
from ..fit_threads import FitThreads, resolve_threads
from ..parameters import (
    MAX_COUNT,
    MAX_REAL,
    N_THREADS,
    RANDOM_STATE,
    DeclaredParameters,
    Integral,
    Interval,
    ListOf,
    MappingOf,
    Real,
    StrOptions,
)
from ..tree.builder import SplitFinder, StoppingRules, build_tree
from ..tree.conditioning import column_exponents, scale_columns
from ..tree.crimcoord import CrimcoordFinder, QualitativeCoding
from ..tree.importance import feature_importances
from ..tree.impurity import CRITERIA, gini_of_counts
from ..tree.structure import Tree
from ..weights import row_weights


def _data_error(check, *args, **kwargs):
    """``check(...)``, with scikit-learn's ValueError / TypeError about the data turned
    into our DataError / DataTypeError (a ValueError / TypeError too) on one line: the
    first line of its message and its advice to reshape, not the array it prints or its
    advice on other estimators. NotFittedError passes as is."""
    try:
        return check(*args, **kwargs)
    except (ObliqError, NotFittedError):
        raise
    except (ValueError, TypeError) as exc:
        lines = str(exc).strip().splitlines() or [type(exc).__name__]
        message = " ".join([lines[0]] + [x for x in lines[1:] if x.startswith("Reshape")])
        raise (DataTypeError if isinstance(exc, TypeError) else DataError)(message) from None


def _finite(estimator) -> bool | str:
    """scikit-learn's ``ensure_all_finite`` for ``estimator``: NaN (a missing value) is
    let through for an estimator whose tags allow it, infinity never."""
    return "allow-nan" if getattr(estimator, "_allow_nan", False) else True


def check_X(X, n_features: int | None = None) -> np.ndarray:
    """A finite float64 2-D array (scikit-learn's ``check_array``), or a DataError."""
    X = _data_error(check_array, X, dtype=np.float64)
    if n_features is not None and X.shape[1] != n_features:
        raise DataError(f"X has {X.shape[1]} features, the tree was grown on {n_features}")
    return X


def column_spread(X: np.ndarray) -> np.ndarray:
    """The standard deviation (ddof 0) of every column of ``X`` over its known values (NaN
    is a missing value); 0 for a column with none."""
    known = ~np.isnan(X)
    count = known.sum(axis=0)
    filled = np.where(known, X, 0.0)
    mean = filled.sum(axis=0) / np.maximum(count, 1)
    squares = (np.where(known, X - mean, 0.0) ** 2).sum(axis=0)
    return np.sqrt(squares / np.maximum(count, 1))


def as_rng(random_state) -> np.random.Generator:
    """A Generator from an int, a Generator (used as is) or None (fresh entropy)."""
    return np.random.default_rng(random_state)


def fit_input(estimator, X, y) -> tuple[np.ndarray, np.ndarray]:
    """``(X, class codes)`` for ``fit``, checked the scikit-learn way (``validate_data``:
    dense, finite, float64, at least one row, 1-D ``y`` of one label per row;
    ``check_classification_targets``: labels, not a continuous target). Sets
    ``n_features_in_`` (and ``feature_names_in_`` for a DataFrame) and ``classes_``."""
    X, y = _data_error(validate_data, estimator, X, y, dtype=np.float64,
                       ensure_all_finite=_finite(estimator))
    _data_error(check_classification_targets, y)
    estimator.classes_, codes = np.unique(y, return_inverse=True)
    # A column of extreme magnitude is scaled by an exact power of two, here and in
    # predict_input, so no search squares values near the float limits
    # (tree.conditioning); ordinary data keep the very same array.
    estimator.input_exponents_ = column_exponents(X)
    return scale_columns(X, estimator.input_exponents_), codes.astype(np.int64, copy=False)


CLASS_WEIGHT = [StrOptions({"balanced"}),
                MappingOf(Interval(Real, 0, MAX_REAL, closed="both"), key=object), None]
"""``class_weight``'s declaration, shared by every estimator that takes it: None (every
class weighs 1), "balanced" (class c weighs n / (n_classes * n_c), scikit-learn's
``compute_class_weight``) or a mapping of class labels to non-negative weights (a label
not named weighs 1)."""


def fit_weights(estimator, sample_weight, y, n_rows: int) -> np.ndarray | None:
    """The row weights of a fit: ``sample_weight`` (None, a number or one non-negative
    finite weight per row) times the weight ``estimator.class_weight`` gives each row's
    class (``y`` the labels as given to ``fit``). None when every row weighs the same, so
    an unweighted fit takes the integer path of old, bit for bit; a fit whose weights are
    all equal grows the same tree as one without (a common factor changes no impurity
    comparison, scikit-learn's ``check_sample_weight_equivalence``). A DataError for
    weights that are negative, not finite, of the wrong length or all zero."""
    return _data_error(row_weights, getattr(estimator, "class_weight", None),
                       sample_weight, y, n_rows)


def predict_input(estimator, X) -> np.ndarray:
    """Rows ``X`` for a fitted ``estimator``: NotFittedError before ``fit``, then the
    checks of ``fit_input``, the same number (and names) of features and its scaling."""
    check_is_fitted(estimator)
    X = _data_error(validate_data, estimator, X, reset=False, dtype=np.float64,
                    ensure_all_finite=_finite(estimator))
    return scale_columns(X, getattr(estimator, "input_exponents_", None))


def nominal_columns(X: np.ndarray, columns) -> dict[int, int]:
    """Column index -> number of category codes (largest code + 1) of the nominal
    ``columns`` of ``X``, whose known values must be the codes 0, 1, ... (a DataError
    naming the first column that holds anything else)."""
    out: dict[int, int] = {}
    for j in sorted({int(c) for c in (columns or ())}):  # a loop over columns
        column = X[:, j]
        known = column[~np.isnan(column)]
        bad = known[(known < 0) | (known != np.floor(known))]
        if bad.size:
            raise DataError(f"categorical feature {j} holds {bad[0]:g}, not a category code "
                            f"0, 1, 2, ...")
        out[j] = int(known.max()) + 1 if known.size else 0
    return out


def binary_only(message: str) -> DataError:
    """The error of a two-class method asked to fit another number of classes (in the
    words scikit-learn's checks look for, then ours)."""
    return DataError(f"Only binary classification is supported: {message}")


def _accepts(check, *args) -> bool:
    try:
        check(*args)
    except ObliqError:
        return False
    return True


class ObliqClassifier(DeclaredParameters, ClassifierMixin, BaseEstimator):
    """What every obliq estimator shares, tree or not: the parameter declaration and its
    check (``obliq_cli.parameters``), the two-class hook and scikit-learn's tags."""

    def check_n_classes(self, n_classes: int) -> None:
        """Raise a one-line ObliqError when this estimator cannot fit ``n_classes``
        classes. The runner asks before a run, so a two-class method on a multiclass
        dataset is a config error, not a column of failed tasks."""

    _allow_nan = False
    """Whether ``fit``/``predict`` take NaN as a missing value (the algorithm handles it
    natively); declared to scikit-learn as ``input_tags.allow_nan``, which is what the
    data side asks. Every other estimator refuses NaN with the usual DataError."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = bool(self._allow_nan)
        # A two-class method says so where scikit-learn looks (its checks then give it
        # two-class problems only); the answer comes from the same hook the runner asks.
        tags.classifier_tags.multi_class = _accepts(self.check_n_classes, 3)
        return tags


class TreeClassifier(ObliqClassifier):
    """Base of the single-tree classifiers: subclasses implement ``_make_split_finder``.

    Fitted attributes: ``classes_``, ``tree_`` (a ``Tree``), ``n_features_in_``,
    ``tree_input_std_`` (the standard deviation of each column the tree reads, over the
    training rows); the sizes ``n_leaves_``, ``n_nodes_``, ``depth_``, ``n_oblique_`` and
    ``feature_importances_`` are read from ``tree_``, so a pruner that replaces ``tree_``
    updates them too. ``hyperplane(node)`` gives a node's split in the input's units.

    A subclass with ``_native_nominal = True`` (C4.5, ID3) hands the columns of its
    ``categorical_features`` parameter to its split finder as nominal columns (attribute
    ``nominal``: column index -> number of category codes), which splits them multiway;
    their values must be category codes 0, 1, ... (NaN = missing where allowed).
    Another subclass that declares a ``categorical_features`` parameter (column indices)
    handles qualitative features with per-node CRIMCOORDs (``obliq_cli.tree.crimcoord``):
    the tree is grown on the dummy-coded matrix (``coding_``, also applied by
    ``tree_input``), and each node's split finder sees the node's quantitative columns
    plus one crimcoord per qualitative column. The runner fills the parameter from the
    dataset's qualitative columns unless the config sets it.

    Parameters shared by the family are declared here once; a subclass declares only
    its own (``obliq_cli.parameters.DeclaredParameters``). A subclass whose ``__init__``
    takes ``n_threads`` fits on that many threads (``obliq_cli.fit_threads``): the pool is
    made once per fit and handed to its split finder as ``SplitFinder.threads``.
    """

    _parameter_constraints = {
        # row counts and depths: a tree is no deeper than its rows (MAX_COUNT)
        "min_samples_split": [Interval(Integral, 2, MAX_COUNT, closed="both")],
        "max_depth": [Interval(Integral, 0, MAX_COUNT, closed="both"), None],
        "max_misclassification_rate": [Interval(Real, 0, 1, closed="left")],
        # column indices; checked against the data's width by ``check_n_features``
        "categorical_features": [ListOf(Interval(Integral, 0, MAX_COUNT, closed="both"),
                                        min_len=0, max_len=100_000), None],
        "random_state": RANDOM_STATE,
        # kept only for the subclasses whose __init__ takes it (parameters.py)
        "class_weight": CLASS_WEIGHT,
        # likewise: the estimators whose split finder spreads work over threads
        "n_threads": N_THREADS,
    }

    coding_: QualitativeCoding | None = None
    input_exponents_: np.ndarray | None = None
    _native_nominal = False
    _importance_impurity: str | None = None
    """The impurity (an ``impurity.CRITERIA`` name) whose decrease ``feature_importances_``
    credits; None: the estimator's ``criterion`` when that names one with a node impurity
    (gini, entropy, misclassification), else gini (twoing scores splits, not nodes)."""

    def _make_split_finder(self) -> SplitFinder:  # pragma: no cover
        """A fresh finder for one fit; it sees the data in its ``prepare``."""
        raise NotImplementedError

    def _stopping_rules(self) -> StoppingRules:
        return StoppingRules(
            min_samples_split=getattr(self, "min_samples_split", 2),
            max_depth=getattr(self, "max_depth", None),
            max_misclassification_rate=getattr(self, "max_misclassification_rate", 0.0),
        )

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on rows ``X`` with labels ``y``; ``sample_weight`` (and the
        ``class_weight`` of a subclass that takes one) weigh the rows (``fit_weights``):
        every class count of the builder, its stopping rules and the split finder's
        scores are then weighted sums, and a row of weight 0 is left out of the fit
        altogether, as if it had been removed."""
        self.validate_params()
        X, codes = fit_input(self, X, y)
        weights = fit_weights(self, sample_weight, self.classes_[codes], X.shape[0])
        if weights is not None and not weights.all():
            kept = weights > 0
            X, codes, weights = X[kept], codes[kept], weights[kept]
        self.check_n_features(X.shape[1])
        rng = as_rng(getattr(self, "random_state", None))
        n_classes = len(self.classes_)
        self.check_n_classes(n_classes)
        finder = self._make_split_finder()
        # the fit's threads (one without an n_threads parameter), for the finder's search
        threads = finder.threads = FitThreads(resolve_threads(getattr(self, "n_threads", 1)))
        categorical = getattr(self, "categorical_features", None)
        if self._native_nominal:
            finder.nominal = nominal_columns(X, categorical)
            categorical = None
        self.coding_ = QualitativeCoding.fit(X, categorical) if categorical else None
        if self.coding_ is not None:
            X = self.coding_.transform(X)
            finder = CrimcoordFinder(finder, self.coding_)
        with threads:
            self.tree_ = build_tree(X, codes, n_classes, finder, self._stopping_rules(),
                                    rng, sample_weight=weights)
        self.tree_input_std_ = column_spread(X)
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
        X = predict_input(self, X)
        return self.coding_.transform(X) if self.coding_ is not None else X

    def apply(self, X) -> np.ndarray:
        X = self.tree_input(X)
        return self.tree_.apply(X)

    def predict_proba(self, X) -> np.ndarray:
        X = self.tree_input(X)  # NotFittedError before fit
        return self.tree_.predict_proba(X)

    def predict(self, X) -> np.ndarray:
        X = self.tree_input(X)
        return self.classes_[self.tree_.predict(X)]

    @property
    def n_leaves_(self) -> int:
        return self.tree_.n_leaves

    def tree_columns(self) -> np.ndarray:
        """The input column each of ``tree_``'s columns reads (a qualitative column's
        dummies all read that column; without qualitative coding, column j reads j)."""
        check_is_fitted(self)
        if self.coding_ is not None:
            return self.coding_.source_columns
        return np.arange(self.tree_.n_features)

    @property
    def n_oblique_(self) -> int:
        """Internal nodes whose split weighs more than one input column
        (``Tree.oblique_nodes``): the oblique splits the search kept."""
        check_is_fitted(self)
        columns = self.coding_.source_columns if self.coding_ is not None else None
        return int(np.count_nonzero(self.tree_.oblique_nodes(columns)))

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity-based importance of every input column, summing to 1 (all zeros for a
        one-leaf tree).

        Each internal node's weighted impurity decrease ``N_t i(t) - sum_c N_c i(c)``
        (counts of the growing data in ``tree_.value``; ``i`` the impurity named by
        ``_importance_impurity``) is shared among the columns of its split in proportion
        to ``|w_j| * s_j``, ``s_j`` = ``tree_input_std_[j]`` (the column's standard
        deviation over the training rows), then summed per column and normalised
        (``obliq_cli.tree.importance``). So rescaling a column leaves it unchanged, and
        an axis-parallel tree gets scikit-learn's ``DecisionTreeClassifier``
        ``feature_importances_`` (Breiman et al. 1984, §5.3.4: the whole decrease goes
        to the split's one feature). A qualitative column's dummies count for it."""
        check_is_fitted(self)
        spread = getattr(self, "tree_input_std_", None)
        if spread is None:
            raise AttributeError(
                f"{type(self).__name__}.feature_importances_: the tree was restored from "
                f"data without input_std (the spread of its training columns, written "
                f"by export_json since obliq kept it); fit the estimator to have them")
        name = self._importance_impurity or getattr(self, "criterion", None)
        criterion = CRITERIA.get(name) if isinstance(name, str) else None
        impurity = criterion.node_impurity if criterion is not None else None
        credit = feature_importances(self.tree_, impurity or gini_of_counts, spread)
        return np.bincount(self.tree_columns(), weights=credit, minlength=self.n_features_in_)

    def hyperplane(self, node: int) -> tuple[np.ndarray, float]:
        """``(weights, threshold)`` of internal node ``node`` in the units of the input:
        a row ``x`` goes left iff ``weights . x <= threshold`` (summed in column order,
        the tree's partition rule ``tree.structure.route``). ``weights`` has one entry
        per input column, or, for an estimator with qualitative ``categorical_features``,
        one per column of ``coding_.transform(x)`` (quantitative columns, then each
        qualitative column's dummies). A column the fit scaled by a power of two
        (``input_exponents_``) has its weight scaled back, exactly. ObliqError for a leaf
        or a multiway node (``Tree.hyperplane``)."""
        check_is_fitted(self)
        weights, threshold = self.tree_.hyperplane(node)
        exponents = self.input_exponents_
        if exponents is not None:
            if self.coding_ is not None:  # dummies are 0/1, never scaled
                coded = np.zeros(self.coding_.n_coded, dtype=np.int64)
                coded[:self.coding_.quantitative.size] = exponents[self.coding_.quantitative]
                exponents = coded
            weights = np.ldexp(weights, exponents.astype(np.int32))
        return weights, threshold

    @property
    def n_nodes_(self) -> int:
        return self.tree_.n_nodes

    @property
    def depth_(self) -> int:
        return self.tree_.max_depth

    def export_text(self, feature_names=None, class_names=None, category_names=None,
                    terms: int | None = None) -> str:
        """The fitted tree as indented rules with class names; the features are named
        by ``feature_names``, else by the DataFrame columns it was fitted on
        (``feature_names_in_``), else x1, x2, ... ``class_names`` (one per entry of
        ``classes_``) replaces the labels in the leaves; a multiclass wrapper passes the
        names of the classes its member's codes 0 and 1 stand for. ``category_names``
        (column index -> names by code) names the branches of a nominal split. ``terms``
        = k prints the k terms of each oblique rule of largest ``|w_j| * s_j`` (as
        ``feature_importances_`` weighs them) and counts the rest; None prints all."""
        if feature_names is None and hasattr(self, "feature_names_in_"):
            feature_names = [str(n) for n in self.feature_names_in_]
        if self.coding_ is not None:
            feature_names = self.coding_.feature_names(feature_names)
        if class_names is None:
            class_names = [str(c) for c in self.classes_]
        return self.tree_.to_text(feature_names, list(class_names),
                                  category_names=category_names, terms=terms,
                                  scale=getattr(self, "tree_input_std_", None))

    def export_json(self) -> dict:
        """The fitted tree and class labels as plain data (see ``load_tree``)."""
        data = {"classes": self.classes_.tolist(), "tree": self.tree_.to_dict()}
        if self.coding_ is not None:
            data["qualitative_coding"] = self.coding_.to_dict()
        if self.input_exponents_ is not None:
            data["input_exponents"] = self.input_exponents_.tolist()
        if getattr(self, "tree_input_std_", None) is not None:
            data["input_std"] = self.tree_input_std_.tolist()
        return data

    def load_tree(self, data: dict) -> TreeClassifier:
        """Restore a fitted tree written by ``export_json``; predictions are identical."""
        self.classes_ = np.asarray(data["classes"])
        self.tree_ = Tree.from_dict(data["tree"])
        coding = data.get("qualitative_coding")
        self.coding_ = QualitativeCoding.from_dict(coding) if coding else None
        exponents = data.get("input_exponents")
        self.input_exponents_ = None if exponents is None else np.asarray(exponents, np.int64)
        spread = data.get("input_std")
        if spread is not None:
            self.tree_input_std_ = np.asarray(spread, dtype=np.float64)
        else:  # a file written before it was kept: no importances (not another fit's)
            self.__dict__.pop("tree_input_std_", None)
        self.n_features_in_ = (self.coding_.n_features if self.coding_ is not None
                               else self.tree_.n_features)
        return self
