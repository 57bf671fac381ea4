"""Data: the dataset and column, what cleaning changed, the public domain, the histogram."""

from dataclasses import replace

import streamlit as st

from dpsum_core import limits
from dpsum_core.errors import DataError
from dpsum_core.plots.style import file_stem
from dpsum_core.text import escape_name
from dpsum_ui import compute, explorer, guide, oversize, present, server_data, state, widgets
from dpsum_ui import keys as K
from dpsum_ui.identifiers import (
    column_note,
    index_columns,
    unit_caption,
    unit_caution,
    unit_choices,
    unit_note,
    unit_option,
    value_caution,
)
from dpsum_ui.names import shown_name
from dpsum_ui.state import get, widget
from dpsum_ui.store import live
from dpsum_ui.uploads import UPLOAD_HELP_FORMATS, UPLOAD_TYPES, uploader_size

# The cleaning report's counts are the data's, exact: said in its box, as the sidebar says it.
CLEANING_MARK = "Exact counts, computed without noise: not for publication."

st.title("Data")
st.caption(
    "Pick the numeric column to protect and the public domain [0, U] it lives in. "
    "Everything on this page is deterministic: no noise is drawn here."
)
guide.box("data")


def remove_upload(role: state.Role) -> None:
    """Callback of "Remove this file": stop using the planning upload (the sample is read
    again) or the release upload (the release reads the planning data)."""
    kept = state.data_state()
    if role == "release":
        state.put_data(replace(kept, release_upload=None, release_upload_error=None))
        state.put(K.RELEASE_DATA, "same")
    else:
        state.put_data(replace(kept, upload=None, upload_error=None, pending=None))


def kept_file(role: state.Role, uploader: str, remove: str) -> None:
    """The file in use, with its size and a way to stop using it, while its uploader box is
    empty (Streamlit empties it when the page is left, or when its × is clicked; the file
    stays in use)."""
    kept = state.data_state()
    up = kept.release_upload if role == "release" else kept.upload
    if up is None or live(uploader) is not None:
        return
    st.success(
        f"In use: **{shown_name(up.name)}** · {up.size_text}, kept in this "
        "session's memory only. Upload another file above to replace it.",
        icon=":material/description:",
    )
    st.button("Remove this file", key=remove, on_click=remove_upload, args=(role,),
              icon=":material/close:", type="tertiary")  # fmt: skip


def release_data_section() -> None:
    """The release dataset: the planning data above (default) or another file."""
    st.header("Release dataset")
    st.caption(
        "The data above is the **planning dataset**: the Explorer, Single query, Compare and "
        "Decide pages read it. The **Release** page alone reads the release dataset. Plan on "
        "public, synthetic or an earlier year's data, and keep the private file for the release."
    )
    choices = {"same": "the planning dataset", "sample": "a sample dataset",
               "upload": "an uploaded file"}  # fmt: skip
    widget(st.radio, K.RELEASE_DATA, "Release", options=list(choices),
           format_func=choices.get, horizontal=True)  # fmt: skip
    choice = get(K.RELEASE_DATA)
    if choice == "sample":
        widget(st.selectbox, K.RELEASE_DATA_SAMPLE, "Release sample dataset",
               options=list(state.SAMPLES),
               format_func=lambda name: f"{name} · {state.SAMPLES[name]}")  # fmt: skip
    elif choice == "upload":
        st.file_uploader(
            "Upload the release file (CSV, TSV or Parquet)",
            type=UPLOAD_TYPES,
            key=K.RELEASE_DATA_UPLOAD,
            max_upload_size=uploader_size(state.data_state().refused[1]),  # reset on refusal
            on_change=state.on_release_upload,
            help=f"Up to {limits.MAX_UPLOAD_MB} MB and {limits.MAX_ROWS:,} rows; kept in this "
            f"session's memory only. {UPLOAD_HELP_FORMATS}",
        )
        oversize.watch(K.RELEASE_DATA_UPLOAD, "release")  # refused by the browser: said
        kept_file("release", K.RELEASE_DATA_UPLOAD, K.RELEASE_DATA_UPLOAD_REMOVE)
        if message := state.upload_error("release"):
            st.error(message)
    if state.release_separate():
        rel = state.data_context("release")
        state.ensure_option(K.RELEASE_DATA_COLUMN, rel.columns, fallback=rel.column)
        widget(st.selectbox, K.RELEASE_DATA_COLUMN, "Release column", options=rel.columns)
        rel = state.data_context("release")
        rel_others = [c for c in rel.all_columns if c != rel.column]
        units = [state.ONE_ROW, *unit_choices(rel, rel_others)]
        rel_indexes = index_columns(rel)
        if state.release_unit() not in units:  # not chosen for this file (or a stale column)
            state.put(K.RELEASE_ID_COLUMN, None)
        widget(
            st.selectbox, K.RELEASE_ID_COLUMN, "Release file's unit of privacy (who the "
            "guarantee protects)", options=units,
            format_func=lambda c: unit_option(None if c == state.ONE_ROW else c,
                                              index=c in rel_indexes),
            placeholder="Choose it for this file (the planning file's is not carried over)",
            help="The unit of privacy belongs to the file that is released: if a person can have "
            "several rows in it, choose the column that identifies them.",
            on_change=state.on_release_unit,
        )  # fmt: skip
        chosen = state.release_unit()
        if (unit := unit_caption(None if chosen == state.ONE_ROW else chosen)) is not None:
            st.caption(unit)
        rel = state.data_context("release")
        if rel.error:
            st.error(rel.error)
        else:
            st.caption(
                f"Release reads {shown_name(rel.label)} · "
                f"{escape_name(rel.column, 'markdown')}, with the public domain on the "
                "right; nothing from it is shown on the planning pages."
            )
    else:
        st.warning(
            "Planning and release use the same file: choosing settings by looking at true "
            "errors on the private data is not covered by the privacy guarantee. Plan on "
            "public or synthetic data when you can.",
            icon=":material/warning:",
        )


