"""A bad-input fuzzer for dpviz's public API: every bad argument must get a clear, named refusal.

How it works
------------
1. **Targets**: every public function of the core and of ``dpviz.experiments``, the classes users build (those
   whose docstring example constructs them: events, partitions, oracles ...) and their methods that an example
   calls, the accountant's methods, and the explorers' constructors (not the exercise checkers, which answer
   any input with feedback by design).
2. **A valid base call per target**, taken from the target's own docstring example: the example is executed
   with the target wrapped in a recorder, and the first call's arguments are kept.  A target without an example
   is called with its defaults if it has no required parameter; otherwise it is reported as *uncovered*.
3. **Bad values per parameter**, chosen from the parameter's name, annotation and base value (a budget, a
   probability, a count, a flag, an option string, an array of counts, a table, a callable, an object, an
   ``rng``, an ``accountant`` ...), each replacing that one argument of the base call (or a pair whose ratio
   overflows): the families are listed in ``tests/badinput_values.py``.
4. **Outcomes**:

   ``named``      ValueError/TypeError (or dpviz's own error, e.g. BudgetExceededError) whose message names
                  the parameter (the only good refusal);
   ``unnamed``    ValueError/TypeError that does not name it;
   ``crash``      any other exception (AttributeError, IndexError, ZeroDivisionError, numpy internals ...);
   ``silent``     the call returned although the value is invalid, or returned NaN/inf where the base
                  call's result was finite, or a negative variance, or (for an array made shorter) an answer
                  of the full length: a broadcast (judged against the same call with the array doubled);
   ``accepted``   a value that may be valid (e.g. ``epsilon=1e-300``) was accepted with a finite result;
   ``hang``       no answer within the time limit;
   ``blowup``     MemoryError (an allocation was attempted instead of refused).

Run ``python -m tests.badinput [PREFIX]`` (``make fuzz``) for the full report (PREFIX, e.g.
``dpviz.hierarchy``, keeps the targets whose name starts with it); ``tests/test_bad_input.py`` runs the same
cases (and hypothesis-drawn numbers) under pytest.
"""

from __future__ import annotations

import copy
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import dpviz
from tests.badinput_values import (  # noqa: F401 - re-exported: tests/test_bad_input.py uses them from here
    COUNT_NAMES,
    FREE_TEXT,
    GOOD,
    LENGTH_FAMILIES,
    MAYBE,
    PROB_NAMES,
    SIZE_NAMES,
    bad_values,
    is_numeric_array,
    judge_length,
    leaf_shapes,
    negative_variance,
    pair_values,
)

OUTCOMES = ("named", "unnamed", "crash", "silent", "accepted", "hang", "blowup")
FAILURES = ("unnamed", "crash", "silent", "hang", "blowup")
TIME_LIMIT = 5.0
_NOT_A_VALUE = object()


@dataclasses.dataclass
class Target:
    """One public callable and a valid call of it."""

    qualname: str
    fn: Callable[..., Any]
    args: tuple[Any, ...] | None = None
    kwargs: dict[str, Any] | None = None
    signature: inspect.Signature | None = None  # explorers: their controls, which the constructor takes as **values
    method_of_class: bool = False  # a method found through its user-built class (not one of the accountant's three)

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
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)  # other arguments replaced at the same time

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
            elif (inspect.isclass(obj) and obj.__module__.startswith("dpviz") and id(obj) not in found
                    and not obj.__module__.startswith(SKIPPED) and not issubclass(obj, BaseException)):
                found.update(_class_targets(obj))
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
    # a method of a user-built class is fuzzed when an example calls it on an object built there; one whose
    # example calls it only on an object made elsewhere (or only to show a refusal) is listed, not counted
    UNCOVERED_METHODS[:] = [t.qualname for t in out if t.method_of_class and not t.covered]
    return [t for t in out if t.covered or not t.method_of_class]


UNCOVERED_METHODS: list[str] = []


def _constructed_in_example(cls: type) -> bool:
    """Whether the class's own docstring example calls its constructor (a class users build themselves)."""
    doc = inspect.getdoc(cls) or ""
    src = "".join(ex.source for ex in doctest.DocTestParser().get_examples(doc))
    return re.search(rf"(?<![\w.]){re.escape(cls.__name__)}\(", src) is not None


def _class_targets(cls: type) -> dict[int, Target]:
    """A class built by users (its example calls it) and its public methods that an example calls."""
    if not _constructed_in_example(cls):
        return {}
    out = {id(cls): Target(f"{cls.__module__}.{cls.__qualname__}", cls)}
    for name, fn in vars(cls).items():
        if not name.startswith("_") and inspect.isfunction(fn):
            out[id(fn)] = Target(f"{cls.__module__}.{fn.__qualname__}", fn, method_of_class=True)
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
    if inspect.isclass(t.fn) and t.fn.__name__ != "PrivacyAccountant":
        _class_base_call(t)
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
        snap = _snapshot((args, kwargs))
        out = t.fn(*args, **kwargs)
        calls.append(snap)  # only a call that succeeded is a valid base call
        return out

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
            except Exception:  # noqa: BLE001 - an example showing a refusal: the next one may give a call
                continue
            if calls:
                break
    if calls:
        t.args, t.kwargs = calls[0]
        return
    sig = _signature(t.fn)
    if sig is not None and all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                               for n, p in sig.parameters.items() if n != "self"):
        t.args, t.kwargs = (), {}


