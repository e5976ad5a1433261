"""One-vs-one and one-vs-rest decompositions of a two-class tree (Yildiz 2011, §3.2).

"For K > 2 class problems, we ... reduce the single multiclass problem into multiple
binary classification problems ... (i) one of the labels to the rest (one-vs.-rest) or
(ii) between every pair of classes (one-vs.-one)." The paper gives no combination rule;
the author's code does (ISELL ``classification.c: train_svmtree/test_svmtree``,
docs/reference-programs.md):

* OVO grows K(K-1)/2 trees, one per class pair (i, j), i < j, on the rows of those two
  classes; tree (i, j) adds its leaf posterior of class i to vote i and of class j to
  vote j.
* OVR grows K trees; tree i separates class i from the rest. The generic wrapper
  (``OneVsRestTrees``, and ``umt-ovr`` with ``members="two_class"``) grows a plain
  two-class tree on the relabelled problem (class i -> code 0, the rest -> code 1, so
  class i is the code's ``positive`` class), which adds its posterior of "class i" to
  vote i. The author's code does otherwise, and ``umt-ovr``'s default
  ``members="all_classes"`` follows it: tree i grows on all rows with their K labels;
  only eq. 4 sees class i against the rest, while the split errors, the stopping rule
  (a node is split until it is pure in the K classes), the leaves and the pruning keep
  the K classes, and every tree adds all K leaf posteriors to the votes. Each member is
  then a K-class tree of its own, so the K trees vote as an ensemble (the ablation in
  docs/reproduction.md: on the UMT paper's Table 4 this is what makes one-vs-rest the
  more accurate decomposition, as the paper reports).
* The votes are normalised to sum to one (``predict_proba``) and the prediction is the
  argmax (ties: the lowest class).

Sizes: ``n_nodes_`` and ``n_leaves_`` sum over the member trees, ``depth_`` is the
largest member depth (the UMT paper counts all nodes including leaves, Table 3).

Pruning: a pruner receives the wrapper. The ``validation`` pruner (``obliq_cli.pruning.
validation``) prunes every member on the validation rows of its class pair, or on all
validation rows relabelled to its one-vs-rest problem, as ``train_svmtree`` does
(``member_problem`` gives those rows and labels).
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from ..errors import DataTypeError, ObliqError
from ..fit_threads import FitThreads, resolve_threads
from ..invariances import NotKept
from ..parameters import N_THREADS, RANDOM_STATE, StrOptions
from ..registry import register_algorithm
from .base import CLASS_WEIGHT, ObliqClassifier, as_rng, fit_input, fit_weights, predict_input
from .umt import (
    EQ4_SIDE,
    UMT_INVARIANCES,
    VALIDATION_QUARTER_WEIGHTS,
    UMTClassifier,
    UMTOneVsRestMember,
)

# The scikit-learn checks the UMT wrappers cannot pass: their members' (a validation
# quarter drawn over rows, trees grown until pure)
UMT_MEMBERS_CHECKS = {check: f"its member UMTs: {why}"
                      for check, why in VALIDATION_QUARTER_WEIGHTS.items()}

# What the UMT wrappers keep: their members' invariances, but the members are seeded in
# the order of their class problems, and each member's eq. 4 has a side.
WRAPPED_UMT = {**UMT_INVARIANCES, "classes2": EQ4_SIDE, "classes3": NotKept(
    "the members are seeded in the order of their classes, and each member's eq. 4 "
    "expects one class above the threshold")}


class _DecompositionTrees(ObliqClassifier):
    """Common part of the OVO / OVR wrappers; subclasses define ``_make_member`` and
    ``_problems``."""

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict_proba"])],
        "random_state": RANDOM_STATE,
        "class_weight": CLASS_WEIGHT,
        # kept for the wrappers whose __init__ takes it (the UMT ones)
        "n_threads": N_THREADS,
    }

    def _make_member(self):  # pragma: no cover - overridden
        return clone(self.estimator)

    def _members_keep_all_classes(self) -> bool:
        """Whether every member grows on all rows with their K labels (the author's
        one-vs-rest UMT) instead of its two-class problem."""
        return False

    def _member_for(self, m: int):
        return self._make_member()

    def validate_params(self) -> None:
        super().validate_params()
        member = self._make_member()
        if hasattr(member, "validate_params"):
            member.validate_params()

    def _problems(self, k: int) -> list[tuple[int, ...]]:  # pragma: no cover
        raise NotImplementedError

    def member_rows(self, m: int, y_codes) -> np.ndarray | None:
        """Which rows (a bool mask) member ``m``'s problem keeps of rows with class codes
        ``y_codes``: OVO the rows of its pair; None for all (OVR, all-class members)."""
        prob = self.problems_[m]
        if self._members_keep_all_classes() or len(prob) != 2:
            return None
        y_codes = np.asarray(y_codes)
        return (y_codes == prob[0]) | (y_codes == prob[1])

    def member_problem(self, m: int, X, y_codes):
        """Rows and two-class labels of member ``m``'s problem for rows ``X`` with class
        codes ``y_codes`` (code -1 = unseen class): OVO keeps the rows of its pair and
        labels them 0 (first class) / 1; OVR keeps every row, 0 = its class, 1 = rest."""
        y_codes = np.asarray(y_codes)
        prob = self.problems_[m]
        if self._members_keep_all_classes():
            return X, y_codes
        if len(prob) == 2:
            keep = self.member_rows(m, y_codes)
            return X[keep], (y_codes[keep] == prob[1]).astype(np.int64)
        return X, (y_codes != prob[0]).astype(np.int64)

    def fit(self, X, y, sample_weight=None):
        """Fit every member on its problem (``member_problem``).

        ``sample_weight`` (one weight a row) and the wrapper's ``class_weight`` (where it
        has one: None, "balanced" or {label: weight}) give each row its weight
        (``base.fit_weights``), with the class weights taken on the original K labels
        before the decomposition: "balanced" weighs class c by n / (K n_c) over all the
        rows, not by its share of a member's pair or of its "rest". Each member is then
        fitted with its own rows' weights (an OVO member's pair, all rows for OVR), so a
        member reads exactly what it would read fitted alone on those rows and weights;
        it weighs its classes no further. Without weights (or with all weights equal) the
        members are fitted as before, with no ``sample_weight``. A member whose ``fit``
        takes no ``sample_weight`` gets a one-line error when the rows are weighted.

        A wrapper with an ``n_threads`` parameter fits its members on that many threads
        (``obliq_cli.fit_threads``; the others on one): each member's seed is drawn
        before any is fitted, the m-th for member m, and ``estimators_`` lists them in
        member order, so the members are the same for every thread count."""
        self.validate_params()
        X, codes = fit_input(self, X, y)
        weights = fit_weights(self, sample_weight, self.classes_[codes], X.shape[0])
        k = len(self.classes_)
        if k < 2:
            raise ObliqError(f"{type(self).__name__} needs at least two classes (got {k} "
                             f"class{'es' if k != 1 else ''})")
        self.problems_ = self._problems(k)
        rng = as_rng(getattr(self, "random_state", None))
        seeds = rng.integers(2**63, size=len(self.problems_))
        if weights is not None and not has_fit_parameter(self._member_for(0), "sample_weight"):
            raise DataTypeError(f"{type(self).__name__}: its member "
                                f"{type(self._member_for(0)).__name__} takes no "
                                f"sample_weight, so the rows cannot be weighted")

        def fit_member(m: int):
            Xm, ym = self.member_problem(m, X, codes)
            member = self._member_for(m)
            if "random_state" in member.get_params():
                member.set_params(random_state=np.random.default_rng(int(seeds[m])))
            if weights is None:
                return member.fit(Xm, ym)
            keep = self.member_rows(m, codes)
            return member.fit(Xm, ym, sample_weight=weights if keep is None else weights[keep])

        with FitThreads(resolve_threads(getattr(self, "n_threads", 1))) as threads:
            self.estimators_ = threads.map(fit_member, range(len(self.problems_)))
        return self

    def encode(self, y) -> np.ndarray:
        """Class codes of labels ``y``; unseen labels get -1."""
        y = np.asarray(y)
        pos = np.clip(np.searchsorted(self.classes_, y), 0, len(self.classes_) - 1)
        return np.where(self.classes_[pos] == y, pos, -1)

    def _member_posterior(self, member, X) -> np.ndarray:
        """Posterior [n, 2] of the member's codes 0 and 1 (a member grown on one class
        only gives that class probability one)."""
        proba = member.predict_proba(X)
        out = np.zeros((X.shape[0], 2))
        out[:, np.asarray(member.classes_, dtype=np.int64)] = proba
        return out

    def votes(self, X) -> np.ndarray:
        X = predict_input(self, X)
        votes = np.zeros((X.shape[0], len(self.classes_)))
        for prob, member in zip(self.problems_, self.estimators_):
            if self._members_keep_all_classes():
                votes[:, np.asarray(member.classes_, dtype=np.int64)] += \
                    member.predict_proba(X)
                continue
            post = self._member_posterior(member, X)
            votes[:, prob[0]] += post[:, 0]
            if len(prob) == 2:
                votes[:, prob[1]] += post[:, 1]
        return votes

    def predict_proba(self, X) -> np.ndarray:
        votes = self.votes(X)
        total = votes.sum(axis=1, keepdims=True)
        return votes / np.where(total > 0, total, 1.0)

    def predict(self, X) -> np.ndarray:
        votes = self.votes(X)  # NotFittedError before fit
        return self.classes_[np.argmax(votes, axis=1)]

    @property
    def n_leaves_(self) -> int:
        return int(sum(m.n_leaves_ for m in self.estimators_))

    @property
    def n_nodes_(self) -> int:
        return int(sum(m.n_nodes_ for m in self.estimators_))

    @property
    def depth_(self) -> int:
        return int(max(m.depth_ for m in self.estimators_))

    @property
    def n_oblique_(self) -> int:
        """Oblique splits over every member tree (as ``n_nodes_`` counts their nodes)."""
        return int(sum(m.n_oblique_ for m in self.estimators_))

    @property
    def feature_importances_(self) -> np.ndarray:
        """The mean of the member trees' ``feature_importances_`` (each sums to 1, so the
        mean does too; a member of another kind without them: AttributeError)."""
        check_is_fitted(self)
        return np.mean([m.feature_importances_ for m in self.estimators_], axis=0)

    def export_text(self, feature_names=None) -> str:
        """Every member tree's rules under a title line naming its problem. The features
        are named as a single tree names them (``feature_names``, else the DataFrame
        columns the wrapper was fitted on); a member's leaves name the wrapper's classes
        (or ``rest``), not the member's internal codes 0 and 1."""
        if feature_names is None and hasattr(self, "feature_names_in_"):
            feature_names = [str(n) for n in self.feature_names_in_]
        parts = []
        for prob, member in zip(self.problems_, self.estimators_):
            names = [str(self.classes_[c]) for c in prob]
            title = " vs ".join(names) if len(prob) == 2 else f"{names[0]} vs rest"
            if self._members_keep_all_classes():
                member_names = [str(self.classes_[int(c)]) for c in member.classes_]
            else:
                coded = names if len(prob) == 2 else [names[0], "rest"]  # member codes 0, 1
                member_names = [coded[int(c)] for c in member.classes_]
            if "class_names" in inspect.signature(member.export_text).parameters:
                text = member.export_text(feature_names, class_names=member_names)
            else:  # a member of another kind names its leaves itself
                text = member.export_text(feature_names)
            parts.append(f"# tree {title}\n{text}")
        return "\n".join(parts)

    def export_json(self) -> dict:
        return {"classes": self.classes_.tolist(), "decomposition": self._kind,
                "problems": [list(map(int, p)) for p in self.problems_],
                "trees": [m.export_json() for m in self.estimators_]}


