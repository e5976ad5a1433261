"""The OC1 family: OC1, OC1-AP and OC1-LC (Murthy, Kasif & Salzberg 1994, JAIR 2:1-32).

The specification is the paper together with the defaults of the authors' released C
program (OC1 v3, ``mktree.c``/``perturb.c``), summarised in ``docs/reference-programs.md``.
The HHCART paper (Wickramarachchi et al. 2016, §4.1.1) runs OC1 with the twoing rule,
R = 20 restarts and J = 5 random jumps, which are the defaults here.

Hyperplanes are handled as in the paper (§2.1, §3.1): coefficients ``a_1..a_d`` and a
constant ``a_{d+1}``, ``V_j = sum_i a_i x_ji + a_{d+1}``. The house rule is used
throughout the search, not only at the end: a point goes LEFT iff ``V_j <= 0`` (the C
program sends ``V_j < 0`` left; on the midpoint thresholds both rules give the same
partition). A finished hyperplane is returned as ``w = (a_1..a_d)`` in the original
coordinates and ``t = -a_{d+1}``, so that ``w . x <= t`` is the scored partition; the
finder re-derives the partition from ``(w, t)`` and re-scores it, so the score it
reports always belongs to the split the builder will make.

One compiled kernel serves every one-dimensional search of the family
(:func:`obliq_cli.kernels.line_search.line_search`, shared with CART-LC): given per-point
values ``V`` and derivatives ``D`` it finds the step ``delta`` minimising the impurity
of ``{V + delta * D <= 0}``. Each point with ``D_j != 0`` changes side at ``delta_j =
-V_j / D_j``; the candidates are sorted once and one sweep of the class counts scores
every interval between distinct candidates (this is the C program's ``linear_split``:
sort, sweep, evaluate only at value boundaries, take the midpoint of neighbouring
candidates). Coefficient ``m`` uses ``D = x_m`` (``D = 1`` for the constant), so
``delta_j = -V_j / x_jm`` is the paper's ``U_j - a_m`` (JAIR eq. 3, §3.1.1); a random
jump uses ``D = x_aug . r`` (§3.2); the CART-LC mode uses ``D = -(x_m + gamma)``
(Breiman et al. 1984, §5.2.1). The climbs around it (coefficient cycles, acceptance,
stagnation, jumps, restarts) are compiled loops too, one call per node.

Choices where the sources are silent or disagree:

- The perturbation cycle covers a_1..a_d and then the constant a_{d+1}, as the paper's
  Perturb procedure does (§3.1, m = 1..d+1). The v3 C loop (``for cur_coeff = 1;
  cur_coeff < no_of_coeffs``) actually skips the constant in the sequential order.
- "Equal impurity" means equal up to 1e-12 (floating-point noise); the C program
  treats impurities within ``TOLERANCE`` = 1e-4 as equal. The stagnation counter counts
  equal moves that are applied (the C code also counts those it then drops because no
  coefficient moved by more than 1e-4).
- Ties inside a 1-D sweep are broken uniformly at random with the node's ``rng`` for
  OC1 (the C code flips a coin at each tie while scanning), and toward the smallest
  step for the deterministic OC1-LC.
- The restarts of a node climb in lockstep: each coefficient step (and each round of
  random jumps) visits the restarts still climbing in order. Each restart follows the
  sequential procedure; only the order of the random draws differs from running them
  one after another (per coefficient: ``n + 1`` tie-break draws per climbing restart;
  per jump round: all directions, then the tie-break draws).
- With ``n_threads`` > 1 the climbing restarts of one step move on different threads:
  the step's draws are taken first, in the lockstep order above, and each restart's
  move reads and writes only its own row, so the tree is the same for every thread
  count (the draws never depend on which thread runs a restart or when).
"""

from __future__ import annotations

import functools

import numpy as np

from ..invariances import (
    CLASS_SUM_ROUNDING,
    COEFFICIENT_ORDER,
    EXACT,
    NO_NOMINAL,
    RANDOM_PER_COLUMN,
    WIDER_SIZE_RULE,
    NotKept,
    axis_parallel,
)
from ..kernels import linalg
from ..kernels.line_search import (
    RULE_RANDOM,
    RULE_SMALLEST,
    SCORE_EPS,
    class_totals,
    line_search,
    line_search_scratch,
    partition_score,
)
from ..kernels.oc1 import (
    cart_lc_cycles,
    climb,
    coefficient_draws,
    coefficient_moves,
    jump_draws,
    jump_moves,
    start_values,
)
from ..parameters import MAX_LOOP, N_THREADS, Integral, Interval
from ..registry import register_algorithm
from ..tree.axis_first import best_axis_split, rescored_oblique, strictly_better
from ..tree.builder import Node, Split, SplitFinder
from ..tree.impurity import line_search_code, split_criterion
from .base import TreeClassifier
from .cart import CRITERION, CARTClassifier
from .unweighted import GROWN_UNTIL_PURE

