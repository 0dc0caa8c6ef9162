"""What the reconstruction attack may ask of the data: the oracle protocol, a GPTT oracle (NOT DP), an SVT oracle.

The attack ([CM15]_ Section 5) never reads the counts: it asks an oracle for
threshold answers to difference queries ``c(x) - c(y) + shift`` and for
Laplace-noised totals of disjoint groups of cells.  :class:`GPTTOracle` answers
the difference queries with GPTT (**NOT differentially private**),
:class:`SVTOracle` with the epsilon-DP sparse vector technique.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.

- [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. "Calibrating Noise to
  Sensitivity in Private Data Analysis." TCC 2006.
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from dpviz.mechanisms import binomial_heads, laplace_scale, scaled_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.svt.codes import HALTED, NOT_DP
from dpviz.svt.gptt_variant import _query_epsilon, gptt_noise_scales
from dpviz.svt.noise import _laplace_logsf
from dpviz.svt.sparse_vector_technique import svt_noise_scales
from dpviz.validation import check_array, check_counts, check_epsilon, check_int, check_real

__all__ = ["DifferenceOracle", "GPTTOracle", "SVTOracle", "MAX_COPIES"]

#: Most repetitions of one difference query (the counts of ABOVE answers are int32); a million copies
#: already defeat the explorer's largest query noise.
MAX_COPIES = 2**30


@runtime_checkable
class DifferenceOracle(Protocol):
    """What the attack may ask: threshold answers to difference queries, and noisy totals of disjoint groups.

    A structural protocol (checked with ``isinstance`` at run time): any object
    with a ``domain_size`` and these two methods can feed the attack
    (:func:`dpviz.svt.ordered_partition`, :func:`dpviz.svt.reconstruct_from_oracle`),
    which never sees the counts themselves.

    Attributes
    ----------
    domain_size : int
        Number of cells d of the private histogram.

    References
    ----------
    See [CM15] (Section 5) in the module docstring.

    Examples
    --------
    >>> isinstance(GPTTOracle([0, 1, 2], 1.0, rng=0), DifferenceOracle)
    True
    >>> isinstance(np.array([0, 1, 2]), DifferenceOracle)     # counts are not an oracle
    False
    """

    domain_size: int

    def answer_differences(self, rows: np.ndarray, copies: int = 1, shift: float = 0.0) -> np.ndarray:
        """For x in ``rows`` and every cell y: how many of ``copies`` answers to ``c(x) - c(y) + shift`` were ABOVE.

        Parameters
        ----------
        rows : numpy.ndarray of int, shape (r,)
            The cells x whose rows of difference queries are asked.
        copies : int, default 1
            Repetitions of every query.
        shift : float, default 0
            Public constant added to every difference query.

        Returns
        -------
        numpy.ndarray, shape (r, domain_size)
            Number of ``ABOVE`` answers per query (``HALTED`` = -1 where an SVT
            oracle has stopped answering).
        """

    def noisy_group_totals(self, labels: np.ndarray, epsilon: float) -> np.ndarray:
        """Laplace-noised total count of each group ``labels == g`` (disjoint groups, sensitivity 1).

        Parameters
        ----------
        labels : numpy.ndarray of int, shape (domain_size,)
            Group of every cell, 0 to G - 1.
        epsilon : float
            Budget of the release of all G totals.

        Returns
        -------
        numpy.ndarray, shape (G,)
            The noisy totals.
        """


class _HistogramOracle:
    """Shared machinery: holds the private histogram and answers noisy group totals (epsilon-DP)."""

    def __init__(self, counts: npt.ArrayLike, rng: RngLike = None) -> None:
        counts = check_counts("counts", counts)
        if np.any(counts != np.round(counts)):
            raise ValueError("counts must be integer counts")
        self.__counts = counts  # name-mangled: the attack never sees it
        self.domain_size = int(counts.size)
        self._rng = as_generator(rng)
        self.laplace_epsilon = 0.0
        self.queries_answered = 0

    def _counts(self) -> np.ndarray:
        return self.__counts

    def _check_rows(self, rows: npt.ArrayLike) -> np.ndarray:
        rows = np.asarray(rows)
        if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
            raise TypeError("rows must be a 1-D integer array of cell indices")
        if rows.size and (rows.min() < 0 or rows.max() >= self.domain_size):
            raise ValueError(f"rows must lie in [0, {self.domain_size - 1}]")
        return rows

    def noisy_group_totals(self, labels: npt.ArrayLike, epsilon: float) -> np.ndarray:
        """Total count of each group ``g = 0..G-1`` plus ``Lap(1/epsilon)``: epsilon-DP (parallel composition).

        The groups are disjoint, so adding or removing one record changes one
        total by one: the vector of totals has L1 sensitivity 1, and the Laplace
        mechanism [DMNS06] with scale ``laplace_scale(1, epsilon)`` makes it
        epsilon-DP.  ``laplace_epsilon`` accumulates the budget spent.

        Parameters
        ----------
        labels : array_like of int, shape (domain_size,)
            Group of every cell, 0 to G - 1.
        epsilon : float
            Budget of this release, finite and > 0.

        Returns
        -------
        numpy.ndarray, shape (G,)
            The noisy total of every group.

        Raises
        ------
        ValueError, TypeError
            If ``epsilon`` is not finite and > 0, or ``labels`` are not one
            non-negative integer per cell.
        """
        epsilon = check_epsilon(epsilon)
        labels = np.asarray(labels)
        if labels.shape != (self.domain_size,) or not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0:
            raise ValueError(f"labels must be {self.domain_size} non-negative integer group labels")
        totals = np.bincount(labels, weights=self.__counts)
        self.laplace_epsilon += epsilon
        return totals + scaled_laplace(laplace_scale(1.0, epsilon, name="epsilon_totals"), totals.size, rng=self._rng)


class GPTTOracle(_HistogramOracle):
    """Answers difference queries ``c(x) - c(y)`` by GPTT -- **NOT differentially private** -- and noisy totals.

    The attack (:func:`ordered_partition`, :func:`reconstruct_from_oracle`) only
    calls :meth:`answer_differences` and :meth:`noisy_group_totals`; the true
    counts are kept in a private attribute.  All answers of one oracle come from
    one GPTT run: one noisy threshold ``T^ = T + Lap(1/eps1)`` drawn at
    construction, fresh query noise ``Lap(1/eps2)`` per answer (none if
    ``epsilon_query`` is None).  Difference queries have sensitivity 1.

    With ``copies > 1`` each query is asked ``copies`` times and the number of
    ``ABOVE`` answers is returned: given ``T^`` the copies are independent, so this
    count is drawn exactly as ``Binomial(copies, P(q + nu >= T^))`` ([CM15] Thm 3.5).

    Parameters
    ----------
    counts : array_like of non-negative integers, shape (d,)
        The private histogram.
    epsilon_threshold : float
        eps1 of GPTT's threshold noise, finite and > 0.
    epsilon_query : float or None, default None
        eps2 of GPTT's query noise; None or inf means no query noise.
    threshold : float, default 0.5
        GPTT's public threshold T.
    rng : None, int, SeedSequence or Generator
        Source of the threshold noise, the query noise and the noisy totals.

    Attributes
    ----------
    domain_size : int
        Number of cells d.
    threshold, epsilon_threshold, epsilon_query : float
        The public parameters (``epsilon_query`` is inf without query noise).
    queries_answered : int
        Number of threshold answers given so far (copies counted).
    laplace_epsilon : float
        Budget spent on noisy totals so far.

    Raises
    ------
    ValueError, TypeError
        If ``counts`` are not non-negative integer counts, ``threshold`` is not a
        finite number (a bool is refused), or a parameter is invalid (see
        :func:`dpviz.svt.gptt_noise_scales`).  There is no ``accountant``
        parameter (passing one is a TypeError): GPTT is NOT DP, so no ledger
        can record its answers.

    References
    ----------
    See [CM15] (Alg. 2, Section 5) in the module docstring.

    Examples
    --------
    >>> oracle = GPTTOracle([3, 0, 1], 1.0, rng=0)
    >>> oracle.answer_differences(np.array([0]))        # is c(0) - c(y) >= T^, for every y?
    array([[0, 1, 1]], dtype=uint8)
    """

    def __init__(self, counts: npt.ArrayLike, epsilon_threshold: float, epsilon_query: float | None = None, *,
                 threshold: float = 0.5, rng: RngLike = None) -> None:
        super().__init__(counts, rng)
        self.threshold = check_real("threshold", threshold)
        self._b1, self._b2 = gptt_noise_scales(epsilon_threshold, epsilon_query)
        self.epsilon_threshold = float(epsilon_threshold)
        self.epsilon_query = _query_epsilon(epsilon_query)
        self.__noisy_threshold = self.threshold + scaled_laplace(self._b1, rng=self._rng)

    def answer_differences(self, rows: npt.ArrayLike, copies: int = 1, shift: float = 0.0) -> np.ndarray:
        """Number of ``ABOVE`` answers (out of ``copies``) of GPTT to ``c(x) - c(y) + shift``, x in rows, y every cell.

        ``shift`` is a public constant (the query keeps sensitivity 1); with
        ``x = y`` the query is the constant ``shift`` itself.

        Parameters
        ----------
        rows : array_like of int, shape (r,)
            The cells x, in ``[0, domain_size)``.
        copies : int, default 1
            Repetitions of every query, in ``[1, MAX_COPIES]`` (2**30).
        shift : float, default 0
            Public constant added to every difference.

        Returns
        -------
        numpy.ndarray, shape (r, domain_size)
            ``ABOVE`` counts; dtype uint8 when ``copies`` <= 255 (0/1 when
            ``copies`` = 1), else int32.

        Raises
        ------
        ValueError, TypeError
            If ``rows`` is not a 1-D integer array of cells, ``copies`` not an
            int in ``[1, 2**30]`` or ``shift`` not a finite number.
        """
        rows = self._check_rows(rows)
        copies = check_int("copies", copies, minimum=1, maximum=MAX_COPIES)
        shift = float(check_array("shift", shift, ndim=0))
        c = self._counts()
        s = self.__noisy_threshold
        dtype = np.uint8 if copies <= 255 else np.int32
        self.queries_answered += rows.size * c.size * copies
        if self._b2 == 0.0:
            # c(x) - c(y) + shift >= s  <=>  c(y) <= c(x) + shift - s: one comparison per query, no temporaries
            above = c[None, :] <= (c[rows] + (shift - s))[:, None]
            return above.view(np.uint8) if copies == 1 else above.astype(dtype) * dtype(copies)
        diff = c[rows, None] - c[None, :] + shift
        if copies == 1:
            return (diff + scaled_laplace(self._b2, diff.shape, rng=self._rng) >= s).astype(dtype)
        p = np.exp(_laplace_logsf(s - diff, self._b2))
        return binomial_heads(copies, p, rng=self._rng).astype(dtype)

    def __repr__(self) -> str:
        q = "no query noise" if math.isinf(self.epsilon_query) else f"epsilon_query={self.epsilon_query:g}"
        return (f"GPTTOracle({NOT_DP}; domain_size={self.domain_size}, epsilon_threshold={self.epsilon_threshold:g}, "
                f"{q}, threshold={self.threshold:g}, queries_answered={self.queries_answered})")


class SVTOracle(_HistogramOracle):
    """The honest counterpart of :class:`GPTTOracle`: difference queries answered by the sparse vector technique.

    One SVT run (epsilon-DP, :func:`sparse_vector`) over the query stream in the
    order asked (row by row); after ``c`` ``ABOVE`` answers every later query is
    ``HALTED`` (-1).  ``copies`` must be 1 (copies would count as separate queries
    in the same stream).

    Parameters
    ----------
    counts : array_like of non-negative integers, shape (d,)
        The private histogram.
    epsilon : float
        Budget of the SVT run, finite and > 0.
    c : int, default 1
        Number of ``ABOVE`` answers after which SVT halts.
    threshold : float, default 0.5
        SVT's public threshold T.
    threshold_share : float, default 0.5
        Fraction of epsilon spent on the threshold noise, in (0, 1).
    rng : None, int, SeedSequence or Generator
        Source of the threshold noise, the query noise and the noisy totals.

    Attributes
    ----------
    domain_size : int
        Number of cells d.
    threshold, epsilon : float
        The public parameters.
    c : int
        The halting count.
    positives : int
        ``ABOVE`` answers given so far (at most ``c``).
    queries_answered : int
        Queries answered before the halt.
    laplace_epsilon : float
        Budget spent on noisy totals so far.

    Raises
    ------
    ValueError, TypeError
        If ``counts`` are not non-negative integer counts, ``threshold`` is not a
        finite number (a bool is refused), or a parameter is invalid (see
        :func:`dpviz.svt.svt_noise_scales`).

    References
    ----------
    See [CM15] (Alg. 1) in the module docstring.

    Examples
    --------
    >>> oracle = SVTOracle([3, 0, 1], 1.0, c=1, rng=0)
    >>> oracle.answer_differences(np.array([0, 1, 2]))
    array([[ 0,  0,  0],
           [ 0,  1, -1],
           [-1, -1, -1]], dtype=int8)
    """

    def __init__(self, counts: npt.ArrayLike, epsilon: float, c: int = 1, *, threshold: float = 0.5,
                 threshold_share: float = 0.5, rng: RngLike = None) -> None:
        super().__init__(counts, rng)
        self.threshold = check_real("threshold", threshold)
        self.epsilon = check_epsilon(epsilon)
        self.c = check_int("c", c, minimum=1)
        self._b1, self._b2 = svt_noise_scales(epsilon, c, threshold_share=threshold_share)
        self.__noisy_threshold = self.threshold + scaled_laplace(self._b1, rng=self._rng)
        self.positives = 0

    def answer_differences(self, rows: npt.ArrayLike, copies: int = 1, shift: float = 0.0) -> np.ndarray:
        """SVT answers (1 above, 0 below, -1 halted) to ``c(x) - c(y) + shift``, x in rows, y every cell, as int8.

        The queries continue the oracle's single SVT stream, row by row.

        Parameters
        ----------
        rows : array_like of int, shape (r,)
            The cells x, in ``[0, domain_size)``.
        copies : int, default 1
            Must be 1.
        shift : float, default 0
            Public constant added to every difference.

        Returns
        -------
        numpy.ndarray of int8, shape (r, domain_size)
            ``ABOVE`` (1), ``BELOW`` (0) or ``HALTED`` (-1) per query.

        Raises
        ------
        ValueError, TypeError
            If ``rows`` is not a 1-D integer array of cells, ``copies`` is not 1
            or ``shift`` not a finite number.
        """
        rows = self._check_rows(rows)
        check_int("copies", copies, minimum=1, maximum=1)
        shift = float(check_array("shift", shift, ndim=0))
        out = np.full((rows.size, self.domain_size), HALTED, dtype=np.int8)
        c = self._counts()
        chunk = 8                                      # rows per noise draw: stop drawing once halted
        for start in range(0, rows.size, chunk):
            if self.positives >= self.c:
                break
            r = rows[start:start + chunk]
            diff = (c[r, None] - c[None, :] + shift).ravel()
            above = diff + scaled_laplace(self._b2, diff.size, rng=self._rng) >= self.__noisy_threshold
            before = self.positives + np.cumsum(above) - above
            flat = np.where(before < self.c, above.astype(np.int8), np.int8(HALTED))
            out[start:start + r.size] = flat.reshape(r.size, -1)
            self.positives = min(self.c, self.positives + int(above.sum()))
            self.queries_answered += int(np.count_nonzero(flat != HALTED))
        return out

    def __repr__(self) -> str:
        return (f"SVTOracle(epsilon-DP sparse vector; domain_size={self.domain_size}, epsilon={self.epsilon:g}, "
                f"c={self.c}, threshold={self.threshold:g}, queries_answered={self.queries_answered})")
