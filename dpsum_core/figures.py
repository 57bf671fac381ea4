"""Plotly figure builders shared by the dashboard and the CLI (no Streamlit here).

Colours follow the Okabe–Ito palette (colour-blind safe) and are fixed per algorithm, so an
algorithm has the same colour in every figure; names are the paper's. Colour is never the only
cue (WCAG 1.4.1): each algorithm also has its own marker symbol and dash pattern.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from contextlib import contextmanager

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from .data import Dataset, Domain, histogram
from .experiment import ExperimentResult, Run
from .mechanisms import DISPLAY_NAMES

COLORS: dict[str, str] = {
    "sqm": "#E69F00",
    "identity": "#56B4E9",
    "workload": "#009E73",
    "timm": "#D55E00",
    "tamm": "#0072B2",
}
# Non-colour cues per algorithm. "dash" is left to the true answers, "dot" to analytic curves.
SYMBOLS: dict[str, str] = {
    "sqm": "circle",
    "identity": "square",
    "workload": "diamond",
    "timm": "triangle-up",
    "tamm": "x",
}
DASHES: dict[str, str] = {
    "sqm": "solid",
    "identity": "longdash",
    "workload": "dashdot",
    "timm": "longdashdot",
    "tamm": "12px,3px,3px,3px,3px,3px",  # dash-dot-dot: plotly has only six named patterns
}
MARKERS_PER_LINE = 12  # enough to tell the lines apart, few enough not to hide them
TRUNCATION_NAMES: dict[str, str] = {
    "none": "no truncation",
    "fixed": "fixed θ",
    "svt": "SVT",
    "recursive": "Recursive",
}
TRUE_COLOR = "#000000"
ERROR_FLOOR = 1e-6
_LAYOUT = dict(
    template="plotly_white",
    font=dict(size=14),
    legend=dict(orientation="v", yanchor="top", y=1, xanchor="left", x=1.02),
    margin=dict(l=60, r=20, t=90, b=60),
    hovermode="x unified",
)


def algorithm_style(algorithm: str, *, width: float = 2, dash: str | None = None) -> dict:
    """``mode``, ``line`` and ``marker`` of an algorithm's line: its colour, its dash pattern
    (or ``dash``) and a few of its marker symbols, so that lines differ without colour."""
    color = COLORS.get(algorithm, "#777777")
    return dict(
        mode="lines+markers",
        line=dict(color=color, width=width, dash=dash or DASHES.get(algorithm, "solid")),
        marker=dict(
            symbol=SYMBOLS.get(algorithm, "circle"),
            size=8,
            color=color,
            maxdisplayed=MARKERS_PER_LINE,
        ),
    )


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _band(
    fig: go.Figure,
    x,
    low,
    high,
    mean,
    algorithm: str,
    *,
    row=None,
    col=None,
    legend=True,
    name=None,
):
    """A 5–95 percentile band (one closed polygon) and its mean line, grouped in the legend."""
    color = COLORS.get(algorithm, "#777777")
    label = name or DISPLAY_NAMES.get(algorithm, algorithm)
    kw = {} if row is None else dict(row=row, col=col)
    fig.add_trace(
        go.Scatter(
            x=np.concatenate([x, x[::-1]]),
            y=np.concatenate([high, low[::-1]]),
            fill="toself",
            fillcolor=_rgba(color, 0.18),
            line=dict(width=0),
            hoverinfo="skip",
            legendgroup=label,
            showlegend=False,
            name=f"{label} 5–95%",
        ),
        **kw,
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=mean,
            **algorithm_style(algorithm),
            legendgroup=label,
            showlegend=legend,
            name=label,
        ),
        **kw,
    )


def _runs(result: ExperimentResult, truncation: str, algorithms: Iterable[str] | None) -> list[Run]:
    wanted = set(algorithms) if algorithms is not None else None
    return [
        r
        for r in result.runs
        if r.truncation == truncation and (wanted is None or r.algorithm in wanted)
    ]


def answers_figure(
    result: ExperimentResult,
    truncation: str,
    *,
    iso: bool = False,
    algorithms: Iterable[str] | None = None,
) -> go.Figure:
    """Noisy answers per query: true answers and, per algorithm, mean with a 5–95 band (Fig. 2)."""
    x = result.workload.thresholds
    fig = go.Figure()
    for r in _runs(result, truncation, algorithms):
        a = r.answers_iso if iso else r.answers
        low, high = np.percentile(a, [5, 95], axis=0)
        _band(fig, x, low, high, a.mean(axis=0), r.algorithm)
    fig.add_trace(
        go.Scatter(
            x=x,
            y=result.true_answers,
            mode="lines",
            name="true answer",
            line=dict(color=TRUE_COLOR, width=2, dash="dash"),
        )
    )
    title = f"Noisy answers, {TRUNCATION_NAMES.get(truncation, truncation)}"
    title += " + isotonic" if iso else ""
    fig.update_layout(title=_title(title, result), **_LAYOUT)
    fig.update_xaxes(title="threshold τ (query sums values ≤ τ)", type="log")
    fig.update_yaxes(title="sum of values ≤ τ")
    return fig


def relative_error_figure(
    result: ExperimentResult,
    truncation: str,
    *,
    iso: bool = False,
    algorithms: Iterable[str] | None = None,
) -> go.Figure:
    """Relative error |ŷ−y|/max(y,δ) per query: mean with 5–95 band, log scale (Fig. 3)."""
    fig = go.Figure()
    _error_traces(fig, result, truncation, iso=iso, algorithms=algorithms)
    title = f"Relative error, {TRUNCATION_NAMES.get(truncation, truncation)}"
    title += " + isotonic" if iso else ""
    fig.update_layout(title=_title(title, result), **_LAYOUT)
    fig.update_xaxes(title="threshold τ", type="log")
    fig.update_yaxes(title="relative error", type="log", exponentformat="power")
    return fig


def _error_traces(fig, result, truncation, *, iso, algorithms, row=None, col=None, legend=True):
    x = result.workload.thresholds
    for r in _runs(result, truncation, algorithms):
        # A log axis cannot show 0: exact answers are drawn at the floor ERROR_FLOOR.
        rel = np.maximum(result.relative_errors(r, iso=iso), ERROR_FLOOR)
        low, high = np.percentile(rel, [5, 95], axis=0)
        _band(fig, x, low, high, rel.mean(axis=0), r.algorithm, row=row, col=col, legend=legend)


def isotonic_figure(
    result: ExperimentResult, truncation: str, *, algorithms: Iterable[str] | None = None
) -> go.Figure:
    """Relative error without and with isotonic regression, side by side (Fig. 4)."""
    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        subplot_titles=("without isotonic regression", "with isotonic regression"),
    )
    _error_traces(fig, result, truncation, iso=False, algorithms=algorithms, row=1, col=1)
    _error_traces(
        fig, result, truncation, iso=True, algorithms=algorithms, row=1, col=2, legend=False
    )
    fig.update_layout(
        title=_title(
            f"Isotonic regression, {TRUNCATION_NAMES.get(truncation, truncation)}", result
        ),
        **_LAYOUT,
    )
    fig.update_xaxes(title="threshold τ", type="log")
    fig.update_yaxes(type="log", exponentformat="power")
    fig.update_yaxes(title="relative error", row=1, col=1)
    return fig


def expected_error_figure(
    result: ExperimentResult, truncation: str, *, algorithms: Iterable[str] | None = None
) -> go.Figure:
    """Analytic expected RMSE (dashed) over the simulated RMSE (solid) per query."""
    x = result.workload.thresholds
    fig = go.Figure()
    for r in _runs(result, truncation, algorithms):
        name = DISPLAY_NAMES[r.algorithm]
        sim = np.sqrt(np.mean((r.answers - result.true_answers[None, :]) ** 2, axis=0))
        fig.add_trace(
            go.Scatter(
                x=x,
                y=np.maximum(sim, 1e-9),
                name=f"{name} simulated",
                **algorithm_style(r.algorithm, dash="solid"),
                legendgroup=name,
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=np.maximum(np.sqrt(r.expected_mse), 1e-9),
                name=f"{name} analytic",
                legendgroup=name,
                **algorithm_style(r.algorithm, dash="dot"),
            )
        )
    fig.update_layout(
        title=_title(
            f"Expected vs simulated RMSE, {TRUNCATION_NAMES.get(truncation, truncation)}", result
        ),
        **_LAYOUT,
    )
    fig.update_xaxes(title="threshold τ", type="log")
    fig.update_yaxes(title="root mean squared error", type="log", exponentformat="power")
    return fig


def theta_figure(result: ExperimentResult) -> go.Figure:
    """θ chosen in each trial (shared by the batch algorithms), one histogram per method."""
    fig = go.Figure()
    palette = {"svt": "#CC79A7", "recursive": "#009E73", "fixed": "#555555", "none": "#999999"}
    patterns = {"svt": "", "recursive": "/", "fixed": "x", "none": "."}  # not colour alone
    seen = set()
    for r in result.runs:
        if r.algorithm == "sqm" or r.truncation in seen or r.truncation == "none":
            continue
        seen.add(r.truncation)
        fig.add_trace(
            go.Histogram(
                x=r.theta,
                name=TRUNCATION_NAMES[r.truncation],
                opacity=0.7,
                marker_color=palette.get(r.truncation),
                marker_pattern_shape=patterns.get(r.truncation, ""),
                nbinsx=40,
            )
        )
    fig.update_layout(title=_title("θ chosen per trial", result), barmode="overlay", **_LAYOUT)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(title="θ")
    fig.update_yaxes(title="trials")
    return fig


def data_histogram_figure(
    data: Dataset, domain: Domain, *, thetas: Sequence[tuple[str, float]] = ()
) -> go.Figure:
    """Histogram of the cleaned data on the domain's bins (log counts), with θ values marked."""
    counts = histogram(data, domain)
    lower = domain.edges - domain.width
    fig = go.Figure(
        go.Bar(
            x=lower + domain.width / 2,
            y=np.where(counts > 0, counts, np.nan),
            width=domain.width,
            marker_color="#56B4E9",
            name="records per bin",
            hovertemplate="bin (%{customdata[0]:,.0f}, %{customdata[1]:,.0f}]: %{y:,} records<extra></extra>",
            customdata=np.column_stack([lower, domain.edges]),
        )
    )
    for label, value in thetas:
        if np.isfinite(value):
            fig.add_vline(
                x=value,
                line=dict(color="#D55E00", width=2, dash="dash"),
                annotation_text=label,
                annotation_position="top right",
            )
    fig.update_layout(
        title=f"{data.name}: {data.column} on {domain.bins} bins of width {domain.width:,.0f}",
        bargap=0,
        **_LAYOUT,
    )
    fig.update_layout(hovermode="closest", showlegend=False)
    fig.update_xaxes(title="value")
    fig.update_yaxes(title="records (log scale)", type="log")
    return fig


