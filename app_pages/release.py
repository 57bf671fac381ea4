"""Release: publish one private release of the explorer's configuration, against a kept budget.

Nothing on this page shows a true answer: the expected error before confirming and the Data
page's warnings on how U fits the data (how many values lie above U) are the only numbers
computed from the data without noise, both for the custodian's eyes only; after the release
only the private answers, the released θ and the budget are shown.
"""

import streamlit as st

from dpsum_core import limits
from dpsum_core.errors import DpsumError
from dpsum_core.mechanisms.registry import label
from dpsum_core.publish.bands import band_lines
from dpsum_core.publish.ledger import Ledger
from dpsum_core.publish.release import PUBLISHED_DIGITS, decimal_text
from dpsum_core.publish.report import (
    cap_truncation,
    cap_words,
    isotonic_words,
    theta_words,
    workload_used,
    zero_onset,
)
from dpsum_core.simulate.cost import TooHeavy
from dpsum_core.text import counted, escape_name, large_epsilon, query_words
from dpsum_ui import (
    guide,
    identifiers,
    oversize,
    release,
    release_words,
    reproduce,
    shell,
    state,
    store,
    widgets,
)
from dpsum_ui import keys as K
from dpsum_ui.names import name_help


def _fits(book: Ledger, epsilon: float) -> bool:
    try:
        book.check(epsilon)
    except DpsumError:
        return False
    return True


st.title("Release")
st.caption(
    "Publish private answers of the configuration you explored: one algorithm, one "
    "truncation method, one draw of noise from OpenDP's samplers (no seed: nobody can "
    "reproduce it), recorded in this dataset's privacy-budget ledger."
)
guide.box("release")
for kind, note in release.messages():
    getattr(st, kind)(note)

release.show_plan(None)  # until this run's plan is made: the sidebar names no settings
ctx = state.data_context("release")  # the release dataset: this page alone reads it
shell.recap(ctx, algorithms=True)
if shell.needs_data(ctx) or ctx.dataset is None:  # no dataset comes with an error
    st.stop()
data = ctx.dataset
if state.domain_pending():
    todo = release.missing(ctx)
    st.warning("Before a release can be made:\n\n" + "\n".join(f"- {m}" for m in todo))
    st.page_link("app_pages/data.py", label="Go to the Data page", icon=":material/table_chart:")
    st.stop()

# ---- 1. What will be released --------------------------------------------------------------
st.header("1. What will be released")
algorithms = release.algorithm_options(ctx)
if (rec := state.recommended(ctx)) is not None:
    widgets.recommendation(rec)
# The explorer's algorithm when it has exactly one, else the recommended one; set again when
# that changes (another explorer choice), kept while it does not (a choice made here).
default = release.default_algorithm(ctx)
release.restore(K.RELEASE_ALGORITHM)  # back from another page: the choice made here
store.offer(K.RELEASE_ALGORITHM, default)
release.take_carried(algorithms)  # once after Decide's "Use ε = … on the Release page"
if store.live(K.RELEASE_ALGORITHM) not in algorithms:
    store.set_live(K.RELEASE_ALGORITHM, default)
left, middle, right = st.columns(3)
with left:
    best = rec.algorithm if rec is not None else None
    algorithm = st.selectbox(
        "Algorithm", algorithms, key=K.RELEASE_ALGORITHM,
        format_func=lambda a: f"★ {label(a)} (auto)" if a == best else label(a),
        help="Exactly one algorithm: each release spends its own ε. It starts on the "
        "explorer's algorithm when one alone is chosen there, otherwise on ★ (auto): the one "
        "recommended from public inputs, what `dpsum release --algorithm auto` runs. The "
        "release names the algorithm it ran.",
    )  # fmt: skip
truncations = release.truncation_options(algorithm)
release.restore(K.RELEASE_TRUNCATION)
if store.live(K.RELEASE_TRUNCATION) not in truncations:
    store.set_live(K.RELEASE_TRUNCATION, truncations[0])
with middle:
    truncation = st.selectbox(
        "Truncation", truncations, key=K.RELEASE_TRUNCATION, format_func=release.truncation_label,
        help="RawSum (after measuring) and ClampShells (with its own share of ε) choose θ "
        "themselves, so they have no method to pick.",
    )  # fmt: skip
with right:
    release.restore(K.RELEASE_ISO)
    store.seed_live(K.RELEASE_ISO, bool(state.get(K.ISO)))
    iso = st.toggle("Isotonic regression", key=K.RELEASE_ISO,
                    help="Post-processing: free. The 95 % intervals are built from the answers "
                    "before it (widened to hold the published ones).")  # fmt: skip
release.keep(K.RELEASE_ALGORITHM, K.RELEASE_TRUNCATION, K.RELEASE_ISO)  # what is shown now

