"""Pruning as Boolean-vector learning: the LA and GA pruners of Shah & Sastry (1999), §IV.

The network (§IV, Fig. 5)
    A two-class tree is rewritten as a 3-layer feedforward network. The first layer holds
    every distinct hyperplane of the tree and its complement: with the house rule "a row
    goes left iff w . x <= t", unit i (0 <= i < H) fires when ``w_i . x > t_i`` (the
    paper's y_i = 1 iff sum_j w_ij x_j + w_i0 > 0, eq. (6), with w_i0 = -t_i) and unit
    H + i is its complement, firing when ``w_i . x <= t_i``; M = 2H. "Distinct" means an
    identical stored (w, t) row: a tree that reuses a split (e.g. the same axis threshold
    in two branches) gets one unit. The second layer holds L AND units, unit l connected
    to the first-layer units with v_li = 1; it outputs 1 when every selected unit fires
    (eq. (7); an AND unit that selects nothing outputs 1). One OR unit gives the network's
    output (eq. (8)): 1 means the tree's class code 1 (``classes_[1]``), 0 code 0.
    ``network_from_tree`` builds the network that predicts exactly as the tree: one AND
    unit per leaf labelled class 1, selecting the hyperplanes on its root-to-leaf path
    (the complement for a left turn), as §IV describes.

Pruning (§IV, Tables V-VII)
    The hyperplanes are fixed and only the Boolean vectors V_l are learnt, with L = 2 AND
    units as in Tables VI/VII (parameter ``n_units``).

    LA (Table V): a team of learning automata, one per (l, i), with action probabilities
    q_li(0) = 0.5. Each iteration draws every v_li ~ Bernoulli(q_li), classifies the next
    training pattern with the resulting network, sets beta = 1 when it is right, else 0,
    and applies the reward-inaction update of eq. (9) with step ``step`` (lambda = 0.003).
    Step 9 ("stop when q has converged") needs a convergence test and a cap the paper does
    not give: we stop when every q_li is within ``tol`` (0.01) of 0 or 1, or after
    ``max_iterations`` (50 000) patterns. A start already that close to a corner (the
    sparse start 1/H for H > 100, e.g. OC1's 166 hyperplanes on Table VII's noisy
    sample) would stop at the first reward, so the tolerance is then narrowed to half the
    start's distance from its corner. "The next pattern" is read as cycling through
    the sample, in a fresh random order on each pass (a sample sorted by class would
    otherwise drive the automata in long one-class runs).

    GA (§IV-B): bit-string chromosomes of the L x M choices, fitness = accuracy on the
    sample, crossover probability 0.7 and mutation probability 0.03 (Table VI). "Standard
    crossover and mutation operators" are read as Goldberg's (1989) simple GA, the paper's
    reference [14]: fitness-proportionate (roulette-wheel) selection, single-point
    crossover of consecutive mates, independent bit-flip mutation, no elitism, an initial
    population of uniform random bits. The paper gives neither population size nor
    number of generations: defaults 50 and 300 (documented choices). Goldberg's simple
    GA also comes with linear fitness scaling (1989, ch. 3: f' = a f + b keeping the
    mean, the best string expecting C_mult = 2 copies, the worst mapped to 0 when it
    would go negative); ``selection="scaled"`` selects on scaled accuracies, the
    default "roulette" on the raw ones. The ablation (docs/ablations/apdt.md) found that
    scaling does not rescue the paper's start: a population of equal fitness has
    nothing to scale.

    The sample is the paper's: the training data the tree was grown on (§IV: "the
    goodness of any choice can be assessed using a training set"; Table VII prunes on the
    corrupted training set). Both pruners are therefore registered with
    ``uses_prune_set=False`` (the runner grows on every non-test row and passes no
    pruning set); an ``X_prune`` given anyway is ignored.

    Weights (``pruning.weights``): the sample's rows carry the weights the tree was grown
    with, and every accuracy the pruners read (GA's fitness, keep-the-best, the timing of
    t_exh) is the weighted accuracy, the weight of the rows classified right over the
    total; rows of weight 0 are dropped first. LA, whose automata learn from one pattern
    at a time, then draws its patterns with replacement with probabilities proportional
    to the weights (the weighted sample as the distribution the patterns come from, which
    is what §IV-A's analysis assumes of the pattern stream) instead of cycling through the
    rows; an unweighted sample keeps the cycling.

    Starting point, and why the paper's collapses on our Problem 2 (``q0`` /
    ``initial_density``): the paper starts every q_li at 0.5 (§IV-A, "All of these
    probabilities are initialized to 0.5") and a simple GA starts from uniform random
    bits. For any pattern exactly H of the 2H first-layer units output 0 (a hyperplane or
    its complement), so an AND unit drawn with selection probability q fires with
    probability (1 - q)^H: 0.5^H at the paper's start. Once that is far below 1/(patterns
    of a run), the network answers class code 0 on every pattern whatever was drawn, beta
    (step 7) no longer depends on V, and eq. (9)'s reward-inaction step has expectation
    lambda beta (E[v] - q) = 0: q random-walks on a plateau of E[beta] (the local maxima
    §IV-A promises are all on it) and every network scores the code-0 share. The GA sees
    one fitness for its whole population and drifts likewise. One fold by hand (config
    apdt_pruning, repetition 0: 1000 training rows, 555 of class 0, 500 test rows, 273 of
    class 0):

    - OC1's unpruned tree: 21 internal nodes, 21 distinct hyperplanes, 10 class-1 leaves
      (the network with 10 AND units predicts as the tree on every row), 100 % training
      and 97.6 % test accuracy; 0.5^21 = 4.8e-7 per unit. The task's LA ran its 50 000
      patterns without converging (q ended at mean 0.52, 1 % of the q within 0.01 of 0
      or 1) and its learning curve (best accuracy kept) was 55.5 % from the first chunk
      to the last; a traced rerun of the same loop saw the sampled network fire on none
      of its 50 000 patterns and all 27 750 rewards fall on class-0 patterns.
      All 50 chromosomes of the GA's first generation scored 55.50 %. Both kept a network
      with no live AND unit: N = 0, the runner's one leaf, 55.5 % training and 54.6 %
      test accuracy, the class-0 shares, which the flags at_majority, one_leaf and
      constant_predictions then mark.
    - CART-LC's: 31 hyperplanes, 13 class-1 leaves, 0.5^31 = 4.7e-10; the same trace.
    - The same pruners on Problem 1 (OC1's tree: 3 hyperplanes, 0.5^3 = 0.125) fire on
      12 609 of 50 000 patterns, the modal network reaches 100 % by 10 000, and LA and GA
      keep the 3-hyperplane network (100 % test).

    So this is what the printed algorithm does on a tree of 20 or more hyperplanes, not
    a defect of ours: the start, the objective (accuracy on the training sample, §IV-B),
    the update (eq. (9), lambda = 0.003) and the network (§IV: every distinct hyperplane
    and its complement, one AND unit per class-1 leaf) are the paper's, and no stopping
    rule or tie rule can find a network that was never sampled. The paper's trees were
    smaller (Table VI: 16 and 8 internal nodes), where 0.5^H is not yet hopeless.
    ``q0="sparse"`` (LA) and ``initial_density="sparse"`` (GA) start instead at 1/H,
    i.e. two selected inputs per AND unit on average, so that (1 - 1/H)^H ~ e^-1 of the
    units fire on a pattern whatever H is. This is OUR extension, not the paper's; the
    defaults stay 0.5. The ablation (docs/ablations/apdt.md) locates the collapse: from
    0.5, LA and GA reach 91 % on a CART-LC tree of our Problem 2 cut to 7 hyperplanes
    and 85-89 % at 13, and give the majority answer from about 21 on; a longer LA run
    (10^6 patterns; 3M patterns on such a tree also end at the majority network) or
    Goldberg's fitness scaling does not change that.

    Keep-the-best: the paper returns the converged network (LA) or the final population
    (GA) and is silent about which network is kept. Both pruners return the network with
    the highest accuracy on the sample among all networks they evaluated (for LA: every
    sampled network and the modal network q > 0.5 at the end; for GA: every chromosome
    of every generation), ties going to the one using fewer hyperplanes, then to the
    earliest. So the result is never worse on the sample than any network seen.

Sizes of a network
    The tables count the paper's N, "number of internal nodes", i.e. the hyperplanes the
    pruned classifier still uses: ``n_internal_`` = number of distinct hyperplanes
    selected (directly or as complement) by the live AND units (a unit selecting a
    hyperplane and its complement never fires and uses nothing). To make the runner's
    ``n_nodes_ - n_leaves_`` equal N, a network reports the sizes of a binary tree with N
    internal nodes: ``n_leaves_ = N + 1``, ``n_nodes_ = 2N + 1``. ``depth_`` is the
    length of the longest conjunction (hyperplanes in one live AND unit), the depth of
    the deepest class-1 path; the paper defines no depth for a network.

Exhaustive-search time
    ``exhaustive_search_time`` estimates the paper's t_exh (Table VII, footnote 5): it
    times the evaluation of a fixed number of Boolean vectors on the sample (the first
    ones in the counting order an exhaustive search would use) and extrapolates to all
    2^(L M) vectors.

Times (``t_lrn``, ``t_exh``) are CPU seconds (``obliq_cli.timing``), as the runner's
``fit_cpu``: the paper's were measured on its own machine, ours on a shared one.

All random draws come from the ``random_state`` the runner passes (a numpy Generator).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import ClassifierMixin

from ..errors import ObliqError
from ..kernels import linalg
from ..parameters import Integral, Interval, Real, StrOptions, pruner_parameters
from ..registry import register_pruner
from ..timing import Stopwatch
from ..tree.structure import NOMINAL, Tree, linear_text, weighs_several
from .weights import drop_weightless, part_weights


# --------------------------------------------------------------------------- network
@dataclass(eq=False)
class BooleanNetwork:
    """The 3-layer network of §IV (Fig. 5).

    weights : [H, d] hyperplanes; thresholds : [H]; selection : bool [L, 2H], row l is
    V_l (columns 0..H-1 the units ``w . x > t``, columns H..2H-1 their complements).
    """

    weights: np.ndarray
    thresholds: np.ndarray
    selection: np.ndarray

    @property
    def n_hyperplanes(self) -> int:
        return int(self.thresholds.shape[0])

    @property
    def n_units(self) -> int:
        return int(self.selection.shape[0])

    def first_layer(self, X: np.ndarray) -> np.ndarray:
        """Outputs y_i of the 2H first-layer units (eq. (6)), bool [n, 2H]."""
        # summed as the tree's partition is (kernels/linalg.py), so a row on a hyperplane
        # goes the tree's way on every CPU
        X = np.ascontiguousarray(X, dtype=np.float64)
        right = linalg.matmul(X, np.ascontiguousarray(self.weights.T)) > self.thresholds
        return np.hstack([right, ~right])

    def predict_codes(self, X: np.ndarray) -> np.ndarray:
        """Network output Y (eq. (8)) for every row: class code 1 or 0."""
        return evaluate(self.first_layer(X), self.selection[None])[:, 0].astype(np.int64)

    def live_units(self) -> np.ndarray:
        """AND units that can fire: those not selecting a hyperplane and its complement."""
        h = self.n_hyperplanes
        return ~(self.selection[:, :h] & self.selection[:, h:]).any(axis=1)

    def used_hyperplanes(self) -> np.ndarray:
        """Bool [H]: hyperplanes selected (directly or as complement) by a live unit."""
        h = self.n_hyperplanes
        live = self.selection[self.live_units()]
        return (live[:, :h] | live[:, h:]).any(axis=0)

    def conjunction_lengths(self) -> np.ndarray:
        """Number of distinct hyperplanes in each live AND unit."""
        h = self.n_hyperplanes
        live = self.selection[self.live_units()]
        return (live[:, :h] | live[:, h:]).sum(axis=1)

    def to_text(self, feature_names=None, class_names=("0", "1"), digits: int = 4) -> str:
        """The network as a disjunction of conjunctions (one line per live AND unit)."""
        h = self.n_hyperplanes
        names = feature_names or [f"x{i + 1}" for i in range(self.weights.shape[1])]
        lines = [f"class {class_names[1]} if any AND unit fires, else class {class_names[0]}"]
        for unit in np.flatnonzero(self.live_units()):
            terms = []
            for i in np.flatnonzero(self.selection[unit]):
                plane, op = (i, ">") if i < h else (i - h, "<=")
                lhs = linear_text(self.weights[plane], names, digits)  # as the tree prints it
                terms.append(f"{lhs} {op} {self.thresholds[plane]:.{digits}g}")
            lines.append(f"AND unit {unit + 1}: " + (" and ".join(terms) or "always"))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"format": "obliq-network/1", "weights": self.weights.tolist(),
                "thresholds": self.thresholds.tolist(),
                "selection": self.selection.astype(int).tolist()}


def evaluate(Y: np.ndarray, selections: np.ndarray) -> np.ndarray:
    """Outputs of many networks sharing one first layer, bool [n, P].

    ``Y`` bool [n, M] first-layer outputs; ``selections`` bool [P, L, M]. An AND unit
    fires when none of its selected units is 0 (eq. (7)), so one matrix product counts
    the violations of all P x L units at once; the OR (eq. (8)) is an ``any`` over L.
    """
    p, n_units, m = selections.shape
    if n_units == 0:
        return np.zeros((Y.shape[0], p), dtype=bool)
    off = (~Y).astype(np.float32)
    # Unit-major columns (l * P + p), so the OR is a loop over the L units of slices.
    units = np.ascontiguousarray(selections.transpose(1, 0, 2).reshape(n_units * p, m),
                                 dtype=np.float32)
    violations = off @ units.T
    out = violations[:, :p] == 0
    for unit in range(1, n_units):
        out |= violations[:, unit * p:(unit + 1) * p] == 0
    return out


def accuracies(Y: np.ndarray, target: np.ndarray, selections: np.ndarray,
               weights: np.ndarray | None = None) -> np.ndarray:
    """Fraction of rows (of their total weight, with ``weights``) each of the P networks
    classifies right, shape [P]."""
    right = evaluate(Y, selections) == target[:, None].astype(bool)
    if weights is None:
        return right.mean(axis=0)
    return (weights @ right) / weights.sum()


def tree_hyperplanes(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weights [H, d], thresholds [H], plane of every node (-1 at leaves)).

    Distinct hyperplanes are distinct stored (w, t) rows, numbered in order of first
    appearance in preorder.
    """
    internal = np.flatnonzero(~tree.is_leaf)
    plane_of = np.full(tree.n_nodes, -1, dtype=np.int64)
    if internal.size == 0:
        return np.zeros((0, tree.n_features)), np.zeros(0), plane_of
    rows = np.hstack([tree.weights[internal], tree.threshold[internal, None]])
    _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    # Renumber by first appearance so plane ids follow the tree (deterministic, readable).
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    plane_of[internal] = rank[inverse]
    keep = internal[np.sort(first)]
    return tree.weights[keep].copy(), tree.threshold[keep].copy(), plane_of