def comparison_heatmap(result: ExperimentResult, *, iso: bool = True) -> go.Figure:
    """Typical relative error of every (algorithm, truncation) pair: the paper's grid at a glance."""
    algs = [a for a in DISPLAY_NAMES if any(r.algorithm == a for r in result.runs)]
    truncs = list(dict.fromkeys(r.truncation for r in result.runs))
    z = np.full((len(algs), len(truncs)), np.nan)
    for r in result.runs:
        # Median over queries of each query's mean relative error: robust to the few tiny
        # queries (y < δ, zeros weighted by the upper bin edge) that dominate a plain mean.
        per_query = result.relative_errors(r, iso=iso).mean(axis=0)
        z[algs.index(r.algorithm), truncs.index(r.truncation)] = np.median(per_query)
    text = [[f"{v:.3g}" for v in row] for row in z]
    fig = go.Figure(
        go.Heatmap(
            z=np.log10(z),
            x=[TRUNCATION_NAMES[t] for t in truncs],
            y=[DISPLAY_NAMES[a] for a in algs],
            text=text,
            texttemplate="%{text}",
            colorscale="Viridis",
            reversescale=True,
            colorbar=dict(title="log₁₀ error"),
        )
    )
    kind = "with" if iso else "without"
    fig.update_layout(
        title=_title(f"Median over queries of mean relative error ({kind} isotonic)", result),
        **_LAYOUT,
    )
    fig.update_layout(hovermode="closest")
    fig.update_yaxes(autorange="reversed")
    return fig


