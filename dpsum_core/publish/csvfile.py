"""The CSV files people read (run's answers and summary, the Explorer's summary download): one
writer, so the CLI and the app write the same bytes for the same run."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as CSV: floats rounded to the release's
    :data:`~dpsum_core.publish.release.PUBLISHED_DIGITS` significant digits (no float dust such
    as ``207359.99999999994``; run.json keeps the configuration repr-exact), quoted only where
    needed, with Arrow's writer (≈20× faster than pandas for answers.csv)."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    from dpsum_core.publish.digits import published_frame

    sink = pa.BufferOutputStream()
    table = pa.Table.from_pandas(published_frame(frame), preserve_index=False)
    pa_csv.write_csv(table, sink, write_options=pa_csv.WriteOptions(quoting_style="needed"))
    return sink.getvalue().to_pybytes()
