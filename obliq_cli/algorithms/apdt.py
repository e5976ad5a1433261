"""APDT, the Alopex Perceptron Decision Tree of Shah & Sastry (1999), §II.

Each node is split by the hyperplane that minimises the separability score F(W, S^t) of
eq. (1), found by the Alopex algorithm (eqs. 2-5); the score counts the *nonseparable
patterns* of each child, estimated with the Perceptron (§II, second paragraph).

Separability estimate (§II; Roychowdhury, Siu & Kailath 1995, Th. 6)
    The Perceptron (augmented patterns z = (1, x), labels s = +-1, w(0) = 0, update
    w += s z when s w.z <= 0) runs for max(300, |S|) iterations (§III), one presented
    pattern per iteration. Patterns are presented *cyclically* in a fixed order: the
    paper says "we classify the next pattern". The order is one random permutation of the
    node's rows, drawn from the finder's rng once per node, and each child keeps its rows
    in that order, so F is a deterministic function of W within a node (Alopex compares F
    values over iterations, eq. 4). The number of updates of each pattern is counted; with
    M the largest count, patterns updated at least rho M times (rho = 0.6) are
    nonseparable. The set is declared separable (nsp = 0) when the final Perceptron
    hyperplane classifies every pattern correctly -- the rho rule alone would always flag
    the most-updated pattern -- and that hyperplane is returned (Table I, step 4).
    A single-class set is separable without running the Perceptron; the loop also stops
    once a whole cycle passes without an update (nothing can change after that).
    The numpy fallback is exact: it finds the next misclassified pattern of a block of
    upcoming patterns with one matrix product, so Python steps are per update, not per
    pattern; numba, when installed, runs the plain loop (same results).

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
    T(0) = 1000 and, at every k that is a multiple of N = 10, the mean |dE| of the last N
    iterations: T(k) = (1/N) sum_{k'=k-N}^{k-1} |dE(k')| (dE(0) = 0). Eq. (5) as printed
    has delta/N in front; that is the original Alopex's temperature (Unnikrishnan &
    Venugopal 1994), whose exponent is the correlation delta x_i dE, of mean size
    delta mean|dE|. Eq. (4) as printed has dE alone in the exponent, so we drop delta to
    keep the ratio of the original ("comparing current dE with its recent averaged value",
    §II-B); with delta kept, |dE|/T is about 1/delta = 20, p is 0 or 1, and the search
    falls into a deterministic 2- or 4-cycle (we saw 17 distinct partitions in 500
    iterations at the root of Problem 1). When T = 0 (F did not change over the window)
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

normalize="max" divides each attribute by its largest absolute training value, as the
paper does for WINE (§III-B2); the stored hyperplanes are mapped back to raw features.

EXTENSION (not in the paper): multiclass="ovr" follows the first suggestion of §V ("learn
one decision tree each, to separate one class from all the rest"), chained into a single
tree: class 0 is separated from the rest; every leaf left holding several of the other
classes is grown further to separate class 1 from the classes after it, and so on (a
decision list of one-vs-rest trees, so the result is still one ``Tree``).
"""

from __future__ import annotations

import numpy as np

from ..errors import ObliqError
from ..registry import register_algorithm
from ..tree.builder import Node, Split, SplitFinder, goes_left
from .base import TreeClassifier

try:  # optional accelerator, never required
    import numba as _numba
except ImportError:  # pragma: no cover - depends on the environment
    _numba = None

PERCEPTRON_MIN_ITERATIONS = 300
"""§III: the Perceptron runs for max(300, |S^t|) iterations."""

USE_NUMBA = _numba is not None
"""Run the Perceptron loop with numba when it is installed (set False to force numpy)."""

_BLOCK = 32


# ---------------------------------------------------------------- perceptron
def _perceptron_numpy(Z: np.ndarray, s: np.ndarray, n_iter: int):
    """Cyclic Perceptron, numpy: jump from one misclassified pattern to the next."""
    m, d = Z.shape
    w = np.zeros(d)
    counts = np.zeros(m, dtype=np.int64)
    it = pos = clean = 0
    while it < n_iter and clean < m:
        length = min(_BLOCK, n_iter - it, m - pos)
        margins = s[pos:pos + length] * (Z[pos:pos + length] @ w)
        bad = np.flatnonzero(margins <= 0)
        if bad.size == 0:
            step = length
            clean += length
        else:
            step = int(bad[0]) + 1
            i = pos + step - 1
            w += s[i] * Z[i]
            counts[i] += 1
            clean = 0
        it += step
        pos += step
        if pos == m:
            pos = 0
    return w, counts


