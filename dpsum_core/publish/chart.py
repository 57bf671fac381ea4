"""The report's chart: the released answers and their 95 % intervals, as a self-contained SVG
(no script, no external resource: it shows offline, inline in report.html and as a data URI in
report.md).

Privacy
-------
Drawn from a release's public parts only (thresholds, answers, interval bounds).
"""

from __future__ import annotations

import base64
import html

import numpy as np

from dpsum_core.text import NOT_TOLD_FROM_ZERO

WIDTH, HEIGHT = 720, 320
LEFT, RIGHT, TOP, BOTTOM = 90, 44, 30, 62  # RIGHT holds half the last x label
BAND, OPEN, LINE = "#9ecae1", "#fdd0a2", "#08519c"  # blue band, orange where open above


def _ticks(top: float) -> list[float]:
    """About five round tick values in [0, top]."""
    if top <= 0:
        return [0.0]
    step = 10 ** np.floor(np.log10(top / 5))
    for k in (1, 2, 5, 10):
        if top / (k * step) <= 6:
            step *= k
            break
    return [float(v) for v in np.arange(0, top * 1.0001, step)]


def _number(v: float) -> str:
    """A tick label in plain digits with separators (never e-notation)."""
    return f"{v:,.0f}" if abs(v) >= 10 or v == 0 else f"{v:,.2f}"


def interval_svg(
    thresholds: np.ndarray, answers: np.ndarray, lower: np.ndarray, upper: np.ndarray, *,
    title: str, gated: np.ndarray | None = None,
) -> str:  # fmt: skip
    """An SVG of the answers (line) and their intervals (band; orange where open above, drawn
    to the top of the chart) against the threshold τ; the answers the onset gate published as
    0 (``gated``, a leading run) dotted, "not distinguishable from 0", never a plain line at 0."""
    t = np.asarray(thresholds, float)
    a, lo, hi = (np.asarray(v, float) for v in (answers, lower, upper))
    open_above = ~np.isfinite(hi)
    top = float(np.nanmax(np.concatenate([a, lo, hi[~open_above]]))) if a.size else 1.0
    bottom = min(0.0, float(np.min(lo)) if lo.size else 0.0)
    top = top * 1.08 if top > bottom else bottom + 1.0
    x_max = float(t.max()) if t.size and t.max() > 0 else 1.0

    def x(v):
        return LEFT + (WIDTH - LEFT - RIGHT) * np.asarray(v, float) / x_max

    def y(v):
        return TOP + (HEIGHT - TOP - BOTTOM) * (top - np.asarray(v, float)) / (top - bottom)

    shown_hi = np.where(open_above, top, hi)
    band = " ".join(f"{px:.1f},{py:.1f}" for px, py in zip(x(t), y(shown_hi), strict=True))
    band += " " + " ".join(f"{px:.1f},{py:.1f}" for px, py in zip(x(t[::-1]), y(lo[::-1]), strict=True))
    parts = [f'<polygon points="{band}" fill="{BAND}" stroke="none"/>']
    for i in np.flatnonzero(open_above):  # open above: an orange column up to the top
        x0 = x(t[i - 1]) if i else x(0.0)
        parts.append(
            f'<rect x="{x0:.1f}" y="{TOP}" width="{max(x(t[i]) - x0, 1.0):.1f}" '
            f'height="{y(lo[i]) - TOP:.1f}" fill="{OPEN}"/>'
        )
    k = 0 if gated is None else int(np.asarray(gated, bool).sum())  # the gated leading run
    points = [f"{px:.1f},{py:.1f}" for px, py in zip(x(t), y(a), strict=True)]
    if k:  # dotted up to the first answer the gate let through
        parts.append(f'<polyline points="{" ".join(points[: k + 1])}" fill="none" stroke="{LINE}" '
                     'stroke-width="1.5" stroke-dasharray="2 3"/>')  # fmt: skip
    if k < len(points):
        parts.append(f'<polyline points="{" ".join(points[k:])}" fill="none" stroke="{LINE}" '
                     'stroke-width="1.5"/>')  # fmt: skip
    for v in _ticks(top):
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
            f'stroke="#ddd"/><text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">'
            f"{_number(v)}</text>"
        )
    for v in _ticks(x_max):
        parts.append(
            f'<text x="{x(v):.1f}" y="{HEIGHT - BOTTOM + 18}" text-anchor="middle">{_number(v)}</text>'
        )
    at = 380  # the gated legend takes the open-above one's place: only ClampShells gates, and
    # its intervals are all two-sided
    legend = (
        f'<rect x="{LEFT}" y="{HEIGHT - 18}" width="12" height="10" fill="{BAND}"/>'
        f'<text x="{LEFT + 16}" y="{HEIGHT - 9}">95 % interval of the true answer</text>'
        f'<line x1="{LEFT + 250}" x2="{LEFT + 270}" y1="{HEIGHT - 13}" y2="{HEIGHT - 13}" '
        f'stroke="{LINE}" stroke-width="1.5"/><text x="{LEFT + 274}" y="{HEIGHT - 9}">'
        "private answer</text>"
        + (
            f'<rect x="{LEFT + 380}" y="{HEIGHT - 18}" width="12" height="10" fill="{OPEN}"/>'
            f'<text x="{LEFT + 396}" y="{HEIGHT - 9}">open above (bias not bounded)</text>'
            if open_above.any()
            else ""
        )
        + (
            f'<line x1="{LEFT + at}" x2="{LEFT + at + 20}" y1="{HEIGHT - 13}" y2="{HEIGHT - 13}" '
            f'stroke="{LINE}" stroke-width="1.5" stroke-dasharray="2 3"/><text '
            f'x="{LEFT + at + 24}" y="{HEIGHT - 9}">{NOT_TOLD_FROM_ZERO}</text>'
            if k
            else ""
        )
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="11" role="img" '
        f'aria-label="{html.escape(title)}"><title>{html.escape(title)}</title>'
        f'<text x="{LEFT}" y="18" font-size="13">{html.escape(title)}</text>'
        + "".join(parts)
        + f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 28}" text-anchor="middle">'
        "threshold τ</text>" + legend + "</svg>"
    )


def data_uri(svg: str) -> str:
    """The SVG as a ``data:`` URI (for the Markdown report's image)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
