"""The per-cell answer keys of Algorithm 3, built row block by row block, and the cells grouped by them.

:func:`~dpviz.svt.ordered_partition` asks all ``d x d`` difference queries; a
cell's key is its answer row (``ABOVE`` and ``HALTED`` bits) and, for the
``row_and_column`` grouping, its answer column.  :class:`AnswerKeys` packs each
block of answer rows to bits as it arrives -- the rows by ``numpy.packbits``,
the columns 64 rows to a machine word by 8 x 8 bit transposes of the packed
rows, written straight into each cell's key --
counts the ``ABOVE`` answers with a popcount, and groups the cells by
fingerprint with an exact check (:func:`group_rows`).  For the 4096-cell
histograms (16.8 million queries) this takes about a third of the time of
packing the columns byte by byte through a transpose and sorting the 2 KB keys.
"""

from __future__ import annotations

import numpy as np

from dpviz.svt.codes import ABOVE, HALTED

#: Internal to :func:`dpviz.svt.ordered_partition`: nothing here is public API.
__all__: list[str] = []

#: Answer rows per machine word of a column key; row blocks must start at multiples of it.
WORD_ROWS = 64

#: Number of set bits of every byte value (a popcount that needs no numpy >= 2 ``bitwise_count``).
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)

#: Random 64-bit multipliers of the fingerprints of :func:`group_rows`, one per 32-bit half word (fixed: the
#: grouping is exact whatever they are; they only make a fingerprint collision, caught and resolved there,
#: unlikely -- about 2**-32 for a pair of keys, as for multilinear hashing of 32-bit chunks).
_MULTIPLIERS = np.random.default_rng(20150826).integers(0, 2**64, size=1 << 13, dtype=np.uint64)


def _popcount(packed: np.ndarray) -> np.ndarray:
    """Number of set bits in each row of a 2-D unsigned integer array (int64)."""
    count = getattr(np, "bitwise_count", None)   # numpy >= 2.0; else a byte table look-up
    if count is not None:
        return count(packed).sum(axis=1, dtype=np.int64)
    as_bytes = np.ascontiguousarray(packed).view(np.uint8).reshape(packed.shape[0], -1)
    return _POPCOUNT[as_bytes].sum(axis=1, dtype=np.int64)


def _transpose8(x: np.ndarray) -> np.ndarray:
    """Transpose the 8 x 8 bit matrix in each uint64 (byte i = row i, bit j = column j), in place."""
    for shift, mask in ((7, 0x00AA00AA00AA00AA), (14, 0x0000CCCC0000CCCC), (28, 0x00000000F0F0F0F0)):
        t = (x ^ (x >> np.uint64(shift))) & np.uint64(mask)
        x ^= t ^ (t << np.uint64(shift))
    return x


