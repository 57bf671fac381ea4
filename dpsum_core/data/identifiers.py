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
  from 0 (or 1) up, the first of them the most common, that differ between the rows of the
  same person (for at least 90 % of the people seen with several rows, and at least
  :data:`MIN_PEOPLE_SEEN` of them): rows in any order, most people with one row.
- **count** (:func:`judge_columns`): a column that is at least 99 % numbers, all of them
  non-negative integers with few distinct values (at most 50 and at most √n: a job number,
  a number of children), beside a column of many distinct numbers that is at least 99 %
  numeric (the amount). A count can still be the value (it stays among the choices) but is
  not the default; an index within a person cannot.

Privacy
-------
Every rule reads the private data; the findings are for the data holder's eyes only (a
terminal, the custodian's page) and never released.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
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
# Share of the people seen with several rows whose rows have different numbers (an index within
# a person), and how many such people must be seen at least.
PER_PERSON_INDEX_SHARE = 0.9
MIN_PEOPLE_SEEN = 3
# Share of the non-empty cells that are numbers for a column to be a column of numbers (a few
# "n/a" or "refused" among 40,000 wages), not of text codes.
NUMERIC_SHARE = 0.99
# At most this many distinct non-negative integers (and at most √n): a count or an index.
SMALL_INTEGER_VALUES = 50

# Column names that say "identifier" or "row number": id, user_id, index, row, Unnamed: 0.
_ID_LIKE = re.compile(r"^(id|index|row|unnamed: ?\d+)$|(^|_)id$", re.IGNORECASE)


def named_like_identifier(name: str) -> bool:
    """Whether a column's name says it is an identifier or a row number (``id``,
    ``user_id``, ``index``, ``row``, ``Unnamed: 0``)."""
    return bool(_ID_LIKE.search(name.strip()))


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


def _numbers(cells: pd.Series, *, written: bool = False) -> pd.Series:
    """The cells read leniently as numbers ('$', '_', ',' and spaces removed; NaN if not one):
    enough to tell a column of numbers from text codes, not to read the values. ``written``:
    the cells are numbers as Python writes them (a numeric column's), which hold none of the
    removed characters (the removal, a regular expression run on every cell, is skipped)."""
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    plain = cells if written else cells.str.replace(r"[$_,\s]", "", regex=True)
    return pd.to_numeric(plain, errors="coerce")


def few_distinct(distinct: int, cells: int) -> bool:
    """Whether ``distinct`` values over ``cells`` cells (at least two) are a *category* shared
    by many rows, not people: at most √cells of them (see the module). The rule that keeps a
    column from looking like an identifier, and that cautions against one chosen by hand.

    >>> few_distinct(4, 3000), few_distinct(63, 4000), few_distinct(64, 4000), few_distinct(1, 1)
    (True, True, False, False)
    """
    return cells >= 2 and distinct <= math.sqrt(cells)


class _Column:
    """One column's readings, each made once: the rules read the same column several times
    (is it an identifier, a row number, a count, an amount?), and reading 45,000 cells as text
    and numbers was most of the time of judging a table (0.3 s for the sample data)."""

    def __init__(self, values: pd.Series) -> None:
        import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

        self.values = values
        dtype = values.dtype
        # numbers already: their text is Python's (digits, '-', '.', 'e', 'inf')
        self.written = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(
            dtype
        )

    @cached_property
    def cells(self) -> pd.Series:
        """The non-empty cells, as text."""
        return _cells(self.values)

    @cached_property
    def numbers(self) -> pd.Series | None:
        """The cells that are numbers (read leniently), when at least :data:`NUMERIC_SHARE`
        of them are; else None."""
        cells = self.cells
        numeric = _numbers(cells, written=self.written).notna()
        if cells.size == 0 or numeric.mean() < NUMERIC_SHARE:
            return None
        return cells[numeric.to_numpy()]

    @cached_property
    def number_integers(self) -> np.ndarray | None:
        """:attr:`numbers` as integers, or None (no numbers, or one not an integer)."""
        return None if self.numbers is None else _integers(self.numbers)

    @cached_property
    def integers(self) -> np.ndarray | None:
        """Every cell as an integer, or None when one is not an integer."""
        return _integers(self.cells)

    @cached_property
    def identifier(self) -> bool:
        """:func:`looks_like_identifier` of the column."""
        cells = self.cells
        distinct = cells.nunique()
        if cells.size < 2 or distinct == cells.size or few_distinct(distinct, cells.size):
            return False
        numbers = self.numbers
        if numbers is None:  # text codes
            return True
        if self.number_integers is None:  # decimals: a measurement
            return False
        shared = numbers.duplicated(keep=False).mean()  # rows whose code another row has too
        return bool(shared >= SHARED_CODE_SHARE)


