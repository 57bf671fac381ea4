"""Pieces of the Decide page: the target, the analytic curves, the summary, the simulation check."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpsum_core import limits
from dpsum_core.data.dataset import Statistics
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.recommend import Recommendation, recommend
from dpsum_core.mechanisms.registry import label as algorithm_label
from dpsum_core.mechanisms.registry import truncation_label
from dpsum_core.plots.decision import decision_figure
from dpsum_core.plots.style import domain_text, file_stem
from dpsum_core.publish.planned import (
    RELEASES,
    WIDTH_NAME,
    PlannedWidth,
    interval_reaches,
    interval_summary,
    search_cost,
    summarize,
)
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import Cost, decision_cost, duration, run_cost
from dpsum_core.simulate.decision import (
    Reach,
    decision_summary,
    epsilon_grid,
    headline_vs_epsilon,
    query_subset,
    smallest_epsilon,
    target_sentence,
)
from dpsum_core.simulate.results import configuration_name, headline_name, percent
from dpsum_core.text import counted

from . import compute, figs, present, release_words, share, state
from . import keys as K
from .names import shown_name
from .page import Link
from .page_state import Carried, DecideState, ReleaseState, take, update
from .state import Ready

# What the target is on: the planning error (the curves) or the published intervals' half-width.
TARGETS = {"error": "typical error", "interval": "typical published interval"}
# What a Decide link shows beyond the configuration (dpsum_ui.share.view_to_query).
VIEW: share.ViewParams = {
    "target": (K.DECIDE_TARGET, "text", None),
    "on": (K.DECIDE_TARGET_ON, "text", tuple(TARGETS)),
    "above": (K.DECIDE_ABOVE, "number", None),
}

TRUE_ERRORS_NOTE = (
    "These errors are measured against the **true answers**. Choosing ε or an algorithm by "
    "looking at them is for people allowed to see the data (custodians, researchers): the "
    "choice depends on the data and is not covered by the privacy guarantee. To choose "
    "privately, decide on public or earlier data, or fix the design before seeing the data."
)
MODEL_NOTE = (
    "Lines: analytic, no noise drawn. For every ε, θ follows its law (SVT's exactly, "
    "Recursive's at 16 quantiles; RawSum's θ is its scan on the noise-free sums); E|ŷ − y| "
    "comes from bias² and variance with the noise taken as normal (up to 13 % high for SQM "
    "and Workload, whose noise is one Laplace draw); isotonic regression is not modelled. "
    "**Simulate** runs the algorithms (your trials and seed) at every 4th ε to check the lines."
)
# Said right under the summary's numbers: they plan; a release publishes intervals.
PLANNING_NOTE = release_words.planning_caption(
    "the typical error at each ε, as a share of the answer"
)
# With the target on the published intervals: what the numbers are instead.
INTERVAL_NOTE = (
    f"Planning number: the {WIDTH_NAME} at each ε searched (median over the queries), "
    f"measured on {RELEASES} simulated releases of this data with the release's own interval "
    "code, against the true answers: for you only, not for publication. A release draws its "
    "own noise, so its intervals vary around this width."
)
MEASURING = f"Measuring the published intervals on {RELEASES} simulated releases…"
INTERVAL_CHART_NOTE = (
    "The chart shows the typical error (the analytic curves); the target is on the published "
    "intervals, measured on simulated releases at the ε values searched, so it is not drawn."
)


def parse_target(text: object) -> float:
    """The error target as a fraction, from a percentage typed by the user (``5``, ``5 %``,
    ``2,5``).

    Raises
    ------
    ParameterError
        Not a number, 0 (no private answer is exact), or not in
        (0, DECIDE_TARGET_MAX_PERCENT] %.
    """
    raw = str(text if text is not None else "").strip().removesuffix("%").strip()
    try:
        value = float(raw.replace(",", "."))
    except ValueError:
        raise ParameterError(
            f"the error target {str(text)!r} is not a number: type a percentage such as 5"
        ) from None
    top = limits.DECIDE_TARGET_MAX_PERCENT
    if value == 0:
        raise ParameterError(
            "a target of 0 % cannot be met: differential privacy protects people by adding "
            "noise, so every private answer is off by something, at any ε. Type the error you "
            "can accept, e.g. 5 for answers off by about 5 %"
        )
    if not 0 < value <= top or not np.isfinite(value):
        raise ParameterError(
            f"the error target must be a percentage above 0 and at most {top:g}, got {raw}: "
            "type e.g. 5 for 5 %"
        )
    return value / 100


@dataclass(frozen=True)
class Decision:
    """What the page shows for one target: the curves, where each meets it, the sentences."""

    frame: pd.DataFrame  # epsilon, algorithm, truncation, metric (analytic)
    reaches: tuple[Reach, ...]
    lines: list[str]
    target_text: str
    selected: int
    recommendation: Recommendation  # the engine's pick from public inputs only, and why
    caveat: str | None = None  # the curves say the pick misses the target at ε; another meets it
    on: str = "error"  # what the target is on (TARGETS)
    behind: tuple[tuple[str, str, float], ...] = ()  # interval target: not met at the best's ε
    offered: float | None = None  # interval target: the ε handed on, its width checked there


def cost(plan: Ready) -> Cost:
    """The estimated cost of the analytic curves of ``plan`` (from the settings alone)."""
    return decision_cost(plan.config, epsilon_grid())


def cost_caption(plan: Ready, *, computed: bool = False) -> str:
    """What the curves of these settings cost, estimated before they run (``computed``: they
    are on the page, so the caption no longer asks for the button)."""
    seconds = cost(plan).seconds
    when = (
        "computed as soon as the settings change"
        if seconds <= limits.MAX_LINK_SECONDS
        else "computed (kept until the settings change)"
        if computed
        else "computed when you press **Compute the curves**"
    )
    size = "under 1 s" if seconds < 1 else f"about {duration(seconds)}"
    return f"Estimated cost of these curves: {size} of computation, {when}."


def decide(
    data: Statistics, plan: Ready, target: float, above: float, on: str = "error"
) -> Decision | None:
    """The analytic curves (memoised) reduced to the chosen queries, and the summary; None
    while curves too heavy to compute by themselves wait for their button. With ``on`` =
    ``"interval"`` the target is on the published intervals' typical half-width, searched on
    simulated releases (:func:`interval_decision`); the curves are still the chart's.

    Raises
    ------
    ParameterError
        The query percentile is out of range or selects nothing; or the curves are estimated
        above one click's budget (:class:`~dpsum_core.simulate.cost.TooHeavy`).
    """
    eps = epsilon_grid()
    mask = query_subset(plan.workload.thresholds, above)
    curves = compute.decision_curves(data, plan.config, eps)
    if curves is None:
        return None
    frame = headline_vs_epsilon(curves, eps, mask)
    reaches = smallest_epsilon(frame, target)
    if on == "interval":
        return interval_decision(data, plan, frame, reaches, target, above, mask)
    c = plan.config
    rec = recommend(epsilon=c.epsilon, upper=c.upper, bins=c.bins, workload=c.workload)
    return Decision(
        frame=frame,
        reaches=reaches,
        lines=decision_summary(reaches, target, eps),
        target_text=target_sentence(target, above, int(mask.sum()), mask.size),
        selected=int(mask.sum()),
        recommendation=rec,
        caveat=recommendation_caveat(rec, reaches, c.epsilon, target, float(eps.max())),
    )


def interval_decision(
    data: Statistics, plan: Ready, frame: pd.DataFrame, reaches: tuple[Reach, ...],
    target: float, above: float, mask: np.ndarray,
) -> Decision | None:
    """The decision with the target on the published intervals: per configuration (in the
    order the error target ranks them, ``reaches``), the smallest ε at which the typical
    half-width of a release's 95 % intervals on the chosen queries meets ``target``
    (:func:`~dpsum_core.publish.planned.interval_reaches`; each width memoised), priced
    first (:func:`~dpsum_core.publish.planned.search_cost`): None while a search estimated
    above a link's budget waits for its button.

    Privacy
    -------
    Simulated releases on the private data, compared with the true answers: for the data
    holder's eyes (the page says so); nothing is published and no budget is spent.
    """
    c = plan.config

    def width(name: str, truncation: str, epsilon: float) -> float:
        rel = compute.published_widths(data, c, name, truncation, epsilon)
        return summarize(rel, mask, name, truncation, epsilon).typical

    eps = epsilon_grid()
    order = [(r.algorithm, r.truncation) for r in reaches]
    starts = [r.epsilon for r in reaches]  # the error target's ε: the interval needs more

    def search() -> tuple[tuple[Reach, ...], dict[tuple[str, str], float], float | None]:
        found, behind = interval_reaches(order, eps, target, width, starts)
        if not found or (first := found[0]).epsilon is None:
            return found, behind, None
        # The widths are measured, not smooth (ClampShells' design moves with ε): the ε handed
        # on is the first of the crossing and the grid points above it, rounded up, whose own
        # releases meet the target (3.5 % at 0.053 read as 6.4 % at 0.054 without this).
        for e in (first.epsilon, *eps[eps >= first.epsilon]):
            if width(first.algorithm, first.truncation, rounded_up(float(e))) <= target:
                return found, behind, rounded_up(float(e))
        return found, behind, None

    base = c.with_(epsilon=ExperimentConfig().epsilon, seed=0, trials=1)
    key = (*state.result_key(data, base), float(target), float(above))
    cost = search_cost(c, order, starts, eps)
    done = compute.analytic("decide_interval", key, cost, "the published intervals",
                            K.DECIDE_MEASURE, search, data)  # fmt: skip
    if done is None:
        return None
    found, behind, offered = done
    rec = recommend(epsilon=c.epsilon, upper=c.upper, bins=c.bins, workload=c.workload)
    which = "all queries" if above == 0 else f"the queries from the {above:g}th percentile of τ up"
    return Decision(
        frame=frame,
        reaches=found,
        lines=interval_summary(found, behind, target, eps),
        target_text=(
            f"Target: {WIDTH_NAME} ≤ ±{percent(target)} on {which} ({int(mask.sum()):,} of "
            f"{counted(mask.size, 'query', 'queries')})."
        ),
        selected=int(mask.sum()),
        recommendation=rec,
        on="interval",
        behind=tuple((a, t, e) for (a, t), e in behind.items()),
        offered=offered,
    )


def planned_width(
    data: Statistics, plan: Ready, offer: Carried, above: float
) -> PlannedWidth | None:
    """The published intervals of the offered configuration at the offered ε, on the target's
    queries: the typical and the worst decile's half-width of a few simulated releases
    (:func:`dpsum_core.publish.planned.relative_halfwidths`, memoised); priced first, None
    while a measurement estimated above a link's budget waits for its button.

    Privacy
    -------
    As :func:`interval_decision`: for the data holder's eyes, nothing published.
    """
    mask = query_subset(plan.workload.thresholds, above)
    rel = compute.priced_widths(data, plan.config, offer.algorithm, offer.truncation,
                                offer.epsilon)  # fmt: skip
    return None if rel is None else summarize(
        rel, mask, offer.algorithm, offer.truncation, offer.epsilon
    )


def recommendation_caveat(
    rec: Recommendation, reaches: tuple[Reach, ...], epsilon: float, target: float, top: float
) -> str | None:
    """One sentence when the page's curves show the recommended algorithm missing ``target``
    at ``epsilon`` while another configuration reaches it at a smaller ε; else None.

    Privacy
    -------
    Read from the curves, which are computed from the true answers: for the custodian's eyes
    (the page says so); the recommendation itself stays from public inputs only.
    """
    own = [r for r in reaches if r.algorithm == rec.algorithm]
    same = [r for r in own if r.truncation == rec.truncation] or own
    if not same or not reaches:
        return None
    pick, other = same[0], reaches[0]  # reaches: sorted by the ε meeting the target
    if other is pick or other.epsilon is None:
        return None
    if pick.epsilon is not None and (pick.epsilon <= epsilon or pick.epsilon <= other.epsilon):
        return None
    name = configuration_name(pick.algorithm, pick.truncation)
    needs = (
        f"does not reach {percent(target)} for ε up to {top:g}"
        if pick.epsilon is None
        else f"needs ε ≈ {pick.epsilon:.2g} for {percent(target)}"
    )
    return (
        f"On this data, {name} {needs}; "
        f"{configuration_name(other.algorithm, other.truncation)} reaches it at "
        f"ε {'≤' if other.from_start else '≈'} {other.epsilon:.2g}."
    )


def rounded_up(epsilon: float) -> float:
    """``epsilon`` rounded up to two significant digits (``0.01187`` → ``0.012``, ``0.0121`` →
    ``0.013``): a number to type and read, never below the ε that meets the target."""
    step = 10.0 ** (math.floor(math.log10(epsilon)) - 1)
    return float(f"{math.ceil(round(epsilon / step, 9)) * step:.2g}")


def release_offer(d: Decision) -> Carried | None:
    """What the "Use ε = … on the Release page" button hands on: the configuration that meets
    the target at the smallest ε, at that ε rounded up (:func:`rounded_up`; the interval
    target: the ε checked in :func:`interval_decision`); None when none meets it in the range.

    Privacy
    -------
    Read from the curves, computed from the true answers: an ε chosen this way depends on the
    data (the page's note says so, and the Release page repeats it).
    """
    first = d.reaches[0] if d.reaches else None
    if first is None or first.epsilon is None:
        return None
    epsilon = rounded_up(first.epsilon) if d.on == "error" else d.offered
    if epsilon is None:  # interval target: no ε checked to meet it
        return None
    target = d.target_text.removeprefix("Target: ").split(" (")[0]  # without the query count
    return Carried(epsilon, first.algorithm, first.truncation, target)


def carry_to_release(carried: Carried) -> None:
    """Callback of the button: ε becomes the explorer's ε (the one setting the Release page
    reads), and the Release page starts on the configuration that meets the target there."""
    state.put(K.EPSILON, carried.epsilon)
    update(
        ReleaseState, carried=carried, carried_new=True,
        algorithm=carried.algorithm, truncation=carried.truncation,
    )  # fmt: skip


def simulate_epsilons() -> np.ndarray:
    """The ε values the simulation check runs (every DECIDE_SIMULATE_EVERY-th of the grid)."""
    return epsilon_grid()[:: limits.DECIDE_SIMULATE_EVERY]


def simulated(data: Statistics, plan: Ready, above: float, *, run: bool):
    """The simulation check of the current settings: run it if ``run``, else the memoised one
    (None if never run with these settings)."""
    eps = simulate_epsilons()
    if run:
        return compute.decision_simulation(data, plan.config, eps, above)
    key = compute.decision_simulation_key(data, plan.config, eps, above)
    return state.memo_get("decide_sim", key)


LEGEND_WIDTH = 510  # px: the chart's column (2.2 of 3.2 of the page at 1280 px) less its y axis


def figure(
    data: Statistics, plan: Ready, d: Decision, target: float, above: float, sim
) -> go.Figure:
    """The decision figure (built once per settings, target and simulation)."""
    c = plan.config
    rho = f" · ρ = {c.rho:g}" if {"svt", "recursive"} & set(c.truncations) else ""
    # A title short enough for a phone (390 px: the target in it was cut), the target first in
    # the subtitle, which is wrapped in lines (figs.wrap_subtitle).
    which = "all queries" if above == 0 else f"τ from the {above:g}th percentile up"
    title = (
        f"{headline_name().capitalize()} versus ε<br><sup>target {percent(target)} · "
        f"{shown_name(data.name, 'plotly')} · {c.workload} · {domain_text(c.upper, c.bins)}{rho} · "
        f"{which}</sup>"
    )
    if d.on == "interval":  # the curves are the error's; the target is on the intervals
        title = title.replace(f"target {percent(target)} · ", "", 1)
    key = (
        state.result_key(data, c.with_(epsilon=0.01, seed=0, trials=1)),
        "decide", target, above, d.on, None if sim is None else (c.seed, c.trials),
    )  # fmt: skip
    # The legend under the plot: on the right it took half of the chart's column.
    return compute.figure(
        key,
        lambda: figs.taller(figs.legend_below(
            figs.wrap_subtitle(
                decision_figure(d.frame, d.reaches, None if d.on == "interval" else target,
                                simulated=sim, title=title)),
            width=LEGEND_WIDTH,
        )),
    )  # fmt: skip


def stem(data: Statistics, plan: Ready, target: float, above: float) -> str:
    """File name of the view's downloads: dataset, workload, target and query percentile."""
    return file_stem(
        data.name, plan.config.workload, f"target{100 * target:g}pct",
        f"above{above:g}", "error_vs_epsilon",
    )  # fmt: skip


