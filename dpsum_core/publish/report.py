"""What a release hands over: its files (answers.csv, release.json, report.md and a
self-contained report.html) and the command that makes the same configuration again
(:mod:`dpsum_core.publish.command`).

Everything here is made of a :class:`~dpsum_core.publish.release.Release`'s public parts:
nothing computed from the data without noise reaches a file (the release tests scan for leaks).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.registry import truncation as get_truncation
from dpsum_core.publish.command import record_command
from dpsum_core.publish.release import (
    PUBLISHED_DIGITS,
    Release,
    decimal_text,
)
from dpsum_core.text import escape_name

RELEASE_FILES = ("answers.csv", "release.json", "report.html", "report.md")


def release_paths(out: str | Path) -> list[Path]:
    """``out/answers.csv``, ``release.json``, ``report.html`` and ``report.md``; ParameterError
    if any exists (an earlier release is never overwritten: check this before drawing)."""
    out = Path(out)
    paths = [out / name for name in RELEASE_FILES]
    taken = [p.name for p in paths if p.exists()]
    if taken:
        raise ParameterError(
            f"{out} already holds a release ({', '.join(taken)}): choose another folder"
        )
    return paths


def write_release(
    rel: Release,
    out: str | Path,
    *,
    dataset: str = "the dataset",
    ledger_line: str = "",
    engine: str = "memory",
) -> list[Path]:
    """Write answers.csv, release.json, report.html and report.md into ``out``, nothing else.

    ``engine`` (memory, duckdb, spark) is recorded in release.json and in the report's command.

    Privacy
    -------
    Writes only :meth:`Release.answers_frame`, :meth:`Release.record` and the report made of
    them (:func:`report_markdown`), with the dataset's name, the engine and the ledger line.
    """
    answers, record, page, text = release_paths(out)
    answers.write_text(answers_csv(rel))
    record.write_text(record_json(rel, engine=engine))
    markdown = report_markdown(rel, dataset=dataset, ledger_line=ledger_line, engine=engine)
    text.write_text(markdown)
    page.write_text(report_html(markdown))
    return [answers, record, page, text]


def answers_csv(rel: Release) -> str:
    """answers.csv's text (answers and ± already rounded to :data:`PUBLISHED_DIGITS` digits,
    written as the shortest text of each float)."""
    return rel.answers_frame().to_csv(index=False)


def record_json(rel: Release, *, engine: str = "memory") -> str:
    """release.json's text (the release's record and the engine that computed its summary)."""
    return json.dumps({**rel.record(), "engine": engine}, indent=2, allow_nan=False) + "\n"


def report_markdown(
    rel: Release, *, dataset: str, ledger_line: str = "", engine: str = "memory"
) -> str:
    """The release's report (Markdown): what was released, how, and how to make it again.

    Privacy
    -------
    Made only of the release's public parts (configuration, budget, released θ, the private
    answers and their ±), the dataset's name and the ledger line: nothing computed from the
    data without noise.
    """
    c, b = rel.config, rel.budget
    name, unit = escape_name(dataset, "markdown"), escape_name(rel.unit_of_privacy, "markdown")
    alg = get(c["algorithm"])
    theta = rel.theta
    shown_theta = (
        "none (no truncation: θ = ∞)" if theta is None
        else f"one per query ({', '.join(f'{t:.{PUBLISHED_DIGITS}g}' for t in theta)})"
        if isinstance(theta, list) else f"{theta:.{PUBLISHED_DIGITS}g}"
    )  # fmt: skip
    rows = "\n".join(
        f"| {t:.{PUBLISHED_DIGITS}g} | {a:.{PUBLISHED_DIGITS}g} | "
        + ("" if h is None else f"± {h:.{PUBLISHED_DIGITS}g}")
        + " |"
        for t, a, h in zip(
            rel.thresholds,
            rel.private_answers,
            rel.noise_halfwidth
            if rel.noise_halfwidth is not None
            else [None] * rel.thresholds.size,
            strict=True,
        )
    )
    lines = [
        f"# dpsum release: {name}",
        "",
        f"Created {rel.created} (UTC).",
        "",
        "## What was released",
        "",
        f"- **Dataset**: {name}.",
        f"- **Unit of privacy**: {unit}: the guarantee covers adding or "
        + ("removing one row." if rel.id_column is None else "removing one person (all their rows)."),
        f"- **Queries**: workload {c['workload']}, sums of the values ≤ each threshold τ.",
        f"- **Domain**: values in [0, U] with U = {decimal_text(c['upper'])}, in {c['bins']} "
        f"bins ({c['weights']} weights). U and the bins are public and must be chosen without "
        "looking at the data: they set the noise, and a U read off the data would leak it.",
        f"- **Privacy budget**: ε = {decimal_text(b['total'])}, of which ε_θ = "
        f"{decimal_text(b['epsilon_theta'])} chooses θ and ε_m = "
        f"{decimal_text(b['epsilon_measure'])} measures the answers.",
        f"- **Algorithm**: {alg.label}: Laplace noise on {alg.measures}.",
        f"- **Truncation**: {get_truncation(c['truncation']).description}.",
        f"- **Released θ**: {shown_theta}.",
        "- **Isotonic regression**: "
        + ("yes (post-processing: answers made non-decreasing)." if c["isotonic"] else "no."),
        "",
        "## Answers",
        "",
        f"Numbers carry {PUBLISHED_DIGITS} significant digits (a public rounding). The ± is the "
        "half-width of a 95 % interval of each answer's noise, computed from public inputs and "
        "the released θ only; it does **not** include the truncation bias (values above θ "
        "count as θ), which depends on the data and is not published.",
        "",
        "| threshold τ | private answer | 95 % noise ± |",
        "|---:|---:|---:|",
        rows,
        "",
        "## Record",
        "",
        f"- **Ledger**: {escape_name(ledger_line, 'markdown') or 'no ledger kept'}.",
        f"- **Versions**: dpsum {rel.versions.get('dpsum')}, OpenDP {rel.versions.get('opendp')}, "
        f"Python {rel.versions.get('python')}.",
        "- **Same configuration again** (new noise, a new charge on the ledger):",
        "",
        f"      {record_command(c, dataset=dataset, engine=engine, id_column=rel.id_column)}",
        "",
    ]
    return "\n".join(lines)


_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")  # CommonMark's backslash escapes
_INLINE = re.compile(r"(\\[!-/:-@\[-`{-~]|\*\*)")


def report_html(markdown: str) -> str:
    """A self-contained HTML page of the report (no scripts, no external resources: works
    offline): the Markdown's lines as headings, lists, a table and preformatted text."""
    body: list[str] = []
    table: list[list[str]] = []

    def flush_table() -> None:
        if table:
            head, *rest = table
            body.append(
                "<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead>"
                "<tbody>"
                + "".join("<tr>" + "".join(f"<td>{v}</td>" for v in r) + "</tr>" for r in rest)
                + "</tbody></table>"
            )
            table.clear()

    def inline(text: str) -> str:
        # ** toggles bold; a backslash-escaped character (a name, see escape_name) is text
        out, bold = [], False
        for token in _INLINE.split(text):
            if token == "**":
                out.append("</strong>" if bold else "<strong>")
                bold = not bold
            else:
                out.append(html.escape(token[1:] if _ESCAPED.fullmatch(token) else token))
        return "".join(out) + ("</strong>" if bold else "")

    for line in markdown.splitlines():
        if line.startswith("|"):
            cells = [x.strip() for x in line.strip("|").split("|")]
            if not all(set(x) <= set("-:") for x in cells):
                table.append([inline(x) for x in cells])
            continue
        flush_table()
        if line.startswith("# "):
            body.append(f"<h1>{inline(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{inline(line[3:])}</h2>")
        elif line.startswith("- "):
            body.append(f"<ul><li>{inline(line[2:])}</li></ul>")
        elif line.startswith("      "):
            body.append(f"<pre>{html.escape(line.strip())}</pre>")
        elif line.strip():
            body.append(f"<p>{inline(line)}</p>")
    flush_table()
    style = (
        "body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;"
        "text-align:right}pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>dpsum release report</title><style>{style}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
