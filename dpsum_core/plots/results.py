"""Figures of one run: noisy answers with 5–95 % bands, relative error, isotonic vs not, analytic
vs simulated error, θ per trial, the comparison heatmap, small multiples and the ε sweep.
"""


from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpsum_core.mechanisms.algorithm import INSIDE, POSTHOC, RUNS_ONCE
from dpsum_core.mechanisms.registry import ALGORITHMS, REGISTRY, get, truncation_label
from dpsum_core.mechanisms.registry import label as algorithm_label
from dpsum_core.plots.style import (
    _LAYOUT,
    ERROR_FLOOR,
    IN_UNIT,
    INTERACTIVE_ONLY,
    PERCENT_LOG,
    TRUE_COLOR,
    _rgba,
    _title,
    algorithm_style,
    log_ticks,
)
from dpsum_core.simulate.results import (
    ExperimentResult,
    Run,
    headline,
    headline_name,
    percent,
)
from dpsum_core.text import NO_THETA_SHORT, counted, summed

if TYPE_CHECKING:  # analytics imports this module
    pass

# Answers figures: the y axis spans the true answers plus at most this share of their span on
# each side (bands beyond are cut off, with a note), so one wild band cannot flatten the rest.
ANSWER_AXIS_MARGIN = 0.5


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
    alg = REGISTRY.get(algorithm)
    color = alg.color if alg else "#777777"
    name = name or algorithm_label(algorithm)
    kw = {} if row is None else dict(row=row, col=col)
    fig.add_trace(
        go.Scatter(
            x=np.concatenate([x, x[::-1]]),
            y=np.concatenate([high, low[::-1]]),
            fill="toself",
            fillcolor=_rgba(color, 0.18),
            line=dict(width=0),
            hoverinfo="skip",
            legendgroup=name,
            showlegend=False,
            name=f"{name} 5–95%",
        ),
        **kw,
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=mean,
            **algorithm_style(algorithm),
            legendgroup=name,
            showlegend=legend,
            name=name,
        ),
        **kw,
    )


def _runs(result: ExperimentResult, truncation: str, algorithms: Iterable[str] | None) -> list[Run]:
    """The runs shown in a view of ``truncation``: its own, plus the post-hoc algorithms (which
    run once whatever truncation is listed) as a reference in every view."""
    wanted = set(algorithms) if algorithms is not None else None
    return [
        r
        for r in result.runs
        if (r.truncation == truncation or r.truncation in RUNS_ONCE) and (wanted is None or r.algorithm in wanted)
    ]


def truncation_views(result: ExperimentResult) -> list[str]:
    """Truncation methods that get a view (panel, tab): the listed ones, or ``posthoc`` alone
    when only post-hoc algorithms ran."""
    truncs = list(dict.fromkeys(r.truncation for r in result.runs))
    listed = [t for t in truncs if t not in RUNS_ONCE]
    return listed or truncs


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
    shown = [result.true_answers]
    for r in _runs(result, truncation, algorithms):
        shown += _answer_band(fig, result, r, iso=iso)
    fig.add_trace(
        go.Scatter(
            x=x,
            y=result.true_answers,
            mode="lines",
            name="true answer",
            line=dict(color=TRUE_COLOR, width=2, dash="dash"),
        )
    )
    title = f"Noisy answers, {truncation_label(truncation)}"
    title += " + isotonic" if iso else ""
    fig.update_layout(title=_title(title, result), **_LAYOUT)
    _band_key(fig)
    what = summed(result.cleaning.get("id_column") is not None)  # per row or per person
    # two short lines: one line was cut on a phone (390 px)
    fig.update_xaxes(title=f"threshold τ{IN_UNIT}<br>(query sums {what} ≤ τ)", type="log",
                     **log_ticks(x, amounts=True))  # fmt: skip
    fig.update_yaxes(title=f"sum of {what} ≤ τ<br>in the data's unit")
    _answers_axis(fig, result.true_answers, shown)
    return fig


# What the shading of an answers figure is, so that it is not read as a release's "95 %
# interval for the true answer" (review 9): a legend entry of two short lines (a phone's width).
BAND_KEY = "shaded: 5–95 % of simulated answers (the<br>noise's spread), not an interval for the truth"


def _band_key(fig: go.Figure) -> None:
    """The legend entry naming the shading (a grey swatch; no data)."""
    fig.add_trace(
        go.Scatter(x=[None], y=[None], mode="none", fill="toself", fillcolor=_rgba("#777777", 0.3),
                   name=BAND_KEY, hoverinfo="skip")
    )  # fmt: skip


