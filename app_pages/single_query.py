"""Single query (teaching): how θ trades bias for variance on one prefix sum, and where the
private θ choices land. Deterministic analysis, except the seeded θ samples."""

import streamlit as st

from dpsum_core.algorithms import ALGORITHMS, label
from dpsum_core.thresholds import START_FRACTION
from dpsum_ui import keys as K
from dpsum_ui import present, state, teaching, widgets
from dpsum_ui.state import get, widget

st.title("Single query: truncation in five minutes")
st.caption(
    "One prefix sum q_τ = the total of all values ≤ τ. Move θ and watch the two kinds of error "
    "trade places. The curves are exact expectations (no simulation), so they update live."
)


def single_query_page() -> None:
    """The whole page; returns early when the data or the settings are not usable."""
    ctx = state.data_context()
    if ctx.error:
        st.error(f"{ctx.error} Fix it on the Data page.")
        return

    with st.container(border=True):
        workload, epsilon, budget = st.columns([1.0, 1.25, 1.0], gap="medium")
        with workload:
            widgets.workload_controls()
        with epsilon:
            widgets.epsilon_control()
        with budget:
            private = widget(
                st.toggle,
                K.TEACH_PRIVATE,
                "θ chosen privately",
                help="On: SVT/Recursive spend ρ·ε on θ, the answer gets (1−ρ)·ε. "
                "Off: a fixed, public θ; the answer gets all of ε.",
            )
            widgets.rho_control(disabled=not private)
        plan = state.plan(ctx, truncations=("svt",), algorithms=ALGORITHMS)
        if plan.error:
            st.error(plan.error)
            return
        algorithm, query = st.columns([1.75, 1.6], gap="medium")
        with algorithm:
            widget(
                st.segmented_control,
                K.TEACH_ALGORITHM,
                "Algorithm",
                options=list(ALGORITHMS),
                format_func=label,
                required=True,
                wrap=True,
            )
        with query:
            taus = [float(t) for t in plan.workload.thresholds]
            state.ensure_option(K.TEACH_QUERY, taus, fallback=present.nearest(taus, 100_000.0))
            widget(
                st.select_slider,
                K.TEACH_QUERY,
                "Query q_τ: threshold τ (from the workload)",
                options=taus,
                format_func=lambda t: f"{t:,.0f}",
            )
        grid = present.theta_grid(ctx.domain)
        start = get(K.TEACH_THETA) or ctx.domain.upper * START_FRACTION
        state.ensure_option(K.TEACH_THETA, grid, fallback=present.nearest(grid, start))
        widget(
            st.select_slider,
            K.TEACH_THETA,
            "Truncation threshold θ (log scale)",
            options=grid,
            format_func=lambda t: f"{t:,.0f}",
        )

    view = teaching.analyse(ctx, plan, private=private)
    left, right = st.columns([2.2, 1], gap="medium")
    with left:
        widgets.chart(view.figure, "teach_curves")
    with right:
        st.metric("Bias² at θ", present.sci(view.at_theta["bias2"]))
        st.metric("Variance at θ", present.sci(view.at_theta["variance"]))
        st.metric(
            "Expected error (RMSE) at θ",
            present.money(view.at_theta["total"] ** 0.5),
            help="Root of bias² + variance, in the units of the answer.",
        )
        st.metric("True answer q_τ", present.money(view.true_answer))
        st.caption(f"Lowest expected error on this θ grid at θ ≈ {view.best:,.0f} — found by looking "
                   "at the data, so using it directly would not be private.")  # fmt: skip

    t1, t2, t3 = st.columns(3, gap="medium")
    with t1:
        st.markdown("#### :material/content_cut: Truncation")
        st.markdown(view.text["truncation"])
    with t2:
        st.markdown("#### :material/straighten: Sensitivity")
        st.markdown(view.text["sensitivity"])
    with t3:
        st.markdown("#### :material/pie_chart: Budget split")
        st.markdown(view.text["budget"])

    with st.expander("All five algorithms at this query"):
        widgets.chart(view.all_figure, "teach_all")
        st.caption(
            "Total expected error over θ. Identity and TaMM add noise to counts, so θ only trades "
            "bias for variance there; SQM, Workload and TiMM need θ for their sensitivity."
        )
    st.caption(
        f"SVT and Recursive marks: {state.get(K.TRIALS)} trials, seed {state.get(K.SEED)} "
        "(same settings as the Workload explorer)."
    )


single_query_page()
