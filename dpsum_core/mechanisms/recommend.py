"""A recommended algorithm from PUBLIC inputs only: ε, U, the number of bins and the workload.

Issues 18 (item 5) and 26. The recommendation is a pure function of what a release would
publish anyway, so following it leaks nothing: it never reads the data, a summary, N, or any
error computed from them (choosing an algorithm by its measured error on the data would make
the choice itself data-dependent). It is also the algorithm ``auto`` of ``dpsum run`` and
``dpsum release``.

The rule comes from ``bench/accuracy.py --suite`` (nine synthetic columns, Q1 and Q2, every
algorithm; chosen on the tuning split, columns seed 7, and reported on the reporting split,
columns seed 2024, never on sample_data):

- ε ≤ 3: ClampShells. Reporting split (columns seed 2024, noise seed 0), 50 trials, ε ∈ {0.01,
  0.03, 0.1, 0.3, 1}: within 10 % of the best of all algorithms on the median over queries in
  90 of 90 cells and, with ClampShells' partition and its heap-weighted interpolation
  (bench/ACCURACY.md, Rounds 6 and 8), on the mean over queries in 90 of 90 (the closest: hourly,
  Q1, ε = 1, 1.05× RawSum's; 1.02× over 2,000 trials; 86 of 90 before the partition, worst
  1.76×); the second held-out set (columns seed 2025): 90 of 90 on both.
  3.8–9.0× below TaMM+SVT (s = U/40) on the median at ε = 0.01
  (bench/ACCURACY.md). Tuning split (seeds 7 and 8), ε ∈ {2, 3}: ClampShells' tree of depth 2 beats
  RawSum's median in 12 of 18 cells (0.79–0.92×); RawSum leads on hourly (1.1–1.5×),
  top-coded (1.04–1.41×) and rounded (1.01–1.09×).
- ε > 3: RawSum. Tuning split, ε ∈ {5, 10}: RawSum's median is 1.06–1.34× below ClampShells'
  (depth 3 from ε ≈ 3.6) in every cell but one (measured up to ε = 10).
- Few bins (``bench/ACCURACY.md``, "Few bins"; tuning columns seeds 7 and 8, Q1 and Q2, 50
  trials): below 2·jmin = 16 bins ClampShells' shells cannot place a clamp point below the top,
  and RawSum (its θ grid starts at the 10th bin edge; θ = ∞ below) was the best of all
  algorithms in nearly every cell at 4–15 bins, where TaMM+SVT (this rule's old fallback) was
  1.1–5,800× worse: RawSum. At 16–23 bins RawSum leads from ε = 0.1 (geometric mean over the
  cells 1.05–1.28× the best against ClampShells' 1.19–1.37×); ClampShells below ε = 0.1 and
  from 24 bins.
- Every edge queried (``Q1``, ``every:1``): RawSum up to 32 bins from ε = 0.3 and up to 48 from
  ε = 1 (``bench/ACCURACY.md``, "Bins 32–500 at ε ≥ 0.3" and its re-measurement with
  ClampShells' partition; tuning columns seeds 7 and 8, Q1 and Q2, 50 trials, every algorithm).
  In those cells RawSum's median was within 10 % of the best of all algorithms in 499 of 504
  (ClampShells' in 101; 1.21–1.23× the best on the geometric mean over the cells), its mean
  over queries in 447 (ClampShells' 188), its worst mean 1.28× the best up to 32 bins and 1.93×
  at 33–48 bins (ClampShells' 1.43× and 1.52×); the reporting split (columns seed 2024)
  confirmed it. At 24–28 bins and ε = 0.1–0.2 RawSum led on the tuning split but not on the
  reporting split (its mean over queries was behind): not adopted. Outside these boxes
  RawSum's mean over queries was far behind in some cells (up to 53× the best at 40 bins and
  ε = 0.1–0.4, 20× at 48 bins and ε = 0.3–0.5, 23× at 56–300 bins from ε = 0.5): columns
  whose lowest bins hold only zeros, where a query's true answer is 0 and RawSum's noisy bin
  sums are not (ClampShells' low shells have little noise).
  With every 2nd, 3rd or 5th edge the winner changed with the bins (no simple rule); with every
  10th (Q2) ClampShells was within 10 % of the best in 1,022 of 1,026 cells at 32–500 bins.

U does not change the rule (the ranking was the same for every U of the suite); it is part of
the signature so that a finer public rule needs no new callers.

>>> recommend(epsilon=0.01, upper=800_000, bins=1000, workload="Q1").algorithm
'clampshells'
>>> recommend(epsilon=5.0, upper=800_000, bins=1000, workload="Q1").algorithm
'rawsum'
>>> recommend(epsilon=0.1, upper=800_000, bins=10, workload="Q1").algorithm
'rawsum'
>>> recommend(epsilon=0.01, upper=800_000, bins=20, workload="Q1").algorithm
'clampshells'
>>> recommend(epsilon=1.0, upper=800_000, bins=40, workload="Q1").algorithm
'rawsum'
>>> recommend(epsilon=0.3, upper=800_000, bins=32, workload="Q1").algorithm
'rawsum'
>>> recommend(epsilon=0.3, upper=800_000, bins=40, workload="Q1").algorithm
'clampshells'
>>> recommend(epsilon=1.0, upper=800_000, bins=40, workload="every:5").algorithm
'clampshells'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dpsum_core import limits
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.clampshells_design import MIN_CLAMP_BIN
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.workloads import NAMED_WORKLOADS
from dpsum_core.validation import check_epsilon, check_int, check_positive

AUTO = "auto"  # the algorithm name that stands for the recommendation (resolved before any run)
CLAMPSHELLS_UP_TO = 3.0  # ClampShells up to this ε, RawSum above (bench/accuracy.py --suite)
FEW_BINS = 24  # below: RawSum from FEW_BINS_EPSILON (and always below 2·jmin bins)
FEW_BINS_EPSILON = 0.1
FEW_BINS_MEASURED = 500  # below: ClampShells was less often within 10 % of the best (Few bins)
# Every edge queried (Q1, every:1): RawSum up to this many bins from this ε (a staircase)
EVERY_EDGE_STEPS: tuple[tuple[int, float], ...] = ((32, 0.3), (48, 1.0))
RAWSUM_MEDIAN_FROM = 0.5  # from this ε RawSum's median led with every edge queried (said in why)


@dataclass(frozen=True)
class Recommendation:
    """The recommended algorithm's name, its truncation method (its own θ rule for an
    algorithm that chooses θ itself), why in one short sentence, and the benchmark detail
    (public: no data behind either).

    Attributes
    ----------
    why
        :func:`reason`: at most 30 words, readable aloud, naming the ε, bins and workload it
        used; the one sentence Decide, the Release page and the CLI show.
    detail
        The benchmark numbers behind it, for the workload given (Q1's numbers for an
        every-edge workload, Q2's otherwise): for an expander or a report's appendix.
    """

    algorithm: str
    truncation: str
    why: str
    detail: str


def recommend(*, epsilon: float, upper: float, bins: int, workload: str) -> Recommendation:
    """The algorithm to use for ``workload`` over [0, ``upper``] in ``bins`` bins at ``epsilon``.

    Parameters
    ----------
    epsilon, upper, bins, workload
        Public inputs only. ``workload`` is its text form (``Q1``, ``every:K``, ``values:…``):
        only whether it queries every edge matters (with few bins at large ε). ``upper`` does
        not change today's rule (the benchmark found the same ranking for every U of the
        suite); it is part of the signature so that a finer public rule needs no new callers.

    Privacy
    -------
    Reads no data: following it costs no budget and reveals nothing.
    """
    epsilon = check_epsilon(epsilon)
    check_positive(upper, "upper")
    bins = check_int(bins, "bins", low=1, high=limits.MAX_BINS)
    every = asks_every_edge(workload)

    def rawsum(claim: str, detail: str) -> Recommendation:
        return Recommendation("rawsum", "posthoc",
                              reason("rawsum", epsilon, bins, workload, claim), detail)  # fmt: skip

    if bins < 2 * MIN_CLAMP_BIN:
        return rawsum(
            "with so few bins ClampShells cannot clamp, and RawSum was the best in the "
            "benchmark",
            f"with {bins} bins (fewer than {2 * MIN_CLAMP_BIN}) ClampShells has no shell below "
            "the top to clamp at; RawSum's raw sums per bin were the best of all algorithms in "
            "nearly every benchmark cell at 4–15 bins (Q1 and Q2)",
        )
    if bins < FEW_BINS and epsilon >= FEW_BINS_EPSILON:
        return rawsum(
            "with so few bins it had a lower error than ClampShells in the benchmark",
            f"with {bins} bins (fewer than {FEW_BINS}) at ε ≥ {FEW_BINS_EPSILON:g} RawSum's raw "
            "sums per bin gave a lower error than ClampShells' shells in the benchmark (16–23 "
            "bins, Q1 and Q2: geometric mean over the cells 1.05–1.28× the best against "
            "ClampShells' 1.19–1.37×)",
        )
    step = next(((b, e) for b, e in EVERY_EDGE_STEPS if bins <= b and epsilon >= e), None)
    if step is not None and every:
        return rawsum(
            "with every edge queried it was within 10 % of the best in 499 of 504 benchmark "
            "cells",
            f"with every bin edge queried (Q1), at most {step[0]} bins and ε ≥ {step[1]:g}, "
            "RawSum's raw sums per bin gave a median error within 10 % of the best algorithm's "
            "in 499 of 504 benchmark cells (ClampShells' in 101), and a mean error within "
            "1.93× of the best",
        )
    if epsilon > CLAMPSHELLS_UP_TO:
        return rawsum(
            "at so large an ε it had a lower error than ClampShells in the benchmark",
            f"above ε = {CLAMPSHELLS_UP_TO:g} RawSum's bin-level raw sums gave a lower median "
            "error than ClampShells' in the benchmark (1,000 bins, Q1 and Q2, ε = 5 and 10: "
            "1.06–1.34× below it in every cell but one)",
        )
    safer = every and bins < FEW_BINS_MEASURED and epsilon >= RAWSUM_MEDIAN_FROM
    claim = (
        "in the benchmark it was the safer of the two best, as RawSum's error was sometimes far "
        "larger"
        if safer
        else "it was the best, or within 10 % of the best, in most benchmark cells like these"
    )
    return Recommendation("clampshells", "inside",
                          reason("clampshells", epsilon, bins, workload, claim),
                          clampshells_detail(epsilon, bins, every=every))  # fmt: skip


def reason(algorithm: str, epsilon: float, bins: int, workload: str, claim: str) -> str:
    """The one short sentence of a recommendation: the algorithm, the public inputs it was
    chosen from (ε, bins, workload) and ``claim`` (at most 30 words in all, for reading aloud).

    >>> reason("rawsum", 5.0, 200, "Q1", "it was best")
    'RawSum is recommended for ε = 5, 200 bins and workload Q1: it was best.'

    Privacy
    -------
    Public inputs only.
    """
    return (
        f"{get(algorithm).label} is recommended for ε = {epsilon:g}, {bins:,} "
        f"{'bin' if bins == 1 else 'bins'} and {workload_words(workload)}: {claim}."
    )


def workload_words(workload: str) -> str:
    """A workload in words short enough for :func:`reason` (a list of values counted).

    >>> workload_words(" q2 "), workload_words("every:5"), workload_words("values:10,20,30")
    ('workload Q2', 'workload every:5', '3 chosen thresholds')
    """
    text = str(workload).strip()
    if text.upper() in NAMED_WORKLOADS:
        return f"workload {text.upper()}"
    if text.lower().startswith("values:"):
        count = len([v for v in text[len("values:"):].split(",") if v.strip()])
        return f"{count} chosen {'threshold' if count == 1 else 'thresholds'}"
    return "workload " + "".join(text.split()).lower()


def clampshells_detail(epsilon: float, bins: int, *, every: bool) -> str:
    """The benchmark numbers behind ClampShells at these settings, for the workload measured
    nearest: Q1 for an every-edge workload, Q2 (every 10th edge) for any other.

    Cells are (synthetic column, bins, ε); "within 10 %" is the median (or mean) over queries
    of the relative error at most 1.10× the best algorithm's (bench/ACCURACY.md: the
    reporting split at 1,000 bins, "Few bins" split by workload, and "Bins 32–500" after
    ClampShells' partition).

    >>> "Q1" in clampshells_detail(0.035, 200, every=True)
    True
    >>> "Q1" in clampshells_detail(0.035, 200, every=False)
    False

    Privacy
    -------
    Public inputs only: constants measured on synthetic columns.
    """
    wl = "Q1 (every edge)" if every else "Q2 (every 10th edge, the nearest workload measured)"
    if bins >= FEW_BINS_MEASURED:
        if epsilon > 1:
            box = ("at 1,000 bins and ε = 2 and 3 it beat RawSum's median error in 12 of 18 "
                   "cells, Q1 and Q2 together (RawSum led on columns heaped on round values)")
        else:  # the reporting split after Round 8 (bench/ACCURACY.md), Q1 and Q2 alike
            box = (f"with {wl} at 1,000 bins and ε from 0.01 to 1 its median and mean errors "
                   "were within 10 % of the best in 45 of 45 cells, 3.8–9.0× below TaMM+SVT "
                   "at ε = 0.01")
    elif bins < FEW_BINS:
        box = (f"with {wl} at 16 bins and ε = 0.01 and 0.03 its median error was within 10 % "
               "of the best in " + ("17 of 18 cells and its mean error in 16" if every
                                    else "13 of 18 cells and its mean error in 13"))
    elif epsilon < 0.3:
        box = (f"with {wl} at 24–500 bins and ε from 0.01 to 0.1 its median error was within "
               "10 % of the best in " + ("154 of 162 cells and its mean error in 146" if every
                                         else "152 of 162 cells and its mean error in 139"))
    elif not every:
        box = (f"with {wl} at 24–500 bins and ε from 0.3 to 3 its median error was within 10 % "
               "of the best in 1,182 of 1,206 cells and its mean error in 1,184")
    elif epsilon < RAWSUM_MEDIAN_FROM:
        box = (f"with {wl} at 40–500 bins and ε = 0.3–0.5 its median error was within 10 % of "
               "the best in 217 of 306 cells and its mean error in 243 (RawSum's: 221 and "
               "177, its mean up to 53× the best)")
    else:
        box = (f"with {wl} at 56–500 bins and ε from 0.5 to 3 its median error was within "
               "10 % of the best in 269 of 540 cells and its mean error in 361; RawSum's "
               "median was within 10 % in 468 but its mean in only 314, up to 23× the best on "
               "columns whose lowest bins hold only zeros")
    return (
        "ClampShells clamps at a θ located from noisy shell sums (or at a public cap) and "
        f"measures shell sums below it. In the benchmark (synthetic columns, never your data), "
        f"{box}."
    )


def asks_every_edge(workload: str) -> bool:
    """Whether the workload's text form queries every bin edge (``Q1``, ``every:1``).

    >>> asks_every_edge("q1"), asks_every_edge("every: 1"), asks_every_edge("Q2")
    (True, True, False)

    Privacy
    -------
    Reads the public workload text only.
    """
    text = str(workload).strip()
    if text.upper() in NAMED_WORKLOADS:
        return NAMED_WORKLOADS[text.upper()] == 1
    match = re.fullmatch(r"every\s*:\s*(\d+)", text, flags=re.IGNORECASE)
    return match is not None and int(match.group(1)) == 1


def resolve_auto(
    algorithms: tuple[str, ...], *, epsilon: float, upper: float, bins: int, workload: str
) -> tuple[tuple[str, ...], Recommendation | None]:
    """``algorithms`` with :data:`AUTO` replaced by the recommended algorithm (once, in its
    place; a name listed twice is kept once), and the recommendation (``None`` without auto).

    Privacy
    -------
    Public inputs only, like :func:`recommend`: resolved before anything is measured.
    """
    if AUTO not in algorithms:
        return algorithms, None
    rec = recommend(epsilon=epsilon, upper=upper, bins=bins, workload=workload)
    out: list[str] = []
    for name in algorithms:
        name = rec.algorithm if name == AUTO else name
        if name not in out:
            out.append(name)
    return tuple(out), rec


def rule_in_words() -> str:
    """The rule above in one sentence, for the guide, About and the README (one source).

    >>> "ClampShells" in rule_in_words()
    True
    """
    steps = ", ".join(
        f"{bins} from ε = {eps:g}" if i else f"up to {bins} bins from ε = {eps:g}"
        for i, (bins, eps) in enumerate(EVERY_EDGE_STEPS)
    )
    return (
        f"dpsum recommends **ClampShells** for ε up to {CLAMPSHELLS_UP_TO:g} and **RawSum** "
        f"above, and RawSum with fewer than {2 * MIN_CLAMP_BIN} bins (or fewer than {FEW_BINS} "
        f"from ε = {FEW_BINS_EPSILON:g}, or, when every bin edge is queried as Q1 does, {steps}); "
        "the rule reads only public inputs (ε, U, bins, workload), never the data"
    )


def resolve_for_release(
    algorithm: str, truncation: str | None, *, epsilon: float, upper: float, bins: int,
    workload: str,
) -> tuple[str, str | None, str | None]:
    """(algorithm, truncation, why auto chose it) of a release: ``algorithm`` and
    ``truncation`` as given (lower-cased, why ``None``) unless the algorithm is :data:`AUTO`;
    then the recommendation's algorithm and truncation (``None`` for one that chooses θ
    itself), and a truncation given with auto is refused.

    Privacy
    -------
    Public inputs only, like :func:`recommend`: resolved before anything is measured.
    """
    name = str(algorithm).strip().lower()
    trunc = None if truncation is None else str(truncation).strip().lower()
    if name != AUTO:
        return name, trunc, None
    if trunc is not None:
        raise ParameterError(
            "auto chooses the algorithm and its truncation from the public ε, U, bins and "
            f"workload: leave the truncation out (not {trunc!r}), or name an algorithm"
        )
    rec = recommend(epsilon=epsilon, upper=upper, bins=bins, workload=workload)
    alg = get(rec.algorithm)
    return alg.name, None if alg.runs_once else rec.truncation, f"auto chose {alg.label}, from public inputs only. {rec.why}"
