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
from dpsum_core.publish.above_theta import MARK, BandCase, bands_note, not_estimated
from dpsum_core.publish.digits import (
    PUBLISHED_DIGITS,
    published,
    published_down,
    published_up,
    rounding_unit,
    shown,
)
from dpsum_core.publish.release import Release
from dpsum_core.text import NO_NEGATIVE_BAND, NOT_TOLD_FROM_ZERO

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
    low_gated
        Whether the onset gate published the answer at ``low`` as 0 (not distinguishable from
        0): ``total`` then estimates the sum in (0, ``high``], larger than the band's (by
        +11 to +35 % in review 10), and must not be quoted as the band's total; only the
        interval holds for the band.
    high_gated
        Whether the answer at ``high`` was gated too: the whole band is then at most ``upper``.
    above_theta
        Whether the released θ moves the answer at ``high`` (above θ; ClampShells: at or above
        θ*): ``total`` is then not the band's own (:mod:`~dpsum_core.publish.above_theta`:
        biased low, or for ClampShells either way).
    not_estimated
        Whether the band lies wholly above RawSum's θ* (or at or above ClampShells'): its
        ``total`` is 0 by construction, not an estimate
        (:func:`~dpsum_core.publish.above_theta.not_estimated`).
    """

    low: float
    high: float
    total: float
    lower: float
    upper: float
    low_gated: bool = False
    high_gated: bool = False
    above_theta: bool = False
    not_estimated: bool = False

    @property
    def quotable(self) -> bool:
        """Whether ``total`` is an estimate of the band's total, even a marked one (neither
        edge's answer gated, the band not wholly above θ*): release.json and bands.csv give
        no total otherwise."""
        return not (self.low_gated or self.high_gated or self.not_estimated)


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
    """The total of the values in (``low``, ``high``] with its 95 % interval (module docstring),
    flagged where its total is not the band's: an edge's answer gated by the onset gate
    (``low_gated``, ``high_gated``), or ``high``'s answer moved by the released θ
    (``above_theta``).

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
    gated = rel.gated_answers
    flags = {"low_gated": lo_i is not None and bool(gated[lo_i]), "high_gated": bool(gated[hi_i]),
             "above_theta": bool(rel.above_theta[hi_i]),
             "not_estimated": lo_i is not None and not_estimated(
                 str(rel.config["algorithm"]), bool(rel.above_theta[lo_i]))}  # fmt: skip
    if lo_i is None:  # the band from 0 is the query itself: its 95 % interval
        return BandTotal(
            low, high, float(answers[hi_i]), float(iv.lower[hi_i]), float(iv.upper[hi_i]), **flags
        )
    low_upper = float(iv.upper_975[lo_i])
    lower = 0.0 if math.isnan(low_upper) else max(float(iv.lower_975[hi_i]) - low_upper, 0.0)
    upper = float(iv.upper_975[hi_i]) - float(iv.lower_975[lo_i])
    return BandTotal(
        low, high, float(published(np.array([answers[hi_i] - answers[lo_i]]))[0]),
        float(published_down(np.array([lower]))[0]), float(published_up(np.array([upper]))[0]),
        **flags,
    )  # fmt: skip


_BAND = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*-\s*([0-9]+(?:\.[0-9]*)?)\s*$")
_DASHES = str.maketrans({"–": "-", "—": "-"})  # an en or em dash, as typed in "$15–20"


def parse_bands(text: str) -> list[tuple[float, float]]:
    """``15-20,20-30`` as [(15, 20), (20, 30)] (edges checked against a release by
    :func:`band_total`). Bands may overlap (each is totalled on its own), never repeat. An en
    or em dash reads as the hyphen (``15–20``).

    Raises
    ------
    ParameterError
        A band not written LOW-HIGH with numbers, with LOW ≥ HIGH, with a negative edge, or
        listed twice.
    """
    bands: list[tuple[float, float]] = []
    for part in text.translate(_DASHES).split(","):
        match = _BAND.match(part)
        if match is None and part.strip().startswith("-"):
            raise ParameterError(f"--bands: {part.strip()!r} starts with a minus: {NO_NEGATIVE_BAND}")
        if match is None:
            raise ParameterError(f"--bands: {part.strip()!r} is not LOW-HIGH (e.g. 15-20,20-30)")
        low, high = float(match[1]), float(match[2])
        if not low < high:
            raise ParameterError(f"--bands: {part.strip()!r} needs LOW < HIGH")
        if (low, high) in bands:
            raise ParameterError(f"--bands: {low:g}-{high:g} is listed twice: list each band once")
        bands.append((low, high))
    return bands


