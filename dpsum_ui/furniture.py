"""The furniture every analysis page shares: one settings panel, one run bar.

Explorer, Compare and Decide draw their settings with :func:`settings_panel` (workload, ε, ρ,
the truncation method or methods, the algorithms, and the parameters each chosen method cannot
run without, as its module describes them) and their button with :func:`run_bar` (the button,
trials and seed, isotonic regression, the other method parameters, Share). A page differs only
by the arguments: which key holds its truncation methods, whether ε is chosen here, what comes
first (Decide's target).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.workloads import Workload, snapping_words
from dpsum_core.text import counted
from dpsum_core.truncation.registry import TRUNCATION_METHODS
from dpsum_core.truncation.registry import get as get_truncation
from dpsum_core.truncation.registry import label as truncation_label

from . import keys as K
from . import state, widgets

NO_METHOD = "choose at least one truncation method"


@dataclass(frozen=True)
class Panel:
    """What the settings panel drew: the chosen truncation methods, the plan they make, and
    the bordered box (the page's run bar goes inside it)."""

    methods: tuple[str, ...]
    plan: state.Plan
    box: DeltaGenerator


@dataclass(frozen=True)
class Bar:
    """What the run bar drew: whether its button was pressed, isotonic regression on or off,
    and the Share popover (filled by the page once its link is known)."""

    clicked: bool
    iso: bool
    share: DeltaGenerator


def workload_caption(workload: Workload, domain: Domain) -> str:
    """m, the threshold range, and any snapping of explicit thresholds: which, to what and
    why (:func:`~dpsum_core.mechanisms.workloads.snapping_words`, the command line's words)."""
    t = workload.thresholds
    text = f"{counted(workload.size, 'query', 'queries')} (m) · τ from {t[0]:,.6g} to {t[-1]:,.6g}"
    if moved := snapping_words(workload, domain):
        text += f" · {moved}"
    return text


def settings_panel(
    ctx: state.DataContext,
    *,
    methods_key: str | None = None,
    methods_help: str | None = None,
    epsilon: bool = True,
    lead: Callable[[], None] | None = None,
    show_error: bool = True,
    describe_workload: bool = False,
) -> Panel:
    """The settings of a run, in a bordered box: first row ``lead`` (if any), the workload, ε
    (unless ``epsilon`` is False: the page sweeps it) and ρ; second row the truncation
    methods (one, the shared setting, when ``methods_key`` is None; else any number, under
    the page's own key) and the algorithms; then the parameters the chosen methods cannot
    run without, the workload's size and range under it when ``describe_workload``, and the
    plan's error when ``show_error``.

    ρ is greyed out when no chosen method spends it (None and a fixed θ).
    """
    box = st.container(border=True)
    with box:
        first = st.columns(([1.0] if lead else []) + ([1.0, 1.25, 1.0] if epsilon else [1.0, 1.0]),
                           gap="medium")  # fmt: skip
        if lead is not None:
            with first[0]:
                lead()
        workload, rho = first[1 if lead else 0], first[-1]
        with workload:
            widgets.workload_controls(by_person=ctx.id_column is not None)
        if epsilon:
            with first[-2]:
                widgets.epsilon_control()
        chosen, algorithms = st.columns([1.65, 1.7], gap="medium")
        with chosen:
            if methods_key is None:
                methods: tuple[str, ...] = (widgets.truncation_choice(),)
            else:
                methods = tuple(state.widget(
                    st.multiselect, methods_key, "Truncation methods",
                    options=list(TRUNCATION_METHODS), format_func=truncation_label,
                    help=methods_help,
                ))  # fmt: skip
        with algorithms:
            widgets.algorithms_control(ctx)
        with rho:
            spends = any(get_truncation(m).spends_rho for m in methods)
            widgets.rho_control(disabled=bool(methods) and not spends)
        widgets.required_parameters(methods)
        plan: state.Plan
        if not methods:
            plan = state.Blocked(NO_METHOD)
        elif methods_key is None:
            plan = state.plan(ctx)  # the shared truncation setting
        else:
            plan = state.plan(ctx, truncations=methods)
        if describe_workload and plan.workload is not None and ctx.domain is not None:
            with workload:
                st.caption(workload_caption(plan.workload, ctx.domain))
        if show_error and isinstance(plan, state.Blocked):
            st.error(plan.error)
    return Panel(methods, plan, box)


def run_bar(
    label: str,
    key: str,
    *,
    share_key: str,
    parameters: tuple[str, tuple[str, ...]] | None = None,
    iso: bool = True,
    primary: bool = True,
    help: str | None = None,
) -> Bar:
    """One row: the page's button (``label`` under ``key``), trials and seed, isotonic
    regression (when ``iso``), the ``parameters`` popover (its key and the methods whose
    parameters it holds) and the Share popover (``share_key``)."""
    with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
        clicked = st.button(
            label, key=key, type="primary" if primary else "secondary",
            icon=":material/play_arrow:", help=help,
        )  # fmt: skip
        widgets.trials_and_seed()
        shown_iso = widgets.iso_control() if iso else bool(state.get(K.ISO))
        if parameters is not None:
            popover, methods = parameters
            with st.popover("Parameters", icon=":material/tune:", key=popover):
                widgets.method_parameters(methods)
        share = st.popover("Share", icon=":material/share:", key=share_key)
    return Bar(bool(clicked), bool(shown_iso), share)
