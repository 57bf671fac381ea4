"""Band totals: the sum of the values in (low, high], the difference of two released prefix
answers, with a 95 % interval for its TRUE value.

Subtracting two 95 % intervals does not give a 95 % interval for the difference: the ends
subtracted alike ([L_h − L_l, U_h − U_l]) can even be narrower than either, and across
([L_h − U_l, U_h − L_l]) they hold only when both intervals hold, which is promised with
probability 90 %, not 95 %. Each query's interval at 97.5 % (``lower_975``, ``upper_975``:
:data:`~dpsum_core.publish.intervals.BAND_LEVEL`, noise and bias bounded as the 95 % one) fails
with probability at most 2.5 %, so both hold with probability at least 95 % (a union bound),
and then the band's true total y_h − y_l lies in [L_h − U_l, U_h − L_l] (clipped at 0 below:
values are ≥ 0). Where the high end's interval is open above, so is the band's; where the low
end's is, the band's lower end is 0.

Privacy
-------
Post-processing of the release's published answers and interval ends: no extra ε.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from dpsum_core.errors import ParameterError
from dpsum_core.publish.digits import (
    PUBLISHED_DIGITS,
    published,
    published_down,
    published_up,
    rounding_unit,
    shown,
)
from dpsum_core.publish.release import Release
from dpsum_core.text import NOT_TOLD_FROM_ZERO

# One sentence for every report: how to state a band's total and its interval correctly.
BAND_HOWTO = (
    "**Totals by band**, e.g. the values in (15, 20]: the answer at τ = 20 minus the one at "
    "τ = 15. Its 95 % interval is **not** the difference of their 95 % intervals: it runs from "
    "lower_97_5 at 20 minus upper_97_5 at 15 (at least 0) to upper_97_5 at 20 minus lower_97_5 "
    "at 15 (answers.csv; two 97.5 % intervals hold together with probability ≥ 95 %); "
    "dpsum release --bands 15-20,20-30 lists them."
)


@dataclass(frozen=True)
class BandTotal:
    """The total of the values in (low, high] and a 95 % interval for its true value.

    Attributes
    ----------
    low, high
        The band's edges: thresholds of the release's workload (``low`` may be 0).
    total
        The released answer at ``high`` minus the one at ``low`` (0 at τ = 0).
    lower, upper
        The 95 % interval of the true band total (``upper`` NaN: open above).
    """

    low: float
    high: float
    total: float
    lower: float
    upper: float


def band_queries(thresholds: np.ndarray, low: float, high: float) -> tuple[int | None, int]:
    """The queries whose thresholds are the band's edges (None for a low edge of 0: below
    every value). Public: the workload's thresholds.

    Raises
    ------
    ParameterError
        ``low ≥ high``, or an edge that is neither 0 nor a threshold.
    """
    if not low < high:
        raise ParameterError(f"a band needs low < high, got {low:g}-{high:g}")

    def index(edge: float) -> int:
        hits = np.flatnonzero(np.isclose(thresholds, edge, rtol=1e-12, atol=0.0))
        if hits.size == 0:
            listed = ", ".join(f"{t:,.{PUBLISHED_DIGITS}g}" for t in thresholds[:8])
            more = ", …" if thresholds.size > 8 else ""
            raise ParameterError(
                f"band edge {edge:g} is not a threshold of the release's workload: use 0 or "
                f"one of its thresholds ({listed}{more})"
            )
        return int(hits[0])

    return (None if low == 0 else index(low)), index(high)


def band_total(rel: Release, low: float, high: float) -> BandTotal:
    """The total of the values in (``low``, ``high``] with its 95 % interval (module docstring).

    Parameters
    ----------
    rel
        A release with intervals.
    low, high
        0 or thresholds of its workload, ``low < high``.

    Raises
    ------
    ParameterError
        An edge that is not 0 or a threshold of the workload, ``low ≥ high``, or a release
        without its 97.5 % interval ends.

    Privacy
    -------
    Post-processing of published numbers (answers and interval ends): no extra ε.
    """
    lo_i, hi_i = band_queries(rel.thresholds, low, high)
    iv = rel.intervals
    if iv is None or iv.lower_975 is None or iv.upper_975 is None:
        raise ParameterError("this release has no 97.5 % interval ends: its bands have no interval")
    answers = np.asarray(rel.private_answers, float)
    if lo_i is None:  # the band from 0 is the query itself: its 95 % interval
        return BandTotal(
            low, high, float(answers[hi_i]), float(iv.lower[hi_i]), float(iv.upper[hi_i])
        )
    low_upper = float(iv.upper_975[lo_i])
    lower = 0.0 if math.isnan(low_upper) else max(float(iv.lower_975[hi_i]) - low_upper, 0.0)
    upper = float(iv.upper_975[hi_i]) - float(iv.lower_975[lo_i])
    return BandTotal(
        low, high, float(published(np.array([answers[hi_i] - answers[lo_i]]))[0]),
        float(published_down(np.array([lower]))[0]), float(published_up(np.array([upper]))[0]),
    )  # fmt: skip


_BAND = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*-\s*([0-9]+(?:\.[0-9]*)?)\s*$")


def parse_bands(text: str) -> list[tuple[float, float]]:
    """``15-20,20-30`` as [(15, 20), (20, 30)] (edges checked against a release by
    :func:`band_total`).

    Raises
    ------
    ParameterError
        A band not written LOW-HIGH with numbers, or with LOW ≥ HIGH.
    """
    bands = []
    for part in text.split(","):
        match = _BAND.match(part)
        if match is None:
            raise ParameterError(f"--bands: {part.strip()!r} is not LOW-HIGH (e.g. 15-20,20-30)")
        low, high = float(match[1]), float(match[2])
        if not low < high:
            raise ParameterError(f"--bands: {part.strip()!r} needs LOW < HIGH")
        bands.append((low, high))
    return bands


def band_records(rel: Release, bands: list[tuple[float, float]]) -> list[dict]:
    """release.json's ``bands``: per band ``low``, ``high``, ``total``, ``lower_95`` and
    ``upper_95`` (``null``: open above)."""
    out = []
    for b in (band_total(rel, low, high) for low, high in bands):
        upper = None if math.isnan(b.upper) else b.upper
        out.append({"low": b.low, "high": b.high, "total": b.total, "lower_95": b.lower,
                    "upper_95": upper})  # fmt: skip
    return out


def band_lines(rel: Release, bands: list[tuple[float, float]]) -> list[str]:
    """The report's table of band totals (Markdown lines; none without bands), each rounded to
    two significant digits of its interval's half-width, the ends outward; a band whose high
    end the onset gate published as 0 (so its low end too) reads as a gated answer does
    (:func:`~dpsum_core.publish.report.gated_cell`), never as a bare 0."""
    if not bands:
        return []
    rows = []
    for b in (band_total(rel, low, high) for low, high in bands):
        open_above = math.isnan(b.upper)
        unit = rounding_unit(
            (b.upper - b.lower) / 2 if not open_above else b.total - b.lower, b.total
        )
        upper = "open)" if open_above else f"{shown(b.upper, unit, math.ceil)}]"
        gated = bool(rel.gated_answers[band_queries(rel.thresholds, b.low, b.high)[1]])
        total = f"≤ {upper[:-1]} ({NOT_TOLD_FROM_ZERO})" if gated else shown(b.total, unit)
        rows.append(f"| {b.low:,.{PUBLISHED_DIGITS}g} | {b.high:,.{PUBLISHED_DIGITS}g} | "
                    f"{total} | [{shown(b.lower, unit, math.floor)}, {upper} |")  # fmt: skip
    return [
        "## Totals by band",
        "",
        "The total of the values above the band's low edge and up to its high edge: the "
        "difference of the two answers. Its interval holds the true band total with "
        "probability at least 95 %: it is made of each end's 97.5 % interval (both hold "
        "together with probability ≥ 95 %), not of their 95 % intervals.",
        "",
        "| from (above) | to (up to) | band total | 95 % interval for the true total |",
        "|---:|---:|---:|---:|",
        *rows,
        "",
    ]
