"""The explorer's strategy menu: build a strategy by name, with display labels."""

from __future__ import annotations

from typing import Any

from dpviz.strategies.eigen import eigen_design
from dpviz.strategies.fixed import hierarchical, identity, workload
from dpviz.strategies.greedy import greedy_h
from dpviz.strategies.p_identity_template import p_identity
from dpviz.strategies.wavelets import rescaled_wavelet, wavelet
from dpviz.strategies.weighted_marginals import marginal_strategy
from dpviz.validation import check_choice
from dpviz.workloads import Workload

__all__ = ["build", "STRATEGIES", "LABELS", "ADAPTIVE", "for_mechanism", "cache_key"]

#: Names accepted by :func:`build`.
STRATEGIES = ("identity", "workload", "hierarchical_2", "hierarchical_4", "hierarchical_16", "wavelet",
              "rescaled_wavelet", "greedy_h", "optimized", "eigen_design")
#: The strategies built from the workload's queries; the others depend on its domain size only.
ADAPTIVE = ("workload", "greedy_h", "optimized", "eigen_design")
#: Display names.
LABELS = {
    "identity": "Identity",
    "workload": "Workload (A = W)",
    "hierarchical_2": "H_2",
    "hierarchical_4": "H_4",
    "hierarchical_16": "H_16",
    "wavelet": "Haar wavelet Y",
    "rescaled_wavelet": "Rescaled wavelet Y''",
    "greedy_h": "GreedyH",
    "optimized": "Optimised (p-Identity)",
    "eigen_design": "Eigen-design (L2)",
}


def for_mechanism(mechanism: str) -> tuple[str, ...]:
    """The menu names that make sense for a mechanism: all of them, but the eigen-design (L2 only) for Laplace.

    Parameters
    ----------
    mechanism : {"laplace", "gaussian"}
        The noise the strategies will be answered with.

    Returns
    -------
    tuple of str
        A sub-sequence of :data:`STRATEGIES`.

    Raises
    ------
    ValueError
        If ``mechanism`` is not "laplace" or "gaussian".

    Examples
    --------
    >>> "eigen_design" in for_mechanism("laplace"), "eigen_design" in for_mechanism("gaussian")
    (False, True)
    """
    check_choice("mechanism", mechanism, ("laplace", "gaussian"))
    return tuple(nm for nm in STRATEGIES if mechanism == "gaussian" or nm != "eigen_design")


def cache_key(name: str, W: Workload, mechanism: str) -> tuple[Any, ...]:
    """What a built strategy depends on: ``(name, W.key, mechanism)`` for an :data:`ADAPTIVE` strategy,
    ``(name, ("n", W.n))`` for a fixed one (the same matrix serves every workload on n cells).

    Parameters
    ----------
    name : str
        One of :data:`STRATEGIES`.
    W : Workload
        The workload.
    mechanism : {"laplace", "gaussian"}
        The noise the strategy is built for.

    Returns
    -------
    tuple
        A hashable key.

    Raises
    ------
    ValueError
        If ``name`` or ``mechanism`` is not one of the allowed values, or ``name`` is "eigen_design" with
        ``mechanism="laplace"`` (as :func:`build`).
    TypeError
        If ``W`` is not a :class:`~dpviz.workloads.Workload`.

    Examples
    --------
    >>> from dpviz import workloads
    >>> cache_key("wavelet", workloads.prefix(8), "laplace") == cache_key("wavelet", workloads.identity(8), "gaussian")
    True
    >>> cache_key("greedy_h", workloads.prefix(8), "laplace") == cache_key("greedy_h", workloads.identity(8), "laplace")
    False
    """
    _check_request("name", name, W, mechanism)
    return _key(name, W, mechanism)


def _check_request(label: str, name: str, W: Any, mechanism: str) -> None:
    """Refuse an unknown strategy (called ``label`` in the message) or mechanism, the eigen-design under Laplace,
    and a ``W`` that is not a Workload."""
    check_choice(label, name, STRATEGIES)
    check_choice("mechanism", mechanism, ("laplace", "gaussian"))
    if name == "eigen_design" and mechanism == "laplace":
        raise ValueError(f"{label}='eigen_design' is an L2 (Gaussian) design and is not offered under the Laplace "
                         "mechanism; use 'optimized' (a p-Identity strategy optimised for L1)")
    if not isinstance(W, Workload):
        raise TypeError(f"W must be a dpviz.workloads.Workload, got {type(W).__name__}")


def _key(name: str, W: Workload, mechanism: str) -> tuple[Any, ...]:
    """:func:`cache_key` of a checked request."""
    return (name, W.key, mechanism) if name in ADAPTIVE else (name, ("n", W.n))


def build(name: str, W: Workload, *, mechanism: str = "laplace",
          cache: dict | None = None) -> Any:
    """Strategy by menu name (one of :data:`STRATEGIES`) for workload ``W``.

    ``mechanism`` ("laplace" or "gaussian") selects the sensitivity the
    optimised strategy is built for (L1 or L2): "optimized" is the weighted-marginals strategy
    (:func:`~dpviz.strategies.marginal_strategy`) for a marginal workload and a p-Identity strategy
    (:func:`~dpviz.strategies.p_identity`, seed 0, ``reproducible=True``: the same strategy on every x86-64 machine)
    otherwise; the eigen-design is an L2 design and is refused under "laplace".  Results are stored in
    ``cache`` (keyed by :func:`cache_key`: the workload's queries, not its name, for an adaptive strategy,
    the domain size for a fixed one) when given, so an optimiser runs once per workload and a fixed strategy
    once per domain size.

    Parameters
    ----------
    name : str
        One of :data:`STRATEGIES`.
    W : Workload
        The workload the optimised strategies adapt to (the fixed ones use only ``W.n``).
    mechanism : {"laplace", "gaussian"}, default "laplace"
        Noise the optimised strategies are built for (L1 or L2 sensitivity).
    cache : dict, optional
        Strategies already built, keyed by :func:`cache_key`; filled in place.

    Returns
    -------
    numpy.ndarray, scipy.sparse.csr_array or Workload
        The strategy ``A`` (p x n), or the workload itself for "workload" when it is too large to expand.

    Raises
    ------
    ValueError
        If ``name`` or ``mechanism`` is not one of the allowed values, or ``name`` is "eigen_design" with
        ``mechanism="laplace"``.
    TypeError
        If ``W`` is not a :class:`~dpviz.workloads.Workload`.

    Examples
    --------
    >>> from dpviz import workloads
    >>> build("hierarchical_2", workloads.prefix(4)).shape
    (7, 4)
    """
    _check_request("strategy", name, W, mechanism)
    key = _key(name, W, mechanism)
    if cache is not None and key in cache:
        return cache[key]
    n = W.n
    A: Any
    if name == "identity":
        A = identity(n)
    elif name == "workload":
        A = workload(W)
    elif name.startswith("hierarchical_"):
        A = hierarchical(n, int(name.split("_")[1]))
    elif name == "wavelet":
        A = wavelet(n)
    elif name == "rescaled_wavelet":
        A = rescaled_wavelet(n)
    elif name == "greedy_h":
        A = greedy_h(W)
    elif name == "optimized":
        norm = "l1" if mechanism == "laplace" else "l2"
        A = (marginal_strategy(W, norm=norm, rng=0) if W.marginals is not None
             else p_identity(W, norm=norm, rng=0, reproducible=True))
    else:
        A = eigen_design(W, norm="l2")
    if cache is not None:
        cache[key] = A
    return A