if _numba is not None:
    @_numba.njit(cache=True, nogil=True)
    def _perceptron_numba(Z, s, n_iter):  # pragma: no cover - exercised when installed
        m, d = Z.shape
        w = np.zeros(d)
        counts = np.zeros(m, dtype=np.int64)
        pos = 0
        clean = 0
        for _ in range(n_iter):
            dot = 0.0
            for j in range(d):
                dot += Z[pos, j] * w[j]
            if s[pos] * dot <= 0.0:
                for j in range(d):
                    w[j] += s[pos] * Z[pos, j]
                counts[pos] += 1
                clean = 0
            else:
                clean += 1
                if clean >= m:
                    break
            pos += 1
            if pos == m:
                pos = 0
        return w, counts
else:  # pragma: no cover
    _perceptron_numba = None


def perceptron_counts(Z: np.ndarray, s: np.ndarray, n_iter: int | None = None,
                      use_numba: bool | None = None):
    """``(w, counts)``: the cyclic Perceptron's final weights and per-pattern update counts.

    ``Z`` holds augmented patterns (rows, in presentation order), ``s`` labels +-1;
    ``n_iter`` defaults to max(300, len(Z)) presented patterns (§III).
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    s = np.ascontiguousarray(s, dtype=np.float64)
    if n_iter is None:
        n_iter = max(PERCEPTRON_MIN_ITERATIONS, Z.shape[0])
    if Z.shape[0] == 0:
        return np.zeros(Z.shape[1]), np.zeros(0, dtype=np.int64)
    numba_on = USE_NUMBA if use_numba is None else use_numba
    if numba_on and _perceptron_numba is not None:
        return _perceptron_numba(Z, s, int(n_iter))
    return _perceptron_numpy(Z, s, int(n_iter))


def nonseparable(Z: np.ndarray, s: np.ndarray, rho: float = 0.6, n_iter: int | None = None,
                 use_numba: bool | None = None):
    """``(nsp, w)``: the estimated number of nonseparable patterns (§II) and, when it is
    0 and the set has both classes, the Perceptron's separating hyperplane (else None)."""
    if Z.shape[0] == 0 or np.all(s == s[0]):
        return 0, None
    w, counts = perceptron_counts(Z, s, n_iter, use_numba)
    if np.all(s * (Z @ w) > 0):
        return 0, w
    return int(np.count_nonzero(counts >= rho * counts.max())), None


# --------------------------------------------------------------- split score
def split_score(n_left, n_right, nsp_left, nsp_right, M: float = 4.0):
    """F(W, S^t) of eq. (1) from the children's sizes and nonseparable counts (vectorised).

    F = R/M {I1 (n - n_l)/n + I2 (n - n_r)/n - I1 I2} + (1 - I1)(1 - I2) E, with
    E = ((nsp_l + nsp_r)/n)(1/2 - n_l n_r / n^2), R = 1/(2n), I = [nsp = 0 and the child
    is not empty] (see the module docstring for the empty child).
    """
    n_left = np.asarray(n_left, dtype=np.float64)
    n_right = np.asarray(n_right, dtype=np.float64)
    nsp_left = np.asarray(nsp_left, dtype=np.float64)
    nsp_right = np.asarray(nsp_right, dtype=np.float64)
    n = n_left + n_right
    R = 1.0 / (2.0 * n)
    i1 = ((nsp_left == 0) & (n_left > 0)).astype(np.float64)
    i2 = ((nsp_right == 0) & (n_right > 0)).astype(np.float64)
    E = ((nsp_left + nsp_right) / n) * (0.5 - (n_left / n) * (n_right / n))
    A = (R / M) * (i1 * (n - n_left) / n + i2 * (n - n_right) / n - i1 * i2)
    return A + (1.0 - i1) * (1.0 - i2) * E


