"""A bad-input fuzzer for dpviz's public API: every bad argument must get a clear, named refusal.

How it works
------------
1. **Targets**: every public function of the core and of ``dpviz.experiments``, the accountant's methods, and
   the explorers' constructors (not the exercise checkers, which answer any input with feedback by design).
2. **A valid base call per target**, taken from the target's own docstring example: the example is executed
   with the target wrapped in a recorder, and the first call's arguments are kept.  A target without an example
   is called with its defaults if it has no required parameter; otherwise it is reported as *uncovered*.
3. **Bad values per parameter**, chosen from the parameter's name, annotation and base value (a budget, a
   probability, a count, a flag, an option string, an array of counts, an ``rng``, an ``accountant`` ...), each
   replacing that one argument of the base call.
4. **Outcomes**:

   ``named``      ValueError/TypeError (or dpviz's own error, e.g. BudgetExceededError) whose message names
                  the parameter (the only good refusal);
   ``unnamed``    ValueError/TypeError that does not name it;
   ``crash``      any other exception (AttributeError, IndexError, ZeroDivisionError, numpy internals ...);
   ``silent``     the call returned although the value is invalid, or returned NaN/inf where the base
                  call's result was finite;
   ``accepted``   a value that may be valid (e.g. ``epsilon=1e-300``) was accepted with a finite result;
   ``hang``       no answer within the time limit;
   ``blowup``     MemoryError (an allocation was attempted instead of refused).

Run ``python -m tests.badinput [PREFIX]`` (``make fuzz``) for the full report (PREFIX, e.g.
``dpviz.hierarchy``, keeps the targets whose name starts with it); ``tests/test_bad_input.py`` runs the same
cases (and hypothesis-drawn numbers) under pytest.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import inspect
import pkgutil
import re
import signal
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

import dpviz

GOOD, MAYBE = "must_refuse", "may_accept"
OUTCOMES = ("named", "unnamed", "crash", "silent", "accepted", "hang", "blowup")
FAILURES = ("unnamed", "crash", "silent", "hang", "blowup")
TIME_LIMIT = 5.0
_NOT_A_VALUE = object()

COUNT_NAMES = {"x", "counts", "histogram", "hist", "data", "values", "table", "records"}
SIZE_NAMES = re.compile(r"^(n|m|k|d|b|size|trials|rounds|samples|n_\w+|\w+_size|branching|levels|copies|height|"
                        r"dimension|dimensions|repeats|reps|bins|buckets|queries|width|max_\w+)$")
PROB_NAMES = re.compile(r"^(alpha|p|ratio|rho|share|quantile|confidence|level|beta_share|frac\w*|prob\w*)$")
FREE_TEXT = {"label", "title", "name", "description", "path"}


@dataclasses.dataclass
class Target:
    """One public callable and a valid call of it."""

    qualname: str
    fn: Callable[..., Any]
    args: tuple[Any, ...] | None = None
    kwargs: dict[str, Any] | None = None
    signature: inspect.Signature | None = None  # explorers: their controls, which the constructor takes as **values

    @property
    def covered(self) -> bool:
        return self.args is not None


@dataclasses.dataclass
class Case:
    """One bad value for one parameter of one target."""

    target: Target
    param: str
    value: Any
    kind: str  # GOOD (must be refused) or MAYBE (may be accepted if the result is finite)
    why: str

    @property
    def id(self) -> str:
        return f"{self.target.qualname}:{self.param}={self.why}"


# --------------------------------------------------------------------------- targets
def _public(mod: Any) -> list[str]:
    names = getattr(mod, "__all__", None)
    return list(names) if names is not None else [n for n in vars(mod) if not n.startswith("_")]


SKIPPED = ("dpviz.plots", "dpviz.widgets", "dpviz.validation", "dpviz.exercises", "dpviz.export")


def targets() -> list[Target]:
    """Every public function of the core and experiments, the accountant's methods and the explorers."""
    found: dict[int, Target] = {}
    for info in sorted(pkgutil.walk_packages(dpviz.__path__, "dpviz."), key=lambda i: i.name):
        # plots draw what experiments computed; explorers are added below through their controls; the validators
        # are the refusal machinery itself (their first argument is the caller's parameter name), checked by
        # their doctests and by every case below; the exercise checkers turn any answer into feedback on purpose
        # (tests/test_exercises.py gives them nonsense answers); export runs whole explorers and writes files
        # (tests/test_export.py gives it bad names and sizes)
        if info.name.startswith(SKIPPED):
            continue
        mod = importlib.import_module(info.name)
        for name in _public(mod):
            obj = getattr(mod, name, None)
            if (inspect.isfunction(obj) and obj.__module__.startswith("dpviz")
                    and not obj.__module__.startswith(SKIPPED) and id(obj) not in found):
                found[id(obj)] = Target(f"{obj.__module__}.{obj.__qualname__}", obj)
    from dpviz.accountant import PrivacyAccountant

    found[id(PrivacyAccountant)] = Target("dpviz.accountant.PrivacyAccountant", PrivacyAccountant)
    for meth in ("spend", "can_spend", "remaining"):
        fn = getattr(PrivacyAccountant, meth, None)
        if inspect.isfunction(fn):
            found[id(fn)] = Target(f"dpviz.accountant.PrivacyAccountant.{meth}", fn)
    widgets = importlib.import_module("dpviz.widgets")
    for name in widgets.__all__:
        cls = getattr(widgets, name)
        if inspect.isclass(cls) and cls is not widgets.Explorer:  # the base class is not an explorer
            found[id(cls)] = Target(f"dpviz.widgets.{name}", cls)
    out = sorted(found.values(), key=lambda t: t.qualname)
    for t in out:
        _find_base_call(t)
    return out


