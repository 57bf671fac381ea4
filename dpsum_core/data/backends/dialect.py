"""The few spellings that differ between DuckDB and Spark SQL (:class:`Dialect`), shared by
:mod:`~dpsum_core.data.backends.sql` and :mod:`~dpsum_core.data.backends.content_sql` (its own
module so that neither imports the other's types: no import cycle)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dpsum_core.errors import DataStatisticError

HALF = "CAST(67108864 AS DOUBLE)"  # 2²⁶: limbs are summed in halves (see sql.keyed)
_HALF_BITS = 26
_MAX_GROUP = 2**36  # records per group: 2³⁶ summands < 2²⁷ stay below 2⁶³


@dataclass(frozen=True)
class Dialect:
    """The few spellings that differ between DuckDB and Spark SQL.

    ``wide_sums``: ``sum`` of a BIGINT column is a 128-bit integer (DuckDB's HUGEINT), exact
    for any number of limbs < 2⁵³; otherwise (Spark: BIGINT, which wraps around without ANSI
    mode) each limb is summed in 26-bit halves, exact up to 2³⁶ records per group.
    """

    name: str
    wide_sums: bool

    @property
    def limbs(self) -> tuple[str, ...]:
        """Names of the limb columns :func:`keyed` selects, in the order of :meth:`limb_sums`."""
        if self.wide_sums:
            return ("i", "f1", "f2")
        return tuple(f"{x}_{half}" for x in ("i", "f1", "f2") for half in ("hi", "lo"))

    def limb_columns(self) -> str:
        """SELECT list of :attr:`limbs` from the doubles ``i``, ``f1``, ``f2`` (integers in
        [0, 2⁵³), see :func:`dpsum_core.data.exact.limbs`)."""
        if self.wide_sums:
            return ", ".join(f"CAST({x} AS BIGINT) AS {x}" for x in ("i", "f1", "f2"))
        return ", ".join(
            f"CAST(floor({x} / {HALF}) AS BIGINT) AS {x}_hi, "
            f"CAST({x} - floor({x} / {HALF}) * {HALF} AS BIGINT) AS {x}_lo"
            for x in ("i", "f1", "f2")
        )

    def limb_sums(self) -> str:
        """Sums of a group's :attr:`limbs` (read back by :meth:`limb_units`)."""
        return ", ".join(f"sum({c})" for c in self.limbs)

    def limb_units(self, n: int, sums: Sequence) -> tuple[int, int, int]:
        """(ΣI, ΣF₁, ΣF₂) of a group from its count and :meth:`limb_sums` (exact Python ints).

        Raises DataError for a group too large for exact 64-bit half sums (a Spark session
        without ANSI mode would otherwise wrap around silently).
        """
        v = [int(x or 0) for x in sums]  # a group of NULL values sums to NULL
        if self.wide_sums:
            return (v[0], v[1], v[2])
        if n >= _MAX_GROUP:
            raise DataStatisticError(
                f"{n:,} records fall in one interval: more than exact 64-bit sums allow "
                f"({_MAX_GROUP:,}); use more bins or split the dataset"
            )
        whole, f1, f2 = ((v[2 * j] << _HALF_BITS) + v[2 * j + 1] for j in range(3))
        return whole, f1, f2

    def lit(self, text: str) -> str:
        """A string literal (Spark SQL processes backslash escapes, DuckDB does not)."""
        body = text.replace("'", "''")
        if self.name == "spark":
            body = body.replace("\\", "\\\\")
        return f"'{body}'"

    def replace_all(self, expr: str, pattern: str, by: str = "") -> str:
        flag = ", 'g'" if self.name == "duckdb" else ""
        return f"regexp_replace({expr}, {self.lit(pattern)}, {self.lit(by)}{flag})"

    def sorted_sum(self, expr: str) -> str:
        """Σ of a group's ``expr`` added in ascending order one at a time from 0.0, as
        :func:`dpsum_core.data.cleaning.person_totals` adds (the same doubles in every engine)."""
        if self.name == "duckdb":
            return f"list_reduce(list_sort(list({expr})), lambda a, x: a + x, CAST(0 AS DOUBLE))"
        return f"aggregate(array_sort(collect_list({expr})), CAST(0 AS DOUBLE), (a, x) -> a + x)"

    def full_match(self, expr: str, pattern: str) -> str:
        if self.name == "duckdb":
            return f"regexp_full_match({expr}, {self.lit(pattern)})"
        body = pattern.removeprefix("(?i)")
        return f"({expr} RLIKE {self.lit('(?i)^(?:' + body + ')$')})"


DUCKDB = Dialect("duckdb", wide_sums=True)
SPARK = Dialect("spark", wide_sums=False)
