"""The content hash of every row in SQL (DuckDB and Spark): :func:`dpsum_core.data.content.lanes`
of :func:`~dpsum_core.data.content.value_components` and
:func:`~dpsum_core.data.content.id_components`, with the same exact integer operations, so that
every engine sums the same two lanes (tests/core/test_content.py compares them).

Privacy
-------
Reads private rows inside the engine; only the sums of the lanes leave it (a
:class:`~dpsum_core.data.content.Content`, kept by the custodian's ledger as a salted digest).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from dpsum_core.data.content import (
    EXPONENT_OFFSET,
    HIGH,
    ID_INT,
    ID_NONE,
    ID_NUMBER,
    ID_TEXT,
    INT_ID_BOUND,
    LOW,
    MD5_PIECES,
    MULTIPLIERS,
    PRIMES,
    TWO52,
    lanes,
)

if TYPE_CHECKING:
    from dpsum_core.data.backends.dialect import Dialect

INF = "CAST('Infinity' AS DOUBLE)"
LANES = ("h1", "h2")


def _num(x: float) -> str:
    return f"CAST('{float(x)!r}' AS DOUBLE)"


def _value(x: str) -> tuple[str, str, str, str]:
    """SQL of the four components of a finite double ``x`` (a column name)."""
    a = f"abs({x})"
    normal = f"({a} >= {_num(LOW)} AND {a} < {_num(HIGH)})"
    two, high, two52 = _num(2.0), _num(HIGH), _num(TWO52)
    # The exponent from log2 may be one off either way: corrected by the mantissa's range.
    e0 = f"greatest(CAST(floor(log2({a})) AS BIGINT) - 52, -1074)"
    m0 = f"({a} / pow({two}, {e0}))"
    e = (
        f"(CASE WHEN {m0} >= {high} THEN {e0} + 1 "
        f"WHEN {m0} < {two52} AND {e0} > -1074 THEN {e0} - 1 ELSE {e0} END)"
    )
    s1 = f"(({a} - floor({a})) * {two52})"
    tag = (
        f"(CASE WHEN {normal} THEN 2 WHEN {a} > {_num(0.0)} THEN 4 ELSE 0 END "
        f"+ CASE WHEN {x} < {_num(0.0)} THEN 1 ELSE 0 END)"
    )
    l1 = (
        f"CASE WHEN {normal} THEN CAST(floor({a}) AS BIGINT) "
        f"WHEN {a} > {_num(0.0)} THEN CAST({a} / pow({two}, {e}) AS BIGINT) ELSE 0 END"
    )
    l2 = (
        f"CASE WHEN {normal} THEN CAST(floor({s1}) AS BIGINT) "
        f"WHEN {a} > {_num(0.0)} THEN {e} + {EXPONENT_OFFSET} ELSE 0 END"
    )
    l3 = f"CASE WHEN {normal} THEN CAST(floor(({s1} - floor({s1})) * {two52}) AS BIGINT) ELSE 0 END"
    return tag, l1, l2, l3


def _hex(dialect: Dialect, text: str) -> str:
    if dialect.name == "duckdb":
        return f"CAST('0x' || {text} AS BIGINT)"
    return f"CAST(conv({text}, 16, 10) AS BIGINT)"


def hashed(
    dialect: Dialect,
    source: str,
    *,
    value: str,
    keep: Sequence[str],
    pid: str | None = None,
    id_kind: str = "text",
) -> str:
    """``SELECT keep…, h1, h2`` over the rows of ``source``: each row's two lane hashes of its
    ``value`` (a double column, parsed, not clipped) and identifier ``pid`` (``None``: one row
    = one person) of kind ``id_kind`` (``text``, ``number`` or ``other``, read as text).

    Rows whose value is not finite get the hash of 0 and rows without an identifier a
    meaningless one: the caller sums the kept rows only.
    """
    kept = ", ".join(keep)
    stage = f"SELECT {kept}, CASE WHEN abs({value}) < {INF} THEN {value} ELSE {_num(0.0)} END AS c_x"
    text_type = "VARCHAR" if dialect.name == "duckdb" else "STRING"
    ids: list[str] = []  # one row = one person: the identifier's part is folded below
    if pid is not None and id_kind == "number":
        n = f"CAST({pid} AS DOUBLE)"
        stage += (
            f", CASE WHEN abs({n}) < {INF} THEN {n} ELSE {_num(0.0)} END AS c_n, {pid} AS c_raw, "
            f"coalesce({n} = floor({n}) AND abs({n}) < {_num(INT_ID_BOUND)}, false) AS c_int"
        )
        number = _value("c_n")
        ids = [
            f"CASE WHEN c_int THEN {ID_INT} ELSE {ID_NUMBER} END",
            f"CASE WHEN c_int THEN CAST(c_raw AS BIGINT) ELSE {number[0]} END",
            *(f"CASE WHEN c_int THEN 0 ELSE {c} END" for c in number[1:]),
        ]
    elif pid is not None:
        t = pid if id_kind == "text" else f"CAST({pid} AS {text_type})"
        stage += f", {t} AS c_t, TRY_CAST({t} AS BIGINT) AS c_ti"
        whole = f"coalesce(CAST(c_ti AS {text_type}) = c_t, false)"
        stage = (
            f"SELECT {kept}, c_x, c_t, c_ti, {whole} AS c_int, "
            f"CASE WHEN {whole} THEN NULL ELSE md5(c_t) END AS c_md5 FROM ({stage} FROM ({source}) s0) s1"
        )
        source, stage = stage, f"SELECT {kept}, c_x, c_int, c_ti, c_md5"
        ids = [f"CASE WHEN c_int THEN {ID_INT} ELSE {ID_TEXT} END"]
        ids += [
            f"CASE WHEN c_int THEN {'c_ti' if i == 0 else '0'} "
            f"ELSE {_hex(dialect, f'substr(c_md5, {start}, {length})')} END"
            for i, (start, length) in enumerate(MD5_PIECES)
        ]
    components = [*ids, *_value("c_x")]
    names = [f"c{j}" for j in range(len(components))]
    listed = ", ".join(
        f"CAST({c} AS BIGINT) AS {n}" for c, n in zip(components, names, strict=True)
    )
    inner = f"SELECT {kept}, {listed} FROM ({stage} FROM ({source}) s2) s3"
    folded = lanes([ID_NONE, 0, 0, 0, 0], square=False) if pid is None else None
    horner = []
    for j, (p, k) in enumerate(zip(PRIMES, MULTIPLIERS, strict=True)):
        # h·K + c < 2⁶³ for 0 ≤ c < 2⁵³: only an integer identifier (c1) is reduced first
        if folded is None:
            h, rest = f"({names[0]} % {p})", names[1:]
        else:
            h, rest = f"CAST({int(folded[j])} AS BIGINT)", names
        for n in rest:
            term = f"((({n} % {p}) + {p}) % {p})" if n == "c1" and folded is None else n
            h = f"(({h} * {k} + {term}) % {p})"
        horner.append(h)
    lanes_sql = ", ".join(f"{h} AS {lane}" for h, lane in zip(horner, LANES, strict=True))
    squared = ", ".join(f"({lane} * {lane}) % {p} AS {lane}" for lane, p in zip(LANES, PRIMES, strict=True))
    return f"SELECT {kept}, {squared} FROM (SELECT {kept}, {lanes_sql} FROM ({inner}) s4) s5"


def lane_sums(kept: str | None = None) -> str:
    """SQL of the lanes' sums over the rows of :func:`hashed`; with ``kept`` (a condition), the
    number of kept rows and their lanes' sums."""
    if kept is None:
        return ", ".join(f"sum({lane})" for lane in LANES)
    return f"sum(CASE WHEN {kept} THEN 1 ELSE 0 END), " + ", ".join(
        f"sum(CASE WHEN {kept} THEN {lane} ELSE 0 END)" for lane in LANES
    )
