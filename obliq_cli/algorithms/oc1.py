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

One vectorised kernel serves every one-dimensional search of the family
(:func:`best_step`): given per-point values ``V`` and derivatives ``D`` it finds the step
``delta`` minimising the impurity of ``{V + delta * D <= 0}``. Each point with
``D_j != 0`` changes side at ``delta_j = -V_j / D_j``; the candidates are sorted once and
the class counts of every interval between distinct candidates come from one cumulative
sum (this is the C program's ``linear_split``: sort, sweep, evaluate only at value
boundaries, take the midpoint of neighbouring candidates). Coefficient ``m`` uses
``D = x_m`` (``D = 1`` for the constant), so ``delta_j = -V_j / x_jm`` is the paper's
``U_j - a_m`` (JAIR eq. 3, §3.1.1); a random jump uses ``D = x_aug . r`` (§3.2); the
CART-LC mode uses ``D = -(x_m + gamma)`` (Breiman et al. 1984, §5.2.1).

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
- The restarts of a node climb in lockstep (one batched kernel call per coefficient
  over all restarts still climbing); each follows the sequential procedure, only the
  order of the random draws differs from running them one after another.
"""

from __future__ import annotations

import numpy as np

from ..errors import ObliqError
from ..registry import register_algorithm
from ..tree.axis_search import find_best_axis_split
from ..tree.builder import Split
from ..tree.impurity import gini_split, split_criterion, twoing_split
from .base import TreeClassifier
from .cart import CARTClassifier, check_criterion

TOLERANCE = 1e-4
"""``TOLERANCE`` of ``oc1.h``: a coefficient change smaller than this is no change
(``alter_coefficients``) and the CART-LC cycles stop on an improvement below it."""

SCORE_EPS = 1e-12
"""Two criterion values closer than this are equal (floating-point noise only)."""

MAX_CART_CYCLES = 100
"""``MAX_CART_CYCLES`` of ``oc1.h``: cap on the coefficient cycles of the CART-LC mode."""

CART_GAMMAS = (-0.25, 0.0, 0.25)
"""The gamma values tried per coefficient in the CART-LC mode (``cart_perturb``;
Breiman et al. 1984, §5.2.1)."""


# --------------------------------------------------------------------------- kernel
def _candidate_scores(criterion, n_left, left0, left, total):
    """Scores [k, m] of the candidates from the left counts (see ``best_steps``).

    With two classes only ``n_left`` and the class-0 count ``left0`` are accumulated;
    otherwise ``left`` [k, m, K] holds all class counts. Twoing (minus
    ``p_L p_R / 4 (sum_j |p(j|L) - p(j|R)|)^2``) and gini (``(n - sum_j L_j^2 / n_L -
    sum_j R_j^2 / n_R) / n``) are evaluated in closed form on these arrays (Breiman et
    al. 1984, §4.3-4.4; the formulas of ``obliq_cli.tree.impurity``); other criteria go
    through the general function. Equal to ``criterion(left, right)`` up to rounding;
    callers re-score the chosen partition with ``criterion`` itself.
    """
    n = float(total.sum())
    n_right = n - n_left
    safe_l = np.maximum(n_left, 1.0)
    safe_r = np.maximum(n_right, 1.0)
    if left is None:  # two classes
        right0 = total[0] - left0
        if criterion is twoing_split:
            gap = left0 / safe_l - right0 / safe_r  # |p(0|L)-p(0|R)| = |p(1|L)-p(1|R)|
            return -(n_left * n_right / (n * n)) * gap * gap
        if criterion is gini_split:
            left1 = n_left - left0
            right1 = n_right - right0
            purity = ((left0 * left0 + left1 * left1) / safe_l
                      + (right0 * right0 + right1 * right1) / safe_r)
            return (n - purity) / n
        left = np.stack([left0, n_left - left0], axis=-1)
    right = total - left
    if criterion is twoing_split:
        spread = np.abs(left / safe_l[..., None] - right / safe_r[..., None]).sum(axis=-1)
        return -(n_left * n_right / (4.0 * n * n)) * spread * spread
    if criterion is gini_split:
        purity = (np.einsum("...j,...j->...", left, left) / safe_l
                  + np.einsum("...j,...j->...", right, right) / safe_r)
        return (n - purity) / n
    k, m, n_classes = left.shape
    return criterion(left.reshape(-1, n_classes),
                     right.reshape(-1, n_classes)).reshape(k, m)


def best_steps(V, D, y, n_classes, criterion, rng=None):
    """Row-wise :func:`best_step` for ``k`` hyperplanes at once.

    ``V`` has shape [k, n] (one row per hyperplane, e.g. per restart); ``D`` has shape
    [n] (shared, e.g. the column of coefficient m) or [k, n]. Returns ``(delta, score)``,
    two arrays of shape [k]; a row in which no point can move gets (0.0, inf).

    Each row is one sort-and-sweep: points with ``D = 0`` get the candidate +inf so they
    sort last and never change side; the count changes (-1 for ``D > 0`` points leaving
    the left side, +1 for ``D < 0`` points joining it) are accumulated along the sorted
    candidates, and only positions at the end of a run of equal candidates are scored.
    """
    V = np.atleast_2d(np.asarray(V, dtype=np.float64))
    k, n = V.shape
    D = np.asarray(D, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    moving = D != 0
    cand = np.where(moving, -V / np.where(moving, D, 1.0), np.inf)
    order = np.argsort(cand, axis=1)
    rows = np.arange(k)
    c_sorted = cand[rows[:, None], order]
    up = D > 0
    sign = -np.sign(D)  # -1: leaves the left side as delta grows; +1: joins it
    # A shared D (shape [n]) is indexed by the sort order directly.
    sign_sorted = sign[order] if D.ndim == 1 else sign[rows[:, None], order]
    y_sorted = y[order]
    total = np.bincount(y, minlength=n_classes).astype(np.float64)
    # delta -> -inf: points with D > 0 are left, with D < 0 right; D = 0 stay where V says.
    start_left = up | (~moving & (V <= 0))
    n_left = np.empty((k, n + 1))
    n_left[:, 0] = start_left.sum(axis=1)
    np.cumsum(sign_sorted, axis=1, out=n_left[:, 1:])
    n_left[:, 1:] += n_left[:, :1]
    if n_classes == 2 and criterion in (twoing_split, gini_split):
        left0 = np.empty((k, n + 1))
        left0[:, 0] = (start_left & (y == 0)).sum(axis=1)
        np.cumsum(np.where(y_sorted == 0, sign_sorted, 0.0), axis=1, out=left0[:, 1:])
        left0[:, 1:] += left0[:, :1]
        scores = _candidate_scores(criterion, n_left, left0, None, total)
    else:
        onehot = np.eye(n_classes)[y]
        change = np.zeros((k, n, n_classes))
        change[np.arange(k)[:, None], np.arange(n)[None, :], y_sorted] = sign_sorted
        left = np.empty((k, n + 1, n_classes))
        left[:, 0] = start_left.astype(np.float64) @ onehot
        np.cumsum(change, axis=1, out=left[:, 1:])
        left[:, 1:] += left[:, :1]
        scores = _candidate_scores(criterion, n_left, None, left, total)
    # Position i + 1 is the interval just after sorted candidate i; score only the
    # ends of runs of equal candidates (and nothing after the +inf of unmoving points).
    finite = np.isfinite(c_sorted)
    valid = np.empty((k, n + 1), dtype=bool)
    valid[:, 0] = finite[:, 0]
    valid[:, 1:n] = finite[:, :-1] & (c_sorted[:, 1:] != c_sorted[:, :-1])
    valid[:, n] = finite[:, -1]
    scores = np.where(valid, scores, np.inf)
    best = scores.min(axis=1)
    # Steps: midpoints of neighbouring candidates; half the mean gap beyond either end
    # (a scale-free choice where the paper is silent).
    n_fin = finite.sum(axis=1)
    first = np.where(n_fin > 0, c_sorted[:, 0], 0.0)
    last = np.where(n_fin > 0, c_sorted[rows, np.maximum(n_fin - 1, 0)], 0.0)
    spread = last - first
    margin = np.where(spread > 0, 0.5 * spread / np.maximum(n_fin - 1, 1), 0.5)
    margin = np.maximum(margin, 1e-9 * np.maximum(1.0, np.maximum(abs(first), abs(last))))

    def step_at(r, pos):
        inner = np.minimum(np.maximum(pos, 1), max(n - 1, 1))
        mid = c_sorted[r, inner - 1] / 2.0 + c_sorted[r, np.minimum(inner, n - 1)] / 2.0
        return np.where(pos == 0, first[r] - margin[r],
                        np.where(pos >= n_fin[r], last[r] + margin[r], mid))

    tied = scores <= (best + SCORE_EPS)[:, None]
    if rng is not None:
        pick = np.argmax(np.where(tied, rng.random((k, n + 1)), -1.0), axis=1)
    else:
        r_idx, p_idx = np.nonzero(tied)
        size = np.abs(step_at(r_idx, p_idx))
        pick = np.empty(k, dtype=np.int64)
        # Smallest |step| per row: sort by (row, |step|) and keep each row's first.
        o = np.lexsort((size, r_idx))
        first_of_row = np.r_[True, r_idx[o][1:] != r_idx[o][:-1]]
        pick[r_idx[o][first_of_row]] = p_idx[o][first_of_row]
    delta = np.where(np.isfinite(best), step_at(rows, pick), 0.0)
    return delta, scores[rows, pick]


def best_step(V, D, y, n_classes, criterion, rng=None):
    """The step ``delta`` minimising the criterion of the partition ``{V + delta D <= 0}``.

    Parameters
    ----------
    V : float array, shape [n]; current value of every point (left iff ``V <= 0``).
    D : float array, shape [n]; derivative of every point's value in ``delta``.
    y : int array, shape [n]; class codes 0..n_classes-1.
    criterion : vectorised split score (``obliq_cli.tree.impurity``), lower is better.
    rng : numpy Generator or None. Ties in the score are broken uniformly at random
        with ``rng`` (the C program's ``linear_split`` breaks them by a coin flip); with
        None the tied step of smallest ``|delta|`` is taken (deterministic).

    Returns
    -------
    (delta, score) : the score is that of the partition the sweep counted for the
        interval ``delta`` lies in; (0.0, inf) when no point can move (all ``D == 0``).

    Points with ``D_j > 0`` are left for ``delta <= delta_j`` and leave the left side as
    ``delta`` grows past ``delta_j = -V_j / D_j``; points with ``D_j < 0`` join it there;
    points with ``D_j = 0`` never move. One sort of the candidates and one cumulative sum
    of the per-point count changes give the class counts of every open interval between
    distinct candidates and of the two unbounded ends; the step returned is the midpoint
    of the chosen interval (at an end: half the mean candidate gap beyond the extreme
    candidate). Partitions that exist only exactly at a candidate shared by points of
    both signs of ``D`` are not considered (``linear_split`` never picks them either).
    """
    delta, score = best_steps(np.asarray(V, dtype=np.float64)[None, :], D, y, n_classes,
                              criterion, rng)
    return float(delta[0]), float(score[0])


# ------------------------------------------------------------------ node helpers
def _partition_scores(left_mask, onehot, criterion):
    """(scores [k], perfect [k]) of the partitions ``left_mask`` [k, n]; perfect means
    both sides pure (the program's ``stop_splitting`` gives such a split impurity 0)."""
    lc = left_mask.astype(np.float64) @ onehot
    rc = onehot.sum(axis=0) - lc
    scores = criterion(lc, rc)
    perfect = (lc.sum(axis=1) == lc.max(axis=1)) & (rc.sum(axis=1) == rc.max(axis=1))
    return scores, perfect


def _score_partition(left_mask, y, n_classes, criterion):
    """(score, perfect) of one partition ``left_mask`` [n]."""
    scores, perfect = _partition_scores(left_mask[None, :], np.eye(n_classes)[y], criterion)
    return float(scores[0]), bool(perfect[0])


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
    t = -(a[-1] - w @ shift)
    return w, float(t)


def _augmented(X):
    """``[X, 1]``: the constant a_{d+1} multiplies a column of ones."""
    n, d = X.shape
    Xa = np.empty((n, d + 1))
    Xa[:, :d] = X
    Xa[:, d] = 1.0
    return Xa


class _NodeSearch:
    """The OC1 hill climbing at one node (JAIR §3), on the (shifted) points ``Xs``.

    All restarts climb in lockstep: every coefficient step and every random jump is one
    batched kernel call over the restarts still climbing. Each restart follows the
    sequential procedure described in :meth:`climb`; only the order in which random
    numbers are drawn differs from running the restarts one after another.
    """

    def __init__(self, Xs, y, n_classes, criterion, rng, max_stagnant, n_jumps):
        self.Xa = _augmented(Xs)
        self.XaT = np.ascontiguousarray(self.Xa.T)  # row m = derivative for a_m
        self.y = y
        self.K = n_classes
        self.onehot = np.eye(n_classes)[y]
        self.criterion = criterion
        self.rng = rng
        self.max_stagnant = max_stagnant
        self.n_jumps = n_jumps

    def evaluate(self, A):
        """(V [k, n], scores [k], perfect [k]) of hyperplanes ``A`` [k, d+1]; a point is
        left iff V <= 0 (the house rule)."""
        V = A @ self.XaT
        scores, perfect = _partition_scores(V <= 0, self.onehot, self.criterion)
        return V, scores, perfect

    def climb(self, A):
        """Hill-climb every start in ``A`` [k, d+1]; returns (A, scores, perfect).

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
        """
        A = np.array(A, dtype=np.float64)
        k, n_coef = A.shape
        V, cur, perfect = self.evaluate(A)
        stagnant = np.zeros(k, dtype=np.int64)
        running = ~perfect
        while running.any():
            improved = np.zeros(k, dtype=bool)
            for m in range(n_coef):
                rows = np.flatnonzero(running & ~perfect)
                if rows.size == 0:
                    break
                delta, _ = best_steps(V[rows], self.XaT[m], self.y, self.K,
                                      self.criterion, self.rng)
                moves = np.abs(delta) > TOLERANCE
                rows, delta = rows[moves], delta[moves]
                if rows.size == 0:
                    continue
                trial = A[rows]
                trial[:, m] += delta
                V_new, s, p = self.evaluate(trial)
                better = s < cur[rows] - SCORE_EPS
                equal = (~better & (s <= cur[rows] + SCORE_EPS)
                         & (stagnant[rows] <= self.max_stagnant))
                stagnant[rows[better]] = 0
                stagnant[rows[equal]] += 1
                take = better | equal
                r = rows[take]
                A[r], V[r], perfect[r] = trial[take], V_new[take], p[take]
                cur[r] = np.minimum(cur[r], s[take])
                improved[r] = True
            need = running & ~improved & ~perfect
            for _ in range(self.n_jumps):
                rows = np.flatnonzero(need)
                if rows.size == 0:
                    break
                direction = self.rng.uniform(-1.0, 1.0, size=(rows.size, n_coef))
                alpha, _ = best_steps(V[rows], direction @ self.XaT, self.y, self.K,
                                      self.criterion, self.rng)
                step = alpha[:, None] * direction
                moves = np.abs(step).max(axis=1) > TOLERANCE
                rows, step = rows[moves], step[moves]
                if rows.size == 0:
                    continue
                trial = A[rows] + step
                V_new, s, p = self.evaluate(trial)
                take = s < cur[rows] - SCORE_EPS
                r = rows[take]
                A[r], V[r], cur[r], perfect[r] = trial[take], V_new[take], s[take], p[take]
                stagnant[r] = 0
                improved[r] = True
                need[r] = False
            running = improved & ~perfect
        return A, cur, perfect


def _present_classes(y, n_classes):
    """Node-local class codes: absent classes add nothing to any criterion, so the
    search runs on the classes present at the node (cheaper for many-class data)."""
    present = np.bincount(y, minlength=n_classes) > 0
    return (np.cumsum(present) - 1)[y], int(present.sum())


def _check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ObliqError(f"{name} must be an integer >= {low} (got {value!r})")


def _oblique_or_axis(X, y, n_classes, criterion, axis, w, t):
    """The oblique split ``w . x <= t`` if it is strictly better than ``axis``.

    The partition is re-derived from ``(w, t)`` on the node's original rows with the
    builder's rule and scored again, so the split's score is that of the partition the
    builder makes (``ap_bias`` = 1: oblique only when strictly better, v3 build_subtree).
    """
    axis_split = Split(threshold=axis.threshold, feature=axis.feature, score=axis.score)
    go_left = X @ w <= t
    if not 0 < np.count_nonzero(go_left) < X.shape[0]:
        return axis_split
    score = _score_partition(go_left, y, n_classes, criterion)[0]
    if score < axis.score - SCORE_EPS:
        return Split(threshold=t, weights=w, score=score)
    return axis_split


# ------------------------------------------------------------------------- OC1
@register_algorithm(
    "oc1",
    "OC1 (Murthy, Kasif & Salzberg 1994): axis-parallel split, then hill climbing with "
    "restarts and random jumps; twoing; prune with pruner 'cc'",
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
    n_restarts : hill climbs per node, R (program default 20).
    n_jumps : random jumps tried at each local minimum, J (program default 5).
    max_stagnant : equal-impurity moves accepted per restart before only strict
        improvements count (``MAX_NO_OF_STAGNANT_PERTURBATIONS`` = 10).
    normalize : shift the node's points into the positive quadrant before the search
        (the program's default; ``-N`` turns it off).
    min_samples_split, max_depth, max_misclassification_rate : stopping rules.
    random_state : seed or Generator for the restarts, jumps and tie-breaks.
    """

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

    def validate_params(self) -> None:
        super().validate_params()
        check_criterion(self.criterion)
        _check_int("n_restarts", self.n_restarts, 1)
        _check_int("n_jumps", self.n_jumps, 0)
        _check_int("max_stagnant", self.max_stagnant, 0)
        if not isinstance(self.normalize, (bool, np.bool_)):
            raise ObliqError(f"normalize must be true or false (got {self.normalize!r})")

    def _make_split_finder(self, n_classes: int):
        criterion = split_criterion(self.criterion)
        n_restarts, n_jumps = int(self.n_restarts), int(self.n_jumps)
        max_stagnant, normalize = int(self.max_stagnant), bool(self.normalize)

        def find_split(X, y, counts, rng):
            axis = find_best_axis_split(X, y, n_classes, criterion)
            if axis is None:
                return None
            axis_split = Split(threshold=axis.threshold, feature=axis.feature,
                               score=axis.score)
            n, d = X.shape
            if n <= 2 * d:  # TOO_SMALL_FOR_OBLIQUE_SPLIT = 2 d (JAIR §3; v3)
                return axis_split
            y_loc, k = _present_classes(y, n_classes)
            if _score_partition(X[:, axis.feature] <= axis.threshold, y_loc, k,
                                criterion)[1]:
                return axis_split  # a perfect axis-parallel split is kept
            shift = positive_quadrant_shift(X) if normalize else np.zeros(d)
            search = _NodeSearch(X - shift, y_loc, k, criterion, rng, max_stagnant,
                                 n_jumps)
            # Restart 1 from the axis-parallel hyperplane (in shifted coordinates),
            # restarts 2..R from random hyperplanes with coefficients in [-1, 1].
            starts = np.empty((n_restarts, d + 1))
            starts[0] = 0.0
            starts[0, axis.feature] = 1.0
            starts[0, d] = -(axis.threshold - shift[axis.feature])
            starts[1:] = rng.uniform(-1.0, 1.0, size=(n_restarts - 1, d + 1))
            ends, scores, perfect = search.climb(starts)
            # oblique_split of v3: the best so far starts as the axis-parallel
            # hyperplane; a restart's result replaces it when better, or equal and a
            # coin flip says so; once the best is perfect later restarts do not count.
            best_a = starts[0]
            least = search.evaluate(starts[:1])[1][0]
            for r in range(n_restarts):
                if scores[r] < least - SCORE_EPS or (
                        scores[r] <= least + SCORE_EPS and rng.random() > 0.5):
                    best_a, least = ends[r], min(scores[r], least)
                    if perfect[r]:
                        break
            w, t = to_original(best_a, shift)
            return _oblique_or_axis(X, y_loc, k, criterion, axis, w, t)

        return find_split


# ---------------------------------------------------------------------- OC1-AP
@register_algorithm(
    "oc1-ap",
    "OC1's axis-parallel mode (OC1-AP, Murthy et al. 1994, program option -a); twoing; "
    "prune with pruner 'cc'",
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
    """

    def __init__(
        self,
        criterion: str = "twoing",
        min_samples_split: int = 2,
        max_depth: int | None = None,
        max_misclassification_rate: float = 0.0,
        random_state=None,
    ):
        super().__init__(criterion, min_samples_split, max_depth,
                         max_misclassification_rate, random_state)


# ---------------------------------------------------------------------- OC1-LC
def cart_lc_climb(X, y, n_classes, criterion, a, max_cycles=MAX_CART_CYCLES):
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
    flips a coin; deterministic here). Returns (a, score).
    """
    n, d = X.shape
    Xa = _augmented(X)
    XaT = np.ascontiguousarray(Xa.T)
    onehot = np.eye(n_classes)[y]
    gammas = np.asarray(CART_GAMMAS)[:, None]
    minus_one = -np.ones(n)
    a = np.array(a, dtype=np.float64)

    def evaluate(trial):
        V_new = trial @ XaT
        s, p = _partition_scores(V_new[None, :] <= 0, onehot, criterion)
        return V_new, float(s[0]), bool(p[0])

    V, cur, perfect = evaluate(a)
    for cycle in range(max_cycles):
        if perfect:
            break
        start = cur
        for m in range(d + 1):
            if m < d:
                lam, s = best_steps(np.broadcast_to(V, (len(CART_GAMMAS), n)),
                                    -(XaT[m][None, :] + gammas), y, n_classes, criterion)
                if not np.isfinite(s).any():
                    continue
                g = int(np.flatnonzero(s <= s.min() + SCORE_EPS)[0])
                lam, gamma = float(lam[g]), float(CART_GAMMAS[g])
            else:
                lam, _ = best_step(V, minus_one, y, n_classes, criterion)
                gamma = 1.0  # the constant alone: a_{d+1} -= lambda
            if max(abs(lam), abs(lam * gamma)) <= TOLERANCE:
                continue
            trial = a.copy()
            if m < d:
                trial[m] -= lam
            trial[d] -= lam * gamma
            V_new, s, p = evaluate(trial)
            if s <= cur + SCORE_EPS:
                a, V, cur, perfect = trial, V_new, min(s, cur), p
                if perfect:
                    break
        if cycle > 0 and start - cur < TOLERANCE:
            break
    return a, cur


@register_algorithm(
    "oc1-lc",
    "OC1's CART-LC mode (OC1-LC, program option -K): linear combinations without "
    "backward elimination or normalisation, NOT Breiman's CART-LC (that is 'cart-lc'); "
    "prune with pruner 'cc'",
)
class OC1LCClassifier(TreeClassifier):
    """OC1-LC: the OC1 program's imitation of CART's linear combinations (``-K``).

    At each node: the best axis-parallel split; if it is not perfect and the node has
    more than ``2 d`` rows (the program exempts the root from the size rule; a split
    finder cannot tell the root, so the rule applies everywhere), :func:`cart_lc_climb`
    starts from it. The result replaces the axis-parallel split only if strictly better
    (so an axis-parallel split stays labelled axis-parallel when nothing was gained).
    This differs from Breiman's CART-LC (``cart-lc``): no per-node normalisation by
    median and interquartile range and no backward feature elimination (OC1
    version3.whatsnew; HHCART paper §4.1).

    Parameters
    ----------
    criterion : 'twoing' (default), 'gini' or 'entropy'.
    max_cycles : cap on coefficient cycles (``MAX_CART_CYCLES`` = 100).
    min_samples_split, max_depth, max_misclassification_rate : stopping rules.
    random_state : unused (the search is deterministic); kept for a uniform API.
    """

    def __init__(
        self,
        criterion: str = "twoing",
        max_cycles: int = MAX_CART_CYCLES,
        min_samples_split: int = 2,
        max_depth: int | None = None,
        max_misclassification_rate: float = 0.0,
        random_state=None,
    ):
        self.criterion = criterion
        self.max_cycles = max_cycles
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.max_misclassification_rate = max_misclassification_rate
        self.random_state = random_state

    def validate_params(self) -> None:
        super().validate_params()
        check_criterion(self.criterion)
        _check_int("max_cycles", self.max_cycles, 1)

    def _make_split_finder(self, n_classes: int):
        criterion = split_criterion(self.criterion)
        max_cycles = int(self.max_cycles)

        def find_split(X, y, counts, rng):
            axis = find_best_axis_split(X, y, n_classes, criterion)
            if axis is None:
                return None
            axis_split = Split(threshold=axis.threshold, feature=axis.feature,
                               score=axis.score)
            n, d = X.shape
            if n <= 2 * d:  # as OC1 (the program exempts only the root, see above)
                return axis_split
            y_loc, k = _present_classes(y, n_classes)
            if _score_partition(X[:, axis.feature] <= axis.threshold, y_loc, k,
                                criterion)[1]:
                return axis_split
            start = np.zeros(d + 1)
            start[axis.feature] = 1.0
            start[d] = -axis.threshold
            a, _ = cart_lc_climb(X, y_loc, k, criterion, start, max_cycles)
            w, t = to_original(a, np.zeros(d))
            return _oblique_or_axis(X, y_loc, k, criterion, axis, w, t)

        return find_split
