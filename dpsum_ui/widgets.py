"""Widgets shared by the pages: experiment settings, charts with their download buttons.

Each control is drawn with a stable key (see :mod:`dpsum_ui.keys`) through
:func:`dpsum_ui.state.widget`, so the same setting keeps its value on every page.
"""

from __future__ import annotations

import html
import math
import re
import secrets
from collections.abc import Callable
from functools import partial

import plotly.graph_objects as go
import streamlit as st

from dpsum_core import limits
from dpsum_core.mechanisms.recommend import Recommendation
from dpsum_core.mechanisms.registry import ALGORITHMS, label
from dpsum_core.plots.export import PLOTLY_CONFIG, to_html
from dpsum_core.text import escape_name, summed
from dpsum_core.truncation.method import START_FRACTION, Param
from dpsum_core.truncation.registry import TRUNCATION_METHODS
from dpsum_core.truncation.registry import get as get_truncation
from dpsum_core.truncation.registry import label as truncation_label

from . import compute, present, state, tables
from . import keys as K
from .fields import auto_key
from .state import get, widget
from .store import live, offer, put, set_live

FROM_PUBLIC_INPUTS = "(Chosen from public inputs only, never the data.)"
WORKLOAD_LABELS = {
    "Q1": "Q1 · every bin edge",
    "Q2": "Q2 · every 10th edge",
    "Q3": "Q3 · every 100th edge",
    "every": "every K-th edge",
    "values": "explicit thresholds",
}


def eps_label(value: float) -> str:
    """ε as shown on the slider."""
    return f"{value:g}"


# --------------------------------------------------------------------------------------------
# Experiment settings
# --------------------------------------------------------------------------------------------
def workload_controls(*, by_person: bool = False) -> None:
    """Workload kind, plus K or the explicit thresholds when those are chosen; its help says
    what a query sums (``by_person``: people's totals, with an identifier column)."""
    widget(
        st.selectbox,
        K.WORKLOAD_KIND,
        "Workload",
        options=list(WORKLOAD_LABELS),
        format_func=WORKLOAD_LABELS.get,
        help=f"Query q_τ sums the {summed(by_person)} ≤ τ. Q1/Q2/Q3 are the paper's workloads.",
    )
    kind = get(K.WORKLOAD_KIND)
    if kind == "every":
        widget(
            st.number_input,
            K.WORKLOAD_EVERY,
            "K (one query every K bin edges)",
            min_value=1,
            step=1,
        )
    elif kind == "values":
        widget(
            st.text_input,
            K.WORKLOAD_VALUES,
            "Thresholds τ (comma separated, in (0, U])",
            help="Each value is snapped up to the next bin edge; the snapping is reported.",
        )


def epsilon_control(*, label: str = "Privacy budget ε") -> None:
    """ε on a log scale (select slider over log-spaced values), and under it a field for any
    other ε the engine accepts (0.0001 to 100): both show and set the one setting ``epsilon``
    (a typed value becomes one more stop of the slider)."""
    value = float(get(K.EPSILON))
    options = sorted({*state.EPSILON_GRID, value})
    widget(
        st.select_slider,
        K.EPSILON,
        label,
        options=options,
        format_func=lambda v: present.epsilon_end(v, options),
        help="Total budget of each algorithm. Smaller ε = stronger privacy = more noise. "
        f"The default, ε = {present.PAPER_EPSILON:g}, is the paper's setting.",
    )
    value = float(get(K.EPSILON))
    set_live(K.EPSILON_TYPED, f"{value:g}")  # the field follows the slider
    st.text_input(  # read by us: a number_input's browser field drops a decimal comma
        "or type ε",
        key=K.EPSILON_TYPED,
        on_change=_typed_epsilon,
        help=f"Any ε from {limits.EPSILON_MIN:g} to {limits.EPSILON_MAX:g}, e.g. 0.3 "
        "or what is left of a dataset's budget, with a decimal point; the slider moves to it.",
    )
    if (why := live(K.EPSILON_KEPT)) is not None:  # said once, under the field
        set_live(K.EPSILON_KEPT, None)
        st.error(f"{why} ε must be a number from {limits.EPSILON_MIN:g} to "
                 f"{limits.EPSILON_MAX:g}, so ε stays {value:g}.")  # fmt: skip
    st.caption(present.epsilon_sentence(value))
    if warning := present.epsilon_warning(value):
        st.warning(warning, icon=":material/warning:")


