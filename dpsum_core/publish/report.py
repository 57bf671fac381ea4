"""What a release hands over: its files (answers.csv, release.json, report.md and a
self-contained report.html) and the command that makes the same configuration again
(:mod:`dpsum_core.publish.command`).

Everything here is made of a :class:`~dpsum_core.publish.release.Release`'s public parts:
nothing computed from the data without noise reaches a file (the release tests scan for leaks).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from dpsum_core.data.domain import Domain
from dpsum_core.data.samples import PREFIX as SAMPLE_PREFIX
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.algorithm import Algorithm
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.registry import truncation as get_truncation
from dpsum_core.mechanisms.workloads import make_workload, snapping_words
from dpsum_core.publish.above_theta import MARK, answers_note, theta_words
from dpsum_core.publish.bands import BAND_HOWTO, band_lines, band_records
from dpsum_core.publish.chart import data_uri, interval_svg
from dpsum_core.publish.command import DataArgument, record_command
from dpsum_core.publish.digits import rounding_unit, shown
from dpsum_core.publish.page import report_html
from dpsum_core.publish.release import PUBLISHED_DIGITS, Release, ReleasePlan, decimal_text
from dpsum_core.simulate.results import percent
from dpsum_core.text import (
    EPSILON_FROM_DATA,
    NOT_TOLD_FROM_ZERO,
    counted,
    epsilon_sentence,
    escape_name,
    number,
    query_words,
    visible,
)

RELEASE_FILES = ("answers.csv", "release.json", "report.html", "report.md")  # name endings
BANDS_FILE = "bands.csv"  # written beside them when bands are asked for


def release_stem(rel: Release, dataset: str) -> str:
    """The name every file of one release starts with: data, date and time, a short id
    (``incomes_small_20261126-220141_3fa9c2``), so releases never share a file name.

    The short id is the start of a SHA-256 of the published answers and the creation time:
    public parts only. The data's name keeps letters, digits, ``.``, ``_`` and ``-`` (a sample
    named ``sample:NAME`` is named by NAME).
    """
    name = Path(dataset.removeprefix(SAMPLE_PREFIX)).stem
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:40] or "data"
    when = re.sub(r"[^0-9T]", "", rel.created[:19]).replace("T", "-")
    short = hashlib.sha256((answers_csv(rel) + rel.created).encode()).hexdigest()[:6]
    return f"{slug}_{when}_{short}"


def release_names(rel: Release, dataset: str) -> list[str]:
    """The file names of one release: ``<stem>_answers.csv``, ``<stem>_release.json``,
    ``<stem>_report.html`` and ``<stem>_report.md`` (:func:`release_stem`)."""
    stem = release_stem(rel, dataset)
    return [f"{stem}_{name}" for name in RELEASE_FILES]


def write_release(
    rel: Release,
    out: str | Path,
    *,
    dataset: str = "the dataset",
    ledger_line: str = "",
    engine: str = "memory",
    data: DataArgument | None = None,
    bands: list[tuple[float, float]] | None = None,
) -> list[Path]:
    """Write the release's answers, release.json, report.html and report.md into ``out``, under
    names of their own (:func:`release_names`), and with ``bands`` their totals in
    ``<stem>_bands.csv`` (:func:`bands_csv`), nothing else; returns the paths written.

    ``engine`` (memory, duckdb, spark) is recorded in release.json and in the report's command;
    ``data`` is the command's ``--data`` (default: ``dataset``); ``bands``: totals by band
    listed in the report (:mod:`~dpsum_core.publish.bands`). Every file is created exclusively: an existing file is never overwritten (ParameterError).

    Privacy
    -------
    Writes only :meth:`Release.answers_frame`, :meth:`Release.record` and the report made of
    them (:func:`report_markdown`), with the dataset's name, the engine and the ledger line.
    """
    out = Path(out)
    markdown = report_markdown(rel, dataset=dataset, ledger_line=ledger_line, engine=engine,
                               data=data, bands=bands)  # fmt: skip
    texts = [answers_csv(rel), record_json(rel, engine=engine, bands=bands), report_html(markdown),
             markdown]  # fmt: skip
    names = release_names(rel, dataset)
    if bands:
        texts.append(bands_csv(rel, bands))
        names.append(names[0].removesuffix(RELEASE_FILES[0]) + BANDS_FILE)
    paths = [out / name for name in names]
    try:
        for path, text in zip(paths, texts, strict=True):
            with path.open("x", encoding="utf-8") as f:
                f.write(text)
    except FileExistsError as exists:
        raise ParameterError(f"{exists.filename} exists: a release never overwrites a file") from None
    return paths


def answers_csv(rel: Release) -> str:
    """answers.csv's text (answers and ± already rounded to :data:`PUBLISHED_DIGITS` digits,
    written as the shortest text of each float)."""
    return rel.answers_frame().to_csv(index=False)


def bands_csv(rel: Release, bands: list[tuple[float, float]]) -> str:
    """bands.csv's text: one row per band, as release.json's ``bands`` (:func:`band_records`):
    low, high, total (empty where there is no total to quote), lower_95, upper_95 (empty: open
    above), low_gated, high_gated, above_theta (``true``/``false``, as answers.csv)."""
    frame = pd.DataFrame(band_records(rel, bands))
    for flag in ("low_gated", "high_gated", "above_theta"):
        frame[flag] = np.where(frame[flag], "true", "false")
    return frame.to_csv(index=False)


def record_json(
    rel: Release, *, engine: str = "memory", bands: list[tuple[float, float]] | None = None
) -> str:
    """release.json's text (the release's record, the engine that computed its summary and,
    when asked for, the ``bands``' totals with their 95 % intervals: :func:`band_records`)."""
    extra = {"bands": band_records(rel, bands)} if bands else {}
    return json.dumps({**rel.record(), "engine": engine, **extra}, indent=2, allow_nan=False) + "\n"


