"""Figures only the dashboard draws (the teaching page), styled like dpsum_core.plots, and
the dashboard's fitting of engine figures to its narrower columns (legend below, title lines).

They plot engine outputs (``theta_curves``, ``threshold_samples``) and compute nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpsum_core.mechanisms.registry import ALGORITHMS, get, truncation_label
from dpsum_core.mechanisms.registry import label as algorithm_label
from dpsum_core.plots.style import IN_UNIT, algorithm_style

from .present import money

SAMPLE_COLORS = {"svt": "#CC79A7", "recursive": "#009E73"}  # as in figures.theta_figure
MARKER_COLOR = "#5B2C83"  # the page's θ: a colour no curve has (curves: black, greys, brown)
BEST_COLOR = "#555555"
BEST_NAME = "lowest bias² + variance"  # found by looking at the data: the page says so
_LAYOUT = dict(
    template="plotly_white",
    font=dict(size=14),
    legend=dict(orientation="h", yanchor="top", y=-0.16, xanchor="left", x=0),
    margin=dict(l=85, r=20, t=80, b=40),
    hovermode="x unified",
)


def _positive(values: pd.Series) -> np.ndarray:
    """Zeros cannot sit on a log axis: leave a gap there instead."""
    v = values.to_numpy(dtype=float)
    return np.where(v > 0, v, np.nan)


def _in_words(values: np.ndarray) -> list[str]:
    """Hover texts of a curve in the data's unit, as words (“1.53 billion”, not “1.53G”)."""
    return ["" if not np.isfinite(v) else money(float(v)) for v in values]


def _word_ticks(low: float, high: float) -> dict:
    """Log-axis ticks at the powers of ten in [10^low, 10^high], labelled in words."""
    values = [10.0**k for k in range(int(np.floor(low)), int(np.ceil(high)) + 1)]
    return dict(tickmode="array", tickvals=values, ticktext=[money(v) for v in values])


def theta_curves_figure(
    curves: pd.DataFrame,
    algorithm: str,
    *,
    theta: float,
    best: float,
    samples: Mapping[str, np.ndarray],
    readout: str,
    title: str,
    axis_title: str = "truncation threshold θ",
    second: str = "binning bias",
) -> go.Figure:
    """The expected error of one algorithm over θ and its parts, in the data's unit (log–log):
    RMSE = √(bias² + variance), |truncation bias|, |binning bias| (|``second``|: ClampShells'
    shell bias, :func:`dpsum_ui.teaching.second_bias`) and the noise's standard
    deviation √variance; a marker and a readout at ``theta``, and below it where SVT /
    Recursive land across trials.

    The marker is the page's θ: the figure has no θ control of its own, so that the chart,
    the numbers, the sentences and the link never show two different θ.

    ``curves``: columns theta, truncation_bias2, binning_bias2, variance, total (one row per
    grid θ); ``readout``: the text shown at ``theta``, above the plot area; ``axis_title``:
    what θ means for this algorithm.
    """
    rows = 2 if samples else 1
    fig = make_subplots(
        rows=rows,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.72, 0.28] if rows == 2 else [1.0],
        vertical_spacing=0.04,
    )
    color = get(algorithm).color
    name = algorithm_label(algorithm)
    x = curves["theta"].to_numpy()
    lines = [
        ("total", f"{name}: RMSE", dict(color=color, width=4)),
        ("truncation_bias2", "|truncation bias|", dict(color="#000000", width=2, dash="dash")),
        ("binning_bias2", f"|{second}|", dict(color="#8C510A", width=2, dash="dashdot")),
        ("variance", "noise (SD)", dict(color="#777777", width=2, dash="dot")),
    ]
    for column, label, style in lines:
        if not (curves[column] > 0).any():
            continue  # e.g. SQM has no binning bias: say so in the text, draw nothing
        y = np.sqrt(_positive(curves[column]))
        fig.add_trace(
            go.Scatter(
                x=x, y=y, mode="lines", name=label, line=style, text=_in_words(y),
                hovertemplate="%{text}",
            ),
            row=1,
            col=1,
        )  # fmt: skip
    # The page's θ: a neutral marker, unlike every curve (not a spike of the RMSE); its
    # readout above the plot area, where it covers no curve.
    start = int(np.argmin(np.abs(np.log(x) - np.log(theta))))
    fig.add_shape(
        type="line", x0=x[start], x1=x[start], y0=0, y1=1, xref="x", yref="y domain",
        line=dict(color=MARKER_COLOR, width=2, dash="solid"),
    )  # fmt: skip
    fig.add_annotation(
        text=readout, x=1, y=1, xref="paper", yref="paper", xanchor="right", yanchor="bottom",
        yshift=4, align="right", showarrow=False, font=dict(size=16, color="#1A1A1A"),
    )  # fmt: skip
    # The lowest trade-off: named in the legend (a label on the plot overprinted the curves).
    fig.add_shape(
        type="line", x0=best, x1=best, y0=0, y1=1, xref="x", yref="y domain",
        line=dict(color=BEST_COLOR, width=1, dash="dashdot"), name=BEST_NAME, showlegend=True,
    )  # fmt: skip
    for method, values in samples.items():
        fig.add_trace(
            go.Scatter(
                x=np.asarray(values, float),
                y=[truncation_label(method)] * len(values),
                mode="markers",
                marker=dict(symbol="line-ns-open", size=14, color=SAMPLE_COLORS.get(method)),
                name=f"θ chosen by {truncation_label(method)} (one mark per trial)",
                hovertemplate="θ = %{x:,.0f}<extra></extra>",
                showlegend=False,  # the row is labelled on its axis
            ),
            row=2,
            col=1,
        )
    fig.update_layout(title=title, **_LAYOUT)
    fig.update_layout(
        height=600,
        font=dict(size=16),
        # under the x axis's title, so that it never overprints the title nor the readout
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", xanchor="left",
                    x=0, font=dict(size=16)),
        margin=dict(l=85, r=20, t=165, b=90),  # title and subtitles, readout; ticks, legend
        # the title at the top of the figure, above the readout (not just above the plot)
        title=dict(text=title, yref="container", y=0.95, yanchor="top"),
    )
    xrange = [np.log10(x.min()), np.log10(x.max())]
    fig.update_xaxes(type="log", range=xrange, **_word_ticks(*xrange))
    fig.update_xaxes(title=dict(text=axis_title, standoff=4), row=rows, col=1)
    drawn = curves[["total", "truncation_bias2", "binning_bias2", "variance"]].to_numpy()
    drawn = np.sqrt(drawn[np.isfinite(drawn) & (drawn > 0)])
    yrange = [np.log10(drawn.min()) - 0.15, np.log10(drawn.max()) + 0.15]
    fig.update_yaxes(
        title=f"error{IN_UNIT}", type="log", range=yrange,
        **_word_ticks(*yrange), row=1, col=1,
    )  # fmt: skip
    if rows == 2:  # every row labelled (plotly thins category labels on a short axis)
        names = [truncation_label(m) for m in samples]
        fig.update_yaxes(title="", tickmode="array", tickvals=names, ticktext=names,
                         categoryorder="array", categoryarray=names,
                         range=[-0.6, len(names) - 0.4], tickfont=dict(size=16),
                         row=2, col=1)  # fmt: skip
    return fig


