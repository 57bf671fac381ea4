"""report.html: the report's Markdown as a self-contained page (no scripts, no external
resources: it works offline).

Privacy
-------
A rendering of the report's text (:func:`dpsum_core.publish.report.report_markdown`): nothing more.
"""

from __future__ import annotations

import html
import re

NARROW = "30em"  # 480 px (a media query's em is 16 px): a phone, where tables take a smaller font
_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")  # CommonMark's backslash escapes
_INLINE = re.compile(r"(\\[!-/:-@\[-`{-~]|\*\*)")
# A number and its unit on one line ("95 %", "97.5 %", "1 in 20"): a phone broke "95 / %"
_TOGETHER = re.compile(r"(?<=\d) (?=%)|(?<=\d) (in) (?=\d)")


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
                text = html.escape(token[1:] if _ESCAPED.fullmatch(token) else token)
                out.append(_TOGETHER.sub(lambda m: f"&nbsp;{m[1]}&nbsp;" if m[1] else "&nbsp;", text))
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
    style = (  # fits a phone (390 px): the chart shrinks, tables take a smaller font there
        "body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
        "img{max-width:100%;height:auto}h1,h2,p,li{overflow-wrap:anywhere}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;"
        "text-align:right}pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap;"
        "overflow-wrap:anywhere}"
        # a table wider than the screen scrolls in its own box, with a shadow at the edge
        # that has more to show (drawn only while it overflows: a cue to scroll)
        ".wide{overflow-x:auto;background:"
        "linear-gradient(to right,#fff 30%,#fff0) left/2em 100% no-repeat local,"
        "linear-gradient(to left,#fff 30%,#fff0) right/2em 100% no-repeat local,"
        "radial-gradient(farthest-side at 0 50%,#0004,#0000) left/.8em 100% no-repeat scroll,"
        "radial-gradient(farthest-side at 100% 50%,#0004,#0000) right/.8em 100% no-repeat scroll}"
        f"@media (max-width:{NARROW}){{body{{margin:1em auto;padding:0 .5em}}"
        "table{font-size:.8em}td,th{padding:.2em .3em}}"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
        'content="width=device-width, initial-scale=1">'
        f"<title>dpsum release report</title><style>{style}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
