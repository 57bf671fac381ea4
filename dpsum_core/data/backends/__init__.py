"""Backends that compute a :class:`~dpsum_core.data.summary.DataSummary`: memory, DuckDB, Spark.

One entry point, :func:`summarize`; :func:`open_backend` keeps the backend for second passes
(``backend.extend(summary, missing)``, used by :func:`dpsum_core.data.summary.complete`).

Privacy
-------
Backends read private records and return private summaries; they release nothing.
"""


from __future__ import annotations

import os
from typing import Protocol

from dpsum_core.data.summary import CutPoints, DataSummary, MissingStatistics
from dpsum_core.errors import ParameterError

ENGINES: tuple[str, ...] = ("memory", "duckdb", "spark")


class Backend(Protocol):
    """What every backend offers."""

    engine: str

    def summarize(self, cuts: CutPoints, *, content: bool = False) -> DataSummary: ...

    def extend(self, summary: DataSummary, missing: MissingStatistics) -> DataSummary: ...


def open_backend(
    source: str | os.PathLike,
    *,
    upper: float,
    column: str | None = None,
    engine: str = "memory",
    spark=None,
    spark_master: str | None = None,
    table: str | None = None,
    id_column: str | None = None,
) -> Backend:
    """Open ``source`` (a file, a folder, a glob, ``"sample:NAME"`` for a shipped sample; or
    ``table`` on Spark) with ``engine``.

    ``id_column``: the privacy identifier (rows with the same value are one person, summed
    before clipping to [0, U]); None: one row is one person.

    Privacy
    -------
    The summaries are private; the guarantee of what is released from them is per person
    (per identifier) with ``id_column``, else per row.
    """
    if isinstance(source, str):
        from dpsum_core.data.samples import resolve

        source = resolve(source)
    if engine == "memory":
        from dpsum_core.data.backends.memory import MemoryBackend

        return MemoryBackend(source, upper=upper, column=column, id_column=id_column)
    if engine == "duckdb":
        from dpsum_core.data.backends.duckdb import DuckDBBackend

        return DuckDBBackend(source, upper=upper, column=column, id_column=id_column)
    if engine == "spark":
        from dpsum_core.data.backends.spark import SparkBackend

        return SparkBackend(
            source,
            upper=upper,
            column=column,
            spark=spark,
            master=spark_master,
            table=table,
            id_column=id_column,
        )
    raise ParameterError(f"unknown engine {engine!r}: choose from {', '.join(ENGINES)}")


def summarize(
    source: str | os.PathLike,
    *,
    upper: float,
    cut_points: CutPoints,
    column: str | None = None,
    engine: str = "memory",
    spark=None,
    spark_master: str | None = None,
    table: str | None = None,
    id_column: str | None = None,
) -> DataSummary:
    """The summary of one cleaned column of ``source`` at ``cut_points`` (see
    :mod:`dpsum_core.data.summary`), one value per person of ``id_column`` if given.

    Privacy
    -------
    See :func:`open_backend`.
    """
    backend = open_backend(
        source,
        upper=upper,
        column=column,
        engine=engine,
        spark=spark,
        spark_master=spark_master,
        table=table,
        id_column=id_column,
    )
    return backend.summarize(cut_points)