def small_multiples_figure(
    result: ExperimentResult, *, iso: bool = True, kind: str = "error"
) -> go.Figure:
    """One panel per truncation method, all algorithms: relative error (``kind="error"``, log
    scale) or noisy answers with the true answers (``kind="answers"``)."""
    truncs = list(dict.fromkeys(r.truncation for r in result.runs))
    fig = make_subplots(
        rows=1,
        cols=len(truncs),
        shared_yaxes=True,
        subplot_titles=[TRUNCATION_NAMES[t] for t in truncs],
    )
    for c, t in enumerate(truncs, start=1):
        if kind == "error":
            _error_traces(fig, result, t, iso=iso, algorithms=None, row=1, col=c, legend=c == 1)
            continue
        x = result.workload.thresholds
        for r in _runs(result, t, None):
            a = r.answers_iso if iso else r.answers
            low, high = np.percentile(a, [5, 95], axis=0)
            _band(fig, x, low, high, a.mean(axis=0), r.algorithm, row=1, col=c, legend=c == 1)
        fig.add_trace(
            go.Scatter(
                x=x,
                y=result.true_answers,
                mode="lines",
                name="true answer",
                showlegend=c == 1,
                legendgroup="true",
                line=dict(color=TRUE_COLOR, width=2, dash="dash"),
            ),
            row=1,
            col=c,
        )
    what = "Relative error" if kind == "error" else "Noisy answers"
    suffix = " (with isotonic regression)" if iso else " (without isotonic regression)"
    fig.update_layout(title=_title(what + suffix, result), **_LAYOUT)
    fig.update_xaxes(title="threshold τ", type="log")
    if kind == "error":
        fig.update_yaxes(type="log", exponentformat="power")
    return fig