data_col, domain_col = st.columns([1, 1.15], gap="large")

with data_col:
    st.header("1 · Dataset")
    root = server_data.data_dir()  # None unless the person running the server configured it
    sources = {"sample": "a sample dataset", "upload": "an uploaded file"}
    if root is not None:
        sources["server"] = "a server dataset"
    state.ensure_option(K.DATA_SOURCE, list(sources))
    widget(st.radio, K.DATA_SOURCE, "Use", options=list(sources), format_func=sources.get,
           horizontal=True, on_change=state.on_source)  # fmt: skip
    source = get(K.DATA_SOURCE)
    if root is not None and source == "server":
        try:
            offered = server_data.listing(root)
        except DataError as exc:
            st.error(escape_name(f"{exc}: ask whoever runs this server to check DPSUM_DATA_DIR.", "markdown"))
            offered = server_data.Listing(())
        listed = list(offered.names)
        state.ensure_option(K.DATA_SERVER, listed)
        widget(
            st.selectbox,
            K.DATA_SERVER,
            "Server dataset (a Parquet/CSV file or a folder of them)",
            options=listed,
            on_change=state.on_server,
            help="Only what lies inside the data directory chosen by whoever started the server.",
        )
        widget(
            st.text_input,
            K.DATA_SERVER_PATH,
            "…or a path inside the data directory",
            placeholder="e.g. census/2020",
            on_change=state.on_server,
            help="Relative to the data directory; paths leading outside it are refused.",
        )
        if (refused := state.data_context().data_error) is not None:
            st.error(refused)  # next to the field that caused it
        if offered.skipped or offered.more:
            notes = [*offered.skipped[:5]]
            if len(offered.skipped) > 5:
                notes.append(f"{len(offered.skipped) - 5:,} more entries skipped")
            if offered.more:
                notes.append(
                    f"{offered.more:,} entries after the first {len(listed):,} not listed: "
                    "type a path"
                )
            st.caption(escape_name("Not offered: " + "; ".join(notes) + ".", "markdown"))
        st.caption(
            "🔒 Read on this server through DuckDB: only a summary (counts and exact sums at "
            "the bin edges, the largest values) is computed and kept in this session only. "
            "Links and settings files carry the dataset's name inside the data directory and "
            "its column (they open it on this server only), never the data."
        )
    elif source == "upload":
        st.file_uploader(
            "Upload a file (CSV, TSV or Parquet)",
            type=UPLOAD_TYPES,
            key=K.DATA_UPLOAD,
            max_upload_size=uploader_size(state.data_state().refused[0]),  # reset on refusal
            on_change=state.on_upload,
            help=f"Up to {limits.MAX_UPLOAD_MB} MB and {limits.MAX_ROWS:,} rows. "
            f"{UPLOAD_HELP_FORMATS}",
        )
        oversize.watch(K.DATA_UPLOAD, "planning")  # a file the browser refused: said below
        kept_file("planning", K.DATA_UPLOAD, K.DATA_UPLOAD_REMOVE)
        st.caption(
            "🔒 An uploaded file stays in this session's memory only: it is not saved to disk "
            "by dpsum and never put in a URL or a settings file."
        )
        if message := state.upload_error("planning"):
            st.error(message)
            st.caption(
                "Your previous data is still loaded." if state.has_upload()
                else "The sample stays loaded until a file can be read."
            )  # fmt: skip
        elif not state.has_upload():
            st.info("No file uploaded yet: upload one above. Until then the sample stays loaded.")
    else:
        widget(
            st.selectbox,
            K.DATA_SAMPLE,
            "Sample dataset",
            options=list(state.SAMPLES),
            format_func=lambda name: f"{name} · {state.SAMPLES[name]}",
            help="Fully synthetic, income-like data (see sample_data/README.md).",
        )

    ctx = state.data_context()
    state.ensure_option(K.DATA_COLUMN, ctx.columns, fallback=ctx.column)
    widget(
        st.selectbox,
        K.DATA_COLUMN,
        "Numeric column",
        options=ctx.columns,
        help="Only columns holding numbers are listed, the most numeric first.",
    )
    ctx = state.data_context()
    if (why := column_note(ctx)) is not None:
        st.caption(escape_name(why, "markdown"))
    if (caution := value_caution(ctx)) is not None:  # chosen by hand too (review P2-6)
        st.warning(caution, icon=":material/warning:")
    others = unit_choices(ctx, [c for c in ctx.all_columns if c != ctx.column])
    indexes = index_columns(ctx)  # an index or a count: offered last, saying so
    chosen = get(K.DATA_ID_COLUMN)
    # A chosen identifier that is now the value column stays shown: the engine refuses it
    # with a message, rather than the unit changing silently to one row per person.
    stale = [chosen] if chosen is not None and chosen not in others else []
    widget(
        st.selectbox,
        K.DATA_ID_COLUMN,
        "Unit of privacy (who the guarantee protects)",
        options=[None, *others, *stale],
        format_func=lambda c: unit_option(c, index=c in indexes),
        # None (one row per person) is both an option and the state's value; Streamlit shows a
        # None value as the placeholder, so the placeholder says what None means.
        placeholder="One row per person",
        help="If a person can have several rows (jobs, months, years), choose the column that "
        "identifies them: their rows are summed into one value before clipping to [0, U], and "
        "the guarantee then covers the whole person, not one row.",
    )
    if (unit := unit_caption(get(K.DATA_ID_COLUMN))) is not None:
        st.caption(unit)
    ctx = state.data_context()
    if (few := unit_caution(ctx)) is not None:  # e.g. 'school': 3,000 rows → 4 (review 9 P2-6)
        st.warning(few, icon=":material/warning:")
    if (people := unit_note(ctx)) is not None:
        st.warning(people, icon=":material/group:")

    st.header("Cleaning report")
    if ctx.dataset is not None:
        report = ctx.dataset.report
        box = st.warning if report.changed else st.success
        box("  \n".join([*report.lines(), f"*{CLEANING_MARK}*"]))  # marked where it is read
        st.caption(
            "Why: a record needs a finite number, so empty, non-numeric and infinite cells are "
            "dropped; the domain is [0, U], so values below 0 are set to 0 and values above U "
            "are set to U; a '$' sign, '_' and spaces are removed from numbers written as text "
            "($1,234.50 is read as 1234.5), and a number written with a decimal comma or "
            "thousands separators is read from its own cell (where both formats could read it, "
            "from the file's delimiter: ';' files write decimal commas). This is a fixed public "
            "rule applied to each record on its own, so it costs no privacy — and nothing is changed silently. With a column "
            "identifying people, the usable rows of each person are summed first, and the "
            "person's total is what is clipped: rows without an identifier are dropped."
        )
    elif ctx.data_error and ctx.source == "server":
        st.caption("No cleaning report: the server dataset above cannot be used.")
    elif ctx.data_error:
        st.error(ctx.data_error)
    else:
        st.info("The cleaning report appears once the domain is valid (see the domain).")
    release_data_section()

