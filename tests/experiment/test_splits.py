"""Protocols: folds partition the data, depend only on their seeds, respect strata."""

from types import SimpleNamespace

import numpy as np
import pytest

from obliq_cli.experiment.protocols import ROLE_PRUNE, ROLE_TEST, fold_record, make_splits


def protocol(**kw):
    base = dict(name="kfold", folds=5, repeats=3, stratified=False, prune_fraction=None,
                test_fraction=None, train_size=None, test_size=None)
    base.update(kw)
    return SimpleNamespace(**base)


Y = np.array([0] * 70 + [1] * 25 + [2] * 8)


@pytest.mark.parametrize("stratified", [False, True])
@pytest.mark.parametrize("prune", [None, 0.1])
def test_kfold_parts_partition_every_repetition(stratified, prune):
    splits = make_splits(protocol(stratified=stratified, prune_fraction=prune), Y, {}, 7, "d")
    assert len(splits) == 15
    n = Y.size
    for rep in range(3):
        tested = np.concatenate([s.test for s in splits if s.repetition == rep])
        np.testing.assert_array_equal(np.sort(tested), np.arange(n))  # each row once
    for s in splits:
        parts = np.concatenate([s.train, s.prune, s.test])
        np.testing.assert_array_equal(np.sort(parts), np.arange(n))  # disjoint, complete
        if prune:
            assert s.prune.size == round(0.1 * (s.train.size + s.prune.size))
        else:
            assert s.prune.size == 0


def test_stratified_folds_keep_class_proportions():
    splits = make_splits(protocol(stratified=True), Y, {}, 3, "d")
    for s in splits:
        counts = np.bincount(Y[s.test], minlength=3)
        np.testing.assert_allclose(counts, np.bincount(Y) / 5, atol=1)
    sizes = [s.test.size for s in splits]
    assert max(sizes) - min(sizes) <= 1


def test_simple_random_folds_are_contiguous_blocks_of_one_permutation():
    splits = make_splits(protocol(repeats=1), Y, {}, 3, "d")
    sizes = [s.test.size for s in splits]
    assert sizes == [21, 21, 21, 20, 20]  # np.array_split of 103 rows


def test_splits_depend_only_on_seed_dataset_repetition():
    a = make_splits(protocol(prune_fraction=0.2), Y, {}, 11, "pima")
    b = make_splits(protocol(prune_fraction=0.2), Y, {}, 11, "pima")
    c = make_splits(protocol(prune_fraction=0.2), Y, {}, 12, "pima")
    d = make_splits(protocol(prune_fraction=0.2), Y, {}, 11, "heart")
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.test, y.test)
        np.testing.assert_array_equal(x.prune, y.prune)
    assert any(not np.array_equal(x.test, y.test) for x, y in zip(a, c))
    assert any(not np.array_equal(x.test, y.test) for x, y in zip(a, d))
    # Asking for more repetitions leaves the earlier ones unchanged.
    more = make_splits(protocol(repeats=5, prune_fraction=0.2), Y, {}, 11, "pima")
    for x, y in zip(a, more):
        np.testing.assert_array_equal(x.test, y.test)


def test_holdout_cv_keeps_one_test_part_and_validates_on_held_fold():
    p = protocol(name="holdout_cv", folds=2, repeats=5, stratified=True, test_fraction=1 / 3)
    splits = make_splits(p, Y, {}, 0, "d")
    assert len(splits) == 10
    test = splits[0].test
    assert all(np.array_equal(s.test, test) for s in splits)
    assert abs(test.size - Y.size / 3) <= 2
    for s in splits:
        assert np.intersect1d(s.train, s.test).size == 0
        assert np.intersect1d(s.prune, s.test).size == 0
        np.testing.assert_array_equal(np.sort(np.concatenate([s.train, s.prune, s.test])),
                                      np.arange(Y.size))


def test_fixed_and_random_splits():
    info = {"fixed_split": (np.arange(80), np.arange(80, 103))}
    fixed = make_splits(protocol(name="fixed_split", repeats=3, prune_fraction=0.1), Y, info,
                        0, "d")
    assert all(np.array_equal(s.test, np.arange(80, 103)) for s in fixed)
    assert all(s.prune.size == 8 and s.train.size == 72 for s in fixed)
    assert not np.array_equal(fixed[0].prune, fixed[1].prune)
    rnd = make_splits(protocol(name="random_split", repeats=2, train_size=60, test_size=30),
                      Y, {}, 0, "d")
    assert [(s.train.size, s.test.size) for s in rnd] == [(60, 30), (60, 30)]
    assert np.intersect1d(rnd[0].train, rnd[0].test).size == 0


def test_fold_record_roles():
    splits = make_splits(protocol(repeats=2, prune_fraction=0.1), Y, {}, 5, "d")
    roles = fold_record(splits, Y.size)["roles"]
    assert roles.shape == (2, 5, Y.size)
    assert ((roles == ROLE_TEST).sum(axis=1) == 1).all()  # tested once per repetition
    s = splits[3]
    np.testing.assert_array_equal(np.flatnonzero(roles[s.repetition, s.fold] == ROLE_PRUNE),
                                  np.sort(s.prune))


def test_label_noise_flips_exactly_the_fraction_of_training_rows_only():
    from obliq_cli.experiment.protocols import flip_labels

    y = np.array(list("aabbbcccc" * 20))
    rows = np.arange(0, 120)
    noisy = flip_labels(y, rows, 0.15, np.random.default_rng(0))
    changed = np.flatnonzero(noisy != y)
    assert changed.size == 18 and np.isin(changed, rows).all()
    assert set(noisy) <= set(y)
    again = flip_labels(y, rows, 0.15, np.random.default_rng(0))
    np.testing.assert_array_equal(noisy, again)
