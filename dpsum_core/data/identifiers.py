"""Columns that look like identifiers of people or rows, by their content: the one reference
for the CLI (a release of "one row = one person" is refused beside such a column, the default
value column skips them) and the dashboard (dpsum_ui.identifiers).

The rules, on a column's non-empty cells (n of them):

- **identifier of people** (:func:`looks_like_identifier`): text or integer codes (``"A17"``,
  ``"007"``, ``1042``), repeated (a person with several rows: for text codes at least one
  repeat, for integer codes at least half of the rows sharing their code with another row,
  :data:`SHARED_CODE_SHARE`, as an amount in whole units repeats by chance only), and more
  than √n distinct codes. At most √n distinct values is a *category* shared by many rows
  (``state`` = CA/NY/TX over 4,000 rows, a job index 0–7), not a person: with 4,000 rows a
  column needs over 63 distinct codes to count as an identifier. Decimal numbers (another
  measurement) and columns without a repeated value are not identifiers of people. A
  judgement on content, not a proof: an integer column such as an age over a few thousand
  rows can look like codes (``--one-row-per-person`` answers it), and people with hundreds
  of rows each look like a category when only the first rows are judged.
- **row number** (:func:`index_reason`): distinct integers forming a contiguous range
  (``0..3999`` over 4,000 rows): a row index or a one-row-per-person identifier.
- **people's codes** (:func:`index_reason`): an identifier of people (above) of integers
  with at least two rows per code on average (an income in whole units repeats by chance,
  an identifier by design).
- **index within a person** (:func:`index_reason`): beside an identifier of people, integers
  numbering each person's rows 0, 1, 2, … or 1, 2, 3, … (for at least 90 % of the rows).

Privacy
-------
Every rule reads the private data; the findings are for the data holder's eyes only (a
terminal, the custodian's page) and never released.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

# Rows judged when a whole table is not at hand (a file's or an engine's first rows).
SAMPLE_ROWS = 1000
# Share of the rows whose integer code another row has too, for integer codes to be people's:
# an amount in whole units (an income in dollars) repeats now and then by chance, an identifier
# of people with several rows by design.
SHARED_CODE_SHARE = 0.5
# Share of the rows that must number their person's rows 0, 1, 2, … (index within a person).
PER_PERSON_INDEX_SHARE = 0.9


def _cells(values: pd.Series) -> pd.Series:
    cells = values.dropna().astype(str).str.strip()
    return cells[cells != ""]


def _integers(cells: pd.Series) -> np.ndarray | None:
    """The cells as integers (float64), or None when one is not an integer."""
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    numbers = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float)
    if numbers.size == 0 or not np.isfinite(numbers).all() or (numbers != np.round(numbers)).any():
        return None
    return numbers


def looks_like_identifier(values: pd.Series) -> bool:
    """Whether ``values`` look like codes of people with several rows each: text or integer
    codes, some repeated, more than √(cells) distinct (fewer: a category; see the module)."""
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    cells = _cells(values)
    distinct = cells.nunique()
    if cells.size < 2 or distinct == cells.size or distinct <= math.sqrt(cells.size):
        return False
    if pd.to_numeric(cells, errors="coerce").isna().any():  # text codes
        return True
    if _integers(cells) is None:  # decimals: a measurement
        return False
    shared = cells.duplicated(keep=False).mean()  # rows whose code another row has too
    return bool(shared >= SHARED_CODE_SHARE)


def identifier_columns(df: pd.DataFrame, *, skip: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The columns of ``df`` (except ``skip``) that look like identifiers of people."""
    return tuple(
        str(name) for name, col in df.items()
        if str(name) not in skip and looks_like_identifier(col)
    )  # fmt: skip


def index_reason(df: pd.DataFrame, column: str, *, owners: tuple[str, ...] = ()) -> str | None:
    """Why ``column`` of ``df`` looks like a row number or an identifier rather than a value
    (see the module's rules; ``owners``: the identifiers of people whose rows it may number),
    in plain words, or None."""
    cells = _cells(df[column])
    numbers = _integers(cells)
    if numbers is None or numbers.size < 3:
        return None
    distinct = np.unique(numbers)
    if distinct.size == numbers.size and distinct[-1] - distinct[0] + 1 == numbers.size:
        return (
            f"distinct integers {distinct[0]:.0f}..{distinct[-1]:.0f} in its first "
            f"{numbers.size:,} rows, one per row: a row number or an identifier"
        )
    if looks_like_identifier(df[column]) and 2 * distinct.size <= numbers.size:
        return f"integer codes repeated over rows ({distinct.size:,} distinct): an identifier"
    if distinct[0] not in (0, 1) or distinct[-1] - distinct[0] + 1 != distinct.size:
        return None  # an index within a person takes every value from 0 (or 1) up
    for owner in owners:
        if owner != column and _numbers_rows_of(df[column], df[owner]):
            return f"numbers the rows of each {owner!r} (0, 1, 2, …): an index, not a value"
    return None


def _numbers_rows_of(values: pd.Series, ids: pd.Series) -> bool:
    """Whether ``values`` number the rows of each identifier 0, 1, … or 1, 2, … (see
    :data:`PER_PERSON_INDEX_SHARE`)."""
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    numbers = pd.to_numeric(values, errors="coerce")
    frame = pd.DataFrame({"v": numbers.to_numpy(), "id": ids.astype(str).to_numpy()}).dropna()
    if frame.empty:
        return False
    group = frame.groupby("id")["v"]
    low, high = group.transform("min"), group.transform("max")
    size, unique = group.transform("size"), group.transform("nunique")
    enumerates = low.isin([0, 1]) & (high - low + 1 == size) & (unique == size) & (size > 1)
    return bool(enumerates.mean() >= PER_PERSON_INDEX_SHARE)


def skipped_columns(
    df: pd.DataFrame, candidates: list[str], *, id_column: str | None = None
) -> dict[str, str]:
    """The numeric ``candidates`` of ``df`` a default value column skips, with why: the
    identifier ``id_column`` if given, else every column that looks like one, owns the rows
    an index may number."""
    owners = (id_column,) if id_column is not None else identifier_columns(df)
    found = {}
    for name in candidates:
        if name in df.columns and name != id_column:
            reason = index_reason(df, name, owners=owners)
            if reason is not None:
                found[name] = reason
    return found


def default_column_note(column: str, skipped: Mapping[str, str], *, option: str) -> str:
    """Which value column was chosen by default and why, naming the skipped columns and how to
    choose another (``option``: ``--column`` or the page's box)."""
    why = "the most numeric column" + (" not like an identifier" if skipped else "")
    note = f"value column {column!r} chosen by default ({why})"
    if skipped:
        note += "; skipped " + "; ".join(f"{n!r}: {r}" for n, r in skipped.items())
    return note + f". Choose another with {option}."