with domain_col:
    st.header("2 · Public domain")
    st.info(
        "**The domain must be public knowledge.** Choose U and the bins from what anyone may "
        "know (a legal maximum, a published range, a previous year), never from this data: "
        "e.g. U = the data's maximum would reveal the largest value.",
        icon=":material/public:",
    )
    upper = get(K.DOMAIN_UPPER)
    if pending := state.domain_pending():
        st.warning(
            f"**Set U for {shown_name(pending)}.** {state.u_still()}, "
            "which rarely suits another column. Enter a public upper "
            "bound for this column below, or keep this one if it is right.",
            icon=":material/edit:",
        )
    widget(
        st.number_input,
        K.DOMAIN_UPPER,
        "Upper bound U (values above it are set to U)",
        step=widgets.upper_step(upper),
        format="%g",
        help=f"Between {limits.MIN_UPPER:g} and {limits.MAX_UPPER:g}.",
        on_change=state.on_upper,
    )
    if pending and get(K.DOMAIN_UPPER) is not None:
        st.button(
            f"Keep U = {get(K.DOMAIN_UPPER):,.6g}",
            key=K.DOMAIN_KEEP,
            on_click=state.domain_confirmed,
            help="U stays as it is; only do this if it is a public bound for this column.",
        )
    widget(
        st.radio,
        K.DOMAIN_BINS_MODE,
        "Bins",
        options=["bins", "width"],
        format_func={"bins": "set the number of bins", "width": "set the bin width"}.get,
        horizontal=True,
    )
    if get(K.DOMAIN_BINS_MODE) == "width":
        widget(st.number_input, K.DOMAIN_WIDTH, "Bin width", step=100.0, format="%g")
    else:
        widget(
            st.number_input,
            K.DOMAIN_BINS,
            "Number of bins n",
            step=100,
            help=f"1 to {limits.MAX_BINS:,}; the paper uses 1000 bins of width 800.",
        )
    widget(
        st.radio,
        K.DOMAIN_WEIGHTS,
        "Bin weight rule v_j (the value each bin's records count as)",
        options=["upper", "midpoint"],
        format_func={
            "upper": "upper edge e_j (paper)",
            "midpoint": "midpoint (e_(j−1) + e_j)/2",
        }.get,
        horizontal=True,
    )
    ctx = state.data_context()
    if ctx.domain_error:
        st.error(ctx.domain_error)
    elif ctx.data_error:
        st.error(ctx.data_error)
    elif ctx.domain is not None:
        d = ctx.domain
        if ctx.domain_note:
            st.caption(ctx.domain_note)
        st.markdown(
            f"{d.bins:,} bins of width {d.width:,.6g} on [0, {d.upper:,.6g}]: bin j covers "
            f"(e_(j−1), e_j] with e_j = j·{d.width:,.6g}; the value 0 falls in bin 1."
        )
        for message in state.domain_fit_warnings(ctx):
            st.warning(message, icon=":material/warning:")
        if state.domain_fit_warnings(ctx):
            st.caption(
                "These warnings look at your data, so they are shown to you only: use them "
                "to check U against what is publicly known, not to read U off the data."
            )

st.header("3 · Histogram")
dataset, domain = ctx.dataset, ctx.domain
if dataset is not None and domain is not None:
    plan = state.plan(ctx)
    item = explorer.shown()
    last = item.result if item and item.key[0] == dataset.fingerprint else None
    marks = present.theta_marks(last, plan.config if get(K.TRUNCATION) == "fixed" else None)
    fig = compute.data_histogram(dataset, domain, marks)
    widgets.chart(
        fig,
        "data_histogram",
        stem=file_stem(
            dataset.name, dataset.column, f"U{domain.upper:g}", f"bins{domain.bins}", "histogram",
        ),
    )  # fmt: skip
    if not marks:
        st.caption(
            "Run the Workload explorer with SVT or Recursive (or pick a fixed θ) to see θ here."
        )
else:
    st.info("Fix the problem above to see the histogram.")
