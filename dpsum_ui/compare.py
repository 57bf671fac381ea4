"""Pieces of the Compare page: the algorithms × truncations grid and the ε sweep."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dpsum_core.errors import DpsumError
from dpsum_core.mechanisms.registry import truncation_label
from dpsum_core.plots.results import (
    comparison_heatmap,
    epsilon_sweep_figure,
    small_multiples_figure,
)
from dpsum_core.plots.style import file_stem, run_stem
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import run_cost
from dpsum_core.simulate.results import ExperimentResult
from dpsum_core.text import escape_name
from dpsum_core.truncation.registry import TRUNCATION_METHODS

from . import compute, present, share, state
from . import keys as K
from .fields import COMPARE_VIEWS, EPSILON_GRID
from .page import Link

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
_SWEEP = "_sweep_meta"
_GRID_SOURCE = "_grid_source"  # (sample, server dataset, column, id column) of the grid


def grid_plan(ctx: state.DataContext, truncations: list[str]) -> state.Plan:
    """The grid's configuration (the chosen truncation methods), or why there is none."""
    if not truncations:
        return state.Blocked("choose at least one truncation method")
    return state.plan(ctx, truncations=tuple(truncations))


def run_grid(ctx: state.DataContext, plan: state.Plan) -> None:
    """Run every (algorithm, truncation) of the plan."""
    if plan.config is None or ctx.dataset is None:
        st.error("Nothing was run: fix the settings marked above first.")
        return
    try:
        key = compute.run(ctx.dataset, plan.config, label="Running the grid", kind="compare")
    except DpsumError as exc:
        st.error(str(exc))
        return
    st.session_state[state.COMPARE_RESULT] = key
    st.session_state[_GRID_SOURCE] = (ctx.sample, ctx.server, ctx.dataset.column, ctx.id_column)


def grid() -> ExperimentResult | None:
    """The last grid, if still memoised."""
    return compute.result(st.session_state.get(state.COMPARE_RESULT), kind="compare")


def grid_current(ctx: state.DataContext, plan: state.Plan) -> bool:
    """Whether the shown grid matches the current settings and data."""
    if plan.config is None or ctx.dataset is None:
        return False
    return state.result_key(ctx.dataset, plan.config) == st.session_state.get(state.COMPARE_RESULT)


def caption(result: ExperimentResult) -> str:
    """Which run the grid shows."""
    return present.run_caption(result)


def figure(result: ExperimentResult, view: str, iso: bool) -> go.Figure:
    """The grid as a heatmap or as small multiples (built once per view)."""
    key = (st.session_state.get(state.COMPARE_RESULT), view, iso)
    if view == "heatmap":
        return compute.figure(key, lambda: comparison_heatmap(result, iso=iso))
    return compute.figure(key, lambda: small_multiples_figure(result, iso=iso, kind=view))


def stem(result: ExperimentResult, what: str) -> str:
    """File name of a grid download: dataset, workload, ε, seed and the view."""
    return run_stem(result, what)


def sweep_stem(item: dict, iso: bool) -> str:
    """File name of a sweep download (the ε values are in its name instead of one ε)."""
    c = item["config"]
    eps = "-".join(f"{e:g}" for e in item["key"][-1])
    what = f"sweep_{c.truncations[0]}{'_iso' if iso else ''}"
    return file_stem(item["name"], c.workload, f"eps{eps}", f"seed{c.seed}", what)


def run_sweep(ctx: state.DataContext, plan: state.Plan, epsilons: list[float]) -> None:
    """Run the chosen algorithms at every ε (one truncation method)."""
    if plan.config is None or ctx.dataset is None or not epsilons:
        st.error("Nothing was run: fix the settings marked above first.")
        return
    try:
        key = compute.sweep(ctx.dataset, plan.config, epsilons)
    except DpsumError as exc:
        st.error(str(exc))
        return
    st.session_state[_SWEEP] = {
        "key": key,
        "config": plan.config,
        "name": ctx.dataset.name,
        "sample": ctx.sample,
        "server": ctx.server,
        "column": ctx.dataset.column,
        "id_column": ctx.id_column,
    }


def sweep() -> dict | None:
    """The last sweep: its frame and what produced it."""
    meta = st.session_state.get(_SWEEP)
    if not meta:
        return None
    frame = compute.sweep_frame(meta["key"])
    if frame is None:
        return None
    return {**meta, "frame": frame}


def sweep_caption(item: dict) -> str:
    """Which sweep the figure shows."""
    c = item["config"]
    return (
        f"**Seed {c.seed}** · {c.trials} trials · {escape_name(item['name'], 'markdown')} · "
        f"{c.workload} · "
        f"ρ = {c.rho:g} · {truncation_label(c.truncations[0])} · "
        f"ε ∈ {{{', '.join(f'{e:g}' for e in item['key'][-1])}}}"
    )


def sweep_figure(item: dict, iso: bool) -> go.Figure:
    """Median (over queries) of the mean relative error against ε per algorithm."""
    frame: pd.DataFrame = item["frame"]
    c = item["config"]
    trunc = c.truncations[0]
    title = (
        f"Error versus ε, {truncation_label(trunc)}"
        f"{' + isotonic' if iso else ''}<br><sup>{escape_name(item['name'], 'plotly')} · "
        f"{c.workload} · "
        f"ρ = {c.rho:g} · {c.trials} trials · seed {c.seed}</sup>"
    )
    return compute.figure(
        (item["key"], "sweep", iso),
        lambda: epsilon_sweep_figure(frame, trunc, iso=iso, title=title),
    )


def queue_link_run(link: Link) -> None:
    """Queue what a link runs once on this page: its grid and/or its sweep."""
    st.session_state[state.COMPARE_AUTORUN] = {"grid": link.grid, "sweep": link.sweep}


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


def autorun() -> dict:
    """What a link asked to run once on this page ({"grid": bool, "sweep": bool})."""
    return st.session_state.pop(state.COMPARE_AUTORUN, None) or {}


def link_params(iso: bool) -> dict[str, str] | None:
    """Query-string parameters that reproduce the grid and the sweep on screen.

    The grid's configuration leads; the sweep is included when it ran on the same settings
    (only its truncation method may differ), else a link could not reproduce both.
    """
    result, item = grid(), sweep()
    if result is not None:
        base, (sample, server, column, id_column) = result.config, st.session_state[_GRID_SOURCE]
    elif item is not None:
        base, sample, server, column, id_column = (
            item["config"], item["sample"], item["server"], item["column"], item["id_column"]
        )  # fmt: skip
    else:
        return None
    values: dict = {}
    if result is not None:
        values[K.COMPARE_VIEW] = state.get(K.COMPARE_VIEW)
    if item is not None:
        same = item["config"].with_(
            truncations=base.truncations, truncation_params=base.truncation_params
        )
        if same == base:
            values[K.SWEEP_EPSILONS] = list(item["key"][-1])
            values[K.SWEEP_TRUNCATION] = item["config"].truncations[0]
    return {
        **share.config_to_query(
            base, sample=sample, server=server, column=column, iso=iso, id_column=id_column
        ),
        **share.view_to_query(VIEW, values),
    }