# Each algorithm in plain words, with the paper or design note it comes from.
PAPER = (
    "Wu, Pujol, Kotsogiannis and Machanavajjhala, \"Answering Summation Queries for Numerical "
    "Attributes under Differential Privacy\""
)
PLAIN_WORDS = {
    "sqm": "measures each truncated sum on its own, with an equal share of ε each ({paper})",
    "identity": "adds noise to the number of records in every bin, then adds the bins up, each "
    "record counted at its bin's representative value ({paper})",
    "workload": "adds noise to each truncated sum of the workload directly ({paper})",
    "timm": "measures groups of bins chosen for the workload (GreedyH, a greedy hierarchy), "
    "each record counted at its bin's truncated value, and combines them by least squares "
    "({paper})",
    "tamm": "measures the counts of groups of bins chosen for the truncated workload (GreedyH, a "
    "greedy hierarchy) and combines them by least squares ({paper})",
    "rawsum": "measures the raw sums of the values in doubling ranges of bins and in a greedy "
    "hierarchy, and leaves out the bins above a θ chosen afterwards (dpsum's own design: its "
    "privacy argument is in dpsum_core/mechanisms/rawsum.py, shipped with dpsum)",
    "clampshells": "spends a quarter of ε locating a clamp point θ* from noisy sums over "
    "doubling ranges of values, then measures sums clamped at θ* over those ranges and "
    "interpolates inside them (dpsum's own design: its privacy argument is in "
    "dpsum_core/mechanisms/clampshells.py, shipped with dpsum)",
}


# ClampShells given a public cap: θ* is the cap's shell edge, no ε spent locating it.
PUBLIC_CAP_WORDS = (
    "clamps at θ*, the first of its shell edges at or above the stated public cap (no ε spent "
    "locating it), then measures sums clamped at θ* over doubling ranges of values and "
    "interpolates inside them (dpsum's own design: its privacy argument is in "
    "dpsum_core/mechanisms/clampshells.py, shipped with dpsum)"
)
PUBLIC_CAP_TRUNCATION = "θ from the stated public cap, no ε spent locating it"
PUBLIC_CAP_LABEL = "θ from the public cap"  # the same in tables: `dpsum run`, the app, the report


def cap_truncation(config: dict, *, short: bool = False) -> str | None:
    """How θ was chosen when a public cap gave it (:data:`PUBLIC_CAP_TRUNCATION`; ``short``:
    a label, :data:`PUBLIC_CAP_LABEL`), else ``None`` (the truncation method's words then)."""
    if config.get("public_cap") is None:
        return None
    return PUBLIC_CAP_LABEL if short else PUBLIC_CAP_TRUNCATION


TRUNCATION_WORDS = {
    "fixed": ", values above a fixed θ counted as θ",
    "svt": ", θ chosen by the sparse vector technique",
    "recursive": ", θ chosen by the recursive mechanism",
}


