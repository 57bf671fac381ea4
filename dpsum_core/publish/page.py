"""report.html: the report's Markdown as a self-contained page (no scripts, no external
resources: it works offline).

Privacy
-------
A rendering of the report's text (:func:`dpsum_core.publish.report.report_markdown`): nothing more.
"""

from __future__ import annotations

import html
import re

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
                '<div class="wide"><table><thead><tr>' + "".join(f"<th>{h}</th>" for h in head)
                + "</tr></thead>"
                "<tbody>"
                + "".join("<tr>" + "".join(f"<td>{v}</td>" for v in r) + "</tr>" for r in rest)
                + "</tbody></table></div>"
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
        if line.startswith("![") and "](data:image/svg+xml;base64," in line:  # the chart
            alt, src = line[2:-1].split("](", 1)
            body.append(f'<p><img alt="{html.escape(alt)}" src="{html.escape(src)}"></p>')
        elif line.startswith("# "):
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
    style = (  # fits a phone (390 px): the chart shrinks, a wide table scrolls in its own box
        "body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
        "img{max-width:100%;height:auto}.wide{overflow-x:auto}h1,h2,p,li{overflow-wrap:anywhere}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;"
        "text-align:right}pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap;"
        "overflow-wrap:anywhere}"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
        'content="width=device-width, initial-scale=1">'
        f"<title>dpsum release report</title><style>{style}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
