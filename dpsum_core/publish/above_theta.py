"""Answers reached by the released θ: which queries its clamp (or drop) moves, and how.

What an algorithm does with the values above its θ is in the answers at the thresholds τ it
reaches, and it differs by algorithm (:func:`kind`):

- ``clamps`` (the paper's five: SQM, Identity, Workload, TiMM, TaMM): each value above θ is
  counted as θ where it lies, so an answer at τ > θ is biased low, as is a band reaching above
  θ (a top band measured −44 % on average where θ was 5,120 below its 10,000 edge; review 10,
  P2-3);
- ``drops`` (RawSum): the bins above θ* are left out (counted as 0), so an answer at τ > θ* is
  biased low (it stays at the answer at θ*), and a band wholly above θ* totals 0;
- ``gathers`` (ClampShells): every value above θ* is counted as θ* in every answer at τ ≥ θ*
  (those above τ too: they sit at θ*), so such an answer may be too low or too high, a band
  wholly at or above θ* totals 0 and one across θ* takes in every value above θ* (its 3,000–
  5,000 band averaged +34 % in review 10).

The answers' intervals allow for this (each algorithm's bias bounds; open above where nothing
released bounds it), but the number alone must not be quoted as the sum up to τ without saying
so: the report marks those rows with :data:`MARK` and explains them under the table,
answers.csv flags them (``above_theta``), release.json lists their τ (``above_theta_thresholds``)
and flags its bands.

Privacy
-------
Public parts only: the thresholds, the released θ, U and the algorithm's name.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from dpsum_core.mechanisms.algorithm import INSIDE, POSTHOC
from dpsum_core.mechanisms.registry import get
from dpsum_core.publish.digits import PUBLISHED_DIGITS
from dpsum_core.text import CLIPPED_AT_U, NO_THETA, counted

MARK = "†"  # after an answer or a band total that θ moved, explained under its table
# θ is published to PUBLISHED_DIGITS significant digits: a τ within that rounding of θ (a
# threshold on the very bin edge θ* is) counts as equal to it.
_ROUNDING = 10.0 ** (1 - PUBLISHED_DIGITS)

Kind = Literal["clamps", "drops", "gathers"]
BandCase = Literal["across", "to_u", "wholly"]


def kind(algorithm: str) -> Kind:
    """How ``algorithm`` treats the values above its θ (module docstring)."""
    rule = get(algorithm).theta_rule
    return "drops" if rule == POSTHOC else "gathers" if rule == INSIDE else "clamps"


def above_theta(thresholds: np.ndarray, theta: float | list[float] | None, *, algorithm: str,
                upper: float) -> np.ndarray:
    """Per query, whether the released θ moves its answer: τ above θ (one number, SQM's one per
    query), or at or above θ* for ClampShells (:func:`kind`), whose answers from θ* up all
    take in the values above θ*; never where θ is ``None`` (nothing truncated) or U or above.

    >>> t = np.array([500.0, 5120, 10_000])
    >>> above_theta(t, 5120.0, algorithm="tamm", upper=1e4).tolist()
    [False, False, True]
    >>> above_theta(t, 5120.0, algorithm="clampshells", upper=1e4).tolist()
    [False, True, True]
    >>> above_theta(t, [400.0, 6000, 1e4], algorithm="sqm", upper=1e4).tolist()
    [True, False, False]
    """
    tau = np.asarray(thresholds, float)
    if theta is None:
        return np.zeros(tau.size, bool)
    released = np.broadcast_to(np.asarray(theta, float), tau.shape)
    moved = released < upper * (1 - _ROUNDING)
    if kind(algorithm) == "gathers":
        return moved & (tau >= released * (1 - _ROUNDING))
    return moved & (tau > released * (1 + _ROUNDING))


def effect(algorithm: str) -> str:
    """What ``algorithm`` does with the values above θ, after "values above it are".

    >>> effect("tamm"), effect("rawsum")
    ('counted as θ', 'left out (RawSum drops the bins above its θ*)')
    """
    return {
        "clamps": "counted as θ",
        "drops": "left out (RawSum drops the bins above its θ*)",
        "gathers": "counted as θ* in every answer at τ ≥ θ*, those above τ too",
    }[kind(algorithm)]


def theta_words(theta, upper: float, *, digits: int = PUBLISHED_DIGITS,
                algorithm: str | None = None) -> str:
    """The released θ in words (``None``: no θ; a list: SQM's θ per query), with ``digits``
    significant digits and what ``algorithm`` did with the values above it (:func:`effect`;
    without it, "counted as θ"); where no θ clamps below U, what does: cleaning's public clip
    at U.

    Privacy
    -------
    Public inputs only (the released θ and U): never how many values cleaning clipped.
    """
    if theta is None:
        return NO_THETA
    if isinstance(theta, list):
        untruncated = sum(t >= upper for t in theta)
        return f"one per query ({', '.join(f'{t:,.{digits}g}' for t in theta)})" + (
            f"; at {counted(untruncated, 'query', 'queries')} θ is U or above: nothing clamped "
            f"there beyond U, where {CLIPPED_AT_U}"
            if untruncated else ""
        )
    if theta >= upper:
        return f"θ = U = {theta:,.{digits}g}, the top of the domain (nothing clamped below U; {CLIPPED_AT_U})"
    said = "counted as θ" if algorithm is None else effect(algorithm)
    return f"{theta:,.{digits}g} (values above it {said})"


def _theta_said(theta: float | list[float], algorithm: str) -> str:
    if isinstance(theta, list):
        return "its own θ (SQM chooses one per query)"
    star = "*" if kind(algorithm) != "clamps" else ""
    return f"the released θ{star} = {theta:,.{PUBLISHED_DIGITS}g}"


def answers_note(theta: float | list[float] | None, algorithm: str, flagged: np.ndarray,
                 bounded: np.ndarray) -> str | None:
    """The note under the answers table when some rows are marked (``flagged``:
    :func:`above_theta`; ``bounded``: per query, whether its bias is bounded), else None."""
    if theta is None or not flagged.any():
        return None
    allows = "its interval allows for that bias" + (
        "; where it is open above, nothing released bounds it" if (flagged & ~bounded).any() else ""
    )
    said = _theta_said(theta, algorithm)
    how = {
        "clamps": f"τ above {said}: values above θ are counted as θ, so the answer is biased "
        "low, below the full sum up to τ",
        "drops": f"τ above {said}: RawSum leaves out the values above θ* (it drops the bins "
        "above it), so the answer is biased low, below the full sum up to τ",
        "gathers": f"τ at or above {said}: ClampShells counts every value above θ* as θ* in "
        "these answers, those above τ too, so the answer is not the sum up to τ: it may be "
        "too low or too high",
    }[kind(algorithm)]
    return f"{MARK} {how} ({allows}). answers.csv flags these rows with above_theta = true."


def bands_note(theta: float | list[float], algorithm: str, cases: set[BandCase]) -> str:
    """The note under the band table when some band is marked (:func:`above_theta` at its high
    edge): one plain instruction (quote the interval, not the total), then what the algorithm
    did to each kind of marked band present (``cases``): ``across``, a band reaching above θ
    that ends below U; ``to_u``, one that ends at U (no value lies above it, so nothing above
    the band is taken in); ``wholly``, one wholly above RawSum's θ* or at or above ClampShells'
    (:func:`not_estimated`: its total reads "not estimated").

    >>> bands_note(51.2, "rawsum", {"wholly"})[:60]
    '† Quote the interval of a band marked †, not its total: a ba'
    """
    said, value = _theta_said(theta, algorithm), _theta_value(theta)
    words: dict[Kind, dict[BandCase, str]] = {
        "clamps": {
            "across": f"a band reaching above {said} counts each value above θ as θ, so its "
            "total is biased low",
            "to_u": f"a band reaching above {said} counts each value above θ as θ, so its "
            "total is biased low",
        },
        "drops": {
            "across": f"a band reaching above {said} leaves out its values above θ* (RawSum "
            "drops them), so its total is biased low",
            "to_u": f"a band reaching above {said} leaves out its values above θ* (RawSum "
            "drops them), so its total is biased low",
            "wholly": f"a band wholly above θ* reads \"not estimated\": RawSum left out the "
            f"values above θ* = {value}, so nothing in the band was measured",
        },
        "gathers": {
            "across": f"a band across {said} that ends below U takes in every value above θ*, "
            "those above the band too, each counted as θ*, so its total may be too low or too "
            "high",
            "to_u": f"a band from below {said} up to U takes in every value above θ*, each "
            "counted as θ*, so its total is biased low",
            "wholly": f"a band at or above θ* reads \"not estimated\": ClampShells counts "
            f"every value above θ* = {value} at θ* itself, so nothing in the band is measured",
        },
    }
    own = words[kind(algorithm)]
    order: tuple[BandCase, ...] = ("across", "to_u", "wholly")
    clauses = list(dict.fromkeys(own[c] for c in order if c in cases and c in own))
    return (
        f"{MARK} Quote the interval of a band marked {MARK}, not its total: "
        + "; ".join(clauses)
        + ". The interval still holds the band's true total: it allows for this (release.json "
        "and bands.csv flag these bands with above_theta = true)."
    )


def not_estimated(algorithm: str, low_moved: bool) -> bool:
    """Whether a band whose low edge's answer the released θ moves (``low_moved``:
    :func:`above_theta` at it) has no estimate at all: RawSum (values above θ* left out) and
    ClampShells (gathered at θ*) give every answer from θ* up the same total, so the band's
    difference is 0 by construction, not a measurement. Clamping still measures such a band
    (each value as θ: biased low)."""
    return low_moved and kind(algorithm) != "clamps"


def _theta_value(theta: float | list[float]) -> str:
    return "its θ" if isinstance(theta, list) else f"{theta:,.{PUBLISHED_DIGITS}g}"