def network_from_tree(tree: Tree, n_units: int | None = None) -> BooleanNetwork:
    """The network that predicts exactly as a two-class ``tree`` (§IV).

    One AND unit per leaf whose majority class code is 1 (ties go to code 0, as
    ``Tree.predict``), selecting unit i for a right turn (w . x > t) and the complement
    H + i for a left turn at each node of its path. ``n_units`` (default: the number of
    class-1 leaves) may add units that never fire (each selects a hyperplane and its
    complement); fewer units than class-1 leaves cannot represent the tree.
    """
    if tree.n_classes != 2:
        raise ObliqError(f"network pruning needs a two-class tree (got {tree.n_classes} classes)")
    if (tree.kind == NOMINAL).any():
        # (A tree's rules for missing values are not represented either: the network
        # reads complete rows, as the APDT paper's do.)
        raise ObliqError("network pruning needs a tree of binary hyperplane tests (this one "
                         "has multiway splits on nominal columns)")
    weights, thresholds, plane_of = tree_hyperplanes(tree)
    h = thresholds.size
    positive = np.flatnonzero(tree.is_leaf & (tree.leaf_classes() == 1))
    n_units = positive.size if n_units is None else int(n_units)
    if n_units < positive.size:
        raise ObliqError(f"the tree has {positive.size} class-1 leaves; a network with "
                         f"{n_units} AND units cannot represent it")
    if n_units > positive.size and h == 0:
        raise ObliqError("a tree with no split cannot pad a network with silent AND units")
    # Each node's selection row (its path), filled parent before child (preorder).
    path = np.zeros((tree.n_nodes, 2 * h), dtype=bool)
    for node in np.flatnonzero(~tree.is_leaf):  # loop over nodes, not samples
        left, right = tree.children_left[node], tree.children_right[node]
        path[left] = path[node]
        path[right] = path[node]
        path[left, h + plane_of[node]] = True
        path[right, plane_of[node]] = True
    selection = np.zeros((n_units, 2 * h), dtype=bool)
    selection[: positive.size] = path[positive]
    selection[positive.size:, [0, h]] = True  # silent units
    return BooleanNetwork(weights, thresholds, selection)