def _class_base_call(t: Target) -> None:
    """A class's first construction in its own docstring example."""
    cls = t.fn
    owner_mod = importlib.import_module(cls.__module__)
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def recorder(*args: Any, **kwargs: Any) -> Any:
        snap = _snapshot((args, kwargs))
        out = cls(*args, **kwargs)
        calls.append(snap)
        return out

    ns: dict[str, Any] = dict(vars(owner_mod))
    ns["np"] = np
    ns[cls.__name__] = recorder
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ex in doctest.DocTestParser().get_examples(inspect.getdoc(cls) or ""):
            try:
                exec(compile(ex.source, "<example>", "exec"), ns)  # noqa: S102 - our own docstrings
            except Exception:  # noqa: BLE001 - an example showing a refusal: the next one may give a call
                continue
            if calls:
                break
    if calls:
        t.args, t.kwargs = calls[0]
        t.signature = _signature(cls)


def recorder_method(fn: Callable[..., Any], calls: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> Any:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        snap = _snapshot(((self, *args), kwargs))
        out = fn(self, *args, **kwargs)
        calls.append(snap)
        return out
    return method


def _snapshot(call: Any) -> Any:
    """A deep copy of a recorded call, taken before it runs: the example may go on to spend its accountant."""
    try:
        return copy.deepcopy(call)
    except Exception:  # noqa: BLE001 - an argument that cannot be copied is kept as it is
        return call


def _stateful(v: Any) -> bool:
    """An argument a call may change in place (an accountant): each case gets a fresh copy."""
    return type(v).__module__.startswith("dpviz") and hasattr(v, "spend")


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
        for name, bad, extra, why in pair_values(dict(b.arguments)):
            c = Case(t, name, bad, MAYBE, why, extra)
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
    if isinstance(result, (int, np.integer)):
        return True
    if isinstance(result, (float, np.number)):
        return bool(np.isfinite(result))
    if isinstance(result, np.ndarray) and result.dtype.kind in "fc":
        with np.errstate(all="ignore"):
            return bool(np.all(np.isfinite(result)))
    return None


def _call(t: Target, param: str | None, value: Any, extra: dict[str, Any] | None = None) -> Any:
    b = _bound(t)
    assert b is not None
    for k, v in b.arguments.items():
        if _stateful(v):
            b.arguments[k] = copy.deepcopy(v)
    if param is not None:
        b.arguments[param] = value
    b.arguments.update(extra or {})
    return t.fn(*b.args, **b.kwargs)


def _names(c: Case, msg: str) -> bool:
    """Whether a refusal names the bad parameter (for a pair, either of the two set together)."""
    return any(re.search(rf"\b{re.escape(p)}\b", msg) for p in (c.param, *c.extra))


def run_case(c: Case, base_finite: bool | None) -> tuple[str, str]:
    """Run one case; return (outcome, detail)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = _call(c.target, c.param, c.value, c.extra)
    except _Timeout:
        return "hang", f"no answer in {TIME_LIMIT} s"
    except MemoryError as exc:
        return "blowup", f"MemoryError: {exc}"
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        if _names(c, msg):
            return "named", msg
        return "unnamed", f"{type(exc).__name__}: {msg}"
    except Exception as exc:  # noqa: BLE001 - classifying every other exception is the point
        if type(exc).__module__.startswith("dpviz"):  # dpviz's own refusal (e.g. BudgetExceededError)
            named = _names(c, str(exc))
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
    negative = negative_variance(result, getattr(c.target.fn, "__name__", ""))
    if negative:
        return "silent", f"returned a negative variance ({negative})"
    if c.why in LENGTH_FAMILIES:
        why = judge_length(_shapes(c.target, None) or [], leaf_shapes(result), _shapes(c.target, c.param), c.why)
        if why:
            return "silent", f"broadcast? {why}"
    return "accepted", ""


_SHAPES: dict[tuple[str, str | None], list[tuple[int, ...]] | None] = {}


def _shapes(t: Target, doubled: str | None) -> list[tuple[int, ...]] | None:
    """Array shapes of the answer to the base call, or to it with argument ``doubled`` repeated to twice its length
    (None if that call is refused); computed once per target and argument."""
    key = (t.qualname, doubled)
    if key not in _SHAPES:
        b = _bound(t)
        assert b is not None
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if doubled is None:
                    _SHAPES[key] = leaf_shapes(_call(t, None, None))
                else:  # an optional array left out (None) is tried at a length no data here has
                    base = b.arguments[doubled]
                    value = np.ones(64) if base is None else np.concatenate([np.asarray(base)] * 2)
                    _SHAPES[key] = leaf_shapes(_call(t, doubled, value))
        except Exception:  # noqa: BLE001 - a refusal of the doubled array is what is measured
            _SHAPES[key] = None if doubled else []
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    return _SHAPES[key]


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
        for q in UNCOVERED_METHODS:
            if q.startswith(only):
                print(f"  method without an example call on its class's object (not fuzzed): {q}")
        print(f"cases: {len(cs)} bad inputs in {time.perf_counter() - t0:.1f} s")
        for o in OUTCOMES:
            print(f"  {o:9s} {counts[o]}")
        for f in failures:
            print(f)
    return counts


if __name__ == "__main__":
    c = run_all(only=sys.argv[1] if len(sys.argv) > 1 else "")
    sys.exit(1 if any(c[o] for o in FAILURES) else 0)
