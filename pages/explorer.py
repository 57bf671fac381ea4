"""Workload explorer: settings, a Run button, then the paper's figures for the last run."""

import streamlit as st

from dpsum_core import figures
from dpsum_ui import explorer, present, state, widgets
from dpsum_ui import keys as K


def settings_panel(ctx: state.DataContext) -> state.Plan:
    """Workload, ε, ρ, truncation, algorithms, trials, δ, seed; Run and the isotonic toggle."""
    with st.container(border=True):
        left, middle, right = st.columns([1.1, 1.3, 1.0])
        with left:
            widgets.workload_controls()
        with middle:
            widgets.epsilon_control()
        with right:
            widgets.rho_control(disabled=state.get(K.TRUNCATION) in ("none", "fixed"))
        left, right = st.columns([1.1, 2.3], gap="medium")
        with left:
            method = widgets.truncation_choice()
            widgets.truncation_params(method)
        with right:
            widgets.algorithms_control()
            widgets.trials_delta_seed()
        plan = state.plan(ctx)
        if plan.error:
            st.error(plan.error)
        elif plan.workload is not None:
            st.caption(explorer.workload_caption(plan.workload))
        run_col, iso_col, status_col = st.columns([0.8, 1.4, 3.3], vertical_alignment="center")
        with run_col:
            clicked = st.button(
                "Run", key=K.EXPLORER_RUN, type="primary", icon=":material/play_arrow:"
            )
        with iso_col:
            widgets.iso_control()
        with status_col:
            if clicked or st.session_state.pop(state.AUTORUN, False):
                explorer.run(ctx, plan)
    return plan


def results(item: explorer.Shown, ctx: state.DataContext, plan: state.Plan) -> None:
    """The shown run: which run it is, then one tab per figure (only the open tab is built)."""
    result = item.result
    iso = bool(state.get(K.ISO))
    if explorer.is_stale(ctx, plan, item):
        st.warning(
            "The settings or the data changed since this run: the figures below still show "
            "the previous run. Press **Run** to update them."
        )
    st.markdown(present.run_caption(result))
    fallbacks = sum(r.fallbacks for r in result.runs if r.truncation == "svt")
    if fallbacks:
        st.warning(
            f"SVT never fired in {fallbacks} θ choices; θ fell back to the public U there "
            "(a fixed public rule)."
        )
    trunc = result.config.truncations[0]
    answers, error, isotonic, theta, expected, summary = st.tabs(
        list(explorer.TABS), key=K.EXPLORER_TAB, on_change="rerun"
    )
    if answers.open:
        with answers:
            st.caption(
                "Mean noisy answer per query, its 5–95 % band, and the true answer (Fig. 2)."
            )
            fig = explorer.figure(
                item, ("answers", iso), lambda: figures.answers_figure(result, trunc, iso=iso)
            )
            widgets.chart(fig, "explorer_answers")
    if error.open:
        with error:
            st.caption("Relative error |ŷ − y| / max(y, δ): mean and 5–95 % band (Fig. 3).")
            fig = explorer.figure(
                item, ("error", iso), lambda: figures.relative_error_figure(result, trunc, iso=iso)
            )
            widgets.chart(fig, "explorer_error")
    if isotonic.open:
        with isotonic:
            st.caption("The same errors without and with isotonic regression (Fig. 4).")
            fig = explorer.figure(item, "isotonic", lambda: figures.isotonic_figure(result, trunc))
            widgets.chart(fig, "explorer_isotonic")
    if theta.open:
        with theta:
            explorer.theta_tab(item)
    if expected.open:
        with expected:
            st.caption(
                "Analytic expected RMSE (dotted, no sampling) over the simulated RMSE of the "
                f"{result.config.trials} trials (solid): they should agree."
            )
            fig = explorer.figure(
                item, "expected", lambda: figures.expected_error_figure(result, trunc)
            )
            widgets.chart(fig, "explorer_expected")
    if summary.open:
        with summary:
            explorer.summary_tab(item)


st.title("Workload explorer")
st.caption(
    "Answer a workload of prefix sums under ε-differential privacy with the paper's five "
    "algorithms. Choose the settings, press **Run**, read the figures. The same seed always "
    "gives the same figures."
)
explorer.show_notices()
ctx = state.data_context()
if ctx.error:
    st.error(f"{ctx.error} Fix it on the Data page.")
    st.page_link("pages/data.py", label="Go to the Data page", icon=":material/table_chart:")
plan = settings_panel(ctx)
shown = explorer.shown()
explorer.share_panel(ctx, plan, shown)
if shown is not None:
    results(shown, ctx, plan)
else:
    st.info(
        "Press **Run** to simulate the chosen algorithms. Nothing random happens until you do, "
        "and changing a setting never redraws noise."
    )
    explorer.data_preview(ctx)
