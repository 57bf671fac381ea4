"""Single query (teaching): how θ trades truncation bias for noise on one prefix sum, the
binning bias the histogram adds, and where the private θ choices land. Deterministic analysis,
except the seeded θ samples and noisy answers. One θ on screen: the slider of the lesson frame; the chart's
marker, the numbers, the sentences and the address bar follow it in the browser, with no server
round trip (dpsum_ui.lesson: the curves over the θ grid are sent once)."""

import math

import streamlit as st

from dpsum_core.errors import DpsumError
from dpsum_core.mechanisms.registry import ALGORITHMS, label
from dpsum_core.mechanisms.registry import get as registry_get
from dpsum_core.text import number, summed
from dpsum_core.truncation.params import START_FRACTION
from dpsum_core.truncation.svt import SVT_S
from dpsum_ui import guide, lesson, present, share, shell, state, teaching, widgets
from dpsum_ui import keys as K
from dpsum_ui.state import get, widget

st.title("Single query: truncation in five minutes")


def definition(by_person: bool) -> str:
    """The page's first line: what q_τ sums, for the unit of privacy (a person's total with an
    identifier column: :func:`dpsum_core.text.summed`), and that everything follows θ."""
    whose = " (a person's total: all their rows summed, then clipped to [0, U])"
    return (
        f"q_τ = the total of the {summed(by_person)} ≤ τ{whose if by_person else ''}. Move θ "
        "(mouse or arrow keys): everything below follows at once. Errors are in the data's unit."
    )


def controls(ctx: state.DataContext, plan: state.Ready) -> None:
    """Algorithm (the recommended one marked ★, as on every page: :func:`state.recommended`)
    and query τ. The page opens on :data:`teaching.LESSON_ALGORITHM`, whose θ is the slider,
    unless a link names another; a line under the picker names the ★ for releases. θ is moved
    in the lesson frame, in the browser; the θ of a link or of the settings is where the frame
    starts."""
    domain, workload = plan.config.domain, plan.workload
    rec = state.recommended(ctx)
    best = rec.algorithm if rec is not None else None
    state.ensure_option(K.TEACH_ALGORITHM, ALGORITHMS, fallback=teaching.LESSON_ALGORITHM)
    algorithm, query = st.columns([1.25, 1], gap="medium")
    with algorithm:
        chosen = widget(
            st.segmented_control,
            K.TEACH_ALGORITHM,
            "Algorithm",
            options=list(ALGORITHMS),
            format_func=lambda name: f"★ {label(name)}" if name == best else label(name),
            required=True,
            wrap=True,
            help=f"The lesson opens on {label(teaching.LESSON_ALGORITHM)}: it cuts at the θ you "
            "move, so its answers move with θ. ★ marks the one recommended for releases, from "
            "public inputs only (the same rule on every page). "
            + (rec.why if rec is not None else "Set valid ε, U and bins to see it.")
            + " SQM, Identity, Workload, TiMM and TaMM cut at the θ you move; RawSum and "
            "ClampShells choose their own θ (θ then shows where they would cut).",
        )
        if (line := teaching.star_line(best, str(chosen))) is not None:
            st.caption(line)
    taus = [float(t) for t in workload.thresholds]
    # a link's τ and θ: the nearest the page offers, said in the link's notice if not as given
    asked_tau = state.take_link_value(K.TEACH_QUERY)
    tau = present.nearest(taus, 100_000.0 if asked_tau is None else asked_tau)
    changes = []
    if asked_tau is not None and not among(asked_tau, taus):
        changes.append(f"τ = {written(asked_tau)} is not one of workload "
                       f"{plan.config.workload}'s thresholds (the queries this page offers): "
                       f"τ = {number(tau)}, the nearest, is used")  # fmt: skip
    state.ensure_option(K.TEACH_QUERY, taus, fallback=tau)
    with query:
        widget(
            st.select_slider,
            K.TEACH_QUERY,
            "Query q_τ: threshold τ (from the workload)",
            options=taus,
            format_func=lambda t: f"{t:,.0f}",
        )
    grid = present.theta_grid(domain)
    asked_theta = state.take_link_value(K.TEACH_THETA)
    start = get(K.TEACH_THETA) or domain.upper * START_FRACTION
    theta = present.nearest(grid, start)
    if asked_theta is not None and not among(asked_theta, grid):
        changes.append(f"θ = {written(asked_theta)} is not on the page's θ grid ({len(grid)} "
                       f"points from {number(grid[0])} to {number(grid[-1])}): θ = "
                       f"{number(theta)}, the nearest, is used")  # fmt: skip
    state.ensure_option(K.TEACH_THETA, grid, fallback=theta)
    shell.link_not_as_given(changes)


def among(value: float, options: list[float]) -> bool:
    """Whether ``value`` is one of ``options`` (up to a float's last digits)."""
    return any(math.isclose(value, o, rel_tol=1e-9) for o in options)


def written(value: float) -> str:
    """A link's number as the page writes numbers (an infinite one in words)."""
    if math.isfinite(value):
        return number(value)
    return "infinity" if value > 0 else "minus infinity" if value < 0 else "not a number"


def budget_controls(*, by_person: bool) -> bool:
    """ε, whether θ is chosen privately (then ρ), and the workload the query comes from (its
    help says what a query sums: ``by_person``, people's totals)."""
    widgets.epsilon_control()
    private = widget(
        st.toggle,
        K.TEACH_PRIVATE,
        "θ chosen privately",
        help="On: SVT/Recursive spend ρ·ε on θ, the answer gets (1−ρ)·ε. "
        "Off: a fixed, public θ; the answer gets all of ε.",
    )
    widgets.rho_control(disabled=not private)
    widgets.workload_controls(by_person=by_person)
    return bool(private)


