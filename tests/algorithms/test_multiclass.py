"""One-vs-one / one-vs-rest wrappers around a two-class tree."""

import numpy as np
import pytest

from obliq_cli import make_estimator
from obliq_cli.algorithms.multiclass import OneVsOneTrees, OneVsRestTrees
from obliq_cli.pruning.validation import reduced_error_prune
from obliq_cli.registry import get_pruner


def blobs(n=300, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0], [3.0, 0.0], [1.5, 3.0]])
    y = rng.integers(0, 3, n)
    return centers[y] + rng.normal(0, 0.6, (n, 2)), np.array(["a", "b", "c"])[y]


@pytest.mark.parametrize("name,n_trees", [("umt-ovo", 3), ("umt-ovr", 3)])
def test_every_class_is_predicted_and_sizes_are_sums(name, n_trees):
    X, y = blobs()
    m = make_estimator(name, random_state=0).fit(X, y)
    assert len(m.estimators_) == n_trees
    pred = m.predict(X)
    assert set(pred) == {"a", "b", "c"}
    assert (pred == y).mean() > 0.9
    assert m.n_nodes_ == sum(t.n_nodes_ for t in m.estimators_)
    assert m.n_leaves_ == sum(t.n_leaves_ for t in m.estimators_)
    assert m.depth_ == max(t.depth_ for t in m.estimators_)
    proba = m.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert (m.classes_[proba.argmax(axis=1)] == pred).all()


def test_votes_are_summed_member_posteriors():
    X, y = blobs(seed=1)
    ovo = make_estimator("umt-ovo", random_state=2).fit(X, y)
    votes = np.zeros((len(X), 3))
    for (i, j), tree in zip([(0, 1), (0, 2), (1, 2)], ovo.estimators_):
        p = tree.predict_proba(X)
        votes[:, i] += p[:, 0]
        votes[:, j] += p[:, 1]
    assert np.allclose(ovo.votes(X), votes)
    ovr = make_estimator("umt-ovr", random_state=2, members="two_class").fit(X, y)
    votes = np.c_[[t.predict_proba(X)[:, 0] for t in ovr.estimators_]].T
    assert np.allclose(ovr.votes(X), votes)
    # member problems: pair rows only / everything relabelled
    assert len(ovo.estimators_[0].tree_.value[0]) == 2
    assert ovo.estimators_[0].tree_.value[0].sum() == np.isin(y, ["a", "b"]).sum()
    assert ovr.estimators_[2].tree_.value[0].tolist() == [(y == "c").sum(), (y != "c").sum()]


def test_author_one_vs_rest_members_are_k_class_trees_that_vote_every_class():
    """umt-ovr's default (ISELL train_svmtree): member i grows on all rows with their
    three labels, only eq. 4 sees class i against the rest, and every member adds all
    three leaf posteriors to the votes."""
    X, y = blobs(seed=1)
    ovr = make_estimator("umt-ovr", random_state=2).fit(X, y)
    assert ovr.members == "all_classes"
    votes = sum(t.predict_proba(X) for t in ovr.estimators_)
    assert np.allclose(ovr.votes(X), votes)
    counts = [(y == c).sum() for c in "abc"]
    for i, member in enumerate(ovr.estimators_):
        assert member.positive_class == i
        assert member.tree_.value[0].tolist() == counts
        leaves = member.tree_.value[member.tree_.is_leaf]
        # grown until every leaf is pure in the three classes (or cannot be split)
        assert (leaves > 0).sum(axis=1).min() == 1


def test_generic_wrappers_take_any_two_class_tree_and_seed_reproduces():
    X, y = blobs(seed=3)
    for cls in (OneVsOneTrees, OneVsRestTrees):
        m = cls(make_estimator("cart-ap"), random_state=0).fit(X, y)
        assert set(m.predict(X)) == set(y)
    a = make_estimator("umt-ovr", random_state=5).fit(X, y)
    b = make_estimator("umt-ovr", random_state=5).fit(X, y)
    assert [t.tree_.to_json() for t in a.estimators_] == [t.tree_.to_json() for t in b.estimators_]


def test_validation_pruner_prunes_each_member_on_its_problem():
    X, y = blobs(400, seed=4)
    Xg, yg, Xv, yv = X[:250], y[:250], X[250:], y[250:]
    for name in ("umt-ovo", "umt-ovr"):
        m = make_estimator(name, random_state=0).fit(Xg, yg)
        grown = [t.tree_ for t in m.estimators_]
        m = get_pruner("validation")(m, Xg, yg, Xv, yv)
        codes = m.encode(yv)
        for k, (tree, member) in enumerate(zip(grown, m.estimators_)):
            Xm, ym = m.member_problem(k, Xv, codes)
            expected, _ = reduced_error_prune(tree, Xm, ym)
            assert member.tree_.to_json() == expected.to_json()
            assert member.unpruned_tree_ is tree
        assert len(m.pruning_["members"]) == 3
        assert m.n_nodes_ == sum(t.n_nodes_ for t in m.estimators_)


@pytest.mark.parametrize("name", ["umt-ovo", "umt-ovr"])
def test_rules_name_the_data_columns_and_the_wrapper_classes(name):
    # the members grow on plain arrays with codes 0 / 1; their rules must still read in
    # the user's column names and class labels, as a single tree's do
    import pandas as pd

    X, y = blobs(seed=4)
    frame = pd.DataFrame(X, columns=["width", "height"])
    text = make_estimator(name, random_state=0).fit(frame, y).export_text()
    rules = [line for line in text.splitlines() if "<=" in line or ">" in line]
    assert rules and all("width" in r or "height" in r for r in rules)
    assert "x1" not in text and "x2" not in text
    leaves = {line.split("class ")[1].split(" [")[0] for line in text.splitlines()
              if "class " in line}
    assert leaves <= {"a", "b", "c", "rest"} and leaves - {"rest"}
    if name == "umt-ovr":
        # the author's members keep the three classes in their leaves; the two-class
        # members name their other side "rest"
        assert "# tree a vs rest" in text and "rest" not in leaves
        two = make_estimator(name, random_state=0, members="two_class").fit(frame, y)
        assert "rest" in {line.split("class ")[1].split(" [")[0]
                          for line in two.export_text().splitlines() if "class " in line}
    # names given explicitly win; the generic wrapper does the same
    m = OneVsOneTrees(make_estimator("cart-ap"), random_state=0).fit(X, y)
    named = m.export_text(["u", "v"])
    assert "u <=" in named or "v <=" in named
    assert {line.split("class ")[1].split(" [")[0] for line in named.splitlines()
            if "class " in line} <= {"a", "b", "c"}