def _plain_words(alg: Algorithm, config: dict) -> str:
    """What the algorithm does, in words (with a public cap, ClampShells locates nothing)."""
    if config.get("public_cap") is not None:
        return PUBLIC_CAP_WORDS
    return PLAIN_WORDS.get(alg.name, "adds Laplace noise to " + alg.measures).format(paper=PAPER)


def _cap_line(config: dict) -> list[str]:
    """The public cap, when the release used one: said to be public knowledge, not data."""
    if config.get("public_cap") is None:
        return []
    return [
        f"- **Public cap**: {decimal_text(config['public_cap'])}, stated by the data holder as "
        "public knowledge (a documented top code), not read from the data: ClampShells clamped "
        "at the first of its shell edges at or above it and spent no ε locating θ (ε_θ = 0)."
    ]


def cap_words(plan: ReleasePlan) -> str | None:
    """With a public cap: the θ* it becomes, in words, when that lies above the cap (ClampShells
    clamps at its own clamp points only); else None. Public: the plan alone."""
    cap = plan.config.public_cap
    if cap is None:
        return None
    from dpsum_core.mechanisms.clampshells import cap_clamp_point

    config = plan.config
    theta = cap_clamp_point(config.domain, plan.epsilon, make_workload(config.workload, config.domain), cap)
    if theta <= cap:
        return None
    where = "U, the top of the domain" if theta >= config.upper else "the next of its clamp points"
    return (
        f"the public cap {number(cap)} becomes θ = {number(theta)}: ClampShells clamps only at "
        f"the edges of its shells of bins (2, 4, 8, … bins and U), so at {where}; values "
        f"between {number(cap)} and {number(theta)} are not clamped"
    )


def isotonic_words(isotonic: bool) -> str:
    """Whether isotonic regression was applied and, if so, which answers the 95 % intervals are
    for: they are built from the answers before it (each widened to hold its published answer),
    so they keep their coverage but do not narrow with it. A sentence (or two).

    Tightening them with the monotone truth instead (each lower end raised to the largest lower
    end before it) would hold only where every earlier interval holds: per query, the misses
    would add up over the queries below it, so the stated 95 % would be false.
    """
    if not isotonic:
        return "no."
    return (
        "yes (post-processing: answers made non-decreasing). The 95 % intervals are built from "
        "the answers before it, each widened to hold its published answer: they keep their "
        "coverage but do not narrow with it, so where it removes much of the noise (independent "
        "noise per query, as Workload's and SQM's) the published answers typically lie much "
        "closer to the truth than the intervals' width suggests."
    )


def open_span(thresholds: np.ndarray, bounded: np.ndarray, digits: int = PUBLISHED_DIGITS) -> str:
    """Which queries are open above, exactly: the τ range they span and, when queries inside
    that range are bounded, how many (a range alone reads as if all of them were open).

    >>> open_span(np.array([1.0, 2, 3, 4]), np.array([True, False, True, False]))
    'τ from 2 to 4 except 1 bounded query in that range; the rows marked no are the open ones'
    >>> open_span(np.array([1.0, 2, 3]), np.array([True, False, False]))
    'every query with τ from 2 to 3'
    """
    tau = thresholds[~bounded]
    lo, hi = f"{tau.min():,.{digits}g}", f"{tau.max():,.{digits}g}"
    if tau.size == 1:
        return f"τ = {lo}"
    inside = int((bounded & (thresholds >= tau.min()) & (thresholds <= tau.max())).sum())
    if not inside:
        return f"every query with τ from {lo} to {hi}"
    return (
        f"τ from {lo} to {hi} except {counted(inside, 'bounded query', 'bounded queries')} in "
        "that range; the rows marked no are the open ones"
    )


def open_above(plan: ReleasePlan) -> str | None:
    """Why some of ``plan``'s intervals may be open above, in words, from its algorithm's
    interval rule (SQM's: truncated below a threshold), or None when every interval is
    two-sided (no such rule, or no truncation). Public: the plan alone."""
    rule = get(plan.algorithm).interval
    if rule is None or rule.open_above is None or plan.truncation == "none":
        return None
    return rule.open_above


