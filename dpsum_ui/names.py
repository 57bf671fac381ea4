"""Names as the dashboard shows them (review 10 P3: a 227-character file name filled six lines
of the sidebar, the "Set U for …" box and "Made on …"): the one shortening of a dataset or file
name on screen, a middle ellipsis that keeps its start and its extension, then the one escaping
of :func:`dpsum_core.text.escape_name`. Downloads, reports and commands keep the whole name.
"""

from __future__ import annotations

from dpsum_core.text import Target, escape_name, visible

NAME_SHOWN = 60  # characters of a name on screen, the ellipsis included


def short_name(name: object, limit: int = NAME_SHOWN) -> str:
    """``name`` on one line (:func:`~dpsum_core.text.visible`), cut in the middle to ``limit``
    characters: ``weekly_earnings_surv…2025_final.csv``; a shorter name as it is."""
    text = visible(name)
    if len(text) <= limit:
        return text
    tail = (limit - 1) // 2
    return f"{text[: limit - 1 - tail]}…{text[-tail:]}"


def shown_name(name: object, target: Target = "markdown") -> str:
    """A name as shown on a page or a chart title: shortened (:func:`short_name`), escaped for
    ``target`` (Markdown by default)."""
    return escape_name(short_name(name), target)


def name_help(name: object) -> str | None:
    """The whole name for a tooltip when :func:`shown_name` cuts it (None when it does not)."""
    text = visible(name)
    return None if len(text) <= NAME_SHOWN else escape_name(text, "markdown")