def band_records(rel: Release, bands: list[tuple[float, float]]) -> list[dict]:
    """release.json's ``bands`` (and bands.csv's rows): per band ``low``, ``high``, ``total``
    (``null`` where there is no total to quote, :attr:`BandTotal.quotable`: a gated edge, whose
    difference would be the total from 0 up, or a band wholly above θ*, 0 by construction),
    ``lower_95`` and ``upper_95`` (``null``: open above), and the flags of :class:`BandTotal`:
    ``low_gated``, ``high_gated`` (the band is at most ``upper_95``) and ``above_theta``
    (``total`` moved by θ: quote the interval)."""
    out = []
    for b in (band_total(rel, low, high) for low, high in bands):
        upper = None if math.isnan(b.upper) else b.upper
        total = b.total if b.quotable else None
        out.append({"low": b.low, "high": b.high, "total": total, "lower_95": b.lower,
                    "upper_95": upper, "low_gated": b.low_gated, "high_gated": b.high_gated,
                    "above_theta": b.above_theta})  # fmt: skip
    return out


def _total_cell(b: BandTotal, unit: float, upper: str) -> str:
    """The band total as the table shows it (``upper``: the interval's upper end as shown, or
    ``open``): never a number that is not the band's total. A gated high edge (so its low edge
    too) reads as a gated answer does; a gated low edge alone as "≤ upper end", since the
    difference of the answers estimates the sum from 0 up (review 10, P1-2); a band above θ is
    marked (:data:`~dpsum_core.publish.above_theta.MARK`), and one wholly above θ* reads "not
    estimated" (its 0 is no measurement)."""
    mark = f" {MARK}" if b.above_theta else ""
    if b.high_gated:
        return (NOT_TOLD_FROM_ZERO if upper == "open" else f"≤ {upper} ({NOT_TOLD_FROM_ZERO})") + mark
    if b.low_gated:
        edge = f"{b.low:,.{PUBLISHED_DIGITS}g}"
        why = (f"the answer at {edge} is {NOT_TOLD_FROM_ZERO}, so the difference would include "
               f"(0, {edge}]")  # fmt: skip
        return (f"at least {shown(b.lower, unit, math.floor)} ({why})" if upper == "open"
                else f"≤ {upper} ({why})") + mark  # fmt: skip
    if b.not_estimated:
        return f"not estimated{mark}"
    return shown(b.total, unit) + mark


def _case(b: BandTotal, upper: float) -> BandCase:
    """Which clause of :func:`~dpsum_core.publish.above_theta.bands_note` a marked band needs."""
    if b.not_estimated:
        return "wholly"
    return "to_u" if b.high >= upper * (1 - 1e-9) else "across"


def band_lines(rel: Release, bands: list[tuple[float, float]]) -> list[str]:
    """The report's table of band totals (Markdown lines; none without bands), each rounded to
    two significant digits of its interval's half-width, the ends outward (:func:`_total_cell`:
    a band with a gated edge shows no total, one above θ is marked), with what its intervals
    promise (each on its own) and the notes its rows need."""
    if not bands:
        return []
    rows, totals = [], [band_total(rel, low, high) for low, high in bands]
    for b in totals:
        open_above = math.isnan(b.upper)
        unit = rounding_unit(
            (b.upper - b.lower) / 2 if not open_above else b.total - b.lower, b.total
        )
        upper = "open" if open_above else shown(b.upper, unit, math.ceil)
        rows.append(f"| {b.low:,.{PUBLISHED_DIGITS}g} | {b.high:,.{PUBLISHED_DIGITS}g} | "
                    f"{_total_cell(b, unit, upper)} | [{shown(b.lower, unit, math.floor)}, "
                    f"{upper}{')' if open_above else ']'} |")  # fmt: skip
    notes = []
    if any(b.low_gated and not b.high_gated for b in totals):
        notes += [
            "A band whose low edge's answer was published as 0 (not distinguishable from 0) has "
            "no total to quote: the answer at its high edge minus that 0 is the total from 0 "
            "up, larger than the band's. Only its interval is stated, and it holds for the band "
            "(release.json and bands.csv flag it with low_gated = true and give no total).",
            "",
        ]
    if marked := {_case(b, float(rel.config["upper"])) for b in totals if b.above_theta}:
        notes += [bands_note(rel.theta or 0.0, str(rel.config["algorithm"]), marked), ""]
    return [
        "## Totals by band",
        "",
        "The total of the values above the band's low edge and up to its high edge: the "
        "difference of the two answers. Its interval holds the true band total with "
        "probability at least 95 %: it is made of each end's 97.5 % interval (both hold "
        "together with probability ≥ 95 %), not of their 95 % intervals. Each band's interval "
        "holds on its own: about 1 in 20 may miss, and they are not promised to hold all at "
        "once. Built from 97.5 % ends, a band's interval is wider than an answer's 95 % one, "
        "so its upper end may exceed that of the answer that contains it: this is expected.",
        "",
        "| from (above) | to (up to) | band total | 95 % interval for the true total |",
        "|---:|---:|---:|---:|",
        *rows,
        "",
        *notes,
    ]