MAX_CART_CYCLES = 100
"""``MAX_CART_CYCLES`` of ``oc1.h``: cap on the coefficient cycles of the CART-LC mode."""

# What a column more does to OC1 (the invariances it declares): the restarts and jumps
# draw a coefficient per column, and a node searches obliquely only above 2 d rows.
OC1_SHAPE = NotKept("its random hyperplanes draw a coefficient per column, and a node "
                    "searches obliquely only above 2 rows per column")
# OC1-LC's climb visits a copied (or combined) column as one more coefficient.
OC1_LC_COPY = NotKept("the coefficient cycle visits the new column as one more "
                      "coefficient, and a node searches obliquely only above 2 rows per "
                      "column")


# --------------------------------------------------------------------------- kernel
def best_step(V, D, y, n_classes, criterion, rng=None):
    """The step ``delta`` minimising the criterion of the partition ``{V + delta D <= 0}``.

    Parameters
    ----------
    V : float array, shape [n]; current value of every point (left iff ``V <= 0``).
    D : float array, shape [n]; derivative of every point's value in ``delta``.
    y : int array, shape [n]; class codes 0..n_classes-1.
    criterion : split score of ``obliq_cli.tree.impurity`` (gini, twoing, entropy).
    rng : numpy Generator or None. Ties in the score are broken uniformly at random
        with ``rng`` (the C program's ``linear_split`` breaks them by a coin flip); with
        None the tied step of smallest ``|delta|`` is taken (deterministic).

    Returns
    -------
    (delta, score) : the score is that of the partition the sweep counted for the
        interval ``delta`` lies in; (0.0, inf) when no point can move (all ``D == 0``).

    The search itself is :func:`obliq_cli.kernels.line_search.line_search`; this is the
    Python entry point of OC1's two tie rules.
    """
    V = np.ascontiguousarray(V, dtype=np.float64)
    D = np.ascontiguousarray(D, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    if rng is None:
        rule, draws = RULE_SMALLEST, np.empty(0)
    else:
        rule, draws = RULE_RANDOM, rng.random(V.size + 1)
    delta, score = line_search(V, D, y, class_totals(y, n_classes),
                               line_search_code(criterion), rule, draws)
    return float(delta), float(score)


# ------------------------------------------------------------------ node helpers
def positive_quadrant_shift(X):
    """Per-column shift that moves the node's points into the positive quadrant.

    OC1's ``normalize_data`` (v3; JAIR p.10: "hill climbing requires positive attribute
    values"): a column whose minimum is negative is translated by minus that minimum,
    other columns are left alone. Returns ``shift`` with ``X - shift >= 0``.
    """
    low = X.min(axis=0)
    return np.where(low < 0, low, 0.0)


def to_original(a, shift):
    """House form ``(w, t)`` of the hyperplane ``a[:d] . (x - shift) + a[d] <= 0``.

    ``unnormalize_hyperplane`` of the C program: the constant becomes
    ``a_{d+1} - sum_i a_i shift_i``; the house threshold is minus the constant.
    """
    w = np.array(a[:-1], dtype=np.float64)
    t = -(a[-1] - linalg.dot(w, shift))
    return w, float(t)


def _augmented(X):
    """``[X, 1]``: the constant a_{d+1} multiplies a column of ones."""
    n, d = X.shape
    Xa = np.empty((n, d + 1))
    Xa[:, :d] = X
    Xa[:, d] = 1.0
    return Xa


THREADED_ROWS = 2000
"""The fewest rows of a node whose restarts climb on several threads; the choice changes
only the speed, never the tree. Measured on 8,000 rows of letter (wall time of the
climbs, one thread over two, idle cores): nodes of 4,000 rows and more 1.41x, 2,000-4,000
1.19x, 1,000-2,000 1.03x at 1.6x the CPU time (a step's handoff to the other thread
costs about 30 us; late in a climb few restarts are left to share)."""


class _NodeSearch:
    """The OC1 hill climbing at one node (JAIR §3), on the (shifted) points ``Xs``.

    All restarts climb in lockstep: every coefficient step and every random jump visits
    the restarts still climbing in order. Each restart follows the sequential procedure
    described in :meth:`climb`; only the order in which random numbers are drawn differs
    from running the restarts one after another.
    """

    def __init__(self, Xs, y, n_classes, criterion, rng, max_stagnant, n_jumps,
                 weights=None):
        self.Xa = _augmented(Xs)
        self.y = np.ascontiguousarray(y, dtype=np.int64)
        self.weights = weights
        self.total = class_totals(self.y, n_classes, weights)
        self.code = line_search_code(criterion)
        self.rng = rng
        self.max_stagnant = max_stagnant
        self.n_jumps = n_jumps

    def climb(self, A, threads=None):
        """Hill-climb every start in ``A`` [k, d+1]; returns (A, scores, perfect, the
        score of the first start).

        Per restart (JAIR §3.1 Perturb in the program's default sequential order, §3.2
        random jumps; acceptance as in v3's ``suggest_perturbation`` and
        ``alter_coefficients``): a cycle perturbs a_1..a_d, then the constant a_{d+1};
        each coefficient takes the best value of its 1-D sweep when that is strictly
        better, or equal while the restart's stagnation counter is <= ``max_stagnant``
        (a hard counter reset by a strict improvement, the program's form of the
        paper's probability e^{-k}); a move counts only if the coefficient changes by
        more than 1e-4. A cycle without an accepted move is followed by up to
        ``n_jumps`` random directions r (uniform in [-1, 1]^{d+1}); the line H + alpha r
        is searched with the same sweep and only a strict improvement is taken, after
        which perturbation resumes. A restart ends when a cycle and its jumps change
        nothing, or when its split is perfect (both sides pure).

        ``threads``: the fit's ``FitThreads`` (the finder's); with more than one thread and a
        node of at least ``THREADED_ROWS`` rows the restarts of each step are spread
        over them (:meth:`_climb_threaded`), with the same result.
        """
        A = np.array(A, dtype=np.float64)
        if (threads is not None and threads.n > 1 and A.shape[0] > 1
                and self.Xa.shape[0] >= THREADED_ROWS):
            return self._climb_threaded(A, threads)
        cur, perfect, first = climb(A, self.Xa, self.y, self.total, self.code,
                                    self.rng, self.max_stagnant, self.n_jumps, self.weights)
        return A, cur, perfect, first

    def _climb_threaded(self, A, threads):
        """``kernels.oc1.climb`` with each step's restarts over ``threads``: the same
        steps, the same draws in the same order (``coefficient_draws``, ``jump_draws``)
        taken before the step's moves, the restart at place ``i`` among the step's
        restarts moving on thread ``i % n``."""
        k, n_coef = A.shape
        n = self.Xa.shape[0]
        XaT = np.ascontiguousarray(self.Xa.T)
        y, total, code, weights, rng = self.y, self.total, self.code, self.weights, self.rng
        V = np.empty((k, n))
        cur = np.empty(k)
        perfect = np.zeros(k, dtype=np.bool_)
        start_values(A, XaT, y, total, code, V, cur, perfect, weights)
        first = cur[0]
        stagnant = np.zeros(k, dtype=np.int64)
        improved = np.zeros(k, dtype=np.bool_)
        need = np.zeros(k, dtype=np.bool_)
        running = ~perfect
        n_slots = min(threads.n, k)
        places = -(-k // n_slots)
        draws = np.empty((n_slots, places, n + 1))  # a step's draws, dealt to the threads
        directions = np.empty((n_slots, places, n_coef))
        # each thread's scratch: line search work arrays, a jump's values, a trial
        scratch = [(*line_search_scratch(n, total.size), np.empty(n), np.empty(n),
                    np.empty(n_coef)) for _ in range(n_slots)]

        def coefficient_step(slot, m, rows):
            fwork, iwork, _, V_new, trial = scratch[slot]
            coefficient_moves(rows, slot, n_slots, m, A, V, XaT, y, total, code,
                              draws[slot], cur, perfect, stagnant, improved,
                              self.max_stagnant, fwork, iwork, V_new, trial, weights)

        def jump_step(slot, rows):
            fwork, iwork, jump, V_new, trial = scratch[slot]
            jump_moves(rows, slot, n_slots, directions[slot], A, V, XaT, y, total, code,
                       draws[slot], cur, perfect, stagnant, improved, need, fwork, iwork,
                       jump, V_new, trial, weights)

        # numba compiles (or loads) a kernel on its first call in a process; do it on
        # this thread, whose lock-holding time the fit's stopwatch takes off its CPU time
        coefficient_step(0, 0, np.empty(0, dtype=np.int64))
        jump_step(0, np.empty(0, dtype=np.int64))
        while running.any():
            improved[:] = False
            for m in range(n_coef):
                rows = np.flatnonzero(running & ~perfect)
                if rows.size == 0:
                    continue
                coefficient_draws(rng, rows.size, draws)
                threads.map(functools.partial(coefficient_step, m=m, rows=rows),
                            range(min(n_slots, rows.size)))
            np.logical_and(running & ~improved, ~perfect, out=need)
            for _ in range(self.n_jumps):
                rows = np.flatnonzero(need)
                if rows.size == 0:
                    break
                jump_draws(rng, rows.size, directions, draws)
                threads.map(functools.partial(jump_step, rows=rows),
                            range(min(n_slots, rows.size)))
            running = improved & ~perfect
        return A, cur, perfect, first


def _present_classes(y, n_classes):
    """Node-local class codes: absent classes add nothing to any criterion, so the
    search runs on the classes present at the node (cheaper for many-class data)."""
    present = np.bincount(y, minlength=n_classes) > 0
    return (np.cumsum(present) - 1)[y], int(present.sum())


def _axis_start(finder, node, exempt_root):
    """The common start of OC1 and OC1-LC at a node: ``(axis_split, X, y_loc, k)`` with
    the node's rows ``X`` and node-local class codes ``y_loc`` of ``k`` classes when an
    oblique search should follow, else ``(axis_split, None, None, None)``: no search
    when the axis-parallel split is perfect, or the node has at most 2 d rows
    (TOO_SMALL_FOR_OBLIQUE_SPLIT, JAIR §3; v3), unless it is the root and
    ``exempt_root`` (the program's CART-LC mode). With row weights (``node.weights``)
    the split's counts are weighted sums and the size rule counts weight, as the
    program would count that many copies of the rows."""
    X, y = finder.node_data(node)
    w = node.weights
    axis_split = best_axis_split(X, y, finder.n_classes, finder.criterion, weights=w)
    none = (axis_split, None, None, None)
    if axis_split is None:
        return none
    d = X.shape[1]
    if node.total <= 2 * d and not (exempt_root and node.is_root):
        return none
    y_loc, k = _present_classes(y, finder.n_classes)
    # x <= t exactly when x - t <= 0 (a difference rounds to zero only when x == t)
    if partition_score(X[:, axis_split.feature] - axis_split.threshold, y_loc,
                       class_totals(y_loc, k, w), 0, w)[1]:
        return none  # a perfect axis-parallel split is kept
    return axis_split, X, y_loc, k


def _oblique_or_axis(X, y, n_classes, criterion, axis, w, t, row_weights=None):
    """The oblique split ``w . x <= t`` if, re-scored on the partition the builder
    makes (its counts weighted by ``row_weights``), it is better than ``axis`` by more
    than SCORE_EPS (``ap_bias`` = 1: oblique only when strictly better, v3
    build_subtree)."""
    return strictly_better(axis, rescored_oblique(X, y, n_classes, criterion, w, t,
                                                  row_weights), SCORE_EPS)


# ------------------------------------------------------------------------- OC1
@register_algorithm(
    "oc1",
    "OC1 (Murthy, Kasif & Salzberg 1994): axis-parallel split, then hill climbing with "
    "restarts and random jumps; twoing; prune with pruner 'cc'",
    check_params={"n_restarts": 3},  # scikit-learn's checks fit many small trees
    invariances={
        "rows": EXACT, "classes2": EXACT, "classes3": CLASS_SUM_ROUNDING.unshown(),
        "columns": RANDOM_PER_COLUMN, "constant": OC1_SHAPE, "duplicate": OC1_SHAPE,
        "combination": OC1_SHAPE,
        "scale": NotKept("the shift into the positive quadrant, the random hyperplanes in "
                         "[-1, 1] and the 1e-4 that makes a move count are in the data's "
                         "units"),
        "nominal": NO_NOMINAL, "levels": NO_NOMINAL},
    expected_failed_checks=GROWN_UNTIL_PURE,
)
class OC1Classifier(TreeClassifier):
    """OC1 with the defaults of the released program v3 and of the HHCART paper.

    At each node (JAIR §2-3; the v3 program): the best axis-parallel split; if the node
    has more than ``2 d`` rows and that split is not perfect, the points are shifted into
    the positive quadrant (``normalize``), ``n_restarts`` hill climbs are run (the first
    from the axis-parallel hyperplane, the others from random hyperplanes with
    coefficients uniform in [-1, 1]), the best result (ties by a coin flip) is mapped
    back to the original coordinates and replaces the axis-parallel split only if it is
    strictly better.

    Parameters
    ----------
    criterion : 'twoing' (default, the program's and the HHCART paper's), 'gini',
        'entropy'.
    n_restarts : hill climbs per node, R (program default 20). Every climb counts, the
        first (from the axis-parallel split) included, as the program's ``-r``/``-i``
        counts them (it refuses fewer than one): the JAIR paper's Table 2 "R = 0", no
        random restart, is ``n_restarts=1``, and its R = 20 is ``n_restarts=20``
        (config ``oc1_jair``).
    n_jumps : random jumps tried at each local minimum, J (program default 5).
    max_stagnant : equal-impurity moves accepted per restart before only strict
        improvements count (``MAX_NO_OF_STAGNANT_PERTURBATIONS`` = 10).
    normalize : shift the node's points into the positive quadrant before the search
        (the program's default; ``-N`` turns it off).
    min_samples_split, max_depth, max_misclassification_rate : stopping rules.
    random_state : seed or Generator for the restarts, jumps and tie-breaks.
    class_weight : None, "balanced" or {label: weight}: each row weighs its class's
        weight (times its ``sample_weight``) in every count of the search and the leaves
        (``base.fit_weights``).
    n_threads : threads the restarts of a node's climb are spread over (None: what the
        run leaves free, ``obliq_cli.fit_threads``). The tree is the same for every
        count: each step's random draws are taken before its restarts move, in the
        order of the one-thread climb, and a restart's move touches only its own state.

    Row weights: a row of weight 3 counts as three copies of it in every score, the
    axis-parallel start and the size rule; the random draws stay one per row and
    interval of the node's own rows, so the climb's path differs from that of copied
    rows (the line search draws ``n + 1`` tie-breaks for ``n`` rows).
    """

    _parameter_constraints = {
        "criterion": CRITERION,
        # the restarts of a node are climbed together (arrays of restarts x rows)
        "n_restarts": [Interval(Integral, 1, 1000, closed="both")],
        # per local minimum / per restart, in the compiled climb (MAX_LOOP: 1e9 jumps
        # never ended, and an int beyond int64 was a numba TypingError in every task)
        "n_jumps": [Interval(Integral, 0, MAX_LOOP, closed="both")],
        "max_stagnant": [Interval(Integral, 0, MAX_LOOP, closed="both")],
        "normalize": ["boolean"],
        "n_threads": N_THREADS,
    }

    def __init__(
        self,
        criterion: str = "twoing",
        n_restarts: int = 20,
        n_jumps: int = 5,
        max_stagnant: int = 10,
        normalize: bool = True,
        min_samples_split: int = 2,
        max_depth: int | None = None,
        max_misclassification_rate: float = 0.0,
        random_state=None,
        class_weight=None,
        n_threads: int | None = None,
    ):
        self.criterion = criterion
        self.n_restarts = n_restarts
        self.n_jumps = n_jumps
        self.max_stagnant = max_stagnant
        self.normalize = normalize
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.max_misclassification_rate = max_misclassification_rate
        self.random_state = random_state
        self.class_weight = class_weight
        self.n_threads = n_threads

    def _make_split_finder(self) -> SplitFinder:
        return OC1SplitFinder(criterion=split_criterion(self.criterion),
                              n_restarts=int(self.n_restarts), n_jumps=int(self.n_jumps),
                              max_stagnant=int(self.max_stagnant),
                              normalize=bool(self.normalize))


class OC1SplitFinder(SplitFinder):
    """OC1's search at one node (``OC1Classifier``'s docstring)."""

    def __init__(self, criterion, n_restarts, n_jumps, max_stagnant, normalize):
        self.criterion = criterion
        self.n_restarts, self.n_jumps = n_restarts, n_jumps
        self.max_stagnant, self.normalize = max_stagnant, normalize

    def split(self, node: Node) -> Split | None:
        criterion, rng = self.criterion, self.rng
        n_restarts = self.n_restarts
        axis_split, X, y_loc, k = _axis_start(self, node, exempt_root=False)
        if X is None:
            return axis_split
        d = X.shape[1]
        shift = positive_quadrant_shift(X) if self.normalize else np.zeros(d)
        search = _NodeSearch(X - shift, y_loc, k, criterion, rng, self.max_stagnant,
                             self.n_jumps, node.weights)
        # Restart 1 from the axis-parallel hyperplane (in shifted coordinates),
        # restarts 2..R from random hyperplanes with coefficients in [-1, 1].
        starts = np.empty((n_restarts, d + 1))
        starts[0] = 0.0
        starts[0, axis_split.feature] = 1.0
        starts[0, d] = -(axis_split.threshold - shift[axis_split.feature])
        starts[1:] = rng.uniform(-1.0, 1.0, size=(n_restarts - 1, d + 1))
        ends, scores, perfect, least = search.climb(starts, self.threads)
        # oblique_split of v3: the best so far starts as the axis-parallel
        # hyperplane (score ``least``); a restart's result replaces it when better, or
        # equal and a
        # coin flip says so; once the best is perfect later restarts do not count.
        best_a = starts[0]
        for r in range(n_restarts):
            if scores[r] < least - SCORE_EPS or (
                    scores[r] <= least + SCORE_EPS and rng.random() > 0.5):
                best_a, least = ends[r], min(scores[r], least)
                if perfect[r]:
                    break
        w, t = to_original(best_a, shift)
        return _oblique_or_axis(X, y_loc, k, criterion, axis_split, w, t, node.weights)


# ---------------------------------------------------------------------- OC1-AP
@register_algorithm(
    "oc1-ap",
    "OC1's axis-parallel mode (OC1-AP, Murthy et al. 1994, program option -a); twoing; "
    "prune with pruner 'cc'",
    invariances=axis_parallel(classes3=CLASS_SUM_ROUNDING),
    expected_failed_checks=GROWN_UNTIL_PURE,
)
class OC1APClassifier(CARTClassifier):
    """OC1-AP: only the axis-parallel step of OC1 (``axis_parallel_split``).

    Every feature's best threshold (midway between distinct values) is found by one sort
    and sweep and the best feature is kept: CART-AP's exhaustive search (Breiman et al.
    1984, §2.4), here with the program's default twoing rule.

    Parameters
    ----------
    criterion : 'twoing' (default), 'gini' or 'entropy'.
    min_samples_split, max_depth, max_misclassification_rate : stopping rules.
    random_state : unused (the search is deterministic); kept for a uniform API.
    class_weight : None, "balanced" or {label: weight}: each row weighs its class's
        weight (times its ``sample_weight``) in every count of the search and the leaves
        (``base.fit_weights``).
    """

    _allow_nan = False  # OC1's program has no rule for missing values; CART-AP's is not it

    def __init__(
        self,
        criterion: str = "twoing",
        min_samples_split: int = 2,
        max_depth: int | None = None,
        max_misclassification_rate: float = 0.0,
        random_state=None,
        class_weight=None,
    ):
        super().__init__(criterion, min_samples_split, max_depth,
                         max_misclassification_rate, random_state)
        self.class_weight = class_weight


# ---------------------------------------------------------------------- OC1-LC
def cart_lc_climb(X, y, n_classes, criterion, a, max_cycles=MAX_CART_CYCLES, weights=None):
    """The OC1 program's CART-LC hill climbing (``cart_split``/``cart_perturb``).

    From the hyperplane ``a`` (left iff ``a[:d] . x + a[d] <= 0``), each cycle perturbs
    a_1..a_d in turn: for every gamma in {-0.25, 0, 0.25} the exact 1-D search over
    ``lambda`` of ``V - lambda (x_m + gamma) <= 0`` (the program's ``linear_split`` on
    ``V_j / (x_jm + gamma)``), the best gamma (the first in that order on ties) giving
    ``a_m -= lambda``, ``a_{d+1} -= lambda gamma`` (Breiman et al. 1984, §5.2.1); then a
    separate search of the constant (``cart_perturb_constant``). A move is applied if
    some coefficient changes by more than 1e-4 and it is not worse (the program applies
    the best 1-D value unconditionally; it can only be worse when a point lies exactly
    on the hyperplane, which this guard excludes). Cycles stop when the split is
    perfect, when a cycle after the first improves by less than 1e-4, or after
    ``max_cycles`` cycles. No feature normalisation, no backward elimination
    (version3.whatsnew). Ties inside a 1-D search go to the smallest step (the program
    flips a coin; deterministic here). ``weights``: None or the rows' weights, which
    every count of the searches sums. Returns (a, score).
    """
    Xa = _augmented(np.asarray(X, dtype=np.float64))
    y = np.ascontiguousarray(y, dtype=np.int64)
    a = np.array(a, dtype=np.float64)
    cur = cart_lc_cycles(Xa, y, class_totals(y, n_classes, weights),
                         line_search_code(criterion), a, int(max_cycles), weights)
    return a, cur


@register_algorithm(
    "oc1-lc",
    "OC1's CART-LC mode (OC1-LC, program option -K): linear combinations without "
    "backward elimination or normalisation, NOT Breiman's CART-LC (that is 'cart-lc'); "
    "prune with pruner 'cc'",
    invariances=axis_parallel(
        columns=COEFFICIENT_ORDER,
        constant=WIDER_SIZE_RULE, duplicate=OC1_LC_COPY, combination=OC1_LC_COPY,
        scale=NotKept("without the normalisation of Breiman's CART-LC, the gammas -0.25, "
                      "0, 0.25 and the 1e-4 that makes a move count are in the data's "
                      "units"),
        classes3=CLASS_SUM_ROUNDING),
    expected_failed_checks=GROWN_UNTIL_PURE,
)
class OC1LCClassifier(TreeClassifier):
    """OC1-LC: the OC1 program's imitation of CART's linear combinations (``-K``).

    At each node: the best axis-parallel split; if it is not perfect and the node has
    more than ``2 d`` rows or is the root (the program exempts the root from the size
    rule), :func:`cart_lc_climb` starts from it. The result replaces the axis-parallel
    split only if strictly better (so an axis-parallel split stays labelled
    axis-parallel when nothing was gained).
    This differs from Breiman's CART-LC (``cart-lc``): no per-node normalisation by
    median and interquartile range and no backward feature elimination (OC1
    version3.whatsnew; HHCART paper §4.1).

    Parameters
    ----------
    criterion : 'twoing' (default), 'gini' or 'entropy'.
    max_cycles : cap on coefficient cycles (``MAX_CART_CYCLES`` = 100).
    min_samples_split, max_depth, max_misclassification_rate : stopping rules.
    random_state : unused (the search is deterministic); kept for a uniform API.
    class_weight : None, "balanced" or {label: weight}: each row weighs its class's
        weight (times its ``sample_weight``) in every count of the search and the leaves
        (``base.fit_weights``).
    """

    _parameter_constraints = {
        "criterion": CRITERION,
        "max_cycles": [Interval(Integral, 1, 100_000, closed="both")],
    }

    def __init__(
        self,
        criterion: str = "twoing",
        max_cycles: int = MAX_CART_CYCLES,
        min_samples_split: int = 2,
        max_depth: int | None = None,
        max_misclassification_rate: float = 0.0,
        random_state=None,
        class_weight=None,
    ):
        self.criterion = criterion
        self.max_cycles = max_cycles
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.max_misclassification_rate = max_misclassification_rate
        self.random_state = random_state
        self.class_weight = class_weight

    def _make_split_finder(self) -> SplitFinder:
        return OC1LCSplitFinder(criterion=split_criterion(self.criterion),
                                max_cycles=int(self.max_cycles))


class OC1LCSplitFinder(SplitFinder):
    """OC1-LC's search at one node (``OC1LCClassifier``'s docstring)."""

    def __init__(self, criterion, max_cycles):
        self.criterion = criterion
        self.max_cycles = max_cycles

    def split(self, node: Node) -> Split | None:
        criterion = self.criterion
        axis_split, X, y_loc, k = _axis_start(self, node, exempt_root=True)
        if X is None:
            return axis_split
        d = X.shape[1]
        start = np.zeros(d + 1)
        start[axis_split.feature] = 1.0
        start[d] = -axis_split.threshold
        a, _ = cart_lc_climb(X, y_loc, k, criterion, start, self.max_cycles, node.weights)
        w, t = to_original(a, np.zeros(d))
        return _oblique_or_axis(X, y_loc, k, criterion, axis_split, w, t, node.weights)
