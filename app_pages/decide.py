"""Decide: how much ε each algorithm needs to meet an error target (analytic, priced), with a
simulation check on demand; or a target on the published 95 % intervals' typical half-width,
measured on a few simulated releases, whose width is also shown next to the ε offered.

Privacy
-------
Errors and half-widths are against the true answers, and the simulated releases run on the
data: for people allowed to see the data (the page says so). Nothing it shows is published,
and nothing here spends budget."""

from contextlib import nullcontext

import streamlit as st

from dpsum_core.errors import DpsumError
from dpsum_core.simulate.results import configuration_name, headline_definition, headline_name
from dpsum_ui import decide, furniture, guide, shell, state, widgets
from dpsum_ui import keys as K
from dpsum_ui.state import widget
from dpsum_ui.tables import unpublished_frame, unpublished_name

st.title("Decide: how much ε for a target error")
st.caption(
    "Error against ε for every algorithm, and the smallest ε at which each meets the error "
    "you need. The curves are analytic (no noise drawn): light settings show them at once, "
    "heavy ones say what they cost first; **Simulate** checks them with real runs."
)
guide.box("decide")


def target_controls() -> None:
    """What the target is on, the target and the queries it is met on (the settings panel's
    first column)."""
    on = widget(
        st.radio,
        K.DECIDE_TARGET_ON,
        "Target on",
        options=tuple(decide.TARGETS),
        format_func=decide.TARGETS.get,
        horizontal=True,
        help="Typical error: the median relative error of the answers (the curves). Typical "
        "published interval: the median half-width of the 95 % intervals a release publishes "
        "(the noise plus a bound on the bias), relative to the answer; usually several times "
        f"the error, measured on {decide.RELEASES} simulated releases per ε searched.",
    )
    what = headline_name() if on == "error" else f"{decide.WIDTH_NAME} (±)"
    widget(
        st.text_input,
        K.DECIDE_TARGET,
        f"Target: {what} at most (%)",
        help="A percentage, e.g. 5 for 5 %. " + (
            headline_definition() if on == "error" else
            "Half-width: half of the interval's length, as a share of the true answer."
        ),
    )  # fmt: skip
    widget(
        st.number_input,
        K.DECIDE_ABOVE,
        "On the queries from the p-th percentile of τ up",
        min_value=0.0,
        max_value=99.0,
        step=5.0,
        format="%g",
        help="0 = all queries. The smallest queries have tiny true answers, so their "
        "relative error is large at any ε; leave them out of the target.",
    )


