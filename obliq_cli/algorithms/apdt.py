"""APDT, the Alopex Perceptron Decision Tree of Shah & Sastry (1999), §II.

Each node is split by the hyperplane that minimises the separability score F(W, S^t) of
eq. (1), found by the Alopex algorithm (eqs. 2-5); the score counts the *nonseparable
patterns* of each child, estimated with the Perceptron (§II, second paragraph).

Separability estimate (§II; Roychowdhury, Siu & Kailath 1995, Th. 6)
    The Perceptron (augmented patterns z = (1, x), labels s = +-1, w(0) = 0, update
    w += s z when s w.z <= 0) runs for max(300, |S|) iterations (§III), each iteration
    one presented pattern (``perceptron_iteration="pattern"``, the default: §II's
    definition, below). Patterns
    are presented *cyclically* in a fixed order: the paper says "we classify the next
    pattern". The order is one random permutation of the node's rows, drawn from the
    finder's rng once per node, and each child keeps its rows in that order, so F is a
    deterministic function of W within a node (Alopex compares F values over iterations,
    eq. 4). The number of updates of each pattern is counted; with M the largest count,
    patterns updated at least rho M times (rho = 0.6) are nonseparable. The set is
    declared separable (nsp = 0) when the final Perceptron hyperplane classifies every
    pattern correctly -- the rho rule alone would always flag the most-updated pattern
    -- and that hyperplane is returned (Table I, step 4). A single-class set is separable
    without running the Perceptron; the loop also stops once a whole cycle passes
    without an update (nothing can change after that).

    What an "iteration" is (docs/ablations/apdt.md). §II calls one presented pattern an
    iteration ("at each iteration we classify the next pattern"); read so
    (``perceptron_iteration="pattern"``, the default), the
    max(300, |S|) iterations of §III are a single cycle for any node of 300 patterns or
    more: every count is then 0 or 1, M = 1, the rho rule of §II selects nothing (every
    pattern updated once is "nonseparable") and the patterns that update "infinitely
    often" (the theorem the estimate rests on) cannot be told from the others. A
    separable child of a few hundred uniform points is then almost never recognised
    (its margin needs tens of cycles), the one-step look-ahead rarely fires, and the
    trees of Tables II-III come out 2-4x larger than the paper's. Read as cycles,
    rho means what §II says and the tree sizes of Problems 1 and 3 agree with the
    paper's (``"pass"``, the default between the two ablations). It costs: a node of n
    nonseparable patterns runs max(300, n) n presentations per child and Alopex
    iteration, and APDT then takes 64-90x OC1's fit time and 720-1190x CART-LC's where
    §III-C says "approximately twice" ("pattern": 0.4-0.8x and 4-8x). No reading fits
    both the sizes and the runtime, so the default is the one §II defines.

    ``perceptron_iteration="settled"`` (a third reading, docs/ablations/apdt.md "Miss
    1, second round") keeps the cycles of "pass" but stops the run once its answer has
    settled: at the end of cycle c, when the set of patterns flagged by §II's rule
    (count >= rho M) has not changed since cycle c/2 -- it has stayed the same for as
    many cycles as it took to form -- or, as in every reading, after a whole cycle
    without an update. §II's
    rule is about which patterns keep updating, and once that set stops changing more
    cycles only confirm it; §III-C bounds the cost ("The APDT algorithm takes
    approximately twice the time taken by OC1 or CART-LC in all problems"), which
    max(300, n) full cycles on every nonseparable child exceed by 64-90x (OC1) and
    720-1190x (CART-LC). The doubling rule has no constant of its own, but it is ours,
    not the paper's, and the ablation found it saves little: the flags keep changing as
    M grows (each step of M moves the cut), so a nonseparable set mostly runs to the
    cap; its fit time is 0.7-1.3x "pass"'s and its trees are larger.

    Readings of how the run is scored (``separability``; not in the paper, ablated):
    "updates" is §II's rho M rule above; "final_errors" counts the patterns the final
    hyperplane misclassifies; "pocket_errors" the fewest misclassified by the hyperplane
    in hand at the end of any cycle (Gallant's pocket algorithm). All three declare a
    set separable exactly when a hyperplane seen separates it (the last two stop at the
    first cycle that ends clean).

Compiled kernels
    The Perceptron, the separability test and each node's whole Alopex search
    (``alopex_split``: every W, its partition and F) are numba kernels; the node's
    uniform draws are taken from its rng in one block and the stream is then left where
    drawing only the used ones leaves it. Dot products are plain loops, and the
    temperature's window mean is summed in numpy's own pairwise order, so the values are
    numpy's; exp (eq. 4) is libm's, which can differ from numpy's SIMD exp in the last
    bit (a draw's outcome changes only if it falls within that bit of p).
    ``NUMBA_DISABLE_JIT=1`` runs the same code as Python (slowly), for debugging.

Split score, eq. (1), with n = n_t, R = 1/(2n) (the paper's "minimum value of E"), M = 4
    F(W, S) = R/M { I1 (n - n_l)/n + I2 (n - n_r)/n - I1 I2 } + (1 - I1)(1 - I2) E,
    E = ((nsp_l + nsp_r)/n) (1/2 - (n_l/n)(n_r/n)),  I1 = [nsp_l = 0],  I2 = [nsp_r = 0].
    So F = (n_r/n) R/M when only the left child is separable, 0 when both are, E when
    neither is (the three cases listed under eq. 1). The paper is silent on an empty
    child; we give it I = 0 (an empty set separates nothing), so a split sending every
    pattern to one side scores E = nsp/(2n), the worst value of the (1/2 - p_l p_r)
    factor -- which is the role the paper gives that factor ("a split that puts all
    patterns at t in one child node will not result"). The child that the paper calls
    t_l (W.z > 0) is our right child: obliq sends w.x <= t left. F is symmetric in the two
    children, so nothing depends on the naming.

Alopex, eqs. (2)-(5) (Unnikrishnan & Venugopal 1994, as given in §II-B)
    w_i(k+1) = w_i(k) + delta x_i(k), x_i(k) = x_i(k-1) with probability
    p(k) = 1 / (1 + exp(dE(k) / T(k))), else -x_i(k-1), drawn independently per i, with
    dE(k) = E(W(k)) - E(W(k-1)); x(0) is +-1 with equal probability. The temperature is
    T(0) = 1000 and, at every k that is a multiple of N = 10, the mean ``|dE|`` of the last N
    iterations: T(k) = (1/N) sum_{k'=k-N}^{k-1} |dE(k')| (dE(0) = 0). Eq. (5) as printed
    has delta/N in front; that is the original Alopex's temperature (Unnikrishnan &
    Venugopal 1994), whose exponent is the correlation delta x_i dE, of mean size
    delta mean ``|dE|``. Eq. (4) as printed has dE alone in the exponent, so we drop delta to
    keep the ratio of the original ("comparing current dE with its recent averaged value",
    §II-B); with delta kept, ``|dE|/T`` is about 1/delta = 20, p is 0 or 1, and the search
    falls into a deterministic 2- or 4-cycle (we saw 17 distinct partitions in 500
    iterations at the root of Problem 1). ``temperature="printed"`` keeps delta/N as
    printed, for the ablation (docs/ablations/apdt.md: it grows larger trees). When
    T = 0 (F did not change over the window)
    p is 1/2 for dE = 0 and 0 or 1 by the sign of dE otherwise (the limit of eq. 4). The
    best W seen is kept; the search stops early when F* = 0 (Table I, step 4). W(0) is
    the hyperplane through the midpoint of two random patterns of different classes,
    perpendicular to the segment joining them (Table I, step 1), with the normal scaled
    to unit length (the paper gives no scale; unit length makes delta = 0.05 a small
    step on the unit square).

growTree (Table I)
    A child with nsp = 0 is a leaf if pure; otherwise it gets the Perceptron's separating
    hyperplane with two leaves (the one-step look-ahead of step 7). A child with nsp > 0
    is grown recursively. The root is checked for separability first (§II-C, "which can
    be easily detected before calling growTree"). The tree grows through the shared
    builder (``APDTSplitFinder``): the chosen split's children are the builder's
    partition (``goes_left``), which the finder also uses for the look-ahead, and a
    child learns what its parent found out about it from ``Node.state``. No stopping
    rule or pruning is applied (§III: "without any pruning"); a node whose rows cannot
    be split (identical points of both classes) is a leaf.

Scaling of the attributes (``normalize``; "max" by default)
    "max" divides each attribute by its largest absolute training value; the stored
    hyperplanes are mapped back to raw features. The paper's text settles it in two
    places. §II-B, on Alopex: "For a multidimensional input pattern with each attribute
    having values in different ranges, normalizing pattern vectors improve learning
    accuracy and learning rate" (or one step size per weight, which it does not use).
    §III-B2 shows how, on WINE, whose 13 chemical measurements differ in range by three
    orders of magnitude: "The patterns are normalized to take value from (0, 1) by
    dividing each attribute by its maximum value from the training set". One step
    delta for every weight (eq. 2) moves w.x by about delta times an attribute's size,
    and the offset w0 multiplies a constant 1 (§II-A): both assume attributes of
    comparable size, as on the unit square where §III set delta = 0.05. The paper did
    not normalise the unit-square problems (their attributes already lie in [0, 1]) nor
    IRIS (four lengths in cm, within a factor of about 3 of each other; delta = 0.5
    there).
    So the rule is part of the algorithm (§II), conditional on the ranges, and dividing
    by the maximum is the paper's one way of applying it. Data the paper did not use
    have attributes in any ranges (adult's maxima run from 1 to 1.5 x 10^6), so "max"
    is the default, and the reproductions of the paper's unit-square and IRIS runs set
    ``normalize: null``, as the paper ran them. "max" also makes the tree blind to a
    positive scaling of any attribute (exactly so for powers of two). An all-zero
    column keeps scale 1.

Row weights (``sample_weight``, ``class_weight``; the paper has none)
    A row of weight w counts as w patterns wherever §II counts patterns: eq. (1)'s n,
    n_l and n_r are the summed weights of the node and its children, nsp_l and nsp_r the
    summed weights of the patterns the Perceptron's run flags (rho rule, final errors or
    the pocket's errors, the pocket keeping the hyperplane of least erring weight), so
    Alopex minimises the weighted F; Table I step 1 draws each of its two patterns with
    probability proportional to its weight (as one of its copies would be drawn). The
    Perceptron itself runs on the rows, each presented once a cycle, with the unweighted
    update and max(300, |S|) iterations for |S| rows: whether a set is separable does not
    depend on how often a point occurs in it, and a cyclic run over a row repeated k
    times is not one weighted update (after the first copy's update the next copies may
    be classified right), so no update reproduces the copies exactly. An integer weight
    is therefore not the same tree as copied rows (the Perceptron's runs and the node's
    random presentation order differ); a weight of 0 is a removed row (the fit drops it)
    and equal weights grow the unweighted tree to the bit (F's sums of ones are its
    counts).

EXTENSION (not in the paper): multiclass="ovr" follows the first suggestion of §V ("learn
one decision tree each, to separate one class from all the rest"), chained into a single
tree: class 0 is separated from the rest; every leaf left holding several of the other
classes is grown further to separate class 1 from the classes after it, and so on (a
decision list of one-vs-rest trees, so the result is still one ``Tree``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..invariances import EXACT, NO_NOMINAL, RANDOM_PER_COLUMN, TWO_CLASSES_ONLY, NotKept
from ..kernels import linalg
from ..kernels.apdt import (
    alopex_split,
    count_nonseparable,
)
from ..parameters import MAX_REAL, Integral, Interval, Real, StrOptions
from ..registry import register_algorithm
from ..tree.builder import Node, Split, SplitFinder, goes_left
from .base import TreeClassifier, binary_only
from .unweighted import GROWN_UNTIL_PURE

PERCEPTRON_MIN_ITERATIONS = 300
"""§III: the Perceptron runs for max(300, |S^t|) iterations."""


# ---------------------------------------------------------------- perceptron
# Codes of the readings, as the compiled kernels take them.
SEPARABILITY_CODES = {"updates": 0, "final_errors": 1, "pocket_errors": 2}
PERCEPTRON_ITERATION_CODES = {"pattern": 0, "pass": 1, "settled": 2}


def nonseparable(Z: np.ndarray, s: np.ndarray, rho: float = 0.6, *,
                 perceptron_iteration: str = "pattern",
                 perceptron_min_iterations: int = PERCEPTRON_MIN_ITERATIONS,
                 separability: str = "updates", weights: np.ndarray | None = None):
    """``(nsp, w)``: the estimated number of nonseparable patterns (§II) and, when it is
    0 and the set has both classes, the Perceptron's separating hyperplane (else None).

    ``perceptron_iteration``, ``perceptron_min_iterations`` and ``separability`` are the
    readings of ``APDTClassifier`` (module docstring). With ``weights`` (one per row of
    ``Z``) ``nsp`` is the nonseparable patterns' summed weight, a float (module
    docstring, "Row weights")."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    s = np.ascontiguousarray(s, dtype=np.float64)
    c = np.ones(Z.shape[0]) if weights is None else np.ascontiguousarray(weights, np.float64)
    nsp, w, separable = count_nonseparable(
        Z, s, np.arange(Z.shape[0]), float(rho), int(perceptron_min_iterations),
        PERCEPTRON_ITERATION_CODES[perceptron_iteration],
        SEPARABILITY_CODES[separability], c)
    return (int(nsp) if weights is None else float(nsp)), (w if separable else None)


