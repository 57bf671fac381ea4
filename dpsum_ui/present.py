"""Presentation helpers: engine outputs turned into tables, labels and sentences (no maths)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.algorithm import INSIDE, POSTHOC, SHARED
from dpsum_core.mechanisms.registry import get, label, truncation_label
from dpsum_core.mechanisms.registry import truncation as get_truncation
from dpsum_core.simulate.budget import decimal
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.results import ExperimentResult, headline_name, percent
from dpsum_core.text import (
    NO_THETA,
    NO_THETA_SHORT,
    counted,
    escape_name,
    large_epsilon,
    summed,
)
from dpsum_core.text import epsilon_sentence as meaning

from .names import shown_name

HEADLINE = headline_name().capitalize()  # the explorer table's column, as everywhere else
ERROR_COLUMNS = (HEADLINE, "… with isotonic")


# A table cell is short (the Summary tab's grid cuts a long one at 1280 px); the full sentence
# is in the column's help and in a caption under the table.
NO_THETA_CELL = NO_THETA_SHORT  # "none beyond U", as the θ figure's legend says it
MEDIAN_THETA_HELP = (
    f"The median over the trials of the clamp point θ. “{NO_THETA_CELL}”: no θ is "
    f"released (θ = ∞, or θ at U or above); {NO_THETA.partition(': ')[2]}."
)
SVT_FALLBACKS = "SVT fallbacks (θ = U)"
NOT_SVT = "—"  # a row whose θ is not chosen by SVT: no fallback can happen, none is counted


def overview_table(result: ExperimentResult) -> pd.DataFrame:
    """One row per algorithm (and truncation): errors, median θ, time, and the SVT fallbacks
    when some run truncated with SVT (counted on SVT rows only, :data:`NOT_SVT` elsewhere)."""
    ov = result.overview()
    pairs = list(zip(ov["algorithm"], ov["truncation"], strict=True))
    fallbacks = {(r.algorithm, r.truncation): r.fallbacks for r in result.runs}
    columns = {
        "Algorithm": ov["algorithm"].map(label),
        "Truncation": ov["truncation"].map(truncation_label),
        HEADLINE: ov["median_rel_error"],
        "… with isotonic": ov["median_rel_error_iso"],
        "Median θ": [
            # θ = ∞ and θ ≥ U alike (ClampShells at U, SVT's last grid point above U): nothing
            # is truncated beyond cleaning's clip at U; else in the data's unit, as θ is read
            # elsewhere (whole units from 10 up: 75, not 74.6496)
            NO_THETA_CELL if t == "none" or not v < result.config.upper else money(v)
            for v, t in zip(ov["median_theta"], ov["truncation"], strict=True)
        ],
    }
    if any(t == "svt" for _, t in pairs):
        columns[SVT_FALLBACKS] = [
            str(fallbacks[(a, t)]) if t == "svt" else NOT_SVT for a, t in pairs
        ]
    return pd.DataFrame({**columns, "Seconds": ov["seconds"]})


def theta_note(table: pd.DataFrame) -> str | None:
    """What "none beyond U" in the Median θ column of :func:`overview_table` means; None when
    no row says it."""
    if not (table["Median θ"] == NO_THETA_CELL).any():
        return None
    return f"Median θ “{NO_THETA_CELL}”: {NO_THETA.partition(': ')[2]}; no θ is released."


def fallbacks_note(table: pd.DataFrame) -> str | None:
    """What the SVT fallbacks column of :func:`overview_table` counts, and what its dash
    means; None when the table has no such column (no run truncated with SVT)."""
    if SVT_FALLBACKS not in table:
        return None
    note = (
        "SVT fallbacks: choices in which SVT never fired, so θ fell back to the public U "
        "(a fixed rule, reported rather than hidden). SQM makes one choice per query and "
        "trial with ε_θ/m each, so it falls back more often on small queries."
    )
    if (table[SVT_FALLBACKS] == NOT_SVT).any():
        note += (
            f" The count applies to SVT only: {NOT_SVT} marks a row whose θ is chosen "
            "another way, where no fallback can happen."
        )
    return note


BEST_COLUMN = "Lowest error"
BEST_MARK = "lowest error"  # ★ means "recommended" only (the rule of recommend.py)


def mark_best(table: pd.DataFrame, *, iso: bool) -> tuple[pd.DataFrame, str | None]:
    """The overview table with its best row marked (lowest headline error, with isotonic
    regression when ``iso``), and a sentence naming it; no mark when no error is finite."""
    column = ERROR_COLUMNS[1] if iso else HEADLINE
    values = pd.to_numeric(table[column], errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(values).any():
        return table, None
    best = int(np.nanargmin(np.where(np.isfinite(values), values, np.nan)))
    marked = table.copy()
    marked.insert(0, BEST_COLUMN, [BEST_MARK if i == best else "" for i in range(len(table))])
    row = table.iloc[best]
    how = " (with isotonic regression)" if iso else ""
    sentence = (
        f"Lowest {headline_name()}{how}: **{row['Algorithm']}** with "
        f"{row['Truncation']}, {percent(values[best])}: its answers are off by about that "
        "share of the true answer in the typical query."
    )
    return marked, sentence


def in_percent(table: pd.DataFrame) -> pd.DataFrame:
    """The overview as shown: its error columns in percent (:func:`percent`), the one
    convention of the sentences, the command line and Decide."""
    shown = table.copy()
    for column in ERROR_COLUMNS:
        shown[column] = [percent(v) for v in pd.to_numeric(shown[column], errors="coerce")]
    return shown


# The "θ chosen by" cell of the ledger, short (the full sentence: the truncation's ``source``,
# in the column help and :func:`rho_note`).
_CHOSEN_BY = {POSTHOC: "noisy sums, after measuring", INSIDE: "the algorithm, own share of ε",
              "svt": "SVT", "recursive": "recursive mechanism"}  # fmt: skip
CHOSEN_BY_HELP = (
    "How θ is chosen. SVT (AboveThreshold) and the recursive mechanism spend ε_θ = ρ·ε; "
    "SQM chooses one θ per query with ε_θ/m each. No truncation: no θ (θ = ∞); a fixed θ is "
    "public and costs nothing. RawSum: after measuring, from the noisy sums (post-processing, "
    "costs nothing). ClampShells: located by the algorithm from noisy shell sums, with its own "
    "share of ε (not ρ)."
)


def ledger_table(result: ExperimentResult) -> pd.DataFrame:
    """The privacy-budget ledger: ε_θ + ε_m = ε for every algorithm (the "θ chosen by" cell
    in a few words: :data:`CHOSEN_BY_HELP` and :func:`rho_note` say it in full)."""
    m = result.workload.size
    rows = []
    for r in result.runs:
        method = get_truncation(r.truncation)
        alg, private = get(r.algorithm), method.spends_rho
        how = _CHOSEN_BY.get(r.truncation, method.source or method.label)
        if alg.per_query and private:
            how += f", one θ per query (ε_θ/{m} each)"
        elif alg.theta_rule == SHARED and private:
            how += ", one θ per trial"
        rows.append(
            {
                "Algorithm": label(r.algorithm),
                "Truncation": truncation_label(r.truncation),
                "ε_θ (choose θ)": decimal(r.budget.epsilon_theta),
                "ε_m (measure)": decimal(r.budget.epsilon_measure),
                "ε total": decimal(r.budget.total),
                "θ chosen by": how,
            }
        )
    return pd.DataFrame(rows)


def rho_note(result: ExperimentResult) -> str | None:
    """Why ρ does not set ε_θ of RawSum and ClampShells (they choose θ their own way); None
    when neither ran."""
    rules = {get(r.algorithm).theta_rule: r for r in result.runs}
    own, names = [], []
    if POSTHOC in rules:
        names.append(label(rules[POSTHOC].algorithm))
        own.append(f"{names[-1]} chooses θ after measuring, from the noisy sums "
                   "(post-processing, costs nothing: ε_θ = 0)")  # fmt: skip
    if INSIDE in rules:
        r = rules[INSIDE]
        names.append(label(r.algorithm))
        share = r.budget.epsilon_theta / r.budget.total if r.budget.total else 0.0
        here = f" ({percent(share)} here)" if share > 0 else ""
        own.append(f"{names[-1]} locates θ itself from noisy shell sums, with its own "
                   f"share of ε{here}")  # fmt: skip
    if not own:
        return None
    return ("ρ, the share of ε spent on choosing θ, applies to SVT and the recursive mechanism "
            f"only, not to {' or '.join(names)}. " + "; ".join(own) + ".")  # fmt: skip


def theta_marks(result: ExperimentResult | None, config: ExperimentConfig | None) -> list:
    """θ values to mark on the data histogram: the fixed θ, or the last run's median θ."""
    marks: list[tuple[str, float]] = []
    if config is not None and config.truncation_params.theta is not None:
        marks.append(("fixed θ", float(config.truncation_params.theta)))
    if result is not None:
        ov = result.overview()
        for _, row in ov.iterrows():
            t = row["truncation"]
            if get_truncation(t).spends_rho and get(row["algorithm"]).theta_rule == SHARED:
                label = f"median {truncation_label(t)} θ (last run)"
                if all(lbl != label for lbl, _ in marks):
                    marks.append((label, float(row["median_theta"])))
    return marks


