"""The published intervals a release would have at ε, measured before releasing: Decide's
planning number for what is *published* (the 95 % intervals of :mod:`dpsum_core.publish.intervals`),
next to its planning error, and the smallest ε at which their typical half-width meets a target.

Each measurement runs a small fixed number of simulated releases (:data:`RELEASES`, seeded
numpy noise) through the release's own code (:func:`~dpsum_core.publish.release.plan_release`
and the path :func:`~dpsum_core.publish.release.release_plan` takes, intervals included): the
half-widths are those a release of this data would publish, not a second model of them.

Privacy
-------
Reads the private data (it runs releases on it) and divides by the true answers: for the data
holder's eyes only, like the rest of the Decide page. The simulated releases use numpy's
seeded sampler and are never published; nothing here spends budget or is written anywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpsum_core import limits
from dpsum_core.checkpoint import checkpoint
from dpsum_core.data.dataset import Statistics
from dpsum_core.mechanisms.registry import get
from dpsum_core.noise import SimulatedNoise
from dpsum_core.publish.release import _release_with, plan_release
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import Cost, interval_cost
from dpsum_core.simulate.decision import Reach, smallest_epsilon
from dpsum_core.simulate.experiment import inputs_for
from dpsum_core.simulate.results import configuration_name, percent

RELEASES = limits.DECIDE_INTERVAL_RELEASES
SEED = limits.DECIDE_INTERVAL_SEED
WORST = 90  # the worst decile: the percentile over queries said next to the typical width
WIDTH_NAME = "typical published 95 % half-width"
# Pricing the search before it runs (search_cost): the widths it measures, and the ε they are
# priced at, SEARCH_REACH × the error target's ε (the interval target needed 13–15× on the
# samples: wages at 5 %, incomes.csv at 10 %), capped at the grid's top.
SEARCH_FIRST, SEARCH_NEXT, SEARCH_REACH = 6, 2, 16.0


def relative_halfwidths(
    data: Statistics,
    config: ExperimentConfig,
    algorithm: str,
    truncation: str,
    *,
    releases: int = RELEASES,
    seed: int = SEED,
    isotonic: bool = True,
) -> np.ndarray:
    """Half-width (upper − lower) / 2 of every query's published 95 % interval, divided by
    max(true answer, δ) as the relative error is, in ``releases`` simulated releases of
    ``algorithm`` with ``truncation`` (Decide's labels: ``posthoc``/``inside`` for an algorithm
    locating its own θ) at ``config``'s ε, workload and domain.

    Returns
    -------
    numpy.ndarray
        (releases, m); ∞ where the interval is open above (no bound on the bias from above).

    Privacy
    -------
    Runs releases on the private data with seeded numpy noise (never published) and divides
    by the true answers: for the data holder (see the module docstring).
    """
    trunc = None if get(algorithm).runs_once else truncation
    plan = plan_release(config, algorithm=algorithm, truncation=trunc, isotonic=isotonic)
    floor = np.maximum(inputs_for(data, plan.config).true_answers, config.delta)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(releases):
        checkpoint()  # one release at a time: stoppable between them
        bounds = _release_with(data, plan, SimulatedNoise(rng), None).intervals
        if bounds is None:  # every release has intervals (a bug otherwise)
            raise RuntimeError(f"a release of {algorithm} has no intervals")
        half = np.where(np.isfinite(bounds.upper), (bounds.upper - bounds.lower) / 2, np.inf)
        rows.append(half / floor)
    return np.array(rows)


@dataclass(frozen=True)
class PlannedWidth:
    """The published intervals of one configuration at one ε, relative to the true answers.

    Attributes
    ----------
    typical
        Median over the chosen queries of each query's mean relative half-width over the
        simulated releases (the headline's "median over queries of the mean over trials").
    worst_decile
        The same per-query means at their 90th percentile: a tenth of the queries publish
        wider intervals than this.
    open_above
        How many of the chosen queries are open above in some release (half-width ∞).
    """

    algorithm: str
    truncation: str
    epsilon: float
    typical: float
    worst_decile: float
    open_above: int
    releases: int

    def sentence(self) -> str:
        """What the page says next to the chosen ε (the width as ± a share of the answer)."""
        who = configuration_name(self.algorithm, self.truncation)
        worst = "open above" if np.isinf(self.worst_decile) else f"±{percent(self.worst_decile)}"
        typical = "open above" if np.isinf(self.typical) else f"±{percent(self.typical)}"
        opened = (
            f" {self.open_above:,} of these queries have no upper end in some release."
            if self.open_above else ""
        )  # fmt: skip
        return (
            f"Published at ε = {self.epsilon:g} by {who}: 95 % intervals of typically "
            f"**{typical}** of the answer (a tenth of the queries: wider than {worst}), "
            f"from {self.releases} simulated releases of this data (the release's own "
            f"interval code; not published).{opened}"
        )


def summarize(
    rel: np.ndarray, queries: np.ndarray, algorithm: str, truncation: str, epsilon: float
) -> PlannedWidth:
    """:class:`PlannedWidth` of :func:`relative_halfwidths`' output on the boolean mask
    ``queries`` (the target's queries)."""
    per_query = np.asarray(rel, float)[:, np.asarray(queries, bool)].mean(axis=0)
    return PlannedWidth(
        algorithm, truncation, float(epsilon), float(np.median(per_query)),
        float(np.percentile(per_query, WORST, method="higher")),
        int(np.isinf(per_query).sum()), int(np.asarray(rel).shape[0]),
    )  # fmt: skip


# The typical relative half-width of a configuration at ε (memoised by the caller).
Width = Callable[[str, str, float], float]


def interval_reaches(
    configurations: Sequence[tuple[str, str]],
    epsilons: np.ndarray,
    target: float,
    width: Width,
    starts: Sequence[float | None] = (),
) -> tuple[tuple[Reach, ...], dict[tuple[str, str], float]]:
    """Per configuration, the smallest ε of the grid ``epsilons`` at which ``width`` (the
    typical published half-width, decreasing in ε) meets ``target``, interpolated by
    :func:`~dpsum_core.simulate.decision.smallest_epsilon` between the two grid points around
    the crossing.

    Few widths are measured, and the large ε (slow for ClampShells: ≈ 0.8 s a release at
    ε = 10 with 1,000 bins, 0.04 s at 0.1) only when needed: each configuration starts at its
    ``starts`` ε (e.g. where it meets the same number as an *error* target: the interval is
    wider, so usually just below its crossing; else the grid's middle), gallops up or down
    (steps 1, 2, 4, … grid points) to bracket the crossing and bisects the bracket. Once one
    configuration meets the target, the next ones are searched only below its grid point (a
    configuration missing it there needs a larger ε: monotone in ε). Put the likeliest first.

    Returns
    -------
    tuple
        The reaches, sorted as :func:`~dpsum_core.simulate.decision.smallest_epsilon` sorts
        them (one not met is unmet, ``best`` its width at the largest ε measured), and, for
        those missing it at the best's grid point, that ε, ``{configuration: ε}``.
    """
    eps = np.asarray(epsilons, float)
    measured: list[tuple[float, str, str, float]] = []
    behind: dict[tuple[str, str], float] = {}
    best: int | None = None
    for k, (name, trunc) in enumerate(configurations):
        def at(i: int, name: str = name, trunc: str = trunc) -> bool:
            value = width(name, trunc, float(eps[i]))
            measured.append((float(eps[i]), name, trunc, value))
            return value <= target

        top = eps.size - 1 if best is None else best
        start = starts[k] if k < len(starts) else None
        guess = eps.size // 2 if start is None else int(np.searchsorted(eps, start))
        bracket = _bracket(at, min(guess, top), top)
        if bracket is None:  # not met up to top
            if best is not None:
                behind[(name, trunc)] = float(eps[top])
            continue
        lo, hi = bracket
        while hi - lo > 1:  # width(lo) above the target, width(hi) at or below it
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if at(mid) else (mid, hi)
        best = hi
    frame = pd.DataFrame(measured, columns=["epsilon", "algorithm", "truncation", "metric"])
    return smallest_epsilon(frame, target), behind


def search_cost(
    config: ExperimentConfig,
    configurations: Sequence[tuple[str, str]],
    starts: Sequence[float | None],
    epsilons: np.ndarray,
) -> Cost:
    """The estimated cost of :func:`interval_reaches` from these ``starts``, before it runs:
    SEARCH_FIRST widths of the first configuration and SEARCH_NEXT of each next, each priced
    (:func:`~dpsum_core.simulate.cost.interval_cost`) at SEARCH_REACH × its start ε, or the
    grid's top without one. An estimate of a search whose steps depend on what it measures.

    Privacy
    -------
    Public inputs only (the configuration, and ε values the caller chose).
    """
    top = float(np.max(epsilons))
    points = []
    for k, (name, trunc) in enumerate(configurations):
        start = starts[k] if k < len(starts) else None
        at = top if start is None else min(top, SEARCH_REACH * start)
        points += [(name, trunc, at)] * (SEARCH_FIRST if k == 0 else SEARCH_NEXT)
    return interval_cost(config, points, RELEASES)


def _bracket(at: Callable[[int], bool], guess: int, top: int) -> tuple[int, int] | None:
    """Grid indices (lo, hi) with ``at(hi)`` true and ``at(lo)`` false (lo = −1: true from the
    first point), galloping from ``guess`` up to ``top``; None when false up to ``top``."""
    if at(guess):
        hi, step = guess, 1
        while hi > 0:
            lower = max(hi - step, 0)
            if not at(lower):
                return lower, hi
            hi, step = lower, 2 * step
        return -1, 0
    lo, step = guess, 1
    while lo < top:
        upper = min(lo + step, top)
        if at(upper):
            return lo, upper
        lo, step = upper, 2 * step
    return None


def interval_summary(
    reaches: Sequence[Reach], behind: dict[tuple[str, str], float], target: float,
    epsilons: np.ndarray,
) -> list[str]:
    """Plain sentences for the interval target, as
    :func:`~dpsum_core.simulate.decision.decision_summary` for the error target.

    >>> interval_summary([Reach("tamm", "svt", 0.4, 0.2), Reach("sqm", "svt", None, 3.0)],
    ...                  {("sqm", "svt"): 0.46}, 0.2, np.array([0.001, 10.0]))
    ['TaMM with SVT publishes a typical 95 % half-width of ±20 % at ε ≈ 0.4.', 'SQM with SVT needs a larger ε (±300 % at ε = 0.46).']
    """
    low, high = float(np.min(epsilons)), float(np.max(epsilons))
    lines = []
    for r in reaches:
        who = configuration_name(r.algorithm, r.truncation)
        if (r.algorithm, r.truncation) in behind:
            at = behind[(r.algorithm, r.truncation)]
            shown = "open above" if np.isinf(r.best) else f"±{percent(r.best)}"
            lines.append(f"{who} needs a larger ε ({shown} at ε = {at:.2g}).")
        elif r.epsilon is None:
            shown = "open above" if np.isinf(r.best) else f"±{percent(r.best)}"
            lines.append(f"{who} does not reach ±{percent(target)} for ε up to {high:g} "
                         f"({shown} there).")  # fmt: skip
        elif r.from_start:
            lines.append(f"{who} publishes ±{percent(target)} or less already at ε = {low:g}.")
        else:
            lines.append(
                f"{who} publishes a typical 95 % half-width of ±{percent(target)} at "
                f"ε ≈ {r.epsilon:.2g}."
            )
    return lines
