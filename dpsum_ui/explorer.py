"""Pieces of the Workload explorer page: running, the shown result, tabs, sharing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dpsum_core.data.dataset import Statistics
from dpsum_core.errors import DpsumError
from dpsum_core.mechanisms.registry import label
from dpsum_core.plots.data import data_histogram_figure
from dpsum_core.plots.results import theta_figure
from dpsum_core.plots.style import file_stem, run_stem
from dpsum_core.publish.csvfile import csv_bytes
from dpsum_core.simulate.notice import with_notice
from dpsum_core.simulate.results import ExperimentResult, headline_definition, run_json

from . import compute, figs, oversize, present, share, shell, state, store, tables, widgets
from . import keys as K
from .page_state import ExplorerState, Run, load, take, update
from .state import Ready
from .tables import unpublished_frame, unpublished_name
from .uploads import uploader_size

TABS = (
    "Answers",
    "Relative error",
    "Isotonic regression",
    "θ and data",
    "Expected error",
    "Summary & budget",
)


@dataclass(frozen=True)
class Shown:
    """The run whose figures the explorer shows, with its result (still in the memo)."""

    run: Run
    result: ExperimentResult

    @property
    def key(self) -> tuple:
        """The run's memo key."""
        return self.run.key

    @property
    def dataset(self) -> Statistics:
        """The data it ran on."""
        return self.run.data


def show_notices() -> None:
    """Messages queued by a link or a restored config file, and a failed restore."""
    shell.show_notice()
    if message := load(ExplorerState).config_error:
        st.error(message)


def link_run() -> bool:
    """Whether a link asked for one run (read once)."""
    return bool(take(ExplorerState, "queued"))


def run(ctx: state.DataContext, plan: state.Plan) -> None:
    """Run the planned experiment (or reuse it) and make it the shown result."""
    if not isinstance(plan, Ready) or ctx.dataset is None:
        st.error("Nothing was run: fix the settings marked above first.")
        return
    try:
        key = compute.run(ctx.dataset, plan.config, label="Running")
    except DpsumError as exc:
        st.error(str(exc))
        return
    source = share.Source(ctx.sample, ctx.server, ctx.dataset.column, ctx.id_column)
    update(ExplorerState, shown=Run(key, ctx.dataset, source))


def shown() -> Shown | None:
    """The result on screen, if it is still in the memo."""
    item = load(ExplorerState).shown
    if item is None:
        return None
    result = compute.result(item.key)
    return None if result is None else Shown(item, result)


def is_stale(ctx: state.DataContext, plan: state.Plan, item: Shown) -> bool:
    """Whether the settings or data differ from the shown run."""
    if not isinstance(plan, Ready) or ctx.dataset is None:
        return True
    return state.result_key(ctx.dataset, plan.config) != item.key


def stem(item: Shown, what: str) -> str:
    """File name of a download of the shown run: dataset, workload, ε, seed and what."""
    return run_stem(item.result, what)


def summary_csv(result: ExperimentResult) -> bytes:
    """The explorer's summary.csv: the CLI's (:func:`csv_bytes`, the same digits) with a last
    column saying it is not for publication (:func:`~dpsum_ui.tables.unpublished_frame`).

    Privacy
    -------
    It holds true answers: computed from the data without noise, for choosing settings.
    """
    return csv_bytes(unpublished_frame(result.summary()))


def focus(item: Shown) -> tuple[str, ...]:
    """The algorithms whose bands the answers and error figures draw: the run's algorithms,
    all by default; choosing a few keeps the bands of a six-algorithm run readable."""
    names = tuple(dict.fromkeys(r.algorithm for r in item.result.runs))
    chosen = st.pills(
        "Bands shown", names, selection_mode="multi", default=list(names),
        format_func=label, key=K.EXPLORER_FOCUS,
        help="Draw the bands of these algorithms only (the true answers are always drawn). A "
        "band holds 5–95 % of the simulated answers (how much the noise spreads): it is not "
        "an interval for the true answer, as a release's 95 % interval is.",
    )  # fmt: skip
    return tuple(n for n in names if n in (chosen or ()))


