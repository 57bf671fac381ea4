"""Compare: the paper's grid (algorithms × truncation methods) and error versus ε."""

import streamlit as st

from dpsum_core.simulate.results import headline_definition
from dpsum_core.truncation.registry import TRUNCATION_METHODS
from dpsum_core.truncation.registry import label as truncation_label
from dpsum_ui import compare, furniture, guide, shell, state, widgets
from dpsum_ui import keys as K
from dpsum_ui.state import widget

st.title("Compare")
st.caption(
    "The paper's experiment: every algorithm under every truncation method on one workload "
    "(RawSum and ClampShells choose θ themselves), and how the error falls as ε grows. Both "
    "run only when "
    "you press their Run button."
)
guide.box("compare")
shell.show_notice()
ctx = state.data_context()
shell.recap(ctx)
run_once = compare.link_runs()
shell.needs_data(ctx)  # the settings stay editable below

panel = furniture.settings_panel(
    ctx, methods_key=K.COMPARE_TRUNCATIONS, methods_help="The paper compares none, SVT and Recursive."
)
plan = panel.plan
with panel.box:
    bar = furniture.run_bar(
        "Run grid", K.COMPARE_RUN, share_key=K.COMPARE_SHARE,
        parameters=(K.COMPARE_PARAMETERS, panel.methods),
    )  # fmt: skip
    iso = bar.iso
    if bar.clicked or run_once.grid:
        compare.run_grid(ctx, plan)

st.header("Algorithms × truncation methods")
grid = compare.grid()
if grid is None:
    st.info("Press **Run grid** to compute every configuration.")
else:
    if not compare.grid_current(ctx, plan):
        st.warning("Settings changed since this grid was computed: press **Run grid** to update.")
    st.caption(compare.caption(grid))
    view = widget(
        st.segmented_control,
        K.COMPARE_VIEW,
        "View",
        options=list(compare.VIEWS),
        format_func=compare.VIEWS.get,
        required=True,
        wrap=True,
    )
    fig = compare.figure(grid, view, iso)
    widgets.chart(fig, "compare_grid", stem=compare.stem(grid, f"grid_{view}{'_iso' if iso else ''}"))

st.divider()
st.header("Error versus ε")
with st.container(border=True):
    c1, c2, c3 = st.columns([2.2, 1.0, 0.8], vertical_alignment="bottom")
    with c1:
        epsilons = widget(
            st.multiselect,
            K.SWEEP_EPSILONS,
            "ε values",
            options=list(state.EPSILON_GRID),
            format_func=widgets.eps_label,
        )
    with c2:
        sweep_trunc = widget(
            st.selectbox,
            K.SWEEP_TRUNCATION,
            "Truncation",
            options=list(TRUNCATION_METHODS),
            format_func=truncation_label,
        )
    with c3:
        sweep_clicked = st.button(
            "Run sweep", key=K.SWEEP_RUN, type="primary", icon=":material/play_arrow:"
        )
    sweep_plan = state.plan(ctx, truncations=(sweep_trunc,))
    if isinstance(sweep_plan, state.Blocked) and (
        not isinstance(plan, state.Blocked) or sweep_plan.error != plan.error
    ):
        st.error(sweep_plan.error)
    if not epsilons:
        st.error("Choose at least one ε value for the sweep.")
    if sweep_clicked or run_once.sweep:
        compare.run_sweep(ctx, sweep_plan, epsilons)

sweep = compare.sweep()
if sweep is None:
    st.info("Press **Run sweep** to run the chosen algorithms once per ε (same seed, same trials).")
else:
    st.caption(compare.sweep_caption(sweep))
    fig = compare.sweep_figure(sweep, iso)
    widgets.chart(fig, "compare_sweep", stem=compare.sweep_stem(sweep, iso))
    st.caption(
        f"{headline_definition()} {'With' if iso else 'Without'} isotonic regression "
        "(toggle above)."
    )

link = compare.link_params(iso)
shell.sync_url(link)
with bar.share:  # filled last, so that the link is the one of the runs just made
    shell.share_panel(link, "the grid and the sweep shown")
