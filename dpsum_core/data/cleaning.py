"""Cleaning one column per SPEC §0, with its report: number formats, column choice, [0, U].

Cleaning is a fixed per-record rule, so it costs no privacy budget; the report is for the data
holder's eyes (it counts records).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Literal

import numpy as np

from dpsum_core import limits
from dpsum_core.checkpoint import checkpoint
from dpsum_core.data.content import Content, content_of
from dpsum_core.data.identifiers import Judged, judge_columns, named_like_identifier
from dpsum_core.errors import DataStatisticError
from dpsum_core.text import counted
from dpsum_core.validation import check_upper

if TYPE_CHECKING:
    import pandas as pd

DELIMITER = "delimiter"  # key of DataFrame.attrs: the delimiter a text table was read with
# White space, as Python's ``str.isspace`` (``str.strip()``, ``re``'s ``\s``) has it: ranges of
# code points, spelled for every engine (the SQL engines' ``\s`` is ASCII only). An identifier
# is compared with it removed at both ends; a value loses every white space character.
SPACE_RANGES = (
    (0x09, 0x0D), (0x1C, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680),
    (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
)  # fmt: skip
SPACES = "".join(chr(c) for lo, hi in SPACE_RANGES for c in range(lo, hi + 1))
WeightRule = Literal["upper", "midpoint"]


# --------------------------------------------------------------------------------------------
# Columns and cleaning
# --------------------------------------------------------------------------------------------
# What is removed from every text cell before it is read as a number (white space anywhere,
# "$" and "_"): "$1,234.50" is read as 1,234.50, "1 000" and "1_000" as 1000. The cleaning
# report counts the values read so (CleaningReport.dollar_removed, spaces_removed).
_REMOVED = r"[\s$_]"
# Number formats of a text cell (after removing spaces, "$" and "_"). A comma is a thousands
# separator only in US_THOUSANDS; EU_DECIMAL has a decimal comma (dots between thousands);
# "1,234" matches both. EU_INTEGER is "1.234" read with dots between thousands, which only a
# decimal-comma column can mean; with two dots or more ("1.234.567") nothing else can.
_US_THOUSANDS = r"[+-]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d*)?"
_EU_DECIMAL = r"[+-]?(?:\d+|[1-9]\d{0,2}(?:\.\d{3})+),\d+"
_EU_INTEGER = r"[+-]?[1-9]\d{0,2}(?:\.\d{3})+"
_EU_INTEGER_ONLY = r"[+-]?[1-9]\d{0,2}(?:\.\d{3}){2,}"


@dataclass(frozen=True, eq=False)
class _Numbers:
    values: pd.Series  # float64, NaN where a cell is not a number
    decimal_comma: int = 0  # cells read with a decimal comma (European format)
    thousands_separator: int = 0  # cells read with commas between thousands
    # Cells that had a "$" removed, and cells that had "_" or white space removed from
    # between their characters (white space at both ends aside); None: no text cell had either.
    dollar: np.ndarray | None = None
    spaced: np.ndarray | None = None


def to_numeric(series: pd.Series, *, decimal_comma: bool = False) -> pd.Series:
    """Parse a column to float64, each cell on its own; text cells such as ``"1,234"``,
    ``"1.234,5"`` or ``" $5 "`` are understood (see :func:`_read_numbers`).

    Cells that cannot be parsed become NaN (they are counted as non-numeric by :func:`clean`).
    """
    return _read_numbers(series, decimal_comma=decimal_comma).values


def _read_numbers(series: pd.Series, *, decimal_comma: bool) -> _Numbers:
    """Every cell read on its own (a per-record rule: adding or removing a record never
    changes how another is read, PRIVACY.md). A cell only one format reads is read so
    ("1,234,567" and "1,234.5" with commas between thousands; "1,5", "1.234,5" and
    "1.234.567" with a decimal comma); a cell both can read ("1,234", "1.234") follows the
    public ``decimal_comma`` (the file's delimiter: ';' files write decimal commas); a comma
    in any other place makes the cell non-numeric.

    Formats were once chosen per column from all its cells: one added "1,5" turned a column
    of "1,234" thousands into decimals (a total of 1,086,700 read as 1,088.2), an unbounded
    privacy loss (privacy audit, 27 November).
    """
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    if pd.api.types.is_bool_dtype(series):
        return _Numbers(pd.Series(np.nan, index=series.index, dtype="float64"))
    if pd.api.types.is_numeric_dtype(series):
        return _Numbers(series.astype("float64"))
    trimmed = series.astype("string").str.strip()
    text = trimmed.str.replace(_REMOVED, "", regex=True)
    dollar, spaced = _removed_marks(trimmed, text)

    def matches(pattern: str) -> pd.Series:
        return text.str.fullmatch(pattern).fillna(False)

    us, eu_decimal = matches(_US_THOUSANDS), matches(_EU_DECIMAL)
    eu_integer, eu_only = matches(_EU_INTEGER), matches(_EU_INTEGER_ONLY)
    if not (us.any() or eu_decimal.any() or eu_integer.any()):
        return _Numbers(_parse(text), dollar=dollar, spaced=spaced)
    european = (eu_decimal & ~us) | eu_only  # only a decimal comma reads them
    american = us & ~eu_decimal  # only commas between thousands read them
    either_comma = us & eu_decimal  # "1,234"
    either_dot = eu_integer & ~eu_only  # "1.234": a decimal point, or a dot between thousands
    if decimal_comma:
        european = european | either_comma | either_dot
    else:
        american = american | either_comma  # and "1.234" is 1.234
    converted = text.mask(american, text.str.replace(",", "", regex=False))
    converted = converted.mask(
        european, text.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
    )
    return _Numbers(
        _parse(converted), decimal_comma=int(european.sum()),
        thousands_separator=int(american.sum()), dollar=dollar, spaced=spaced,
    )


def _removed_marks(
    trimmed: pd.Series, text: pd.Series
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Which cells had a "$", and which "_" or white space between their characters, removed
    by :data:`_REMOVED` (None: no cell changed); only the changed cells are searched."""
    changed = trimmed.ne(text).fillna(False).to_numpy(dtype=bool)
    if not changed.any():
        return None, None
    dollar, spaced = np.zeros(changed.size, bool), np.zeros(changed.size, bool)
    cells = trimmed[changed]
    dollar[changed] = cells.str.contains("$", regex=False).to_numpy(dtype=bool)
    spaced[changed] = cells.str.contains(r"[\s_]", regex=True).to_numpy(dtype=bool)
    return dollar, spaced


def _parse(text: pd.Series) -> pd.Series:
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    return pd.to_numeric(text, errors="coerce").astype("float64")


def decimal_comma_hint(df: pd.DataFrame) -> bool:
    """Whether a table was read from ';'-separated text, the format that writes decimal commas."""
    return df.attrs.get(DELIMITER) == ";"


_DIGIT = re.compile(r"\d")


def numeric_columns(df: pd.DataFrame) -> list[str]:
    """Names of the columns holding at least one numeric value: most numeric first, columns
    named like identifiers (``id``, ``user_id``, ``index``, ``Unnamed: 0``) or looking like
    them by their content (:func:`~dpsum_core.data.identifiers.judge_columns`) last."""
    return column_ranking(df)[0]


def column_ranking(
    df: pd.DataFrame, *, id_column: str | None = None
) -> tuple[list[str], Judged]:
    """(:func:`numeric_columns` of ``df``, what its content says of them: the columns put last
    with why, those that cannot be the value; ``id_column``: the identifier of people, if
    chosen)."""
    names, counts = [str(c) for c in df.columns], numeric_counts(df)
    judged = judge_columns(
        df.set_axis(names, axis=1), rank_columns(names, counts), id_column=id_column
    )
    return rank_columns(names, counts, last=tuple(dict(judged.skipped))), judged


def numeric_counts(df: pd.DataFrame) -> list[int]:
    """The number of finite numbers each column of ``df`` holds (as the cleaning reads them)."""
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    hint = decimal_comma_hint(df)
    counts = []
    for _, col in df.items():
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            weights = None
        else:  # text: each distinct cell is read once (the format rules see the same cells)
            coded = isinstance(col.dtype, pd.CategoricalDtype)  # Parquet text: already coded
            cells = col.cat.categories if coded else col
            if not _DIGIT.search(" ".join(map(str, cells.to_numpy()))):  # a number has a digit
                counts.append(0)
                continue
            if coded:
                codes, uniques = col.cat.codes.to_numpy(), col.cat.categories.to_numpy(object)
            else:
                codes, uniques = pd.factorize(col)
            weights = np.bincount(codes[codes >= 0], minlength=len(uniques))
            uniques, weights = uniques[weights > 0], weights[weights > 0]
            col = pd.Series(uniques, dtype=object)
        parsed = _read_numbers(col, decimal_comma=hint).values
        finite = np.isfinite(parsed.to_numpy())
        counts.append(int(finite.sum() if weights is None else weights[finite].sum()))
    return counts


def rank_columns(
    names: list[str], finite_counts: list[int], *, last: tuple[str, ...] = ()
) -> list[str]:
    """Columns with at least one finite number, in the order of :func:`numeric_columns`
    (``last``: columns that look like identifiers by their content)."""
    scores = [
        (named_like_identifier(name) or name in last, -count, i, name)
        for i, (name, count) in enumerate(zip(names, finite_counts, strict=True))
        if count
    ]
    return [name for *_, name in sorted(scores)]


def unit_of_privacy(id_column: str | None) -> str:
    """The unit of privacy in plain words: one row, or all rows with the same ``id_column``.

    Public: it names a column the user chose, nothing computed from the data.
    """
    if id_column is None:
        return "one row = one person"
    return f"one person = all rows with the same {id_column!r}"


@dataclass(frozen=True)
class CleaningReport:
    """What cleaning (SPEC §0) changed: nothing is ever dropped or clipped silently.

    With a privacy identifier (``id_column``) the drops count rows (a row without an
    identifier, or whose value is missing, non-numeric or infinite, is dropped before the sum)
    and the clips count people (each person's total is clipped to [0, U]); ``people`` is the
    number of people kept. ``dollar_removed`` and ``spaces_removed`` count the kept rows whose
    text had a "$", or "_" or white space between its characters, removed before it was read
    (:data:`_REMOVED`). ``negative_rows`` counts, by person, the kept rows with a negative
    value, added into their person's total (by row a negative value is clipped to 0 and
    counted in ``clipped_below_zero``). ``content``: the kept (identifier, value) rows as a
    :class:`~dpsum_core.data.content.Content` (what a ledger binds to), when it was asked for.
    """

    rows_read: int
    dropped_missing: int
    dropped_non_numeric: int
    dropped_non_finite: int
    clipped_below_zero: int
    clipped_above_upper: int
    decimal_comma: int = 0
    thousands_separator: int = 0
    id_column: str | None = None
    dropped_missing_id: int = 0
    people: int | None = None
    content: Content | None = None
    dollar_removed: int = 0
    spaces_removed: int = 0
    negative_rows: int = 0

    @property
    def rows_kept(self) -> int:
        """Records left after dropping."""
        return (
            self.rows_read
            - self.dropped_missing
            - self.dropped_non_numeric
            - self.dropped_non_finite
            - self.dropped_missing_id
        )

    def as_dict(self) -> dict[str, int | str | None]:
        """Plain dict, for JSON and tables."""
        return {
            "rows_read": self.rows_read,
            "rows_kept": self.rows_kept,
            "dropped_missing": self.dropped_missing,
            "dropped_non_numeric": self.dropped_non_numeric,
            "dropped_non_finite": self.dropped_non_finite,
            "clipped_below_zero": self.clipped_below_zero,
            "clipped_above_upper": self.clipped_above_upper,
            "decimal_comma": self.decimal_comma,
            "thousands_separator": self.thousands_separator,
            "id_column": self.id_column,
            "dropped_missing_id": self.dropped_missing_id,
            "people": self.people,
            "dollar_removed": self.dollar_removed,
            "spaces_removed": self.spaces_removed,
            "negative_rows": self.negative_rows,
        }

    @property
    def changed(self) -> bool:
        """Whether cleaning dropped, clipped or re-read anything (the UI then warns)."""
        unchanged = ("rows_read", "rows_kept", "id_column", "people")
        return any(v for k, v in self.as_dict().items() if k not in unchanged)

    def lines(self) -> list[str]:
        """Plain-language sentences for the UI and the CLI."""
        unit = f"Unit of privacy: {unit_of_privacy(self.id_column)}"
        if self.id_column is not None:
            unit += (
                f" ({counted(self.rows_kept, 'row')} → "
                f"{counted(self.people or 0, 'person', 'people')}, each person's rows "
                "summed before clipping to [0, U])"
            )
        out = [f"{counted(self.rows_read, 'row')} read, {self.rows_kept:,} kept. {unit}."]
        if self.dropped_missing_id:
            out.append(
                f"{counted(self.dropped_missing_id, 'row')} without a {self.id_column!r} dropped."
            )
        if self.dropped_missing:
            out.append(f"{counted(self.dropped_missing, 'empty or missing (NA) cell')} dropped.")
        if self.dropped_non_numeric:
            out.append(f"{counted(self.dropped_non_numeric, 'non-numeric cell')} dropped.")
        if self.dropped_non_finite:
            out.append(f"{counted(self.dropped_non_finite, 'infinite value')} dropped.")
        if self.negative_rows:  # by person: netted, not clipped (the total is clipped)
            whose = "its person's total" if self.negative_rows == 1 else "their people's totals"
            out.append(f"{counted(self.negative_rows, 'negative value')} added into {whose}.")
        what = "value" if self.id_column is None else "total"
        if self.clipped_below_zero:
            out.append(f"{counted(self.clipped_below_zero, 'negative ' + what)} set to 0.")
        if self.clipped_above_upper:
            out.append(f"{counted(self.clipped_above_upper, what)} above U set to U.")
        if self.decimal_comma:
            out.append(
                f"{counted(self.decimal_comma, 'value')} read with a decimal comma "
                "(European format: 1.234,5 = 1234.5)."
            )
        if self.thousands_separator:
            out.append(
                f"{counted(self.thousands_separator, 'value')} read with thousands separators "
                "(1,234 = 1234)."
            )
        if self.dollar_removed:
            out.append(
                f"{counted(self.dollar_removed, 'value')} read with a '$' removed "
                "($1,234.50 = 1234.5)."
            )
        if self.spaces_removed:
            out.append(
                f"{counted(self.spaces_removed, 'value')} read with spaces or '_' inside removed "
                "(1 000 = 1_000 = 1000)."
            )
        return out


def clean(
    raw: pd.Series | np.ndarray,
    *,
    upper: float,
    decimal_comma: bool = False,
    column: str | None = None,
    ids: pd.Series | None = None,
    id_column: str | None = None,
    content: bool = False,
) -> tuple[np.ndarray, CleaningReport]:
    """Apply SPEC §0 cleaning: drop missing/non-numeric/non-finite, clip to [0, U].

    Returns the cleaned float64 values (unsorted: input order, or one per person) and the
    report.

    With ``ids`` (the privacy identifier of every row, column ``id_column``) a value is one
    person's: rows without an identifier (empty or NA) and rows whose value is missing,
    non-numeric or infinite are dropped, then the remaining values of each identifier are
    summed (negative values included: a loss offsets an income) and only that total is clipped
    to [0, U] (a total that overflows to ±∞ is clipped like any other). The sum adds each
    person's values in ascending order, one IEEE addition at a time from 0, as the DuckDB and
    Spark engines do, so every engine computes the same totals. A person none of whose rows is
    usable has no value and is left out.

    Text cells are read each on its own (:func:`_read_numbers`: a per-record rule, so that
    adding a record never changes how another is read): a comma is a thousands separator
    where it sits between groups of three digits (``1,234,567``, ``1,234.5``), a decimal comma
    where only that reads the cell (``1,5``, ``1.234,5``, ``1.234.567``), and a cell either
    reads (``1,234``; ``1.234``) follows ``decimal_comma`` (true for a ';'-separated file,
    see :func:`decimal_comma_hint`: there ``2.500`` is 2500), else the thousands reading; a
    comma anywhere else makes the cell non-numeric. Before that, "$", "_" and white space are
    removed from every cell (``"$1,234.50"`` is 1234.5, ``"1 000"`` 1000). Every value read
    with a comma, or with a "$" or "_" or white space inside removed, is counted in the
    report.

    Parameters
    ----------
    decimal_comma
        Read cells that could be either format with a decimal comma.
    column
        Column name, for messages.
    ids, id_column
        The privacy identifier of each row (same length as ``raw``) and its column's name.
    content
        Also compute the report's ``content``: the kept rows (identifier, value before
        clipping), hashed as :func:`~dpsum_core.data.content.content_of` hashes them.

    Privacy
    -------
    A per-person rule fixed in advance: with ``ids`` every person's value lies in [0, U], so
    adding or removing a person (all rows of one identifier) moves any sum by at most U.

    Raises
    ------
    DataError
        If nothing numeric is left (the one refusal that depends on the records: it says only
        that the column holds no number at all; PRIVACY.md).
    """
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    upper = check_upper(upper)
    series = pd.Series(raw) if not isinstance(raw, pd.Series) else raw
    rows = len(series)
    if rows > limits.MAX_ROWS:
        raise DataStatisticError(
            f"{rows:,} rows is more than the {limits.MAX_ROWS:,} this tool handles: sample the data."
        )
    missing = series.isna().to_numpy()
    if pd.api.types.is_object_dtype(series) or pd.api.types.is_string_dtype(series):
        blank = series.astype("string").str.strip().eq("").fillna(False).to_numpy(dtype=bool)
        missing = missing | blank
    numbers = _read_numbers(series, decimal_comma=decimal_comma)
    parsed = numbers.values.to_numpy(dtype=float, copy=True)
    nan = np.isnan(parsed)
    non_numeric = nan & ~missing
    non_finite = np.isinf(parsed)
    keep = ~(nan | non_finite)
    no_id = np.zeros(rows, dtype=bool) if ids is None else _missing_ids(ids)
    # The content: the rows a release adds up, as parsed, before clipping (U is not the data).
    used = keep & ~no_id
    digest = (
        content_of(parsed[used], None if ids is None else ids[used], spaces=SPACES)
        if content
        else None
    )
    if ids is not None:
        values = person_totals(parsed[used], ids[used])
        # Counted once each: a row without an identifier is counted as such, whatever its value.
        missing, non_numeric, non_finite = (x & ~no_id for x in (missing, non_numeric, non_finite))
    else:
        values = parsed[keep]
    below = values < 0
    above = values > upper
    np.clip(values, 0.0, upper, out=values)
    report = CleaningReport(
        rows_read=rows,
        dropped_missing=int((missing & nan).sum()),
        dropped_non_numeric=int(non_numeric.sum()),
        dropped_non_finite=int(non_finite.sum()),
        clipped_below_zero=int(below.sum()),
        clipped_above_upper=int(above.sum()),
        decimal_comma=numbers.decimal_comma,
        thousands_separator=numbers.thousands_separator,
        id_column=id_column if ids is not None else None,
        dropped_missing_id=int(no_id.sum()),
        people=int(values.size) if ids is not None else None,
        content=digest,
        dollar_removed=_kept(numbers.dollar, used),
        spaces_removed=_kept(numbers.spaced, used),
        negative_rows=int((parsed[used] < 0).sum()) if ids is not None else 0,
    )
    if values.size == 0:
        raise DataStatisticError(
            "no numeric values left after cleaning "
            f"({rows:,} rows read, {report.dropped_non_numeric:,} non-numeric, "
            f"{report.dropped_missing:,} empty): choose a column that holds numbers."
        )
    return values, report


def _kept(marked: np.ndarray | None, used: np.ndarray) -> int:
    """How many kept rows (``used``) are ``marked`` (None: none)."""
    return 0 if marked is None else int((marked & used).sum())


def cleaning_seconds(rows: int, *, by_person: bool) -> float:
    """Estimated CPU seconds of :func:`clean` on ``rows`` rows (``by_person``: with a privacy
    identifier), from ``limits.CLEAN_ROW_SECONDS`` and ``limits.CLEAN_PERSON_ROW_SECONDS``:
    the work is one pass over the rows, and by person one sort of them.

    Privacy
    -------
    Reads the number of rows only (the data holder's own file, never released).
    """
    per_row = limits.CLEAN_ROW_SECONDS + (limits.CLEAN_PERSON_ROW_SECONDS if by_person else 0.0)
    return rows * per_row


def _missing_ids(ids: pd.Series) -> np.ndarray:
    """Rows without an identifier: NA, or text that is empty or only white space (:data:`SPACES`)."""
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    missing = ids.isna().to_numpy(dtype=bool)
    if pd.api.types.is_object_dtype(ids) or pd.api.types.is_string_dtype(ids):
        blank = ids.astype("string").str.strip(SPACES).eq("").fillna(False).to_numpy(dtype=bool)
        missing = missing | blank
    return missing


def person_codes(ids: pd.Series) -> np.ndarray:
    """One code per person (first appearance order): text identifiers are compared with their
    white space at both ends removed (:data:`SPACES`: ``" 7"``, ``"7\u00a0"`` and ``"7"`` are
    one person, as in every engine); other values (numbers) as they are; NA is −1.

    Each distinct identifier is stripped once, not each row."""
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    codes, uniques = pd.factorize(ids, sort=False)
    kind = pd.api.types.infer_dtype(uniques, skipna=True)
    if kind == "string":  # vectorised (Arrow strings: a compute kernel)
        text = pd.Series(uniques)
        stripped = text.str.strip(SPACES)
        if not (stripped != text).any():  # nothing to strip
            return codes
    elif kind.startswith("mixed"):  # text beside numbers: strip the text only
        stripped = pd.Series(
            [u.strip(SPACES) if isinstance(u, str) else u for u in uniques], dtype=object
        )
    else:  # numbers
        return codes
    merged, _ = pd.factorize(stripped, sort=False)
    return np.where(codes < 0, -1, merged[codes])  # NA stays NA (−1)


def person_totals(values: np.ndarray, ids: pd.Series) -> np.ndarray:
    """Σ of each identifier's ``values`` (finite floats), added in ascending order one at a
    time from 0.0 — the order DuckDB's ``list_reduce(list_sort(…))`` and Spark's
    ``aggregate(array_sort(…))`` use, so the totals are bit-identical in every engine; a total
    that overflows is kept at ±(largest double), to be clipped to [0, U] by the caller.

    Vectorised over the people with the same number of rows: the rows of the k people with s
    rows each form a k × s block whose rows ``np.add.accumulate`` adds left to right, one IEEE
    addition at a time (an accumulation is never re-associated, unlike a sum). The work is one
    sort of the rows and one pass over them; there are at most √(2·rows) distinct sizes, and a
    :func:`~dpsum_core.checkpoint.checkpoint` before each block lets a caller stop the
    cleaning (:func:`cleaning_seconds` is its price).
    """
    if values.size == 0:
        return np.empty(0)
    codes = person_codes(ids)
    checkpoint()
    by_value = np.argsort(values, kind="stable")
    checkpoint()
    order = by_value[np.argsort(codes[by_value], kind="stable")]  # by person, then by value
    checkpoint()
    # + 0.0 turns −0.0 into 0.0, as the first addition 0.0 + x does: the block's first column
    # then stands for 0.0 + (first value) exactly.
    sorted_values, sorted_codes = values[order] + 0.0, codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]][: values.size])
    sizes = np.diff(np.r_[starts, values.size])
    by_size = np.argsort(-sizes, kind="stable")  # the order of the totals: most rows first
    starts, sizes = starts[by_size], sizes[by_size]
    totals = np.empty(starts.size)
    blocks = np.r_[np.flatnonzero(np.r_[True, sizes[1:] != sizes[:-1]]), sizes.size]
    with np.errstate(over="ignore"):  # ±∞ + finite stays ±∞: a total is never NaN
        for lo, hi in pairwise(blocks.tolist()):
            checkpoint()
            rows = sorted_values[starts[lo:hi, None] + np.arange(sizes[lo])]
            totals[lo:hi] = np.add.accumulate(rows, axis=1)[:, -1]
    big = np.finfo(np.float64).max
    return np.clip(totals, -big, big)
