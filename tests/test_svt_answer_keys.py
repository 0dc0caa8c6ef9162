"""Algorithm 3's answer keys: bit packing by 8 x 8 transposes, fingerprint grouping, and the partition they give.

Each fast path is compared with a plain form written here: a loop over bits, ``numpy.unique`` of the rows,
and Algorithm 3 computed from the whole d x d answer matrix at once.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpviz.svt import ABOVE, HALTED, GPTTOracle, SVTOracle, ordered_partition
from dpviz.svt import answer_keys as ak


@pytest.mark.parametrize("r, d", [(1, 1), (13, 37), (64, 8), (100, 100), (512, 333), (130, 4096)])
def test_column_words_hold_each_column_64_rows_to_a_word(r, d):
    bits = np.random.default_rng(r * d).random((r, d)) < 0.4
    words = ak._column_words(np.packbits(bits, axis=1, bitorder="little"), d)
    expected = np.zeros((d, -(-r // 64)), dtype=np.uint64)
    for row, x in zip(*np.nonzero(bits), strict=True):
        expected[x, row // 64] |= np.uint64(1) << np.uint64(row % 64)
    assert np.array_equal(words, expected)


def test_popcount_counts_bits():
    packed = np.random.default_rng(1).integers(0, 256, size=(7, 33), dtype=np.uint8)
    expected = [sum(bin(int(v)).count("1") for v in row) for row in packed]
    assert ak._popcount(packed).tolist() == expected
    words = packed[:, :32].copy().view(np.uint64)
    assert ak._popcount(words).tolist() == [sum(bin(int(v)).count("1") for v in row) for row in packed[:, :32]]


def _unique_rows(words):
    keys = np.ascontiguousarray(words).view(np.dtype((np.void, 8 * words.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def _same_groups(a, b):
    (f1, i1), (f2, i2) = a, b
    return np.array_equal(f1[i1], f2[i2])   # every row's group named by the group's first row


@pytest.mark.parametrize("multipliers", ["random", "all_equal_fingerprints"])
def test_group_rows_equals_numpy_unique(multipliers, monkeypatch):
    if multipliers != "random":   # every fingerprint 0: the exact check must catch it and sort instead
        monkeypatch.setattr(ak, "_MULTIPLIERS", np.zeros_like(ak._MULTIPLIERS))
    rng = np.random.default_rng(2)
    for d, w in [(1, 1), (50, 3), (400, 17)]:
        distinct = rng.integers(0, 2**64, size=(max(1, d // 7), w), dtype=np.uint64)
        words = distinct[rng.integers(0, distinct.shape[0], size=d)]
        words[rng.random(d) < 0.1, 0] ^= np.uint64(1) << np.uint64(63)   # keys that differ in a top bit only
        assert _same_groups(ak.group_rows(words), _unique_rows(words))


def _reference_partition(oracle, copies, grouping):
    """Algorithm 3 from the whole answer matrix: keys = rows (and columns), grouped by numpy.unique."""
    d = oracle.domain_size
    answers = np.asarray(oracle.answer_differences(np.arange(d), copies=copies)).astype(np.int64)
    votes = answers if copies == 1 else (2 * answers > copies).astype(np.int64)
    above, halted = votes == ABOVE, votes == HALTED
    parts = [above, halted] + ([above.T, halted.T] if grouping == "row_and_column" else [])
    keys = np.concatenate(parts, axis=1)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    scores = above.sum(axis=1)
    column_scores = above.sum(axis=0) if grouping == "row_and_column" else np.zeros(d, dtype=np.int64)
    order = np.lexsort((first, -column_scores[first], scores[first]))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[inverse.ravel()], scores[first][order], column_scores[first][order]


@pytest.mark.parametrize("d, oracle_kind, copies, grouping", [  # SVT answers each query once: copies = 1
    p for p in itertools.product([5, 64, 200], ["gptt", "gptt_noisy", "svt"], [1, 9], ["row_and_column", "row"])
    if not (p[1] == "svt" and p[2] > 1)])
def test_partition_equals_algorithm_3_on_the_whole_answer_matrix(d, oracle_kind, copies, grouping):
    x = np.random.default_rng(d).integers(0, 8, size=d)

    def oracle():
        if oracle_kind == "svt":
            return SVTOracle(x, 2.0, 6, rng=7)
        return GPTTOracle(x, 1.0, 1.0 if oracle_kind == "gptt_noisy" else None, rng=7)

    part = ordered_partition(oracle(), copies=copies, grouping=grouping, block=64)
    labels, scores, column_scores = _reference_partition(oracle(), copies, grouping)
    assert np.array_equal(part.labels, labels)
    assert np.array_equal(part.scores, scores) and np.array_equal(part.column_scores, column_scores)
    assert np.array_equal(part.group_sizes, np.bincount(labels))
