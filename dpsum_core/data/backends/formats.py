"""Number formats the SQL engines (DuckDB, Spark) do not read: a text column holding one is
refused, so that no cell is ever read otherwise than the memory engine reads it."""

from __future__ import annotations

from collections.abc import Callable

from dpsum_core.data.backends.dialect import Dialect
from dpsum_core.data.cleaning import _EU_INTEGER, _EU_INTEGER_ONLY
from dpsum_core.errors import DataStatisticError
from dpsum_core.text import counted


def refuse_number_formats(query: Callable[[str], list], relation: str, col: str, *,
                          column: str, name: str, dialect: Dialect, space: str,
                          decimal_comma: bool) -> None:  # fmt: skip
    """Refuse the text column ``col`` (quoted; ``column`` its name) of ``relation`` if a cell
    holds a number the memory engine reads in a number format.

    The memory engine reads every cell on its own
    (:func:`dpsum_core.data.cleaning._read_numbers`): commas between thousands ("1,234,567"),
    a decimal comma ("1,5"), dots between thousands ("1.234.567"), and, in a ';' file
    (``decimal_comma``: the file's delimiter, public), "2.500" as 2,500. These engines read
    plain numbers only ("2.500" is 2.5 to them, "1.234.567" no number), so a text column with
    a comma in a cell or with such dots is refused (one scan) rather than read otherwise.

    Privacy
    -------
    A refusal that depends on the records (PRIVACY.md lists it): nothing is drawn or charged,
    and the operator reads why.
    """
    stripped = dialect.replace_all(col, f"[{space}$_]")  # as cleaning's _REMOVED
    dots = dialect.full_match(stripped, _EU_INTEGER if decimal_comma else _EU_INTEGER_ONLY)
    (commas, dotted), = query(
        f"SELECT sum(CASE WHEN {col} LIKE '%,%' THEN 1 ELSE 0 END), "
        f"sum(CASE WHEN {dots} THEN 1 ELSE 0 END) FROM {relation}"
    )  # fmt: skip
    found = []
    if commas:
        found.append(f"{counted(int(commas), 'number')} written with commas (thousands "
                     "separators or decimal commas)")  # fmt: skip
    if dotted:
        example = "2.500 in a ';' file, which writes decimal commas" if decimal_comma else (
            "1.234.567")
        found.append(f"{counted(int(dotted), 'number')} written with dots between thousands "
                     f"({example})")  # fmt: skip
    if found:
        raise DataStatisticError(
            f"column {column!r} of {name} has {' and '.join(found)}: the duckdb and spark "
            "engines read plain numbers only. Export the column with '.' decimals and no "
            "separators, or use --engine memory, which reads and reports these forms."
        )