# ------------------------------------------------------------------------- estimator
class NetworkClassifier(ClassifierMixin):
    """A pruned network wrapped so that the runner and tables treat it like a tree.

    ``estimator_`` is the fitted tree estimator the network came from (its
    ``tree_input`` maps raw rows to the columns the hyperplanes read), ``network_`` the
    ``BooleanNetwork``, ``unpruned_tree_`` the grown tree, ``pruning_`` a dict of the
    search's record. Sizes follow the module docstring (N = hyperplanes used).
    """

    _estimator_type = "classifier"

    def __init__(self, estimator, network: BooleanNetwork, pruning: dict | None = None):
        self.estimator_ = estimator
        self.network_ = network
        self.classes_ = np.asarray(estimator.classes_)
        self.n_features_in_ = getattr(estimator, "n_features_in_", None)
        self.unpruned_tree_ = estimator.tree_
        self.pruning_ = dict(pruning or {})

    def tree_input(self, X) -> np.ndarray:
        return self.estimator_.tree_input(X)

    def encode(self, y) -> np.ndarray:
        return self.estimator_.encode(y)

    def predict(self, X) -> np.ndarray:
        return self.classes_[self.network_.predict_codes(self.tree_input(X))]

    def predict_proba(self, X) -> np.ndarray:
        """Hard 0/1 probabilities: the network outputs a class, not a frequency."""
        return np.eye(2)[self.network_.predict_codes(self.tree_input(X))]

    @property
    def n_internal_(self) -> int:
        return int(self.network_.used_hyperplanes().sum())

    @property
    def n_leaves_(self) -> int:
        return self.n_internal_ + 1

    @property
    def n_nodes_(self) -> int:
        return 2 * self.n_internal_ + 1

    @property
    def depth_(self) -> int:
        lengths = self.network_.conjunction_lengths()
        return int(lengths.max()) if lengths.size else 0

    @property
    def n_oblique_(self) -> int:
        """The hyperplanes still used that weigh more than one input column (as
        ``n_internal_`` counts the used ones)."""
        coding = getattr(self.estimator_, "coding_", None)
        columns = coding.source_columns if coding is not None else None
        used = self.network_.weights[self.network_.used_hyperplanes()]
        return int(np.count_nonzero(weighs_several(used, columns)))

    @property
    def feature_importances_(self):
        """Not defined: a pruned network keeps hyperplanes in AND units, not a tree whose
        nodes hold the class counts an impurity decrease is measured on."""
        raise AttributeError("a network-pruned model (la, ga) has no feature_importances_: "
                             "its AND units keep no class counts per split; read "
                             "unpruned_tree_'s through estimator_")

    def export_text(self, feature_names=None) -> str:
        """The pruned network's rules; features named as the grown tree names them
        (``feature_names``, else the DataFrame columns it was fitted on, else x1, ...)."""
        if feature_names is None and hasattr(self.estimator_, "feature_names_in_"):
            feature_names = [str(n) for n in self.estimator_.feature_names_in_]
        coding = getattr(self.estimator_, "coding_", None)
        if coding is not None:
            feature_names = coding.feature_names(feature_names)
        return self.network_.to_text(feature_names, [str(c) for c in self.classes_])

    def export_json(self) -> dict:
        return {"classes": self.classes_.tolist(), "network": self.network_.to_dict(),
                "pruning": {k: v for k, v in self.pruning_.items()
                            if isinstance(v, (int, float, str, bool, list))}}