def link(ctx: state.DataContext, plan: state.Ready) -> dict[str, str]:
    """Query string of this view: the settings plus τ, θ, algorithm and the θ mode."""
    keys = (K.TEACH_QUERY, K.TEACH_THETA, K.TEACH_ALGORITHM, K.TEACH_PRIVATE)
    return share.link_query(plan.config, share.Source.of(ctx), iso=bool(get(K.ISO)),
                            view=teaching.VIEW, values={k: get(k) for k in keys})  # fmt: skip


def single_query_page() -> None:
    """The whole page; its notice (a link's) at the top, shown once the page has fitted the
    link's τ and θ to its options (:func:`controls` adds what it used instead)."""
    ctx = state.data_context()
    st.caption(definition(ctx.id_column is not None))
    slot = st.container()
    lesson_page(ctx)
    with slot:
        shell.show_notice(compact=True)  # an information as a toast: the first screen is full


def lesson_page(ctx: state.DataContext) -> None:
    """Everything but the first line and the notice; returns early when the data or the
    settings are not usable."""
    by_person = ctx.id_column is not None  # q_τ then sums people's totals
    shell.recap(ctx)
    if shell.needs_data(ctx) or ctx.dataset is None:  # no dataset comes with an error
        return
    data = ctx.dataset

    # Projector layout: the two choices a lesson changes in a row, ε, the θ mode and the
    # workload in a popover beside them; below, the lesson frame (θ, the four numbers, the chart
    # and the four explanations) on the first screen at 1920×1080; on a smaller window θ, the
    # numbers and the chart's plot (never squeezed below 220 px: the page scrolls to the rest;
    # tests/e2e/test_classroom.py).
    top, budget = st.container(key="teach_panel").columns([3, 1], vertical_alignment="bottom")
    with budget:  # beside the controls, opening over the page: the lesson stays in view
        guide.box("single-query", folded=True, by_person=by_person)
    with budget.popover("ε, θ mode, workload", icon=":material/tune:"):
        private = budget_controls(by_person=by_person)
    with top:
        plan = state.plan(ctx, truncations=("svt",), algorithms=ALGORITHMS)
        if isinstance(plan, state.Blocked):
            st.error(plan.error)
            return
        controls(ctx, plan)
    try:  # heavy θ curves wait for their button, with the estimate
        view = teaching.analyse(data, plan, private=private)
    except DpsumError as exc:  # too heavy, or the queue is full
        st.error(f"{str(exc)[0].upper()}{str(exc)[1:]}.")
        return
    if view is None:
        return
    config = plan.config
    lesson_box = st.container(key="teach_lesson")  # drawn below, with the downloads' name

    algorithm = get(K.TEACH_ALGORITHM)
    share_box, note = st.columns([1, 4.4], vertical_alignment="center")
    params = link(ctx, plan)
    shell.sync_url(params)
    with share_box.popover("Share", icon=":material/share:", key=K.TEACH_SHARE):
        # θ moves in the browser: the link takes the θ on screen from the lesson frame
        st.markdown("**Link to this query, θ and algorithm**")
        st.iframe(lesson.share_html(shell.link_text({**params, "theta": lesson.THETA_MARK}),
                                    params["theta"]), height="content")  # fmt: skip
        st.caption(shell.LINK_CAPTION + " Opening it reproduces this view.")
    note.caption(
        f"Lowest truncation bias² + variance at θ ≈ {view.best:,.0f}: found by looking at the "
        "data, so using it directly would not be private. The lesson and the chart's PNG, SVG "
        "and HTML are downloaded from the lesson above, at the θ on screen."
    )
    # The chart's numbers as CSV and as a table (the text alternative of the chart); its other
    # files are made in the lesson frame, at the θ on screen, with this name and note.
    stem, noted = widgets.downloads(view.figure, "teach_curves",
                                    f"{view.stem}_{algorithm}_error_over_theta",
                                    chart_files=False)  # fmt: skip
    widgets.data_table(view.figure, "teach_curves")
    tau = float(get(K.TEACH_QUERY))
    with lesson_box:
        st.iframe(teaching.frame_html(view, data, ctx, config, tau=tau, private=private,
                                      figure=noted, stem=stem), height="content")  # fmt: skip

    # Built and drawn only while open: closed, the page's first visit draws one chart, not two.
    box = st.expander("All algorithms at this query", key=K.TEACH_ALL, on_change="rerun")
    if box.open:
        with box:
            widgets.chart(view.all_figure(), "teach_all", stem=f"{view.stem}_all_algorithms")
            st.caption(
                "Expected error (RMSE, in the data's unit) over θ. Identity and TaMM add noise "
                "to counts, so θ only trades bias for variance there; SQM, Workload and TiMM "
                "need θ for their sensitivity. RawSum and ClampShells choose their own θ: "
                "their curves are their error if their cut were at θ."
            )
    if private and not registry_get(algorithm).runs_once:  # the chart has their marks
        svt = config.truncation_params
        start = SVT_S.in_force(svt, config.domain.upper)
        st.caption(
            f"SVT and Recursive marks: the θ each chose in {get(K.TRIALS)} simulated trials, "
            f"seed {get(K.SEED)} (same settings as the Workload explorer). SVT starts its "
            f"search at s = {number(start)} and climbs the grid s·c^k (c = {svt.svt_c:g}), "
            "so its marks never sit below s, even where the chart's lowest error is."
        )


single_query_page()
