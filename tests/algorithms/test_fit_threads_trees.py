"""One fit on several threads grows the tree of one thread (``n_threads``).

HHCART(A) and HHCART(D) score a large node's reflections on the fit's threads and
compare them afterwards in the order of one thread; UMT's one-vs-rest and one-vs-one
wrappers fit their members on the threads, each member seeded before any is fitted. Each
test fits with 1, 2 and 3 threads, records that the threads really shared the work
(``FitThreads.map`` called on more than one thread with more than one unit, from the
code under test), and compares everything the fingerprint tests compare.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.datasets import make_classification
from test_fingerprints import differences, fingerprint  # what the fingerprints compare

from obliq_cli.algorithms import hhcart
from obliq_cli.errors import ObliqError
from obliq_cli.fit_threads import FitThreads
from obliq_cli.registry import make_estimator

THREAD_COUNTS = (1, 2, 3)


def _data(n_rows: int, n_features: int, n_classes: int, ties: bool = False):
    X, y = make_classification(n_samples=n_rows, n_features=n_features,
                               n_informative=n_features - 1, n_redundant=0,
                               n_classes=n_classes, n_clusters_per_class=1,
                               class_sep=0.8, random_state=7)
    # coarse integer values: many equally good splits, so the tie rule decides
    return (np.round(X * 2.0) if ties else X), y


@pytest.fixture
def shared_work(monkeypatch):
    """The units each ``FitThreads.map`` on more than one thread was given, by the
    function that asked (its ``__qualname__``)."""
    calls: dict[str, list[int]] = {}
    plain_map = FitThreads.map

    def recording_map(self, fn, items):
        items = list(items)
        if self.n > 1 and len(items) > 1:
            calls.setdefault(fn.__qualname__, []).append(len(items))
        return plain_map(self, fn, items)

    monkeypatch.setattr(FitThreads, "map", recording_map)
    return calls


def _fits(name: str, X, y, **params) -> list[dict]:
    out = []
    for n_threads in THREAD_COUNTS:
        estimator = make_estimator(name, n_threads=n_threads, **params).fit(X, y)
        out.append({"fingerprint": fingerprint(estimator, X),
                    "export": json.dumps(estimator.export_json(), sort_keys=True)})
    return out


def _assert_same(fits: list[dict]) -> None:
    one = fits[0]
    for n_threads, other in zip(THREAD_COUNTS[1:], fits[1:]):
        assert not differences(one["fingerprint"], other["fingerprint"]), n_threads
        assert other["fingerprint"] == one["fingerprint"], n_threads  # to the last bit
        assert other["export"] == one["export"], n_threads


@pytest.mark.parametrize("name", ["hhcart-a", "hhcart-d"])
def test_hhcart_grows_one_tree_for_every_thread_count(name, shared_work):
    # sized so that the top nodes reach the threaded path at its own threshold: the root
    # reflects 8 x 8 columns a class (HHCART(A)) or 8 (HHCART(D)) of every row
    n_rows, p, k = (800, 8, 5) if name == "hhcart-a" else (2000, 16, 7)
    X, y = _data(n_rows, p, k)
    columns = p * p * k if name == "hhcart-a" else p * k
    assert n_rows * columns >= hhcart.THREADED_MIN_VALUES
    _assert_same(_fits(name, X, y))
    chunks = shared_work.get("find_householder_split.<locals>.search")
    assert chunks, "no node spread its reflections over the threads"
    # every class's eigenvectors of the root fit one chunk: one unit per class
    assert max(chunks) == k
    # only nodes of 2 and 3 threads spread; 1 thread never calls a pool
    assert set(shared_work) == {"find_householder_split.<locals>.search"}


@pytest.mark.parametrize("name, params", [
    ("hhcart-a", {}),
    ("hhcart-d", {}),
    ("hhcart-a", {"axis_parallel": False}),
    ("hhcart-a", {"class_weight": "balanced"}),
    ("hhcart-d", {"eigenvector_sign": "both", "class_weight": "balanced"}),
])
def test_hhcart_ties_go_the_way_of_one_thread_at_every_node(name, params, shared_work,
                                                           monkeypatch):
    # every node on the threads, on integer-valued columns full of tied splits
    monkeypatch.setattr(hhcart, "THREADED_MIN_VALUES", 0)
    ties = []
    compare = hhcart.strictly_better

    def counting(incumbent, challenger, margin=0.0):
        if (challenger is not None and challenger is not incumbent
                and challenger.feature < 0 and incumbent.feature < 0
                and challenger.score == incumbent.score):
            ties.append(1)  # two reflections equally good: the earlier one must win
        return compare(incumbent, challenger, margin)

    monkeypatch.setattr(hhcart, "strictly_better", counting)
    X, y = _data(300, 5, 4, ties=True)
    _assert_same(_fits(name, X, y, **params))
    assert ties, "no two reflected splits tied: the tie rule went untested"
    nodes = shared_work["find_householder_split.<locals>.search"]
    # 2 and 3 threads spread the same nodes' searches, many of them
    assert len(nodes) % 2 == 0 and len(nodes) >= 10


def test_hhcart_with_qualitative_columns_hands_its_threads_to_the_inner_search(
        shared_work, monkeypatch):
    # the crimcoord wrapper searches each node through HHCART's own finder
    monkeypatch.setattr(hhcart, "THREADED_MIN_VALUES", 0)
    X, y = _data(300, 5, 4, ties=True)
    X[:, 0] = np.abs(X[:, 0]) % 3  # a qualitative column of codes 0, 1, 2
    _assert_same(_fits("hhcart-a", X, y, categorical_features=[0]))
    assert shared_work["find_householder_split.<locals>.search"]


def test_hhcart_chunks_do_not_depend_on_the_thread_count(monkeypatch):
    # a chunk of at most _CHUNK_VALUES values: the chunks (and so a weighted search's
    # sums) are the node's, whatever the threads; several per class here
    monkeypatch.setattr(hhcart, "_CHUNK_VALUES", 300 * 5 * 2)
    monkeypatch.setattr(hhcart, "THREADED_MIN_VALUES", 0)
    X, y = _data(300, 5, 3, ties=True)
    _assert_same(_fits("hhcart-a", X, y, class_weight="balanced"))


@pytest.mark.parametrize("name, params", [
    ("umt-ovr", {}),
    ("umt-ovr", {"members": "two_class"}),
    ("umt-ovo", {}),
    ("umt-ovo", {"class_weight": "balanced"}),
])
def test_umt_members_are_the_same_for_every_thread_count(name, params, shared_work):
    k = 5
    X, y = _data(150, 4, k)
    fits = _fits(name, X, y, random_state=3, **params)
    _assert_same(fits)
    members = k if name == "umt-ovr" else k * (k - 1) // 2
    assert shared_work == {"_DecompositionTrees.fit.<locals>.fit_member": [members] * 2}
    # the members draw their validation quarters: another seed grows other trees, so
    # equality above is not a tree that ignores its seed
    other = make_estimator(name, n_threads=2, random_state=4, **params).fit(X, y)
    assert json.dumps(other.export_json(), sort_keys=True) != fits[0]["export"]


def test_umt_member_seeds_do_not_depend_on_the_order_members_are_fitted(monkeypatch):
    # members fitted last to first on one thread grow what members fitted in order do
    X, y = _data(150, 4, 4)
    in_order = make_estimator("umt-ovo", n_threads=1, random_state=5).fit(X, y)

    def backwards_map(self, fn, items):
        items = list(items)
        return [fn(item) for item in items[::-1]][::-1]

    monkeypatch.setattr(FitThreads, "map", backwards_map)
    reversed_fit = make_estimator("umt-ovo", n_threads=1, random_state=5).fit(X, y)
    assert json.dumps(reversed_fit.export_json(), sort_keys=True) == \
        json.dumps(in_order.export_json(), sort_keys=True)


def test_a_weighted_wrapper_refuses_a_member_without_sample_weight_before_fitting():
    from sklearn.neighbors import KNeighborsClassifier

    from obliq_cli.algorithms.multiclass import OneVsRestTrees

    X, y = _data(60, 4, 3)
    with pytest.raises(ObliqError, match="takes no sample_weight"):
        OneVsRestTrees(KNeighborsClassifier(3)).fit(X, y, sample_weight=np.arange(1, 61))