def epsilon_sweep_figure(
    sweep, truncation: str, *, iso: bool = True, title: str = "Error versus ε"
) -> go.Figure:
    """Error against ε per algorithm (log–log) from an :func:`~dpsum_core.experiment.epsilon_sweep`
    frame: the median over queries of each query's mean relative error (robust to the few
    tiny queries that dominate a plain mean)."""
    column = "median_rel_error_iso" if iso else "median_rel_error"
    part = sweep[sweep["truncation"] == truncation]
    fig = go.Figure()
    for alg in DISPLAY_NAMES:
        pts = part[part["algorithm"] == alg].sort_values("epsilon")
        if pts.empty:
            continue
        fig.add_trace(
            go.Scatter(
                x=pts["epsilon"],
                y=pts[column],
                name=DISPLAY_NAMES[alg],
                **algorithm_style(alg),
            )
        )
    fig.update_layout(title=title, **_LAYOUT)
    fig.update_xaxes(title="ε (total budget)", type="log")
    fig.update_yaxes(
        title="median over queries of mean relative error", type="log", exponentformat="power"
    )
    return fig


def _title(text: str, result: ExperimentResult) -> str:
    c = result.config
    return (
        f"{text}<br><sup>{result.dataset_name} · {result.workload.spec} · ε = {c.epsilon:g}, "
        f"ρ = {c.rho:g} · {c.trials} trials · seed {c.seed}</sup>"
    )


# --------------------------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------------------------
def to_html(fig: go.Figure) -> str:
    """A self-contained HTML page (plotly.js inlined: works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True)


def report_html(figures: Sequence[tuple[str, go.Figure]], *, title: str) -> str:
    """Several figures in one self-contained page with plotly.js inlined once."""
    parts = [
        f"<h2>{name}</h2>" + pio.to_html(fig, include_plotlyjs=i == 0, full_html=False)
        for i, (name, fig) in enumerate(figures)
    ]
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body style='font-family:sans-serif'><h1>{title}</h1>{''.join(parts)}</body></html>"
    )


@contextmanager
def image_export():
    """Keep one headless browser alive for several :func:`to_image` calls (≈10× faster)."""
    import kaleido

    kaleido.start_sync_server(silence_warnings=True)
    try:
        yield
    finally:
        kaleido.stop_sync_server(silence_warnings=True)


def browser_available() -> bool:
    """Whether a Chromium/Chrome for kaleido's static export is installed."""
    return any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome", "chrome"))


def to_image(fig: go.Figure, fmt: str = "png", *, width: int = 1100, height: int = 600) -> bytes:
    """PNG/SVG bytes via kaleido (needs a local Chromium; check :func:`browser_available`)."""
    return pio.to_image(fig, format=fmt, width=width, height=height, scale=2 if fmt == "png" else 1)
