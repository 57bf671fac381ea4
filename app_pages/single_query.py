"""Single query (teaching): how θ trades truncation bias for noise on one prefix sum, the
binning bias the histogram adds, and where the private θ choices land. Deterministic analysis,
except the seeded θ samples. One θ on screen: the slider beside the chart; the chart's marker,
the numbers, the sentences and the link all follow it (the chart has no θ control of its own,
so that a class never sees two θ)."""

import streamlit as st

from dpsum_core.errors import DpsumError
from dpsum_core.mechanisms.registry import ALGORITHMS, label
from dpsum_core.truncation.params import START_FRACTION
from dpsum_ui import keys as K
from dpsum_ui import present, share, shell, state, teaching, widgets
from dpsum_ui.state import get, widget

st.title("Single query: truncation in five minutes")
st.caption(
    "One prefix sum q_τ = the total of the values ≤ τ. Move θ with the slider beside the chart "
    "(mouse or arrow keys): the chart's marker, the numbers and the explanations follow it. "
    "Errors are in the data's unit."
)


def controls(ctx: state.DataContext, plan: state.Plan) -> None:
    """Algorithm, query τ and the θ of the numbers and the link (left of the chart)."""
    domain, workload = ctx.domain, plan.workload
    assert domain is not None and workload is not None  # the page returned on any error
    widget(
        st.segmented_control,
        K.TEACH_ALGORITHM,
        "Algorithm",
        options=list(ALGORITHMS),
        format_func=label,
        required=True,
        wrap=True,
    )
    taus = [float(t) for t in workload.thresholds]
    state.ensure_option(K.TEACH_QUERY, taus, fallback=present.nearest(taus, 100_000.0))
    widget(
        st.select_slider,
        K.TEACH_QUERY,
        "Query q_τ: threshold τ (from the workload)",
        options=taus,
        format_func=lambda t: f"{t:,.0f}",
    )
    grid = present.theta_grid(domain)
    start = get(K.TEACH_THETA) or domain.upper * START_FRACTION
    state.ensure_option(K.TEACH_THETA, grid, fallback=present.nearest(grid, start))
    widget(
        st.select_slider,
        K.TEACH_THETA,
        "Truncation threshold θ",
        options=grid,
        format_func=lambda t: f"{t:,.0f}",
        help="Values above θ count as θ. The chart's marker, the numbers, the explanations "
        "and the shared link all follow this one θ.",
    )


def budget_controls() -> bool:
    """ε, whether θ is chosen privately (then ρ), and the workload the query comes from."""
    widgets.epsilon_control()
    private = widget(
        st.toggle,
        K.TEACH_PRIVATE,
        "θ chosen privately",
        help="On: SVT/Recursive spend ρ·ε on θ, the answer gets (1−ρ)·ε. "
        "Off: a fixed, public θ; the answer gets all of ε.",
    )
    widgets.rho_control(disabled=not private)
    widgets.workload_controls()
    return bool(private)


def link(ctx: state.DataContext, plan: state.Plan) -> dict[str, str]:
    """Query string of this view: the settings plus τ, θ, algorithm and the θ mode."""
    keys = (K.TEACH_QUERY, K.TEACH_THETA, K.TEACH_ALGORITHM, K.TEACH_PRIVATE)
    assert plan.config is not None  # the page returned on a plan error
    return {
        **share.config_to_query(
            plan.config,
            sample=ctx.sample,
            server=ctx.server,
            column=ctx.column,
            id_column=ctx.id_column,
            iso=bool(get(K.ISO)),
        ),
        **share.view_to_query("single-query", {k: get(k) for k in keys}),
    }


def single_query_page() -> None:
    """The whole page; returns early when the data or the settings are not usable."""
    shell.show_notice()
    ctx = state.data_context()
    shell.recap(ctx)
    if ctx.error:
        st.error(f"{ctx.error} Fix it on the Data page.")
        return

    # Projector layout: every control in a narrow column beside the chart, both above the fold.
    column, right = st.columns([1, 2.5], gap="medium")
    left = column.container(key="teach_panel")  # its controls and numbers are drawn ≥ 16 px
    with left:
        plan = state.plan(ctx, truncations=("svt",), algorithms=ALGORITHMS)
        if plan.error:
            budget_controls()
            st.error(plan.error)
            return
        controls(ctx, plan)
        private = budget_controls()
    with right:  # heavy θ curves wait here for their button, with the estimate
        try:
            view = teaching.analyse(ctx, plan, private=private)
        except DpsumError as exc:  # too heavy, or the queue is full
            st.error(f"{str(exc)[0].upper()}{str(exc)[1:]}.")
            return
    if view is None:
        return
    with right:
        algorithm = get(K.TEACH_ALGORITHM)
        widgets.chart(view.figure, "teach_curves", stem=f"{view.stem}_{algorithm}_error_over_theta")
    with left:
        a, b = st.columns(2)
        a.metric("Truncation bias", present.money(view.at_theta["truncation_bias"]),
                 help="Trunc_θ(q_τ) − q_τ: values above θ counted as θ (≤ 0).")  # fmt: skip
        b.metric("Binning bias", present.money(view.at_theta["binning_bias"]),
                 help="Each record counted as its bin's weight rather than its value.")  # fmt: skip
        a.metric("Expected error (RMSE)", present.money(view.at_theta["total"] ** 0.5),
                 help="√(bias² + variance), bias = truncation bias + binning bias.")  # fmt: skip
        b.metric("True answer q_τ", present.money(view.true_answer))
        st.caption(
            f"Lowest truncation bias² + variance at θ ≈ {view.best:,.0f}: found by looking at "
            "the data, so using it directly would not be private."
        )
        params = link(ctx, plan)
        shell.sync_url(params)
        with st.popover("Share", icon=":material/share:", key=K.TEACH_SHARE):
            shell.share_panel(params, "this query, θ and algorithm")

    # h2 under the page's h1 (axe heading-order), drawn small (style.py: teach_texts)
    t1, t2, t3, t4 = st.container(key="teach_texts").columns(4, gap="medium")
    with t1:
        st.markdown("## :material/content_cut: Truncation bias")
        st.markdown(view.text["truncation"])
    with t2:
        st.markdown("## :material/view_column: Binning bias")
        st.markdown(view.text["binning"])
    with t3:
        st.markdown("## :material/straighten: Sensitivity")
        st.markdown(view.text["sensitivity"])
    with t4:
        st.markdown("## :material/pie_chart: Budget split")
        st.markdown(view.text["budget"])

    # Built and drawn only while open: closed, the page's first visit draws one chart, not two.
    box = st.expander("All algorithms at this query", key=K.TEACH_ALL, on_change="rerun")
    if box.open:
        with box:
            widgets.chart(view.all_figure(), "teach_all", stem=f"{view.stem}_all_algorithms")
            st.caption(
                "Expected error (RMSE, in the data's unit) over θ. Identity and TaMM add noise "
                "to counts, so θ only trades bias for variance there; SQM, Workload and TiMM "
                "need θ for their sensitivity."
            )
    st.caption(
        f"SVT and Recursive marks: {get(K.TRIALS)} trials, seed {get(K.SEED)} "
        "(same settings as the Workload explorer)."
    )


single_query_page()
