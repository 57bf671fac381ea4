"""SQL text shared by the DuckDB and Spark backends: SPEC §0 cleaning, bins, exact-sum limbs.

The expressions restate :func:`dpsum_core.data.cleaning.clean` and :func:`dpsum_core.data.cleaning.to_numeric`
(missing: empty, whitespace or pandas' NA strings in CSV; text such as ``" $5 "`` or ``"1 000"``
parsed after removing ``$ _`` and whitespace, the values read so counted as the cleaning report
counts them; NaN is missing in a numeric column and non-numeric in text; ±inf dropped; clipped to [0, U]) and :func:`dpsum_core.data.domain.bin_index` and
:func:`dpsum_core.data.exact.limbs` with the same IEEE double operations, so every engine computes
the same bins, limbs and cleaning report. Only aggregates ever leave the engine.

With a privacy identifier every pass reads, instead of the rows, a grouped sub-query of the
people's totals (``GROUP BY`` the identifier, each total added in ascending order as
:func:`dpsum_core.data.cleaning.person_totals` adds), and one more scan counts the rows dropped.
"""


from __future__ import annotations

import math
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from pandas._libs.parsers import STR_NA_VALUES

from dpsum_core import limits
from dpsum_core.data.backends.content_sql import LANES, hashed, lane_sums
from dpsum_core.data.backends.dialect import DUCKDB, Dialect
from dpsum_core.data.backends.formats import refuse_number_formats
from dpsum_core.data.cleaning import SPACE_RANGES, CleaningReport, rank_columns
from dpsum_core.data.content import EMPTY, Content
from dpsum_core.data.domain import Domain
from dpsum_core.data.exact import to_units
from dpsum_core.data.identifiers import SAMPLE_ROWS, Judged, judge_columns, value_choices
from dpsum_core.data.reading import check_id_column
from dpsum_core.data.summary import CutPoints, DataSummary, MissingStatistics, from_intervals
from dpsum_core.errors import DataError, DataStatisticError, ParameterError

if TYPE_CHECKING:
    import pandas as pd

# What pd.to_numeric accepts once separators and whitespace are removed (decimal notation,
# exponent, inf/infinity/nan in any case): engines' own casts accept more (hex, "1d" in Java).
# Python's white space (cleaning.SPACE_RANGES) as a character class for RE2 (DuckDB) and Java
# (Spark), whose ``\s`` is ASCII only.
SPACE = "".join(
    rf"\x{{{lo:X}}}" + (rf"-\x{{{hi:X}}}" if hi > lo else "") for lo, hi in SPACE_RANGES
)
NUMBER = r"(?i)[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)(e[+-]?[0-9]+)?|inf|infinity|nan)"
SCALE = "CAST(4503599627370496 AS DOUBLE)"  # 2⁵², as in summary.limbs


def num(x: float) -> str:
    """A double literal both engines parse to the same double (Spark reads 1.5 as a DECIMAL)."""
    return f"CAST('{float(x)!r}' AS DOUBLE)"




def parse_column(
    col: str, kind: str, dialect: Dialect, *, csv: bool, commas: bool = False
) -> tuple[str, str]:
    """(missing, parsed) SQL for one raw column; ``kind`` is ``text``, ``number`` or ``other``.

    ``commas``: also strip commas — only to rank columns by how many numbers they hold (as
    data.numeric_columns does); a chosen column with commas, or with dots between thousands,
    is refused (:func:`~dpsum_core.data.backends.formats.refuse_number_formats`), never read
    this way.
    """
    if kind == "number":
        return f"({col} IS NULL OR isnan(CAST({col} AS DOUBLE)))", f"CAST({col} AS DOUBLE)"
    if kind != "text":
        return f"({col} IS NULL)", "CAST(NULL AS DOUBLE)"
    blank = dialect.replace_all(col, f"[{SPACE}]") + " = ''"
    missing = f"({col} IS NULL OR {blank}"
    if csv:  # pandas.read_csv turns its NA strings into NaN (after skipinitialspace: ' ' only)
        na = ", ".join(dialect.lit(v) for v in sorted(STR_NA_VALUES) if v)
        missing += f" OR {dialect.replace_all(col, '^ +')} IN ({na})"
    missing += ")"
    stripped = dialect.replace_all(col, f"[,{SPACE}$_]" if commas else f"[{SPACE}$_]")
    parsed = (
        f"CASE WHEN {dialect.full_match(stripped, NUMBER)} THEN TRY_CAST({stripped} AS DOUBLE) END"
    )
    return missing, parsed


