"""Load one numeric column, clean it per SPEC §0 (with a report), the public Domain and histograms.

Everything here is deterministic and public-rule based: cleaning is a fixed per-record rule, so
it costs no privacy budget. Only the mechanisms downstream touch the private values with noise.
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import IO, Literal

import numpy as np
import pandas as pd

from . import limits
from .errors import DataError
from .validation import check_choice, check_int, check_upper

WeightRule = Literal["upper", "midpoint"]
WEIGHT_RULES: tuple[str, ...] = ("upper", "midpoint")
_DELIMITERS = ",;\t|"
DELIMITER = "delimiter"  # key of DataFrame.attrs: the delimiter a text table was read with


# --------------------------------------------------------------------------------------------
# Reading a table
# --------------------------------------------------------------------------------------------
def read_table(source: str | os.PathLike | IO[bytes], *, name: str | None = None) -> pd.DataFrame:
    """Read a CSV, TSV or Parquet file into a DataFrame.

    Parameters
    ----------
    source
        A path, or a binary file-like object (e.g. a Streamlit upload).
    name
        File name used to pick the format when ``source`` is file-like; defaults to its ``name``.

    Raises
    ------
    DataError
        If the file is missing, empty, binary (e.g. an Excel workbook) or cannot be parsed.
    """
    label = name or getattr(source, "name", None) or str(source)
    raw = _read_bytes(source, label)
    if not raw.strip():
        raise DataError(
            f"{_base(label)} is empty: upload a CSV/TSV/Parquet file with a header row."
        )
    if raw[:4] == b"PAR1" or str(label).lower().endswith((".parquet", ".pq")):
        return _read_parquet(raw, label)
    check_text_head(raw, _base(label))
    text_head = raw[:8192].decode("utf-8", errors="replace")
    sep = "\t" if str(label).lower().endswith((".tsv", ".tab")) else _sniff_delimiter(text_head)
    try:
        df = pd.read_csv(
            io.BytesIO(raw),
            sep=sep,
            engine="c",
            encoding="utf-8",
            encoding_errors="replace",
            skipinitialspace=True,
            skip_blank_lines=False,  # a blank line in a one-column file is an empty cell
            low_memory=False,
        )
    except pd.errors.EmptyDataError:
        raise DataError(f"{_base(label)} has no columns: add a header row and values.") from None
    except (pd.errors.ParserError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(
            f"{_base(label)} could not be parsed as delimited text ({first}): "
            "check that every row has the same number of fields."
        ) from None
    df.attrs[DELIMITER] = sep  # a ';' file writes decimal commas (see to_numeric)
    if df.shape[1] == 0:
        raise DataError(f"{_base(label)} has no columns: add a header row and values.")
    if df.shape[0] == 0:
        raise DataError(
            f"{_base(label)} has a header ({_list(df.columns)}) but no rows of data: "
            "add one value per row below the header."
        )
    return df


def check_text_head(head: bytes, name: str) -> None:
    """Refuse a would-be CSV/TSV file that is empty, an Excel workbook or binary (judged on its
    first 8 KiB), with a message saying what to do (every engine reads text this way)."""
    if not head.strip():
        raise DataError(f"{name} is empty: give a CSV/TSV/Parquet file with a header row.")
    if head[:4] == b"PK\x03\x04" or head[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        raise DataError(
            f"{name} looks like an Excel workbook, not a text file: "
            "save the sheet as CSV and upload that."
        )
    if b"\x00" in head[:8192]:
        raise DataError(
            f"{name} looks like a binary file, not CSV/TSV text: "
            "export the column as CSV (comma, semicolon or tab separated) and try again."
        )


def _read_bytes(source: str | os.PathLike | IO[bytes], label: str) -> bytes:
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            if any(ch in str(source) for ch in "*?["):
                raise DataError(
                    f"file not found: {path} (the memory engine reads one file; "
                    "read a glob of files with --engine duckdb)"
                )
            raise DataError(f"file not found: {path}")
        if path.is_dir():
            raise DataError(
                f"{path} is a folder, not a file: pass a CSV/TSV/Parquet file, or read the "
                "folder's files with --engine duckdb."
            )
        size_mb = path.stat().st_size / 2**20
        if size_mb > limits.MAX_UPLOAD_MB * 8:
            raise DataError(
                f"{path.name} is {size_mb:.0f} MB: too large to load in memory; "
                "use the DuckDB engine (--engine duckdb), which reads it out of core."
            )
        return path.read_bytes()
    data = source.read()
    if isinstance(data, str):
        data = data.encode("utf-8")
    size_mb = len(data) / 2**20
    if size_mb > limits.MAX_UPLOAD_MB:
        raise DataError(
            f"{_base(label)} is {size_mb:.0f} MB, above the {limits.MAX_UPLOAD_MB} MB upload limit: "
            "upload only the column you need, or sample the rows."
        )
    return data


def _read_parquet(raw: bytes, label: str) -> pd.DataFrame:
    try:
        return pd.read_parquet(io.BytesIO(raw))
    except Exception as exc:  # pyarrow raises many types; all mean "unreadable"
        raise DataError(
            f"{_base(label)} could not be read as Parquet ({type(exc).__name__}): "
            "check the file or export it as CSV."
        ) from None


def _sniff_delimiter(text: str) -> str:
    """Pick the delimiter that appears consistently in the first lines (default: comma)."""
    lines = [ln for ln in text.splitlines()[:20] if ln.strip()]
    if len(lines) > 1:
        lines = lines[:-1]  # the last line of the sample may be cut off
    try:
        return csv.Sniffer().sniff("\n".join(lines), delimiters=_DELIMITERS).delimiter
    except csv.Error:
        counts = {d: lines[0].count(d) if lines else 0 for d in _DELIMITERS}
        best = max(counts, key=lambda d: counts[d])
        return best if counts[best] > 0 else ","


def _base(label: str) -> str:
    return Path(str(label)).name or "the file"


# --------------------------------------------------------------------------------------------
# Columns and cleaning
# --------------------------------------------------------------------------------------------
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


def to_numeric(
    series: pd.Series, *, decimal_comma: bool = False, column: str | None = None
) -> pd.Series:
    """Parse a column to float64; text cells such as ``"1,234"``, ``"1.234,5"`` or ``" $5 "``
    are understood (see :func:`clean` for how commas are read).

    Cells that cannot be parsed become NaN (they are counted as non-numeric by :func:`clean`).

    Raises
    ------
    DataError
        If the column mixes decimal commas with thousands separators or decimal points.
    """
    return _read_numbers(series, decimal_comma=decimal_comma, column=column).values


def _read_numbers(
    series: pd.Series, *, decimal_comma: bool, column: str | None, strict: bool = True
) -> _Numbers:
    if pd.api.types.is_bool_dtype(series):
        return _Numbers(pd.Series(np.nan, index=series.index, dtype="float64"))
    if pd.api.types.is_numeric_dtype(series):
        return _Numbers(series.astype("float64"))
    text = series.astype("string").str.strip().str.replace(r"[\s$_]", "", regex=True)
    comma = text.str.contains(",", regex=False).fillna(False)
    eu_only = text.str.fullmatch(_EU_INTEGER_ONLY).fillna(False)
    if not (comma.any() or eu_only.any()):
        return _Numbers(_parse(text))
    plain = _parse(text)
    us = comma & text.str.fullmatch(_US_THOUSANDS).fillna(False)
    eu = comma & text.str.fullmatch(_EU_DECIMAL).fillna(False)
    eu_integer = text.str.fullmatch(_EU_INTEGER).fillna(False)
    point = text.str.contains(".", regex=False).fillna(False) & plain.notna() & ~eu_integer
    # One format per column: cells that only one format reads decide ("1,5", "1.234.567" a
    # decimal comma; "1,234.5", "2.5" a decimal point); "1,234" (either) then follows the
    # delimiter; a column with cells of both formats is refused.
    eu_evidence, us_evidence = (eu & ~us) | eu_only, (us & ~eu) | point
    if strict and eu_evidence.any() and us_evidence.any():
        separators = (us & ~eu).any()
        raise DataError(
            f"{f'column {column!r}' if column else 'the column'} mixes decimal commas (e.g. "
            f"{_first(text, eu_evidence)!r}) and "
            + (
                f"thousands separators (e.g. {_first(text, us & ~eu)!r})"
                if separators
                else f"decimal points (e.g. {_first(text, point)!r})"
            )
            + ", so its numbers cannot be read consistently: use one number format in the column"
        )
    if eu_evidence.any() or (decimal_comma and not us_evidence.any()):
        european = eu | eu_integer
        converted = text.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
        return _Numbers(_parse(text.mask(european, converted)), decimal_comma=int(european.sum()))
    return _Numbers(
        _parse(text.mask(us, text.str.replace(",", "", regex=False))),
        thousands_separator=int(us.sum()),
    )


def _parse(text: pd.Series) -> pd.Series:
    return pd.to_numeric(text, errors="coerce").astype("float64")


def _first(text: pd.Series, where: pd.Series) -> str:
    return str(text[where.to_numpy()].iloc[0])


def decimal_comma_hint(df: pd.DataFrame) -> bool:
    """Whether a table was read from ';'-separated text, the format that writes decimal commas."""
    return df.attrs.get(DELIMITER) == ";"


_ID_LIKE = re.compile(r"^(id|index|row|unnamed: ?\d+)$|(^|_)id$", re.IGNORECASE)


def numeric_columns(df: pd.DataFrame) -> list[str]:
    """Names of the columns holding at least one numeric value: most numeric first, columns
    named like identifiers (``id``, ``user_id``, ``index``, ``Unnamed: 0``) last."""
    hint = decimal_comma_hint(df)
    counts = []
    for i in range(df.shape[1]):
        # Lenient: a column of mixed number formats is still listed (choosing it says why not).
        parsed = _read_numbers(df.iloc[:, i], decimal_comma=hint, column=None, strict=False).values
        counts.append(int(np.isfinite(parsed.to_numpy()).sum()))
    return rank_columns([str(c) for c in df.columns], counts)


def rank_columns(names: list[str], finite_counts: list[int]) -> list[str]:
    """Columns with at least one finite number, in the order of :func:`numeric_columns`."""
    scores = [
        (bool(_ID_LIKE.search(name.strip())), -count, i, name)
        for i, (name, count) in enumerate(zip(names, finite_counts, strict=True))
        if count
    ]
    return [name for *_, name in sorted(scores)]


def _count(n: int, noun: str) -> str:
    """'1 value', '2 values', '1,234 values'."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