# ------------------------------------------------------------------------- helpers
def _setup(name, estimator, X_grow, y_grow, n_units, sample_weight=None):
    """(tree network, first-layer outputs Y, target codes, row weights or None) after the
    checks; rows of weight 0 are left out (module docstring)."""
    tree = getattr(estimator, "tree_", None)
    if not isinstance(tree, Tree):
        raise ObliqError(f"{name} pruner needs a single-tree estimator with a tree_")
    if len(estimator.classes_) != 2:
        raise ObliqError(f"{name} pruner handles two-class trees only "
                         f"(got {len(estimator.classes_)} classes)")
    target = estimator.encode(y_grow)
    if (target < 0).any():
        raise ObliqError(f"{name} pruner: the sample has a label the tree never saw")
    weights = part_weights(estimator, y_grow, sample_weight)
    X = estimator.tree_input(X_grow)
    weights, X, target = drop_weightless(weights, X, target)
    base = network_from_tree(tree)
    Y = base.first_layer(X)
    return base, Y, target, weights


class _Best:
    """Keep-the-best record: highest accuracy, then fewest hyperplanes, then earliest."""

    def __init__(self, h: int, weights: np.ndarray | None = None):
        self.h = h
        self.weights = weights  # the sample's row weights, read by callers' accuracies
        self.accuracy = -1.0
        self.size = np.inf
        self.selection = None

    def offer(self, selections: np.ndarray, accs: np.ndarray) -> None:
        """Consider P candidates (bool [P, L, M]) with their accuracies, in order."""
        top = accs.max()
        if top < self.accuracy:
            return
        idx = np.flatnonzero(accs == top)
        cand = selections[idx]
        h = self.h
        live = ~(cand[:, :, :h] & cand[:, :, h:]).any(axis=2)
        used = ((cand[:, :, :h] | cand[:, :, h:]) & live[:, :, None]).any(axis=1).sum(axis=1)
        k = int(np.argmin(used))  # first of the smallest
        if top > self.accuracy or used[k] < self.size:
            self.accuracy, self.size = float(top), int(used[k])
            self.selection = cand[k].copy()