MARKS = ("m_dollar", "m_spaced")  # columns of the marks of removed_marks, summed per group


def removed_marks(col: str, dialect: Dialect) -> tuple[str, str]:
    """SQL of two 0/1 marks of a raw text cell, as :func:`dpsum_core.data.cleaning.clean`
    counts them: a "$" removed; "_", or white space between two other characters, removed."""
    dollar = f"CASE WHEN {col} LIKE '%$%' THEN 1 ELSE 0 END"
    inside = dialect.full_match(col, f"(?s).*(_|[^{SPACE}][{SPACE}]+[^{SPACE}]).*")
    return dollar, f"CASE WHEN {inside} THEN 1 ELSE 0 END"


# Codes of the rows a summary's key does not place in a bin: the cleaning report is read off
# the group sizes, so no per-row counter columns are needed. Clipped rows keep their value
# (0 or U) and are merged into the first or last interval in Python.
MISSING, NON_NUMERIC, NON_FINITE, BELOW_ZERO, ABOVE_UPPER = -1, -2, -3, -4, -5


def keyed(
    raw_sql: str,
    missing: str,
    parsed: str,
    domain: Domain,
    extra: np.ndarray,
    dialect: Dialect,
    *,
    content: bool = False,
    marks: bool = False,
) -> str:
    """SELECT of every row's ``key``, ``sub``, ``v`` (cleaned value) and its limbs
    (``dialect.limbs``); with ``content`` also its content hash lanes (``content_sql.hashed``);
    with ``marks`` (``raw`` is text) also its :data:`MARKS` (:func:`removed_marks`).

    ``raw_sql`` selects the chosen column as ``raw``; ``missing`` and ``parsed`` are
    :func:`parse_column` of ``raw``. ``key`` is the row's 0-based bin, exactly as
    :func:`dpsum_core.data.domain.bin_index` computes it, for 0 ≤ p ≤ U, else one of the codes above.
    ``sub`` = #{extra points < v} for rows of the bins holding an extra point, else −1.

    Speed matters here (one evaluation per record, 3·10⁸ records at census scale), so every
    row costs a handful of vectorised arithmetic operations and no per-point comparison:

    - the bin: k = ⌊v·n/U + ½⌋ is the edge nearest to v, so e_{k−1} < v ≤ e_{k+1} and
      bin = k − 1 + [v > e_k], with e_k = (k·U)/n computed as numpy computes ``Domain.edges``
      (a value exactly on an edge, common in rounded data, lands where numpy puts it);
    - the extra points (SVT grid, a fixed θ) are compared only inside the few bins that hold
      one (a membership test per row); :meth:`SQLBackend.summarize` maps (key, sub) to the
      interval of the held points;
    - exact sums: the three limbs (I, F₁, F₂) of :func:`dpsum_core.data.exact.limbs` as
      integers, so that a group's sum is exact whatever the order of the additions (a
      neighbour changes only its own interval's sum). DuckDB sums BIGINT into 128-bit HUGEINT:
      three sums, exact for any count (six 26-bit half sums cost ≈ 0.3 s more per 3·10⁷ rows).
      Spark sums BIGINT into BIGINT, so there each limb is split into 26-bit halves: every
      summand is < 2²⁷ and a 64-bit sum is exact for up to 2³⁶ ≈ 6.9·10¹⁰ records per group
      (:meth:`Dialect.limb_units` checks the count). Spark's DECIMAL(38,0) sums, the
      alternative, go through Java BigDecimal and cost ≈ 8 s per 10⁸ rows each.
    """
    upper = domain.upper
    inf = "CAST('Infinity' AS DOUBLE)"
    bin_ = bin_of("v", domain.bins, upper)
    codes = (
        f"CASE WHEN p IS NULL OR isnan(p) THEN CASE WHEN {missing} THEN {MISSING} "
        f"ELSE {NON_NUMERIC} END WHEN abs(p) = {inf} THEN {NON_FINITE} "
        f"WHEN p < {num(0.0)} THEN {BELOW_ZERO} ELSE {ABOVE_UPPER} END"
    )
    if extra.size:
        bins = ", ".join(str(int(j)) for j in np.unique(extra_bins(domain, extra)))
        above = " + ".join(f"CAST(v > {num(x)} AS INTEGER)" for x in extra)
        sub = f"CASE WHEN key IN ({bins}) THEN {above} ELSE -1 END"
    else:
        sub = "-1"
    # v = min(max(p, 0), U) is finite for every non-NULL p (NaN is the largest double in both
    # engines, so least(NaN, U) = U): the limb casts never fail, and the limbs of rows with a
    # negative code other than ABOVE_UPPER are ignored.
    marked = MARKS if marks else ()
    mark_sql = "".join(
        f", {sql} AS {name}"
        for sql, name in zip(removed_marks("raw", dialect), MARKS, strict=True)
    ) if marks else ""  # fmt: skip
    rows = f"SELECT raw, {parsed} AS p{mark_sql} FROM ({raw_sql}) r0"
    carried = list(marked)
    if content:
        rows = hashed(dialect, rows, value="p", keep=("raw", "p", *marked))
        carried += LANES
    h = "".join(f", {c}" for c in carried)
    return f"""
SELECT key, sub, v, {dialect.limb_columns()}{h}
FROM (SELECT key, sub, v, i, f1, floor((s1 - f1) * {SCALE}) AS f2{h}
FROM (SELECT key, sub, v, i, s1, floor(s1) AS f1{h}
FROM (SELECT key, {sub} AS sub, v, i, (v - i) * {SCALE} AS s1{h}
FROM (SELECT key, v, CAST(floor(v) AS DOUBLE) AS i{h}
FROM (SELECT CASE WHEN p >= {num(0.0)} AND p <= {num(upper)} THEN {bin_} ELSE {codes} END AS key, v{h}
      FROM (SELECT raw, p, least(greatest(p, {num(0.0)}), {num(upper)}) AS v{h}
            FROM ({rows}) r1) r2) r3) r4) r5) r6) r7"""


