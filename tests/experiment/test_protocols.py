"""Protocols (experiment/protocols.py): partitions, strata, seeds by name, fold assignments
and roles, label noise, clear errors."""

import numpy as np
import pytest

from obliq_cli.config import ProtocolSpec
from obliq_cli.errors import ObliqError
from obliq_cli.experiment.protocols import (
    EVERY_FOLD,
    NEVER_TESTED,
    ROLE_PRUNE,
    ROLE_TEST,
    flip_labels,
    fold_assignments,
    fold_record,
    make_splits,
)
from obliq_cli.experiment.seeds import rng_for

Y = np.repeat(np.array(["a", "b", "c"]), [61, 30, 12])  # 103 rows, uneven classes


def kfold(**kw):
    return ProtocolSpec(**{"name": "kfold", "folds": 5, "repeats": 3, **kw})


def assert_partition(splits, n):
    for s in splits:
        parts = np.concatenate([s.train, s.prune, s.test])
        assert parts.size == n, "train, prune and test are disjoint and cover every row"
        np.testing.assert_array_equal(np.sort(parts), np.arange(n))


@pytest.mark.parametrize("stratified", [False, True])
@pytest.mark.parametrize("prune_fraction", [None, 0.1])
def test_kfold_tests_every_row_once_per_repetition(stratified, prune_fraction):
    splits = make_splits(kfold(stratified=stratified, prune_fraction=prune_fraction), Y, {},
                         0, "d")
    assert [(s.repetition, s.fold) for s in splits] == [(r, f) for r in range(3)
                                                        for f in range(5)]
    assert_partition(splits, Y.size)
    for rep in range(3):  # the test parts of a repetition cover every row once
        tested = np.concatenate([s.test for s in splits if s.repetition == rep])
        np.testing.assert_array_equal(np.sort(tested), np.arange(Y.size))
    assignment = fold_assignments(splits, Y.size)
    assert assignment.shape == (3, Y.size)
    for s in splits:
        np.testing.assert_array_equal(np.flatnonzero(assignment[s.repetition] == s.fold),
                                      np.sort(s.test))
        expected = 0 if prune_fraction is None else round(0.1 * (s.train.size + s.prune.size))
        assert s.prune.size == expected


def test_stratified_folds_keep_class_proportions_within_one():
    splits = make_splits(kfold(stratified=True, prune_fraction=0.2), Y, {}, 4, "d")
    total = np.array([61, 30, 12])
    for s in splits:
        counts = np.array([(Y[s.test] == c).sum() for c in "abc"])
        assert (np.abs(counts - total / 5) <= 1).all(), counts
        # the prune part is stratified too
        grow_prune = np.array([(Y[np.concatenate([s.train, s.prune])] == c).sum()
                               for c in "abc"])
        pruned = np.array([(Y[s.prune] == c).sum() for c in "abc"])
        assert (np.abs(pruned - 0.2 * grow_prune) <= 1).all()
    sizes = [s.test.size for s in splits]
    assert max(sizes) - min(sizes) <= 1


def test_simple_folds_are_contiguous_blocks_of_one_shuffle():
    """OC1's cross_validate: one shuffle, then contiguous blocks (np.array_split)."""
    splits = make_splits(kfold(repeats=1), Y, {}, 9, "pima")
    permutation = rng_for(9, "pima", 0, "folds").permutation(Y.size)
    for s, block in zip(splits, np.array_split(permutation, 5)):
        np.testing.assert_array_equal(np.sort(s.test), np.sort(block))


def test_splits_are_a_function_of_seed_dataset_and_repetition():
    def tests(seed, name, repeats=3):
        p = kfold(repeats=repeats, prune_fraction=0.2)
        return [(s.test, s.prune) for s in make_splits(p, Y, {}, seed, name)]

    a, b = tests(1, "pima"), tests(1, "pima")
    for (ta, pa), (tb, pb) in zip(a, b):
        np.testing.assert_array_equal(ta, tb)
        np.testing.assert_array_equal(pa, pb)
    for other in (tests(2, "pima"), tests(1, "heart")):
        assert any(not np.array_equal(x[0], y[0]) for x, y in zip(a, other))
    # more repetitions leave the earlier ones as they were
    for (ta, pa), (tb, pb) in zip(a, tests(1, "pima", repeats=5)):
        np.testing.assert_array_equal(ta, tb)
        np.testing.assert_array_equal(pa, pb)
    # repetitions differ from each other
    assert not np.array_equal(a[0][0], a[5][0])


