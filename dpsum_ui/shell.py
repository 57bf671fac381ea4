"""The frame around every page: restoring settings from a link, the sidebar summary, notices."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import streamlit as st

from dpsum_core import limits
from dpsum_core.errors import DpsumError
from dpsum_core.mechanisms.registry import label, truncation_label
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import duration
from dpsum_core.text import counted, number, unit_nouns

from . import compute, guide, page_state, release_words, share, state
from . import keys as K
from .names import name_help, short_name
from .page import Link, Page
from .store import LINK_CHECKED, first_time, take_notice

# What can turn text echoed mid-sentence into formatting, a link or an image, LaTeX, a coloured
# span (":red[…]") or a table: escaping these keeps the text as typed.
_MARKDOWN = re.compile(r"([\\`*_\[\]<>~$|])")


def plain(text: object) -> str:
    """``text`` with Markdown's special characters escaped: what a link, a settings file or
    an error message echoes back (a dataset or column name, a value) is shown as typed, never
    rendered — a crafted link cannot put an image (a request to another site) or a
    formatted message in a notice."""
    return _MARKDOWN.sub(r"\\\1", str(text))


# What a link holds, by source (dpsum_ui.share): shown next to every link.
LINK_CAPTION = (
    "The link carries the settings, the seed and which data: a sample's name, or a server "
    "dataset's name inside this server's data directory (it opens only here), each with its "
    "column. **Uploaded data is never put in a URL**, not even its column: a link made with "
    "an uploaded file asks for the file again."
)


def restore_from_link(page: Page) -> None:
    """Once per session: apply the configuration and view carried by the URL, if any.

    ``page`` is the page opened; its hooks say which view it restores, where its truncation
    methods go and what it runs (:class:`dpsum_ui.page.Page`). A valid link with a sample or
    server dataset is re-run once on its page (same seed, so the same figures); a link whose
    settings or data cannot be used says so once, and runs nothing. Call before any widget is drawn.
    """
    if not first_time(LINK_CHECKED):
        return
    params = st.query_params.to_dict()
    guide.restore(params)
    try:
        shared, view = share.read_link(params, page.view, samples=state.SAMPLE_NAMES)
    except share.LinkProblems as exc:
        state.notice("error", refused(exc.problems))
        st.query_params.clear()
        return
    if shared is None:  # a link with a view only (``?algorithm=clampshells``): shown as asked
        if view:
            for key, value in view.items():
                state.put(key, value)
            state.remember_link_view(view)
            asked = ", ".join(f"{name}={flat_param(params, name)}" for name in page.view
                              if name in params)  # fmt: skip
            state.notice("info", f"Opened from the link ({plain(asked)}). It carries no data "
                         "or settings, so the default ones are used.")
        return
    state.apply_config(
        shared.config, sample=shared.sample, column=shared.column, iso=shared.iso,
        id_column=shared.id_column,
    )  # fmt: skip
    if shared.config is not None:
        state.upper_from("link")  # credited as the link's if another dataset asks for U
        if page.truncations_key is not None:
            state.put(page.truncations_key, list(shared.config.truncations))
    for key, value in view.items():
        state.put(key, value)
    state.remember_link_view(view)
    configured = shared.config is not None  # False: a link naming only its data
    if shared.uploaded:
        state.put(K.DATA_SOURCE, "upload")  # the uploader is the Data page's next step
        state.notice(
            "warning",
            "This link was made with an uploaded file. Links never carry uploaded data, so "
            + ("the settings were restored but not the data" if configured
               else "the data was not restored")
            + ": upload the same file on the Data page"
            + (f" (column “{plain(shared.column)}”)" if shared.column else "")
            + ", then press Run.",
        )
        return
    if shared.server is not None and not open_server(
        shared.server, shared.column, "link", shared.id_column, configured=configured
    ):
        return
    link = Link(
        grid=share.GRID_PARAM in params,
        sweep="sweep" in params,
        simulate=share.SIMULATE_PARAM in params,
    )
    _run_once(page, link, shared.config, column=shared.column)


def refused(problems: tuple[str, ...]) -> str:
    """The one notice of a link whose values cannot be used: every one of them (Markdown)."""
    said = [plain(p) for p in problems]
    listed = f" {said[0]}." if len(said) == 1 else "".join(f"\n- {p}" for p in said) + "\n\n"
    return (
        "The settings in this link could not be used:" + listed + " The default settings are "
        "shown instead; fix the link or choose settings below."
    )


def open_server(
    name: str,
    column: str | None,
    where: str,
    id_column: str | None = None,
    *,
    configured: bool = True,
) -> bool:
    """Select the server dataset ``name``, its ``column`` and privacy identifier, named by a
    link or a settings file (``where``) that also carried settings, unless not ``configured``.

    On refusal (no data directory configured; a name that is absolute, holds ``..``, leads
    outside or does not exist) the sample data stays in use, a notice says what was wrong and
    what to do, and the result is False. Call after :func:`state.apply_config`.
    """
    try:
        state.select_server(name, column, id_column)
    except DpsumError as exc:
        state.put(K.DATA_SOURCE, "sample")
        state.notice(
            "warning",
            f"This {where} names a server dataset that cannot be opened here: {plain(exc)}. "
            + ("Its settings were restored on the sample data" if configured
               else "The sample data is shown")
            + " and nothing was run: open the "
            f"{where} on the server it was made on, or choose data on the Data page and "
            "press Run.",
        )
        return False
    return True


def _run_once(
    page: Page, link: Link, config: ExperimentConfig | None, *, column: str | None
) -> None:
    """Queue the link's run for its page, or say once why it cannot run (``config`` None: a
    link naming only its data, opened on the current settings)."""
    ctx = state.data_context()
    name = plain(short_name(ctx.label))
    restored = (
        "The link's settings were restored" if config is not None
        else f"{name} was opened from the link on the default settings (the link carries none)"
    )  # fmt: skip
    if column is not None and ctx.columns and column not in ctx.columns:
        # Never show another column's figures under this link's name.
        state.notice(
            "error",
            f"{restored}, but nothing was run: its column “{plain(column)}” is "
            f"not a numeric column of {name}. Choose a column on the Data page, then press Run.",
        )
        return
    what = page.redraws(link)
    if what is not None:
        state.notice("info", f"Settings restored from the link: the same {what}."
                     if config is not None else f"{restored}.")  # fmt: skip
        return
    plan = state.plan(ctx) if config is None else state.plan(ctx, truncations=config.truncations)
    if not isinstance(plan, state.Ready) or ctx.dataset is None:
        state.notice(
            "error",
            f"{restored}, but nothing was run: "
            f"{plain(plan.error or ctx.error)} Fix the setting below, then press Run.",
        )
        return
    seconds = page.link_seconds(plan.config, link)
    if seconds > limits.MAX_LINK_SECONDS:
        state.notice(
            "info",
            f"{'Settings restored from the link' if config is not None else restored}, but not run: it "
            f"would take about {duration(seconds)} of computation, and a link starts a run by "
            f"itself only below {duration(limits.MAX_LINK_SECONDS)}. Press Run to compute it.",
        )
        return
    page.queue_run(link)
    state.notice(
        "info",
        "Settings restored from the link and run once with the same seed, so these are "
        "the same figures." if config is not None else f"{restored}, and run once.",
    )


def link_text(params: dict[str, str]) -> str:
    """The full link with ``params`` (or just the query string when the app's URL is unknown)."""
    query = urlencode(guide.with_guide(params), safe=",:/")  # readable: data=server:census/2020
    try:
        base = st.context.url or ""
    except Exception:  # no browser context (tests, bare mode)
        base = ""
    base = base.split("?")[0]
    return f"{base}?{query}" if base else f"?{query}"


def sync_url(params: dict[str, str] | None) -> None:
    """Keep the address bar's query string equal to the view (a shareable URL)."""
    if params is not None:
        params = guide.with_guide(params)
    if params is not None and st.query_params.to_dict() != params:
        st.query_params.from_dict(params)


def share_panel(params: dict[str, str] | None, what: str) -> None:
    """Inside a Share popover: the link to this view (or why there is none yet)."""
    st.markdown(f"**Link to {what}**")
    if params is None:
        st.caption("Run once to get a link.")
        return
    st.code(link_text(params), language=None, wrap_lines=True)
    st.caption(LINK_CAPTION + " Opening it reproduces this view.")


def flat_param(params: dict, name: str) -> str:
    """A link parameter's value as written (the last one if repeated)."""
    value = params[name]
    return str(value[-1] if isinstance(value, list) and value else value)


def link_not_as_given(changes: list[str]) -> None:
    """Add to the link's notice (one notice, a warning) the values of the link a page could
    not use as given: each says what was used instead and why (``changes``)."""
    if not changes:
        return
    item = take_notice()
    kind = "error" if item is not None and item[0] == "error" else "warning"
    before = f"{item[1]} But not" if item is not None else "Not"
    state.notice(kind, f"{before} as in the link: {'; '.join(changes)}.")


def show_notice(*, compact: bool = False) -> None:
    """Show (once) a queued message such as 'settings restored from the link'; ``compact``:
    an information as a toast, which moves nothing on the page (a page whose first screen is
    full); errors stay on the page."""
    item = take_notice()
    if item:
        kind, text = item
        if compact and kind == "info":
            st.toast(text, icon=":material/link:", duration="long")
        else:
            getattr(st, kind)(text)


_KIND = {
    "sample": "sample",
    "upload": "uploaded, kept for this session only",
    "server": "server dataset, summarised for this session only",
}


def _data_lines(ctx: state.DataContext, *, publishing: bool) -> None:
    """Which data this page reads: the planning dataset, and the release dataset beside it
    (the same file unless the Data page names another)."""
    if not ctx.separate:
        st.markdown("**Dataset** (planning and release)")
    else:
        st.markdown("**Release data**" if publishing else "**Planning data**")
    if ctx.dataset is not None:
        st.markdown(  # the whole name in a tooltip when it is cut
            f"{plain(short_name(ctx.label))} · `{ctx.dataset.column}`  \n*{_KIND[ctx.source]}*",
            help=name_help(ctx.label),
        )
        if not publishing:
            report = ctx.dataset.report
            st.caption(  # people when an identifier groups the rows (each one's total)
                (f"{counted(report.rows_kept, 'record')} after cleaning"
                 if report.people is None
                 else f"{counted(report.people, *unit_nouns(True))} after cleaning, "
                 f"from {counted(report.rows_kept, 'row')}")
                + " (exact, without noise: not for publication)"
            )  # fmt: skip
    else:
        st.caption("⚠️ The data or the domain needs fixing (see the Data page).")
    if ctx.separate:
        other = state.data_context("planning" if publishing else "release")
        what = "Planning data" if publishing else "Release data (Release page only)"
        st.caption(f"{what}: {plain(short_name(other.label))} · {other.column}",
                   help=name_help(other.label))  # fmt: skip


def sidebar_summary(*, publishing: bool = False) -> None:
    """The current dataset and key settings, always visible.

    ``publishing`` (the Release page): leave out the record count, a statistic of the data
    without noise, so that the page shows nothing unnoised next to a release.
    """
    ctx = state.data_context("release" if publishing else "planning")
    st.markdown("### ∑ dpsum")
    st.caption("Prefix sums under differential privacy")
    _data_lines(ctx, publishing=publishing)
    if ctx.domain is not None:
        d = ctx.domain
        st.caption(f"Domain [0, {number(d.upper)}] · {d.bins:,} bins of width "
                   f"{number(float(f'{d.width:.6g}'))}")  # 6 digits, never an exponent
    st.page_link("app_pages/data.py", label="Change data or domain", icon=":material/tune:")

    if publishing:  # the release's own settings, never the explorer's (ρ, trials, seed…)
        plan = page_state.load(page_state.ReleaseState).plan
        st.markdown("**Release settings**")
        st.caption(
            release_words.settings_caption(plan) if plan is not None
            else "Shown once the release's plan is valid."
        )  # fmt: skip
        return
    st.markdown("**Settings**")
    algorithms = ", ".join(label(a) for a in state.get(K.ALGORITHMS) or []) or "none"
    truncation = truncation_label(state.get(K.TRUNCATION) or "?")
    try:
        workload = state.workload_spec()
    except DpsumError:
        workload = "(invalid)"
    if len(workload) > 28:
        workload = workload[:26] + "…"
    st.caption(
        f"Workload {workload}  \nε = {state.get(K.EPSILON):g} · ρ = {state.get(K.RHO):g}  \n"
        f"Truncation: {truncation}  \nAlgorithms: {algorithms}  \n"
        f"{state.get(K.TRIALS)} trials · δ = {state.get(K.DELTA):g} · seed {state.get(K.SEED)}"
    )
    shown = page_state.explorer_shown()
    result = compute.result(shown.key) if shown else None
    if result is not None:
        st.markdown("**Last run**")
        st.caption(
            f"seed {result.config.seed} · {counted(result.config.trials, 'trial')} · "
            f"{result.seconds:.2f} s"
        )


_DATA_PAGE = "app_pages/data.py"
_EXPLORER_PAGE = "app_pages/explorer.py"
_FIX_PAGES = {_DATA_PAGE: "Data page", _EXPLORER_PAGE: "Workload explorer"}  # how recap names them


def needs_data(ctx: state.DataContext) -> bool:
    """The one "needs data" notice of every page: when the data or the domain cannot be used,
    say what is wrong and link to the Data page that fixes it. True when it was shown (the page
    then draws nothing that needs the data)."""
    if not ctx.error:
        return False
    sentence = ctx.error if ctx.error.endswith((".", "!", "?")) else f"{ctx.error}."
    st.error(f"{sentence} Fix it on the Data page.")
    st.page_link(_DATA_PAGE, label="Go to the Data page", icon=":material/table_chart:")
    return True


def recap(ctx: state.DataContext, *, epsilon: bool = True, algorithms: bool = False) -> None:
    """One line under a page's title: the choices the page depends on (which data, U, bins,
    ε), what is missing, and a link to the page that fixes it."""
    parts: list[str] = []
    fixes: dict[str, str] = {}  # page → what is missing there
    role = f"{ctx.role} data" if ctx.separate else "data"  # one file: planning = release
    if ctx.dataset is not None:
        parts.append(f"{role} **{plain(short_name(ctx.label))} · {plain(ctx.column)}**")
    else:
        parts.append(f"{role} **missing**")
        fixes[_DATA_PAGE] = "the data"
    pending = state.domain_pending()
    if ctx.domain is not None:
        d = ctx.domain
        u = f"U = {number(d.upper)}" + (
            f" (**not yet set for {plain(short_name(pending))}**)" if pending else ""
        )
        parts += [u, f"{d.bins:,} bins"]
        if pending:
            fixes[_DATA_PAGE] = "U"
    else:
        parts.append("U and bins **missing**")
        fixes[_DATA_PAGE] = "the domain"
    if epsilon:
        parts.append(f"ε = {state.get(K.EPSILON):g}")
    if algorithms and not state.get(K.ALGORITHMS):
        parts.append("algorithms **none chosen**")
        fixes[_EXPLORER_PAGE] = "the algorithms"
    st.caption("Uses: " + " · ".join(parts))
    for script, what in fixes.items():
        name = _FIX_PAGES[script]
        st.page_link(script, label=f"Set {what} on the {name}", icon=":material/arrow_forward:")


def reproduce_panel(command: str, python: str, *, what: str) -> None:
    """"Reproduce this": the shell command and the Python lines for the current settings."""
    with st.expander("Reproduce this outside the dashboard", icon=":material/terminal:"):
        st.caption(
            f"The command and the Python lines that make {what} again, with `dpsum` installed "
            "(`pip install .`). Replace a placeholder in angle brackets (an uploaded file's "
            "path) with your own; a sample (`sample:NAME`) is read from the installed package, "
            "from any folder."
        )
        st.code(command, language="bash", wrap_lines=True)
        st.code(python, language="python", wrap_lines=True)