# -------------------------------------------------------------------- alopex
def _temperature_scale(temperature: str, delta: float) -> float:
    """The factor of eq. (5)'s window mean: 1 ("mean") or delta ("printed")."""
    return float(delta) if temperature == "printed" else 1.0


# Alopex draws one move per weight and iteration (eq. 3): a column more (the invariances
# APDT declares) changes every draw after it, and the Perceptron runs in another space.
ALOPEX_DRAWS = NotKept("Alopex draws a move per weight, so a column more changes every "
                       "later draw")


# ------------------------------------------------------------------ the node
def _initial_hyperplane(Z: np.ndarray, s: np.ndarray, rng: np.random.Generator,
                        c: np.ndarray | None = None):
    """Table I step 1: the perpendicular bisector of two random patterns of different
    classes (unit normal), as augmented weights (w0, w); None if no such pair differs.
    With row weights ``c`` a pattern is drawn with probability proportional to its
    weight (as one of its copies would be)."""
    pos, neg = np.flatnonzero(s > 0), np.flatnonzero(s < 0)
    p_pos = p_neg = None
    if c is not None:
        p_pos, p_neg = c[pos] / c[pos].sum(), c[neg] / c[neg].sum()
    for _ in range(20):
        a, b = Z[rng.choice(pos, p=p_pos)], Z[rng.choice(neg, p=p_neg)]
        v = a[1:] - b[1:]
        norm = linalg.norm(v)  # fixed-order sums: the same start on every BLAS
        if norm > 0:
            v = v / norm
            return np.concatenate([[-linalg.dot(v, a[1:] + b[1:]) / 2], v])
    return None


