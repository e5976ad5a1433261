"""Geometric Decision Tree (Manwani & Sastry, arXiv:1009.3604), binary and multiclass.

At a node, the rows of the node's majority class form C+ and the rest C- (for two
classes these are simply the two classes; Algorithm 2). With augmented rows
x~ = [x, 1], G = A~'A~ / n+ and H = B~'B~ / n-, the two *clustering hyperplanes* are the
generalized eigenvectors of H w = lambda G w (eq. 3) with the largest (w1: close to C+,
far from C-, problem 1) and smallest (w2, problem 2) eigenvalue, each scaled so that its
non-bias part has unit norm. The split is the angle bisector w1 + w2 or w1 - w2 (eqs.
4-5) with the lower gini index of eq. 6 (C+ against C-); when the clustering
hyperplanes are parallel the hyperplane midway between them is used (§II-A).

Small samples (§II-B): when G is rank-deficient the maximiser lies in G's null space N;
the rows are projected onto N and the principal eigenvector of the projected H is taken
(Chen et al. 2000's method the paper adopts). The same is done for problem 2 with the
roles of G and H exchanged. The generalized problem is solved through G's Cholesky
factor (``kernels/linalg.eigh_generalized``), never an explicit inverse; the eigensolver
(Householder tridiagonalisation and implicit QL, ``kernels/linalg.eigh_ql``) and the
products are kernels/linalg.py's fixed-order ones, so the tree does not depend on the
CPU's BLAS/LAPACK kernel (which picks the null-space basis and breaks ties otherwise).
Eigenvalues come ascending and each eigenvector with its largest-magnitude entry
positive; a repeated eigenvalue's basis (a null space's) is the one the fixed sequence
of reflections and rotations gives.

Constant and collinear columns: §II-B assumes "no feature is a linear combination of
others". A column constant on a node's rows, or a combination of other columns there,
puts a direction in the common null space of G and H, where both quotients are 0/0;
when that is all of G's null space, §II-B's rule finds nothing and the node stops (a
single leaf on data with one constant, duplicated or one-hot-encoded column). So such
columns are dropped, in column order after the bias, and weighted 0: on the whole
training set once (they are so on every node), and on a node's own rows only where the
paper's rules find no clustering hyperplane (``clustering_hyperplanes`` says why
dropping columns, and not the minimum-norm solution, keeps eqs. 4-5 as on the data
without them). A constant, duplicated or combined column placed after the columns it
depends on therefore changes no tree, and a tree on data without one changes only at
nodes that used to stop for want of a direction.

Leaves (Algorithms 1-2): a child stops when eta1 = min(n+, n-) / n < epsilon1, with
n+ the child's rows of the parent's majority class, and that class still dominates
the child; when the other classes dominate it, the child stops if its own majority
fraction eta2 >= epsilon2; and at max_depth. With two classes this is exactly
Algorithm 1's eta < epsilon rule. The paper leaves epsilon2 unset; the default
1 - epsilon1 makes the two rules the same "majority above 1 - epsilon1" test that §II-C's
text describes. Splits send w~'x~ <= 0 left (the paper: < 0; they differ on a set of
measure zero). GDT grows no pruning.

Weights (``sample_weight``, ``class_weight``; the paper has none): a row of weight w
counts as w copies of itself. So G and H are the weighted scatters (1/W+) sum w_i x~ x~'
over C+ and (1/W-) sum over C- (W the classes' summed weights), C+ is the class of
largest weight, and the gini of eq. 6 and the eta rules read summed weights where they
read counts (eta_of='root' divides by the training set's weight). Rows of weight 0 are
left out of the fit (``TreeClassifier.fit``), so the columns dropped as constant or
collinear (``kept_columns``) are those of the rows of positive weight. Integer weights
then grow the tree of the copied rows up to rounding (a row of weight 3 is added to G
once, scaled, not three times); every row weighing the same grows the unweighted tree.

Readings the paper leaves open, each a parameter (docs/ablations/gdt.md runs them all on
Table II): the denominator of eta1 (``eta_of``: the child's rows as Algorithm 1 line
1.13 prints it, its parent's, or the training set's), how epsilon1 "between .1 and .2"
(§IV) was chosen (a fixed value, or ``epsilon1_grid``: chosen on every training set by
5-fold cross-validation, the procedure §IV applies to SVM's C and GEPSVM's width), and
which gini picks the bisector in Algorithm 2 (``gini_of``: eq. 6 on C+ against C-, or
over all classes, as §II-C's "based on the gini impurity" can also be read).
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold

from ..invariances import EXACT, NO_NOMINAL, ON_THE_SPLIT, ROUNDING, NotKept
from ..kernels import gdt as gdt_kernels
from ..kernels import linalg
from ..kernels.criteria import impurity_score
from ..parameters import Interval, ListOf, Real, StrOptions
from ..registry import register_algorithm
from ..tree.builder import Node, Split, SplitFinder, StoppingRules
from ..tree.impurity import gini_split
from ..tree.structure import go_left
from .base import TreeClassifier, as_rng, fit_input, fit_weights

GDT_FIRST_CLASS = NotKept("C+ is the node's majority class and the leaf rules count the "
                          "parent's: where two classes tie in count the first one is taken")


def _augmented_scatter(rows: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """(1/n) sum x~ x~' over the rows, x~ = [x, 1] (the paper's G or H); with row
    ``weights``, (1/W) sum w_i x~ x~' (``kernels.gdt.augmented_scatter``)."""
    return gdt_kernels.augmented_scatter(np.ascontiguousarray(rows, dtype=np.float64),
                                         weights)