def workload_used(config: dict) -> tuple[str, str]:
    """The workload as it ran and, when explicit thresholds were moved to bin edges, how (else
    ``""``): ``values:12800,50400`` and "2 thresholds moved up to the next bin edge: …",
    from the recorded (public) workload and domain."""
    domain = Domain(upper=float(config["upper"]), bins=int(config["bins"]))  # weights: no matter
    workload = make_workload(str(config["workload"]), domain)
    if not workload.snapped:
        return str(config["workload"]), ""
    used = "values:" + ",".join(decimal_text(t) for t in workload.thresholds)
    return used, snapping_words(workload, domain)


def headline(rel: Release, *, dataset: str) -> str:
    """One sentence: what was released, for whom, at what ε, how accurate."""
    c, iv = rel.config, rel.intervals
    alg = get(c["algorithm"])
    who = (
        "one row per person" if rel.id_column is None
        else f"per person ({escape_name(rel.id_column, 'markdown')})"
    )  # fmt: skip
    used, moved = workload_used(c)
    requested = f", thresholds moved to bin edges from the requested {c['workload']}"
    what = (
        f"{rel.thresholds.size:,} private sums of {escape_name(dataset, 'markdown')} "
        f"(workload {used}{requested + ';' if moved else ','} {who}), "
        f"at ε = {decimal_text(rel.budget['total'])}, with {alg.label}"
        + TRUNCATION_WORDS.get(c["truncation"], "")
    )
    if iv is None:
        return f"Released {what}."
    bounded = iv.bias_bounded
    answers = rel.private_answers[bounded]
    accuracy = ""
    if answers.size:
        # Each side on its own: where truncation or binning bias dominates, the answer sits at
        # one end of its interval, and one "±" (half the width) understated the other side.
        below = float(np.median(answers - iv.lower[bounded]))
        above = float(np.median(iv.upper[bounded] - answers))
        unit = rounding_unit(max(below, above), max(below, above))
        width = (iv.upper - iv.lower)[bounded]
        rel_width = width[answers > 0] / answers[answers > 0]
        share = (
            f" (a width of about {percent(float(np.median(rel_width)))} of the answer)"
            if rel_width.size else ""
        )  # fmt: skip
        opened_too = not bounded.all()
        accuracy = (
            "; each interval holds its true answer with probability at least 95 % (about 1 in "
            f"20 may miss); {'the two-sided ones ' if opened_too else 'they '}typically reach "
            f"{shown(below, unit)} below the answer and {shown(above, unit)} above it{share}"
            + (
                ": the answers sit off centre, where the bias of truncation or binning can be "
                "large, so read each query's lower and upper ends, not the answer ± a margin"
                if max(below, above) > 2 * min(below, above)
                else ""
            )
        )
    opened = int((~bounded).sum())
    if opened:
        accuracy += (
            f"; {opened} of {bounded.size} intervals are open above (the bias of those queries "
            "is not bounded by what was released)"
        )
    return f"Released {what}{accuracy}."


def _row_unit(a: float, lo: float, hi: float, bounded: bool) -> float:
    """The rounding unit a row's interval supports (:func:`~dpsum_core.publish.digits.rounding_unit`)."""
    return rounding_unit((hi - lo) / 2 if bounded else max(a - lo, 0.0), a)


def _answer_units(answers: np.ndarray, units: list[float]) -> list[float]:
    """Each answer's rounding unit: its row's, or the finest of its run of equal answers (an
    isotonic release pools queries into equal answers; rows of one run have different
    interval widths, and a unit each showed 45,939 as 45,900 and 46,000 in one run)."""
    out = list(units)
    start = 0
    for i in range(1, len(out) + 1):
        if i == len(out) or answers[i] != answers[start]:
            finest = min(out[start:i])
            out[start:i] = [finest] * (i - start)
            start = i
    return out


def gated_cell(upper: str) -> str:
    """How a table shows an answer the onset gate published as 0 (``upper``: its interval's
    upper end as shown): never a bare 0, which reads as "nothing there"."""
    return NOT_TOLD_FROM_ZERO if upper == "open" else f"≤ {upper} ({NOT_TOLD_FROM_ZERO})"


