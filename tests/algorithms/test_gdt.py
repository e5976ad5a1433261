"""Geometric Decision Tree: the paper's theorems, the eigen-solution, small samples."""

import numpy as np
import pytest
import scipy.linalg

from obliq_cli import load_dataset, make_estimator
from obliq_cli.algorithms.gdt import (
    _augmented_scatter,
    angle_bisectors,
    clustering_hyperplanes,
    most_favoured_direction,
)


def test_generalized_eigen_solution_matches_scipy_eig():
    rng = np.random.default_rng(0)
    for _ in range(5):
        M1, M2 = rng.normal(size=(2, 6, 6))
        num, den = M1 @ M1.T + 0.1 * np.eye(6), M2 @ M2.T + 0.1 * np.eye(6)
        w = most_favoured_direction(num, den)
        values, vectors = scipy.linalg.eig(num, den)
        top = vectors[:, np.argmax(values.real)].real
        cosine = abs(w @ top) / (np.linalg.norm(w) * np.linalg.norm(top))
        assert cosine == pytest.approx(1.0, abs=1e-8)
        assert (w @ num @ w) / (w @ den @ w) == pytest.approx(values.real.max(), rel=1e-9)


def test_equal_covariances_give_the_fisher_direction():
    # Theorem 2: B is A shifted, so both classes have the same sample covariance.
    rng = np.random.default_rng(1)
    A = rng.normal(size=(200, 3)) @ np.array([[2.0, 0.3, 0], [0, 1.0, 0.5], [0, 0, 0.7]])
    B = A + np.array([1.5, -0.5, 1.0])
    w1, w2 = clustering_hyperplanes(A, B)
    np.testing.assert_allclose(abs(w1[:-1] @ w2[:-1]), 1.0, atol=1e-8)  # parallel
    sigma = np.cov(A.T, bias=True)
    fisher = np.linalg.solve(sigma, A.mean(0) - B.mean(0))
    split = [w for w in angle_bisectors(w1, w2) if np.linalg.norm(w[:-1]) > 0.5][0]
    cosine = abs(split[:-1] @ fisher) / (np.linalg.norm(split[:-1]) * np.linalg.norm(fisher))
    assert cosine == pytest.approx(1.0, abs=1e-8)


def test_equal_means_put_both_clustering_hyperplanes_through_the_mean():
    # Theorem 3: same mean, different covariances.
    rng = np.random.default_rng(2)
    A = rng.normal(size=(300, 3)) * [3.0, 1.0, 0.5]
    B = rng.normal(size=(250, 3)) * [0.5, 2.0, 1.0]
    A += 1.0 - A.mean(0)
    B += 1.0 - B.mean(0)
    for w in clustering_hyperplanes(A, B):
        assert w[:-1] @ np.ones(3) + w[-1] == pytest.approx(0.0, abs=1e-9)


def test_fewer_points_than_features_take_the_null_space_path():
    rng = np.random.default_rng(3)
    A, B = rng.normal(size=(3, 8)), rng.normal(size=(4, 8)) + 1.0
    G = _augmented_scatter(A)
    assert np.linalg.matrix_rank(G) < 9
    w1, w2 = clustering_hyperplanes(A, B)
    assert w1 is not None and w2 is not None
    # w1 lies in G's null space: it passes through every row of A exactly.
    np.testing.assert_allclose(np.hstack([A, np.ones((3, 1))]) @ w1, 0.0, atol=1e-9)
    X = np.vstack([A, B])
    y = np.array([0] * 3 + [1] * 4)
    est = make_estimator("gdt").fit(X, y)
    assert est.score(X, y) == 1.0


def test_two_by_two_checkerboard_grows_four_leaves_at_depth_two():
    X, y, _ = load_dataset("checker2x2")
    est = make_estimator("gdt", epsilon1=0.1).fit(X, y)
    assert (est.n_leaves_, est.depth_) == (4, 2)
    assert est.score(X, y) > 0.97


def gdt_stops(counts, parent, eta_of="node", n_train=1000):
    """Whether GDT's finder stops a child with class ``counts`` of a parent with
    ``parent`` counts (epsilon1 = 0.1, epsilon2 = 0.9), fitted on ``n_train`` rows."""
    from obliq_cli.algorithms.gdt import GDTSplitFinder
    from obliq_cli.tree.builder import Node

    finder = GDTSplitFinder(0.1, 0.9, eta_of)
    finder.prepare(np.zeros((n_train, 1)), np.zeros(n_train, dtype=np.int64), len(counts),
                   np.random.default_rng(0))
    counts = np.asarray(counts, dtype=np.int64)
    return finder.stop_node(Node(np.arange(counts.sum()), counts, 1, np.asarray(parent)))