def has_batch_theta(result: ExperimentResult) -> bool:
    """Whether θ-per-trial can be drawn (a batch algorithm with some truncation ran)."""
    return any(
        get(r.algorithm).theta_rule == SHARED and r.truncation != "none" for r in result.runs
    )


def run_caption(result: ExperimentResult) -> str:
    """One line that says exactly which run the figures show (seed included)."""
    c = result.config
    truncs = ", ".join(truncation_label(t) for t in c.truncations)
    # ρ only matters when θ is chosen privately (SVT, Recursive): do not show it otherwise
    rho = f" · ρ = {c.rho:g}" if {"svt", "recursive"} & set(c.truncations) else ""
    name, column = shown_name(result.dataset_name), escape_name(result.dataset_column, "markdown")
    return (
        f"**Seed {c.seed}** · {counted(c.trials, 'trial')} · {name} ({column})"
        f" · {result.workload.spec} (m = {result.workload.size}) · ε = {c.epsilon:g}"
        f"{rho} · {truncs} · computed in {result.seconds:.2f} s"
    )


def theta_grid(domain: Domain, points: int = 61) -> list[float]:
    """Log-spaced θ values from one bin width to U, rounded to 3 significant digits."""
    raw = np.geomspace(domain.width, domain.upper, points)
    rounded = [float(f"{v:.3g}") for v in raw]
    rounded[-1] = float(domain.upper)
    return sorted(set(rounded))


