"""A protocol in one file: each repetition draws a fresh random test part of
``test_fraction`` of the rows; the tree grows on the rest (less a prune part)."""

import numpy as np

from obliq_cli.experiment.protocols import (
    Protocol,
    Split,
    _count,
    _prune_split,
    register_protocol,
    take_count,
)
from obliq_cli.experiment.seeds import rng_for


def shuffle_splits(protocol, y, info, seed, dataset):
    n = y.shape[0]
    splits = []
    for rep in range(protocol.repeats):
        rng = rng_for(seed, dataset, rep, "shuffle")
        rest, test = take_count(np.arange(n), y, _count(protocol.test_fraction, n),
                                protocol.stratified, rng)
        train, prune = _prune_split(protocol, y, rest, seed, dataset, rep, 0)
        splits.append(Split(rep, 0, train, prune, test))
    return splits


SHUFFLE_SPLIT = register_protocol(Protocol(
    "shuffle_split", {"test_fraction": 0.25, "repeats": 3, "stratified": False,
                      "prune_fraction": None},
    shuffle_splits, lambda protocol: 1,
    summary="the rest minus the prune part / prune part / a fresh random test part"))