_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def typed_epsilon(text: str) -> float:
    """The ε typed in the field: a number with a decimal point (``0.2``, `` 0.2 ``, ``2e-1``)
    from :data:`~dpsum_core.limits.EPSILON_MIN` to :data:`~dpsum_core.limits.EPSILON_MAX`.

    Raises
    ------
    ValueError
        Why the text is not such an ε, in a sentence: empty, a comma (``0,2`` is never read as
        2 or 0.2: a decimal comma, or a thousands separator), not a number, or out of range.

    Privacy
    -------
    ε is never read larger than typed: a text with a comma is refused, not read without it.
    """
    text = text.strip()
    if not text:
        raise ValueError("The field was empty.")
    shown = escape_name(repr(text), "markdown")
    if "," in text:
        point = text.replace(",", ".")
        how = (
            f"use a decimal point: {point}" if re.fullmatch(r"0?\.[0-9]+", point)
            else "use a decimal point (0.2, not 0,2) and no thousands separators"
        )  # fmt: skip
        raise ValueError(f"{shown} holds a comma: {how}.")
    if _NUMBER.fullmatch(text) is None:
        raise ValueError(f"{shown} is not a number.")
    eps = float(text)
    if not limits.EPSILON_MIN <= eps <= limits.EPSILON_MAX:
        raise ValueError(f"ε = {eps:g} is out of range.")
    return eps


def _typed_epsilon() -> None:
    """The ε typed in the field becomes the setting (callback: before the slider is drawn); a
    text that is no such ε (:func:`typed_epsilon`) keeps ε and says why."""
    try:
        put(K.EPSILON, typed_epsilon(str(live(K.EPSILON_TYPED) or "")))
    except ValueError as exc:
        set_live(K.EPSILON_KEPT, str(exc))


def rho_control(*, disabled: bool = False) -> None:
    """ρ, the share of ε spent on choosing θ."""
    widget(
        st.slider,
        K.RHO,
        "ρ: share of ε for choosing θ",
        min_value=limits.RHO_MIN,
        max_value=limits.RHO_MAX,
        step=0.01,
        disabled=disabled,
        help="Used by SVT and Recursive: ε_θ = ρ·ε chooses θ, ε_m = (1−ρ)·ε measures. "
        "None and fixed θ spend nothing on θ.",
    )


def truncation_choice() -> str:
    """The truncation method: None, Fixed θ, SVT or Recursive."""
    return widget(
        st.segmented_control,
        K.TRUNCATION,
        "Truncation θ",
        options=list(TRUNCATION_METHODS),
        format_func=truncation_label,
        required=True,
        wrap=True,
        help="Values above θ count as θ: less noise (lower sensitivity), some bias. "
        "SVT and Recursive choose θ privately with ε_θ = ρ·ε.",
    )


def required_parameters(methods: tuple[str, ...]) -> None:
    """The parameters a chosen method cannot run without (a fixed θ), beside the choice of
    method, each with its method's caution (a fixed θ is private only if chosen without the
    data)."""
    for name in methods:
        method = get_truncation(name)
        for param in (p for p in method.params if p.missing):
            value, note = st.columns([1, 2.4], vertical_alignment="center", gap="medium")
            with value:
                _number_input(param, upper=None)
            if method.caution:
                with note:
                    st.caption(":material/warning: " + method.caution)


def _number_input(param: Param, *, upper: float | None, disabled: bool = False) -> None:
    """One number input as the parameter's description says (bounds, step, help; an empty
    ``per_upper`` field shows the U·START_FRACTION it stands for)."""
    floor = param.floor(upper, get) if param.floor is not None and upper else None
    explain = param.explain(floor) if callable(param.explain) else param.explain
    placeholder = None
    if param.per_upper and upper is not None:
        placeholder = f"U/{1 / START_FRACTION:g} = {upper * START_FRACTION:g}"
    widget(st.number_input, param.widget_key, param.label, step=param.step, format="%g",
           min_value=floor or param.low, max_value=param.high, placeholder=placeholder,
           help=explain, disabled=disabled)  # fmt: skip


def method_parameters(methods: tuple[str, ...]) -> None:
    """The public parameters of the chosen methods, as each method's module describes them
    (those it cannot run without are beside the choice of method), and δ."""
    upper = float(state.get(K.DOMAIN_UPPER) or 0.0)
    shown = False
    for name in methods:
        method = get_truncation(name)
        params = [p for p in method.params if not p.missing]
        if not params:
            continue
        shown = True
        st.markdown(f"**{method.heading}** (paper defaults)")
        for param in (p for p in params if p.choices):
            widget(st.radio, param.widget_key, param.label, options=list(param.choices),
                   horizontal=True, help=param.explain)  # fmt: skip
        auto = False
        for param in (p for p in params if p.auto):
            auto = widget(st.checkbox, auto_key(param), param.auto)
        numbers = [p for p in params if p.numeric]
        for column, param in zip(st.columns(3) if numbers else [], numbers, strict=False):
            with column:
                _number_input(param, upper=upper, disabled=bool(param.auto) and auto)
    if shown:
        st.caption("Never tune these on the data: they must be public constants.")
    st.markdown("**Evaluation**")
    widget(st.number_input, K.DELTA, "δ (relative-error floor)", step=10.0, format="%g",
           help="Relative error = |ŷ − y| / max(y, δ).")  # fmt: skip