def test_holdout_cv_one_test_part_validation_is_the_held_fold():
    p = ProtocolSpec("holdout_cv", folds=3, repeats=2, stratified=True, test_fraction=0.25)
    splits = make_splits(p, Y, {}, 0, "d")
    test = splits[0].test
    assert all(np.array_equal(s.test, test) for s in splits)
    assert abs(test.size - 0.25 * Y.size) <= 2
    assert_partition(splits, Y.size)
    # the test part depends on seed and dataset only: other repeats, same test part
    more = make_splits(ProtocolSpec("holdout_cv", folds=3, repeats=5, stratified=True,
                                    test_fraction=0.25), Y, {}, 0, "d")
    np.testing.assert_array_equal(more[-1].test, test)
    for rep in range(2):
        held = np.concatenate([s.prune for s in splits if s.repetition == rep])
        np.testing.assert_array_equal(np.sort(held), np.setdiff1d(np.arange(Y.size), test))
    assignment = fold_assignments(splits, Y.size)
    assert (assignment[:, test] == EVERY_FOLD).all()
    assert (np.delete(assignment, test, axis=1) == NEVER_TESTED).all()


def test_fixed_split_keeps_the_datasets_split_and_redraws_prune_rows():
    info = {"fixed_split": (np.arange(70), np.arange(70, 103))}
    p = ProtocolSpec("fixed_split", repeats=3, prune_fraction=0.1)
    splits = make_splits(p, Y, info, 0, "d")
    assert all(np.array_equal(s.test, np.arange(70, 103)) for s in splits)
    assert all(s.prune.size == 7 and s.train.size == 63 for s in splits)
    assert not np.array_equal(splits[0].prune, splits[1].prune)
    with pytest.raises(ObliqError, match="no fixed train/test split"):
        make_splits(p, Y, {}, 0, "d")
    with pytest.raises(ObliqError, match="overlap"):
        make_splits(p, Y, {"fixed_split": (np.arange(70), np.arange(60, 103))}, 0, "d")


def test_random_split_sizes_as_counts_and_fractions():
    p = ProtocolSpec("random_split", repeats=3, train_size=60, test_size=0.2, stratified=True)
    splits = make_splits(p, Y, {}, 0, "d")
    assert all(s.train.size in (59, 60, 61) for s in splits)
    for s in splits:
        assert abs(s.test.size - 21) <= 2
        assert np.intersect1d(s.train, s.test).size == 0
    assert not np.array_equal(splits[0].train, splits[1].train)
    with pytest.raises(ObliqError, match="train_size 200"):
        make_splits(ProtocolSpec("random_split", train_size=200), Y, {}, 0, "d")


def test_random_split_counts_are_exact_without_strata():
    p = ProtocolSpec("random_split", repeats=2, train_size=60, test_size=30)
    splits = make_splits(p, Y, {}, 0, "d")
    assert [(s.train.size, s.test.size) for s in splits] == [(60, 30), (60, 30)]
    assert all(np.intersect1d(s.train, s.test).size == 0 for s in splits)


def test_single_class_training_part_names_dataset_repetition_and_fold():
    y = np.array(["a"] * 9 + ["b"])
    with pytest.raises(ObliqError) as info:
        make_splits(kfold(folds=2, repeats=1), y, {}, 0, "lopsided")
    message = str(info.value)
    assert "dataset 'lopsided', repetition 0, fold" in message
    assert "single class" in message


def test_too_many_folds_and_empty_prune_parts_are_errors():
    with pytest.raises(ObliqError, match="10 folds need at least 10 rows"):
        make_splits(kfold(folds=10), np.array([0, 1] * 3), {}, 0, "d")
    with pytest.raises(ObliqError, match="holds out 0 rows"):
        make_splits(kfold(folds=2, prune_fraction=0.01), np.array([0, 1] * 10), {}, 0, "d")


def test_fold_record_stores_assignment_prune_masks_and_roles():
    splits = make_splits(kfold(repeats=2, prune_fraction=0.1), Y, {}, 5, "d")
    record = fold_record(splits, Y.size)
    assert record["fold"].shape == (2, Y.size)
    assert record["prune"].shape == record["roles"].shape == (2, 5, Y.size)
    for s in splits:
        np.testing.assert_array_equal(np.flatnonzero(record["prune"][s.repetition, s.fold]),
                                      np.sort(s.prune))
        np.testing.assert_array_equal(
            np.flatnonzero(record["roles"][s.repetition, s.fold] == ROLE_PRUNE), np.sort(s.prune))
    assert ((record["roles"] == ROLE_TEST).sum(axis=1) == 1).all()  # tested once per repetition


def test_large_data_is_split_without_per_row_work():
    # 200k rows, stratified, with a prune part: vectorised code does this at once.
    y = np.random.default_rng(0).integers(0, 7, size=200_000)
    splits = make_splits(kfold(folds=10, repeats=1, stratified=True, prune_fraction=0.1),
                         y, {}, 0, "big")
    assert sum(s.test.size for s in splits) == y.size


def test_label_noise_flips_exactly_the_fraction_of_training_rows_only():
    y = np.array(list("aabbbcccc" * 20))
    rows = np.arange(0, 120)
    noisy = flip_labels(y, rows, 0.15, np.random.default_rng(0))
    changed = np.flatnonzero(noisy != y)
    assert changed.size == 18 and np.isin(changed, rows).all()
    assert set(noisy) <= set(y)
    again = flip_labels(y, rows, 0.15, np.random.default_rng(0))
    np.testing.assert_array_equal(noisy, again)