def _answer_band(fig, result, r: Run, *, iso: bool, row=None, col=None, legend=True) -> list:
    """Draw one run's mean answer and 5–95 band; return the plotted arrays (for the axis)."""
    a = r.answers_iso if iso else r.answers
    low, high = np.percentile(a, [5, 95], axis=0)
    mean = a.mean(axis=0)
    x = result.workload.thresholds
    _band(fig, x, low, high, mean, r.algorithm, row=row, col=col, legend=legend)
    return [low, high, mean]


def answers_axis_range(
    true_answers: np.ndarray, shown: Sequence[np.ndarray]
) -> tuple[list[float], bool]:
    """The y range of an answers figure, led by the true answers, and whether it clips.

    At small ε one noisy band can reach 10× the largest true answer, and a linear axis fitted
    to it flattens everything else. The axis therefore covers the true answers plus at most
    ``ANSWER_AXIS_MARGIN`` of their span on each side; whatever lies beyond is cut off (and
    the figure says so).
    """
    y = np.asarray(true_answers, dtype=float)
    lo_true, hi_true = float(np.min(y)), float(np.max(y))
    # the true answers' spread (their size, or 1, when they are all equal)
    span = (hi_true - lo_true) or abs(hi_true) or 1.0
    limit_lo = lo_true - ANSWER_AXIS_MARGIN * span
    limit_hi = hi_true + ANSWER_AXIS_MARGIN * span
    values = np.concatenate([np.ravel(v) for v in shown]) if shown else y
    values = values[np.isfinite(values)]
    data_lo = float(values.min()) if values.size else lo_true
    data_hi = float(values.max()) if values.size else hi_true
    lo = min(max(data_lo, limit_lo), lo_true)
    hi = max(min(data_hi, limit_hi), hi_true)
    pad = 0.03 * (hi - lo or 1.0)
    clipped = data_lo < limit_lo or data_hi > limit_hi
    return [lo - pad, hi + pad], clipped


CLIPPED_NOTE = "axis led by the true answers:<br>bands beyond it are cut off"
CLIPPED_HINT = "(Autoscale shows all)"  # the chart's toolbar: in the browser only


def _answers_axis(fig: go.Figure, true_answers: np.ndarray, shown: Sequence[np.ndarray]) -> None:
    yrange, clipped = answers_axis_range(true_answers, shown)
    fig.update_yaxes(range=yrange, autorange=False)
    if clipped:
        fig.add_annotation(
            text=CLIPPED_NOTE, xref="paper", yref="paper", x=0.0, y=1.0, xanchor="left",
            yanchor="top", showarrow=False, font=dict(size=12, color="#444444"), align="left",
            bgcolor="rgba(255,255,255,0.8)", name="clipped_note",
        )  # fmt: skip
        fig.add_annotation(
            text=CLIPPED_HINT, xref="paper", yref="paper", x=0.0, y=1.0, xanchor="left",
            yanchor="top", yshift=-40, showarrow=False, font=dict(size=12, color="#444444"),
            bgcolor="rgba(255,255,255,0.8)", name=INTERACTIVE_ONLY,
        )  # fmt: skip


def relative_error_figure(
    result: ExperimentResult,
    truncation: str,
    *,
    iso: bool = False,
    algorithms: Iterable[str] | None = None,
) -> go.Figure:
    """Relative error |ŷ−y|/max(y,δ) per query: mean with 5–95 band, log scale (Fig. 3)."""
    fig = go.Figure()
    floored = _error_traces(fig, result, truncation, iso=iso, algorithms=algorithms)
    title = f"Relative error, {truncation_label(truncation)}"
    title += " + isotonic" if iso else ""
    fig.update_layout(title=_title(title, result), **_LAYOUT)
    fig.update_xaxes(title=f"threshold τ{IN_UNIT}", type="log",
                     **log_ticks(result.workload.thresholds, amounts=True))  # fmt: skip
    fig.update_yaxes(title="relative error", **PERCENT_LOG)
    _floor_line(fig, floored)
    return fig


def _error_traces(fig, result, truncation, *, iso, algorithms, row=None, col=None, legend=True):
    """Draw the error bands; return whether any drawn value sits on the ERROR_FLOOR."""
    x = result.workload.thresholds
    floored = False
    for r in _runs(result, truncation, algorithms):
        # A log axis cannot show 0: exact answers are drawn at the floor ERROR_FLOOR, and
        # _floor_line labels that floor so it is not read as a tiny error.
        rel = np.maximum(result.relative_errors(r, iso=iso), ERROR_FLOOR)
        low, high = np.percentile(rel, [5, 95], axis=0)
        mean = rel.mean(axis=0)
        floored = floored or bool(np.any(low <= ERROR_FLOOR) or np.any(mean <= ERROR_FLOOR))
        _band(fig, x, low, high, mean, r.algorithm, row=row, col=col, legend=legend)
    return floored


FLOOR_NOTE = "error 0 (exact answer), drawn at 0.0001 %"