def figure(item: Shown, name: str | tuple, build: Callable[[], go.Figure]) -> go.Figure:
    """A figure of the shown run, built once (once for every session on public data)."""
    return compute.figure((item.key, name), build, item.dataset)


# --------------------------------------------------------------------------------------------
# Sharing
# --------------------------------------------------------------------------------------------
def link_params(item: Shown) -> dict[str, str]:
    """Query-string parameters reproducing the shown run (for uploaded data only a marker,
    see :func:`dpsum_ui.share.config_to_query`)."""
    return share.link_query(item.result.config, item.run.source, iso=bool(state.get(K.ISO)))


def sync_url(item: Shown | None) -> None:
    """Keep the address bar's query string equal to the shown run (a shareable URL)."""
    shell.sync_url(link_params(item) if item is not None else None)


def on_config_upload() -> None:
    """Callback of the settings-file uploader: restore the settings, or say what is wrong."""
    update(ExplorerState, config_error=None)
    file = store.live(K.SHARE_CONFIG_UPLOAD)
    if file is None:
        return
    try:
        shared = share.json_to_settings(file.getvalue(), samples=state.SAMPLE_NAMES)
    except DpsumError as exc:
        error = (f"Could not restore settings from {shell.plain(file.name)}: "
                 f"{shell.plain(exc)}. Your current settings are unchanged.")  # fmt: skip
        # the box is reset (uploader_size): the refused file is not listed as if restored
        update(ExplorerState, config_error=error,
               config_refused=load(ExplorerState).config_refused + 1)  # fmt: skip
        return
    state.apply_config(
        shared.config, sample=shared.sample, column=shared.column, iso=shared.iso,
        id_column=shared.id_column,
    )  # fmt: skip
    if shared.server is not None and not shell.open_server(
        shared.server, shared.column, "settings file", shared.id_column
    ):
        return
    text = f"Settings restored from {shell.plain(file.name)}. Press **Run** to compute the results."
    if shared.uploaded:
        text += (
            " The file was made with uploaded data, which config files never hold: upload the "
            "same data on the Data page first."
        )
    state.notice("success", text)


def share_panel(ctx: state.DataContext, plan: state.Plan) -> None:
    """Link to the shown results, settings file download and restore."""
    item = shown()
    st.markdown("**Link to the results shown**")
    if item is None:
        st.caption("Run once to get a link.")
    else:
        st.code(shell.link_text(link_params(item)), language=None, wrap_lines=True)
        st.caption(shell.LINK_CAPTION + " Opening it reproduces these figures exactly.")
    st.markdown("**Settings file (JSON)**")
    if isinstance(plan, Ready):
        st.download_button(
            "Download settings",
            data=share.settings_to_json(
                plan.config,
                sample=ctx.sample,
                server=ctx.server,
                column=ctx.column,
                id_column=ctx.id_column,
                iso=bool(state.get(K.ISO)),
            ),
            file_name=file_stem(
                ctx.label,
                plan.config.workload,
                f"eps{plan.config.epsilon:g}",
                f"seed{plan.config.seed}",
                "settings",
            )
            + ".json",
            mime="application/json",
            key=K.SHARE_CONFIG_DOWNLOAD,
            on_click="ignore",
            icon=":material/download:",
        )
    else:
        st.caption("Fix the settings to download them.")
    st.file_uploader(
        "Restore settings from a JSON file",
        type=["json"],
        key=K.SHARE_CONFIG_UPLOAD,
        on_change=on_config_upload,
        max_upload_size=uploader_size(load(ExplorerState).config_refused),  # reset on refusal
        help="A file saved here, a bare config.to_json(), or a CLI run.json.",
    )
    oversize.watch_file(K.SHARE_CONFIG_UPLOAD, on_config_too_big)  # refused by the browser