# -------------------------------------------------------------------- alopex
def alopex(E, w0, rng: np.random.Generator, n_iter: int = 500, delta: float = 0.05,
           temperature0: float = 1000.0, window: int = 10, stop_at: float | None = None):
    """Minimise ``E`` with Alopex (§II-B, eqs. 2-5); returns ``(w_best, E_best, trace)``.

    W(0) = ``w0``, W(1) = W(0) + delta x(0) with x(0) uniform on {-1, +1}^n, then
    W(2), ..., W(n_iter) by eqs. (2)-(4) (Table I, step 4); ``trace`` holds E(W(k)).
    The loop runs once per iteration; each E call is vectorised by the caller.
    """
    w = np.array(w0, dtype=np.float64)
    d = w.size
    trace = np.empty(n_iter + 1)
    dE = np.zeros(n_iter + 1)  # dE[k] = E(W(k)) - E(W(k-1)); dE[0] = 0
    e_prev = trace[0] = float(E(w))
    best_w, best_e = w.copy(), e_prev
    if stop_at is not None and best_e <= stop_at:
        return best_w, best_e, trace[:1]
    x = np.where(rng.random(d) < 0.5, -1.0, 1.0)
    T = float(temperature0)
    last = 0
    for k in range(1, n_iter + 1):
        if k >= 2:
            j = k - 1  # p(j) from dE(j) and T(j) gives x(j), then W(k) = W(j) + delta x(j)
            if j % window == 0:
                T = float(np.mean(np.abs(dE[j - window:j])))
            if T > 0:
                p = 1.0 / (1.0 + np.exp(min(dE[j] / T, 700.0)))
            else:
                p = 0.5 if dE[j] == 0 else float(dE[j] < 0)
            x = np.where(rng.random(d) < p, x, -x)
        w = w + delta * x
        e = float(E(w))
        trace[k] = e
        dE[k] = e - e_prev
        e_prev = e
        last = k
        if e < best_e:
            best_w, best_e = w.copy(), e
            if stop_at is not None and best_e <= stop_at:
                break
    return best_w, best_e, trace[:last + 1]


# ------------------------------------------------------------------ the node
def _initial_hyperplane(Z: np.ndarray, s: np.ndarray, rng: np.random.Generator):
    """Table I step 1: the perpendicular bisector of two random patterns of different
    classes (unit normal), as augmented weights (w0, w); None if no such pair differs."""
    pos, neg = np.flatnonzero(s > 0), np.flatnonzero(s < 0)
    for _ in range(20):
        a, b = Z[rng.choice(pos)], Z[rng.choice(neg)]
        v = a[1:] - b[1:]
        norm = np.linalg.norm(v)
        if norm > 0:
            v = v / norm
            return np.concatenate([[-v @ (a[1:] + b[1:]) / 2], v])
    return None


class _NodeSearch:
    """F(W, S^t) at one node, with the children's Perceptron results cached by partition."""

    def __init__(self, Z, s, rho, M, use_numba):
        self.Z, self.s, self.rho, self.M, self.use_numba = Z, s, rho, M, use_numba
        self.cache: dict[bytes, float] = {}
        self.best = (np.inf, None)  # the best split that sends rows both ways

    def child(self, mask):
        return nonseparable(self.Z[mask], self.s[mask], self.rho, use_numba=self.use_numba)

    def __call__(self, W):
        left = self.Z @ W <= 0
        key = np.packbits(left).tobytes()
        value = self.cache.get(key)
        if value is None:
            n_left = int(np.count_nonzero(left))
            nsp_l = self.child(left)[0] if n_left else 0
            nsp_r = self.child(~left)[0] if n_left < left.size else 0
            value = float(split_score(n_left, left.size - n_left, nsp_l, nsp_r, self.M))
            self.cache[key] = value
            if 0 < n_left < left.size and value < self.best[0]:
                self.best = (value, W.copy())
        return value