def _floor_line(fig: go.Figure, floored: bool) -> None:
    """Label the floor where exact (zero-error) answers are drawn on the log axis."""
    if not floored:
        return
    fig.add_hline(
        y=ERROR_FLOOR, line=dict(color="#444444", width=1, dash="dot"), row="all", col="all"
    )
    fig.add_annotation(
        # on a log axis an annotation's y is log10 of the value; "y" is the first panel's axis
        text=FLOOR_NOTE, xref="paper", yref="y", x=1.0, y=np.log10(ERROR_FLOOR), xanchor="right",
        yanchor="bottom", showarrow=False, font=dict(size=12, color="#444444"),
        bgcolor="rgba(255,255,255,0.8)", name="floor_note",
    )  # fmt: skip


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
    floored = _error_traces(fig, result, truncation, iso=False, algorithms=algorithms, row=1, col=1)
    floored |= _error_traces(
        fig, result, truncation, iso=True, algorithms=algorithms, row=1, col=2, legend=False
    )
    fig.update_layout(
        title=_title(
            f"Isotonic regression, {truncation_label(truncation)}", result
        ),
        **_LAYOUT,
    )
    fig.update_xaxes(title=f"threshold τ{IN_UNIT}", type="log",
                     **log_ticks(result.workload.thresholds, amounts=True))  # fmt: skip
    fig.update_yaxes(**PERCENT_LOG)
    fig.update_yaxes(title="relative error", row=1, col=1)
    _floor_line(fig, floored)
    return fig


def expected_error_figure(
    result: ExperimentResult, truncation: str, *, algorithms: Iterable[str] | None = None
) -> go.Figure:
    """Analytic expected RMSE (dotted) over the simulated RMSE (solid) per query.

    One legend entry per algorithm (its two lines toggle together) and one per line style, so
    that the legend of six algorithms fits beside the plot instead of scrolling.
    """
    x = result.workload.thresholds
    fig = go.Figure()
    for style, dash, words in (("simulated", "solid", "solid"), ("analytic", "dot", "dotted")):
        fig.add_trace(
            go.Scatter(x=[None], y=[None], mode="lines", name=f"{words}: {style}",
                       line=dict(color="#555555", width=2, dash=dash), hoverinfo="skip")
        )  # fmt: skip
    for r in _runs(result, truncation, algorithms):
        name = algorithm_label(r.algorithm)
        sim = np.sqrt(np.mean((r.answers - result.true_answers[None, :]) ** 2, axis=0))
        fig.add_trace(
            go.Scatter(
                x=x,
                y=np.maximum(sim, 1e-9),
                name=name,
                hovertemplate=f"{name} simulated: %{{y:.3g}}<extra></extra>",
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
                showlegend=False,  # its algorithm's entry toggles it; its style has an entry
                **algorithm_style(r.algorithm, dash="dot"),
            )
        )
    fig.update_layout(
        title=_title(
            f"Expected vs simulated RMSE, {truncation_label(truncation)}", result
        ),
        **_LAYOUT,
    )
    fig.update_xaxes(title=f"threshold τ{IN_UNIT}", type="log",
                     **log_ticks(result.workload.thresholds, amounts=True))  # fmt: skip
    fig.update_yaxes(title=f"root mean squared error{IN_UNIT}", type="log",
                     exponentformat="power")  # fmt: skip
    return fig


def theta_figure(result: ExperimentResult) -> go.Figure:
    """θ chosen in each trial (shared by the batch algorithms), one histogram per method."""
    fig = go.Figure()
    palette = {
        "svt": "#CC79A7",
        "recursive": "#009E73",
        "fixed": "#555555",
        "none": "#999999",
        POSTHOC: "#E69F00",
        INSIDE: "#000000",
    }
    patterns = {"svt": "", "recursive": "/", "fixed": "x", "none": ".", POSTHOC: "+", INSIDE: "-"}  # not colour alone
    seen: set[str] = set()
    for r in result.runs:
        if get(r.algorithm).per_query or r.truncation in seen | {"none"}:
            continue
        seen.add(r.truncation)
        theta = np.asarray(r.theta, float)
        finite = np.isfinite(theta)
        name = truncation_label(r.truncation)
        if not finite.all():  # θ = ∞ (nothing truncated): said, not drawn — an ∞ in the data
            # made plotly.js draw an empty chart (RawSum's θ* when no shell near U is occupied);
            # in the Summary table's words ("Median θ: none beyond U")
            name += f" (θ {NO_THETA_SHORT} in {counted(int((~finite).sum()), 'trial')}, not drawn)"
        fig.add_trace(
            go.Histogram(
                x=theta[finite],
                name=name,
                opacity=0.7,
                marker_color=palette.get(r.truncation),
                marker_pattern_shape=patterns.get(r.truncation, ""),
                nbinsx=40,
            )
        )
    fig.update_layout(title=_title("θ chosen per trial", result), barmode="overlay", **_LAYOUT)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(title=f"θ{IN_UNIT}")
    fig.update_yaxes(title="trials")
    return fig