def algorithms_control(ctx: state.DataContext) -> None:
    """Any subset of the algorithms; the one recommended for the current public settings
    (:func:`state.recommended`, the rule every page follows) is marked ★."""
    rec = state.recommended(ctx)
    best = rec.algorithm if rec is not None else None
    widget(
        st.pills,
        K.ALGORITHMS,
        "Algorithms",
        options=list(ALGORITHMS),
        selection_mode="multi",
        format_func=lambda name: f"★ {label(name)}" if name == best else label(name),
        wrap=True,
        help="SQM answers each query alone; Identity, Workload, TiMM and TaMM measure the "
        "histogram with different strategies (TiMM/TaMM: GreedyH matrix mechanism); RawSum "
        "and ClampShells measure sums and choose θ themselves. ★ marks the recommended one "
        "(what `auto` runs in `dpsum run` and on the Release page). "
        + (rec.why if rec is not None else "Set valid ε, U and bins to see it."),
    )


def recommendation(rec: Recommendation, note: str | None = None) -> None:
    """The recommendation's one sentence (:func:`~dpsum_core.mechanisms.recommend.reason`, the
    CLI's too), marked ★ as on every picker, ``note`` under it, and its benchmark numbers in
    an expander."""
    st.markdown(f"★ {rec.why} {FROM_PUBLIC_INPUTS}")
    if note is not None:
        st.markdown(note)
    with st.expander("The benchmark behind ★", icon=":material/query_stats:"):
        st.markdown(rec.detail)


def _new_seed() -> None:
    state.put(K.SEED, secrets.randbelow(2**31))


def trials_and_seed() -> None:
    """Trials and the seed, with a 'new seed' button that does not run anything.

    Drawn side by side: call inside a horizontal container.
    """
    widget(st.number_input, K.TRIALS, "Trials", step=10, width=100,
           help=f"Independent repetitions (1 to {limits.MAX_TRIALS:,}).")  # fmt: skip
    widget(st.number_input, K.SEED, "Seed", min_value=0, step=1, width=125,
           help="The same seed gives exactly the same noise and figures.")  # fmt: skip
    st.button(
        "New seed",  # a name for screen readers: an icon-only button would read "casino"
        key=K.SEED_NEW,
        icon=":material/casino:",
        on_click=_new_seed,
        help="Draw a new seed (nothing runs until you press Run).",
    )


def iso_control() -> bool:
    """Show answers and errors with isotonic regression (post-processing, free)."""
    return widget(
        st.toggle,
        K.ISO,
        "Isotonic regression",
        help="Post-processing: project each trial's answers onto non-decreasing sequences "
        "(costs no privacy). Paper default: on.",
    )


# --------------------------------------------------------------------------------------------
# Charts and downloads
# --------------------------------------------------------------------------------------------
def chart(fig: go.Figure, name: str, *, stem: str | None = None) -> None:
    """An interactive plotly chart (engine styling and colours) with its download buttons and
    its numbers as a table (the text alternative: a chart alone is not accessible).

    ``stem``: the downloads' file name, saying what they show (see
    :func:`dpsum_core.plots.style.file_stem`); ``dpsum_<name>`` if not given.
    """
    stem = stem or f"dpsum_{name}"
    if state.release_separate():
        fig = planning_tagged(fig)
    st.plotly_chart(
        fig,
        key=f"chart_{name}",
        theme=None,
        config={
            **PLOTLY_CONFIG,
            "toImageButtonOptions": {"format": "png", "filename": stem, "scale": 2},
        },
    )
    downloads(fig, name, stem)
    data_table(fig, name)


PLANNING_TAG = "planning data"


