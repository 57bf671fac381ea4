"""The truncation methods by name: one :class:`Truncation` record each, looked up everywhere.

The engine, the CLI, the figures and the pages read a method's label, line dash, random stream,
whether it spends ρε, the public points a data summary must hold for it, how it chooses θ and
the law of that choice and its parameters from its record; adding a method is one module
(exporting ``RECORDS``, see :mod:`.method`) and one entry in :data:`MODULES`.
Every parameter (r, c, s, β, θ₀, μ, the grid) is a public constant, never tuned on the data;
only the chosen θ is released, never a noisy count.
"""

from __future__ import annotations

import numpy as np

from dpsum_core.data.dataset import Statistics
from dpsum_core.errors import ParameterError
from dpsum_core.noise import Noise
from dpsum_core.truncation import fixed, recursive, svt
from dpsum_core.truncation.choice import ThetaLaw, ThresholdChoice
from dpsum_core.truncation.method import Choose, Laws, Param, Truncation, Values
from dpsum_core.validation import check_choice

# Registry order is the order of options, runs, figures and parameters (command line, links,
# files); random streams are keyed by each record's stream_id, never by its position.
MODULES = (fixed, svt, recursive)

_RECORDS: tuple[Truncation, ...] = tuple(t for module in MODULES for t in module.RECORDS)
REGISTRY: dict[str, Truncation] = {t.name: t for t in _RECORDS}
TRUNCATION_METHODS: tuple[str, ...] = tuple(REGISTRY)
# Every method's parameters, by name.
PARAMETERS: dict[str, Param] = {p.name: p for t in _RECORDS for p in t.params}


def get(name: str) -> Truncation:
    """The record of ``name``; a clear error for an unknown name."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ParameterError(
            f"unknown truncation {name!r}: choose from {', '.join(TRUNCATION_METHODS)}"
        ) from None


def label(name: str) -> str:
    """Display name of a truncation method (the name itself if unknown)."""
    return REGISTRY[name].label if name in REGISTRY else name


def _method(name: str) -> tuple[Choose, Laws]:
    check_choice(name, "truncation", TRUNCATION_METHODS)
    record = get(name)
    if record.choose is None or record.laws is None:
        raise ParameterError(
            f"truncation {name!r} is not a method to choose: use one of "
            f"{', '.join(TRUNCATION_METHODS)}"
        )
    return record.choose, record.laws


def choose_theta(
    data: Statistics,
    method: str,
    *,
    epsilon: float,
    upper: float,
    params: Values,
    trials: int,
    rng: np.random.Generator | Noise,
    tau: np.ndarray | None = None,
) -> ThresholdChoice:
    """θ for ``trials`` trials by ``method``; ``epsilon`` is ignored for none/fixed (cost 0).

    Privacy
    -------
    ``none`` and ``fixed`` look at nothing private (cost 0); a fixed θ is DP only if it was
    chosen without looking at the data. ``svt`` and ``recursive`` spend ``epsilon`` each call
    (per query when ``tau`` is given, as SQM uses them).
    """
    choose, _ = _method(method)
    return choose(
        data, epsilon=epsilon, upper=upper, params=params, trials=trials, rng=rng, tau=tau
    )


def theta_laws(
    data: Statistics,
    method: str,
    *,
    epsilons: np.ndarray,
    upper: float,
    params: Values,
    tau: np.ndarray | None = None,
) -> list[ThetaLaw]:
    """The law of the θ that :func:`choose_theta` draws with the same arguments, at each ε_θ in
    ``epsilons`` (no noise drawn).

    Privacy
    -------
    Computed from the private data without noise: for the data holder's analysis of error
    (the decision view), never a release.
    """
    _, laws = _method(method)
    return laws(data, epsilons=np.atleast_1d(epsilons), upper=upper, params=params, tau=tau)


def theta_law(
    data: Statistics,
    method: str,
    *,
    epsilon: float,
    upper: float,
    params: Values,
    tau: np.ndarray | None = None,
) -> ThetaLaw:
    """:func:`theta_laws` at one ε_θ."""
    return theta_laws(
        data, method, epsilons=np.array([epsilon]), upper=upper, params=params, tau=tau
    )[0]


def cut_points(params: Values, upper: float) -> np.ndarray:
    """Every public point any method needs counts and sums at, for U (the SVT grid, a fixed θ):
    what a data summary holds so that a run under any method needs no second pass for them."""
    points = [t.cut_points(params, upper) for t in _RECORDS if t.cut_points is not None]
    return np.concatenate(points)