def all_algorithms_figure(curves: pd.DataFrame, *, theta: float, title: str) -> go.Figure:
    """Total expected error of every algorithm over θ for one query (log–log)."""
    fig = go.Figure()
    drawn: list[np.ndarray] = []
    for algorithm in ALGORITHMS:
        part = curves[curves["algorithm"] == algorithm]
        if part.empty:
            continue
        y = np.sqrt(_positive(part["total"]))
        drawn.append(y)
        fig.add_trace(
            go.Scatter(
                x=part["theta"], y=y, text=_in_words(y),
                name=algorithm_label(algorithm), **algorithm_style(algorithm, width=3),
                hovertemplate="%{text}",
            )
        )  # fmt: skip
    fig.add_vline(x=theta, line=dict(color="#555555", width=1))
    fig.update_layout(title=title, **_LAYOUT)
    # The title and its two subtitle lines near the top of the figure (plotly anchors such a
    # block by its first line: 0.95, not 1), in a top margin that holds them (in the default
    # one the second line sat on the top y label, "1 billion").
    fig.update_layout(height=500, margin=dict(t=105),
                      title=dict(text=title, yref="container", y=0.95, yanchor="top"))
    thetas = curves["theta"].to_numpy(dtype=float)
    fig.update_xaxes(
        title="truncation threshold θ", type="log",
        **_word_ticks(np.log10(thetas.min()), np.log10(thetas.max())),
    )  # fmt: skip
    values = np.concatenate(drawn) if drawn else np.array([1.0])
    values = values[np.isfinite(values) & (values > 0)]
    ticks = _word_ticks(np.log10(values.min()), np.log10(values.max())) if values.size else {}
    fig.update_yaxes(title=f"expected error (RMSE){IN_UNIT}", type="log", **ticks)
    return fig


# --------------------------------------------------------------------------------------------
# Engine figures fitted to the dashboard's columns
# --------------------------------------------------------------------------------------------
LEGEND_ROW_PX = 30  # one row of a horizontal legend at font size 13 (line and marker)
LEGEND_CHAR_PX = 6.5  # a legend name's character at font size 13, rounded up
LEGEND_SYMBOL_PX = 45  # a legend entry's symbol and gaps
PLOT_HEIGHT = 450  # plotly's default figure height, the engine figures' own


def legend_rows(names: list[str], width: float) -> int:
    """The rows a horizontal legend of ``names`` takes in ``width`` px: plotly places the
    entries one after the other, each as wide as its name, and starts a row when the next
    one does not fit."""
    rows, x = 1, 0.0
    for name in names:
        entry = LEGEND_SYMBOL_PX + LEGEND_CHAR_PX * max(len(line) for line in name.split("<br>"))
        if x > 0 and x + entry > width:
            rows, x = rows + 1, 0.0
        x += entry
    return rows