class _Recorded(Exception):
    pass


def _explorer_base_call(t: Target) -> None:
    """An explorer's constructor takes its controls as keyword arguments: fuzz each control's starting value."""
    explorer = t.fn()
    values = {name: ctrl.value for name, ctrl in explorer.controls.items()}
    params = [p for p in inspect.signature(t.fn).parameters.values() if p.kind is not p.VAR_KEYWORD]
    params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=v, annotation=type(v).__name__)
               for name, v in values.items() if name not in {p.name for p in params} and name.isidentifier()]
    params.append(inspect.Parameter("values", inspect.Parameter.VAR_KEYWORD))  # controls named like 'show_DAWA-H2'
    t.signature = inspect.Signature(params)
    t.args, t.kwargs = (), values


def _find_base_call(t: Target) -> None:
    """Fill ``t.args``/``t.kwargs`` from the first call of ``t.fn`` in its docstring example."""
    if t.qualname.startswith("dpviz.widgets.") and inspect.isclass(t.fn):
        _explorer_base_call(t)
        return
    owner_mod = importlib.import_module(t.fn.__module__)
    is_method = "." in t.fn.__qualname__
    cls_name = t.fn.__qualname__.split(".")[0] if is_method else None
    doc = inspect.getdoc(t.fn) or ""
    if is_method:  # a method's own example first, then its class's
        doc += "\n" + (inspect.getdoc(getattr(owner_mod, cls_name or "")) or "")
    examples = doctest.DocTestParser().get_examples(doc)
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def recorder(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return t.fn(*args, **kwargs)

    ns: dict[str, Any] = dict(vars(owner_mod))
    ns["np"] = np
    if is_method:
        cls = getattr(owner_mod, cls_name or "")
        patched = type(cls.__name__, (cls,), {t.fn.__name__: recorder_method(t.fn, calls)})
        ns[cls.__name__] = patched
    else:
        ns[t.fn.__name__] = recorder
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ex in examples:
            try:
                exec(compile(ex.source, "<example>", "exec"), ns)  # noqa: S102 - our own docstrings
            except Exception:  # noqa: BLE001 - an example that fails just gives no base call
                break
            if calls:
                break
    if calls:
        t.args, t.kwargs = calls[0]
        return
    sig = _signature(t.fn)
    if sig is not None and all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                               for n, p in sig.parameters.items() if n != "self"):
        t.args, t.kwargs = (), {}