def answer_cells(rel: Release) -> list[tuple[str, str, str, str]]:
    """The answers table's cells as the report shows them: threshold, answer, lower and upper
    end of the 95 % interval (``open`` where the bias is not bounded), each row rounded to
    two significant digits of its interval's half-width (:func:`_row_unit`), the answer to the
    finest unit of its run of equal answers (:func:`_answer_units`), the ends outward; never
    in e-notation. An answer the onset gate published as 0 reads "≤ upper end (not
    distinguishable from 0)" (:func:`gated_cell`). Needs the release's intervals."""
    iv = rel.intervals
    if iv is None:
        raise ValueError("a release without intervals has no rounded answers table")
    columns = (rel.private_answers, iv.lower, iv.upper, iv.bias_bounded)
    units = [_row_unit(a, lo, hi, bool(ok)) for a, lo, hi, ok in zip(*columns, strict=True)]
    answer_units = _answer_units(rel.private_answers, units)
    cells = []
    for t, a, lo, hi, ok, u, au, gated in zip(rel.thresholds, *columns, units, answer_units,
                                              rel.gated_answers, strict=True):  # fmt: skip
        upper = shown(hi, u, math.ceil) if ok else "open"
        answer = gated_cell(upper) if gated else shown(a, au)
        cells.append((f"{t:,.{PUBLISHED_DIGITS}g}", answer, shown(lo, u, math.floor), upper))
    return cells


def zero_onset(rel: Release, *, files: bool = True) -> str | None:
    """Why some of the release's leading answers were published as 0 and how the table shows
    them, when its algorithm's onset gate (ClampShells': answers before the first that stands
    clear of its noise are set to 0, with the public δ) did it (:attr:`Release.gated`); else
    None. With ``files``, where the files flag them (answers.csv's and release.json's field
    names, for the report); without, in words (the app's page names no field).

    Privacy
    -------
    Public parts only: which answers were gated, the thresholds and δ from the configuration.
    """
    gated = rel.gated_answers
    if not gated.any():
        return None
    zeros = int(gated.sum())
    label = get(rel.config["algorithm"]).label
    delta = rel.config.get("delta")
    by = "" if delta is None else f", set by the public δ = {decimal_text(float(delta))}, the floor of its error metric"
    return (
        f"**Answers {NOT_TOLD_FROM_ZERO}** ({counted(zeros, 'query', 'queries')}: τ up to "
        f"{rel.thresholds[gated][-1]:,.{PUBLISHED_DIGITS}g}): {label} publishes 0 for the first "
        f"queries until one answer stands clear of its noise (its onset gate{by}; "
        "post-processing, no extra ε). A 0 there does not mean nothing lies below τ: the true "
        "answer is at most its interval's upper end, which the table shows as the answer "
        '("≤ …"); '
        + ("answers.csv keeps 0 with gated = true, release.json lists these τ in gated_thresholds."
           if files else "the answers.csv download keeps the number 0 and flags these rows.")
    )  # fmt: skip