def on_config_too_big() -> None:
    """The browser refused a settings file above the upload limit (:mod:`dpsum_ui.oversize`):
    said as a failed restore is, and the box reset."""
    refused = load(ExplorerState).config_refused
    update(ExplorerState, config_refused=refused + 1,
           config_error=oversize.file_message(oversize.limit_mb(refused), "settings"))  # fmt: skip


# --------------------------------------------------------------------------------------------
# Tabs
# --------------------------------------------------------------------------------------------
def data_preview(ctx: state.DataContext) -> None:
    """Before the first run: the data on the domain's bins (deterministic, no noise), drawn
    only when opened. Closed, the app's first page holds no chart, so opening the app does not
    wait for the browser to load the chart library (about 1 s of a busy machine)."""
    data, domain = ctx.dataset, ctx.domain
    if data is None or domain is None:
        return
    box = st.expander(
        "Your data on the domain's bins, before any noise",
        icon=":material/bar_chart:",
        key=K.EXPLORER_PREVIEW,
        on_change="rerun",
    )
    if box.open:
        with box:
            st.caption("θ is marked after a run (θ and data tab).")
            fig = compute.data_histogram(data, domain)
            widgets.chart(fig, "explorer_data")


THETA_LEGEND_WIDTH = 380  # px: half of the page at 1280 px, less the y axis
WIDE_LEGEND_WIDTH = 760  # px: the page's width at 1280 px, less the y axis
AXIS_LINE_PX = 20  # the second line of an axis title
PHONE_PLOT_PX = 170  # the plot's width on a phone (390 px), for spacing the x tick labels


def fitted(fig: go.Figure) -> go.Figure:
    """A full-width engine figure fitted to the page and to a phone (review 9, at 390 px): the
    legend in rows under the plot (on the right it covered the plot, under the clipped-axis
    note), the subtitle in lines (one line ran past the edge), room for the axis titles' two
    lines, and x tick labels spaced for a phone's plot (:data:`PHONE_PLOT_PX`)."""
    out = figs.legend_below(figs.wrap_subtitle(fig), width=WIDE_LEGEND_WIDTH)
    out = figs.taller(out, AXIS_LINE_PX + figs.PHONE_EXTRA_PX)
    out.update_layout(margin=dict(b=out.layout.margin.b + AXIS_LINE_PX))
    x = np.concatenate([np.asarray(t.x, dtype=float) for t in out.data
                        if t.x is not None and None not in t.x])  # fmt: skip
    if ticks := figs.spaced_ticks(x, PHONE_PLOT_PX):
        out.update_xaxes(tickmode="array", tickvals=ticks,
                         minor=dict(ticks="outside", ticklen=3, dtick="D1", showgrid=False))
    return out


# Said under the explorer's figures of the data without noise (the true answers, the exact
# counts per bin), where they are shown: a screenshot keeps no bottom line of another tab.
UNNOISED = "computed from the data without noise: for choosing settings, not for publication"

# The answers tab's caption: its shading is the noise's spread, not a release's interval for
# the true answer (review 9: in class the two got confused).
ANSWERS_CAPTION = (
    "Lines: the mean of the simulated noisy answers per query. Shaded: 5–95 % of the simulated "
    "answers (how much the noise spreads), not an interval for the true answer like a "
    f"release's 95 % interval. Dashed: the true answer (Fig. 2). The true answer is {UNNOISED}."
)