def bin_of(v: str, bins: int, upper: float) -> str:
    """SQL of the 0-based bin of a value ``v`` in [0, U], as
    :func:`dpsum_core.data.domain.bin_index` computes it (see :func:`keyed`)."""
    # round() of a double goes through BigDecimal in Spark: floor(x + ½) is as good a guess.
    k = f"CAST(floor({v} * {num(bins / upper)} + {num(0.5)}) AS DOUBLE)"
    return (
        f"least(greatest(CAST({k} AS BIGINT) - 1 + "
        f"CAST({v} > ({k} * {num(upper)}) / {num(bins)} AS INTEGER), 0), {bins - 1})"
    )


def extra_bins(domain: Domain, extra: np.ndarray) -> np.ndarray:
    """0-based bin of each extra point (its interval (e_{j−1}, e_j])."""
    return np.searchsorted(domain.edges, extra, side="left")


class SQLBackend:
    """Summary passes written once in SQL; subclasses say how to run a query and name the
    source relation (a view over the files or table), its columns and their kinds."""

    engine = "sql"
    dialect: Dialect = DUCKDB

    def __init__(
        self, *, upper: float, column: str | None, name: str, csv: bool, id_column: str | None = None,
        decimal_comma: bool = False,  # a ';' text file (public, its delimiter): decimal commas
    ):
        self.upper = float(upper)
        self.name = name
        self.csv = csv
        kinds = self.columns()
        if not kinds:
            raise DataError(f"{name} has no columns: add a header row and values.")
        self.id_column = id_column  # the rows an index may number (see judged)
        if column is None:
            ranked = list(self.value_choices) or self.numeric_columns
            if not ranked and not self.query(f"SELECT 1 FROM {self.relation()} LIMIT 1"):
                raise DataError(f"{name} has a header but no rows of data.")
            if not ranked:
                raise DataError(
                    f"{name} has no numeric column (columns: {', '.join(list(kinds)[:10])}): "
                    "choose data with a column of numbers."
                )
            column = ranked[0]
        if column not in kinds:
            raise DataError(
                f"no column named {column!r} in {name}; columns are: {', '.join(list(kinds)[:10])}."
            )
        check_id_column(column, id_column, list(kinds), name)
        self.column = column
        self._text = kinds[column] == "text"  # "$", "_" and white space are removed from it
        self._id_kind = None if id_column is None else kinds[id_column]
        self.domain = Domain(self.upper, 1)  # set by summarize()
        if kinds[column] == "text":  # no number format read otherwise than in memory
            refuse_number_formats(self.query, self.relation(), self.quote(column), column=column,
                                  name=name, dialect=self.dialect, space=SPACE,
                                  decimal_comma=decimal_comma)  # fmt: skip
        # The key pass reads the column under an internal name, so that a column called "p"
        # or "key" cannot collide with the names of the intermediate columns.
        self._raw = f"SELECT {self.quote(column)} AS raw FROM {self.relation()}"
        self._parse = parse_column("raw", kinds[column], self.dialect, csv=csv)
        if id_column is not None:
            # One person per identifier: every pass reads the people's totals (a grouped
            # sub-query) where it read the rows; the totals are numbers, parsed as such.
            self._rows = self._person_rows(kinds, column, id_column)
            big = num(float(np.finfo(np.float64).max))  # an overflowing total is clipped
            people = self.keep(
                f"SELECT least(greatest({self.dialect.sorted_sum('p')}, -{big}), {big}) AS raw "
                f"FROM ({self._rows}) r WHERE NOT no_id AND abs(p) < CAST('Infinity' AS DOUBLE) "
                "GROUP BY pid"
            )
            self._raw = f"SELECT raw FROM {people}"
            self._parse = parse_column("raw", "number", self.dialect, csv=False)

    def _person_rows(self, kinds: dict[str, str], column: str, id_column: str) -> str:
        """Every row's identifier ``pid``, ``no_id`` (NA or blank, as pandas reads it), parsed
        value ``p``, ``missing`` (the value's cell is empty or NA) and :data:`MARKS`."""
        value = self.quote(column)
        missing, parsed = parse_column(value, kinds[column], self.dialect, csv=self.csv)
        marks = removed_marks(value, self.dialect) if kinds[column] == "text" else ("0", "0")
        pid = self.quote(id_column)
        no_id, _ = parse_column(pid, kinds[id_column], self.dialect, csv=self.csv)
        if kinds[id_column] == "text":  # one person whatever white space ends the identifier
            pid = self.dialect.replace_all(pid, f"^[{SPACE}]+|[{SPACE}]+$")
        return (
            f"SELECT {pid} AS pid, {no_id} AS no_id, {parsed} AS p, {missing} AS missing, "
            f"{marks[0]} AS {MARKS[0]}, {marks[1]} AS {MARKS[1]} FROM {self.relation()}"
        )

    def _row_report(
        self, people: int, tally: dict[int, int], *, content: bool = False
    ) -> CleaningReport:
        """The cleaning report of a summary by person: the rows dropped (one more scan,
        counted as :func:`dpsum_core.data.cleaning.clean` counts them) and the people's
        totals clipped (``tally``, from the summary's scan); with ``content``, the same scan
        sums the content hashes of the kept (identifier, value) rows."""
        nan = "(p IS NULL OR isnan(p))"
        kept = "NOT no_id AND abs(p) < CAST('Infinity' AS DOUBLE)"
        parts = [
            "NOT no_id AND {nan} AND missing",
            "NOT no_id AND {nan} AND NOT missing",
            "NOT no_id AND abs(p) = CAST('Infinity' AS DOUBLE)",
            "no_id",
            *(f"{kept} AND {m} = 1" for m in MARKS),
            f"{kept} AND p < 0",  # a negative row, added into its person's total
        ]
        counted = ", ".join(
            f"sum(CASE WHEN {c.format(nan=nan)} THEN 1 ELSE 0 END)" for c in parts
        )
        rows_sql = self._rows
        if content:  # the rows each person's total adds (see __init__)
            counted += ", " + lane_sums(kept)
            rows_sql = hashed(
                self.dialect, self._rows, value="p", keep=("no_id", "p", "missing", *MARKS),
                pid="pid", id_kind=self._id_kind or "text",
            )  # fmt: skip
        rows, *counts = (int(x or 0) for x in self.query(
            f"SELECT count(*), {counted} FROM ({rows_sql}) r"
        )[0])  # fmt: skip
        digest = Content(counts[7], (counts[8], counts[9])) if content else None
        return CleaningReport(
            rows_read=rows,
            dropped_missing=counts[0],
            dropped_non_numeric=counts[1],
            dropped_non_finite=counts[2],
            clipped_below_zero=tally[BELOW_ZERO],
            clipped_above_upper=tally[ABOVE_UPPER],
            id_column=self.id_column,
            dropped_missing_id=counts[3],
            people=people,
            content=digest,
            dollar_removed=counts[4],
            spaces_removed=counts[5],
            negative_rows=counts[6],
        )

    # -- to implement -------------------------------------------------------------------------
    def query(self, sql: str) -> list[tuple]:  # pragma: no cover - abstract
        """Run ``sql`` and return its (aggregate) rows as tuples of plain Python values."""
        raise NotImplementedError

    def relation(self) -> str:  # pragma: no cover - abstract
        """SQL name of the source relation."""
        raise NotImplementedError

    def columns(self) -> dict[str, str]:  # pragma: no cover - abstract
        """Column name → ``text`` | ``number`` | ``other``, in file order."""
        raise NotImplementedError

    def keep(self, sql: str) -> str:
        """A relation holding the result of ``sql`` inside the engine (the people's totals,
        read by every pass): here the query itself, run again by each pass."""
        return f"({sql}) kept"

    def quote(self, name: str) -> str:
        """A quoted identifier."""
        q = "`" if self.dialect.name == "spark" else '"'
        return q + name.replace(q, q + q) + q

    # -- passes -------------------------------------------------------------------------------
    @cached_property
    def numeric_columns(self) -> list[str]:
        """Columns holding at least one finite number, most numeric first (one scan, kept), in
        the order of :func:`dpsum_core.data.cleaning.numeric_columns`."""
        kinds = self.columns()
        return rank_columns(list(kinds), self._finite_counts(kinds), last=tuple(self.skipped))

    @cached_property
    def judged(self) -> Judged:
        """What the first :data:`SAMPLE_ROWS` rows say of the numeric columns, as the memory
        engine judges a file's first rows (:func:`dpsum_core.data.identifiers.judge_columns`)."""
        kinds = self.columns()
        numbers = [c for c, kind in kinds.items() if kind != "other"]  # text may hold numbers
        return judge_columns(self.head(), numbers, id_column=self.id_column) if numbers else Judged()

    @property
    def skipped(self) -> dict[str, str]:
        """The numeric columns a default value column skips, with why (:attr:`judged`)."""
        return dict(self.judged.skipped)

    @property
    def value_choices(self) -> tuple[str, ...]:
        """The columns that could be the value column, best first
        (:func:`dpsum_core.data.identifiers.value_choices`)."""
        not_values = self.judged.not_values
        return value_choices(self.numeric_columns, not_values, id_column=self.id_column)

    @cached_property
    def identifiers(self) -> tuple[str, ...]:
        """The columns other than the value column and the identifier whose first
        :data:`SAMPLE_ROWS` rows look like codes of people
        (:func:`dpsum_core.data.identifiers.identifier_columns`)."""
        from dpsum_core.data.identifiers import identifier_columns

        skip = (self.column,) if self.id_column is None else (self.column, self.id_column)
        return identifier_columns(self.head(), skip=skip)

    def head(self) -> pd.DataFrame:
        """The first :data:`SAMPLE_ROWS` rows, every column (as objects)."""
        import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

        rows = self.query(f"SELECT * FROM {self.relation()} LIMIT {SAMPLE_ROWS}")
        return pd.DataFrame([tuple(r) for r in rows], columns=list(self.columns()), dtype=object)

    def _finite_counts(self, kinds: dict[str, str]) -> list[int]:
        parts = []
        for col, kind in kinds.items():
            _, parsed = parse_column(self.quote(col), kind, self.dialect, csv=self.csv, commas=True)
            parts.append(
                f"sum(CASE WHEN abs({parsed}) < CAST('Infinity' AS DOUBLE) THEN 1 ELSE 0 END)"
            )
        row = self.query(f"SELECT {', '.join(parts)} FROM {self.relation()}")[0]
        return [int(v or 0) for v in row]

    def summarize(self, cuts: CutPoints, *, content: bool = False) -> DataSummary:
        """First pass: one scan grouped by (key, sub) gives the cleaning report, the counts and
        exact sums of every interval between held points; a second, filtered scan reads the
        top-k (only the records above the interval where the k largest begin).
        ``content``: the report holds the data's ``Content`` (what a ledger binds to), summed
        in the same scan (by person: in the cleaning report's scan)."""
        domain = self.domain = cuts.domain
        if not math.isclose(domain.upper, self.upper):
            raise ParameterError("the cut points' domain must use the cleaning bound U")
        per_row = content and self.id_column is None
        marks = self._text and self.id_column is None  # by person: in the cleaning report's scan
        lanes = ", " + lane_sums() if per_row else ""
        lanes += "".join(f", sum({m})" for m in MARKS) if marks else ""
        rows = self.query(
            f"SELECT key, sub, count(*) AS n, {self.dialect.limb_sums()}{lanes} "
            f"FROM ({self._keyed(cuts.extra, content=per_row, marks=marks)}) b GROUP BY key, sub"
        )
        width, digest = len(self.dialect.limbs), EMPTY
        points = cuts.all
        # Interval of (bin j, sub): #held points < v = j + #extra points < v; outside the
        # bins holding an extra point that is the number of extra points below e_j.
        below = np.searchsorted(cuts.extra, domain.edges, side="left")
        interval = {BELOW_ZERO: 0, ABOVE_UPPER: points.size - 1}  # v = 0 and v = U
        counts = np.zeros(points.size + 1, np.int64)
        limb = [[0, 0, 0] for _ in range(points.size + 1)]
        tally = {MISSING: 0, NON_NUMERIC: 0, NON_FINITE: 0, BELOW_ZERO: 0, ABOVE_UPPER: 0}
        removed = [0, 0]  # kept rows with a "$", with "_" or white space inside, removed
        for key, sub, n, *sums in rows:
            key, sub, n = int(key), int(sub), int(n)
            if key < 0:
                tally[key] += n
                if key not in interval:
                    continue  # dropped rows: their limbs are of a placeholder value
                j = interval[key]
            else:
                j = key + (sub if sub >= 0 else int(below[key]))
            if marks:  # the last two sums, of kept rows only
                removed = [r + int(x or 0) for r, x in zip(removed, sums[-2:], strict=True)]
                sums = sums[:-2]
            if per_row:  # kept rows only (clipped ones included: U is not the data)
                digest += Content(n, (int(sums[width] or 0), int(sums[width + 1] or 0)))
                sums = sums[:width]
            counts[j] += n
            for i, x in enumerate(self.dialect.limb_units(n, sums)):
                limb[j][i] += x
        report = (
            CleaningReport(
                rows_read=int(counts.sum())
                + sum(tally[c] for c in (MISSING, NON_NUMERIC, NON_FINITE)),
                dropped_missing=tally[MISSING],
                dropped_non_numeric=tally[NON_NUMERIC],
                dropped_non_finite=tally[NON_FINITE],
                clipped_below_zero=tally[BELOW_ZERO],
                clipped_above_upper=tally[ABOVE_UPPER],
                content=digest if per_row else None,
                dollar_removed=removed[0],
                spaces_removed=removed[1],
            )
            if self.id_column is None
            else self._row_report(int(counts.sum()), tally, content=content)
        )
        if report.rows_read == 0:
            raise DataError(f"{self.name} has a header but no rows of data.")
        if report.rows_kept == 0:
            raise DataStatisticError(
                "no numeric values left after cleaning "
                f"({report.rows_read:,} rows read, {report.dropped_non_numeric:,} non-numeric, "
                f"{report.dropped_missing:,} empty): choose a column that holds numbers."
            )
        # The k largest values lie above the lowest interval start with ≥ k records above it:
        # filtering on the parsed value first (no cleaning report, no bins) lets the engine
        # skip sorting — and mostly skip cleaning — (almost) every record. p > low and p < ∞
        # keep exactly the finite values above low (NULL and NaN fail one of the two).
        above = np.cumsum(counts[::-1])[::-1]  # records in intervals ≥ j
        start = int(np.flatnonzero(above >= limits.SUMMARY_TOP_K).max(initial=0))
        low = num(points[start - 1]) if start > 0 else "CAST('-Infinity' AS DOUBLE)"
        top = self.query(
            f"SELECT least(greatest(p, {num(0.0)}), {num(self.upper)}) AS v "
            f"FROM (SELECT {self._parse[1]} AS p FROM ({self._raw}) r) c "
            f"WHERE p > {low} AND p < CAST('Infinity' AS DOUBLE) "
            f"ORDER BY v DESC LIMIT {limits.SUMMARY_TOP_K}"
        )
        return from_intervals(
            name=self.name,
            column=self.column,
            upper=self.upper,
            report=report,
            points=points,
            counts=counts,
            limb_sums=[tuple(x) for x in limb],  # type: ignore[misc]
            top=np.array([r[0] for r in top], dtype=float),
        )

    def _keyed(self, extra: np.ndarray, *, content: bool = False, marks: bool = False) -> str:
        missing, parsed = self._parse
        return keyed(
            self._raw, missing, parsed, self.domain, extra, self.dialect, content=content,
            marks=marks,
        )  # fmt: skip

    def _binned(self) -> str:
        """Kept records with their ``bin``, ``v`` and limbs (second passes join on the bin)."""
        # Clipped records keep their bin (v = 0: the first, v = U: the last); dropped ones none.
        bin_ = (
            f"CASE WHEN key >= 0 THEN key WHEN key = {BELOW_ZERO} THEN 0 "
            f"WHEN key = {ABOVE_UPPER} THEN {self.domain.bins - 1} END"
        )
        return (
            f"SELECT {bin_} AS bin, v, {', '.join(self.dialect.limbs)} "
            f"FROM ({self._keyed(np.empty(0))}) k"
        )

    def extend(self, summary: DataSummary, missing: MissingStatistics) -> DataSummary:
        """Second pass: counts and exact sums at ``missing.points`` (records of each point's bin
        joined to it) and values at ``missing.positions`` (one scan)."""
        if missing.points.size:
            summary = self._extend_points(summary, missing.points)
        if missing.positions.size:
            intervals: dict[tuple[float, float], int] = {}
            asks = []
            for i, pos in enumerate(missing.positions.tolist()):
                low, high, offset = summary.interval_of(pos)
                iv = intervals.setdefault((low, high), len(intervals))
                asks.append(f"({i}, {iv}, {offset})")
            # (low, high] lies between consecutive held points, so inside one bin: records
            # join their interval on the bin (a hash join, each record to at most one
            # interval), are numbered in order once per interval, and only the asked ranks
            # come back.
            spans = ", ".join(
                f"({iv}, {int(np.searchsorted(self.domain.edges, high, side='left'))}, "
                f"{num(low)}, {num(high)})"
                for (low, high), iv in intervals.items()
            )
            rows = self.query(
                "SELECT a.i, r.v FROM (SELECT q.iv, b.v, row_number() OVER "
                "(PARTITION BY q.iv ORDER BY b.v) - 1 AS rn "
                f"FROM ({self._binned()}) b JOIN (VALUES {spans}) AS q(iv, j, lo, hi) "
                "ON b.bin = q.j AND b.v > q.lo AND b.v <= q.hi) r "
                f"JOIN (VALUES {', '.join(asks)}) AS a(i, iv, off) ON r.iv = a.iv AND r.rn = a.off"
            )
            got = {int(i): float(v) for i, v in rows}
            values = np.array([got[i] for i in range(missing.positions.size)], float)
            summary = summary.with_order_statistics(missing.positions, values)
        return summary

    def _extend_points(self, summary: DataSummary, points: np.ndarray) -> DataSummary:
        if points.size > limits.SUMMARY_MAX_EXTRA_POINTS:
            raise DataError(
                f"this run needs counts at {points.size:,} data-dependent points (more than "
                f"{limits.SUMMARY_MAX_EXTRA_POINTS:,} in one extra pass), as SQM with a per-query "
                "recursive θ does: use SVT or a fixed θ for SQM, or the in-memory engine"
            )
        # Missing points lie in (0, U): points ≥ the smallest top-k value are never missing.
        domain = self.domain
        inside = np.unique(points)
        bins = np.searchsorted(domain.edges, inside, side="left")
        # Each point takes the records of its bin above the previous point of that bin (or
        # above the bin's lower edge): every record joins at most one point, and the counts
        # and sums up to each point are cumulated here, exactly.
        first = np.r_[True, bins[1:] != bins[:-1]]
        edge_below = np.where(bins > 0, domain.edges[np.maximum(bins - 1, 0)], -1.0)
        low = np.where(first, edge_below, np.r_[-1.0, inside[:-1]])
        values = ", ".join(
            f"({i}, {int(b)}, {num(lo)}, {num(x)})"
            for i, (b, lo, x) in enumerate(zip(bins, low, inside, strict=True))
        )
        rows = (
            self.query(
                f"SELECT x.pt, count(*), {self.dialect.limb_sums()} FROM ({self._binned()}) b "
                f"JOIN (VALUES {values}) AS x(pt, j, lo, p) "
                "ON b.bin = x.j AND b.v > x.lo AND b.v <= x.p GROUP BY x.pt"
            )
            if inside.size
            else []
        )
        got = {int(r[0]): (int(r[1]), self.dialect.limb_units(int(r[1]), r[2:])) for r in rows}
        # Records of the bins below: held at the bin's lower edge (none below the first bin,
        # whose lower end 0 is not a held point).
        base_counts = np.zeros(inside.size, np.int64)
        base_units = [0] * inside.size
        later = np.flatnonzero(bins > 0)
        if later.size:
            lower = domain.edges[bins[later] - 1]
            base_counts[later] = summary.count_at_most(lower)
            for i, u in zip(later.tolist(), summary.units_at_most(lower), strict=True):
                base_units[i] = u
        counts, units = [], []
        for i in range(inside.size):
            n, limb = got.get(i, (0, (0, 0, 0)))
            if first[i]:
                count, unit = int(base_counts[i]), base_units[i]
            count, unit = count + n, unit + to_units(*limb)
            counts.append(count)
            units.append(unit)
        return summary.with_points(inside, np.array(counts, np.int64), units)