def most_favoured_direction(num: np.ndarray, den: np.ndarray,
                            try_generalized: bool = True) -> np.ndarray | None:
    """The w maximising w'num w / w'den w; the null-space rule when ``den`` is singular.

    With ``den`` positive definite this is the eigenvector of the largest eigenvalue of
    num w = lambda den w (through den's Cholesky factor, ``linalg.eigh_generalized``).
    Otherwise every w in den's null space N gives an unbounded ratio, and the paper
    (§II-B) takes, inside N, the direction maximising w'num w: the principal
    eigenvector of Q'num Q with Q an orthonormal basis of N. None when even that is
    degenerate (num vanishes on N). One compiled call
    (``kernels.gdt.most_favoured_direction``); ``try_generalized=False`` takes the
    branch of a failed Cholesky factorisation directly (for tests).
    """
    num = np.ascontiguousarray(num, dtype=np.float64)
    den = np.ascontiguousarray(den, dtype=np.float64)
    w, found = gdt_kernels.most_favoured_direction(num, den, float(np.trace(num)),
                                                   try_generalized)
    return w if found else None


def _unit(w: np.ndarray | None) -> np.ndarray | None:
    """Scaled so the non-bias part has unit norm, with a deterministic sign."""
    if w is None:
        return None
    out, ok = gdt_kernels.unit_hyperplane(np.ascontiguousarray(w, dtype=np.float64))
    return out if ok else None


def kept_columns(rows: np.ndarray) -> np.ndarray:
    """Bool mask over the columns of ``rows``: in column order, those that are neither
    constant on the rows nor a linear combination of the bias and the columns kept
    before them (``kernels.gdt.independent_columns`` gives the tolerance and why)."""
    return gdt_kernels.independent_columns(np.ascontiguousarray(rows, dtype=np.float64))


def clustering_hyperplanes(A: np.ndarray, B: np.ndarray, columns: np.ndarray | None = None,
                           weights_A: np.ndarray | None = None,
                           weights_B: np.ndarray | None = None):
    """(w1, w2): augmented clustering hyperplanes of C+ (rows A) and C- (rows B), eqs.
    1-3, on the columns of the mask ``columns`` (default all); None for a side the
    paper's rules cannot find. Columns left out get weight 0. ``weights_A`` and
    ``weights_B``: None, or the positive weights of the rows of A and B, which make G
    and H weighted scatters (module docstring, "Weights").

    A direction w~ in the common null space N0 of G and H makes both quotients of eqs.
    1-2 0/0, and when null(G) is N0 (the node's C+ rows span all that its rows span) H
    vanishes there too, so §II-B's rule finds nothing and the node stops: one leaf on
    a whole data set with a constant or a duplicated column. The paper assumes "no
    feature is a linear combination of others" (§II-B). N0 has two sources: columns
    constant on the node or combinations of others there, and rows too few to span the
    augmented space (§II-B's small sample, which its null-space rule handles when
    null(G) is larger than N0). So:

    1. ``columns`` (GDTSplitFinder's) already lacks the columns that are constant or
       combinations of others on the whole training set, and so on every node;
    2. the paper's solution (eqs. 1-3, §II-B) on those columns, exactly as before;
    3. only when that finds no clustering hyperplane, the columns constant on the
       node's rows or combinations of the bias and earlier columns there (bias first,
       then column order) are dropped as well and step 2 repeated.

    Dropping columns, rather than solving in the range of G + H (minimum-norm w~),
    keeps eqs. 4-5 as on data without them: a duplicated column would share its
    twin's weight and change the non-bias norm the clustering hyperplanes are scaled
    by, and a column constant on the node would get a weight (moving the test rows that
    reach the node with another value by a column never seen varying there). Step 3 is
    a fallback, not the rule, because a node with fewer rows than columns makes every
    column after the first n - 1 a combination on its rows: dropping them would keep an
    arbitrary, column-order-dependent few where §II-B works with all of them. So a tree
    on data with no such column grows as before wherever step 2 finds its hyperplanes.
    """
    keep = np.ones(A.shape[1], dtype=bool) if columns is None else columns.copy()
    if not keep.all():
        A, B = A[:, keep], B[:, keep]
    w1, w2 = _paper_hyperplanes(A, B, weights_A, weights_B)
    if w1 is None or w2 is None:
        more = kept_columns(np.vstack([A, B]))
        if not more.all():
            keep[keep] = more
            w1, w2 = _paper_hyperplanes(A[:, more], B[:, more], weights_A, weights_B)
    return _on_columns(w1, keep), _on_columns(w2, keep)