def reach_table(d: Decision) -> pd.DataFrame:
    """Per configuration: the smallest ε meeting the target and the lowest error in range
    (the interval target: the typical half-width at the largest ε measured)."""
    behind = {(a, t): e for a, t, e in d.behind}
    last = (f"Lowest {headline_name()} for ε ≤ 10" if d.on == "error"
            else f"{WIDTH_NAME.capitalize()} at the largest ε measured")  # fmt: skip
    return pd.DataFrame(
        {
            "Configuration": [configuration_name(r.algorithm, r.truncation) for r in d.reaches],
            "Smallest ε meeting the target": [
                f"> {behind[(r.algorithm, r.truncation)]:.2g}"
                if (r.algorithm, r.truncation) in behind
                else "not reached" if r.epsilon is None
                else f"≤ {r.epsilon:.2g}" if r.from_start else f"≈ {r.epsilon:.2g}"
                for r in d.reaches
            ],
            last: [percent(r.best) for r in d.reaches],
        }
    )  # fmt: skip


CURVES = {"analytic": "analytic (model)", "simulated": "simulated"}  # the table's "Curve"
NO_VALUE = "—"  # the table's cell where a curve has no value (not a grey "None")
CURVE_TABLE_NOTE = (
    f"{NO_VALUE}: no value. Analytic rows have no error with isotonic regression: the model "
    "does not include it, only the simulation measures it (press **Simulate**)."
)