def _column_words(packed: np.ndarray, d: int) -> np.ndarray:
    """Column words (d, ceil(r/64)) of answer rows packed little-endian to bits, ``packed`` (r, ceil(d/8)).

    Bit i of word w of cell x is the answer of row ``64 w + i`` in column x.  Every 8 x 8 block of bits
    (8 rows, one byte of columns) is gathered into a word and transposed with three masked swaps
    (Hacker's Delight, 7-3), then eight bytes of a column become a word: no transpose of single bits
    or bytes of the whole block, which costs 2-3x as much.
    """
    r, nb = packed.shape
    pad = -r % WORD_ROWS
    if pad:
        packed = np.concatenate([packed, np.zeros((pad, nb), dtype=np.uint8)], axis=0)
        r += pad
    blocks = np.ascontiguousarray(packed.reshape(r // 8, 8, nb).transpose(0, 2, 1)).view(np.uint64)[..., 0]
    octets = _transpose8(blocks).view(np.uint8)     # (r / 8, 8 nb): rows 8g.. of every column, a byte each
    words = np.ascontiguousarray(octets.reshape(r // WORD_ROWS, 8, 8 * nb).transpose(0, 2, 1)).view(np.uint64)
    return words[..., 0].T[:d]


def group_rows(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)`` of the distinct rows of the uint64 array ``words`` (d, w).

    The same groups and first indices as ``numpy.unique`` of the rows as void scalars (``first[g]``
    the first row of group g, ``inverse[x]`` the group of row x), which sorts d keys by memcmp.  Here
    each row gets a 64-bit fingerprint (its 32-bit half words times fixed random 64-bit multipliers,
    summed mod 2**64: whole words would let differences in their top bits cancel), the fingerprints are
    grouped, and every row is compared with its group's first row; only if two different rows share a
    fingerprint does it fall back to the sort.

    Parameters
    ----------
    words : numpy.ndarray of uint64, shape (d, w)
        One key per row (the words of a row contiguous; the rows may be a column slice of a wider array).

    Returns
    -------
    first, inverse : numpy.ndarray
        First row of each group, and the group of each row.

    Examples
    --------
    >>> words = np.array([[5, 1], [7, 0], [5, 1]], dtype=np.uint64)
    >>> first, inverse = group_rows(words)
    >>> first[inverse].tolist()                       # each row named by the first row of its group
    [0, 1, 0]
    """
    d, w = words.shape
    if 0 < 2 * w <= _MULTIPLIERS.size:
        fingerprint = words.view(np.uint32) @ _MULTIPLIERS[: 2 * w]
        _, first, inverse = np.unique(fingerprint, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        if np.array_equal(words[first[inverse]], words):
            return first, inverse
    keys = np.ascontiguousarray(words).view(np.dtype((np.void, 8 * max(w, 1)))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first, inverse.ravel()


class AnswerKeys:
    """The answer keys of the d cells of a ``d x d`` query matrix, filled row block by row block.

    Parameters
    ----------
    d : int
        Number of cells.
    columns : bool
        Whether a cell's key includes its answer column (``row_and_column`` grouping).

    Attributes
    ----------
    scores : numpy.ndarray of int64, shape (d,)
        ``ABOVE`` answers in each cell's row.

    Examples
    --------
    >>> keys = AnswerKeys(3, columns=True)
    >>> keys.add(0, np.array([[0, 0, 0], [1, 0, 0], [1, 0, 0]], dtype=np.int8))   # rows 1, 2 are above cell 0
    >>> keys.scores.tolist(), keys.column_scores().tolist()
    ([0, 1, 1], [2, 0, 0])
    >>> first, inverse = keys.groups()
    >>> first[inverse].tolist()
    [0, 1, 1]
    """

    def __init__(self, d: int, columns: bool) -> None:
        self.d, self.columns = d, columns
        w = -(-d // WORD_ROWS)                                    # words of one row (or column) of bits
        cw = w if columns else 0
        # per cell: [row ABOVE | column ABOVE | row HALTED | column HALTED], as uint64 words; the HALTED
        # half stays zero unless an SVT oracle halts, and is then left out of the grouping
        self._above = (slice(0, w), slice(w, w + cw))
        self._halted = (slice(w + cw, 2 * w + cw), slice(2 * w + cw, 2 * (w + cw)))
        self._keys = np.zeros((d, 2 * (w + cw)), dtype=np.uint64)
        self._bytes = self._keys.view(np.uint8)
        self._any_halted = False
        self.scores = np.zeros(d, dtype=np.int64)
        self._all_halted = np.packbits(np.ones(d, dtype=bool), bitorder="little")

    def _put_row_bits(self, rows: slice, part: slice, packed: np.ndarray) -> None:
        """Write packed row bits (r, ceil(d/8)) at the start of the word range ``part`` of the cells ``rows``."""
        self._bytes[rows, 8 * part.start: 8 * part.start + packed.shape[1]] = packed

    def add(self, start: int, votes: np.ndarray) -> None:
        """Record the answers ``votes`` (r, d) of the rows ``start, ..., start + r - 1``.

        Parameters
        ----------
        start : int
            First row of the block, a multiple of :data:`WORD_ROWS`.
        votes : numpy.ndarray of int8, shape (r, d)
            ``ABOVE``, ``BELOW`` or ``HALTED`` per query.
        """
        r, d = votes.shape
        rows = slice(start, start + r)
        w0, w1 = start // WORD_ROWS, -(-(start + r) // WORD_ROWS)
        row_above, col_above = self._above
        row_halted, col_halted = self._halted
        halted = votes == HALTED
        if halted.all():   # an SVT oracle that has stopped: nothing ABOVE, every bit HALTED
            self._any_halted = True
            self._put_row_bits(rows, row_halted, self._all_halted[None, :])
            if self.columns:
                ones = np.packbits(np.ones((r, 1), dtype=bool), axis=1, bitorder="little")
                self._keys[:, col_halted.start + w0: col_halted.start + w1] = _column_words(ones, 1)
            return
        above = np.packbits(votes == ABOVE, axis=1, bitorder="little")
        self._put_row_bits(rows, row_above, above)
        self.scores[rows] = _popcount(above)
        if halted.any():   # HALTED answers stay distinguishable from BELOW
            self._any_halted = True
            halted_bits = np.packbits(halted, axis=1, bitorder="little")
            self._put_row_bits(rows, row_halted, halted_bits)
            if self.columns:
                self._keys[:, col_halted.start + w0: col_halted.start + w1] = _column_words(halted_bits, d)
        if self.columns:
            self._keys[:, col_above.start + w0: col_above.start + w1] = _column_words(above, d)

    def column_scores(self) -> np.ndarray:
        """``ABOVE`` answers in each cell's column (zeros without columns).

        Returns
        -------
        numpy.ndarray of int64, shape (d,)
            The counts.
        """
        if not self.columns:
            return np.zeros(self.d, dtype=np.int64)
        return _popcount(self._keys[:, self._above[1]])

    def groups(self) -> tuple[np.ndarray, np.ndarray]:
        """The cells grouped by equal keys (see :func:`group_rows`).

        Returns
        -------
        first, inverse : numpy.ndarray
            The first cell of each group, and the group of every cell.
        """
        if self._any_halted:
            return group_rows(self._keys)
        return group_rows(self._keys[:, : self._halted[0].start])   # the HALTED half is zero for every cell