def _paper_hyperplanes(A: np.ndarray, B: np.ndarray, weights_A=None, weights_B=None):
    """(w1, w2) of eqs. 1-3 and §II-B on all the columns of A and B (rows weighted by
    ``weights_A`` / ``weights_B`` where given), each None where the paper's rules find
    none."""
    G, H = _augmented_scatter(A, weights_A), _augmented_scatter(B, weights_B)
    w1 = _unit(most_favoured_direction(H, G))  # close to A, far from B
    w2 = _unit(most_favoured_direction(G, H))  # close to B, far from A
    return w1, w2


def _on_columns(w: np.ndarray | None, keep: np.ndarray) -> np.ndarray | None:
    """The augmented hyperplane ``w`` of the kept columns, with weight 0 on the others."""
    if w is None or keep.all():
        return w
    out = np.zeros(keep.size + 1)
    out[:-1][keep] = w[:-1]
    out[-1] = w[-1]
    return out


def angle_bisectors(w1: np.ndarray, w2: np.ndarray) -> list[np.ndarray]:
    """The candidate splits: w1 + w2 and w1 - w2 (eqs. 4-5), or the midway hyperplane
    (w1, (b1 + b2) / 2) when the clustering hyperplanes are parallel."""
    out = []
    for candidate in (w1 + w2, w1 - w2):
        if linalg.norm(candidate[:-1]) > 1e-9:
            out.append(candidate)
        else:  # parallel: w2 = +-w1 in direction
            sign = 1.0 if linalg.dot(w1[:-1], w2[:-1]) > 0 else -1.0
            out.append(np.append(w1[:-1], (w1[-1] + sign * w2[-1]) / 2))
    return out