def curve_table(d: Decision, sim) -> pd.DataFrame:
    """The curves as a tidy table (the chart's data): analytic, and simulated when run; in
    words (the Explorer's names of algorithms and truncations) and the errors in percent."""
    out = d.frame.assign(kind="analytic", metric_iso=np.nan)
    if sim is not None:
        out = pd.concat([out, sim.assign(kind="simulated")], ignore_index=True)
    pairs = list(zip(out["algorithm"], out["truncation"], strict=True))
    return pd.DataFrame(
        {
            "Curve": out["kind"].map(CURVES),
            "Configuration": [configuration_name(a, t) for a, t in pairs],
            "Algorithm": out["algorithm"].map(algorithm_label),
            "Truncation": out["truncation"].map(truncation_label),
            "ε": out["epsilon"],
            f"{present.HEADLINE} (%)": 100 * out["metric"],
            f"{present.ERROR_COLUMNS[1]} (%)": 100 * out["metric_iso"],
        }
    )


def link_params(
    ctx: state.DataContext, plan: Ready, target: float, simulated_shown: bool
) -> dict[str, str]:
    """Query string of this view: settings, target, query percentile, and the simulation."""
    values = {
        K.DECIDE_TARGET: share.number_text(round(100 * target, 12)),
        K.DECIDE_TARGET_ON: state.get(K.DECIDE_TARGET_ON),
        K.DECIDE_ABOVE: state.get(K.DECIDE_ABOVE),
    }
    return share.link_query(
        plan.config, share.Source.of(ctx), iso=bool(state.get(K.ISO)), view=VIEW, values=values,
        flags=(share.SIMULATE_PARAM,) if simulated_shown else (),
    )  # fmt: skip


def redraws(link: Link) -> str | None:
    """What the page redraws from a link's settings alone: without the simulation, the
    curves (within a link's budget, :func:`dpsum_ui.compute.analytic`) and the target."""
    return None if link.simulate else "curves and target"


def queue_link_run(link: Link) -> None:
    """Queue the link's simulation, run once when the page is drawn."""
    del link  # only a link with the simulation is queued (redraws)
    update(DecideState, queued=True)


def link_seconds(config: ExperimentConfig, link: Link) -> float:
    """The estimated seconds of a link's simulation and of the curves it is drawn over."""
    del link
    points = len(range(0, limits.DECIDE_EPSILON_POINTS, limits.DECIDE_SIMULATE_EVERY))
    curves = decision_cost(config, epsilon_grid()).seconds
    return run_cost(config, runs=points).seconds + curves


def link_run() -> bool:
    """Whether a link asked to run the simulation once on this page (read once)."""
    return bool(take(DecideState, "queued"))
