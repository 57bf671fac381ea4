"""The published precision: every number a release publishes (answers, θ, interval ends) and
every CSV file people read carries :data:`PUBLISHED_DIGITS` significant digits.

Privacy
-------
Rounding is post-processing of public numbers: it also drops the low-order bits of the
floating-point noise.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

# Significant digits of every published number (answers, θ, interval ends): a public precision,
# post-processing, which also drops the low-order bits of the floating-point noise.
PUBLISHED_DIGITS = 9

_POWERS_OF_TEN = 10.0 ** np.arange(23)  # exact doubles


def published(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to :data:`PUBLISHED_DIGITS` significant digits (post-processing).

    Vectorised (run's CSV files hold millions of numbers): each value x becomes
    rint(x·10ᵏ)/10ᵏ with k chosen so the integer has PUBLISHED_DIGITS digits; both factors are
    exact doubles for |k| ≤ 22, so the result is the double nearest to the rounded decimal and
    prints as that decimal. The few values outside that range (|x| < 10⁻¹⁴ or > 10³⁰) go
    through Python's ``%g``. Zero, NaN and ±∞ are kept.
    """
    x = np.asarray(values, float)
    out = x.copy()
    nonzero = np.isfinite(x) & (x != 0)
    with np.errstate(divide="ignore"):
        k = PUBLISHED_DIGITS - 1 - np.floor(np.log10(np.abs(np.where(nonzero, x, 1.0))))
    fast = nonzero & (np.abs(k) <= 22)
    power = _POWERS_OF_TEN[np.abs(k[fast]).astype(np.intp)]
    scaled = np.where(k[fast] >= 0, x[fast] * power, x[fast] / power)
    out[fast] = np.where(k[fast] >= 0, np.rint(scaled) / power, np.rint(scaled) * power)
    slow = nonzero & ~fast
    out[slow] = [float(f"{v:.{PUBLISHED_DIGITS}g}") for v in x[slow]]
    return out


def published_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every float column through :func:`published`: the CSV files people read
    (run's answers and summary, the Explorer's downloads) carry the release's digits."""
    return frame.assign(
        **{c: published(frame[c].to_numpy()) for c in frame.columns if frame[c].dtype.kind == "f"}
    )


def published_down(values: np.ndarray) -> np.ndarray:
    """:func:`published`, rounded down: a published lower bound never rises above the exact one."""
    values = np.asarray(values, float)
    out = published(values)
    return np.where(out > values, published(values - 1e-8 * np.abs(values)), out)


def published_up(values: np.ndarray) -> np.ndarray:
    """:func:`published`, rounded up (NaN stays NaN: an open bound)."""
    return -published_down(-np.asarray(values, float))


def rounding_unit(half_width: float, value: float) -> float:
    """The rounding unit of a number shown with its interval: two significant digits of the
    interval's half-width (of the value itself when the interval has no width)."""
    scale = half_width if half_width > 0 and math.isfinite(half_width) else abs(value)
    if scale <= 0 or not math.isfinite(scale):
        return 1.0
    return 10.0 ** (math.floor(math.log10(scale)) - 1)


def shown(value: float, unit: float, how=round) -> str:
    """``value`` rounded to ``unit`` (``how``: round, math.floor, math.ceil), with separators."""
    places = max(0, -round(math.log10(unit)))
    rounded = how(value / unit) * unit
    return "0" if rounded == 0 else f"{rounded:,.{places}f}"  # 0 alike everywhere, never "-0.0"