@register_algorithm(
    "gdt", "Geometric Decision Tree (Manwani & Sastry): angle bisectors of the clustering "
    "hyperplanes; binary (Alg. 1) and multiclass (Alg. 2)",
    # G and H are summed in row order; a column constant, copied or combined adds
    # nothing the paper's problem can use (§II-B assumes none)
    invariances={"rows": ROUNDING, "columns": ON_THE_SPLIT, "constant": EXACT,
                 "duplicate": EXACT, "combination": EXACT,
                 "scale": NotKept("the clustering hyperplanes are scaled to a unit normal "
                                  "before they are bisected (eqs. 4-5), which depends on "
                                  "the units of each column"),
                 "classes2": GDT_FIRST_CLASS.unshown(), "classes3": GDT_FIRST_CLASS,
                 "nominal": NO_NOMINAL, "levels": NO_NOMINAL},
)
class GeometricTreeClassifier(TreeClassifier):
    """GDT.

    Parameters
    ----------
    epsilon1 : leaf threshold on the minority fraction (paper: between 0.1 and 0.2).
    epsilon2 : majority fraction that stops a child dominated by the parent's minority
        classes (Alg. 2); None means 1 - epsilon1 (§II-C: "above some threshold, say
        (1 - epsilon1)").
    max_depth : None for unlimited (the paper's MaxDepth is not reported).
    eta_of : what eta1 = min(n+, n-) / n divides by.
        'node' (default): n is the child's own rows, as Algorithm 1 line 1.13 and
        Algorithm 2 print eta(S^tl);
        'parent': n is its parent's rows, so a child stops once its minority is a small
        share of the node that was split (§II-C's "the fraction of points of the
        smaller set between S+tl and S-tl" read against S^t);
        'root': n is the training set's rows, so a node stops once its minority is a
        small share of all the data. Table II's tree sizes (2.4 leaves on pima, 4 on
        magic) fit the last two readings far better than the first; they are offered to
        test that (docs/ablations/gdt.md), not as the default.
    epsilon1_grid : None (default): epsilon1 is used as given. A list: epsilon1 is
        chosen from it on each training set by stratified 5-fold cross-validation
        (highest mean accuracy, the first such value in list order), the procedure the
        paper's §IV applies to its baselines' parameters; ``epsilon1`` is then ignored
        and the value chosen is ``best_params_["epsilon1"]``.
    gini_of : which gini index picks the angle bisector (eq. 6). 'groups' (default):
        C+ (the node's majority class) against C- (the rest), as Algorithm 2 refers to
        eq. 6; 'classes': the gini over all classes of the node (the same for two
        classes).
    random_state : seeds the folds of ``epsilon1_grid``'s cross-validation; otherwise
        unused (GDT is deterministic).
    class_weight : None, "balanced" or {label: weight}: each row weighs its class's
        weight (times its ``sample_weight``) in G and H, the gini of eq. 6, the majority
        class and the eta rules (module docstring, "Weights").
    """

    _parameter_constraints = {
        "epsilon1": [Interval(Real, 0, 0.5, closed="left")],
        "epsilon2": [Interval(Real, 0, 1, closed="right"), None],
        "eta_of": [StrOptions({"node", "parent", "root"})],
        "epsilon1_grid": [ListOf(Interval(Real, 0, 0.5, closed="left"), min_len=1,
                                 max_len=100), None],
        "gini_of": [StrOptions({"groups", "classes"})],
    }

    def __init__(self, epsilon1: float = 0.1, epsilon2: float | None = None,
                 max_depth: int | None = None, eta_of: str = "node", epsilon1_grid=None,
                 gini_of: str = "groups", random_state=None, class_weight=None):
        self.epsilon1 = epsilon1
        self.epsilon2 = epsilon2
        self.max_depth = max_depth
        self.eta_of = eta_of
        self.epsilon1_grid = epsilon1_grid
        self.gini_of = gini_of
        self.random_state = random_state
        self.class_weight = class_weight

    def fit(self, X, y, sample_weight=None):
        """Grow the tree; with ``epsilon1_grid``, first choose epsilon1 by 5-fold CV.
        ``sample_weight`` and ``class_weight`` weigh the rows (``TreeClassifier.fit``)."""
        self.validate_params()
        self.epsilon1_ = float(self.epsilon1)
        self.__dict__.pop("best_params_", None)  # of an earlier fit with a grid
        if self.epsilon1_grid is not None:
            self.epsilon1_ = self._cross_validated_epsilon1(X, y, sample_weight)
            self.best_params_ = {"epsilon1": self.epsilon1_}
        return super().fit(X, y, sample_weight=sample_weight)

    def _cross_validated_epsilon1(self, X, y, sample_weight=None) -> float:
        """The value of ``epsilon1_grid`` with the highest mean accuracy over 5 folds of
        (X, y), stratified when every class has 5 rows (else plain 5-fold, or fewer
        folds on fewer rows); the first such value in grid order.

        With row weights (``sample_weight`` times ``class_weight``, ``fit_weights``) the
        rows of weight 0 are left out before the folds are drawn, each fold's tree is
        grown with its training rows' weights, and a fold's accuracy is weighted by its
        test rows' weights (the share of the test weight predicted right)."""
        X, codes = fit_input(self, X, y)
        weights = fit_weights(self, sample_weight, self.classes_[codes], X.shape[0])
        if weights is not None:
            kept = weights > 0
            X, codes, weights = X[kept], codes[kept], weights[kept]
        grid = [float(e) for e in self.epsilon1_grid]
        if len(grid) == 1:
            return grid[0]
        seed = int(as_rng(self.random_state).integers(2**31 - 1))
        if int(np.bincount(codes).min()) >= 5:
            folds = StratifiedKFold(5, shuffle=True, random_state=seed)
        elif X.shape[0] >= 2:
            folds = KFold(min(5, X.shape[0]), shuffle=True, random_state=seed)
        else:  # nothing to validate on; fit reports what is wrong with the data
            return grid[0]
        scores = np.zeros(len(grid))
        for train, test in folds.split(X, codes):
            for k, epsilon1 in enumerate(grid):
                tree = type(self)(**{**self.get_params(deep=False), "epsilon1": epsilon1,
                                     "epsilon1_grid": None, "class_weight": None})
                if weights is None:
                    tree.fit(X[train], codes[train])
                    scores[k] += np.mean(tree.predict(X[test]) == codes[test])
                else:
                    tree.fit(X[train], codes[train], sample_weight=weights[train])
                    scores[k] += np.average(tree.predict(X[test]) == codes[test],
                                            weights=weights[test])
        return grid[int(np.flatnonzero(scores == scores.max())[0])]

    def _stopping_rules(self) -> StoppingRules:
        # Pure nodes and max_depth; Algorithm 2's eta rules need the parent's majority
        # class: the finder declares them (``GDTSplitFinder.stop_node``) and the
        # builder applies them.
        return StoppingRules(max_depth=self.max_depth)

    def _make_split_finder(self) -> SplitFinder:
        epsilon1 = getattr(self, "epsilon1_", self.epsilon1)
        eps2 = 1.0 - epsilon1 if self.epsilon2 is None else self.epsilon2
        return GDTSplitFinder(epsilon1=epsilon1, epsilon2=eps2, eta_of=self.eta_of,
                              gini_of=self.gini_of)


