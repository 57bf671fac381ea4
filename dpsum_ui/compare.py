"""Pieces of the Compare page: the algorithms × truncations grid and the ε sweep."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dpsum_core.errors import DpsumError
from dpsum_core.mechanisms.registry import truncation_label
from dpsum_core.plots.results import (
    comparison_heatmap,
    epsilon_sweep_figure,
    small_multiples_figure,
    truncation_views,
)
from dpsum_core.plots.style import file_stem, run_stem
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import run_cost
from dpsum_core.simulate.results import ExperimentResult
from dpsum_core.text import counted
from dpsum_core.truncation.registry import TRUNCATION_METHODS

from . import compute, figs, present, share, state
from . import keys as K
from .fields import COMPARE_VIEWS, EPSILON_GRID
from .names import shown_name
from .page import Link
from .page_state import CompareState, Run, Sweep, load, take, update
from .state import Ready

# What a Compare link shows beyond the configuration (dpsum_ui.share.view_to_query).
VIEW: share.ViewParams = {
    "view": (K.COMPARE_VIEW, "text", COMPARE_VIEWS),
    "sweep": (K.SWEEP_EPSILONS, "numbers", EPSILON_GRID),
    "sweep_truncation": (K.SWEEP_TRUNCATION, "text", TRUNCATION_METHODS),
}

VIEWS = {  # labels of fields.COMPARE_VIEWS
    "heatmap": "Heatmap of median relative error",
    "error": "Small multiples: error",
    "answers": "Small multiples: answers",
}


def _source(ctx: state.DataContext, column: str) -> share.Source:
    """Where a run's data came from (its link names it)."""
    return share.Source(ctx.sample, ctx.server, column, ctx.id_column)


def _grid_key() -> tuple | None:
    grid = load(CompareState).grid
    return None if grid is None else grid.key


def run_grid(ctx: state.DataContext, plan: state.Plan) -> None:
    """Run every (algorithm, truncation) of the plan."""
    if not isinstance(plan, Ready) or ctx.dataset is None:
        st.error("Nothing was run: fix the settings marked above first.")
        return
    try:
        key = compute.run(ctx.dataset, plan.config, label="Running the grid", kind="compare")
    except DpsumError as exc:
        st.error(str(exc))
        return
    update(CompareState, grid=Run(key, ctx.dataset, _source(ctx, ctx.dataset.column)))


def grid() -> ExperimentResult | None:
    """The last grid, if still memoised."""
    return compute.result(_grid_key(), kind="compare")


def grid_current(ctx: state.DataContext, plan: state.Plan) -> bool:
    """Whether the shown grid matches the current settings and data."""
    if not isinstance(plan, Ready) or ctx.dataset is None:
        return False
    return state.result_key(ctx.dataset, plan.config) == _grid_key()


def caption(result: ExperimentResult) -> str:
    """Which run the grid shows, and how many configurations it holds (counted from the runs
    shown: RawSum and ClampShells choose θ themselves, one configuration each)."""
    algorithms = len({r.algorithm for r in result.runs})
    n = len(result.runs)
    count = f"{counted(algorithms, 'algorithm')} (rows), {counted(n, 'configuration')}"
    return f"{present.run_caption(result)} · {count}"


GRID_WIDTH = 820  # px: the grid chart's plot width at 1280 px (sidebar open), legend below
MULTIPLES_HEIGHT = 520  # px: the small multiples, before their legend


def multiples(result: ExperimentResult, view: str, iso: bool) -> go.Figure:
    """The small multiples fitted to the page: the legend under the panels (on the right it
    narrowed them), their τ labels and axis title no longer running together."""
    fig = small_multiples_figure(result, iso=iso, kind=view).update_layout(
        height=MULTIPLES_HEIGHT
    )
    n = len(truncation_views(result))
    panel_px = GRID_WIDTH * (1 - 0.2 * (n - 1) / n) / n  # make_subplots' spacing: 0.2 / n
    fig = figs.panel_ticks(fig, result.workload.thresholds, panel_px=panel_px)
    return figs.legend_below(fig, width=GRID_WIDTH)


def figure(result: ExperimentResult, view: str, iso: bool) -> go.Figure:
    """The grid as a heatmap or as small multiples (built once per view)."""
    key = (_grid_key(), view, iso)
    if view == "heatmap":
        return compute.figure(key, lambda: comparison_heatmap(result, iso=iso))
    return compute.figure(key, lambda: multiples(result, view, iso))


def stem(result: ExperimentResult, what: str) -> str:
    """File name of a grid download: dataset, workload, ε, seed and the view."""
    return run_stem(result, what)


@dataclass(frozen=True)
class ShownSweep:
    """The sweep on screen: what produced it and its frame (still in the memo)."""

    sweep: Sweep
    frame: pd.DataFrame


