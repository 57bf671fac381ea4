"""The Release page's words and tables: the expected error before releasing, the 95 %
intervals against it, the answers and the ledger as the page shows them.

Privacy
-------
The expected error (:func:`expected_words`, :func:`estimate_table`) is computed from the private
data without noise: for the custodian only. The rest shows what a release publishes.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpsum_core.mechanisms.registry import get, truncation_label
from dpsum_core.mechanisms.registry import label as algorithm_label
from dpsum_core.publish import ledger as ledgers
from dpsum_core.publish import report as releases
from dpsum_core.publish.above_theta import MARK
from dpsum_core.publish.above_theta import answers_note as above_theta_note
from dpsum_core.publish.release import PUBLISHED_DIGITS, Release, ReleaseEstimate, ReleasePlan
from dpsum_core.simulate.results import percent
from dpsum_core.text import counted, escape_name
from dpsum_core.truncation.registry import PARAMETERS

# A zero-width space: where a list such as values:500,1000,…,10000 may break in the sidebar
# (after a comma, never inside a number: review 10 P3 saw "10 / 000").
BREAK = "\u200b"
INTERVAL_COLUMN = "95 % interval"  # the answers table's, as the report names it


def ledger_table(book: ledgers.Ledger) -> pd.DataFrame:
    """The ledger's releases as the page shows them: algorithms and truncations by their
    labels, never their internal ids (the ledger file keeps the ids), with the data, column
    and identifier each was made on."""
    rows = book.releases
    return pd.DataFrame(
        {
            "Created (UTC)": [r.get("created") for r in rows],
            "ε": [r.get("epsilon") for r in rows],
            "Algorithm": [algorithm_label(str(r.get("algorithm"))) for r in rows],
            "Truncation": [truncation_label(str(r.get("truncation"))) for r in rows],
            "Data": [r.get("data") for r in rows],
            "Column": [r.get("column") for r in rows],
            "Identifier": [r.get("id_column") or "none: one row = one person" for r in rows],
        }
    )


def plain(value: float) -> str:
    """``value`` with two significant digits and thousands separators, never in e-notation
    (``123456.7`` → ``"120,000"``, ``0.01234`` → ``"0.012"``)."""
    value = float(f"{value:.2g}")
    if not math.isfinite(value) or value == 0:
        return "0"
    unit = 10.0 ** (math.floor(math.log10(abs(value))) - 1)
    places = max(0, -round(math.log10(unit)))
    return f"{round(value / unit) * unit:,.{places}f}"


def expected_words(est: ReleaseEstimate, column: str | None) -> str:
    """The expected error before releasing, in the data's unit and in words, each number named
    by what it is: "a root-mean-square error (RMSE) of typically X …, about Y % of the answer
    (RMSE as a share of the true answer)", the noise's standard deviation, and how this differs
    from the explorer's and Decide's median relative error (never a bare "±").

    Privacy
    -------
    From the private data without noise (:func:`estimate`): for the custodian only.
    """
    unit = f" (in the unit of {escape_name(column, 'markdown')})" if column else ""
    share = est.relative[np.isfinite(est.relative)]
    of_answer = (
        f", about **{percent(float(np.median(share)))}** of the answer (RMSE as a share of "
        "the true answer)" if share.size else ""
    )  # fmt: skip
    return (
        f"**Expected error** (for you only: computed from the data, before any noise is "
        f"drawn): a root-mean-square error (RMSE) of typically "
        f"**{plain(float(np.median(est.rmse)))}**{unit}{of_answer}, the median over the "
        f"{counted(est.rmse.size, 'query', 'queries')}, noise and the algorithm's bias together "
        "(where the bias dominates, the answers all miss by about this much, on the same side); "
        "the noise alone has a standard deviation (sd) of "
        f"{plain(float(np.median(est.noise_sd)))}. "
        "It is measured against the answers of the values clipped at U, so a U that clips many "
        "values makes it look small. It is not the explorer's or Decide's *median relative "
        "error* (the mean miss |ŷ − y| over draws as a share of the answer, median over the "
        "queries), which is usually lower for the same settings: a root-mean-square weighs "
        "large misses more."
    )


def planning_caption(number: str) -> str:
    """The short line said right under a planning number (``number``: what it is, e.g. Decide's
    median relative error, the Release page's expected error): computed from the true answers
    before releasing, for the custodian only, and not what a release publishes, which is each
    answer with a 95 % interval (:mod:`dpsum_core.publish.intervals`: the noise plus a bound
    on the bias, found without the data), usually wider (:func:`interval_words` says how much).

    >>> planning_caption("the typical error of an answer")[:47]
    'Planning number: the typical error of an answer'
    """
    return (
        f"Planning number: {number}, computed from the true answers before you release: for "
        "you only, not for publication. A release publishes each answer with a 95 % interval "
        "(the noise plus a bound on the algorithm's bias), usually wider than this error."
    )


# How the chosen algorithm's 95 % intervals bound its bias without the data, and how much wider
# than the expected error they were on the sample file (incomes.csv, Q3, U = 800,000: the median
# half-width of five releases at each of ε = 0.01, 0.1 and 1 over the median expected error).
_COUNTS = (
    "each value anywhere between its bin's edges, a value above θ up to its bin's upper edge",
    "3–7× this error at ε = 0.01, 10–20× at ε = 0.1 and about 35× at ε = 1 (the bound on "
    "the binning stays while the noise shrinks)",
)
_WIDER = {
    "clampshells": (
        "at small ε, the whole shell of bins around a threshold",
        "2–3× this error at ε ≥ 0.1 and up to 12× at ε = 0.01",
    ),
    "rawsum": ("its estimate of the whole prefix, whatever θ* dropped", "2–3× this error"),
    "identity": _COUNTS, "workload": _COUNTS, "timm": _COUNTS, "tamm": _COUNTS,
}  # fmt: skip


def interval_words(plan: ReleasePlan) -> str:
    """The 95 % intervals published with ``plan``'s answers, against the expected error: how
    the chosen algorithm bounds its bias without the data, and how much wider they were on the
    sample file (public: measured once, on the sample)."""
    name = algorithm_label(plan.algorithm)
    start = (
        "The 95 % intervals published with the answers must hold the true answer with "
        "probability at least 95 % using only what the release measured"
    )
    if releases.open_above(plan) is not None:
        return (
            f"{start}: where {name} truncated nothing below a threshold they bound the noise, "
            "elsewhere they are **open above** (see below); the report states them."
        )
    how, measured = _WIDER.get(plan.algorithm, (None, None))
    if how is None:
        return f"{start}, so they are wider than this error; the report states them."
    return (
        f"{start}, so they are usually **several times wider**: they bound the bias of {name} "
        f"without the data ({how}). On the sample file their half-width was {measured}; on "
        "other data it differs, and where the bias is large (a θ far below the large values) "
        "they can be narrower than this error, with the answers near one end. The report "
        "states them."
    )


def open_warning(plan: ReleasePlan) -> str | None:
    """Said before releasing when some upper ends may be open (unbounded), and why; None
    otherwise."""
    why = releases.open_above(plan)
    if why is None:
        return None
    return (
        f"**Some upper ends may be open (unbounded)**: {why}. Read such an answer as *at least* "
        "its lower end, not as an answer give or take a margin. On the sample file about half "
        "of the queries were open above at ε = 1 and 90 % at ε ≤ 0.1 (SVT's θ)."
    )


def estimate_table(est: ReleaseEstimate) -> pd.DataFrame:
    """The expected error per query, with labels for column names (for the custodian only)."""
    return pd.DataFrame(
        {
            "Threshold τ": [f"{t:,.{PUBLISHED_DIGITS}g}" for t in est.thresholds],
            "Typical error (RMSE)": [plain(v) for v in est.rmse],
            "Noise alone (sd)": [plain(v) for v in est.noise_sd],
            "RMSE as a share of the answer": [
                percent(v) if math.isfinite(v) else "—" for v in est.relative
            ],
        }
    )


def answers_table(rel: Release) -> pd.DataFrame:
    """The release's answers with labels for column names: the threshold, the 95 % interval
    (``[lower, upper]``; ``[lower, open)`` where the bias is not bounded) next to it, so that a
    phone's width (390 px) shows it beside a long "≤ …" answer, the private answer marked †
    where the released θ moves it (:attr:`~dpsum_core.publish.release.Release.above_theta`,
    explained by :func:`answers_note`), as the report marks it, and whether the bias is
    bounded. The numbers are answers.csv's rounded as the report rounds them
    (:func:`dpsum_core.publish.report.answer_cells`); never in e-notation."""
    frame = rel.answers_frame()
    if rel.intervals is not None:
        rows = [
            (t, f"[{lo}, {hi}{')' if hi == 'open' else ']'}", f"{a} {MARK}" if above else a)
            for (t, a, lo, hi), above in zip(releases.answer_cells(rel), rel.above_theta,
                                             strict=True)
        ]  # fmt: skip
        table = pd.DataFrame(rows, columns=["Threshold τ", INTERVAL_COLUMN, "Private answer"])
        table["Bias bounded"] = np.where(rel.intervals.bias_bounded, "yes", "no")
    else:
        table = pd.DataFrame({
            "Threshold τ": [f"{t:,.{PUBLISHED_DIGITS}g}" for t in frame.threshold],
            "Private answer": [f"{a:,.2f}" for a in frame.private_answer],
        })  # fmt: skip
    return table


def answers_note(rel: Release) -> str | None:
    """The † note under the answers table, the report's
    (:func:`dpsum_core.publish.above_theta.answers_note`); None when no row is marked."""
    if rel.intervals is None:
        return None
    return above_theta_note(rel.theta, str(rel.config["algorithm"]), rel.above_theta,
                            rel.intervals.bias_bounded)  # fmt: skip


def open_words(rel: Release) -> str | None:
    """Which queries are open above and why, in words (None: every interval is two-sided)."""
    iv = rel.intervals
    if iv is None or bool(iv.bias_bounded.all()):
        return None
    opened = int((~iv.bias_bounded).sum())
    alg = get(rel.config["algorithm"])
    span = releases.open_span(rel.thresholds, iv.bias_bounded, digits=6)
    return (
        f"**{opened:,} of {iv.bias_bounded.size:,} queries are open above** ({span}): "
        f"{alg.label} counted values above θ as θ "
        "there and released nothing that bounds how much lies above θ, so the true answer may "
        "be much larger than the private answer. Their interval has a lower end only: read "
        "those answers as *at least* the lower end, not as an answer give or take a margin."
    )


def settings_caption(plan: ReleasePlan) -> str:
    """The sidebar's settings on the Release page: those the release uses, by the rule of its
    release.json and the command line (:meth:`~dpsum_core.publish.release.ReleasePlan.record`:
    ρ only where the θ rule spends ρε, the θ rule's own parameters alone, δ for ClampShells),
    never the explorer's trials, seed or other algorithms (Markdown)."""
    record = plan.record()
    lines = [
        f"Workload {record['workload'].replace(',', ',' + BREAK)}",  # a list breaks after commas
        f"ε = {plan.epsilon:g} (ε_θ = {plan.epsilon_theta:g} + ε_m = {plan.epsilon_measure:g})",
        f"{algorithm_label(plan.algorithm)} · {truncation_label(plan.truncation)}",
    ]
    if record.get("rho") is not None:
        lines.append(f"ρ = {record['rho']:g} (the share of ε choosing θ)")
    params = [
        f"{PARAMETERS[name].label}: {value if isinstance(value, str) else f'{value:,.6g}'}"
        for name, value in record["truncation_params"].items()
        if value is not None
    ]
    if params:
        lines.append(f"{truncation_label(plan.truncation)}'s parameters: " + " · ".join(params))
    if record.get("public_cap") is not None:
        lines.append(f"public cap {record['public_cap']:,.6g}")
    if record.get("delta") is not None:
        lines.append(f"δ = {record['delta']:g} (its onset gate)")
    lines.append(f"isotonic regression {'on' if plan.isotonic else 'off'}")
    return "  \n".join(lines)
