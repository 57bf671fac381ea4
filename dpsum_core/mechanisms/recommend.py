"""A recommended algorithm from PUBLIC inputs only: ε, U, the number of bins and the workload.

Issue 18, item 5. The recommendation is a pure function of what a release would publish anyway,
so following it leaks nothing: it never reads the data, a summary, N, or any error computed from
them (choosing an algorithm by its measured error on the data would make the choice itself
data-dependent).

The rule comes from the ClampShells study (CLAMPSHELLS.md) and ``bench/accuracy.py
--clampshells --trials 200`` on fresh synthetic columns (never sample_data): at every ε in
[0.01, 1] on Q1 and Q2, ClampShells' median relative error over queries is 1.3–7.1× below
TaMM+SVT's and, in 28 of 30 cells, at or below the better of RawSum and TaMM+SVT (the other two
at 0.92× and 0.99×: hourly wages at ε = 1). Outside that range it has not
been measured, and with fewer than 2·jmin bins its shells cannot place a clamp point below the
top; the paper's TaMM is recommended there.

>>> recommend(epsilon=0.01, upper=800_000, bins=1000, workload="Q1").algorithm
'clampshells'
>>> recommend(epsilon=5.0, upper=800_000, bins=1000, workload="Q1").algorithm
'tamm'
"""

from __future__ import annotations

from dataclasses import dataclass

from dpsum_core import limits
from dpsum_core.mechanisms.clampshells import MIN_CLAMP_BIN
from dpsum_core.validation import check_epsilon, check_int, check_positive

MEASURED_EPSILON = (0.01, 1.0)  # the ε range of the study behind the rule (ClampShells below it)
FALLBACK = "tamm"  # the paper's recommended algorithm


@dataclass(frozen=True)
class Recommendation:
    """The recommended algorithm's name and a one-line reason (public: no data behind it)."""

    algorithm: str
    why: str


def recommend(*, epsilon: float, upper: float, bins: int, workload: str) -> Recommendation:
    """The algorithm to use for ``workload`` over [0, ``upper``] in ``bins`` bins at ``epsilon``.

    Parameters
    ----------
    epsilon, upper, bins, workload
        Public inputs only. ``upper`` and ``workload`` do not change today's rule (the study
        found the same ranking for Q1 and Q2 and every U tried); they are part of the signature
        so that a finer public rule needs no new callers.

    Privacy
    -------
    Reads no data: following it costs no budget and reveals nothing.
    """
    epsilon = check_epsilon(epsilon)
    check_positive(upper, "upper")
    bins = check_int(bins, "bins", low=1, high=limits.MAX_BINS)
    del workload  # public, unused by the current rule (see above)
    if bins < 2 * MIN_CLAMP_BIN:
        return Recommendation(
            FALLBACK, f"with {bins} bins ClampShells cannot clamp below the top: TaMM"
        )
    if epsilon > MEASURED_EPSILON[1]:
        return Recommendation(
            FALLBACK, f"ClampShells was measured up to ε = {MEASURED_EPSILON[1]:g}: the paper's TaMM"
        )
    return Recommendation(
        "clampshells",
        "it locates θ from noisy shell sums and clamps there: 1.3–7.1× lower median error than "
        "TaMM+SVT at ε from 0.01 to 1 in the design study (public inputs only)",
    )


def rule_in_words() -> str:
    """The rule above in one sentence, for the guide, About and the README (one source).

    >>> "ClampShells" in rule_in_words()
    True
    """
    low, high = MEASURED_EPSILON
    return (
        f"dpsum recommends **ClampShells** for ε up to {high:g} (measured from ε = {low:g}, "
        f"where it gains the most) whenever the domain has at least "
        f"{2 * MIN_CLAMP_BIN} bins, and the paper's **TaMM** otherwise; the rule reads only "
        "public inputs (ε, U, bins, workload), never the data"
    )