def decide_page() -> None:
    """The whole page; returns early when the data or the settings are not usable."""
    shell.show_notice()
    ctx = state.data_context()
    shell.recap(ctx, epsilon=False)
    if shell.needs_data(ctx) or ctx.dataset is None:
        return
    data = ctx.dataset
    panel = furniture.settings_panel(
        ctx, methods_key=K.DECIDE_TRUNCATIONS, epsilon=False, lead=target_controls,
        show_error=False,
    )  # fmt: skip
    text, above = state.get(K.DECIDE_TARGET), float(state.get(K.DECIDE_ABOVE))
    on = state.get(K.DECIDE_TARGET_ON)
    st.warning(decide.TRUE_ERRORS_NOTE, icon=":material/visibility:")
    plan = panel.plan
    if isinstance(plan, state.Blocked):
        reason = plan.error
        st.error("Choose at least one truncation method." if reason == furniture.NO_METHOD
                 else reason)  # fmt: skip
        return
    note = st.empty()  # the estimate, said before anything runs, reworded once computed
    note.caption(decide.cost_caption(plan))
    try:
        target = decide.parse_target(text)
        with st.spinner(decide.MEASURING) if on == "interval" else nullcontext():
            view = decide.decide(data, plan, target, float(above), on)
    except DpsumError as exc:
        st.error(f"{str(exc)[0].upper()}{str(exc)[1:]}.")
        return
    if view is not None:
        note.caption(decide.cost_caption(plan, computed=True))
    if view is None:  # heavy curves wait for their button (drawn with the estimate)
        shell.sync_url(decide.link_params(ctx, plan, target, simulated_shown=False))
        return

    bar = furniture.run_bar(
        "Simulate", K.DECIDE_SIMULATE, share_key=K.DECIDE_SHARE, iso=False, primary=False,
        help=f"Run every algorithm at {decide.simulate_epsilons().size} of the ε values "
        "with your trials and seed, to check the analytic lines.",
    )  # fmt: skip
    try:
        sim = decide.simulated(data, plan, float(above), run=bar.clicked or decide.link_run())
    except DpsumError as exc:
        st.error(str(exc))
        sim = None

    summary, chart = st.columns([1, 2.2], gap="medium")
    with summary:
        st.markdown(f"**{view.target_text}**")
        widgets.recommendation(view.recommendation, view.caveat)
        st.markdown("\n".join(f"- {line}" for line in view.lines))
        # a planning number, not the published intervals
        st.caption(decide.PLANNING_NOTE if view.on == "error" else decide.INTERVAL_NOTE)
        if (offer := decide.release_offer(view)) is not None:
            with st.spinner(decide.MEASURING):
                width = decide.planned_width(data, plan, offer, float(above))
            if width is not None:  # else its button waits, with the estimate
                st.markdown(width.sentence())
        if offer is not None and st.button(
            f"Use ε = {offer.epsilon:g} on the Release page", key=K.DECIDE_TO_RELEASE,
            icon=":material/publish:", on_click=decide.carry_to_release, args=(offer,),
            help=f"Sets ε to {offer.epsilon:g}, the smallest ε meeting the target rounded up "
            "to two digits, on every page (the Explorer, Single query, Compare and Release "
            "share one ε) and opens the Release page on "
            f"{configuration_name(offer.algorithm, offer.truncation)}. Nothing is spent until "
            "you confirm there. Chosen from the true answers: see the note above.",
        ):  # fmt: skip
            st.switch_page("app_pages/release.py")
        st.caption(decide.MODEL_NOTE)
    with chart:
        fig = decide.figure(data, plan, view, target, float(above), sim)
        widgets.chart(fig, "decide", stem=decide.stem(data, plan, target, float(above)))
        if view.on == "interval":
            st.caption(decide.INTERVAL_CHART_NOTE)
        if sim is not None:
            c = plan.config
            st.caption(f"Open markers: simulated, {c.trials} trials, seed {c.seed}, no isotonic "
                       "regression (as the lines); the table has the values with it too.")  # fmt: skip
    # Built only while open: closed, the first visit loads no table code in the browser.
    box = st.expander("Data table (the chart's values)", key=K.DECIDE_TABLE, on_change="rerun")
    if box.open:
        with box:
            st.dataframe(decide.reach_table(view), hide_index=True)
            table = decide.curve_table(view, sim)
            st.dataframe(table, hide_index=True, placeholder=decide.NO_VALUE, column_config={
                c: st.column_config.NumberColumn(format="%.3g") for c in table.columns[-3:]
            })  # fmt: skip
            st.caption(decide.CURVE_TABLE_NOTE)
            st.download_button(
                "CSV", data=lambda: unpublished_frame(table).to_csv(index=False),
                file_name=unpublished_name(decide.stem(data, plan, target, float(above)), "csv"),
                mime="text/csv", key=K.DECIDE_CSV, on_click="ignore",
                icon=":material/download:", type="tertiary",
                help="Not for publication: computed from the true answers (its name and last "
                "column say so).",
            )  # fmt: skip
    st.caption(headline_definition())

    params = decide.link_params(ctx, plan, target, simulated_shown=sim is not None)
    shell.sync_url(params)
    with bar.share:
        shell.share_panel(params, "this view (settings, target and query percentile)")


decide_page()