def theta_tab(item: Shown) -> None:
    """θ chosen in each trial next to the data histogram with θ marked."""
    result = item.result
    trunc = result.config.truncations[0]
    left, right = st.columns(2)
    with left:
        if present.has_batch_theta(result):
            st.caption("θ chosen in each trial (shared by Identity, Workload, TiMM and TaMM).")
            # Half a page wide: the subtitle in lines, the legend under the plot.
            fig = figure(item, "theta", lambda: figs.legend_below(
                figs.wrap_subtitle(theta_figure(result)), width=THETA_LEGEND_WIDTH))  # fmt: skip
            widgets.chart(fig, "explorer_theta", stem=stem(item, "theta"))
        elif trunc == "none":
            st.info("No truncation: θ = ∞ in every trial, nothing is chosen.")
        else:
            st.info("Only SQM ran: it chooses its own θ for every query and trial.")
    with right:
        st.caption(f"The data on the domain's bins (log counts) with θ marked: exact counts, {UNNOISED}.")
        marks = present.theta_marks(result, result.config)
        fig = figure(
            item,
            ("data", tuple(marks)),
            lambda: figs.wrap_subtitle(  # a half-page column: a long subtitle was cut
                data_histogram_figure(item.dataset, result.config.domain, thetas=marks)),
        )
        widgets.chart(fig, "explorer_data", stem=stem(item, "data_histogram"))


def _fitted(table: pd.DataFrame) -> dict:
    """Text columns as wide as their longest cell (:func:`dpsum_ui.tables.text_widths`)."""
    return {c: st.column_config.TextColumn(width=w) for c, w in tables.text_widths(table).items()}


def summary_tab(item: Shown) -> None:
    """Per-algorithm overview, the privacy ledger, and result downloads."""
    result = item.result
    table = compute.figure((item.key, "overview"), lambda: present.overview_table(result),
                           item.dataset)  # fmt: skip
    table, best = present.mark_best(table, iso=bool(state.get(K.ISO)))
    if best:
        st.success(best, icon=":material/trophy:")
    st.markdown(
        "**Per algorithm**: errors in percent, for each query the mean over the trials, "
        "then the median over the queries"
    )
    shown = present.in_percent(table)
    st.dataframe(
        shown,
        hide_index=True,
        column_config={
            **_fitted(shown),
            present.HEADLINE: st.column_config.TextColumn(
                help=headline_definition(), width=tables.text_widths(shown).get(present.HEADLINE)
            ),
            "Median θ": st.column_config.TextColumn(
                help=present.MEDIAN_THETA_HELP, width=tables.text_widths(shown).get("Median θ")
            ),
            "Seconds": st.column_config.NumberColumn(format="%.3f"),
        },
    )
    for note in (present.theta_note(table), present.fallbacks_note(table)):
        if note:
            st.caption(note)
    st.markdown("**Privacy-budget ledger**: ε_θ + ε_m = ε for every algorithm")
    ledger = present.ledger_table(result)
    st.dataframe(
        ledger,
        hide_index=True,
        column_config={
            **_fitted(ledger),
            "ε_θ (choose θ)": st.column_config.NumberColumn(format="%.6g"),
            "ε_m (measure)": st.column_config.NumberColumn(format="%.6g"),
            "ε total": st.column_config.NumberColumn(format="%.6g"),
            "θ chosen by": st.column_config.TextColumn(help=present.CHOSEN_BY_HELP),
        },
    )
    if note := present.rho_note(result):
        st.caption(note)
    st.caption(
        "True answers are shown to evaluate accuracy: this dashboard is for people allowed to "
        "see the data, not a way to publish it (see About). The files below are **not for "
        "publication**; publish with the **Release** page (or `dpsum release` from a shell)."
    )
    with st.container(horizontal=True):
        st.download_button(
            "Results (summary.csv)",
            data=lambda: summary_csv(result),
            file_name=unpublished_name(stem(item, "summary"), "csv"),
            mime="text/csv",
            key=K.SHARE_SUMMARY_CSV,
            on_click="ignore",
            icon=":material/download:",
            help="The CLI's summary.csv, with a last column `notice`. Not for publication: "
            "it holds true answers (its name and that column say so).",
        )
        st.download_button(
            "Run record (run.json)",
            data=lambda: run_json(with_notice(result.run_info())),
            file_name=stem(item, "run") + ".json",
            mime="application/json",
            key=K.SHARE_RUN_JSON,
            on_click="ignore",
            icon=":material/download:",
            help="Config, seed, data provenance, budget, θ per trial, timings, versions, and "
            "the notice that it is not for publication.",
        )