@dataclass(frozen=True)
class CleaningReport:
    """What cleaning (SPEC §0) changed: nothing is ever dropped or clipped silently."""

    rows_read: int
    dropped_missing: int
    dropped_non_numeric: int
    dropped_non_finite: int
    clipped_below_zero: int
    clipped_above_upper: int
    decimal_comma: int = 0
    thousands_separator: int = 0

    @property
    def rows_kept(self) -> int:
        """Records left after dropping."""
        return (
            self.rows_read
            - self.dropped_missing
            - self.dropped_non_numeric
            - self.dropped_non_finite
        )

    def as_dict(self) -> dict[str, int]:
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
        }

    @property
    def changed(self) -> bool:
        """Whether cleaning dropped, clipped or re-read anything (the UI then warns)."""
        return any(v for k, v in self.as_dict().items() if k not in ("rows_read", "rows_kept"))

    def lines(self) -> list[str]:
        """Plain-language sentences for the UI and the CLI."""
        out = [f"{self.rows_read:,} rows read, {self.rows_kept:,} kept."]
        if self.dropped_missing:
            out.append(f"{_count(self.dropped_missing, 'empty or missing (NA) cell')} dropped.")
        if self.dropped_non_numeric:
            out.append(f"{_count(self.dropped_non_numeric, 'non-numeric cell')} dropped.")
        if self.dropped_non_finite:
            out.append(f"{_count(self.dropped_non_finite, 'infinite value')} dropped.")
        if self.clipped_below_zero:
            out.append(f"{_count(self.clipped_below_zero, 'negative value')} set to 0.")
        if self.clipped_above_upper:
            out.append(f"{_count(self.clipped_above_upper, 'value')} above U set to U.")
        if self.decimal_comma:
            out.append(
                f"{self.decimal_comma:,} values read with a decimal comma "
                "(European format: 1.234,5 = 1234.5)."
            )
        if self.thousands_separator:
            out.append(
                f"{self.thousands_separator:,} values read with thousands separators "
                "(1,234 = 1234)."
            )
        return out