class OneVsOneTrees(_DecompositionTrees):
    """K(K-1)/2 two-class trees on class pairs; votes = summed leaf posteriors.
    ``class_weight``: None, "balanced" or {label: weight}, taken on the K labels
    (``fit``)."""

    _kind = "one-vs-one"

    def __init__(self, estimator=None, random_state=None, class_weight=None):
        self.estimator = estimator
        self.random_state = random_state
        self.class_weight = class_weight

    def _make_member(self):
        if self.estimator is None:
            raise ObliqError("OneVsOneTrees needs an estimator")
        return clone(self.estimator)

    def _problems(self, k):
        return [(i, j) for i in range(k) for j in range(i + 1, k)]


class OneVsRestTrees(_DecompositionTrees):
    """K two-class trees, class i against the rest; vote i = tree i's posterior of i.
    ``class_weight``: None, "balanced" or {label: weight}, taken on the K labels
    (``fit``)."""

    _kind = "one-vs-rest"

    def __init__(self, estimator=None, random_state=None, class_weight=None):
        self.estimator = estimator
        self.random_state = random_state
        self.class_weight = class_weight

    def _make_member(self):
        if self.estimator is None:
            raise ObliqError("OneVsRestTrees needs an estimator")
        return clone(self.estimator)

    def _problems(self, k):
        return [(i,) for i in range(k)]


