"""Workload explorer: settings, a Run button, then the paper's figures for the last run."""

import streamlit as st

from dpsum_core.plots.results import (
    answers_figure,
    expected_error_figure,
    isotonic_figure,
    relative_error_figure,
)
from dpsum_ui import (
    explorer,
    furniture,
    guide,
    present,
    reproduce,
    shell,
    state,
    widgets,
)  # fmt: skip
from dpsum_ui import keys as K
from dpsum_ui.names import shown_name


def settings_panel(ctx: state.DataContext) -> state.Plan:
    """Workload, ε, ρ, truncation, algorithms; Run, trials, seed, isotonic, parameters, share."""
    panel = furniture.settings_panel(ctx, describe_workload=True)
    with panel.box:
        bar = furniture.run_bar(
            "Run", K.EXPLORER_RUN, share_key=K.EXPLORER_SHARE,
            parameters=(K.EXPLORER_PARAMETERS, panel.methods),
        )  # fmt: skip
        if bar.clicked or explorer.link_run():
            explorer.run(ctx, panel.plan)
    with bar.share:  # filled after the run, so that the link is the new run's
        explorer.share_panel(ctx, panel.plan)
    return panel.plan


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
    for warning in result.warnings():
        st.warning(warning[0].upper() + warning[1:] + ".", icon=":material/warning:")
    trunc = result.config.truncations[0]
    tail = f"{trunc}{'_iso' if iso else ''}"
    answers, error, isotonic, theta, expected, summary = st.tabs(
        list(explorer.TABS), key=K.EXPLORER_TAB, on_change="rerun"
    )
    if answers.open:
        with answers:
            st.caption(explorer.ANSWERS_CAPTION)
            shown = explorer.focus(item)
            fig = explorer.figure(
                item, ("answers", iso, shown),
                lambda: explorer.fitted(answers_figure(result, trunc, iso=iso, algorithms=shown)),
            )  # fmt: skip
            widgets.chart(fig, "explorer_answers", stem=explorer.stem(item, f"answers_{tail}"))
    if error.open:
        with error:
            st.caption("Relative error |ŷ − y| / max(y, δ): mean and 5–95 % band (Fig. 3).")
            shown = explorer.focus(item)
            fig = explorer.figure(
                item, ("error", iso, shown),
                lambda: explorer.fitted(
                    relative_error_figure(result, trunc, iso=iso, algorithms=shown)),
            )  # fmt: skip
            widgets.chart(fig, "explorer_error", stem=explorer.stem(item, f"error_{tail}"))
    if isotonic.open:
        with isotonic:
            st.caption("The same errors without and with isotonic regression (Fig. 4).")
            fig = explorer.figure(item, "isotonic", lambda: isotonic_figure(result, trunc))
            widgets.chart(fig, "explorer_isotonic", stem=explorer.stem(item, f"isotonic_{trunc}"))
    if theta.open:
        with theta:
            explorer.theta_tab(item)
    if expected.open:
        with expected:
            clamp = any(r.algorithm == "clampshells" for r in result.runs)
            st.caption(
                "Analytic expected RMSE (dotted, no sampling) over the simulated RMSE of the "
                f"{result.config.trials} trials (solid): they agree within the trials' noise "
                "where the model is exact."
                + (
                    " ClampShells' model leaves out its tail scan (it cannot be written in "
                    "closed form), so at small ε its dotted line can lie far below the solid "
                    "one at small τ (up to about 100×): trust the simulated line there."
                    if clamp else ""
                )
            )
            fig = explorer.figure(
                item, "expected", lambda: expected_error_figure(result, trunc)
            )
            widgets.chart(fig, "explorer_expected", stem=explorer.stem(item, f"expected_{trunc}"))
    if summary.open:
        with summary:
            explorer.summary_tab(item)


st.title("Workload explorer")
st.caption(
    "A workload of prefix sums answered under ε-differential privacy by the paper's five "
    "algorithms, RawSum (raw sums, θ chosen after measuring) and ClampShells (θ located by the "
    "algorithm). Choose, press **Run**, read "
    "the figures; the same seed gives the same figures."
)
guide.box("explorer")
explorer.show_notices()
ctx = state.data_context()
shell.recap(ctx)
if not shell.needs_data(ctx) and (pending := state.domain_pending()):  # settings stay editable
    st.warning(f"Set the public upper bound U for {shown_name(pending)} on the Data page before "
               "running.")  # fmt: skip
    st.page_link("app_pages/data.py", label="Set U on the Data page", icon=":material/edit:")
plan = settings_panel(ctx)
shown = explorer.shown()
explorer.sync_url(shown)
if shown is not None:
    results(shown, ctx, plan)
    config = shown.result.config  # the shown run's exact settings, seed included
    name, column = shown.result.dataset_name, shown.result.dataset_column
    id_column = shown.result.cleaning.get("id_column")
    path = (
        reproduce.data_path(ctx.source, sample=ctx.sample, server=ctx.server)
        if name == ctx.label  # else the data changed since the run: name the run's own data
        else reproduce.data_path("sample" if name in state.SAMPLES else "upload", sample=name,
                                 server=None)
    )  # fmt: skip
    shell.reproduce_panel(
        reproduce.run_command(config, path=path, column=column, id_column=id_column),
        reproduce.run_python(config, path=path, column=column, id_column=id_column),
        what="this run (the same seed gives the same summary.csv)",
    )
else:
    st.info(
        "Press **Run** to simulate the chosen algorithms. Nothing random happens until you do, "
        "and changing a setting never redraws noise."
    )
    explorer.data_preview(ctx)