def _finish(estimator, base, best: _Best, record: dict, Y, target, n_timing: int,
            watch: Stopwatch):
    weights = best.weights
    """Wrap the kept network and complete the record (t_lrn: CPU seconds since ``watch``
    started; t_exh; sizes)."""
    record["t_lrn"] = watch.read()[1]
    record["train_accuracy"] = best.accuracy
    if n_timing:
        record["t_exh"] = exhaustive_search_time(Y, target, best.selection.shape[0], n_timing,
                                                 weights)
    record["n_hyperplanes_grown"] = base.n_hyperplanes
    network = BooleanNetwork(base.weights, base.thresholds, best.selection)
    record["n_hyperplanes_used"] = int(network.used_hyperplanes().sum())
    return NetworkClassifier(estimator, network, record)


def _unsplit(estimator, base, Y, target, name, weights=None):
    """A tree with no split leaves nothing to choose: its own network, as is."""
    best = _Best(0, weights)
    best.offer(base.selection[None], accuracies(Y, target, base.selection[None], weights))
    record = {"method": name, "sample": "training data", "n_units": base.n_units,
              "note": "tree has no split; nothing to prune"}
    return _finish(estimator, base, best, record, Y, target, 0, Stopwatch())


def exhaustive_search_time(Y: np.ndarray, target: np.ndarray, n_units: int,
                           n_vectors: int = 1000, weights: np.ndarray | None = None) -> float:
    """Estimated CPU seconds to evaluate all 2^(L M) Boolean vectors on the sample.

    Shah & Sastry's footnote 5: time ``n_vectors`` vectors (here the first ones of the
    binary counting order an exhaustive search enumerates, evaluated in batches of 100
    with the same vectorised evaluation the pruners use) and extrapolate linearly. The
    result may be astronomically large (a float, possibly ``inf``).
    """
    m = Y.shape[1]
    bits = n_units * m
    n_vectors = int(max(1, min(n_vectors, 2 ** min(bits, 62))))
    codes = np.arange(n_vectors, dtype=np.uint64)
    shifts = np.arange(bits, dtype=np.uint64) % np.uint64(64)
    vectors = ((codes[:, None] >> shifts[None, :]) & np.uint64(1)).astype(bool)
    vectors[:, 64:] = False  # bits beyond 64 stay 0 in the first 2^62 vectors
    selections = vectors.reshape(n_vectors, n_units, m)
    watch = Stopwatch()
    for lo in range(0, n_vectors, 100):
        accuracies(Y, target, selections[lo:lo + 100], weights)
    elapsed = watch.read()[1]
    return float(elapsed / n_vectors * 2.0 ** bits)