_UMT_PARAMS = ("c_min", "c_max", "c_step", "refit", "normalize", "both_sides", "sweep",
               "feature_by", "min_samples_split", "max_depth")


class _UMTMembers:
    """UMT's parameters on a wrapper; members are ``UMTClassifier`` with them."""

    # The same parameters, defaults and declaration as ``umt`` itself (scikit-learn
    # reads them from the signature), so a wrapper is configured exactly like a single UMT.
    __init__ = UMTClassifier.__init__
    _parameter_constraints = UMTClassifier._parameter_constraints

    def _make_member(self):
        return UMTClassifier(**{p: getattr(self, p) for p in _UMT_PARAMS})


@register_algorithm(
    "umt-ovo", "Univariate margin tree, one-vs-one: K(K-1)/2 UMTs on class pairs, "
    "summed posteriors vote (Yildiz 2011 §3.2)",
    invariances=WRAPPED_UMT, expected_failed_checks=UMT_MEMBERS_CHECKS,
)
class UMTOneVsOneClassifier(_UMTMembers, OneVsOneTrees):
    """UMT one-vs-one; parameters as ``umt`` (each member gets its own rng stream), and
    ``n_threads``: the threads the K(K-1)/2 member trees are fitted on (None: what the
    run leaves free, ``obliq_cli.fit_threads``). The members are the same for every
    thread count: member m's seed is the m-th drawn from ``random_state`` before any
    member is fitted, and a member reads nothing another one writes. The default is 1:
    a member's nodes are mostly Python holding the GIL, and members on two threads
    measured slower than one after the other (docs/internals.md)."""

    def __init__(self, c_min: float = -2.0, c_max: float = 2.0, c_step: float = 0.1,
                 refit: bool = False, normalize: bool = True, both_sides: bool = False,
                 sweep: str = "sign", feature_by: str = "learn",
                 min_samples_split: int = 2, max_depth: int | None = None,
                 random_state=None, class_weight=None, n_threads: int | None = 1):
        UMTClassifier.__init__(self, c_min, c_max, c_step, refit, normalize, both_sides,
                               sweep, feature_by, min_samples_split, max_depth,
                               random_state, class_weight)
        self.n_threads = n_threads