@dataclass(frozen=True, eq=False)
class Dataset:
    """Cleaned values of one column, sorted ascending, plus provenance.

    ``values`` is read-only and sorted: counts below a point, truncated sums and the top
    values all come from it with ``np.searchsorted`` and one cumulative sum.
    """

    values: np.ndarray
    report: CleaningReport
    name: str
    column: str
    upper: float
    cumsum: np.ndarray = field(repr=False)

    @property
    def size(self) -> int:
        """Number of records (private: never shown as a released statistic)."""
        return int(self.values.size)

    def sum_at_most(self, points: np.ndarray) -> np.ndarray:
        """Σ_{t ≤ p} t for every p in ``points`` (any shape), correctly rounded: the sums of
        a :class:`~dpsum_core.summary.DataSummary` of these records, from any engine."""
        idx = np.searchsorted(self.values, points, side="right")
        if self._cumsum_is_exact:
            return np.where(idx > 0, self.cumsum[np.maximum(idx - 1, 0)], 0.0)
        # Running float sums of non-integer values drift in their last bits (and DuckDB or
        # Spark add in another order): take the exact sums, rounded once, as summaries do.
        return self._exact_sums(idx)

    @cached_property
    def _exact_sums(self):
        from .summary import ExactPrefixSums

        return ExactPrefixSums(self.values)

    @cached_property
    def _cumsum_is_exact(self) -> bool:
        """Whether every running sum is exact: integer values whose total is below 2⁵³, so
        that each partial sum is a representable integer (incomes in whole units)."""
        v = self.values
        return bool(v.size == 0 or (self.cumsum[-1] < 2.0**53 and np.array_equal(v, np.floor(v))))

    def count_at_most(self, points: np.ndarray) -> np.ndarray:
        """#{t ≤ p} for every p in ``points``."""
        return np.searchsorted(self.values, points, side="right")

    def truncated_sum(self, tau: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """Trunc_θ(q_τ)(D) = Σ_{t ≤ τ} min(t, θ), broadcasting ``tau`` against ``theta``.

        Filter on the raw value first, then clamp (SPEC §1): values in (θ, τ] contribute θ each.
        """
        return truncated_sum(self, tau, theta)

    @cached_property
    def fingerprint(self) -> str:
        """Stable digest of the cleaned values, used as a cache key."""
        import hashlib

        return hashlib.blake2b(self.values.tobytes(), digest_size=12).hexdigest()


def truncated_sum(data, tau: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ_{t ≤ τ} min(t, θ) from ``data.count_at_most`` and ``data.sum_at_most`` (a
    :class:`Dataset` or a :class:`~dpsum_core.summary.DataSummary`)."""
    tau, theta = np.broadcast_arrays(np.asarray(tau, float), np.asarray(theta, float))
    low = np.minimum(tau, theta)
    above = data.count_at_most(tau) - data.count_at_most(low)
    # θ·#{θ < t ≤ τ}; written with where() so that θ = ∞ with no such record gives 0.
    return data.sum_at_most(low) + np.where(above > 0, theta, 0.0) * above


def clean(
    raw: pd.Series | np.ndarray,
    *,
    upper: float,
    decimal_comma: bool = False,
    column: str | None = None,
) -> tuple[np.ndarray, CleaningReport]:
    """Apply SPEC §0 cleaning: drop missing/non-numeric/non-finite, clip to [0, U].

    Returns the cleaned float64 values (unsorted, input order) and the report.

    Text cells are read in one number format per column, so that no number is read as
    another: a comma is a thousands separator only where it sits between groups of three
    digits (``1,234``, ``1,234,567.5``), and a decimal comma in a European column (``1,5``,
    ``1.234,5``; there ``2.500`` is 2500). A cell only one format reads decides the column
    (``1,5`` or ``1.234.567``: decimal comma; ``1,234.5`` or ``2.5``: decimal point), and a
    column with cells of both is refused; a cell either reads (``1,234``) follows
    ``decimal_comma`` (true for a ';'-separated file, see :func:`decimal_comma_hint`), else
    the thousands reading. Every value read with a comma is counted in the report.

    Parameters
    ----------
    decimal_comma
        Read cells that could be either format with a decimal comma.
    column
        Column name, for messages.

    Raises
    ------
    DataError
        If nothing numeric is left, or the column mixes number formats.
    """
    upper = check_upper(upper)
    series = pd.Series(raw) if not isinstance(raw, pd.Series) else raw
    rows = len(series)
    if rows > limits.MAX_ROWS:
        raise DataError(
            f"{rows:,} rows is more than the {limits.MAX_ROWS:,} this tool handles: sample the data."
        )
    missing = series.isna().to_numpy()
    if pd.api.types.is_object_dtype(series) or pd.api.types.is_string_dtype(series):
        blank = series.astype("string").str.strip().eq("").fillna(False).to_numpy(dtype=bool)
        missing = missing | blank
    numbers = _read_numbers(series, decimal_comma=decimal_comma, column=column)
    parsed = numbers.values.to_numpy(dtype=float, copy=True)
    nan = np.isnan(parsed)
    non_numeric = nan & ~missing
    non_finite = np.isinf(parsed)
    keep = ~(nan | non_finite)
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
    )
    if values.size == 0:
        raise DataError(
            "no numeric values left after cleaning "
            f"({rows:,} rows read, {report.dropped_non_numeric:,} non-numeric, "
            f"{report.dropped_missing:,} empty): choose a column that holds numbers."
        )
    return values, report


def make_dataset(
    raw: pd.Series | np.ndarray,
    *,
    upper: float,
    name: str = "data",
    column: str = "value",
    decimal_comma: bool = False,
) -> Dataset:
    """Clean ``raw`` and wrap it as a sorted, read-only :class:`Dataset`."""
    values, report = clean(raw, upper=upper, decimal_comma=decimal_comma, column=column)
    values.sort()  # introsort (SIMD in numpy 2): equal floats are indistinguishable, no need for stable
    values.setflags(write=False)
    cumsum = np.cumsum(values)
    cumsum.setflags(write=False)
    return Dataset(values, report, name=name, column=column, upper=float(upper), cumsum=cumsum)


def read_numeric_table(
    source: str | os.PathLike | IO[bytes], *, name: str | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """Read a table and list its numeric columns (best default first, see :func:`numeric_columns`).

    Raises
    ------
    DataError
        Unreadable file, too many rows, or no numeric column.
    """
    label = name or getattr(source, "name", None) or Path(str(source)).name
    df = read_table(source, name=label)
    if len(df) > limits.MAX_ROWS:
        raise DataError(
            f"{_base(label)} has {len(df):,} rows, more than the {limits.MAX_ROWS:,} this tool "
            "handles in memory: sample the rows first, or use the DuckDB engine (--engine duckdb)."
        )
    candidates = numeric_columns(df)
    if not candidates:
        raise DataError(
            f"{_base(label)} has no numeric column (columns: {_list(df.columns)}): "
            "upload a file with a column of numbers."
        )
    return df, candidates


def load_column(
    source: str | os.PathLike | IO[bytes],
    *,
    upper: float,
    column: str | None = None,
    name: str | None = None,
) -> Dataset:
    """Read a file and clean one numeric column of it.

    Parameters
    ----------
    source
        Path or binary file-like object (CSV, TSV or Parquet).
    upper
        Public upper bound U of the domain; values above it are clipped to it.
    column
        Column to use; by default the column with the most numeric cells.
    name
        Display name (defaults to the file name).

    Raises
    ------
    DataError
        Unreadable file, unknown column, or no numeric values.
    """
    label = name or getattr(source, "name", None) or Path(str(source)).name
    df, candidates = read_numeric_table(source, name=label)
    return table_column(df, column or candidates[0], upper=upper, name=_base(label))


def table_column(df: pd.DataFrame, column: str, *, upper: float, name: str) -> Dataset:
    """Clean one column of a table read by :func:`read_table` (its delimiter is the hint for
    decimal commas, see :func:`clean`).

    Raises
    ------
    DataError
        Unknown column, no numeric values, or mixed number formats.
    """
    names = [str(c) for c in df.columns]
    if column not in names:
        raise DataError(f"no column named {column!r} in {name}; columns are: {_list(df.columns)}.")
    series = df.iloc[:, names.index(column)]
    hint = decimal_comma_hint(df)
    return make_dataset(series, upper=upper, name=name, column=column, decimal_comma=hint)


def _list(columns: pd.Index) -> str:
    shown = [str(c) for c in list(columns)[:10]]
    more = f" … (+{len(columns) - 10})" if len(columns) > 10 else ""
    return ", ".join(shown) + more


# --------------------------------------------------------------------------------------------
# Domain and histogram
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Domain:
    """The public value domain [0, U] cut into n equal bins (e_{j-1}, e_j], e_j = j·U/n.

    Parameters
    ----------
    upper
        U, public knowledge (never derived from the data).
    bins
        n, the number of bins.
    weights
        Bin weight rule: ``"upper"`` uses v_j = e_j (the paper), ``"midpoint"`` (e_{j-1}+e_j)/2.
    """

    upper: float = 800_000.0
    bins: int = 1000
    weights: WeightRule = "upper"

    def __post_init__(self) -> None:
        object.__setattr__(self, "upper", check_upper(self.upper))
        object.__setattr__(self, "bins", check_int(self.bins, "bins", low=1, high=limits.MAX_BINS))
        check_choice(self.weights, "weights", WEIGHT_RULES)

    @property
    def width(self) -> float:
        """Bin width U/n."""
        return self.upper / self.bins

    @cached_property
    def edges(self) -> np.ndarray:
        """Upper edges e_1..e_n (e_n = U exactly)."""
        e = np.arange(1, self.bins + 1, dtype=float) * self.upper / self.bins
        e[-1] = self.upper
        e.setflags(write=False)
        return e

    @cached_property
    def bin_weights(self) -> np.ndarray:
        """Public representative values v_j (the paper's D = diag(v))."""
        e = self.edges
        if self.weights == "upper":
            return e
        lower = np.concatenate(([0.0], e[:-1]))
        v = (lower + e) / 2
        v.setflags(write=False)
        return v

    def as_dict(self) -> dict[str, float | int | str]:
        """Plain dict for JSON."""
        return {"upper": self.upper, "bins": self.bins, "weights": self.weights}


def bin_index(values: np.ndarray, domain: Domain) -> np.ndarray:
    """0-based bin of each value: t ∈ (e_{j-1}, e_j] ↦ j-1, and 0 ↦ 0."""
    # Arithmetic guess, then a one-step correction against the exact edges: this is an O(N)
    # pass (much faster than a binary search) and agrees with searchsorted(edges, t, 'left').
    idx = np.ceil(values * (domain.bins / domain.upper)).astype(np.int64) - 1
    np.clip(idx, 0, domain.bins - 1, out=idx)
    edges = domain.edges
    idx -= (idx > 0) & (values <= edges[idx - 1])
    idx += (idx < domain.bins - 1) & (values > edges[idx])
    return idx


def histogram(dataset: Dataset | np.ndarray, domain: Domain) -> np.ndarray:
    """Counts x_j of records per bin (private); a summary answers from its counts at the edges."""
    if hasattr(dataset, "histogram"):
        return dataset.histogram(domain)
    values = dataset.values if isinstance(dataset, Dataset) else np.asarray(dataset, float)
    return np.bincount(bin_index(values, domain), minlength=domain.bins).astype(float)


def bin_sums(dataset: Dataset, domain: Domain) -> np.ndarray:
    """Raw sums s_j = Σ_{t in bin j} t per bin (private), as differences of the correctly
    rounded sums at the edges: the same numbers from a Dataset and from any engine's summary
    (a per-bin float accumulation would depend on the order of the additions)."""
    return np.diff(np.concatenate(([0.0], dataset.sum_at_most(domain.edges))))


def domain_warnings(dataset: Dataset, domain: Domain) -> list[str]:
    """Plain-language warnings when the domain fits the data badly (empty-looking histogram).

    Two checks: most records (``limits.DOMAIN_CROWDED_RECORDS``) fall in a few bins (at most
    ``limits.DOMAIN_CROWDED_BINS`` of them: U is probably far too large, e.g. hourly wages on
    an income domain), or many records (over ``limits.DOMAIN_CLIPPED_SHARE``) were above U and
    set to U (U is probably too small).

    Privacy
    -------
    These messages are computed from the private data and are for the data holder's eyes
    only: they are never released, put in a link or a file, and never used to choose U
    automatically (a U read off the data is not public, and would leak the range).
    """
    out = []
    counts = np.sort(histogram(dataset, domain))[::-1]
    total = counts.sum()
    if total > 0:
        crowded = int(np.searchsorted(np.cumsum(counts), limits.DOMAIN_CROWDED_RECORDS * total))
        crowded += 1
        if crowded <= max(1, int(limits.DOMAIN_CROWDED_BINS * domain.bins)):
            out.append(
                f"{limits.DOMAIN_CROWDED_RECORDS:.0%} of the records fall in {crowded:,} of the "
                f"{domain.bins:,} bins: U = {domain.upper:,.6g} looks far too large for this "
                "column (the histogram will look empty and the error will be large). Set U "
                "from what is publicly known about the column's range."
            )
    clipped = dataset.report.clipped_above_upper
    if clipped > limits.DOMAIN_CLIPPED_SHARE * max(dataset.report.rows_kept, 1):
        out.append(
            f"{clipped:,} records ({clipped / dataset.report.rows_kept:.1%}) were above "
            f"U = {domain.upper:,.6g} and were set to U: U looks too small for this column. "
            "Set U from what is publicly known about the column's range."
        )
    return out