class GDTSplitFinder(SplitFinder):
    """GDT's split at one node, and its leaf rules (Algorithm 2, module docstring) as
    the ``stop_node`` rule the builder applies."""

    def __init__(self, epsilon1: float, epsilon2: float, eta_of: str = "node",
                 gini_of: str = "groups"):
        self.epsilon1, self.epsilon2 = epsilon1, epsilon2
        self.eta_of, self.gini_of = eta_of, gini_of

    def prepare(self, X, y, n_classes, rng) -> None:
        super().prepare(X, y, n_classes, rng)
        self.n_train = X.shape[0]
        # A column constant or a combination of earlier ones on the training set is so
        # on every node's rows: no node looks at it (``clustering_hyperplanes``).
        self.columns = kept_columns(X)

    def eta_denominator(self, node: Node) -> float:
        """What eta1 divides the child's minority count by (``eta_of``): rows, or their
        summed weights in a weighted fit."""
        if self.eta_of == "root":
            return self.n_train
        if self.eta_of == "parent":
            total = node.parent_counts.sum()
            return int(total) if node.weights is None else float(total)
        return node.total

    def stop_node(self, node: Node) -> bool:
        """Algorithm 2's eta rules for a non-root node (pure nodes and max_depth are
        the builder's common rules, applied first)."""
        if node.parent_counts is None:
            return False
        counts = node.counts
        n = node.total  # its rows, or their summed weights
        n_plus = counts[int(np.argmax(node.parent_counts))]
        n_minus = n - n_plus
        if min(n_plus, n_minus) / self.eta_denominator(node) < self.epsilon1:
            return True if n_minus < n_plus else counts.max() / n >= self.epsilon2
        return False

    def split(self, node: Node) -> Split | None:
        X, y = self.node_data(node)
        weights = node.weights  # None, or the rows' positive weights
        if weights is not None and node.is_root:
            self.n_train = node.total  # eta_of='root' divides by the training weight
        majority = int(np.argmax(node.counts))
        plus = y == majority
        if plus.all() or not plus.any():
            return None
        if weights is None:
            w1, w2 = clustering_hyperplanes(X[plus], X[~plus], self.columns)
        else:
            w1, w2 = clustering_hyperplanes(X[plus], X[~plus], self.columns,
                                            weights[plus], weights[~plus])
        if w1 is None or w2 is None:
            return None
        # gini of eq. 6, as impurity.gini_split rounds it: C+ against C- ('groups'),
        # or over the node's classes ('classes'); weighted counts with row weights.
        labels = (~plus).astype(np.int64) if self.gini_of == "groups" else y
        counts = np.bincount(labels, weights=weights,
                             minlength=2 if self.gini_of == "groups" else self.n_classes)
        best, best_score = None, np.inf
        for w in angle_bisectors(w1, w2):
            # the builder's sums and its partition rule, so the scored split is the grown one
            left = go_left(linalg.matvec(X, w[:-1]), -w[-1])
            n_left = int(np.count_nonzero(left))
            if n_left == 0 or n_left == len(y):
                continue
            counts_left = np.bincount(labels[left],
                                      weights=None if weights is None else weights[left],
                                      minlength=counts.size)
            score = impurity_score(gini_split.code, counts_left, counts - counts_left,
                                   np.empty(counts.size))
            if score < best_score:
                best, best_score = w, score
        if best is None:
            return None
        return Split(threshold=float(-best[-1]), weights=best[:-1].copy(), score=best_score)


# The name this class had before the estimators were named alike.
GeometricDecisionTree = GeometricTreeClassifier
