"""The bad values of tests/badinput.py: which wrong arguments to try for a parameter, and how to judge an answer.

Families, each chosen from the parameter's name, annotation and value in the base call:

* scalars: NaN, a string or a bool for a number, zero/negative/inf budgets and deltas outside (0, 1), a
  fractional or huge count, 2**64 and 10**7 for an int (beyond numpy's integers; a size that must answer in
  time), the extreme finite floats (1e308, -1e308, 1e-300, the subnormal 5e-324, tiny probabilities
  alpha/delta = 1e-300, one just below 1), a 0-d array in place of a number;
* arrays: a string, a NaN entry, 0-d and 3-d arrays, entries of 1e308 / -1e308 / 5e-324 (whose sums and
  products overflow) and 1e15 (counts not to expand one by one), all zero, empty (and no rows), a negative
  count, a fraction where an integer is required (``starts=[0.5]``), length 1 or n - 1 (numpy would broadcast
  or crash), bool, str and object arrays, a negative or indefinite covariance, a negative weight; an optional
  array left out (None) gets a string, NaN, bool and length-1 array;
* tables (structured arrays): no rows, a plain array, numeric fields all 0, 1e308 or negative;
* callables: a non-callable, and a mechanism returning NaN, inf or too few samples;
* objects (a workload, a tree, an event ...): a string or an int instead;
* pairs of arguments whose ratio overflows (a sensitivity of 1e300 with epsilon 1e-300).

``GOOD`` values must be refused; ``MAYBE`` values may be valid, and are judged by the answer: a finite input
that gives NaN or inf where the base call was finite, a negative variance, or a shortened array whose answer
keeps the full length (:func:`judge_length`) is a *silent* wrong answer.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

GOOD, MAYBE = "must_refuse", "may_accept"

COUNT_NAMES = {"x", "counts", "histogram", "hist", "data", "values", "table", "records"}
SIZE_NAMES = re.compile(r"^(n|m|k|d|b|size|trials|rounds|samples|n_\w+|\w+_size|branching|levels|copies|height|"
                        r"dimension|dimensions|repeats|reps|bins|buckets|queries|width|max_\w+)$")
PROB_NAMES = re.compile(r"^(alpha|p|ratio|rho|share|quantile|confidence|level|beta_share|frac\w*|prob\w*)$")
FREE_TEXT = {"label", "title", "name", "description", "path"}
# arrays whose entries are positions, sizes or indices: a fraction there is a mistake, never a value
INTEGER_ARRAYS = re.compile(r"^(starts|stops|lo|hi|widths|ns|dims|branchings|shape|ks|k|query|attributes|"
                            r"group_sizes|indices|index|sizes|membership|event|output|t|t_values|cells)$")
COVARIANCE_NAMES = re.compile(r"^(cov|covariance|\w+_cov|sigma_matrix)$")
WEIGHT_NAMES = re.compile(r"^(weights|variances|var|variance)$")
# callables the function calls at once (a mechanism): what they return must be checked there
CALLED_NAMES = re.compile(r"^(mechanism|sampler|score_fn|query_fn)$")
# pairs (scale-like, budget-like) whose ratio overflows when the first is huge and the second tiny
SCALE_NAMES = re.compile(r"^(sensitivity|l1_sensitivity|l2_sensitivity|scale|clip|bound|upper)$")


def is_numeric_array(v: Any) -> bool:
    """A non-empty list, tuple or array of ints/floats (the kind of base value the array families apply to)."""
    if isinstance(v, (list, tuple, np.ndarray)) and not isinstance(v, str):
        try:
            if np.asarray(v).dtype.kind not in "iuf":
                return False
            a = np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            return False
        return a.size > 0
    return False


#: labels of the families that change an array's length; an accepted one is judged by the shape of the answer
LENGTH_FAMILIES = ("length 1", "length n-1", "0-d")


def _scalar_values(name: str, annotation: str, base: Any) -> Iterator[tuple[Any, str, str]]:
    if isinstance(base, (int, np.integer)) and not isinstance(base, bool) and ("int" in annotation or not annotation):
        yield 2.5, GOOD, "fractional"
        yield "3", GOOD, "str number"
        yield True, GOOD, "bool for int"
        yield float("nan"), GOOD, "nan"
        yield np.array(base), MAYBE, "0-d array"
        yield 2**64, MAYBE, "2**64"  # beyond numpy's 64-bit integers
        if base >= 1:  # large but within most allocation caps: must answer (or be refused) in time
            yield 10**7, MAYBE, "10**7"
        if SIZE_NAMES.match(name):
            if base >= 0:
                yield -1, GOOD, "negative"
            yield 10**15, MAYBE, "huge"
        return
    if not (isinstance(base, (float, int, np.floating)) and not isinstance(base, bool)):
        return
    yield float("nan"), GOOD, "nan"
    yield "1", GOOD, "str number"
    yield True, GOOD, "bool for float"
    yield np.array(float(base)), MAYBE, "0-d array"
    is_eps = name.startswith("eps") or name.startswith("epsilon")
    if is_eps:
        yield 0.0, GOOD, "zero"
        yield -1.0, GOOD, "negative"
        yield float("inf"), GOOD, "inf"
        yield 1e-300, MAYBE, "tiny"
        yield 5e-324, MAYBE, "subnormal"
        yield 1e308, MAYBE, "1e308"
    elif name.startswith("delta"):
        yield -0.1, GOOD, "negative"
        yield 1.5, GOOD, "above one"
        yield float("inf"), GOOD, "inf"
        if float(base) > 0:
            yield 1e-300, MAYBE, "tiny"
            yield 5e-324, MAYBE, "subnormal"
    elif PROB_NAMES.match(name) and 0 <= float(base) <= 1:
        yield -0.1, GOOD, "below zero"
        yield 1.5, GOOD, "above one"
        if 0 < float(base) < 1:
            yield 1e-300, MAYBE, "tiny"
            yield 5e-324, MAYBE, "subnormal"
            yield 1 - 2**-53, MAYBE, "just below one"
    elif float(base) > 0:
        yield -1.0, GOOD, "negative"
        yield float("inf"), MAYBE, "inf"
        yield 1e300, MAYBE, "huge"
        yield 1e-300, MAYBE, "tiny"
        yield 1e308, MAYBE, "1e308"
        yield 5e-324, MAYBE, "subnormal"
    else:
        yield 1e308, MAYBE, "1e308"
        yield -1e308, MAYBE, "-1e308"


def _array_values(name: str, base: Any) -> Iterator[tuple[Any, str, str]]:
    raw = np.asarray(base)
    a = raw.astype(float)
    yield "abc", GOOD, "str array"
    bad_nan = a.copy()
    bad_nan.flat[0] = np.nan
    yield bad_nan, GOOD, "nan entry"
    yield np.ones((2, 2, 2)), GOOD, "3-d"
    is_counts = name in COUNT_NAMES or name.endswith("counts")
    if is_counts:
        neg = a.copy()
        neg.flat[0] = -1
        yield neg, GOOD, "negative count"
        yield np.array([], dtype=float), GOOD, "empty"
    else:
        yield np.array([], dtype=float), MAYBE, "empty"
    if a.ndim == 2:
        yield np.zeros((0, a.shape[1])), GOOD if is_counts else MAYBE, "no rows"
    # extreme finite entries: their sums, squares and products overflow
    yield np.full(a.shape, 1e308), MAYBE, "entries 1e308"
    yield np.full(a.shape, -1e308), MAYBE, "entries -1e308"
    yield np.full(a.shape, 5e-324), MAYBE, "entries 5e-324"
    # large but representable: counts of 1e15 records must not be expanded record by record (blow-ups, hangs)
    yield np.full(a.shape, 1e15), MAYBE, "entries 1e15"
    yield np.zeros_like(raw), MAYBE, "all zero"  # of the base's dtype: integers stay integers
    # numbers of the wrong kind: numpy converts all of these to floats without a word
    yield (a > a.flat[0]), GOOD, "bool array"
    yield a.astype(str), GOOD, "str digits array"
    obj = a.astype(object)
    obj.flat[0] = "1"
    yield obj, GOOD, "object array"
    if raw.dtype.kind in "iu" and INTEGER_ARRAYS.match(name):
        frac = a.copy()
        frac.flat[0] += 0.5
        yield frac, GOOD, "fractional entry"
    # a length other arguments may not have: numpy would broadcast length 1 (or 0-d) and crash on n - 1; an
    # accepted one is judged against the same call with the array doubled (tests/badinput.py: judge_length)
    if raw.ndim >= 1 and raw.shape[0] > 1:
        yield raw[:1], MAYBE, "length 1"
        yield raw[:-1], MAYBE, "length n-1"
    yield np.asarray(raw.flat[0]), MAYBE, "0-d"
    if COVARIANCE_NAMES.match(name) and a.ndim == 2 and a.shape[0] == a.shape[1]:
        yield -a, GOOD, "negative definite"
        indefinite = a.copy()
        indefinite[0, 0] = -abs(a).sum() - 1.0
        yield indefinite, GOOD, "indefinite"
    if WEIGHT_NAMES.match(name):
        neg = a.copy()
        neg.flat[0] = -1.0
        yield neg, GOOD, "negative weight"


def _table_values(name: str, base: np.ndarray) -> Iterator[tuple[Any, str, str]]:
    """A structured array (a table of records): no rows, a plain array, numeric fields all 0, 1e308 or negative."""
    yield base[:0], GOOD, "empty table"
    yield np.ones(base.shape), GOOD, "plain array for table"
    numeric = [f for f in base.dtype.names if base.dtype[f].kind in "iuf"]
    for label, value in (("zero fields", 0), ("fields 1e308", 1e308), ("negative fields", -1)):
        t = base.copy()
        for f in numeric:
            t[f] = value
        yield t, MAYBE, label


def _wrap(base: Callable[..., Any], how: str) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        out = np.asarray(base(*args, **kwargs))
        if how == "nan":
            return np.full(out.shape, np.nan)
        if how == "inf":
            return np.full(out.shape, np.inf)
        return out[:-1] if out.ndim else out[None][:0]  # one sample too few
    wrapped.__name__ = f"{getattr(base, '__name__', 'callable')}_{how}"
    return wrapped


def _callable_values(name: str, base: Callable[..., Any]) -> Iterator[tuple[Any, str, str]]:
    yield 3, GOOD, "non-callable"
    yield "f", GOOD, "str for callable"
    if not CALLED_NAMES.match(name):
        return  # a predicate or function stored for later (an event, a cache) is judged where it is called
    yield _wrap(base, "nan"), GOOD, "returns NaN"
    yield _wrap(base, "inf"), GOOD, "returns inf"
    yield _wrap(base, "short"), GOOD, "returns wrong shape"


def bad_values(name: str, annotation: str, base: Any) -> Iterator[tuple[Any, str, str]]:
    """(value, GOOD|MAYBE, label) triples that are wrong for a parameter like this one."""
    optional = "None" in annotation or base is None
    if name == "self":
        return
    if name == "rng":
        yield "seed", GOOD, "str"
        yield -1, GOOD, "negative seed"
        yield 1.5, GOOD, "float seed"
        return
    if name == "accountant":
        yield "acc", GOOD, "str"
        yield 1, GOOD, "int"
        return
    if annotation.strip() in ("bool", "bool | None") or isinstance(base, (bool, np.bool_)):
        yield "no", GOOD, "str flag"
        yield 1, GOOD, "int flag"
        if not optional:
            yield None, GOOD, "None flag"
        return
    if isinstance(base, str) or "Literal[" in annotation:
        if name in FREE_TEXT:
            return
        yield "nope", GOOD, "unknown option"
        yield "", GOOD, "empty option"
        yield 3, GOOD, "int option"
        return
    if isinstance(base, (int, float, np.integer, np.floating)):
        yield from _scalar_values(name, annotation, base)
        return
    if is_numeric_array(base):
        yield from _array_values(name, base)
        return
    if base is None and re.search(r"ArrayLike|ndarray|array_like", annotation):
        # an optional array left out in the example: the values that are wrong whatever its length
        yield "abc", GOOD, "str array"
        yield np.array([np.nan]), GOOD, "nan entry"
        yield np.array([True]), GOOD, "bool array"
        yield np.array([1.0]), MAYBE, "length 1"
        return
    if isinstance(base, np.ndarray) and base.dtype.names:
        yield from _table_values(name, base)
        return
    if inspect.isfunction(base) or inspect.ismethod(base) or isinstance(base, functools.partial):
        yield from _callable_values(name, base)
        return
    if type(base).__module__.startswith("dpviz") and not isinstance(base, type):
        # a workload, a tree, a problem, a partition, an event ...: another type is a mistake
        yield "nope", GOOD, "str for object"
        yield 3, GOOD, "int for object"


def pair_values(names: dict[str, Any]) -> Iterator[tuple[str, Any, dict[str, Any], str]]:
    """(param, value, other substitutions, label): pairs of arguments whose ratio overflows."""
    eps = [n for n, v in names.items() if (n.startswith("eps")) and isinstance(v, (int, float))
           and not isinstance(v, bool)]
    scales = [n for n, v in names.items() if SCALE_NAMES.match(n) and isinstance(v, (int, float))
              and not isinstance(v, bool) and v > 0]
    for s in scales:
        for e in eps:
            yield s, 1e300, {e: 1e-300}, f"1e300 with {e}=1e-300"


# --------------------------------------------------------------------------- judging an answer
_VARIANCE_FIELD = re.compile(r"(^|_)(var|variance|variances|mse|mses|mean_squared_error|second_moment)(_|$)")


def negative_variance(result: Any, fn_name: str = "") -> str | None:
    """The name of a variance (a field, or the result of a ``*variance*`` function) that is negative, if any."""
    def neg(v: Any) -> bool:
        try:
            arr = np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            return False
        with np.errstate(invalid="ignore"):
            return bool(np.any(arr < 0))

    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        for f in dataclasses.fields(result):
            if _VARIANCE_FIELD.search(f.name) and neg(getattr(result, f.name)):
                return f.name
        return None
    if _VARIANCE_FIELD.search(fn_name) and isinstance(result, (int, float, np.number, np.ndarray)) and neg(result):
        return fn_name
    return None


def leaf_shapes(result: Any) -> list[tuple[int, ...]]:
    """The shapes of the numeric arrays in a result (dataclass fields, tuple/list/dict items), in order."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return [s for f in dataclasses.fields(result) for s in leaf_shapes(getattr(result, f.name))]
    if isinstance(result, dict):
        return [s for v in result.values() for s in leaf_shapes(v)]
    if isinstance(result, (tuple, list)) and result and not isinstance(result[0], str):
        return [s for v in result for s in leaf_shapes(v)]
    if isinstance(result, np.ndarray) and result.dtype.kind in "biuf":
        return [result.shape]
    if hasattr(result, "nnz") and hasattr(result, "shape"):  # a scipy.sparse matrix
        return [tuple(result.shape)]
    return []


def judge_length(base: list[tuple[int, ...]], short: list[tuple[int, ...]], doubled: list[tuple[int, ...]] | None,
                 why: str) -> str | None:
    """Why an accepted shorter array (length 1, n - 1 or 0-d) is a silent broadcast, or None if it is not.

    ``base``, ``short`` and ``doubled`` are the shapes of the answers to the base call, the call with the short
    array and the call with the array doubled to length 2n (None if that call was refused).

    The short array gave an answer of the base call's shape, while

    * the doubled array is refused: the array's length is tied to something else (another argument, the data),
      so the short one was broadcast or padded to it; or
    * the doubled array changes the answer's shape: the shape follows this array's length, so the short one's
      entries were broadcast (or made up) to the full length.

    An answer whose shape does not depend on the array's length (a total, a maximum) tells nothing: not judged.
    """
    if short != base:
        return None
    if doubled is None:
        return f"a length-2n array is refused (its length is tied to other data), but a {why} one gave an answer " \
               "of the full shape"
    if doubled != base:
        return f"the answer's shape follows this array's length, but a {why} one gave the full-length answer"
    return None