def legend_below(fig: go.Figure, *, width: int) -> go.Figure:
    """A copy of ``fig`` with its legend in rows under the plot, as on the Single query page:
    a legend on the right takes its width from the plot (in a half-page column, most of it).

    ``width``: the legend's room in px (the chart's column at 1280 px less the y axis). The
    figure grows by the legend's rows (:func:`legend_rows`), so the plot keeps its height, and
    the bottom margin holds the ticks, the axis title and then the legend (plotly pushes the
    margin further if the legend needs more).
    """
    names = [t.name for t in fig.data if t.showlegend is not False and t.name]
    names += [s.name for s in fig.layout.shapes if s.showlegend and s.name]
    rows = legend_rows(names, width)
    margin = fig.layout.margin
    return go.Figure(fig).update_layout(
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", xanchor="left",
                    x=0, font=dict(size=13)),
        margin=dict(l=margin.l, r=margin.r, t=margin.t, b=70 + rows * LEGEND_ROW_PX),
        height=(fig.layout.height or PLOT_HEIGHT) + rows * LEGEND_ROW_PX,
    )  # fmt: skip


PHONE_EXTRA_PX = 80  # on a phone (390 px) the legend takes more rows from the plot's height


def taller(fig: go.Figure, px: int = PHONE_EXTRA_PX) -> go.Figure:
    """``fig`` (changed in place) ``px`` taller: room kept for the plot on a phone, where the
    legend's rows, computed for 1280 px by :func:`legend_below`, are more (review 9)."""
    return fig.update_layout(height=(fig.layout.height or PLOT_HEIGHT) + px)


SUBTITLE_CHARS = 44  # a subtitle line's characters in a half-page column (planning tag included)
SUBTITLE_LINE_PX = 18  # a subtitle line's height (the margin grows by two: half above it)


def wrap_subtitle(fig: go.Figure, *, chars: int = SUBTITLE_CHARS) -> go.Figure:
    """A copy of ``fig`` whose subtitle (the title's ``<sup>`` part, items joined by " · ") is
    broken into lines of at most ``chars`` characters between items (an item longer than that
    gets a line of its own), so that no line runs past a narrow column's edge; the title stays centred in the top margin, which grows with
    the figure by twice the added lines (a centred block grows both ways)."""
    text = fig.layout.title.text or ""
    head, sep, sub = text.partition("<br><sup>")
    if not sep:
        return go.Figure(fig)
    lines: list[str] = []
    for item in sub.removesuffix("</sup>").split(" · "):
        if lines and len(lines[-1]) + 3 + len(item) <= chars:
            lines[-1] += " · " + item
        else:
            lines.append(item)
    title = f"{head}<br><sup>{'<br>'.join(lines)}</sup>"
    extra = SUBTITLE_LINE_PX * (len(lines) - 1)
    return go.Figure(fig).update_layout(
        title_text=title,  # centred in the top margin, which grows by the added lines
        margin=dict(t=(fig.layout.margin.t or 90) + 2 * extra),
        height=(fig.layout.height or PLOT_HEIGHT) + 2 * extra,
    )


TICK_CHAR_PX = 8  # a tick label's character at font size 14, rounded up
TICK_GAP_PX = 16  # at least this much between two tick labels
AXIS_PAD = 1.1  # plotly's autorange of a log axis: a little wider than the values


def spaced_ticks(values: np.ndarray, panel_px: float) -> list[float]:
    """Tick values for a log axis over ``values`` drawn ``panel_px`` wide whose labels (whole
    amounts with thousands separators) keep TICK_GAP_PX apart: powers of ten first, then 5
    and 2 times them where they fit."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    low, high = float(v.min()), float(v.max())
    px_per_decade = panel_px / (max(np.log10(high / low), 0.3) * AXIS_PAD)
    chosen: list[float] = []
    for factor in (1, 5, 2):
        for e in range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1):
            tick = factor * 10.0**e
            if not low <= tick <= high:
                continue
            half = TICK_CHAR_PX * len(f"{tick:,.0f}") / 2
            if all(abs(np.log10(tick / c)) * px_per_decade
                   >= half + TICK_CHAR_PX * len(f"{c:,.0f}") / 2 + TICK_GAP_PX
                   for c in chosen):  # fmt: skip
                chosen.append(tick)
    return sorted(chosen)


def panel_ticks(fig: go.Figure, values: np.ndarray, *, panel_px: float) -> go.Figure:
    """A copy of small multiples ``fig`` (one log τ axis per panel over ``values``, each
    ``panel_px`` wide) whose x axes no longer run together: labels spaced by
    :func:`spaced_ticks` (unlabelled minor ticks between; the axes' own ticks if none fits
    in the values' range) and the axis title once, under the first panel (each panel's ran
    into its neighbours')."""
    out = go.Figure(fig)
    if ticks := spaced_ticks(values, panel_px):
        out.update_xaxes(
            tickmode="array", tickvals=ticks,
            minor=dict(ticks="outside", ticklen=3, dtick="D1", showgrid=False),
        )  # fmt: skip
    first = out.layout.xaxis.title.text
    out.update_xaxes(title_text=None)
    return out.update_xaxes(title_text=first, row=1, col=1)