def test_multiclass_rules_reduce_to_algorithm_one_for_two_classes():
    parent = np.array([60, 40])
    assert gdt_stops([50, 4], parent)       # minority 4/54 < 0.1
    assert not gdt_stops([50, 10], parent)  # 10/60 >= 0.1
    assert gdt_stops([3, 40], parent)       # eta1 < .1, eta2 >= .9
    # Three classes: the parent's majority (class 0) is rare in the child, which is mixed.
    assert not gdt_stops([1, 20, 19], [50, 30, 20])
    assert gdt_stops([1, 38, 1], [50, 30, 20])


def test_the_root_is_never_stopped_by_the_eta_rules():
    from obliq_cli.algorithms.gdt import GDTSplitFinder
    from obliq_cli.tree.builder import Node

    finder = GDTSplitFinder(0.1, 0.9, "node")
    finder.prepare(np.zeros((54, 1)), np.zeros(54, dtype=np.int64), 2,
                   np.random.default_rng(0))
    assert not finder.stop_node(Node(np.arange(54), np.array([50, 4])))  # root: no parent
    assert gdt_stops([50, 4], [60, 40])  # the same counts below a parent stop


def test_the_builder_applies_the_eta_rules_gdt_declares():
    """GDT's finder no longer stops nodes itself: the builder asks its ``stop_node``.
    Every split node of a fitted tree passes the rule, and some leaves are its work
    (impure, below max_depth)."""
    from obliq_cli.tree.builder import Node

    X, y, _ = load_dataset("wine")
    est = make_estimator("gdt", epsilon1=0.2).fit(X, y)
    tree = est.tree_
    finder = est._make_split_finder()
    finder.prepare(X, y, 3, np.random.default_rng(0))
    parent = tree.parent()
    stopped = []
    for i in range(1, tree.n_nodes):  # a loop over nodes
        counts = tree.value[i].astype(np.int64)
        view = Node(np.arange(counts.sum()), counts, 1, tree.value[parent[i]].astype(np.int64))
        stopped.append(finder.stop_node(view))
        assert not (stopped[-1] and not tree.is_leaf[i])
    impure = np.count_nonzero(tree.value[1:], axis=1) > 1
    assert (np.array(stopped) & impure).any()


def test_multiclass_gdt_on_wine_is_accurate_and_small():
    X, y, _ = load_dataset("wine")
    est = make_estimator("gdt").fit(X[::2], y[::2])
    assert est.score(X[1::2], y[1::2]) > 0.85 and est.n_leaves_ <= 8


def test_eta_of_root_divides_by_the_training_rows():
    parent = np.array([600, 400])
    # A child of 100 rows with 30 minority rows: 30% of the node, 3% of 1000 rows.
    assert not gdt_stops([70, 30], parent)
    assert gdt_stops([70, 30], parent, eta_of="root", n_train=1000)
    X, y, _ = load_dataset("pima")
    node = make_estimator("gdt", eta_of="node").fit(X, y)
    root = make_estimator("gdt", eta_of="root").fit(X, y)
    assert root.n_leaves_ < node.n_leaves_ / 5


def test_eta_of_parent_divides_by_the_parent_rows():
    # A child of 100 rows (70 / 30) of a parent of 400: its minority is 30% of the child
    # but 7.5% of the parent, so only the parent reading stops it.
    parent = np.array([240, 160])
    assert not gdt_stops([70, 30], parent, eta_of="node")
    assert gdt_stops([70, 30], parent, eta_of="parent")
    assert not gdt_stops([70, 50], parent, eta_of="parent")  # 50 / 400 = 12.5%
    # The parent reading lies between the others: a child stops no later than with
    # 'node' and no earlier than with 'root' (every node has at most the training rows).
    X, y, _ = load_dataset("pima")
    leaves = {eta: make_estimator("gdt", eta_of=eta).fit(X, y).n_leaves_
              for eta in ("node", "parent", "root")}
    assert leaves["root"] <= leaves["parent"] <= leaves["node"]