def planning_tagged(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` whose subtitle starts with "planning data · ": shown while the
    release dataset is another file, so that no figure is taken for the release data's."""
    title = fig.layout.title.text or ""
    if "<sup>" in title:
        title = title.replace("<sup>", f"<sup>{PLANNING_TAG} · ", 1)
    else:
        title = f"{title}<br><sup>{PLANNING_TAG}</sup>"
    return go.Figure(fig).update_layout(title_text=title)


def data_table(fig: go.Figure, name: str) -> None:
    """The chart's numbers in an expander, built only while it is open (no cost otherwise)."""
    title = tables.figure_name(fig)  # names the table apart from the page's other charts
    box = st.expander(
        f"Data table: {title}" if title else "Data table",
        icon=":material/table_rows:",
        key=K.table_key(name),
        on_change="rerun",
    )
    if box.open:
        with box:
            st.caption("The numbers drawn in the chart above, one row per point.")
            st.dataframe(tables.figure_table(fig), hide_index=True, height=320)


NOTE_MAX_CHARS = 500


def file_name(text: str, default: str) -> str:
    """A typed file name made safe (letters, digits, ``._-``; at most 120 characters), or
    ``default`` when nothing usable is left.

    >>> file_name("my figure: Q1/2020", "x")
    'my_figure_Q1_2020'
    >>> file_name("../..", "dpsum_answers")
    'dpsum_answers'
    """
    safe = re.sub(r"[^\w.-]+", "_", text.strip()).strip("._")[:120]
    return safe or default


def with_note(fig: go.Figure, note: str) -> go.Figure:
    """A copy of ``fig`` with ``note`` written under the plot (downloads only; the chart on
    screen is unchanged). The note is escaped: it is text, never markup. Quotes are left as
    typed: Plotly's pseudo-HTML decodes ``&amp; &lt; &gt;`` but shows ``&quot;`` literally,
    and outside a tag a quote is only text."""
    if not note.strip():
        return fig
    noted = go.Figure(fig)
    bottom = (noted.layout.margin.b or 60) + 40
    noted.add_annotation(
        text=html.escape(note.strip(), quote=False).replace("\n", "<br>"), xref="paper",
        yref="paper",
        x=0, y=0, yshift=-bottom + 10, xanchor="left", yanchor="top", showarrow=False,
        align="left", font=dict(size=12, color="#333333"),
    )  # fmt: skip
    return noted.update_layout(margin=dict(b=bottom + 20 * note.count("\n")))


def downloads(fig: go.Figure, name: str, stem: str, *,
              chart_files: bool = True) -> tuple[str, go.Figure]:
    """Download buttons: self-contained HTML, the chart's data as CSV, and PNG/SVG when
    server-side export works, under a file name and with a note the user may edit (as DP
    Wizard's downloads: the name says what the file shows, the note why it was kept).
    ``chart_files``: False for a chart whose HTML/PNG/SVG the browser makes (the lesson frame
    of Single query: at the θ on screen), only the CSV here.

    Files are generated only when a button is clicked (deferred callables), never on a rerun.
    Returns the file name (without extension) and the figure with the note, as the files use
    them.
    """
    with st.container(horizontal=True, gap="small"):
        with st.popover("Name and note", icon=":material/edit:", type="tertiary",
                        help="The downloads' file name, and a note written under the figure "
                             "in its HTML, PNG and SVG files."):  # fmt: skip
            key = K.download_key(name, "stem")
            offer(key, stem)  # a new run offers its own name
            typed = st.text_input("File name (without extension)", key=key)
            note = st.text_area(
                "Note", key=K.download_key(name, "note"), max_chars=NOTE_MAX_CHARS,
                placeholder="e.g. Q1 at ε = 0.01 for the board meeting",
            )  # fmt: skip
        stem = file_name(typed, stem)
        fig = with_note(fig, note)
        if chart_files:
            _html_button(fig, name, stem)
        _file_button("csv", lambda: tables.unpublished_frame(tables.figure_table(fig)).to_csv(
                         index=False), "text/csv", name, stem,
                     "The numbers drawn in the chart, as a table: computed from the data "
                     "without noise, not for publication (its name and last column say so).",
                     file_name=tables.unpublished_name(stem, "csv"))  # fmt: skip
        if chart_files and compute.images_available():
            for fmt, mime in (("png", "image/png"), ("svg", "image/svg+xml")):
                _file_button(fmt, partial(compute.image_bytes, fig, fmt), mime, name, stem,
                             "Static image rendered on the server (takes a few seconds the "
                             "first time).")  # fmt: skip
    return stem, fig


def _html_button(fig: go.Figure, name: str, stem: str) -> None:
    """The HTML download button of :func:`downloads`."""
    _file_button("html", lambda: to_html(fig), "text/html", name, stem,
                 "Interactive, self-contained (works offline).")  # fmt: skip


def _file_button(ext: str, data: Callable[[], str | bytes], mime: str, name: str, stem: str,
                 help: str, *, file_name: str | None = None) -> None:
    """One download button of :func:`downloads`: the file ``stem.ext`` (or ``file_name``),
    made only when clicked."""
    st.download_button(
        ext.upper(), data=data, file_name=file_name or f"{stem}.{ext}", mime=mime,
        key=K.download_key(name, ext), on_click="ignore", icon=":material/download:",
        type="tertiary", help=help,
    )  # fmt: skip


def upper_step(upper: float | None) -> float:
    """The U box's − / + step: a tenth of U's order of magnitude (10,000 at U = 800,000, 10 at
    U = 200), so one click stays on the column's scale (dollars per year, week or hour)."""
    if upper is None or not math.isfinite(upper) or upper <= 0:
        return 10_000.0
    return 10.0 ** (math.floor(math.log10(upper)) - 1)