def _initial_probability(value, n_hyperplanes: int) -> float:
    """The start probability: a number in (0, 1) as given, or "sparse" = 1/H (module
    docstring)."""
    if isinstance(value, str) and value == "sparse":
        return 1.0 / max(n_hyperplanes, 1)
    return float(value)


# The declarations of both network pruners. The bounds keep the arrays of a search
# (units x hyperplanes, population x bits, timing vectors x bits) to a sane size.
_UNITS = [Interval(Integral, 1, 1000, closed="both")]
_PROBABILITY = [Interval(Real, 0, 1, closed="both")]
_START = [Interval(Real, 0, 1, closed="neither"), StrOptions({"sparse"})]
_TIMING = [Interval(Integral, 0, 100_000, closed="both")]


# ------------------------------------------------------------------------------ LA
def learning_automata_search(Y: np.ndarray, target: np.ndarray, n_units: int, step: float,
                             max_iterations: int, tol: float, rng: np.random.Generator,
                             chunk: int = 500, q0: np.ndarray | None = None,
                             weights: np.ndarray | None = None):
    """Table V on precomputed first-layer outputs ``Y`` (bool [n, M]).

    Returns (keep-the-best record, final q [L, M], iterations run, converged flag,
    learning curve = best accuracy on the sample after each chunk, the iterations run
    at each point of the curve: ``chunk``, 2 ``chunk``, ..., the last one where the
    search stopped). The automata
    update is sequential by nature (one Python step per pattern); the draws of a chunk
    of iterations are made at once, and the sampled networks of a chunk are scored on
    the whole sample in one matrix product for keep-the-best. ``weights`` (module
    docstring): patterns drawn in proportion to them, accuracies weighted.
    """
    n, m = Y.shape
    c = target.astype(bool)
    zero = ~Y
    q = np.full((n_units, m), 0.5) if q0 is None else np.array(q0, dtype=np.float64)
    # Converged when every |q - 0.5| exceeds margin; never at the start (module docstring).
    start_distance = float(np.minimum(q, 1.0 - q).min()) if q.size else 0.5
    margin = 0.5 - min(tol, start_distance / 2)
    best = _Best(m // 2, weights)
    draw = None if weights is None else weights / weights.sum()
    curve, at = [], []
    order = np.empty(0, dtype=np.int64)
    t = 0
    converged = False
    while t < max_iterations and not converged:
        size = min(chunk, max_iterations - t)
        while order.size < size:
            more = rng.permutation(n) if draw is None else rng.choice(n, size=n, p=draw)
            order = np.concatenate([order, more])
        patterns, order = order[:size], order[size:]
        sampled = np.empty((size, n_units, m), dtype=bool)
        uniforms = rng.random((size, n_units, m))
        done = size
        for k in range(size):
            v = np.less(uniforms[k], q, out=sampled[k])  # step 2
            # Steps 4-6: unit l fires unless it selects a first-layer unit that is 0.
            output = not (v & zero[patterns[k]]).any(axis=1).all()
            if output == c[patterns[k]]:  # step 7: beta = 1
                q += step * (v - q)  # step 8, eq. (9): q + lambda (1 - q) or q (1 - lambda)
                if np.abs(q - 0.5).min() > margin:  # step 9
                    converged = True
                    done = k + 1
                    break
        t += done
        best.offer(sampled[:done], accuracies(Y, target, sampled[:done], weights))
        curve.append(best.accuracy)
        at.append(t)
    modal = (q > 0.5)[None]
    best.offer(modal, accuracies(Y, target, modal, weights))
    if curve:
        curve[-1] = best.accuracy
    return best, q, t, converged, curve, at


@register_pruner(
    "la",
    "LA pruning (Shah & Sastry 1999, Table V): the tree as a 3-layer AND-OR network of its "
    "hyperplanes; learning automata choose the AND units' inputs (fitness on training data)",
    params={"n_units": 2, "step": 0.003, "max_iterations": 50000, "tol": 0.01,
            "q0": 0.5, "n_timing_vectors": 1000},
    uses_prune_set=False,
)
@pruner_parameters("la", {
    "n_units": _UNITS,
    "step": _PROBABILITY,
    "max_iterations": [Interval(Integral, 0, 100_000_000, closed="both")],
    "tol": [Interval(Real, 0, 1, closed="neither")],
    "q0": _START,
    "n_timing_vectors": _TIMING,
})
def prune_learning_automata(
    estimator, X_grow, y_grow, X_prune=None, y_prune=None, *, random_state=None,
    n_units: int = 2, step: float = 0.003, max_iterations: int = 50000, tol: float = 0.01,
    q0: float | str = 0.5, n_timing_vectors: int = 1000, sample_weight=None,
    prune_weight=None,
):
    """LA pruning of a fitted two-class tree; returns a ``NetworkClassifier``.

    ``n_units`` = L, ``step`` = lambda of eq. (9), ``max_iterations``/``tol`` the stopping
    rule of step 9 (module docstring), ``q0`` every q_li(0) (0.5 as §IV-A, or "sparse" =
    1/H, our extension: module docstring), ``n_timing_vectors`` the vectors timed for t_exh
    (0 skips it). The sample is (X_grow, y_grow), the training data, weighed by
    ``sample_weight`` (module docstring); X_prune and prune_weight are ignored.
    """
    watch = Stopwatch()
    base, Y, target, weights = _setup("la", estimator, X_grow, y_grow, n_units, sample_weight)
    start_q = _initial_probability(q0, base.n_hyperplanes)
    if base.n_hyperplanes == 0:
        return _unsplit(estimator, base, Y, target, "la", weights)
    rng = np.random.default_rng(random_state)
    best, q, iterations, converged, curve, at = learning_automata_search(
        Y, target, int(n_units), float(step), int(max_iterations), float(tol), rng,
        q0=np.full((int(n_units), Y.shape[1]), start_q), weights=weights)
    record = {"method": "la", "sample": "training data", "n_units": int(n_units),
              "step": float(step), "q0": start_q, "iterations": iterations,
              "converged": converged,
              "probabilities": q.tolist(), "learning_curve": curve,
              "learning_curve_at": at, "learning_curve_unit": "iteration"}
    return _finish(estimator, base, best, record, Y, target, int(n_timing_vectors), watch)


# ------------------------------------------------------------------------------ GA
SCALING_MULTIPLE = 2.0
"""Goldberg's linear scaling: the best string expects this many copies (C_mult, 1989 ch. 3)."""


def linear_scaling(fitness: np.ndarray, multiple: float = SCALING_MULTIPLE) -> np.ndarray:
    """Goldberg's (1989, ch. 3, "prescale"/"scale") linear fitness scaling f' = a f + b.

    The mean is kept and the best string gets ``multiple`` times the mean; when that
    would make the worst negative, the worst is mapped to 0 instead (the mean still
    kept). A population of equal fitness is left as it is.
    """
    f = np.asarray(fitness, dtype=np.float64)
    f_min, f_avg, f_max = f.min(), f.mean(), f.max()
    if f_max <= f_avg:
        return f.copy()
    if f_min > (multiple * f_avg - f_max) / (multiple - 1.0):
        spread = f_max - f_avg
        a = (multiple - 1.0) * f_avg / spread
        b = f_avg * (f_max - multiple * f_avg) / spread
    else:
        spread = f_avg - f_min
        a = f_avg / spread
        b = -f_min * f_avg / spread
    return np.maximum(a * f + b, 0.0)


def genetic_search(Y: np.ndarray, target: np.ndarray, n_units: int, population_size: int,
                   n_generations: int, crossover: float, mutation: float,
                   rng: np.random.Generator, initial_density: float = 0.5,
                   selection: str = "roulette", weights: np.ndarray | None = None):
    """Goldberg's simple GA over bit strings of the L x M choices (§IV-B).

    Returns (best record, learning curve = best accuracy after each generation). One
    generation: score the population (one matrix product), keep the best, roulette-wheel
    selection of a mating pool (on the raw accuracies, or with ``selection="scaled"`` on
    Goldberg's linearly scaled ones, ``linear_scaling``), single-point crossover of
    consecutive pairs with probability ``crossover``, bit flips with probability
    ``mutation``. The first population's bits are 1 with probability ``initial_density``.
    """
    m = Y.shape[1]
    bits = n_units * m
    pop = rng.random((population_size, bits)) < initial_density
    best = _Best(m // 2, weights)
    curve = []
    positions = np.arange(bits)
    for generation in range(n_generations + 1):
        selections = pop.reshape(population_size, n_units, m)
        fitness = accuracies(Y, target, selections, weights)
        best.offer(selections, fitness)
        curve.append(best.accuracy)
        if generation == n_generations:
            break
        weight = linear_scaling(fitness) if selection == "scaled" else fitness
        total = weight.sum()
        p = weight / total if total > 0 else np.full(population_size, 1.0 / population_size)
        pool = pop[rng.choice(population_size, size=population_size, p=p)]
        n_pairs = population_size // 2
        mates_a, mates_b = pool[0:2 * n_pairs:2], pool[1:2 * n_pairs:2]
        cross = rng.random(n_pairs) < crossover
        cut = rng.integers(1, bits, size=n_pairs) if bits > 1 else np.ones(n_pairs, int)
        swap = cross[:, None] & (positions[None, :] >= cut[:, None])
        child_a = np.where(swap, mates_b, mates_a)
        child_b = np.where(swap, mates_a, mates_b)
        children = pool.copy()
        children[0:2 * n_pairs:2], children[1:2 * n_pairs:2] = child_a, child_b
        pop = children ^ (rng.random(children.shape) < mutation)
    return best, curve


@register_pruner(
    "ga",
    "GA pruning (Shah & Sastry 1999, §IV-B): the tree as a 3-layer AND-OR network of its "
    "hyperplanes; a simple GA chooses the AND units' inputs (fitness on training data)",
    params={"n_units": 2, "population_size": 50, "n_generations": 300, "crossover": 0.7,
            "mutation": 0.03, "initial_density": 0.5, "selection": "roulette",
            "n_timing_vectors": 1000},
    uses_prune_set=False,
)
@pruner_parameters("ga", {
    "n_units": _UNITS,
    "population_size": [Interval(Integral, 2, 100_000, closed="both")],
    "n_generations": [Interval(Integral, 0, 10_000_000, closed="both")],
    "crossover": _PROBABILITY,
    "mutation": _PROBABILITY,
    "initial_density": _START,
    "selection": [StrOptions({"roulette", "scaled"})],
    "n_timing_vectors": _TIMING,
})
def prune_genetic(
    estimator, X_grow, y_grow, X_prune=None, y_prune=None, *, random_state=None,
    n_units: int = 2, population_size: int = 50, n_generations: int = 300,
    crossover: float = 0.7, mutation: float = 0.03, initial_density: float | str = 0.5,
    selection: str = "roulette", n_timing_vectors: int = 1000, sample_weight=None,
    prune_weight=None,
):
    """GA pruning of a fitted two-class tree; returns a ``NetworkClassifier``.

    Fitness = accuracy on (X_grow, y_grow), the training data, weighed by
    ``sample_weight`` (module docstring); X_prune and prune_weight are ignored.
    ``initial_density``: probability of a 1 bit in the first population (0.5, uniform
    random strings as Goldberg's simple GA, or "sparse" = 1/H, our extension: module
    docstring). ``selection``: "roulette" on the raw accuracies, or "scaled" on
    Goldberg's linearly scaled ones (module docstring).
    """
    watch = Stopwatch()
    base, Y, target, weights = _setup("ga", estimator, X_grow, y_grow, n_units, sample_weight)
    density = _initial_probability(initial_density, base.n_hyperplanes)
    if base.n_hyperplanes == 0:
        return _unsplit(estimator, base, Y, target, "ga", weights)
    rng = np.random.default_rng(random_state)
    best, curve = genetic_search(Y, target, int(n_units), int(population_size),
                                 int(n_generations), float(crossover), float(mutation), rng,
                                 initial_density=density, selection=selection,
                                 weights=weights)
    record = {"method": "ga", "sample": "training data", "n_units": int(n_units),
              "initial_density": density, "selection": selection,
              "population_size": int(population_size), "n_generations": int(n_generations),
              "crossover": float(crossover), "mutation": float(mutation),
              "learning_curve": curve,
              # generation 0 is the initial population (genetic_search)
              "learning_curve_at": list(range(len(curve))),
              "learning_curve_unit": "generation"}
    return _finish(estimator, base, best, record, Y, target, int(n_timing_vectors), watch)


__all__ = ["BooleanNetwork", "NetworkClassifier", "evaluate", "accuracies",
           "exhaustive_search_time", "genetic_search", "learning_automata_search",
           "network_from_tree", "prune_genetic", "prune_learning_automata",
           "tree_hyperplanes"]
