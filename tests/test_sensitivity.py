import numpy as np
import pytest
import scipy.sparse as sp

from dpviz.mechanisms import sensitivity


def test_l1_l2_dense_and_sparse_agree():
    rng = np.random.default_rng(0)
    W = rng.integers(-3, 4, size=(7, 5)).astype(float)
    assert sensitivity.l1(W) == pytest.approx(np.abs(W).sum(axis=0).max())
    assert sensitivity.l2(W) == pytest.approx(np.sqrt((W**2).sum(axis=0)).max())
    for cls in (sp.csr_matrix, sp.csc_array, sp.coo_array):
        assert sensitivity.l1(cls(W)) == pytest.approx(sensitivity.l1(W))
        assert sensitivity.l2(cls(W)) == pytest.approx(sensitivity.l2(W))


def test_lecture_examples():
    # all ranges over 4 cells: ||W||_1 = 6 (slides); identity: 1; prefix over n cells: n
    n = 4
    W = np.array([[1 if i <= k <= j else 0 for k in range(n)] for i in range(n) for j in range(i, n)])
    assert sensitivity.l1(W) == 6
    assert sensitivity.l1(np.eye(5)) == 1
    assert sensitivity.l1(np.tril(np.ones((6, 6)))) == 6


def test_bad_input():
    with pytest.raises(ValueError, match="W"):
        sensitivity.l1([1, 2, 3])
    with pytest.raises(ValueError, match="W"):
        sensitivity.l1([[1, np.nan]])
    with pytest.raises(TypeError, match="W"):
        sensitivity.l2("W")
