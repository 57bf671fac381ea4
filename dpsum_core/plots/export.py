"""Figure export: self-contained HTML (works offline) and PNG/SVG through kaleido with the system
Chromium, one image server for the CLI and the app.
"""


from __future__ import annotations

import logging
import shutil
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import plotly.graph_objects as go
import plotly.io as pio

from dpsum_core.plots.style import INTERACTIVE_ONLY
from dpsum_core.text import escape_name

if TYPE_CHECKING:  # analytics imports this module
    pass


# --------------------------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------------------------
# Every exported figure (the explorer's, Compare's, Decide's and Single query's downloads, the
# CLI's reproduce) is drawn from the data without noise — true answers, exact counts, errors
# against them — and says so on the figure itself: an author's figure file otherwise carried
# no trace of it (author review). A release's own chart (publish.chart) is not marked.
NOT_FOR_PUBLICATION_MARK = (
    "Not for publication: drawn from the data without noise (true answers, exact statistics). "
    "Publish with dpsum release or the Release page."
)


def marked(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` with :data:`NOT_FOR_PUBLICATION_MARK` under everything else (the
    bottom margin grows to hold it; a note already there stays above it)."""
    out = go.Figure(fig)
    bottom = (out.layout.margin.b if out.layout.margin.b is not None else 80) + 22
    out.add_annotation(
        text=NOT_FOR_PUBLICATION_MARK, xref="paper", yref="paper", x=0, y=0,
        yshift=-bottom + 4, xanchor="left", yanchor="bottom", showarrow=False, align="left",
        font=dict(size=11, color="#A0001E"),
    )  # fmt: skip
    return out.update_layout(margin=dict(b=bottom))


# plotly.js's mode bar in every page dpsum draws: no logo, and no "Share chart…" button
# (plotly.js 4 shows it by default: one click and a confirmation upload the figure, true
# answers included, to Plotly's cloud); with no server URL that button has nowhere to send.
PLOTLY_CONFIG = {"displaylogo": False, "showSendToCloud": False, "plotlyServerURL": ""}


def to_html(fig: go.Figure) -> str:
    """A self-contained HTML page (plotly.js inlined: works offline) of the :func:`marked`
    figure; the same figure gives the same bytes (a fixed div id: plotly draws a random one
    per call)."""
    return marked(fig).to_html(
        include_plotlyjs=True, full_html=True, div_id="dpsum-figure", config=PLOTLY_CONFIG
    )


def report_html(figures: Sequence[tuple[str, go.Figure]], *, title: str) -> str:
    """Several figures in one self-contained page with plotly.js inlined once (the page's
    title and the figures' names are text: escaped); the same figures give the same bytes
    (div ids numbered, not random)."""
    parts = [
        f"<h2>{escape_name(name, 'html')}</h2>"
        + pio.to_html(
            fig, include_plotlyjs=i == 0, full_html=False, div_id=f"dpsum-figure-{i}",
            config=PLOTLY_CONFIG,
        )
        for i, (name, fig) in enumerate(figures)
    ]
    title = escape_name(title, "html")
    mark = f"<p style='color:#A0001E'><strong>{NOT_FOR_PUBLICATION_MARK}</strong></p>"
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body style='font-family:sans-serif'><h1>{title}</h1>{mark}{''.join(parts)}"
        "</body></html>"
    )


def start_image_server() -> None:
    """Start kaleido's browser (once per process: a second call does nothing) without MathJax.
    No figure here typesets LaTeX, and kaleido's page otherwise loads MathJax from a CDN: a
    network request at every start, which offline held the first image ≈ 5 s."""
    import kaleido

    kaleido.start_sync_server(mathjax=False, silence_warnings=True)


@contextmanager
def image_export():
    """Keep one headless browser alive for several :func:`to_image` calls (≈10× faster)."""
    import kaleido

    # made by `import kaleido` (its own logger class): asked for before, it would be a plain one
    pipe = logging.getLogger("choreographer.channels.pipe")
    pipe.addFilter(_torn_message)
    start_image_server()
    try:
        yield
    finally:
        kaleido.stop_sync_server(silence_warnings=True)
        pipe.removeFilter(_torn_message)


def _torn_message(record: logging.LogRecord) -> bool:
    """Drop kaleido's browser pipe's "JSONError decoding message. Ignoring" (with its traceback):
    under load a read can end inside a message, which the pipe reports and skips while the
    export goes on; printed, it read as a traceback of `dpsum run` that had succeeded."""
    return not str(record.msg).startswith("JSONError decoding message")


def browser_available() -> bool:
    """Whether a Chromium/Chrome for kaleido's static export is installed."""
    return any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome", "chrome"))


def static(fig: go.Figure) -> go.Figure:
    """``fig`` as a still image shows it: a copy without the annotations that speak of the
    browser's chart (named :data:`~dpsum_core.plots.style.INTERACTIVE_ONLY`: its toolbar,
    hovering, zooming)."""
    kept = [a for a in fig.layout.annotations if a.name != INTERACTIVE_ONLY]
    if len(kept) == len(fig.layout.annotations):
        return fig
    still = go.Figure(fig)
    still.layout.annotations = kept  # replaced (update_layout would merge by position)
    return still


IMAGE_SIZE = (1100, 600)  # a downloaded image's width and height (CSS pixels)


def to_image(fig: go.Figure, fmt: str = "png", *, width: int = IMAGE_SIZE[0],
             height: int = IMAGE_SIZE[1]) -> bytes:
    """PNG/SVG bytes via kaleido (needs a local Chromium; check :func:`browser_available`),
    of the :func:`static`, :func:`marked` figure."""
    with warnings.catch_warnings():
        # plotly passes its default options even to kaleido's running server (started by
        # image_export), which then warns on every image that it ignores them: harmless.
        warnings.filterwarnings("ignore", message="The kopts argument is ignored")
        return pio.to_image(
            static(marked(fig)), format=fmt, width=width, height=height,
            scale=2 if fmt == "png" else 1,
        )
