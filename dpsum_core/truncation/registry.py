"""The truncation methods by name: one :class:`Truncation` record each, looked up everywhere.

The engine, the CLI, the figures and the pages read a method's label, line dash, random stream,
whether it spends ρε, the public points a data summary must hold for it, how it chooses θ and
the law of that choice from its record; adding a method is one module and one record here.
Every parameter (r, c, s, β, θ₀, μ, the grid) is a public constant, never tuned on the data;
only the chosen θ is released, never a noisy count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpsum_core.data.dataset import Statistics
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.algorithm import INSIDE, POSTHOC
from dpsum_core.noise import Noise
from dpsum_core.truncation import fixed, recursive, svt
from dpsum_core.truncation.choice import ThetaLaw, ThresholdChoice
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.validation import check_choice

Choose = Callable[..., ThresholdChoice]  # (data, *, epsilon, upper, params, trials, rng, tau)
Laws = Callable[..., list[ThetaLaw]]  # (data, *, epsilons, upper, params, tau)
CutPoints = Callable[[TruncationParams, float], np.ndarray]  # (params, U) -> public points
Distinct = Callable[[TruncationParams, float, int], int]  # (params, U, trials) -> distinct θ


@dataclass(frozen=True)
class Truncation:
    """What dpsum knows about one way of choosing θ.

    Attributes
    ----------
    name
        Identifier in configs, the CLI, files and links (``svt``).
    label
        Display name (``SVT``), the same in figures, tables and widgets.
    dash
        Line dash of its curves where algorithms are told apart by colour (decision figure).
    stream_id
        Fixed key of its random streams; never reused or renumbered (shared links rely on it).
    spends_rho
        Whether θ is chosen from the data, spending ε_θ = ρε (the ledger's first line).
    choose, laws, cut_points
        θ for many trials; the law of θ at each ε_θ (analytic error, no noise); the public points
        a data summary must hold for it. ``None`` for ``posthoc`` and ``inside``, whose θ the
        algorithm chooses.
    distinct_thetas
        ``(params, U, trials) -> int``: how many distinct θ ``trials`` trials can draw, from
        public parameters only (TaMM builds one strategy per distinct θ; simulate.cost).
    description
        The method in plain words, for reports (``θ chosen privately with …``).
    """

    name: str
    label: str
    dash: str
    stream_id: int
    spends_rho: bool
    choose: Choose | None
    laws: Laws | None
    cut_points: CutPoints | None
    distinct_thetas: Distinct = fixed.one_theta
    description: str = ""


_RECORDS = (
    Truncation("none", "no truncation", "dot", 0, False,
               fixed.none_theta, fixed.none_laws, fixed.no_cut_points,
               description="no truncation: every value counts in full, up to the public bound U"),
    Truncation("fixed", "fixed θ", "dashdot", 1, False,
               fixed.fixed_theta, fixed.fixed_laws, fixed.fixed_cut_points,
               description="a fixed, public θ: values above θ count as θ"),
    Truncation("svt", "SVT", "solid", 2, True, svt.svt_theta, svt.svt_laws, svt.svt_cut_points,
               distinct_thetas=svt.svt_distinct_thetas,
               description="θ chosen privately with the sparse vector technique (SVT), spending "
                           "ε_θ"),
    Truncation("recursive", "Recursive", "dash", 3, True,
               recursive.recursive_theta, recursive.recursive_laws, fixed.no_cut_points,
               distinct_thetas=recursive.recursive_distinct_thetas,
               description="θ chosen privately with the recursive mechanism, spending ε_θ"),
    # Not a method one chooses: the label of runs whose algorithm picks θ after measuring.
    Truncation(POSTHOC, "θ after measuring", "solid", 4, False, None, None, None,
               description="θ chosen after measuring, from the noisy measurement "
                           "(post-processing, no ε)"),
    # Nor this: the label of runs whose algorithm locates θ itself with its own share of ε.
    Truncation(INSIDE, "θ located by the algorithm", "solid", 5, False, None, None, None,
               description="θ located privately by the algorithm itself, with its own share "
                           "of ε"),
)  # fmt: skip

REGISTRY: dict[str, Truncation] = {t.name: t for t in _RECORDS}
TRUNCATION_METHODS: tuple[str, ...] = tuple(t.name for t in _RECORDS if t.choose is not None)


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
    params: TruncationParams,
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
    params: TruncationParams,
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
    params: TruncationParams,
    tau: np.ndarray | None = None,
) -> ThetaLaw:
    """:func:`theta_laws` at one ε_θ."""
    return theta_laws(
        data, method, epsilons=np.array([epsilon]), upper=upper, params=params, tau=tau
    )[0]


def cut_points(params: TruncationParams, upper: float) -> np.ndarray:
    """Every public point any method needs counts and sums at, for U (the SVT grid, a fixed θ):
    what a data summary holds so that a run under any method needs no second pass for them."""
    points = [t.cut_points(params, upper) for t in _RECORDS if t.cut_points is not None]
    return np.concatenate(points)