def test_epsilon1_grid_picks_the_best_cross_validated_value():
    from sklearn.model_selection import StratifiedKFold

    from obliq_cli.algorithms.base import as_rng

    X, y, _ = load_dataset("heart")
    grid = [0.1, 0.15, 0.2]
    est = make_estimator("gdt", epsilon1_grid=grid, random_state=3).fit(X, y)
    # The same five folds by hand: each value's mean accuracy, the first best wins.
    seed = int(as_rng(3).integers(2**31 - 1))
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    scores = [np.mean([make_estimator("gdt", epsilon1=e).fit(X[tr], y[tr]).score(X[te], y[te])
                       for tr, te in folds.split(X, y)]) for e in grid]
    assert est.best_params_ == {"epsilon1": grid[int(np.argmax(scores))]}
    # ... and the tree is grown on all rows with that value.
    fixed = make_estimator("gdt", epsilon1=est.best_params_["epsilon1"]).fit(X, y)
    np.testing.assert_array_equal(est.predict(X), fixed.predict(X))
    assert est.n_leaves_ == fixed.n_leaves_
    # A one-value grid is that value, whatever epsilon1 says.
    one = make_estimator("gdt", epsilon1=0.1, epsilon1_grid=[0.2]).fit(X, y)
    assert one.n_leaves_ == make_estimator("gdt", epsilon1=0.2).fit(X, y).n_leaves_


def test_gini_of_classes_is_the_same_split_with_two_classes_and_the_class_gini():
    from obliq_cli.algorithms.gdt import GDTSplitFinder
    from obliq_cli.tree.builder import split_whole

    X, y, _ = load_dataset("pima")
    groups = make_estimator("gdt", gini_of="groups").fit(X, y)
    classes = make_estimator("gdt", gini_of="classes").fit(X, y)
    np.testing.assert_array_equal(groups.tree_.weights, classes.tree_.weights)
    # Three classes: the score is the gini over the classes of the children.
    X, y, _ = load_dataset("wine")
    codes = np.unique(y, return_inverse=True)[1]
    split = split_whole(GDTSplitFinder(0.1, 0.9, gini_of="classes"), X, codes, 3)
    left = X @ split.weights <= split.threshold
    by_hand = sum(side.mean() * (1 - np.sum(np.bincount(codes[side], minlength=3) ** 2)
                                 / side.sum() ** 2) for side in (left, ~left))
    assert split.score == pytest.approx(by_hand, rel=1e-12)


def test_a_denominator_singular_to_working_precision_takes_the_null_space_path():
    # Standardised balance-scale rows: at some node a column is constant on one class,
    # G's smallest eigenvalue lies just above the rank tolerance and its Cholesky
    # factor fails; the tree must take the null-space rule there, not raise.
    from sklearn.model_selection import KFold

    X, y, _ = load_dataset("balance")
    train = next(KFold(10, shuffle=True, random_state=0).split(X))[0]
    Z = (X[train] - X[train].mean(0)) / X[train].std(0)
    est = make_estimator("gdt", epsilon1=0.1).fit(Z, y[train])
    assert est.score(Z, y[train]) > 0.85


def test_cholesky_failure_falls_back_to_the_smallest_eigenvectors():
    from obliq_cli.algorithms import gdt

    rng = np.random.default_rng(5)
    Q = np.linalg.qr(rng.normal(size=(4, 4)))[0]
    den = Q @ np.diag([1e-14, 1.0, 2.0, 3.0]) @ Q.T  # above the rank tolerance
    num = np.eye(4)
    # try_generalized=False: the branch taken when den's Cholesky factorisation fails
    w = gdt.most_favoured_direction(num, den, try_generalized=False)
    # The null space taken is den's smallest eigenvector, so w is that vector.
    assert abs(w @ Q[:, 0]) / np.linalg.norm(w) == pytest.approx(1.0, abs=1e-12)
    # Through the generalized solver (den is positive definite here) the answer is
    # scipy's top generalized eigenvector, the same direction.
    from scipy.linalg import eigh

    w = gdt.most_favoured_direction(num, den)
    top = eigh(num, den)[1][:, -1]
    assert abs(w @ top) / np.linalg.norm(w) / np.linalg.norm(top) == pytest.approx(
        1.0, abs=1e-6)


@pytest.mark.slow
def test_sklearn_estimator_checks_pass_with_the_readings_of_the_ablation():
    from sklearn.utils.estimator_checks import check_estimator

    from obliq_cli import expected_failed_checks

    for params in ({"eta_of": "parent", "gini_of": "classes"},
                   {"eta_of": "root", "epsilon1_grid": [0.1, 0.2], "random_state": 0}):
        check_estimator(make_estimator("gdt", **params),
                        expected_failed_checks=expected_failed_checks("gdt"))