def looks_like_identifier(values: pd.Series) -> bool:
    """Whether ``values`` look like codes of people with several rows each: text or integer
    codes, some repeated, more than √(cells) distinct (fewer: a category; see the module).
    A column of numbers with a few words in it (at least :data:`NUMERIC_SHARE` numbers: "n/a",
    "refused" among wages) is judged on its numbers."""
    return _Column(values).identifier


def _columns(df: pd.DataFrame) -> dict[str, _Column]:
    return {str(name): _Column(col) for name, col in df.items()}


def identifier_columns(df: pd.DataFrame, *, skip: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The columns of ``df`` (except ``skip``) that look like identifiers of people."""
    return _identifier_columns(_columns(df), skip=skip)


def _identifier_columns(
    columns: Mapping[str, _Column], *, skip: tuple[str, ...] = ()
) -> tuple[str, ...]:
    return tuple(name for name, col in columns.items() if name not in skip and col.identifier)


def index_reason(
    df: pd.DataFrame, column: str, *, owners: tuple[str, ...] = ()
) -> tuple[str, bool] | None:
    """Why ``column`` of ``df`` looks like a row number or an identifier rather than a value
    (see the module's rules; ``owners``: the identifiers of people whose rows it may number),
    in plain words, and whether it is an index within a person; or None."""
    return _index_reason(df, column, _Column(df[column]), owners=owners)


def _index_reason(
    df: pd.DataFrame, column: str, col: _Column, *, owners: tuple[str, ...] = ()
) -> tuple[str, bool] | None:
    numbers = col.integers
    if numbers is None or numbers.size < 3:
        return None
    distinct = np.unique(numbers)
    if distinct.size == numbers.size and distinct[-1] - distinct[0] + 1 == numbers.size:
        return (
            f"distinct integers {distinct[0]:.0f}..{distinct[-1]:.0f} in its first "
            f"{numbers.size:,} rows, one per row: a row number or an identifier"
        ), False
    if col.identifier and 2 * distinct.size <= numbers.size:
        codes = f"integer codes repeated over rows ({distinct.size:,} distinct): an identifier"
        return codes, False
    if distinct[0] not in (0, 1) or distinct[-1] - distinct[0] + 1 != distinct.size:
        return None  # an index within a person takes every value from 0 (or 1) up
    for owner in owners:
        if owner != column and _numbers_rows_of(df[column], df[owner]):
            return f"numbers the rows of each {owner!r} (0, 1, 2, …): an index, not a value", True
    return None


def _numbers_rows_of(values: pd.Series, ids: pd.Series) -> bool:
    """Whether ``values`` number the rows of each identifier 0, 1, … or 1, 2, …, judged on
    rows in any order where most people may have one row: the first number is the most
    common (every person has it), and the people seen with several rows have different
    numbers on them (see :data:`PER_PERSON_INDEX_SHARE`, :data:`MIN_PEOPLE_SEEN`)."""
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    numbers = pd.to_numeric(values, errors="coerce")
    frame = pd.DataFrame({"v": numbers.to_numpy(), "id": ids.to_numpy()}).dropna()
    if frame.empty:
        return False
    counts = frame["v"].value_counts()
    if counts[frame["v"].min()] < counts.max():
        return False
    frame["id"] = frame["id"].astype(str).str.strip()
    sizes = frame.groupby("id")["v"].agg(["size", "nunique"])
    several = sizes[sizes["size"] > 1]
    if len(several) < MIN_PEOPLE_SEEN:
        return False
    return bool((several["size"] == several["nunique"]).mean() >= PER_PERSON_INDEX_SHARE)


def _small_integers(col: _Column) -> np.ndarray | None:
    """The distinct values of a column of few distinct non-negative integers (a count or an
    index, see the module), or None."""
    plain = col.number_integers
    if plain is None or plain.min() < 0:
        return None
    distinct = np.unique(plain)
    few = distinct.size <= min(SMALL_INTEGER_VALUES, math.sqrt(col.cells.size))
    return distinct if few else None


def _many_numbers(col: _Column) -> bool:
    """Whether a column is at least :data:`NUMERIC_SHARE` numbers with many distinct values
    (more than a count has): an amount."""
    if col.numbers is None:
        return False
    distinct = _numbers(col.numbers, written=col.written).nunique()
    return bool(distinct > min(SMALL_INTEGER_VALUES, math.sqrt(col.cells.size)))


@dataclass(frozen=True)
class Judged:
    """What a table's first rows say of its numeric columns (:func:`judge_columns`).

    Attributes
    ----------
    skipped
        The columns a default value column skips (put last), with why.
    not_values
        The columns that cannot be the value column: row numbers, codes of people, an index
        within a person (a count can still be the value, and is not here).
    indexes
        The columns that look like an index within a person or a count: not a person's
        identifier.
    """

    skipped: tuple[tuple[str, str], ...] = ()
    not_values: tuple[str, ...] = ()
    indexes: tuple[str, ...] = ()


def judge_columns(
    df: pd.DataFrame, candidates: Sequence[str], *, id_column: str | None = None
) -> Judged:
    """Judge the numeric ``candidates`` of ``df`` (see the module's rules). The identifier
    ``id_column`` if given, else every column that looks like one, owns the rows an index may
    number."""
    columns = _columns(df)  # each column read once, whatever the rules ask of it
    owners = (id_column,) if id_column is not None else _identifier_columns(columns)
    present = [c for c in candidates if c in df.columns and c != id_column]
    found: dict[str, str] = {}
    indexes = []
    for name in present:
        judged = _index_reason(df, name, columns[name], owners=owners)
        if judged is not None:
            found[name] = judged[0]
            indexes += [name] if judged[1] else []
    not_values = tuple(found)
    rest = [c for c in present if c not in found]
    small = {c: d for c in rest if (d := _small_integers(columns[c])) is not None}
    # a count is told apart only beside an amount (no count: no amount to look for)
    if small and any(c not in small and _many_numbers(columns[c]) for c in rest):
        for name, d in small.items():
            found[name] = (
                f"only {d.size} distinct integers ({d[0]:.0f}..{d[-1]:.0f}) in its first "
                f"{len(df):,} rows: a count, an index or a code rather than an amount"
            )
            indexes.append(name)
    return Judged(tuple(found.items()), not_values, tuple(indexes))


def value_choices(
    ranked: Sequence[str], not_values: Sequence[str], *, id_column: str | None = None
) -> tuple[str, ...]:
    """The columns that could be the value column, best first: the numeric columns
    ``ranked`` other than the identifier, the ``not_values`` (:class:`Judged`) and columns
    named like identifiers; all but the identifier when none is left."""
    left = tuple(c for c in ranked if c != id_column)
    return tuple(
        c for c in left if c not in not_values and not named_like_identifier(c)
    ) or left  # fmt: skip


def default_column_note(column: str, skipped: Mapping[str, str], *, option: str) -> str:
    """Which value column was chosen by default and why, naming the skipped columns and how to
    choose another (``option``: ``--column`` or the page's box)."""
    why = "the most numeric column" + (" not like an identifier or an index" if skipped else "")
    note = f"value column {column!r} chosen by default ({why})"
    if skipped:
        note += "; skipped " + "; ".join(f"{n!r}: {r}" for n, r in skipped.items())
    return note + f". Choose another with {option}."