public_cap = None
if algorithm in ("clampshells", "auto"):
    release.restore(K.RELEASE_PUBLIC_CAP)
    store.seed_live(K.RELEASE_PUBLIC_CAP, None)  # else empty, not 0
    public_cap = st.number_input(
        "Public cap (optional)", format="%g",  # no minimum: -5 is echoed
        key=K.RELEASE_PUBLIC_CAP, placeholder="none: ClampShells locates θ from the data",
        help="A documented top code of this column (e.g. a survey's published cap), at most "
        "U: ClampShells then clamps there and spends all of ε on the answers. It must be "
        "public knowledge, never read off this data; the report says it was given.",
    )  # fmt: skip
    release.keep(K.RELEASE_PUBLIC_CAP)
try:
    plan = release.make_plan(ctx, algorithm, truncation, iso, public_cap)
except DpsumError as exc:
    if public_cap is not None:
        st.error(f"{str(exc)[0].upper()}{str(exc)[1:]}. Change or clear the public cap.")
        st.stop()
    st.error(f"{exc}. Change the settings on the Workload explorer page.")
    st.page_link("app_pages/explorer.py", label="Workload explorer", icon=":material/insights:")
    st.stop()

release.show_plan(plan)  # the sidebar shows the settings this release uses
config = plan.config
used, moved = workload_used(config.to_dict())  # explicit thresholds moved to bin edges: said
st.markdown(
    f"Workload **{used}** over [0, {config.upper:,.6g}] in {config.bins:,} bins · "
    f"**ε = {plan.epsilon:g}** (ε_θ = {plan.epsilon_theta:g} on θ + ε_m = "
    f"{plan.epsilon_measure:g} on the measurement)"
    + (f" · public cap {config.public_cap:,.6g} (given, not read from the data)"
       if config.public_cap is not None else "")
    + ". " + (f"{moved[0].upper()}{moved[1:]}. " if moved else "")
    + release.origin_words(ctx, algorithm, truncation)
)
st.caption(f"Queries: {query_words(ctx.id_column is not None)}.")  # per row or per person
release.restore(K.RELEASE_BANDS)
st.text_input(
    "Totals by band (optional)", key=K.RELEASE_BANDS, placeholder="e.g. 0-500, 500-1000",
    help="Bands LOW-HIGH, comma separated, as `dpsum release --bands`: the total of the values "
    "in (LOW, HIGH], with a 95 % interval, listed under the answers and in the files. Each "
    "edge is 0 or a threshold τ of the workload. Computed from the released answers: no ε.",
)  # fmt: skip
release.keep(K.RELEASE_BANDS)
band_error: str | None = None
wanted: release.Bands = ()
try:
    wanted = release.bands(plan)
except DpsumError as exc:  # said before anything is spent; the Release button waits
    band_error = f"Totals by band: {exc}. Correct the bands or clear the field."
    st.error(band_error)
if carried := release.carried_words(plan):
    st.info(carried, icon=":material/target:")
if capped := cap_words(plan):  # before anything is spent: the cap the user typed moves up
    st.warning(f"{capped[0].upper()}{capped[1:]}.")
if large := large_epsilon(plan.epsilon):  # the explorer's warning, where ε is spent
    st.warning(
        f"{large}. Lower ε on the Workload explorer page unless this is what you mean to publish.",
        icon=":material/warning:",
    )

# The Data page's warnings on how U fits the data (a U that clips most values makes the
# expected error below look small): computed from the data, for the custodian only, as it is.
for message in state.domain_fit_warnings(ctx):  # said to be private, like the estimate
    st.warning(f"For you only (computed from the data, without noise; never publish it): {message}",
               icon=":material/warning:")
estimated = None
try:
    estimated = release.estimate(data, plan)
except TooHeavy as exc:  # priced before it runs, like every click
    st.error(f"The expected error of this plan was not computed: {exc}.")
except DpsumError as exc:  # e.g. a server dataset needing more points than one pass fetches
    st.warning(
        f"The expected error of this plan could not be computed ({exc}); the release itself "
        "does not need it."
    )
if estimated is not None:
    st.markdown(f"{release_words.expected_words(estimated, ctx.column)} {release_words.interval_words(plan)}")
    st.caption(release_words.planning_caption("the typical error of an answer (RMSE)"))
if opened := release_words.open_warning(plan):  # said before releasing, as after it
    st.warning(opened)
if estimated is not None:
    with st.expander("Expected error per query (for you only: it is computed from the data)"):
        st.dataframe(release_words.estimate_table(estimated), hide_index=True, width="stretch")

# ---- 2. The budget ---------------------------------------------------------------------------
st.header("2. The dataset's budget")
book = release.ledger()
store.seed_live(K.RELEASE_TOTAL, book.total)
budget, upload = st.columns([1, 2])
with budget:
    total = st.number_input(
        "Total ε for this dataset", min_value=limits.EPSILON_MIN, format="%g",
        key=K.RELEASE_TOTAL, placeholder="set a total",
        help="Every release from this dataset spends from this total; over it, releases are "
        "refused.",
    )  # fmt: skip