NO_CONFIGURATION = "not applicable"  # the heatmap's text for a pair that is not a configuration


def comparison_heatmap(result: ExperimentResult, *, iso: bool = True) -> go.Figure:
    """Typical relative error of every (algorithm, truncation) pair: the paper's grid at a glance."""
    algs = [a for a in ALGORITHMS if any(r.algorithm == a for r in result.runs)]
    truncs = list(dict.fromkeys(r.truncation for r in result.runs))
    z = np.full((len(algs), len(truncs)), np.nan)
    for r in result.runs:
        # The headline metric (results.headline): robust to the few tiny queries (y < δ, zeros
        # weighted by the upper bin edge) that dominate a plain mean.
        z[algs.index(r.algorithm), truncs.index(r.truncation)] = headline(
            result.relative_errors(r, iso=iso)
        )
    # A pair that was not run is not a configuration (RawSum chooses θ only after measuring,
    # the others only before): say so in its cell rather than print "nan". Errors in percent,
    # as the Explorer's summary (results.percent).
    text = [[percent(v) if np.isfinite(v) else NO_CONFIGURATION for v in row] for row in z]
    kind = "with" if iso else "without"
    shown = z[np.isfinite(z) & (z > 0)]
    decades = (
        np.arange(np.floor(np.log10(shown.min())), np.ceil(np.log10(shown.max())) + 1)
        if shown.size
        else np.array([])
    )
    fig = go.Figure(
        go.Heatmap(
            z=np.log10(z),
            x=[truncation_label(t) for t in truncs],
            y=[algorithm_label(a) for a in algs],
            text=text,
            texttemplate="%{text}",
            hovertemplate="%{y} · %{x}: %{text}<extra></extra>",
            customdata=100 * z,  # full-precision percentages, for the chart's data table and CSV
            name=f"{headline_name().capitalize()} {kind} isotonic (%)",  # the table's column
            hoverongaps=True,
            colorscale="Viridis",
            reversescale=True,
            colorbar=dict(
                title="error (log scale)",
                tickvals=decades,
                ticktext=[percent(10.0**d) for d in decades],
            ),
        )
    )
    fig.update_layout(
        title=_title(f"{headline_name().capitalize()} ({kind} isotonic)", result),
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
    truncs = truncation_views(result)
    fig = make_subplots(
        rows=1,
        cols=len(truncs),
        shared_yaxes=True,
        subplot_titles=[truncation_label(t) for t in truncs],
    )
    floored, shown = False, [result.true_answers]
    for c, t in enumerate(truncs, start=1):
        if kind == "error":
            floored |= _error_traces(
                fig, result, t, iso=iso, algorithms=None, row=1, col=c, legend=c == 1
            )
            continue
        x = result.workload.thresholds
        for r in _runs(result, t, None):
            shown += _answer_band(fig, result, r, iso=iso, row=1, col=c, legend=c == 1)
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
    fig.update_xaxes(title=f"threshold τ{IN_UNIT}", type="log",
                     **log_ticks(result.workload.thresholds, amounts=True))  # fmt: skip
    if kind == "error":
        fig.update_yaxes(**PERCENT_LOG)
        _floor_line(fig, floored)
    else:
        _answers_axis(fig, result.true_answers, shown)
    return fig


def epsilon_sweep_figure(
    sweep, truncation: str, *, iso: bool = True, title: str = "Error versus ε"
) -> go.Figure:
    """Error against ε per algorithm (log–log) from an :func:`~dpsum_core.simulate.experiment.epsilon_sweep`
    frame: the median over queries of each query's mean relative error (robust to the few
    tiny queries that dominate a plain mean)."""
    column = "median_rel_error_iso" if iso else "median_rel_error"
    part = sweep[sweep["truncation"].isin((truncation, *RUNS_ONCE))]
    fig = go.Figure()
    for alg in ALGORITHMS:
        pts = part[part["algorithm"] == alg].sort_values("epsilon")
        if pts.empty:
            continue
        fig.add_trace(
            go.Scatter(
                x=pts["epsilon"],
                y=pts[column],
                name=algorithm_label(alg),
                **algorithm_style(alg),
            )
        )
    fig.update_layout(title=title, **_LAYOUT)
    fig.update_xaxes(title="ε (total budget)", type="log",
                     **log_ticks(part["epsilon"]))  # fmt: skip
    fig.update_yaxes(title=headline_name(), **PERCENT_LOG)
    return fig