@register_algorithm(
    "apdt", "Alopex Perceptron Decision Tree, separability-based oblique splits "
    "(Shah & Sastry 1999); 2 classes, multiclass='ovr' extension; unpruned",
    check_params={"alopex_iterations": 100},  # scikit-learn's checks fit many small trees
    invariances={
        "rows": NotKept("the Perceptron presents the root's rows in data order and every "
                        "other node's in a random permutation of positions"),
        "columns": RANDOM_PER_COLUMN, "constant": ALOPEX_DRAWS, "duplicate": ALOPEX_DRAWS,
        "combination": ALOPEX_DRAWS,
        # normalize='max' divides each column by its training maximum: the Perceptron and
        # Alopex's fixed step delta then see the same numbers under power-of-two scaling
        "scale": EXACT,
        "classes2": NotKept("the random start draws a pattern of the first class, then "
                            "one of the second (Table I, step 1)"),
        "classes3": TWO_CLASSES_ONLY, "nominal": NO_NOMINAL, "levels": NO_NOMINAL},
    # it passes check_sample_weight_equivalence on the check's data, though integer
    # weights are not copied rows in general (module docstring, "Row weights")
    expected_failed_checks=GROWN_UNTIL_PURE,
)
class APDTClassifier(TreeClassifier):
    """APDT (Shah & Sastry 1999). See the module docstring for every choice.

    Parameters
    ----------
    rho : a pattern updated at least rho * (max count) times is nonseparable (0.6, §II).
    M : the constant M >= 1 of eq. (1) (4, §II-A).
    alopex_iterations : Alopex iterations per node (500, §III).
    delta : Alopex step size (0.05, §III; the paper uses 0.5 for IRIS, 0.1 for WINE).
    temperature0 : initial temperature T(0) (1000, §III).
    temperature_window : N, iterations between temperature updates (10, §III).
    normalize : "max" (default) to divide each attribute by its largest absolute
        training value (§II-B, §III-B2; module docstring), or None for the attributes
        as given (the paper's unit-square problems and IRIS).
    multiclass : None (two classes only, as in the paper) or "ovr" (extension, §V).
    perceptron_iteration : what one of the Perceptron's max(300, ``|S|``) iterations (§III)
        is: "pattern" (one presented pattern, as §II words it: "at each iteration we
        classify the next pattern"; the default), "pass" (one cycle through all ``|S|``
        patterns, the reading under which §II's rho rule means something and the sizes
        of Tables II-III agree, at 30-600x §III-C's runtime: module docstring) or
        "settled" (cycles
        as in "pass", stopping once the rho M flags of §II have not changed for as many
        cycles as they took to form; a reading of ours weighed against §III-C's
        runtime, module docstring).
    perceptron_min_iterations : the 300 of max(300, ``|S|``) (§III).
    separability : how the Perceptron's run is scored: "updates" (§II: patterns updated
        at least rho M times; 0 when the final hyperplane separates), "final_errors"
        (patterns the final hyperplane misclassifies) or "pocket_errors" (the fewest
        misclassified by the hyperplane in hand at the end of any cycle; Gallant's
        pocket). The last two are readings the paper does not state (module docstring).
    temperature : eq. (5)'s temperature: "mean" (the window's mean ``|dE|``, the ratio of
        the original Alopex) or "printed" (delta/N times the window's sum, as printed).
    random_state : seed or numpy Generator; every random draw uses it.
    class_weight : None, "balanced" or {label: weight}: each row weighs its class's
        weight times its ``sample_weight`` (module docstring, "Row weights").
    """

    _parameter_constraints = {
        "rho": [Interval(Real, 0, 1, closed="right")],
        # rho * M bounds a count of Perceptron updates: beyond MAX_REAL it is no bound
        "M": [Interval(Real, 1, MAX_REAL, closed="both")],
        # Alopex keeps a trace of one value per iteration
        "alopex_iterations": [Interval(Integral, 1, 10_000_000, closed="both")],
        "delta": [Interval(Real, 0, MAX_REAL, closed="right")],
        "temperature0": [Interval(Real, 0, MAX_REAL, closed="right")],
        # a window longer than the most iterations would never update the temperature;
        # a larger int would not fit the compiled Alopex loop's int64
        "temperature_window": [Interval(Integral, 1, 10_000_000, closed="both")],
        "normalize": [StrOptions({"max"}), None],
        "multiclass": [StrOptions({"ovr"}), None],
        "perceptron_iteration": [StrOptions(set(PERCEPTRON_ITERATION_CODES))],
        "perceptron_min_iterations": [Interval(Integral, 1, 1_000_000, closed="both")],
        "separability": [StrOptions(set(SEPARABILITY_CODES))],
        "temperature": [StrOptions({"mean", "printed"})],
    }

    def __init__(self, rho: float = 0.6, M: float = 4, alopex_iterations: int = 500,
                 delta: float = 0.05, temperature0: float = 1000.0,
                 temperature_window: int = 10, normalize: str | None = "max",
                 multiclass: str | None = None, perceptron_iteration: str = "pattern",
                 perceptron_min_iterations: int = PERCEPTRON_MIN_ITERATIONS,
                 separability: str = "updates", temperature: str = "mean",
                 random_state=None, class_weight=None):
        self.rho = rho
        self.M = M
        self.alopex_iterations = alopex_iterations
        self.delta = delta
        self.temperature0 = temperature0
        self.temperature_window = temperature_window
        self.normalize = normalize
        self.multiclass = multiclass
        self.perceptron_iteration = perceptron_iteration
        self.perceptron_min_iterations = perceptron_min_iterations
        self.separability = separability
        self.temperature = temperature
        self.random_state = random_state
        self.class_weight = class_weight

    def check_n_classes(self, n_classes: int) -> None:
        if n_classes > 2 and self.multiclass is None:
            raise binary_only(f"APDT handles 2 classes (got {n_classes}); set multiclass: "
                              "ovr for the one-vs-rest extension")

    def _make_split_finder(self) -> SplitFinder:
        return APDTSplitFinder(
            rho=self.rho, M=self.M, alopex_iterations=self.alopex_iterations,
            delta=self.delta, temperature0=self.temperature0,
            temperature_window=self.temperature_window, normalize=self.normalize,
            perceptron_iteration=self.perceptron_iteration,
            perceptron_min_iterations=self.perceptron_min_iterations,
            separability=self.separability, temperature=self.temperature)