with upload:
    st.file_uploader(
        "Continue from a ledger you downloaded", type=["json"], key=K.RELEASE_LEDGER_UPLOAD,
        on_change=release.on_ledger_upload, args=(ctx,),
        max_upload_size=release.ledger_box_size(),  # reset when a ledger was refused
    )  # fmt: skip
    oversize.watch_file(K.RELEASE_LEDGER_UPLOAD, release.on_ledger_too_big)  # browser-refused
if book.total is not None and total is not None and total > book.total:  # raised, never lowered
    st.checkbox(
        f"{release.RAISE_BOX} from ε = {decimal_text(book.total)} to "
        f"{decimal_text(total)} (recorded in the ledger: old total, new total, time)",
        key=K.RELEASE_RAISE,
    )  # fmt: skip
shown_total = book.total if book.total is not None else total
remaining = book.remaining(shown_total) if shown_total is not None else None
if not book.releases:  # a reload or a new tab starts here: say it is a new budget
    st.info("This session holds no ledger yet: its budget starts at ε = 0. If this dataset "
            "was released before (here or with `dpsum release --ledger`), upload that ledger "
            "above first, or the spend would not be counted against its total.",
            icon=":material/info:")
st.markdown(
    f"Spent so far: **ε = {decimal_text(book.spent)}** in {counted(len(book.releases), 'release')}"
    + (
        f" · remaining **{decimal_text(remaining)}** of {decimal_text(shown_total)}"
        if remaining is not None and shown_total is not None
        else ""
    )
)
if book.releases:
    st.dataframe(release_words.ledger_table(book), hide_index=True, width="stretch")
st.download_button(
    "Download the ledger (keep it: upload it next time)", release.ledger_json(book),
    file_name="dpsum_ledger.json", mime="application/json", key=K.RELEASE_LEDGER_DOWNLOAD,
    icon=":material/download:",
)  # fmt: skip

path = reproduce.data_path(ctx.source, sample=ctx.sample, server=ctx.server)
shell.reproduce_panel(
    reproduce.release_command(
        plan, path=path, column=ctx.column, budget=shown_total, id_column=ctx.id_column,
        # the CLI asks a release of several columns to declare its unit (cli._declared)
        one_row_per_person=ctx.id_column is None and len(ctx.all_columns) > 1, bands=wanted,
    ),
    reproduce.release_python(plan, path=path, column=ctx.column, id_column=ctx.id_column),
    what="this release's configuration (a new draw of noise: no seed, by design)",
)

# ---- 3. Confirm and release ------------------------------------------------------------------
st.header("3. Confirm and release")
st.markdown(
    "**Unit of privacy: not chosen for the release file.** Choose it on the Data page."
    if not ctx.unit_chosen else
    f"**Unit of privacy: {ctx.unit_of_privacy}.** The guarantee covers adding or removing "
    + ("one row: if a person can have several rows, choose the column that identifies them on "
       "the Data page." if ctx.id_column is None
       else "one person, all their rows together (summed before clipping to [0, U]).")
)  # fmt: skip
if found := release.id_suspects(ctx):
    st.checkbox(
        f"One row is one person in this file: {', '.join(found)} "
        "(repeated values) does not identify people.",
        key=K.RELEASE_ONE_ROW_SURE, on_change=identifiers.on_one_row_sure, args=(ctx,),
    )  # fmt: skip
st.checkbox(
    "This is the unit of privacy of this dataset (who the guarantee protects).",
    key=K.RELEASE_UNIT_CONFIRM, disabled=release.unit_unsettled(ctx) is not None,
)
over = band_error
if todo := release.missing(ctx):
    over = "Before a release can be made:\n\n" + "\n".join(f"- {m}" for m in todo)
    st.info(over)
# The budget is checked as soon as a total is set (the unit may still be unconfirmed).
if store.live(K.RELEASE_TOTAL) is not None:
    try:
        settled = release.settled(ctx, data)
    except DpsumError as exc:  # another dataset's ledger, a lowered total, a raise not ticked
        over = f"{str(exc)[0].upper()}{str(exc)[1:]}."
        st.error(over)
    else:
        budget_left = settled.remaining()
        if budget_left is not None and not _fits(settled, plan.epsilon):
            over = (
                f"Not enough budget left for this release: ε = {decimal_text(plan.epsilon)} "
                f"asked, {decimal_text(budget_left)} of {decimal_text(settled.total or 0)} left. "
                f"Lower ε to at most {decimal_text(budget_left)} on the Workload explorer page "
                "(type it in the field under the ε slider), or raise the total above."
            )
            st.warning(over)
