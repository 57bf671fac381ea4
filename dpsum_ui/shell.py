"""The frame around every page: restoring settings from a link, the sidebar summary, notices."""

from __future__ import annotations

import streamlit as st

from dpsum_core.algorithms import label
from dpsum_core.errors import DpsumError

from . import compute, share, state
from . import keys as K
from .widgets import TRUNCATION_LABELS

_LINK_CHECKED = "_link_checked"


def restore_from_link() -> None:
    """Once per session: apply the configuration carried by the URL's query string, if any.

    A valid link with a sample dataset is re-run once on the explorer page (same seed, so the
    same figures). Call before any widget is drawn.
    """
    ss = st.session_state
    if ss.get(_LINK_CHECKED):
        return
    ss[_LINK_CHECKED] = True
    try:
        shared = share.query_to_settings(st.query_params.to_dict(), samples=state.SAMPLE_NAMES)
    except DpsumError as exc:
        state.notice(
            "error",
            f"The settings in this link could not be used: {exc}. "
            "The default settings are shown instead; fix the link or choose settings below.",
        )
        st.query_params.clear()
        return
    if shared is None:
        return
    state.apply_config(shared.config, sample=shared.sample, column=shared.column, iso=shared.iso)
    if shared.uploaded:
        state.notice(
            "warning",
            "This link was made with an uploaded file. Links never carry uploaded data, so "
            "the settings were restored but not the data: upload the same file on the Data "
            "page"
            + (f" (column “{shared.column}”)" if shared.column else "")
            + ", then press Run.",
        )
    else:
        ss[state.AUTORUN] = True
        state.notice(
            "info",
            "Settings restored from the link and run once with the same seed, so these are "
            "the same figures.",
        )


def show_notice() -> None:
    """Show (once) a queued message such as 'settings restored from the link'."""
    item = st.session_state.pop(state.NOTICE, None)
    if item:
        kind, text = item
        getattr(st, kind)(text)


def sidebar_summary() -> None:
    """The current dataset and key settings, always visible."""
    ctx = state.data_context()
    st.markdown("### ∑ dpsum")
    st.caption("Prefix sums under differential privacy")
    st.markdown("**Dataset**")
    if ctx.dataset is not None:
        kind = "sample" if ctx.source == "sample" else "uploaded, kept for this session only"
        st.markdown(f"{ctx.label} · `{ctx.dataset.column}`  \n*{kind}*")
        st.caption(f"{ctx.dataset.report.rows_kept:,} records after cleaning")
    else:
        st.caption(f"⚠️ {ctx.error}")
    if ctx.domain is not None:
        d = ctx.domain
        st.caption(f"Domain [0, {d.upper:,.0f}] · {d.bins:,} bins of width {d.width:,.6g}")
    st.page_link("app_pages/data.py", label="Change data or domain", icon=":material/tune:")

    st.markdown("**Settings**")
    algorithms = ", ".join(label(a) for a in state.get(K.ALGORITHMS) or []) or "none"
    truncation = TRUNCATION_LABELS.get(state.get(K.TRUNCATION), "?")
    try:
        workload = state.workload_spec()
    except DpsumError:
        workload = "(invalid)"
    if len(workload) > 28:
        workload = workload[:26] + "…"
    st.caption(
        f"Workload {workload}  \nε = {state.get(K.EPSILON):g} · ρ = {state.get(K.RHO):g}  \n"
        f"Truncation: {truncation}  \nAlgorithms: {algorithms}  \n"
        f"{state.get(K.TRIALS)} trials · δ = {state.get(K.DELTA):g} · seed {state.get(K.SEED)}"
    )
    shown = st.session_state.get(state.EXPLORER_RESULT)
    result = compute.result(shown["key"]) if shown else None
    if result is not None:
        st.markdown("**Last run**")
        st.caption(
            f"seed {result.config.seed} · {result.config.trials} trials · {result.seconds:.2f} s"
        )