def nearest(options: list[float], value: float | None) -> float:
    """The option closest to ``value`` on a log scale (the middle one if ``value`` is None)."""
    if value is None or not value > 0:
        return options[len(options) // 2]
    if np.isinf(value):
        return options[-1]
    logs = np.log(np.asarray(options))
    return options[int(np.argmin(np.abs(logs - np.log(value))))]


PAPER_EPSILON = 0.01  # the paper's setting, and the dashboard's default


def epsilon_end(value: float, options: list[float]) -> str:
    """ε as shown on its slider: the two ends say what they mean."""
    if value == options[0]:
        return f"{value:g} · more privacy"
    if value == options[-1]:
        return f"{value:g} · more accuracy"
    return f"{value:g}"


def epsilon_sentence(epsilon: float) -> str:
    """What ε means, in one sentence that follows the value (the report's:
    :func:`dpsum_core.text.epsilon_sentence`), and that ε is the paper's and the default."""
    sentence = meaning(epsilon)
    if epsilon == PAPER_EPSILON:
        sentence += " This is the paper's setting and the default here."
    return sentence


def epsilon_warning(epsilon: float) -> str | None:
    """The explorer's warning for a large ε (:func:`~dpsum_core.text.large_epsilon`), else
    None."""
    large = large_epsilon(epsilon)
    return None if large is None else f"{large}. Use it to see how accuracy behaves, not to publish."


def noise_sentence(algorithm_label: str, noise: tuple[float, float | None], *, cap: float,
                   eps_m: float, queries: int, per_query: bool) -> str:
    """Why this answer's noise (``noise``: the engine's SD and, where the answer is one
    Laplace draw, its scale) is not sensitivity / ε_m: SQM splits ε_m over the ``queries``
    queries (scale m·min(θ, τ)/ε_m), Workload scales one draw to the whole workload's
    sensitivity, the others combine many noisy measurements. Scale and SD never share an
    equation but SD = √2 × scale."""
    sd, scale = noise
    name, m = f"**{algorithm_label}**", f"{queries:,}"
    if scale is None:
        return (f"{name} measures many noisy counts or sums (each with its own Laplace draw) "
                "and combines them into this answer, so its noise is not one draw of scale "
                f"sensitivity / ε_m: this answer's noise SD is {money(sd)}.")  # fmt: skip
    if per_query:
        return (f"{name} answers each of the workload's m = {m} queries with its own draw and "
                f"splits ε_m between them: each gets ε_m / m = {eps_m:g} / {m} = "
                f"{_digits(eps_m / queries)}, so this answer's scale is m × min(θ, τ) / ε_m = "
                f"{m} × {cap:,.0f} / {eps_m:g} ≈ {money(scale)}, and its noise SD = √2 × "
                f"scale ≈ {money(sd)}.")  # fmt: skip
    return (f"{name} adds one draw to each of the m = {m} answers, scaled to the most one person "
            "can change all of them together (a value t moves every query with τ ≥ t), not "
            f"this one alone: this answer's scale is ≈ {money(scale)}, and its noise SD = √2 × "
            f"scale ≈ {money(sd)}.")  # fmt: skip


def sci(value: float) -> str:
    """A squared error, in scientific notation: 2.7 × 10¹⁴."""
    if not np.isfinite(value):
        return "∞"
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.2e}".split("e")
    sup = str(int(exponent)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{float(mantissa):.3g} × 10{sup}"


def _digits(value: float) -> str:
    """``value`` with three significant digits as a plain decimal: 0.00001 / 4.56 / 1000."""
    return np.format_float_positional(value, precision=3, unique=True, fractional=False,
                                      trim="-")  # fmt: skip


def money(value: float) -> str:
    """A number in the data's unit, as people read it aloud: 0.5 / 1,234 / 123,456 /
    4.56 million / 1.53 billion / 2.1 trillion / 1,000 trillion (never "k", "M" or "G", never
    an exponent: 0.00001, not 1e-05). Below 10 and in millions, billions and trillions, three
    significant digits (0.0000123); from 10 to a million, whole units. Also the tick labels of
    the charts in the data's unit.

    >>> money(1e-5), money(0.5), money(-25_315.4), money(999_600_000), money(1e15)
    ('0.00001', '0.5', '-25,315', '1 billion', '1,000 trillion')
    """
    if not np.isfinite(value):
        return "∞"
    v = float(f"{abs(value):.3g}")  # as shown: 999.6 million is 1 billion
    if v < 10:
        return _digits(float(f"{value:.3g}"))
    if round(abs(value)) < 1e6:
        return f"{value:,.0f}"
    sign = "-" if value < 0 else ""
    if v >= 1e15:
        return f"{sign}{v / 1e12:,.0f} trillion"
    div, word = next(
        (d, w) for d, w in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")) if v >= d
    )
    return f"{sign}{_digits(v / div)} {word}"


def teaching_text(
    *,
    tau: float,
    theta: float,
    epsilon: float,
    eps_theta: float,
    eps_m: float,
    scale: float,
    weights: str,
    width: float,
    exact: bool,
    algorithm_label: str,
    own_theta: str | None = None,
    noise: tuple[float, float | None] | None = None,
    queries: int = 1,
    per_query: bool = False,
    shells: bool = False,
    by_person: bool = False,
) -> dict[str, str]:
    """Plain-language explanations for the single-query page, with this query's numbers.

    ``exact``: the shown algorithm sums the exact values (no binning bias, as SQM).
    ``own_theta``: how an algorithm with its own θ chooses it (its θ rule's ``source``), which
    its budget split and its truncation follow. ``shells``: the algorithm interpolates a query
    edge inside a shell (ClampShells): its second bias is that shell bias, not a binning bias.

    ``scale`` is the Laplace scale of answering this one query alone at θ with ε_m
    (:func:`dpsum_core.mechanisms.sqm.sqm_scale` with m = 1); ``noise``: the noise the shown
    algorithm actually gives this answer, answering the whole workload of ``queries`` queries
    (the engine's SD, and its Laplace scale where the answer is one draw, else None);
    ``per_query``: that draw's budget is ε_m split over the queries (SQM). ``by_person``: an
    identifier column makes a person the unit of privacy, and q_τ sums people's totals
    (:func:`dpsum_core.text.summed`), which θ then truncates.
    """
    cap = min(theta, tau)
    one = "total" if by_person else "value"  # what q_τ compares with τ and truncates at θ
    truncation = (
        f"q_τ sums the {summed(by_person)} ≤ τ = {tau:,.0f}"
        + (" (a person's total: all their rows summed, then clipped to [0, U])"
           if by_person else "")
        + f". Truncating at θ = {theta:,.0f} counts each {one} above θ as θ, so the "
        f"{summed(by_person)} above θ count for less: the **truncation bias** (always ≤ 0). It "
        f"grows as θ falls and is exactly 0 once θ reaches the largest {one} ≤ τ."
        + (f" **{algorithm_label}** cuts at its own θ*, the bin edge at or above θ, and answers "
           f"a query at or above θ* with its clamped total (the {summed(by_person)} above θ*, "
           "even those above τ, count as θ*): its truncation bias, shown above, is 0 once θ* "
           "is above τ."
           if shells else
           f" **{algorithm_label}** chooses its own θ and truncates at its own bin edges, "
           "not exactly at θ: its truncation bias, shown above, differs from this one."
           if own_theta is not None else "")
    )
    rule = "the upper edge" if weights == "upper" else "the midpoint"
    binning = (
        f"**{algorithm_label}** sums the {summed(by_person)} exactly, in shells (groups of bins "
        "that double in width). A query edge inside a shell is answered by interpolating "
        "inside it: the **shell bias**. It has nothing to do with θ: it is there for θ ≥ τ "
        "too, even with nothing truncated."
    ) if shells else (
        f"Identity, Workload, TiMM and TaMM see the data only as a histogram (bins of width "
        f"{width:,.6g}), so the {summed(by_person)} count as {rule} of their bin: the "
        "**binning bias**. "
        + (
            "With upper edges it is ≥ 0 and does *not* vanish for θ ≥ τ. "
            if weights == "upper"
            else "With midpoints it is small and of either sign. "
        )
        + "Where it has the opposite sign of the truncation bias the two cancel and the total "
        "dips: a coincidence of this data, not a θ to aim for. "
        + ("Finer bins or midpoint weights (Data page) shrink it." if weights == "upper"
           else "Finer bins (Data page) shrink it.")
        + (f" **{algorithm_label}** sums the {summed(by_person)} exactly, so it has no binning "
           "bias."
           if exact else "")
    )
    sensitivity = (
        "The **sensitivity** is the most one person can change the answer. Without truncation "
        f"it is τ = {tau:,.0f}; with θ it is min(θ, τ) = {cap:,.0f}. One Laplace draw of scale "
        "sensitivity / ε_m hides any single person: answering this query alone would need "
        f"scale {cap:,.0f} / {eps_m:g} ≈ {money(scale)} (its SD is √2 times the scale). Lower "
        "θ → less noise (the **variance** falls) but more truncation bias."
        + (" " + noise_sentence(algorithm_label, noise, cap=cap, eps_m=eps_m, queries=queries,
                                per_query=per_query) if noise is not None else "")
    )
    if own_theta is not None:
        budget = (
            f"The total budget is ε = {epsilon:g}. **{algorithm_label}** chooses its own θ "
            f"{own_theta}: ε_θ = {eps_theta:g}; the answers get ε_m = {eps_m:g}. "
            "Total: ε_θ + ε_m = ε."
        )
    elif eps_theta > 0:
        budget = (
            f"The total budget is ε = {epsilon:g}. SVT or the recursive mechanism spend "
            f"ε_θ = ρ·ε = {eps_theta:g} to pick θ from the data *privately*; the answers get "
            f"the rest, ε_m = {eps_m:g}. Total: ε_θ + ε_m = ε."
        )
    else:
        budget = (
            f"A fixed θ costs nothing, so all of ε = {epsilon:g} measures the answers "
            "(ε_m = ε). But it is private **only if θ was chosen without looking at the "
            "data**: picking the best θ from these curves would leak the data."
        )
    return {
        "truncation": truncation,
        "binning": binning,
        "sensitivity": sensitivity,
        "budget": budget,
    }
