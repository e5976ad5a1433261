"""Every compiled kernel of obliq_cli.kernels against its reference twin.

One registry, ``CASES``, lists each kernel with a generator of random inputs (ties
included: values drawn from a few levels, repeated rows, classes of one row) and its
twins. Every kernel is checked twice on every input:

- against its own source run as Python (``kernel.py_func``, what ``NUMBA_DISABLE_JIT=1``
  runs for it), equal to the bit: same arithmetic in the same order, so any difference
  is a numba semantic (integer width, division, a float conversion) the plain reading
  misses;
- where a plain numpy formulation of the same contract is cheap, against that
  independent twin: equal to the bit where numpy does the same operations in the same
  order (integer counts, numpy's own pairwise sum, the vectorised criteria the sweep
  rescoring repeats), else within a tolerance named in the case, with the reason.

A kernel added to obliq_cli.kernels without a case here fails
``test_every_kernel_has_a_case``.
"""

from __future__ import annotations

import copy
import importlib
import pkgutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np
import pytest
import scipy.linalg

import obliq_cli.kernels as kernels_package
from obliq_cli.kernels import apdt as k_apdt
from obliq_cli.kernels import cart_lc as k_cart_lc
from obliq_cli.kernels import criteria, linalg, presort, sums, sweep
from obliq_cli.kernels import gdt as k_gdt
from obliq_cli.kernels import hhcart as k_hhcart
from obliq_cli.kernels import ldt as k_ldt
from obliq_cli.kernels import line_search as k_ls
from obliq_cli.kernels import oc1 as k_oc1
from obliq_cli.kernels import svm as k_svm
from obliq_cli.kernels import umt as k_umt
from obliq_cli.tree import impurity
from obliq_cli.tree.orientation import canonical_signs

N_DRAWS = 6  # random inputs per kernel


@dataclass
class Case:
    kernel: object
    inputs: Callable  # rng -> tuple of arguments
    twin: Callable | None = None  # independent numpy twin of the same contract
    rtol: float = 0.0  # tolerance against the twin (0: bit for bit)
    why: str = ""  # why the twin is not bit for bit
    compare: Callable | None = None  # (compiled outcome, twin outcome, rtol) -> None
    # What is compared: (result, arguments after the call) -> value. Against the twin
    # the default is the result, or the last argument (the output array) when the
    # kernel returns nothing; against its own source everything.
    view: Callable | None = None
    py_view: Callable | None = None
    label: str = ""  # a second case of a kernel (other inputs, another twin): its name


# ------------------------------------------------------------------ inputs
def _levels(rng, shape, levels=4):
    """Values from a few levels, so that ties are common."""
    return rng.integers(0, levels, shape).astype(np.float64) + rng.choice([0.0, 0.5], shape)


def _labels(rng, n, k):
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    return y.astype(np.int64)


def _sorted_projection(rng):
    n, k = int(rng.integers(2, 40)), int(rng.integers(1, 5))
    ys = _labels(rng, n, k) if n >= k else rng.integers(0, k, n).astype(np.int64)
    total = np.bincount(ys, minlength=k).astype(np.int64)
    vs = np.sort(_levels(rng, n))
    return ys, vs, total, np.empty(n - 1)


def _sweep_many(rng):
    d, n, k = int(rng.integers(1, 4)), int(rng.integers(2, 30)), int(rng.integers(2, 5))
    values = _levels(rng, (d, n))
    order = np.argsort(values, axis=1, kind="stable").astype(np.int64)
    y = rng.integers(0, k, n).astype(np.int64)
    return values, order, y, k


def _counts(rng, k=None):
    k = k or int(rng.integers(2, 6))
    total = rng.integers(0, 8, k).astype(np.float64)
    total[0] += 1
    left = np.floor(total * rng.random(k))
    return left, total


def _spd(rng, p):
    A = rng.normal(size=(p + 2, p))
    return A.T @ A + np.eye(p)


def _symmetric_p(rng, p):
    A = _levels(rng, (p, p))
    return A + A.T


def _symmetric(rng):
    p = int(rng.integers(1, 6))
    A = _levels(rng, (p, p))  # ties: repeated eigenvalues are common
    return (A + A.T,)


def _line_inputs(rng):
    n, k = int(rng.integers(3, 40)), int(rng.integers(2, 4))
    V = np.round(rng.normal(size=n), 1)
    D = np.round(rng.normal(size=n), 1)
    D[rng.random(n) < 0.2] = 0.0
    y = _labels(rng, n, k)
    return V, D, y, np.bincount(y, minlength=k).astype(np.float64)


def _code(rng, codes=(criteria.GINI, criteria.ENTROPY, criteria.TWOING)):
    return int(rng.choice(codes))


def _perceptron_set(rng):
    m, d = int(rng.integers(2, 12)), int(rng.integers(1, 3))
    Z = np.hstack([np.ones((m, 1)), _levels(rng, (m, d))])
    s = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    return Z, s, rng.permutation(m).astype(np.int64)


