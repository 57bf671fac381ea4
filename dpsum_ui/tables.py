"""The numbers behind a chart as a table: the text alternative offered next to every chart.

Read from the plotly figure itself (what is drawn is what is listed), so every chart of the
dashboard gets its table from one function. No Streamlit here.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpsum_core.plots.export import NOT_FOR_PUBLICATION_MARK

BAND_SUFFIX = " 5–95%"  # dpsum_core.plots names a band "<series> 5–95%"
# A dataframe cell's text: about this many pixels per character at Streamlit's 14 px grid font
# (wide letters, digits, θ and ∞ included), plus the cell's padding.
CHAR_PX = 6.5
CELL_PAD_PX = 20
# The marks of a CSV computed from the data without noise (a chart's numbers, the explorer's
# summary, Decide's curves): a part of its file name and a last column, in every row, with the
# PNG downloads' wording; a release's own files (answers.csv) carry neither.
NOT_FOR_PUBLICATION_PART = "_not_for_publication"
NOTICE_COLUMN = "notice"


def unpublished_name(stem: str, ext: str) -> str:
    """The file name ``stem.ext`` with :data:`NOT_FOR_PUBLICATION_PART` before the extension
    (once: a stem that already ends with it is kept)."""
    mark = "" if stem.endswith(NOT_FOR_PUBLICATION_PART) else NOT_FOR_PUBLICATION_PART
    return f"{stem}{mark}.{ext}"


def unpublished_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a last column :data:`NOTICE_COLUMN` saying, in every row, that it was
    computed from the data without noise and is not for publication (any CSV reader reads
    it as one more column; a row copied alone keeps it)."""
    return frame.assign(**{NOTICE_COLUMN: NOT_FOR_PUBLICATION_MARK})


def text_widths(table: pd.DataFrame) -> dict[str, int]:
    """Pixel width of every text column of ``table`` but the last whose longest cell is
    longer than its header: wide enough for that cell. A grid that stretches to the page sizes
    its columns by their headers and cuts such a cell ("θ located by the algo…");
    st.column_config's ``width`` keeps it whole. The other columns, and the last (the room
    that is left), keep the grid's own sizes."""
    widths = {}
    for c in table.columns[:-1]:
        if pd.api.types.is_numeric_dtype(table[c]) or not len(table):
            continue
        longest = max(len(str(v)) for v in table[c])
        if longest > len(str(c)):
            widths[str(c)] = int(np.ceil(CHAR_PX * longest + CELL_PAD_PX))
    return widths


def figure_name(fig: go.Figure) -> str:
    """The figure's title without its subtitle and markup, e.g. "Relative error, SVT"."""
    text = str(fig.layout.title.text or "").split("<br>")[0]
    return re.sub(r"<[^>]+>", "", text).strip()


def _axis_title(fig: go.Figure, axis: str, fallback: str) -> str:
    """The title of axis ``x``/``x2``/``y``… (``xaxis``, ``xaxis2`` … in the layout), with
    ``(fraction)`` when the axis shows its fractions as percentages (the table holds them
    as drawn: 0.05 is 5 %)."""
    layout_axis = fig.layout[axis[0] + "axis" + axis[1:]]
    text = layout_axis.title.text if layout_axis is not None else None
    name = re.sub(r"\s*<br>\s*", " ", str(text)) if text else fallback  # a title's lines
    fraction = layout_axis is not None and "%" in str(layout_axis.tickformat or "")
    return f"{name} (fraction)" if fraction else name


def _panels(fig: go.Figure) -> dict[str, str]:
    """Subplot titles by x axis id (make_subplots puts them in annotations, in panel order)."""
    titles = [a.text for a in fig.layout.annotations if a.xref == "paper" and a.yref == "paper"]
    axes = sorted(
        {t.xaxis or "x" for t in fig.data if hasattr(t, "xaxis")},
        key=lambda a: int(a[1:] or 1),
    )
    return dict(zip(axes, titles, strict=False)) if len(axes) > 1 else {}


def _values(v) -> np.ndarray | None:
    return None if v is None else np.asarray(v)


def figure_table(fig: go.Figure) -> pd.DataFrame:
    """One row per drawn point: panel (for subplots), series, x, y and, where the chart draws
    a 5–95 % band around a line, the band's 5th and 95th percentiles at that x.

    Heatmaps give one row per cell (row label, column label, the value printed in the cell).
    Column names are the axis titles, so the table reads like the chart.
    """
    heat = [t for t in fig.data if t.type == "heatmap"]
    if heat:
        return _heatmap_table(fig, heat[0])
    panels = _panels(fig)
    bands: dict[tuple[str, str], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    frames: list[pd.DataFrame] = []
    x_name, y_name = _axis_title(fig, "x", "x"), _axis_title(fig, "y", "y")
    for t in fig.data:
        x, y = _values(t.x), _values(t.y)
        axis = getattr(t, "xaxis", None) or "x"
        if getattr(t, "fill", None) == "toself" and x is not None and y is not None:
            n = len(x) // 2  # one closed polygon: x forwards with the 95th, back with the 5th
            name = (t.name or "").removesuffix(BAND_SUFFIX)
            bands[(axis, name)] = (x[:n], y[n:][::-1], y[:n])
            continue
        if x is None and y is None:
            continue
        if t.type == "histogram":  # the raw values are the data (e.g. θ of each trial)
            frame = pd.DataFrame({x_name: x if x is not None else y})
        else:
            # An empty bin is drawn as no bar (NaN on a log axis): 0.
            if t.type == "bar" and y is not None:
                y = np.nan_to_num(y.astype(float), nan=0.0)
            frame = pd.DataFrame({x_name: x, y_name: y})
            if (axis, t.name) in bands:
                bx, low, high = bands[(axis, t.name)]
                if x is not None and len(bx) == len(x) and np.array_equal(bx, x):
                    frame["5th percentile"], frame["95th percentile"] = low, high
        frame.insert(0, "series", t.name or "")
        if panels:
            frame.insert(0, "panel", panels.get(axis, axis))
        frames.append(frame)
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def _heatmap_table(fig: go.Figure, t) -> pd.DataFrame:
    """The cells' numbers at full precision (``customdata`` when the figure holds it, else the
    printed text; the colour is their log, a second cue only), under the trace's name (which
    says the unit) or else the title; cells that are not a configuration are left out."""
    rows, cols = list(t.y), list(t.x)
    cells = t.customdata if t.customdata is not None else t.text if t.text is not None else t.z
    value = t.name or (fig.layout.title.text or "value").split("<br>")[0]
    numbers = [[_number(cell) for cell in row] for row in cells]
    return pd.DataFrame(
        [
            {"row": str(r), "column": str(c), value: numbers[i][j]}
            for i, r in enumerate(rows)
            for j, c in enumerate(cols)
            if np.isfinite(numbers[i][j])
        ]
    )


def _number(cell) -> float:
    """A cell's printed number; NaN for a cell that says it has none ("not applicable")."""
    try:
        return float(cell)
    except (TypeError, ValueError):
        return float("nan")
