"""Columns of a release file that look like a person's identifier: such a file cannot be
released as "one row = one person" without an explicit choice (issue 24 §3). The rule is the
engine's (:func:`dpsum_core.data.identifiers.looks_like_identifier`), as in ``dpsum release``."""

from __future__ import annotations

from dataclasses import replace

from dpsum_core.data.cleaning import unit_of_privacy
from dpsum_core.data.identifiers import (
    default_column_note,
    few_distinct,
    looks_like_identifier,
    named_like_identifier,
)
from dpsum_core.data.reading import read_table
from dpsum_core.errors import DpsumError
from dpsum_core.text import counted, escape_name, noun

from . import keys as K
from .datasets import DataContext, upload_of
from .store import data_state, live, memo, put_data
from .uploads import HELD


def unit_option(id_column: str | None, *, index: bool = False) -> str:
    """An option of the unit-of-privacy boxes, in the words of the charts' subtitles and
    short enough for the box at 1280 px ("Rows of the same person are identified by column
    person_" was cut): "One row per person" or "One person = all rows with the same 'pid'";
    ``index``: the column looks like an index within a person or a count, and says so."""
    if id_column is None:
        return "One row per person"
    words = unit_of_privacy(id_column)
    return words[0].upper() + words[1:] + (" (looks like an index)" if index else "")


def index_columns(ctx: DataContext) -> tuple[str, ...]:
    """The columns of an uploaded file whose first rows look like an index within a person or
    a count (a job number 1, 2, …; :attr:`dpsum_core.data.reading.TableHead.indexes`): offered
    last as a person's identifier, saying so; none for samples and server datasets.

    Privacy
    -------
    Read off the file's first rows; shown to the data holder only, as column names.
    """
    up = upload_of(ctx)
    return () if up is None else up.head.indexes


def unit_choices(ctx: DataContext, columns: list[str]) -> list[str]:
    """``columns`` in the order a unit-of-privacy box offers them: those that look like an
    index or a count (:func:`index_columns`) last. Still offered, as a file with a few people
    numbered 1, 2, … looks the same."""
    indexes = index_columns(ctx)
    return sorted(columns, key=lambda c: c in indexes)  # stable: the file's order otherwise


def unit_caption(id_column: str | None) -> str | None:
    """Under a unit-of-privacy box, the chosen unit in full (a caption wraps where the box
    cuts a long column name); None for one row per person (the box says it whole)."""
    if id_column is None:
        return None
    return escape_name(f"Unit of privacy: {unit_of_privacy(id_column)}, their rows added up "
                       "before clipping to [0, U].", "markdown")  # fmt: skip


def suspects(ctx: DataContext) -> tuple[str, ...]:
    """The columns of an uploaded release file, other than the value column, that look like an
    identifier (memoised per file and column); none for samples and server datasets.

    Privacy
    -------
    Reads the private file; shown to the custodian only, as column names (public choices).
    """
    up = upload_of(ctx)
    if up is None or ctx.id_column is not None:
        return ()

    def find() -> tuple[str, ...]:
        found = []
        for name in up.names:
            if name == ctx.column:
                continue
            try:
                column = read_table(up.raw, name=up.name, columns=[name], text_columns=[name],
                                    budget=HELD)[name]  # fmt: skip
            except DpsumError:
                continue
            if looks_like_identifier(column):
                found.append(name)
        return tuple(found)

    return memo("id_suspects", (up.id, ctx.column), find)


def unit_note(ctx: DataContext) -> str | None:
    """For the Data page: while one row is one person (no identifier chosen), the columns of
    the upload that look like codes of people (:func:`suspects`, the Release page's and
    ``dpsum release``'s rule) and how to release by person; else None.

    Privacy
    -------
    Read off the private file; shown to the data holder only, before any release.
    """
    found = suspects(ctx)
    if not found:
        return None
    names = ", ".join(escape_name(repr(c), "markdown") for c in found)
    what = "looks like an identifier" if len(found) == 1 else "look like identifiers"
    command = f"dpsum release --id-column {escape_name(found[0], 'shell')}"
    shown = f"`{command}`" if "`" not in command else "`dpsum release --id-column` and its name"
    return (
        f"**{noun(len(found), 'Column')} {names} {what} of people** (repeated codes). If a "
        "person can have several rows, the release should be by person: choose the column "
        f"that identifies a person under **Unit of privacy** above ({shown}), so that each "
        "person is protected with all their rows, not each row. If every row is a different "
        "person, keep one row per person and tick that box on the Release page "
        "(`--one-row-per-person`)."
    )


