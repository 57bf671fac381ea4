"""Spark backend (PySpark): the summary by Spark SQL aggregations on a path or a table.

Runs on a session passed in (``spark=``), or one started on ``master`` (``local[*]`` by
default, any master URL). The cleaning, bins, exact sums (64-bit limb sums) and top-k are the SQL of
:mod:`dpsum_core.data.backends.sql`; no ``collect()`` of records and no Python UDF: only grouped
aggregates (one row per interval) and the top-k values reach the driver, as plain rows.

Privacy
-------
The summary returned is private data; nothing is released.
"""


from __future__ import annotations

import itertools
import os
import warnings
from contextlib import contextmanager
from pathlib import Path

from dpsum_core.data.backends.dialect import SPARK
from dpsum_core.data.backends.duckdb import is_parquet, resolve_files, text_delimiter_checked
from dpsum_core.data.backends.sql import SQLBackend
from dpsum_core.errors import DataError, ParameterError

_views = itertools.count()


@contextmanager
def quiet_pyspark():
    """PySpark 4.3 warns on import that it does not fully support pandas ≥ 3; the summary never
    goes through pandas (plain rows), so the warning is kept out of users' output."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support pandas")
        yield


def require_pyspark() -> None:
    """Raise ParameterError, saying how to add it, when PySpark is not installed (it is the
    optional extra ``dpsum[spark]``; the other engines do not need it)."""
    try:
        with quiet_pyspark():
            import pyspark  # noqa: F401
    except ImportError:
        raise ParameterError(
            "the spark engine needs PySpark (and Java): install dpsum[spark], e.g. "
            "pip install 'dpsum[spark]', or use --engine duckdb"
        ) from None


def session(master: str | None = None):
    """A SparkSession on ``master`` (default ``local[*]``), logging errors only."""
    with quiet_pyspark():
        from pyspark.sql import SparkSession

        spark = (
            SparkSession.builder.master(master or "local[*]")
            .appName("dpsum")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            # Summaries group into ≈ n + 20 intervals: a few partitions are plenty.
            .config("spark.sql.shuffle.partitions", str(os.cpu_count() or 2))
            .getOrCreate()
        )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class SparkBackend(SQLBackend):
    """Summary passes run as Spark SQL on a temporary view of the source.

    Parameters
    ----------
    source
        A file, a folder of Parquet/CSV files or a glob (ignored when ``table`` is given).
    table
        A table name in the session's catalog.
    spark, master
        An existing session, or the master URL of a new one.
    id_column
        Privacy identifier: rows with the same value are one person (a GROUP BY in the SQL).
    """

    engine = "spark"
    dialect = SPARK

    def __init__(
        self,
        source: str | os.PathLike | None,
        *,
        upper: float,
        column: str | None = None,
        name: str | None = None,
        spark=None,
        master: str | None = None,
        table: str | None = None,
        id_column: str | None = None,
    ):
        require_pyspark()
        # The files are checked before a session starts (a typo costs no JVM start-up).
        files: list[str] = []
        if not table:
            if source is None:
                raise DataError("give a path (--data) or a table name (--table) for Spark")
            files = [str(f) for f in resolve_files(source)]
            if not is_parquet([Path(f) for f in files]):
                delim = text_delimiter_checked([Path(f) for f in files])
        self.spark = spark or session(master)
        with quiet_pyspark():
            from py4j.protocol import Py4JJavaError
            from pyspark.errors import PySparkException

        # Reading errors surface as either, often only when a query runs (lazy reads).
        self._spark_error = (PySparkException, Py4JJavaError)
        self.view = f"dpsum_records_{next(_views)}"
        csv = False
        if table:
            frame = self._guard(lambda: self.spark.table(table))
            label = name or table
        else:
            label = name or (os.path.basename(files[0]) if len(files) == 1 else str(source))
            if is_parquet([Path(f) for f in files]):
                frame = self._guard(lambda: self.spark.read.parquet(*files))
            else:
                csv = True
                frame = self._guard(
                    lambda: self.spark.read.csv(
                        files, header=True, sep=delim, quote='"', escape='"', mode="FAILFAST"
                    )
                )
        frame.createOrReplaceTempView(self.view)
        super().__init__(upper=upper, column=column, id_column=id_column, name=label, csv=csv,
                         decimal_comma=csv and delim == ";")  # fmt: skip

    def _guard(self, fn):
        try:
            return fn()
        except self._spark_error as exc:
            text = str(getattr(exc, "java_exception", None) or exc)
            first = text.splitlines()[0] if text.strip() else type(exc).__name__
            raise DataError(f"Spark could not read the data ({first[:200]})") from None

    def relation(self) -> str:
        return self.view

    def keep(self, sql: str) -> str:
        """The people's totals as a cached temporary view (one double per person, kept by the
        executors, never collected): grouped once, not once per pass."""
        name = f"{self.view}_people"
        self._guard(lambda: self.spark.sql(sql).cache().createOrReplaceTempView(name))
        return name

    def columns(self) -> dict[str, str]:
        from pyspark.sql import types as T

        out = {}
        for f in self.spark.table(self.view).schema.fields:
            if isinstance(f.dataType, T.StringType):
                out[f.name] = "text"
            elif isinstance(f.dataType, T.NumericType):
                out[f.name] = "number"
            else:
                out[f.name] = "other"
        return out

    def query(self, sql: str) -> list[tuple]:
        rows = self._guard(lambda: self.spark.sql(sql).collect())  # aggregates only
        return [tuple(r) for r in rows]