@register_algorithm(
    "apdt", "Alopex Perceptron Decision Tree, separability-based oblique splits "
    "(Shah & Sastry 1999); 2 classes, multiclass='ovr' extension; unpruned",
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
    normalize : None, or "max" to divide each attribute by its training maximum
        (§III-B2, WINE).
    multiclass : None (two classes only, as in the paper) or "ovr" (extension, §V).
    random_state : seed or numpy Generator; every random draw uses it.
    """

    def __init__(self, rho: float = 0.6, M: float = 4, alopex_iterations: int = 500,
                 delta: float = 0.05, temperature0: float = 1000.0,
                 temperature_window: int = 10, normalize: str | None = None,
                 multiclass: str | None = None, random_state=None):
        self.rho = rho
        self.M = M
        self.alopex_iterations = alopex_iterations
        self.delta = delta
        self.temperature0 = temperature0
        self.temperature_window = temperature_window
        self.normalize = normalize
        self.multiclass = multiclass
        self.random_state = random_state

    def validate_params(self) -> None:
        super().validate_params()
        if isinstance(self.rho, bool) or not isinstance(self.rho, (int, float)) \
                or not 0 < self.rho <= 1:
            raise ObliqError(f"rho must be in (0, 1] (got {self.rho!r})")
        if isinstance(self.M, bool) or not isinstance(self.M, (int, float)) or self.M < 1:
            raise ObliqError(f"M must be a number >= 1 (got {self.M!r})")
        for name in ("alopex_iterations", "temperature_window"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ObliqError(f"{name} must be an integer >= 1 (got {value!r})")
        for name in ("delta", "temperature0"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ObliqError(f"{name} must be a number > 0 (got {value!r})")
        if self.normalize not in (None, "max"):
            raise ObliqError(f"normalize must be null or 'max' (got {self.normalize!r})")
        if self.multiclass not in (None, "ovr"):
            raise ObliqError(f"multiclass must be null or 'ovr' (got {self.multiclass!r})")

    def check_n_classes(self, n_classes: int) -> None:
        if n_classes > 2 and self.multiclass is None:
            raise ObliqError(f"APDT handles 2 classes (got {n_classes}); set multiclass: "
                             "ovr for the one-vs-rest extension")

    def _make_split_finder(self) -> SplitFinder:
        return APDTSplitFinder(self.rho, self.M, self.alopex_iterations, self.delta,
                               self.temperature0, self.temperature_window,
                               self.normalize == "max")


class APDTSplitFinder(SplitFinder):
    """growTree of Table I as a split finder (module docstring).

    A node's ``state`` is what its parent's split found out about it: ("new", stage,
    None) for a node not yet examined (the root, and children of a separating
    hyperplane), ("grow", stage, None) for a child with nonseparable patterns, and
    ("plane", stage, W) for a child the Perceptron separates with W (the one-step
    look-ahead of step 7). ``stage`` is the one-vs-rest class (0 for two classes).
    """

    def __init__(self, rho, M, alopex_iterations, delta, temperature0,
                 temperature_window, normalize_max: bool):
        self.rho, self.M = rho, M
        self.alopex_iterations, self.delta = alopex_iterations, delta
        self.temperature0, self.temperature_window = temperature0, temperature_window
        self.normalize_max = normalize_max

    def prepare(self, X, y, n_classes, rng) -> None:
        super().prepare(X, y, n_classes, rng)
        scale = np.ones(X.shape[1])
        if self.normalize_max:
            scale = np.abs(X).max(axis=0)
            scale[scale == 0] = 1.0
        self.scale = scale
        # Augmented, normalised patterns.
        self.Z = np.hstack([np.ones((X.shape[0], 1)), X / scale])

    def _labels(self, rows, stage):
        return np.where(self.y[rows] == stage, 1.0, -1.0)

    def _search_node(self, Z, s):
        """Alopex over W at one node; the best W that sends rows both ways, or None."""
        w0 = _initial_hyperplane(Z, s, self.rng)
        if w0 is None:
            return None
        search = _NodeSearch(Z, s, self.rho, self.M, None)
        alopex(search, w0, self.rng, self.alopex_iterations, self.delta, self.temperature0,
               self.temperature_window, stop_at=0.0)
        return search.best[1]

    def split(self, node: Node) -> Split | None:
        kind, stage, W = node.state if node.state is not None else ("new", 0, None)
        rows = node.rows  # ascending; the builder never asks about a pure node
        if kind == "new":
            # One-vs-rest stage: class `stage` against the classes after it; skip
            # stages whose class no longer occurs here (K = 2: stage 0 only).
            while node.counts[stage] == 0:
                stage += 1
            nsp, W = nonseparable(self.Z[rows], self._labels(rows, stage), self.rho)
            kind = "plane" if nsp == 0 else "grow"
        order = None
        if kind == "grow":
            order = self.rng.permutation(rows.size)
            shown = rows[order]  # the Perceptron's presentation order at this node
            W = self._search_node(self.Z[shown], self._labels(shown, stage))
            if W is None:
                return None  # no split separates these rows: a leaf
        split = Split(threshold=float(-W[0]), weights=W[1:] / self.scale)
        go_left = goes_left(self.X, rows, split)
        if go_left.all() or not go_left.any():
            return None
        if kind != "grow":  # the children are examined afresh
            return Split(threshold=split.threshold, weights=split.weights,
                         child_states=(("new", stage, None), ("new", stage, None)))
        states = []
        for mask in (go_left[order], ~go_left[order]):
            sub = shown[mask]  # in this node's presentation order
            state = ("new", stage, None)
            if np.unique(self.y[sub]).size > 1:
                nsp, child_W = nonseparable(self.Z[sub], self._labels(sub, stage), self.rho)
                if nsp:
                    state = ("grow", stage, None)
                elif child_W is not None:
                    state = ("plane", stage, child_W)  # step 7: the look-ahead
            states.append(state)
        return Split(threshold=split.threshold, weights=split.weights,
                     child_states=tuple(states))