def _umt_blocks(rng):
    n, d, k = int(rng.integers(4, 30)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
    X = _levels(rng, (n, d))
    y = _labels(rng, n, k)
    order = np.argsort(y, kind="stable")
    offsets = np.searchsorted(y[order], np.arange(k + 1)).astype(np.int64)
    blocks = X[order]
    for c in range(k):
        blocks[offsets[c]:offsets[c + 1]].sort(axis=0)
    return blocks, offsets, X, y


def _hinge(rng):
    d, n_pos, n_neg = int(rng.integers(1, 4)), int(rng.integers(1, 15)), int(rng.integers(1, 15))
    z_pos = np.sort(_levels(rng, (d, n_pos)), axis=1)
    z_neg = np.sort(_levels(rng, (d, n_neg)), axis=1)
    Cs = np.round(rng.uniform(0.0, 2.0, int(rng.integers(1, 4))), 1)
    return z_pos, z_neg, Cs


def _collinear_rows(rng):
    """(rows,): columns from a few levels with a constant column, a duplicate and a
    combination of two columns inserted after their sources, on 1 to 12 rows (so columns
    are also dependent through too few rows), each column then scaled and shifted; one
    draw in three is full-rank normal rows."""
    if rng.random() < 1 / 3:
        rows = rng.normal(size=(int(rng.integers(8, 30)), 3)) * 10.0 ** rng.integers(-2, 3, 3)
    else:
        n = int(rng.integers(1, 13))
        columns = list(_levels(rng, (n, 3)).T)
        for kind in rng.permutation(3):
            at = int(rng.integers(0, len(columns) + 1))
            if kind == 0:
                new = np.full(n, float(rng.choice([0.0, 0.1, 7.0])))
            elif kind == 1:
                new = columns[int(rng.integers(0, at))] if at else np.full(n, 0.1)
            else:
                new = (columns[int(rng.integers(0, at))] - 2.5 * columns[int(rng.integers(0, at))]
                       if at else np.full(n, 3.0))
            columns.insert(at, new)
        rows = np.column_stack(columns) * 10.0 ** rng.integers(-2, 3, len(columns))
        rows = rows + rng.integers(-5, 6, len(columns))
    return (rows,)


# ------------------------------------------------------------------ numpy twins
def _prefix_counts(ys, total):
    """Left and right class counts after each sorted position but the last."""
    onehot = np.eye(total.size, dtype=np.int64)[ys]
    left = np.cumsum(onehot, axis=0)[:-1]
    return left, total - left


def _with_table(ys, vs, total, out):
    return ys, vs, total, sweep.xlogx_table(ys.size), out


def _sweep_view(result, args):
    return result, args[-1]


def _sorted_keys_view(result, args):
    # the order within runs of equal keys is unspecified (numba's and numpy's quicksorts
    # differ, and 0.0 ties -0.0): what is compared is the keys in that order (signed
    # zeros made one) and that the order is a permutation
    return args[0][result] + 0.0, np.sort(result)


def _sort_keys(rng):
    # sort_tagged's keys: ties, +inf (the points that never move), and
    # sizes through the quicksort (< 16), the bucket sort and the radix sort (>= 600)
    keys = np.round(rng.normal(size=int(rng.choice([5, 20, 200, 599, 700, 2000]))) * 3)
    if rng.random() < 0.5:  # a few outliers crowd the rest into one bucket
        keys = np.where(rng.random(keys.size) < 0.01, keys * 1e6, keys)
    return np.where(rng.random(keys.size) < 0.1, np.inf, keys)


def _segment_inputs(rng, small=False):
    # a segment [begin, end) of finite keys (ties, outliers) inside a longer array;
    # small: at most 60 keys, for the insertion sort run as Python
    keys = _sort_keys(rng)
    keys = keys[keys < np.inf][:60 if small else None]
    begin = int(rng.integers(0, 4))
    c = np.concatenate([np.full(begin, np.nan), keys, np.full(3, np.nan)])
    ctags = np.concatenate([np.full(begin, -7), rng.integers(0, 1000, keys.size),
                            np.full(3, -7)])
    return c, ctags, begin, begin + keys.size


def _segment_twin(c, ctags, begin, end):
    order = np.argsort(c[begin:end], kind="stable") + begin
    c[begin:end], ctags[begin:end] = c[order], ctags[order]


def _segment_view(result, args):
    # the keys in order, the (key, tag) pairs as a set, and what lies outside untouched
    c, ctags, begin, end = args
    pairs = np.array(sorted(zip(c[begin:end] + 0.0, ctags[begin:end])))
    return c[begin:end] + 0.0, pairs, ctags[:begin], ctags[end:]


def _tagged_inputs(rng):
    keys = _sort_keys(rng)
    n = keys.size
    return (keys, rng.integers(0, 1000, n), np.full(n + 3, np.nan), np.full(n + 3, -7),
            np.full((k_ls.BUCKETS_PER_KEY + 1) * n + 5, -7))


def _tagged_view(result, args):
    # the sorted keys (signed zeros made one) and the (key, tag) pairs as a set: the
    # order of tags within runs of equal keys is unspecified
    keys, tags, c, ctags = args[:4]
    n = keys.size
    pairs = np.array(sorted(zip(c[:n] + 0.0, ctags[:n])))
    assert np.array_equal(pairs, np.array(sorted(zip(keys + 0.0, tags))))
    return c[:n] + 0.0, pairs


def _sort_tagged_twin(keys, tags, c, ctags, ints):
    order = np.argsort(keys, kind="stable")
    c[:keys.size], ctags[:keys.size] = keys[order], tags[order]


def _finite_range(keys):
    finite = keys[keys < np.inf]
    return (finite.min(), finite.max()) if finite.size else (np.inf, -np.inf)


def _gather_twin(keys, tags, order, c, ctags):
    c[:], ctags[:] = keys[order], tags[order]


def _scratch_shapes(result, args):
    return tuple(a.shape for a in result) + tuple(a.dtype.str for a in result)


def _weights_or_ones(rng, n):
    """Weights of 1 (the unweighted call) or row weights, half of them integers."""
    w = _maybe_weights(rng, n)
    return np.ones(n) if w is None else w


def _maybe_weights(rng, n):
    """None (the unweighted specialisation) or row weights, half of them integers."""
    if rng.random() < 0.5:
        return None
    if rng.random() < 0.5:
        return rng.integers(1, 4, n).astype(np.float64)
    return rng.random(n) + 0.05


def _weighted_covariance(X, w):
    """Frequency-weighted covariance, divisor sum(w) - 1 (np.cov's fweights, any w)."""
    centred = X - w @ X / w.sum()
    return (centred.T * w) @ centred / (w.sum() - 1)


def _weighted_line_inputs(rng):
    """``_line_inputs`` with row weights or None, ``total`` their class sums."""
    V, D, y, total = _line_inputs(rng)
    w = _maybe_weights(rng, V.size)
    if w is not None:
        total = np.bincount(y, weights=w, minlength=total.size)
    return V, D, y, total, w


def _line_with_inputs(rng):
    # scratch for more points and classes than the search needs, holding garbage: what
    # the scratch holds before the call must not matter
    V, D, y, total, w = _weighted_line_inputs(rng)
    n, k = V.size + int(rng.integers(0, 5)), total.size + int(rng.integers(0, 3))
    fwork, iwork = k_ls.line_search_scratch(n, k)
    fwork[:] = rng.normal(size=fwork.size)
    iwork[:] = rng.integers(-5, 50, iwork.size)
    return (V, D, y, total, _code(rng), int(rng.integers(0, 4)), rng.random(V.size + 1),
            fwork, iwork, w)



def _climb_state(rng):
    """One node's lockstep climb state (``kernels.oc1.climb``) with scratch holding
    garbage: restarts' coefficients, their values and scores, and the counters."""
    V0, D0, y, total, w = _weighted_line_inputs(rng)
    n, k = V0.size, int(rng.integers(1, 5))
    XaT = np.ascontiguousarray(np.column_stack([V0, D0, np.ones(n)]).T)
    A = np.round(rng.normal(size=(k, 3)), 1)
    code = _code(rng)
    V, cur, perfect = np.empty((k, n)), np.empty(k), np.zeros(k, dtype=np.bool_)
    k_oc1.start_values(A, XaT, y, total, code, V, cur, perfect, w)
    stagnant = rng.integers(0, 4, k)
    improved, need = rng.random(k) < 0.5, rng.random(k) < 0.5
    fwork, iwork = k_ls.line_search_scratch(n + 2, total.size + 1)
    fwork[:] = rng.normal(size=fwork.size)
    scratch = (fwork, iwork, rng.normal(size=n), rng.normal(size=n), rng.normal(size=3))
    return A, V, XaT, y, total, code, cur, perfect, stagnant, improved, need, w, scratch


def _coefficient_moves_inputs(rng):
    A, V, XaT, y, total, code, cur, perfect, stagnant, improved, _, w, scratch = \
        _climb_state(rng)
    rows = np.flatnonzero(rng.random(A.shape[0]) < 0.7)
    fwork, iwork, _, V_new, trial = scratch
    stride = int(rng.integers(1, 3))
    return (rows, int(rng.integers(0, stride)), stride, int(rng.integers(0, 3)), A, V, XaT,
            y, total, code, rng.random((rows.size + 1, y.size + 1)), cur, perfect, stagnant,
            improved, 2, fwork, iwork, V_new, trial, w)


def _jump_moves_inputs(rng):
    A, V, XaT, y, total, code, cur, perfect, stagnant, improved, need, w, scratch = \
        _climb_state(rng)
    rows = np.flatnonzero(rng.random(A.shape[0]) < 0.7)
    stride = int(rng.integers(1, 3))
    return (rows, int(rng.integers(0, stride)), stride, rng.uniform(-1, 1, (rows.size, 3)),
            A, V, XaT, y, total, code, rng.random((rows.size, y.size + 1)), cur, perfect,
            stagnant, improved, need, *scratch, w)


def _dealt(rows, n_threads):
    """Rows in order, dealt as ``kernels.oc1.coefficient_draws`` deals them."""
    out = np.zeros((n_threads, -(-rows.shape[0] // n_threads)) + rows.shape[1:])
    for i, row in enumerate(rows):
        out[i % n_threads, i // n_threads] = row
    return out


def _draws_inputs(rng):
    n_threads, count = int(rng.integers(1, 4)), int(rng.integers(0, 7))
    places = max(1, -(-count // n_threads))
    return (np.random.default_rng(int(rng.integers(1000))), count,
            np.zeros((n_threads, places, int(rng.integers(1, 6)))))


def _coefficient_draws_twin(gen, count, out):
    """numpy's own draws from the same Generator state, dealt."""
    got = _dealt(gen.random((count, out.shape[2])), out.shape[0])
    out[:, :got.shape[1]] = got
    return out


def _jump_draws_inputs(rng):
    gen, count, draws = _draws_inputs(rng)
    return gen, count, np.zeros(draws.shape[:2] + (int(rng.integers(1, 5)),)), draws


def _jump_draws_twin(gen, count, directions, draws):
    dirs = _dealt(gen.uniform(-1.0, 1.0, (count, directions.shape[2])), directions.shape[0])
    ties = _dealt(gen.random((count, draws.shape[2])), draws.shape[0])
    directions[:, :dirs.shape[1]] = dirs
    draws[:, :ties.shape[1]] = ties
    return directions, draws


def _eq1(n_l, n_r, e_l, e_r, M):
    """F(W, S^t) of APDT's eq. 1, written again."""
    n = n_l + n_r
    i1 = float(e_l == 0 and n_l > 0)
    i2 = float(e_r == 0 and n_r > 0)
    E = ((e_l + e_r) / n) * (0.5 - (n_l / n) * (n_r / n))
    A = (1.0 / (2.0 * n) / M) * (i1 * (n - n_l) / n + i2 * (n - n_r) / n - i1 * i2)
    return A + (1.0 - i1) * (1.0 - i2) * E


def _line_inputs_yt(rng):
    V, D, y, total, w = _weighted_line_inputs(rng)
    return V, y, total, _code(rng), w


def _sweep_twin(split):
    def twin(ys, vs, total, *rest):
        out = rest[-1]
        left, right = _prefix_counts(ys, total)
        cut = vs[1:] > vs[:-1]
        out[:] = np.inf
        if cut.any():
            out[cut] = split(left[cut], right[cut])
        return out[cut].min() if cut.any() else np.inf
    return twin


def _twoing_direct(ys, vs, total, out):
    """The twoing numerator summed over every class at every threshold (the sweep keeps
    it running in O(1) per row)."""
    n = ys.size
    left = np.zeros(total.size, dtype=np.int64)
    best = np.inf
    for i in range(n - 1):
        left[ys[i]] += 1
        if vs[i + 1] > vs[i]:
            n_left = i + 1
            spread = float(sum(abs(n * left[j] - n_left * total[j]) for j in range(total.size)))
            out[i] = -(spread * spread) / (4.0 * n * n * float(n_left) * float(n - n_left))
            best = min(best, out[i])
        else:
            out[i] = np.inf
    return best


SPLITS = {criteria.GINI: impurity.gini_split, criteria.ENTROPY: impurity.entropy_split,
          criteria.TWOING: impurity.twoing_split,
          criteria.MISCLASSIFICATION: impurity.misclassification_split}


def _sequential_sum(terms):
    total = 0.0
    for t in terms:
        total += t
    return total


def _sweep_scores_twin(values, order, y, k, crit, xlogx, scores):
    total = np.bincount(y, minlength=k)
    best = np.inf
    for f in range(values.shape[0]):
        ys, vs = y[order[f]], values[f, order[f]]
        best = min(best, _sweep_twin(SPLITS[crit])(ys, vs, total, scores[f]))
    return best


def _min_split_twin(values, order, y, k, min_split, xlogx, scores, tries):
    _sweep_scores_twin(values, order, y, k, criteria.ENTROPY, xlogx, scores)
    n = y.size
    n_left = np.arange(1, n)
    scores[:, (n_left < min_split) | (n - n_left < min_split)] = np.inf
    tries[:] = np.isfinite(scores).sum(axis=1)
    return scores.min(axis=1)


def _partition_twin(V, y, total, code, w=None):
    on_left = V <= 0
    left = np.bincount(y[on_left], weights=None if w is None else w[on_left],
                       minlength=total.size).astype(np.float64)
    right = total - left
    score = SPLITS[code](left[None], right[None])[0] if on_left.any() and not on_left.all() \
        else (0.0 if code != criteria.TWOING else -0.0)
    pure = (len(np.unique(y[on_left])) <= 1 and len(np.unique(y[~on_left])) <= 1)
    return score, pure


def _validation_twin(X_val, y_val, val_total, f, t, left, w_val):
    goes = X_val[:, f] <= t
    left = np.bincount(y_val[goes], weights=w_val[goes], minlength=val_total.size)
    right = val_total - left
    return 1.0 - (left.max() + right.max()) / val_total.sum()


def _hinge_sweep_reference(Z, y_sign, Cs):
    """The vectorised eq. 4 sweep (one argsort per margin and feature)."""
    n, d = Z.shape
    Cs = np.asarray(Cs, dtype=np.float64)
    pos = y_sign > 0
    n_neg = n - int(pos.sum())
    shift = Cs[:, None, None] * np.where(pos, -1.0, 1.0)[None, None, :]
    pts = (Z.T[None, :, :] + shift).reshape(Cs.size * d, n)
    order = np.argsort(pts, axis=1)
    P = np.take_along_axis(pts, order, axis=1)
    is_pos = pos[order]
    cnt_pos = np.cumsum(is_pos, axis=1)
    sum_pos = np.cumsum(np.where(is_pos, P, 0.0), axis=1)
    cnt_neg_after = n_neg - (np.arange(1, n + 1)[None, :] - cnt_pos)
    neg_vals = np.where(is_pos, 0.0, P)
    sum_neg_after = neg_vals.sum(axis=1, keepdims=True) - np.cumsum(neg_vals, axis=1)
    f = np.maximum((cnt_pos * P - sum_pos) + (sum_neg_after - cnt_neg_after * P), 0.0)
    fmin = f.min(axis=1)
    at_min = f <= (fmin + 1e-9 * np.maximum(1.0, fmin))[:, None]
    lo = np.where(at_min, P, np.inf).min(axis=1)
    hi = np.where(at_min, P, -np.inf).max(axis=1)
    return tuple(a.reshape(Cs.size, d) for a in (fmin, lo, hi))


def _hinge_twin(z_pos, z_neg, Cs, slack, lo, hi, w_pos, w_neg):
    """The merge sweep's contract through the sorting sweep above."""
    Z = np.concatenate([z_pos, z_neg], axis=1).T
    y_sign = np.r_[np.ones(z_pos.shape[1]), -np.ones(z_neg.shape[1])]
    slack[:], lo[:], hi[:] = _hinge_sweep_reference(Z, y_sign, Cs)


def _weighted_hinge_twin(z_pos, z_neg, Cs, slack, lo, hi, w_pos, w_neg):
    """Eq. 4 with each row's hinge term times its weight, written directly: per margin
    and feature the summed weighted slack at every breakpoint (an [n, n] table), its
    least value and the breakpoints within 1e-9 max(1, least) of it."""
    for m, C in enumerate(Cs):
        for f in range(z_pos.shape[0]):
            u, v = z_pos[f] - C, z_neg[f] + C
            P = np.r_[u, v]
            table = (np.maximum(P[:, None] - u[None, :], 0.0) @ w_pos[f]
                     + np.maximum(v[None, :] - P[:, None], 0.0) @ w_neg[f])
            least = table.min()
            at_min = table <= least + 1e-9 * max(1.0, least)
            slack[m, f], lo[m, f], hi[m, f] = least, P[at_min].min(), P[at_min].max()


def _unequal_weights(rng, shape):
    """Row weights not all 1 and not all equal: integers 1 to 4, or (half the draws)
    multiples of 1/4 up to 3, so that a weight times 4 is a whole number of rows."""
    fractional = rng.random() < 0.5
    w = (rng.integers(1, 13, shape) / 4.0 if fractional
         else rng.integers(1, 5, shape).astype(np.float64))
    flat = w.reshape(-1)
    flat[0], flat[-1] = (0.25, 2.75) if fractional else (3.0, 2.0)
    return w


def _repeated(z, w):
    """Each row of ``z`` [d, n] with each value repeated 4 w times (``w`` [d, n] of
    quarters), and weights of 1: what the weights stand for."""
    reps = np.rint(4 * w).astype(np.int64)
    rows = [np.repeat(z[f], reps[f]) for f in range(z.shape[0])]
    width = {r.size for r in rows}
    assert len(width) == 1, "every feature's row carries the same weights"
    return np.array(rows), np.ones((z.shape[0], width.pop()))


def _sign_rule_repeated_twin(z_rest, z_pos, Cs, tau, w_rest, w_pos):
    """The sign rule on the rows repeated 4 w times with weights of 1: every count of
    the sweep is 4 times the weighted one (exact: a power of two), so the same
    candidate is kept."""
    rest, ones_rest = _repeated(z_rest, w_rest)
    pos, ones_pos = _repeated(z_pos, w_pos)
    k_umt.sign_rule_thresholds.py_func(rest, pos, Cs, tau, ones_rest, ones_pos)


def _weighted_validation(rng):
    blocks, offsets, X, y = _umt_blocks(rng)
    w = _unequal_weights(rng, y.size)
    return (X, y, np.bincount(y, weights=w), 0, float(rng.choice(X[:, 0])),
            np.empty(offsets.size - 1), w)


def _weighted_sign_rule(rng):
    z_pos, z_neg, Cs = _hinge(rng)
    (rest, w_rest), (pos, w_pos) = (_sorted_with_weights(rng, z) for z in (z_neg, z_pos))
    return rest, pos, Cs, np.empty((Cs.size, rest.shape[0])), w_rest, w_pos


def _weighted_hinge(rng):
    z_pos, z_neg, Cs = _hinge(rng)
    (pos, w_pos), (neg, w_neg) = (_sorted_with_weights(rng, z) for z in (z_pos, z_neg))
    return (pos, neg, Cs, *(np.empty((Cs.size, pos.shape[0])) for _ in range(3)),
            w_pos, w_neg)


def _sorted_with_weights(rng, z):
    """Values of ``z``'s shape [d, n] (each row sorted) and row weights [d, n] aligned
    with them: one weight per row of the data, carried along each feature's sort as
    the estimator does (``umt._sorted_by_feature``)."""
    d, n = z.shape
    rows = _levels(rng, (n, d))
    w = _unequal_weights(rng, n)
    order = np.argsort(rows.T, axis=1, kind="stable")
    return np.take_along_axis(rows.T, order, axis=1), np.ascontiguousarray(w[order])


def _pick_twin(order, y, k, crit, candidates, n):
    """The first candidate of lowest vectorised score (recounted with numpy)."""
    if candidates.size == 0:
        return -1, np.inf
    f, p = candidates // (n - 1), candidates % (n - 1)
    left = np.array([np.bincount(y[order[a, :b + 1]], minlength=k) for a, b in zip(f, p)])
    scores = SPLITS[crit](left, np.bincount(y, minlength=k) - left)
    i = int(np.argmin(scores))
    return int(candidates[i]), float(scores[i])


def _split_order_twin(order, goes_left, n_left, keep_left, keep_right):
    mask = goes_left[order]
    d = order.shape[0]
    left = order[mask].reshape(d, -1) if keep_left else np.empty((d, 0), order.dtype)
    right = order[~mask].reshape(d, -1) if keep_right else np.empty((d, 0), order.dtype)
    return left, right


def _independent_columns_twin(rows):
    """Column by column: constant when its centred norm is at most CONSTANT_TOLERANCE
    times its norm; else a combination when the residual of its least-squares fit
    (lstsq) on the kept centred columns is at most COLUMN_TOLERANCE times its centred
    norm."""
    tolerance = k_gdt.COLUMN_TOLERANCE
    centred = rows - rows.mean(axis=0)
    keep = np.zeros(rows.shape[1], dtype=bool)
    for j in range(rows.shape[1]):
        norm = np.linalg.norm(centred[:, j])
        if norm <= k_gdt.CONSTANT_TOLERANCE * np.linalg.norm(rows[:, j]):
            continue
        kept = centred[:, keep]
        fit = kept @ np.linalg.lstsq(kept, centred[:, j], rcond=None)[0] if kept.size else 0.0
        keep[j] = np.linalg.norm(centred[:, j] - fit) > tolerance * norm
    return keep


def _tridiagonalize_twin(A):
    """Householder tridiagonalisation in numpy, the same reflectors as the kernel (row
    i from the last up, u = x / |x|_1 with x_{i-1} - g, g of sign opposite x_{i-1}),
    applied as whole-matrix products: (d, e, Q') with Q' A Q tridiagonal."""
    n = A.shape[0]
    T = np.tril(A) + np.tril(A, -1).T
    Q = np.eye(n)
    e = np.zeros(n)
    for i in range(n - 1, 0, -1):
        x = T[i, :i]
        scale = np.abs(x).sum()
        if i == 1 or scale == 0.0:
            e[i] = T[i, i - 1]
            continue
        u = x / scale
        g = -np.copysign(np.linalg.norm(u), u[-1]) if u[-1] != 0 else -np.linalg.norm(u)
        e[i] = scale * g
        u = u.copy()
        u[-1] -= g
        H = np.eye(n)
        H[:i, :i] -= np.outer(u, u) / (u @ u / 2)
        T = H @ T @ H
        Q = Q @ H  # Q = H_{n-1} H_{n-2} ...: T = Q' A Q
    return np.diag(T).copy(), e, Q.T


def _tridiagonal(rng):
    """(d, e, identity) of a random tridiagonal matrix, with ties and zero couplings."""
    n = int(rng.integers(1, 7))
    e = _levels(rng, n) - 1.5
    e[0] = 0.0
    e[rng.random(n) < 0.2] = 0.0
    return _levels(rng, n), e, np.eye(n)


def _tridiagonal_eigen(_, args):
    """What ``_tridiagonal_ql`` leaves: ascending eigenvalues and the eigenvectors as
    columns, in the same order."""
    d, _e, ZT = args
    order = np.argsort(d, kind="stable")
    return d[order], ZT[order].T


def _tridiagonal_twin(d, e, ZT):
    """scipy's tridiagonal eigensolver (LAPACK's stemr) on the same matrix."""
    values, vectors = scipy.linalg.eigh_tridiagonal(d, e[1:]) if d.size > 1 else (
        d.copy(), np.eye(1))
    d[:] = values
    ZT[:] = vectors.T


def _ql_eigen_sorted(result, _args):
    values, ZT = result
    order = np.argsort(values, kind="stable")
    return values[order], ZT[order].T


def _same_eigenpairs(got, want, rtol):
    """Eigenvalues close; eigenvectors span the same spaces (any basis of a repeated
    eigenvalue): the projectors onto each cluster of equal eigenvalues agree."""
    values, vectors = got
    ref_values, ref_vectors = want
    scale = max(1.0, np.abs(ref_values).max(initial=0.0))
    np.testing.assert_allclose(values, ref_values, rtol=0, atol=rtol * scale)
    clusters = np.split(np.arange(values.size),
                        np.flatnonzero(np.diff(ref_values) > 1e-8 * scale) + 1)
    for c in clusters:
        np.testing.assert_allclose(vectors[:, c] @ vectors[:, c].T,
                                   ref_vectors[:, c] @ ref_vectors[:, c].T, atol=1e-8)


def _reflection_inputs(rng):
    """Node rows with ties, unit Householder vectors with exact zeros, some rows."""
    n, p, m = int(rng.integers(1, 12)), int(rng.integers(1, 5)), int(rng.integers(1, 4))
    X = _levels(rng, (n, p)) - 1.0
    U = rng.normal(size=(m, p))
    U[rng.random((m, p)) < 0.3] = 0.0
    U /= np.maximum(np.sqrt((U * U).sum(axis=1)), 1e-300)[:, None]
    T = np.ascontiguousarray((2.0 * (X @ U.T)).T)
    rows = np.flatnonzero(rng.random(m * p) < 0.7).astype(np.int64)
    return np.ascontiguousarray(X.T), T, U, rows


def _reflection_twin(Xt, T, U, rows):
    return (Xt[None, :, :] - T[:, None, :] * U[:, :, None]).reshape(-1, Xt.shape[1])[rows]


def _ldt_lookup_inputs(rng):
    """Columns of distinct ascending values (some of one value), thresholds on, between
    and beyond them (NaN too), in any column order."""
    blocks = [np.unique(_levels(rng, int(rng.integers(1, 7))))
              for _ in range(int(rng.integers(1, 4)))]
    starts = np.r_[0, np.cumsum([b.size for b in blocks])].astype(np.int64)
    m = int(rng.integers(1, 12))
    columns = rng.integers(0, len(blocks), m).astype(np.int64)
    thresholds = _levels(rng, m, 5) - 0.75 * rng.integers(0, 2, m)
    thresholds[rng.random(m) < 0.1] = np.nan
    return np.concatenate(blocks), starts, columns, thresholds


def _ldt_lookup_twin(values, starts, columns, thresholds):
    return np.array([starts[f] + f + np.searchsorted(values[starts[f]:starts[f + 1]], t,
                                                     side="right")
                     for f, t in zip(columns, thresholds)], dtype=np.int64)


def _ldt_group_inputs(rng):
    """Two-group partitions of k classes (empty groups too) on random columns."""
    m, k, n_cols = int(rng.integers(1, 9)), int(rng.integers(2, 7)), int(rng.integers(1, 4))
    parts = rng.random((m, k)) < 0.5
    parts[0] = False
    return (parts, rng.integers(0, n_cols, m).astype(np.int64),
            rng.integers(0, 9, k).astype(np.float64), rng.normal(size=(n_cols, k)),
            rng.random((n_cols, k)) * 10)


def _ldt_group_twin(parts, columns, n_c, s1, s2):
    left = parts.astype(np.float64)
    out = []
    for per_class in (np.tile(n_c, (len(columns), 1)), s1[columns], s2[columns]):
        for side in (left, 1.0 - left):
            out.append([_sequential_sum(a * b) for a, b in zip(side, per_class)])
    return np.array(out)


# ------------------------------------------------------------------ the registry
CASES = [
    # linalg: numpy's products go to BLAS, which sums in its own order (that is why
    # these kernels exist): the twins agree within rounding only.
    Case(linalg.dot, lambda r: (r.normal(size=7), r.normal(size=7)),
         lambda a, b: _sequential_sum(a * b)),
    Case(linalg.norm, lambda r: (_levels(r, 9),),
         lambda a: np.sqrt(_sequential_sum(a * a))),
    Case(linalg.matvec, lambda r: (r.normal(size=(6, 4)), r.normal(size=4)),
         lambda A, x: A @ x, 1e-12, "BLAS sums in its own order"),
    Case(linalg.rows_matvec,
         lambda r: (r.normal(size=(6, 4)), r.permutation(6)[:4].astype(np.int64),
                    r.normal(size=4)),
         lambda A, rows, x: A[rows] @ x, 1e-12, "BLAS sums in its own order"),
    Case(linalg.rowwise_dot, lambda r: (r.normal(size=(5, 3)), r.normal(size=(5, 3))),
         lambda A, B: np.einsum("ij,ij->i", A, B), 1e-12, "einsum's order"),
    Case(linalg.matmul, lambda r: (r.normal(size=(4, 3)), r.normal(size=(3, 5))),
         lambda A, B: A @ B, 1e-12, "BLAS sums in its own order"),
    Case(linalg.crossprod, lambda r: (r.normal(size=(6, 3)), r.normal(size=(6, 2))),
         lambda A, B: A.T @ B, 1e-12, "BLAS sums in its own order"),
    Case(linalg.covariance, lambda r: (_levels(r, (8, 3)), _maybe_weights(r, 8)),
         lambda X, w: (np.cov(X, rowvar=False) if w is None
                       else _weighted_covariance(X, w)).reshape(X.shape[1], X.shape[1]),
         1e-12, "np.cov multiplies through BLAS"),
    Case(linalg._orient_and_sort,
         lambda r: (r.normal(size=4), r.normal(size=(4, 4)))),
    Case(linalg._jacobi, lambda r: (lambda a: (a, np.eye(a.shape[0])))(_symmetric(r)[0])),
    Case(linalg._pythag, lambda r: tuple(r.choice([0.0, 3.0, -4.0, 1e-200, 1e300], 2)),
         lambda a, b: float(np.hypot(a, b)), 1e-15, "hypot rounds once, _pythag twice"),
    Case(linalg._tridiagonalize, lambda r: (_symmetric(r)[0] + 0.0,), _tridiagonalize_twin,
         1e-12, "numpy's products sum in BLAS's order"),
    Case(linalg._tridiagonal_ql, _tridiagonal, _tridiagonal_twin, 1e-10,
         "QL against LAPACK's tridiagonal solver", compare=_same_eigenpairs,
         view=_tridiagonal_eigen),
    Case(linalg._ql_eigen, _symmetric, lambda a: (lambda w, v: (w, v.T))(*np.linalg.eigh(a)),
         1e-10, "QL against LAPACK's solver", compare=_same_eigenpairs, view=_ql_eigen_sorted),
    Case(linalg.eigh_ql, _symmetric, np.linalg.eigh, 1e-10, "QL against LAPACK's solver",
         compare=_same_eigenpairs),
    Case(linalg._lower_symmetric, lambda r: (r.normal(size=(4, 4)),),
         lambda a: np.tril(a) + np.tril(a, -1).T),
    Case(linalg.eigh, _symmetric, np.linalg.eigh, 1e-10, "Jacobi against LAPACK's solver",
         compare=_same_eigenpairs),
    Case(linalg.cholesky, lambda r: (_spd(r, int(r.integers(1, 5))),),
         lambda b: (np.linalg.cholesky(b), True), 1e-12, "LAPACK's order"),
    Case(linalg.eigh_generalized,
         lambda r: (lambda p: (_symmetric_p(r, p), _spd(r, p)))(int(r.integers(1, 5)))),
    Case(linalg.eigh_generalized_factored,
         lambda r: (lambda p: (_symmetric_p(r, p), np.linalg.cholesky(_spd(r, p))))(
             int(r.integers(1, 5)))),
    Case(presort.split_order,
         lambda r: (lambda n, go: (np.argsort(_levels(r, (3, n)), axis=1, kind="stable"),
                                   go, int(go.sum()), bool(r.random() < 0.8),
                                   bool(r.random() < 0.8)))(
                                       *(lambda n: (n, r.random(n) < 0.5))(int(r.integers(1, 20)))),
         _split_order_twin),
    # sums: numpy's own sum is the definition
    Case(sums.pairwise_sum, lambda r: (r.standard_normal(int(r.integers(1, 129))) * 1e3,),
         np.sum),
    Case(sums.numpy_pairwise_sum,
         lambda r: (lambda n, s: (r.standard_normal(n + s) * 1e3, s, n))(
             int(r.choice([1, 7, 127, 129, 300, 1025, 5000])), int(r.integers(0, 9))),
         lambda a, start, n: a[start:start + n].sum()),
    # criteria
    Case(criteria.impurity_score,
         lambda r: (lambda left, total: (
             _code(r, (criteria.GINI, criteria.TWOING, criteria.MISCLASSIFICATION)),
             left + 1, total - left + 1, np.empty(left.size)))(*_counts(r)),
         lambda crit, left, right, spread: SPLITS[crit](left[None], right[None])[0]),
    Case(criteria.entropy_term, lambda r: (lambda c: (c, float(c.sum())))(_counts(r)[1]),
         lambda c, size: size * impurity.entropy_of_counts(c) if size > 0 else 0.0, 1e-12,
         "probabilities from one division each, log2 summed in another order"),
    Case(criteria.twoing_exact,
         lambda r: (lambda left, total: (left, total, float(left.sum()), float(total.sum())))(
             *_counts(r)),
         lambda left, total, n_left, n: (
             impurity.twoing_split(left[None], (total - left)[None])[0]
             if 0 < n_left < n else -0.0),
         1e-12, "an exact integer numerator against per-class divisions"),
    Case(criteria.twoing_spread,
         lambda r: (lambda left, total: (left, total, float(left.sum()), float(total.sum())))(
             *_counts(r)),
         lambda left, total, n_left, n: float(np.abs(n * left - total * n_left).sum())),
    Case(criteria.twoing_of_spread,
         lambda r: (float(r.integers(0, 10**6)), float(r.integers(0, 40)), 40.0),
         lambda spread, n_left, n: (-spread ** 2 / (4 * n * n * n_left * (n - n_left))
                                    if 0 < n_left < n else -0.0)),
    Case(criteria.count_score,
         lambda r: (*_counts(r), _code(r)),
         lambda left, total, code: (SPLITS[code](left[None], (total - left)[None])[0]
                                    if total.sum() > 0 else 0.0),
         1e-12, "closed forms from the counts against the vectorised formulas"),
    # the sorted sweep: closed forms against the vectorised criteria
    Case(sweep.sweep_gini, _sorted_projection, _sweep_twin(impurity.gini_split), 1e-12,
         "running integer sums of squares", view=_sweep_view),
    # the numerator summed over every class at every threshold: the same integers
    Case(sweep.sweep_twoing, _sorted_projection, _twoing_direct, view=_sweep_view),
    Case(sweep.sweep_entropy, lambda r: _with_table(*_sorted_projection(r)),
         _sweep_twin(impurity.entropy_split), 1e-12, "a table of c log2 c",
         view=_sweep_view),
    Case(sweep.sweep_minority, _sorted_projection,
         _sweep_twin(impurity.misclassification_split), 1e-12, "one division at the end",
         view=_sweep_view),
    Case(sweep.sweep_scores,
         lambda r: (lambda values, order, y, k: (
             values, order, y, k, _code(r, tuple(SPLITS)), sweep.xlogx_table(y.size),
             np.empty((values.shape[0], y.size - 1))))(*_sweep_many(r)),
         _sweep_scores_twin, 1e-12, "closed forms against the vectorised criteria",
         view=_sweep_view),
    Case(sweep.shortlist,
         lambda r: (lambda s: (s, np.quantile(s, 0.3, axis=1)))(_levels(r, (3, 10))),
         lambda scores, bounds: np.flatnonzero(scores <= bounds[:, None])),
    Case(sweep.sweep_entropy_with_min_split,
         lambda r: (lambda values, order, y, k: (
             values, order, y, k, int(r.integers(1, 4)), sweep.xlogx_table(y.size),
             np.empty((values.shape[0], y.size - 1)),
             np.empty(values.shape[0], dtype=np.int64)))(*_sweep_many(r)),
         _min_split_twin, 1e-12, "a table of c log2 c",
         view=lambda result, args: (result, args[-2], args[-1])),
    Case(sweep.pick_exact,
         lambda r: (lambda values, order, y, k: (
             order, y, k, _code(r, (criteria.GINI, criteria.TWOING)),
             np.sort(r.choice(values.size - values.shape[0],
                              min(5, values.size - values.shape[0]),
                              replace=False)).astype(np.int64), y.size))(*_sweep_many(r)),
         lambda order, y, k, crit, candidates, n: _pick_twin(order, y, k, crit, candidates, n)),
    Case(sweep.left_counts_at,
         lambda r: (lambda values, order, y, k: (
             (lambda flat: (order, y, k, flat // (y.size - 1), flat % (y.size - 1)))(
                 np.sort(r.choice(values.shape[0] * (y.size - 1), 3)))))(*_sweep_many(r)),
         lambda order, y, k, features, positions: np.array(
             [np.bincount(y[order[f, :p + 1]], minlength=k)
              for f, p in zip(features, positions)]).reshape(-1, k)),
    # the line search
    Case(k_ls.partition_score, _line_inputs_yt, _partition_twin, 1e-12,
         "closed forms from the counts against the vectorised formulas"),
    Case(k_ls.line_search,
         lambda r: (lambda V, D, y, total, w: (V, D, y, total, _code(r),
                                               int(r.integers(0, 4)), r.random(V.size + 1),
                                               w))(*_weighted_line_inputs(r))),
    Case(k_ls.argsort_floats,
         lambda r: (np.round(r.normal(size=int(r.choice([5, 50, 700, 2000]))) * 3),),
         lambda keys: np.argsort(keys, kind="stable"),
         view=_sorted_keys_view, py_view=_sorted_keys_view),
    Case(k_ls.line_search_with,  # the search in scratch arrays: the allocating search's
         _line_with_inputs,
         lambda *args: k_ls.line_search(*args[:7], args[9]),
         py_view=lambda result, args: result),  # the scratch holds ties in any order
    Case(k_ls.line_search_scratch, lambda r: (int(r.integers(0, 50)), int(r.integers(1, 5))),
         lambda n, k: (np.empty(3 * n + 1 + k),
                       np.empty((k_ls.BUCKETS_PER_KEY + 4) * n + 3, dtype=np.int64)),
         view=_scratch_shapes, py_view=_scratch_shapes),  # contents do not matter
    Case(k_ls.sort_tagged,  # the bucket sort below 600 keys (and its fallbacks)
         _tagged_inputs, _sort_tagged_twin, view=_tagged_view, py_view=_tagged_view),
    Case(k_ls.sort_tagged_in,  # given the range of the keys below +inf
         lambda r: (lambda keys, *rest: (keys, *rest, int(np.sum(keys < np.inf)),
                                         *_finite_range(keys)))(*_tagged_inputs(r)),
         lambda keys, tags, c, ctags, ints, *range_: _sort_tagged_twin(keys, tags, c, ctags,
                                                                        ints),
         view=_tagged_view, py_view=_tagged_view),
    Case(k_ls._insertion_pass, lambda r: _segment_inputs(r, small=True), _segment_twin,
         view=_segment_view, py_view=_segment_view),
    Case(k_ls._sort_segment, _segment_inputs, _segment_twin, view=_segment_view,
         py_view=_segment_view),
    Case(k_ls._sort_by_order,
         lambda r: (r.normal(size=8), r.integers(0, 9, 8), r.permutation(8), np.empty(11),
                    np.empty(11, dtype=np.int64), 3),
         lambda keys, tags, order, c, ctags, begin: (
             c.__setitem__(slice(begin, begin + 8), keys[order]),
             ctags.__setitem__(slice(begin, begin + 8), tags[order])),
         view=lambda result, args: (args[3][3:], args[4][3:])),
    Case(k_ls._gather,
         lambda r: (r.normal(size=8), r.integers(0, 9, 8), r.permutation(8), np.empty(8),
                    np.empty(8, dtype=np.int64)),
         _gather_twin, view=lambda result, args: (args[3], args[4])),
    Case(k_ls.step_at,
         lambda r: (np.array([0.0, 1.0, 2.0]), int(r.integers(0, 5)), 4, 3, 0.0, 2.0, 0.5)),
    # APDT
    Case(k_apdt.perceptron_errors,  # the erring rows' summed weight
         lambda r: (lambda Z, s, rows: (Z, s, rows, r.normal(size=Z.shape[1]),
                                        _weights_or_ones(r, Z.shape[0])))(
             *_perceptron_set(r)),
         lambda Z, s, rows, w, c: float(c[rows][
             ~(s[rows] * np.array([_sequential_sum(z * w) for z in Z[rows]]) > 0)].sum()),
         1e-12, "numpy sums the weights pairwise"),
    Case(k_apdt.perceptron,
         lambda r: (lambda Z, s, rows: (Z, s, rows, int(r.integers(1, 60)),
                                        bool(r.random() < 0.5),
                                        _weights_or_ones(r, Z.shape[0]),
                                        bool(r.random() < 0.5), 0.6))(*_perceptron_set(r))),
    Case(k_apdt.perceptron_iterations,
         lambda r: (int(r.integers(0, 500)), 300, bool(r.random() < 0.5)),
         lambda m, low, per_pass: max(low, m) * (m if per_pass else 1)),
    Case(k_apdt.count_nonseparable,
         lambda r: (lambda Z, s, rows: (Z, s, rows, 0.6, 20, int(r.integers(0, 3)),
                                        int(r.integers(0, 3)),
                                        _weights_or_ones(r, Z.shape[0])))(
             *_perceptron_set(r))),
    Case(k_apdt.separability_score,
         lambda r: (float(r.integers(0, 6)), float(r.integers(1, 6)), float(r.integers(0, 3)),
                    float(r.integers(0, 3)), 4.0),
         lambda n_l, n_r, e_l, e_r, M: _eq1(n_l, n_r, e_l, e_r, M)),
    Case(k_apdt.next_direction,
         lambda r: (np.where(r.random(3) < 0.5, -1.0, 1.0), r.random(3),
                    np.round(r.normal(size=21), 1), int(r.integers(1, 21)), 5.0, 10,
                    float(r.choice([1.0, 0.05])))),
    Case(k_apdt.alopex_split,
         lambda r: (lambda Z, s, rows: (Z, s, np.r_[0.1, r.normal(size=Z.shape[1] - 1)],
                                        r.random((30, Z.shape[1])), 0.05, 1000.0, 10, 1.0,
                                        0.6, 4.0, 20, 0, 0,
                                        _weights_or_ones(r, Z.shape[0])))(
             *_perceptron_set(r))),
    # CART-LC and OC1
    Case(k_cart_lc.coefficient_pass,
         lambda r: (lambda V, D, y, total, w: (
             np.column_stack([V, D]), y, total, _code(r), r.normal(size=2), 0.1, np.inf,
             np.arange(2), w))(*_weighted_line_inputs(r))),
    Case(k_cart_lc.slack_values,
         lambda r: (r.normal(size=(6, 3)), r.normal(size=3), 0.5, np.empty(6)),
         lambda Z, beta, c, out: np.array([_sequential_sum(z * beta) for z in Z]) - c),
    Case(k_cart_lc.best_threshold,
         lambda r: (lambda V, D, y, total, w: (np.column_stack([V, D]), r.normal(size=2), y,
                                               total, _code(r), w))(
             *_weighted_line_inputs(r))),
    # HHCART: numpy's broadcast reflection, the rows asked for
    Case(k_hhcart.reflected_rows, _reflection_inputs, _reflection_twin),
    # LDT: positions from numpy's own binary search, column by column
    Case(k_ldt.count_rows_at, _ldt_lookup_inputs, _ldt_lookup_twin),
    Case(k_ldt.group_sums, _ldt_group_inputs, _ldt_group_twin),
    # GDT
    Case(k_gdt.augmented_scatter,  # unweighted or with row weights
         lambda r: (lambda rows: (rows, _maybe_weights(r, rows.shape[0])))(
             _levels(r, (int(r.integers(1, 9)), 3))),
         lambda rows, w: (lambda aug, w: aug.T @ (w[:, None] * aug) / w.sum())(
             np.hstack([rows, np.ones((rows.shape[0], 1))]),
             np.ones(rows.shape[0]) if w is None else w), 1e-12,
         "BLAS sums in its own order"),
    Case(k_gdt.most_favoured_direction,  # rank-deficient den (few rows) too
         lambda r: (lambda G, H: (H, G, float(np.trace(H)), bool(r.random() < 0.7)))(
             k_gdt.augmented_scatter(_levels(r, (int(r.integers(1, 8)), 3))),
             k_gdt.augmented_scatter(_levels(r, (8, 3))))),
    Case(k_gdt.surely_above_rank_tolerance,  # well and badly conditioned factors
         lambda r: (lambda b: (np.linalg.cholesky(b), float(np.trace(b))))(
             (lambda Q, e: Q @ np.diag(e) @ Q.T)(np.linalg.qr(r.normal(size=(4, 4)))[0],
                                                 10.0 ** -r.integers(0, 16, 4))),
         lambda L, trace: 1 / np.sum(np.linalg.inv(L) ** 2)
         > k_gdt.CERTAINTY_MARGIN * L.shape[0] * np.finfo(float).eps * trace),
    Case(k_gdt.independent_columns, _collinear_rows, _independent_columns_twin),
    Case(k_gdt.unit_hyperplane, lambda r: (r.normal(size=4),),
         lambda w: (w / np.linalg.norm(w[:-1]) * canonical_signs(w[:-1]), True), 1e-12,
         "np.linalg.norm sums through BLAS"),
    Case(k_oc1.hyperplane_values,
         lambda r: (r.normal(size=(6, 3)), r.normal(size=3), np.empty(6)),
         lambda Xa, a, out: np.array([_sequential_sum(x * a) for x in Xa])),
    Case(k_oc1.values_by_column,  # hyperplane_values from the columns: the same bits
         lambda r: (r.normal(size=(3, 6)), r.normal(size=3), np.empty(6)),
         lambda XaT, a, out: np.array([_sequential_sum(x * a) for x in XaT.T])),
    # the threaded climb's pieces (its whole is checked against climb in test_oc1.py)
    Case(k_oc1.start_values,
         lambda r: (lambda st: (st[0], st[2], st[3], st[4], st[5], np.empty_like(st[1]),
                                np.empty(st[0].shape[0]),
                                np.zeros(st[0].shape[0], dtype=np.bool_), st[11]))(
             _climb_state(r)),
         lambda A, XaT, y, total, code, V, cur, perfect, w: V.__setitem__(
             slice(None), A @ XaT),
         1e-12, "numpy's product sums in its own order", view=lambda res, args: args[5]),
    Case(k_oc1.coefficient_moves, _coefficient_moves_inputs),
    Case(k_oc1.jump_moves, _jump_moves_inputs),
    Case(k_oc1.coefficient_move, lambda r: (lambda a: (int(a[0][0]) if a[0].size else 0,
                                                       *a[3:10], a[10][0], *a[11:]))(
        _coefficient_moves_inputs(r))),
    Case(k_oc1.jump_move, lambda r: (lambda a: (int(a[0][0]) if a[0].size else 0,
                                                a[3][0] if a[3].size else np.zeros(3),
                                                *a[4:10], a[10][0] if a[10].size
                                                else np.zeros(a[7].size + 1), *a[11:]))(
        _jump_moves_inputs(r))),
    Case(k_oc1.coefficient_draws, _draws_inputs, _coefficient_draws_twin),
    Case(k_oc1.jump_draws, _jump_draws_inputs, _jump_draws_twin,
         view=lambda result, args: args[2:4]),
    Case(k_oc1.climb,
         lambda r: (lambda V, D, y, total, w: (
             r.normal(size=(3, 3)), np.column_stack([V, D, np.ones(V.size)]), y, total,
             _code(r), np.random.default_rng(int(r.integers(1000))), 3, 2, w))(
             *_weighted_line_inputs(r))),
    Case(k_oc1.cart_lc_cycles,
         lambda r: (lambda V, D, y, total, w: (
             np.column_stack([V, D, np.ones(V.size)]), y, total, _code(r), r.normal(size=3),
             5, w))(*_weighted_line_inputs(r))),
    # SVM
    Case(k_svm.squared_distances, lambda r: (_levels(r, (5, 3)), _levels(r, (4, 3))),
         lambda A, B: ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)),
    Case(k_svm.squared_distances_within, lambda r: (_levels(r, (6, 3)),),
         lambda A: ((A[:, None, :] - A[None, :, :]) ** 2).sum(axis=2)),
    # UMT
    Case(k_umt.counts_at_most,
         lambda r: (lambda blocks, offsets, X, y: (
             blocks, offsets, 0, float(r.choice(X[:, 0])),
             np.zeros(offsets.size - 1, dtype=np.int64)))(*_umt_blocks(r)),
         lambda blocks, offsets, f, t, out: np.array(
             [np.searchsorted(blocks[a:b, f], t, side="right")
              for a, b in zip(offsets[:-1], offsets[1:])])),
    Case(k_umt.split_error_counts, lambda r: _counts(r),
         lambda left, total: 1.0 - (left.max() + (total - left).max()) / max(total.sum(), 1)),
    Case(k_umt.validation_error,
         lambda r: (lambda blocks, offsets, X, y: (
             X, y, np.bincount(y).astype(np.float64), 0, float(r.choice(X[:, 0])),
             np.empty(offsets.size - 1), np.ones(y.size)))(*_umt_blocks(r)),
         _validation_twin),
    Case(k_umt.choose_margin,
         lambda r: (lambda blocks, offsets, X, y: (
             blocks, offsets, _levels(r, (3, X.shape[1])), r.random(X.shape[1]) < 0.8, X, y,
             bool(r.random() < 0.5), _weights_or_ones(r, y.size), X, y,
             np.empty(0) if r.random() < 0.5 else _weights_or_ones(r, y.size)))(
             *_umt_blocks(r))),
    Case(k_umt.sign_rule_thresholds,
         lambda r: (lambda z_pos, z_neg, Cs: (z_neg, z_pos, Cs,
                                              np.empty((Cs.size, z_pos.shape[0])),
                                              np.ones(z_neg.shape), np.ones(z_pos.shape)))(
             *_hinge(r))),
    Case(k_umt.hinge_slack_sweep,
         lambda r: (lambda z_pos, z_neg, Cs: (z_pos, z_neg, Cs,
                                              *(np.empty((Cs.size, z_pos.shape[0]))
                                                for _ in range(3)),
                                              np.ones(z_pos.shape), np.ones(z_neg.shape)))(
             *_hinge(r)),
         _hinge_twin, view=lambda result, args: args[3:6]),
    # UMT with row weights (integers, and quarters): the weighted twins
    Case(k_umt.validation_error, _weighted_validation, _validation_twin, label="weighted"),
    Case(k_umt.sign_rule_thresholds, _weighted_sign_rule, _sign_rule_repeated_twin,
         view=lambda result, args: args[3], label="weighted"),
    Case(k_umt.hinge_slack_sweep, _weighted_hinge, _weighted_hinge_twin, rtol=1e-12,
         why="the twin adds the weighted slack of each breakpoint in another order",
         view=lambda result, args: args[3:6], label="weighted"),
]


# ------------------------------------------------------------------ the checks
def _kernel_name(case: Case) -> str:
    func = case.kernel.py_func
    return f"{func.__module__.rsplit('.', 1)[1]}.{func.__name__}"


def _name(case: Case) -> str:
    return _kernel_name(case) + (f"[{case.label}]" if case.label else "")


def _outcome(func, args, view):
    args = copy.deepcopy(args)  # the same inputs (and Generator state) for both runs
    result = func(*args)
    return view(result, args)


def _full(result, args):
    return result, args


def _output(result, args):
    return result if result is not None else args[-1]


def _same(a, b, rtol: float, bits: bool) -> None:
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, rtol, bits)
        return
    if isinstance(a, np.random.Generator):
        assert a.bit_generator.state == b.bit_generator.state  # the same draws taken
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    if rtol == 0.0:
        np.testing.assert_array_equal(a, b)
        if bits and a.dtype.kind == "f":
            np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
    else:
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol,
                                   atol=rtol)


def _draws(case: Case):
    rng = np.random.default_rng(zlib.crc32(_name(case).encode()))
    return [case.inputs(rng) for _ in range(N_DRAWS)]


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing is compiled")
@pytest.mark.parametrize("case", CASES, ids=_name)
def test_compiled_equals_its_source_run_as_python(case):
    view = case.py_view or _full
    for args in _draws(case):
        _same(_outcome(case.kernel, args, view), _outcome(case.kernel.py_func, args, view),
              0.0, bits=True)


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing is compiled")
@pytest.mark.parametrize("case", [c for c in CASES if c.twin is not None], ids=_name)
def test_compiled_equals_its_numpy_twin(case):
    assert case.rtol == 0.0 or case.why, "a tolerance needs its reason"
    view = case.view or _output
    for args in _draws(case):
        got, want = _outcome(case.kernel, args, view), _outcome(case.twin, args, view)
        if case.compare is not None:
            case.compare(got, want, case.rtol)
        else:
            _same(got, want, case.rtol, bits=False)


def test_every_kernel_has_a_case():
    found = set()
    for info in pkgutil.iter_modules(kernels_package.__path__):
        module = importlib.import_module(f"{kernels_package.__name__}.{info.name}")
        for obj in vars(module).values():
            func = getattr(obj, "py_func", None)
            if func is not None and func.__module__ == module.__name__:
                found.add(f"{info.name}.{func.__name__}")
    assert found == {_kernel_name(c) for c in CASES}
    assert len({_name(c) for c in CASES}) == len(CASES)  # no case twice