def test_the_factor_certificate_never_skips_a_rank_decision_it_would_change():
    """kernels.gdt.most_favoured_direction skips den's eigendecomposition when den's
    Cholesky factor proves every eigenvalue above numpy's rank tolerance. Across
    condition numbers from 1 to beyond 1 / eps (the tolerance's own neighbourhood
    included), whenever the certificate holds the QL eigenvalues indeed clear the
    tolerance, and the direction is the generalized solver's top vector, bit for bit:
    the answer the decomposition would have led to."""
    from obliq_cli.kernels import gdt as gdt_kernels
    from obliq_cli.kernels import linalg

    eps = np.finfo(float).eps
    rng = np.random.default_rng(11)
    held = refused = 0
    for exponent in np.linspace(0, 17, 69):
        for p in (3, 7, 17):
            Q = np.linalg.qr(rng.normal(size=(p, p)))[0]
            spectrum = np.logspace(0, -exponent, p) * 10.0 ** rng.integers(-3, 4)
            den = Q @ np.diag(spectrum) @ Q.T
            den = (den + den.T) / 2
            num = (lambda M: M @ M.T)(rng.normal(size=(p, p)))
            L, factored = linalg.cholesky(den)
            if not factored:
                continue
            if not gdt_kernels.surely_above_rank_tolerance(L, float(np.trace(den))):
                refused += 1
                continue
            held += 1
            values = linalg.eigh_ql(den)[0]  # the solver GDT decides with
            assert values[0] > max(abs(values[-1]), 1e-300) * p * eps
            w, found = gdt_kernels.most_favoured_direction(num, den, float(np.trace(num)),
                                                           True)
            top = linalg.eigh_generalized(num, den)[1][:, -1]
            assert found and np.array_equal(w, top)
    assert held > 50 and refused > 50  # both sides of the certificate were exercised


# ------------------------------------------------------------------ collinear columns
def _breast_cancer_and_probes():
    """scikit-learn's breast cancer and as many rows jittered by a tenth of each
    column's sd (rows no tree was grown on, near its hyperplanes)."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    return X, y, X + rng.normal(size=X.shape) * X.std(axis=0) / 10


@pytest.mark.parametrize("extend", [
    pytest.param(lambda X: np.column_stack([X, np.full(len(X), 3.7)]), id="constant-last"),
    pytest.param(lambda X: np.column_stack([np.full(len(X), 3.7), X]), id="constant-first"),
    pytest.param(lambda X: np.column_stack([X, X[:, 4]]), id="duplicate"),
    pytest.param(lambda X: np.column_stack([X, X[:, 0] - 2.5 * X[:, 3]]), id="combination"),
    pytest.param(lambda X: np.column_stack([X[:, :10], X[:, 2], X[:, 10:],
                                            X[:, 7] + X[:, 21], np.zeros(len(X))]),
                 id="all-three"),
])
def test_a_constant_duplicated_or_combined_column_changes_no_tree(extend):
    """Each of these made the root's G and H share a null space and GDT a
    single leaf (62.7 % on breast cancer). Placed after the columns it depends on (a
    constant anywhere), the column is dropped on the training set and every node solves
    the clean data's problem: the same tree, the same predictions on unseen rows."""
    X, y, X_test = _breast_cancer_and_probes()
    clean = make_estimator("gdt").fit(X, y)
    extended = make_estimator("gdt").fit(extend(X), y)
    assert clean.n_leaves_ == 12
    assert extended.n_leaves_ == clean.n_leaves_ and extended.depth_ == clean.depth_
    np.testing.assert_array_equal(extended.predict(extend(X_test)), clean.predict(X_test))
    np.testing.assert_array_equal(extended.predict(extend(X)), clean.predict(X))


def test_a_column_constant_in_training_moves_no_test_row():
    # Its weight is exactly 0, so rows reaching a node with another value of it are
    # sent where the training value would send them.
    X, y, X_test = _breast_cancer_and_probes()
    est = make_estimator("gdt").fit(np.column_stack([X, np.full(len(X), 3.7)]), y)
    assert np.all(est.tree_.weights[:, -1] == 0.0)
    other = np.column_stack([X_test, np.linspace(-1e6, 1e6, len(X_test))])
    clean = make_estimator("gdt").fit(X, y)
    np.testing.assert_array_equal(est.predict(other), clean.predict(X_test))