def report_markdown(
    rel: Release, *, dataset: str, ledger_line: str = "", engine: str = "memory",
    data: DataArgument | None = None, bands: list[tuple[float, float]] | None = None,
) -> str:
    """The release's report (Markdown): a headline sentence, what its ε means
    (:func:`~dpsum_core.text.epsilon_sentence`), a chart of the answers with their intervals,
    the table (rows above θ marked: :mod:`~dpsum_core.publish.above_theta`), the ``bands``
    asked for with their 95 % intervals (:mod:`~dpsum_core.publish.bands`), or without bands
    how to total one, then how it was made and how to make it again
    (its ``--data``: ``data``, by default ``dataset``;
    :func:`~dpsum_core.publish.command.data_argument`).

    Numbers in the table carry the digits their interval supports (two significant digits of
    its half-width), equal answers the finest of their rows (:func:`_answer_units`);
    answers.csv keeps :data:`PUBLISHED_DIGITS`.

    Privacy
    -------
    Made only of the release's public parts (configuration, budget, released θ, the private
    answers and their intervals), the dataset's name and the ledger line: nothing computed
    from the data without noise.
    """
    c, b, iv = rel.config, rel.budget, rel.intervals
    data = DataArgument(dataset) if data is None else data
    used, moved = workload_used(c)
    name, unit = escape_name(dataset, "markdown"), escape_name(rel.unit_of_privacy, "markdown")
    alg = get(c["algorithm"])
    lines = [
        f"# dpsum release: {name}",
        "",
        f"**{headline(rel, dataset=dataset)}**",
        "",
        *([EPSILON_FROM_DATA, ""] if rel.epsilon_chosen_from_data else []),
        epsilon_sentence(float(b["total"])),
        "",
        f"Created {rel.created} (UTC).",
        "",
    ]
    if iv is not None:
        svg = interval_svg(rel.thresholds, rel.private_answers, iv.lower, iv.upper,
                           title=f"Private answers and 95 % intervals: {visible(dataset)}",
                           gated=rel.gated_answers)  # fmt: skip
        rows = "\n".join(
            f"| {t} | {a}{f' {MARK}' if above else ''} | [{lo}, {hi}{')' if hi == 'open' else ']'} | "
            f"{'no' if hi == 'open' else 'yes'} |"
            for (t, a, lo, hi), above in zip(answer_cells(rel), rel.above_theta, strict=True)
        )
        above = answers_note(rel.theta, str(c["algorithm"]), rel.above_theta, iv.bias_bounded)
        lines += [
            f"![Private answers and their 95 % intervals]({data_uri(svg)})",
            "",
            "## Answers",
            "",
            "Each interval holds its **true** answer with probability at least 95 % (each on its "
            "own: about 1 in 20 may miss): it accounts "
            "for the noise and for the algorithm's bias (" + iv.method + "). It is computed "
            "from the noisy measurement and public inputs only (post-processing: no extra ε). "
            "Numbers are rounded to the digits their interval supports (interval ends outward; "
            "equal answers alike, to the finest of their rows); answers.csv has "
            f"{PUBLISHED_DIGITS} significant digits.",
            "",
        ]
        if not iv.bias_bounded.all():
            lines += [
                f"**Open above** ({counted(int((~iv.bias_bounded).sum()), 'query', 'queries')}: "
                f"{open_span(rel.thresholds, iv.bias_bounded)}): "
                f"{alg.label} truncated values above θ "
                "there and measured nothing that bounds how much lies above θ, so the true "
                "answer may be much larger than the interval's lower end.",
                "",
            ]
        if zero := zero_onset(rel):
            lines += [zero, ""]
        lines += [
            "| threshold τ | private answer | 95 % interval for the true answer | bias bounded |",
            "|---:|---:|---:|:---:|",
            rows,
            "",
            *([above, ""] if above else []),
            *(band_lines(rel, bands) if bands else [BAND_HOWTO, ""]),
        ]
    lines += [
        "## What was released",
        "",
        f"- **Dataset**: {name}"
        + ("" if rel.column is None else f", column {escape_name(rel.column, 'markdown')}") + ".",
        f"- **Unit of privacy**: {unit}: the guarantee covers adding or "
        + ("removing one row." if rel.id_column is None else "removing one person (all their rows)."),
        f"- **Queries**: workload {used}, {query_words(rel.id_column is not None)}"
        + (f". Requested as {c['workload']}: {moved}." if moved else "."),
        f"- **Domain**: values in [0, U] with U = {number(float(c['upper']))}, in {int(c['bins']):,} "
        "bins" + (f" ({c['weights']} weights)" if c.get("weights") else "")
        + ". U and the bins are public and must be chosen without "
        "looking at the data: they set the noise, and a U read off the data would leak it.",
        f"- **Privacy budget**: ε = {decimal_text(b['total'])}, of which ε_θ = "
        f"{decimal_text(b['epsilon_theta'])} chooses θ and ε_m = "
        f"{decimal_text(b['epsilon_measure'])} measures the answers.",
        f"- **Algorithm**: {alg.label} {_plain_words(alg, c)}."
        + ("" if c.get("chosen_by_auto") is None else f" {c['chosen_by_auto'].rstrip('.')}."),
        f"- **Truncation**: {cap_truncation(c) or get_truncation(c['truncation']).description}.",
        f"- **Released θ**: {theta_words(rel.theta, float(c['upper']), algorithm=c['algorithm'])}.",
        *_cap_line(c),
        f"- **Isotonic regression**: {isotonic_words(bool(c['isotonic']))}",
        "",
        "## Record",
        "",
        f"- **Ledger**: {escape_name(ledger_line, 'markdown') or 'no ledger kept'}.",
        f"- **Versions**: dpsum {rel.versions.get('dpsum')}, OpenDP {rel.versions.get('opendp')}, "
        f"Python {rel.versions.get('python')}.",
        "- **Same configuration again** (new noise, a new charge on the ledger"
        + (f"; {escape_name(data.note, 'markdown')}" if data.note else "") + "):",
        "",
        "      " + record_command(c, dataset=data.value, engine=engine, id_column=rel.id_column,
                                  column=rel.column, bands=bands or ()),
        "",
    ]
    return "\n".join(lines)