def recorder_method(fn: Callable[..., Any], calls: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> Any:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(((self, *args), kwargs))
        return fn(self, *args, **kwargs)
    return method


def _signature(fn: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


# --------------------------------------------------------------------------- bad values
def _bound(t: Target) -> inspect.BoundArguments | None:
    sig = t.signature or _signature(t.fn)
    if sig is None or t.args is None:
        return None
    try:
        b = sig.bind(*t.args, **(t.kwargs or {}))
    except TypeError:
        return None
    b.apply_defaults()
    return b


def _is_numeric_array(v: Any) -> bool:
    if isinstance(v, (list, tuple, np.ndarray)) and not isinstance(v, str):
        try:
            if np.asarray(v).dtype.kind not in "iuf":
                return False
            a = np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            return False
        return a.size > 0
    return False


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
    if isinstance(base, (int, np.integer)) and not isinstance(base, bool) and ("int" in annotation or not annotation):
        yield 2.5, GOOD, "fractional"
        yield "3", GOOD, "str number"
        yield True, GOOD, "bool for int"
        yield float("nan"), GOOD, "nan"
        if SIZE_NAMES.match(name):
            if base >= 0:
                yield -1, GOOD, "negative"
            yield 10**15, MAYBE, "huge"
        return
    if isinstance(base, (float, int, np.floating)) and not isinstance(base, bool):
        yield float("nan"), GOOD, "nan"
        yield "1", GOOD, "str number"
        yield True, GOOD, "bool for float"
        is_eps = name.startswith("eps") or name.startswith("epsilon")
        if is_eps:
            yield 0.0, GOOD, "zero"
            yield -1.0, GOOD, "negative"
            yield float("inf"), GOOD, "inf"
            yield 1e-300, MAYBE, "tiny"
        elif name.startswith("delta"):
            yield -0.1, GOOD, "negative"
            yield 1.5, GOOD, "above one"
            yield float("inf"), GOOD, "inf"
        elif PROB_NAMES.match(name) and 0 <= float(base) <= 1:
            yield -0.1, GOOD, "below zero"
            yield 1.5, GOOD, "above one"
        elif float(base) > 0:
            yield -1.0, GOOD, "negative"
            yield float("inf"), MAYBE, "inf"
            yield 1e300, MAYBE, "huge"
            yield 1e-300, MAYBE, "tiny"
        return
    if _is_numeric_array(base):
        a = np.asarray(base, dtype=float)
        yield "abc", GOOD, "str array"
        bad_nan = a.astype(float).copy()
        bad_nan.flat[0] = np.nan
        yield bad_nan, GOOD, "nan entry"
        yield np.ones((2, 2, 2)), GOOD, "3-d"
        if name in COUNT_NAMES or name.endswith("counts"):
            neg = a.copy()
            neg.flat[0] = -1
            yield neg, GOOD, "negative count"
            yield np.array([], dtype=float), GOOD, "empty"


ALLOWED_DIR = Path(__file__).with_name("badinput_allowed")


def allowed() -> dict[str, str]:
    """Cases that are not bad after all, with the reason: ``tests/badinput_allowed/<topic>.txt``.

    One line per case: ``<case id>  # <why this value is valid for this parameter>``; a reason is required.
    """
    out: dict[str, str] = {}
    for f in sorted(ALLOWED_DIR.glob("*.txt")):
        for line in f.read_text().splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            case_id, _, why = line.partition("#")
            if not why.strip():
                raise ValueError(f"{f.name}: {line!r} gives no reason")
            out[case_id.strip()] = why.strip()
    return out


def cases(ts: list[Target]) -> list[Case]:
    """Every (target, parameter, bad value) triple, less the allowed ones."""
    skip = allowed()
    out: list[Case] = []
    for t in ts:
        b = _bound(t)
        if b is None:
            continue
        sig = b.signature
        for name, value in b.arguments.items():
            p = sig.parameters[name]
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            ann = p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", "")
            for bad, kind, why in bad_values(name, ann if p.annotation is not p.empty else "", value):
                c = Case(t, name, bad, kind, why)
                if c.id not in skip:
                    out.append(c)
    return out


# --------------------------------------------------------------------------- running one case
class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def _finite(result: Any) -> bool | None:
    """True/False for numeric results (all finite or not); None when the result is not numeric."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        vals = [_finite(getattr(result, f.name)) for f in dataclasses.fields(result)]
        vals = [v for v in vals if v is not None]
        return all(vals) if vals else None
    if isinstance(result, (tuple, list)) and result and not isinstance(result[0], str):
        vals = [_finite(v) for v in result]
        vals = [v for v in vals if v is not None]
        return all(vals) if vals else None
    if isinstance(result, (bool, np.bool_)):
        return None
    if isinstance(result, (int, float, np.number)):
        return bool(np.isfinite(result))
    if isinstance(result, np.ndarray) and result.dtype.kind in "fc":
        with np.errstate(all="ignore"):
            return bool(np.all(np.isfinite(result)))
    return None


def _call(t: Target, param: str | None, value: Any) -> Any:
    b = _bound(t)
    assert b is not None
    if param is not None:
        b.arguments[param] = value
    return t.fn(*b.args, **b.kwargs)


def run_case(c: Case, base_finite: bool | None) -> tuple[str, str]:
    """Run one case; return (outcome, detail)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = _call(c.target, c.param, c.value)
    except _Timeout:
        return "hang", f"no answer in {TIME_LIMIT} s"
    except MemoryError as exc:
        return "blowup", f"MemoryError: {exc}"
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        if re.search(rf"\b{re.escape(c.param)}\b", msg):
            return "named", msg
        return "unnamed", f"{type(exc).__name__}: {msg}"
    except Exception as exc:  # noqa: BLE001 - classifying every other exception is the point
        if type(exc).__module__.startswith("dpviz"):  # dpviz's own refusal (e.g. BudgetExceededError)
            named = re.search(rf"\b{re.escape(c.param)}\b", str(exc))
            return ("named", str(exc)) if named else ("unnamed", f"{type(exc).__name__}: {exc}")
        return "crash", f"{type(exc).__name__}: {exc}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    fin = _finite(result)
    if c.kind == GOOD:
        return "silent", f"returned {type(result).__name__}"
    if base_finite and fin is False:
        return "silent", "returned NaN/inf"
    return "accepted", ""


def base_finite(t: Target) -> bool | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _finite(_call(t, None, None))
        except Exception:  # noqa: BLE001
            return None


def run_all(only: str = "", verbose: bool = True) -> Counter[str]:
    """Run every case (of targets whose name starts with ``only``), print a report, return the outcome counts."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, resource.RLIM_INFINITY))
    t0 = time.perf_counter()
    ts = [t for t in targets() if t.qualname.startswith(only)]
    covered = [t for t in ts if t.covered]
    cs = cases(covered)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    finite = {t.qualname: base_finite(t) for t in covered}
    for c in cs:
        outcome, detail = run_case(c, finite[c.target.qualname])
        counts[outcome] += 1
        if outcome in FAILURES:
            failures.append(f"{outcome:8s} {c.id}: {detail[:160]}")
    if verbose:
        print(f"targets: {len(ts)} public callables, {len(covered)} with a valid base call")
        for t in ts:
            if not t.covered:
                print(f"  uncovered (no example, required parameters): {t.qualname}")
        print(f"cases: {len(cs)} bad inputs in {time.perf_counter() - t0:.1f} s")
        for o in OUTCOMES:
            print(f"  {o:9s} {counts[o]}")
        for f in failures:
            print(f)
    return counts


if __name__ == "__main__":
    c = run_all(only=sys.argv[1] if len(sys.argv) > 1 else "")
    sys.exit(1 if any(c[o] for o in FAILURES) else 0)