@register_algorithm(
    "umt-ovr", "Univariate margin tree, one-vs-rest: K UMTs (class i vs rest), "
    "summed posteriors vote (Yildiz 2011 §3.2)",
    invariances=WRAPPED_UMT, expected_failed_checks=UMT_MEMBERS_CHECKS,
)
class UMTOneVsRestClassifier(_UMTMembers, OneVsRestTrees):
    """UMT one-vs-rest; parameters as ``umt`` (each member gets its own rng stream),
    and ``members``: "all_classes" (default, the author's code): member i is a K-class
    tree whose eq. 4 sees class i against the rest (``UMTOneVsRestMember``);
    "two_class": member i is a two-class UMT on the relabelled problem (module
    docstring); ``n_threads``: the threads the K member trees are fitted on (None:
    what the run leaves free, ``obliq_cli.fit_threads``; 1 by default, as for
    ``umt-ovo``). The members are the same for every thread count: member i's seed is
    the i-th drawn from ``random_state`` before any member is fitted, and a member
    reads nothing another one writes."""

    _parameter_constraints = {**UMTClassifier._parameter_constraints,
                              "members": [StrOptions({"all_classes", "two_class"})]}

    def __init__(self, c_min: float = -2.0, c_max: float = 2.0, c_step: float = 0.1,
                 refit: bool = False, normalize: bool = True, both_sides: bool = False,
                 sweep: str = "sign", feature_by: str = "learn",
                 min_samples_split: int = 2, max_depth: int | None = None,
                 random_state=None, members: str = "all_classes",
                 n_threads: int | None = 1):
        UMTClassifier.__init__(self, c_min, c_max, c_step, refit, normalize, both_sides,
                               sweep, feature_by, min_samples_split, max_depth,
                               random_state)
        self.members = members
        self.n_threads = n_threads

    def _members_keep_all_classes(self) -> bool:
        return self.members == "all_classes"

    def _member_for(self, m: int):
        if not self._members_keep_all_classes():
            return self._make_member()
        return UMTOneVsRestMember(positive_class=self.problems_[m][0],
                                  **{p: getattr(self, p) for p in _UMT_PARAMS})


# The names these classes had before the estimators were named alike.
UMTOneVsOne = UMTOneVsOneClassifier
UMTOneVsRest = UMTOneVsRestClassifier
