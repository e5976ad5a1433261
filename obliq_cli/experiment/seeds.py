"""Seeds derived from names, so a random draw never depends on task order or job count.

Every stream is ``SeedSequence(experiment_seed, spawn_key=keys)`` where each key is a
stable 32-bit hash of a name (dataset, repetition, fold, algorithm label ...). Python's
``hash`` is salted per process, so a SHA-256 digest is used instead.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _key(part) -> int:
    digest = hashlib.sha256(str(part).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "little")


def seed_sequence(seed: int, *parts) -> np.random.SeedSequence:
    """The SeedSequence for ``seed`` and the named parts, e.g. ('pima', 3, 'folds')."""
    return np.random.SeedSequence(int(seed), spawn_key=tuple(_key(p) for p in parts))


def rng_for(seed: int, *parts) -> np.random.Generator:
    """A Generator for ``seed`` and the named parts."""
    return np.random.default_rng(seed_sequence(seed, *parts))