def test_a_one_hot_nominal_column_no_longer_gives_one_leaf():
    """A 3-level nominal column one-hot encoded (obliq's default ``nominal: onehot``):
    its levels sum to the bias column, so the last is dropped on the training set. The
    other two are genuine new columns (random here, so noise) that enter G and H: the
    clustering hyperplanes and the tree differ from the clean data's, and no equality can
    hold. What holds: a tree grows, and its 5-fold CV accuracy is within 3 points of the
    clean data's (before the fix: one leaf, 62.7 %, the majority rate)."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    X, y = load_breast_cancer(return_X_y=True)
    level = np.random.default_rng(0).integers(0, 3, len(y))
    encoded = np.column_stack([X, (level[:, None] == np.arange(3)).astype(np.float64)])
    est = make_estimator("gdt").fit(encoded, y)
    assert est.n_leaves_ > 5
    assert np.all(est.tree_.weights[:, -1] == 0.0)  # the dropped level
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    clean = cross_val_score(make_estimator("gdt"), X, y, cv=folds).mean()
    onehot = cross_val_score(make_estimator("gdt"), encoded, y, cv=folds).mean()
    assert clean > 0.9 and abs(onehot - clean) < 0.03


def test_a_constant_column_by_hand():
    """One feature and a constant column. A = {-1, 1}, B = {4, 6}: with w~ = (1, 0, b),
    problem 1 maximises ((4 + b)^2 + (6 + b)^2) / ((b - 1)^2 + (b + 1)^2)
    = (b^2 + 10 b + 26) / (b^2 + 1), stationary where b^2 + 5 b - 1 = 0: the maximum at
    b1 = (-5 + sqrt 29) / 2, the minimum (problem 2) at b2 = (-5 - sqrt 29) / 2. Both
    hyperplanes are x = -b, so the split is midway: x = -(b1 + b2) / 2 = 2.5. The old
    code found no direction at all: (0, 1, -7) / |.| lies in both null spaces, and H
    vanishes on G's null space, so the tree was one leaf."""
    from obliq_cli.algorithms.gdt import GDTSplitFinder
    from obliq_cli.tree.builder import split_whole

    X = np.array([[-1.0, 7.0], [1.0, 7.0], [4.0, 7.0], [6.0, 7.0]])
    y = np.array([0, 0, 1, 1])
    G, H = _augmented_scatter(X[:2]), _augmented_scatter(X[2:])
    assert most_favoured_direction(H, G) is None and most_favoured_direction(G, H) is None
    w1, w2 = clustering_hyperplanes(X[:2], X[2:])
    np.testing.assert_allclose(w1, [1.0, 0.0, (-5 + np.sqrt(29)) / 2], rtol=1e-12)
    np.testing.assert_allclose(w2, [1.0, 0.0, (-5 - np.sqrt(29)) / 2], rtol=1e-12)
    split = split_whole(GDTSplitFinder(0.1, 0.9), X, y, 2)
    assert split.weights[1] == 0.0
    assert split.threshold / split.weights[0] == pytest.approx(2.5, rel=1e-12)
    est = make_estimator("gdt").fit(X, y)
    assert est.n_leaves_ == 2
    np.testing.assert_array_equal(est.predict([[2.4, 7.0], [2.6, -3.0]]), [0, 1])


def test_a_node_drops_its_own_dependent_columns_only_when_the_paper_finds_nothing():
    # x3 = x1 + x2 on these rows only (no training set says so): the paper's rules find
    # nothing, x3 is dropped at the node, and the answer is the two-column one, bit for
    # bit, with weight 0 on x3.
    rng = np.random.default_rng(7)
    A, B = rng.normal(size=(12, 2)), rng.normal(size=(9, 2)) * [0.5, 2.0] + [1.0, 0.0]
    w1, w2 = clustering_hyperplanes(A, B)
    wide = [np.column_stack([M, M[:, 0] + M[:, 1]]) for M in (A, B)]
    G, H = _augmented_scatter(wide[0]), _augmented_scatter(wide[1])
    assert most_favoured_direction(H, G) is None  # the old code's one leaf
    v1, v2 = clustering_hyperplanes(*wide)
    np.testing.assert_array_equal(v1, np.insert(w1, 2, 0.0))
    np.testing.assert_array_equal(v2, np.insert(w2, 2, 0.0))
    # Fewer rows than columns, where §II-B finds its hyperplanes: no column is dropped
    # (the minimum-norm solution weights all eight).
    A, B = rng.normal(size=(3, 8)), rng.normal(size=(4, 8)) + 1.0
    w1, w2 = clustering_hyperplanes(A, B)
    assert np.all(w1[:-1] != 0.0) and np.all(w2[:-1] != 0.0)