if band_error is not None:  # said next to the greyed controls, not only up in section 1
    st.warning(release.BAND_BLOCKS, icon=":material/block:")
if (caution := identifiers.value_caution(ctx, choose_in="on the Data page")) is not None:
    st.warning(caution, icon=":material/warning:")  # uilinks: as on the Data page (P2-6)
if (few := identifiers.unit_caution(ctx, choose_in="on the Data page")) is not None:
    st.warning(few, icon=":material/warning:")  # as on the Data page (review 9 P2-6)
confirmed = st.checkbox(
    f"I understand that this spends ε = {decimal_text(plan.epsilon)} of this dataset's budget"
    + (f" on the sums of {escape_name(repr(data.column), 'markdown')}" if data.column else "")
    + ", once, and cannot be undone.",
    key=K.RELEASE_CONFIRM, disabled=over is not None,
)  # fmt: skip
st.button(
    "Release", key=K.RELEASE_GO, type="primary", icon=":material/publish:",
    disabled=not confirmed or over is not None, on_click=release.on_release,
    args=(ctx, data, plan, wanted),
)  # fmt: skip

# ---- The release -----------------------------------------------------------------------------
rel = release.last()
if rel is not None:
    elsewhere = release.made_elsewhere(rel, data, ctx)
    st.header("The release" if elsewhere is None else "The earlier release (other data)")
    if elsewhere is not None:
        st.warning(elsewhere, icon=":material/history:")
    st.markdown(release.release_of(rel), help=name_help(release.last_data()[0]))
    c = rel.config
    theta = rel.theta
    shown_theta = (
        f"{len(theta)} values, one per query" if isinstance(theta, list)
        else theta_words(theta, float(c["upper"]), digits=6, algorithm=c["algorithm"])
    )  # fmt: skip
    st.markdown(
        f"{label(c['algorithm'])}, truncation: "
        f"{cap_truncation(c, short=True) or release.truncation_label(c['truncation'])}, "
        f"workload {workload_used(c)[0]}, "
        f"ε = {decimal_text(rel.budget['total'])} · released θ: {shown_theta} · "
        f"created {rel.created}"
    )
    st.caption(f"Queries: {query_words(rel.id_column is not None)}.")  # what each answer sums
    if opened := release_words.open_words(rel):
        st.warning(opened)
    if zero := zero_onset(rel, files=False):  # the report's words: why the first answers are 0
        st.caption(zero)
    st.dataframe(release_words.answers_table(rel), hide_index=True, width="stretch")
    if marked := release_words.answers_note(rel):  # the report's † note, under its table
        st.caption(marked)
    st.caption(
        "95 % interval [lower end, upper end]: it holds its true answer with probability at "
        "least 95 % (each on its own: about 1 in 20 may miss), noise and the algorithm's bias "
        "included (the upper end is open, \"[…, open)\", where the "
        "release cannot bound the bias). No ± of the noise alone is published: next to a "
        "biased answer it would read as an interval that can miss the truth. Rounded as in "
        "the report (two significant digits of each interval's half-width); the answers.csv "
        f"download holds them to {PUBLISHED_DIGITS} significant digits."
        + (f" Isotonic regression: {isotonic_words(True)}" if c["isotonic"] else "")
    )
    if table := band_lines(rel, list(release.last_bands())):  # the report's own table
        st.subheader(table[0].removeprefix("## "))
        st.markdown("\n".join(table[1:]))
    bands = release.bands_csv(rel)
    a, b, r1, r2, *more = st.columns(4 if bands is None else 5)
    made, source = release.last_data()  # the release's own data, whatever is selected now
    page, text, stem = release.report_files(rel, made, source)
    a.download_button(
        "answers.csv", release.answers_csv(rel), file_name=f"{stem}_answers.csv", mime="text/csv",
        key=K.RELEASE_ANSWERS_CSV, icon=":material/download:",
    )  # fmt: skip
    b.download_button(
        "release.json", release.record_json(rel, source), file_name=f"{stem}_release.json",
        mime="application/json", key=K.RELEASE_RECORD_JSON, icon=":material/download:",
    )  # fmt: skip
    r1.download_button(
        "report.html", page, file_name=f"{stem}_report.html", mime="text/html",
        key=K.RELEASE_REPORT_HTML, icon=":material/download:",
    )  # fmt: skip
    r2.download_button(
        "report.md", text, file_name=f"{stem}_report.md", mime="text/markdown",
        key=K.RELEASE_REPORT_MD, icon=":material/download:",
    )  # fmt: skip
    if bands is not None:  # as --bands writes it, beside answers.csv
        more[0].download_button(
            "bands.csv", bands, file_name=f"{stem}_bands.csv", mime="text/csv",
            key=K.RELEASE_BANDS_CSV, icon=":material/download:",
        )  # fmt: skip