def column_note(ctx: DataContext) -> str | None:
    """Which value column an upload offers by default and why (the columns skipped as row
    numbers or identifiers, :func:`dpsum_core.data.identifiers.default_column_note`), while
    that column is shown and the file has several numeric columns; else None.

    Privacy
    -------
    Read off the file's first rows; shown to the data holder only.
    """
    up = upload_of(ctx)
    if up is None or len(up.columns) < 2 or ctx.column != up.columns[0]:
        return None
    note = default_column_note(ctx.column, dict(up.head.skipped), option="the box above")
    return note[0].upper() + note[1:]


def value_caution(ctx: DataContext, *, choose_in: str = "in the box above") -> str | None:
    """A caution while the value column is one the default skips, whoever chose it: it looks
    like a row number, an identifier, an index or a count (the rule of the default,
    :func:`dpsum_core.data.identifiers.judge_columns`, on an upload's first rows), or it is
    named like an identifier (``id``, ``user_id``, ``row``); else None. Markdown, saying where
    another column is chosen (``choose_in``).

    Privacy
    -------
    The first rule reads the private file: its caution says "for you only". The second
    reads the column's name alone. Neither changes what is released: a caution, not a choice.
    """
    column = ctx.column
    if column is None:
        return None
    up = upload_of(ctx)
    why = dict(up.head.skipped).get(column) if up is not None else None
    name = escape_name(repr(column), "markdown")
    if why is not None:
        found = ("For you only (read off the file's first rows): the default value column "
                 f"skips it — {escape_name(why, 'markdown')}.")  # fmt: skip
    elif named_like_identifier(column):
        found = "Its name is that of an identifier or a row number."
    else:
        return None
    return (
        f"**{name} may not be a value to sum.** {found} Its sums are then probably "
        f"meaningless, and a release would spend ε on them. Choose the column of amounts "
        f"{choose_in}, unless {name} is what you mean to release."
    )


def unit_caution(ctx: DataContext, *, choose_in: str = "in the box above") -> str | None:
    """A caution while the chosen identifier has too few distinct values to be people: at most
    √rows of them, a category by the rule that keeps a column from looking like an identifier
    (:func:`dpsum_core.data.identifiers.few_distinct`); else None. Markdown, saying where
    another unit is chosen (``choose_in``).

    Privacy
    -------
    Counts the cleaned data's people and rows without noise: the caution says "for you only".
    A caution, not a choice: the unit stays the one chosen.
    """
    data = ctx.dataset
    if ctx.id_column is None or data is None or data.report.people is None:
        return None
    people, rows = data.report.people, data.report.rows_kept
    if not few_distinct(people, rows):
        return None
    name = escape_name(repr(ctx.id_column), "markdown")
    return (
        f"**{name} may not identify people:** {counted(people, 'distinct value')} for "
        f"{counted(rows, 'row')} (for you only: counted from the data without noise). At most "
        f"√rows ≈ {rows**0.5:,.0f} distinct values is a category shared by many rows, not "
        f"people: each value's rows would be summed into one total clipped to [0, U], so a "
        f"release would sum {counted(people, 'value')} of at most U. Choose the column that "
        f"identifies a person {choose_in}, or one row per person, unless {name} is what you "
        "mean."
    )


def _identity(ctx: DataContext) -> tuple:
    up = upload_of(ctx)
    return (up.id if up is not None else ctx.label, ctx.column)


def on_one_row_sure(ctx: DataContext) -> None:
    """Callback of the explicit "one row is one person" box: ticked for this file and column."""
    sure = _identity(ctx) if live(K.RELEASE_ONE_ROW_SURE) else None
    put_data(replace(data_state(), one_row_sure_for=sure))


def one_row_sure(ctx: DataContext) -> bool:
    """Whether "one row = one person" was chosen explicitly for this file and column."""
    return data_state().one_row_sure_for == _identity(ctx)