class NodeState(NamedTuple):
    """What a parent's split found out about a child (``Node.state``; None at the root
    reads as ``NodeState()``).

    stage : the one-vs-rest class (0 for two classes).
    separable : None for a node not yet examined (the root, and the children of a
        separating hyperplane); False for a child with nonseparable patterns (grown by
        Alopex); True for a child the Perceptron separates.
    plane : with ``separable`` True, the Perceptron's separating W (the one-step
        look-ahead of step 7), which becomes the child's split.
    """

    stage: int = 0
    separable: bool | None = None
    plane: np.ndarray | None = None


class APDTSplitFinder(SplitFinder):
    """growTree of Table I as a split finder (module docstring); a node's ``state`` is
    a ``NodeState``. Its parameters are the estimator's, under the same names."""

    def __init__(self, *, rho=0.6, M=4, alopex_iterations=500, delta=0.05,
                 temperature0=1000.0, temperature_window=10, normalize="max",
                 perceptron_iteration="pattern",
                 perceptron_min_iterations=PERCEPTRON_MIN_ITERATIONS,
                 separability="updates", temperature="mean"):
        self.rho, self.M = rho, M
        self.alopex_iterations, self.delta = alopex_iterations, delta
        self.temperature0, self.temperature_window = temperature0, temperature_window
        self.normalize = normalize
        self.perceptron_iteration = perceptron_iteration
        self.perceptron_min_iterations = int(perceptron_min_iterations)
        self.separability = separability
        self.temperature = temperature
        self.temperature_scale = _temperature_scale(temperature, delta)

    def _nonseparable(self, Z, s, weights=None):
        """``nonseparable`` under this tree's readings."""
        return nonseparable(Z, s, self.rho, perceptron_iteration=self.perceptron_iteration,
                            perceptron_min_iterations=self.perceptron_min_iterations,
                            separability=self.separability, weights=weights)

    def prepare(self, X, y, n_classes, rng) -> None:
        super().prepare(X, y, n_classes, rng)
        scale = np.ones(X.shape[1])
        if self.normalize == "max":
            scale = np.abs(X).max(axis=0)
            scale[scale == 0] = 1.0
        self.scale = scale
        # Augmented, normalised patterns.
        self.Z = np.hstack([np.ones((X.shape[0], 1)), X / scale])
        self.c = None  # the rows' weights, set at the root of a weighted fit

    def _weights(self, rows):
        """The weights of ``rows`` (None unweighted)."""
        return None if self.c is None else self.c[rows]

    def _labels(self, rows, stage):
        return np.where(self.y[rows] == stage, 1.0, -1.0)

    def _search_node(self, Z, s, c=None):
        """Alopex over W at one node (``c`` the rows' weights, None unweighted); the best
        W that sends rows both ways, or None."""
        w0 = _initial_hyperplane(Z, s, self.rng, c)
        if w0 is None:
            return None
        # Alopex draws one uniform vector per iteration; draw them all at once, then
        # leave the stream where drawing only the ones used (it may stop early) leaves it.
        rng = self.rng
        state = rng.bit_generator.state
        uniforms = rng.random((self.alopex_iterations, Z.shape[1]))
        W, found, used = alopex_split(
            np.ascontiguousarray(Z), np.ascontiguousarray(s), w0, uniforms,
            float(self.delta), float(self.temperature0), int(self.temperature_window),
            self.temperature_scale, float(self.rho), float(self.M),
            self.perceptron_min_iterations,
            PERCEPTRON_ITERATION_CODES[self.perceptron_iteration],
            SEPARABILITY_CODES[self.separability],
            np.ones(Z.shape[0]) if c is None else np.ascontiguousarray(c))
        rng.bit_generator.state = state
        rng.random((used, Z.shape[1]))
        return W if found else None

    def split(self, node: Node) -> Split | None:
        if node.parent_counts is None:  # the root holds every row: rows = arange(n)
            self.c = node.weights
        stage, separable, W = node.state if node.state is not None else NodeState()
        rows = node.rows  # ascending; the builder never asks about a pure node
        if separable is None:
            # One-vs-rest stage: class `stage` against the classes after it; skip
            # stages whose class no longer occurs here (K = 2: stage 0 only).
            while node.counts[stage] == 0:
                stage += 1
            nsp, W = self._nonseparable(self.Z[rows], self._labels(rows, stage),
                                        self._weights(rows))
            separable = nsp == 0
        order = None
        if not separable:
            order = self.rng.permutation(rows.size)
            shown = rows[order]  # the Perceptron's presentation order at this node
            W = self._search_node(self.Z[shown], self._labels(shown, stage),
                                  self._weights(shown))
            if W is None:
                return None  # no split separates these rows: a leaf
        split = Split(threshold=float(-W[0]), weights=W[1:] / self.scale)
        go_left = goes_left(self.X, rows, split)
        if go_left.all() or not go_left.any():
            return None
        if separable:  # the children are examined afresh
            return Split(threshold=split.threshold, weights=split.weights,
                         child_states=(NodeState(stage), NodeState(stage)))
        states = []
        for mask in (go_left[order], ~go_left[order]):
            sub = shown[mask]  # in this node's presentation order
            state = NodeState(stage)
            if np.unique(self.y[sub]).size > 1:
                nsp, child_W = self._nonseparable(self.Z[sub], self._labels(sub, stage),
                                                  self._weights(sub))
                if nsp:
                    state = NodeState(stage, separable=False)
                elif child_W is not None:
                    state = NodeState(stage, True, child_W)  # step 7: the look-ahead
            states.append(state)
        return Split(threshold=split.threshold, weights=split.weights,
                     child_states=tuple(states))