def sweep_stem(item: ShownSweep, iso: bool) -> str:
    """File name of a sweep download (the ε values are in its name instead of one ε)."""
    c = item.sweep.config
    eps = "-".join(f"{e:g}" for e in item.sweep.epsilons)
    what = f"sweep_{c.truncations[0]}{'_iso' if iso else ''}"
    return file_stem(item.sweep.name, c.workload, f"eps{eps}", f"seed{c.seed}", what)


def run_sweep(ctx: state.DataContext, plan: state.Plan, epsilons: list[float]) -> None:
    """Run the chosen algorithms at every ε (one truncation method)."""
    if not isinstance(plan, Ready) or ctx.dataset is None or not epsilons:
        st.error("Nothing was run: fix the settings marked above first.")
        return
    try:
        key = compute.sweep(ctx.dataset, plan.config, epsilons)
    except DpsumError as exc:
        st.error(str(exc))
        return
    source = _source(ctx, ctx.dataset.column)
    update(CompareState, sweep=Sweep(key, plan.config, ctx.dataset.name, source))


def sweep() -> ShownSweep | None:
    """The last sweep: its frame and what produced it."""
    kept = load(CompareState).sweep
    frame = compute.sweep_frame(kept.key) if kept is not None else None
    return None if kept is None or frame is None else ShownSweep(kept, frame)


def sweep_caption(item: ShownSweep) -> str:
    """Which sweep the figure shows."""
    c = item.sweep.config
    return (
        f"**Seed {c.seed}** · {counted(c.trials, 'trial')} · {shown_name(item.sweep.name)} · "
        f"{c.workload} · "
        f"ρ = {c.rho:g} · {truncation_label(c.truncations[0])} · "
        f"ε ∈ {{{', '.join(f'{e:g}' for e in item.sweep.epsilons)}}}"
    )


def sweep_figure(item: ShownSweep, iso: bool) -> go.Figure:
    """Median (over queries) of the mean relative error against ε per algorithm."""
    frame, c = item.frame, item.sweep.config
    trunc = c.truncations[0]
    title = (
        f"Error versus ε, {truncation_label(trunc)}"
        f"{' + isotonic' if iso else ''}<br><sup>{shown_name(item.sweep.name, 'plotly')} · "
        f"{c.workload} · "
        f"ρ = {c.rho:g} · {counted(c.trials, 'trial')} · seed {c.seed}</sup>"
    )
    return compute.figure(
        (item.sweep.key, "sweep", iso),
        lambda: epsilon_sweep_figure(frame, trunc, iso=iso, title=title),
    )


def queue_link_run(link: Link) -> None:
    """Queue what a link runs once on this page: its grid and/or its sweep."""
    update(CompareState, queued_grid=link.grid, queued_sweep=link.sweep)


def link_seconds(config: ExperimentConfig, link: Link) -> float:
    """The estimated seconds of a link's grid and of its sweep at the restored ε values."""
    seconds = run_cost(config).seconds if link.grid else 0.0
    epsilons = state.get(K.SWEEP_EPSILONS) or []
    if link.sweep and epsilons:
        try:
            one = config.with_(truncations=(state.get(K.SWEEP_TRUNCATION) or "svt",))
        except DpsumError:  # the page says what is wrong with the sweep's settings
            return seconds
        seconds += run_cost(one, runs=len(epsilons)).seconds
    return seconds


def link_runs() -> Link:
    """What a link asked to run once on this page: its grid and/or its sweep (read once)."""
    return Link(grid=bool(take(CompareState, "queued_grid")),
                sweep=bool(take(CompareState, "queued_sweep")))  # fmt: skip


def link_params(iso: bool) -> dict[str, str] | None:
    """Query-string parameters that reproduce the grid and the sweep on screen.

    The grid's configuration leads; the sweep is included when it ran on the same settings
    (only its truncation method may differ), else a link could not reproduce both.
    """
    kept = load(CompareState)
    result, item = grid(), sweep()
    if result is not None and kept.grid is not None:
        base, source = result.config, kept.grid.source
    elif item is not None:
        base, source = item.sweep.config, item.sweep.source
    else:
        return None
    values: dict = {}
    if result is not None:
        values[K.COMPARE_VIEW] = state.get(K.COMPARE_VIEW)
    if item is not None:
        same = item.sweep.config.with_(
            truncations=base.truncations, truncation_params=base.truncation_params
        )
        if same == base:
            values[K.SWEEP_EPSILONS] = list(item.sweep.epsilons)
            values[K.SWEEP_TRUNCATION] = item.sweep.config.truncations[0]
    return share.link_query(base, source, iso=iso, view=VIEW, values=values)
