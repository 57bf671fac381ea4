"""Reading Parquet within bounds: columns and numeric candidates from the schema, statistics
and first rows; only the chosen columns decoded, after their decoded size is checked from the
metadata.

Deterministic and public-rule based: reading costs no privacy budget.
"""

from __future__ import annotations

import io

import pandas as pd

from dpsum_core.data.bounds import (
    SAMPLE_CELLS,
    base_name,
    check_decoded,
    check_present,
    check_shape,
)
from dpsum_core.data.bytebudget import ByteBudget
from dpsum_core.data.cleaning import numeric_counts, rank_columns
from dpsum_core.errors import DataError

SAMPLE_PAGE_BYTES = 64 * 2**20
"""Text columns are sampled while their first row groups decode to at most this together."""


def _parquet_file(raw: bytes, name: str, read_dictionary: list[str] | None = None):
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(io.BytesIO(raw), read_dictionary=read_dictionary)
    except Exception as exc:  # pyarrow raises many types; all mean "unreadable"
        raise DataError(
            f"{name} could not be read as Parquet ({type(exc).__name__}): "
            "check the file or export it as CSV."
        ) from None


def _is_text(arrow_type) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type))


def _is_number(arrow_type) -> bool:
    """Integers, floats and decimals (booleans are not numbers to the cleaning)."""
    import pyarrow as pa

    return bool(
        pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type)
        or pa.types.is_decimal(arrow_type)
    )  # fmt: skip


def _leaves(meta, names: list[str]) -> dict[str, list[int]]:
    """The metadata's leaf columns of each top-level column."""
    leaves: dict[str, list[int]] = {n: [] for n in names}
    for i in range(meta.num_columns):
        top = meta.schema.column(i).path.split(".")[0]
        if top in leaves:
            leaves[top].append(i)
    return leaves


def parquet_head(raw: bytes, label: str) -> tuple[list[str], list[str]]:
    """(every column, the numeric candidates) of a Parquet file from its schema, its
    statistics (nulls of numeric columns) and the first rows of its text columns (those, in
    order, whose first row groups decode to at most :data:`SAMPLE_PAGE_BYTES` together; a text
    column beyond them is not offered)."""
    name = base_name(label)
    pf = _parquet_file(raw, name)
    meta, schema = pf.metadata, pf.schema_arrow
    names = [str(n) for n in schema.names]
    check_shape(meta.num_rows, len(names), name)
    leaves = _leaves(meta, names)
    groups = range(meta.num_row_groups)
    counts = dict.fromkeys(names, 0)
    for f in schema:
        if _is_number(f.type) and len(leaves[f.name]) == 1:
            counts[f.name] = meta.num_rows - _nulls(meta, leaves[f.name][0], groups)
    text, pages = [], 0
    for f in schema:  # text columns, while their first row groups decode to SAMPLE_PAGE_BYTES
        if _is_text(f.type) and len(leaves[f.name]) == 1 and meta.num_row_groups:
            pages += meta.row_group(0).column(leaves[f.name][0]).total_uncompressed_size
            if pages > SAMPLE_PAGE_BYTES:
                break
            text.append(f.name)
    if text:
        rows = min(1000, max(20, SAMPLE_CELLS // len(text)))
        try:
            batch = next(_parquet_file(raw, name, text).iter_batches(batch_size=rows, columns=text))
            sample = batch.to_pandas()
        except StopIteration:
            sample = None
        except Exception as exc:  # pyarrow raises many types; all mean "unreadable"
            raise DataError(
                f"{name} could not be read as Parquet ({type(exc).__name__}): "
                "check the file or export it as CSV."
            ) from None
        if sample is not None and len(sample):
            for column, found in zip(text, numeric_counts(sample), strict=True):
                counts[column] = round(found / len(sample) * meta.num_rows)
    return names, rank_columns(names, [counts[n] for n in names])


def _nulls(meta, leaf: int, groups: range) -> int:
    """Nulls of one leaf column by its statistics (0 where a row group has none; at most
    10⁵ row groups are looked at)."""
    nulls = 0
    for g in groups[:100_000]:
        stats = meta.row_group(g).column(leaf).statistics
        if stats is not None and stats.has_null_count:
            nulls += stats.null_count
    return int(nulls)


def read_parquet(
    raw: bytes, label: str, columns: list[str] | None, budget: ByteBudget | None = None
) -> pd.DataFrame:
    """Decode a Parquet file after checking its metadata: rows, columns and decoded size are
    refused (DataError naming the limit) before any page is decoded; only ``columns`` (all by
    default) are decoded, text columns as dictionaries (pandas Categoricals: each distinct
    string once). The decoded size is, per column, Arrow's buffers (its fixed width per row,
    or its pages' uncompressed bytes) and 8 bytes per row of the DataFrame."""
    import pyarrow as pa

    name = base_name(label)
    pf = _parquet_file(raw, name)
    meta, schema = pf.metadata, pf.schema_arrow
    names = [str(n) for n in schema.names]
    if columns is not None:
        check_present(columns, names, name)
    wanted = names if columns is None else [c for c in names if c in columns]
    check_shape(meta.num_rows, len(wanted), name)
    leaves = _leaves(meta, wanted)
    rows = meta.num_rows
    decoded = 0
    for f in schema:
        if f.name not in leaves:
            continue
        pages = sum(
            meta.row_group(g).column(i).total_uncompressed_size
            for g in range(meta.num_row_groups)
            for i in leaves[f.name]
        )
        width = f.type.bit_width // 8 if pa.types.is_primitive(f.type) else 4
        decoded += max(pages, rows * max(width, 1)) + 8 * rows
    check_decoded(decoded, name)
    text = [f.name for f in schema if f.name in wanted and _is_text(f.type)]
    held = None if budget is None else budget.reserve(decoded, name)
    try:
        df = _parquet_file(raw, name, text).read(columns=wanted).to_pandas()
    except DataError:
        if held is not None:
            held.release()
        raise
    except Exception as exc:  # pyarrow raises many types; all mean "unreadable"
        if held is not None:
            held.release()
        raise DataError(
            f"{name} could not be read as Parquet ({type(exc).__name__}): "
            "check the file or export it as CSV."
        ) from None
    if held is not None:
        held.keep(df)
    return df  # text columns are Categorical: see numeric_columns and table_column


def parquet_rows(raw: bytes, label: str, rows: int) -> pd.DataFrame:
    """The first ``rows`` rows of a Parquet file, every column (empty if it has none)."""
    name = base_name(label)
    try:
        batch = next(_parquet_file(raw, name).iter_batches(batch_size=rows), None)
    except Exception as exc:  # pyarrow raises many types; all mean "unreadable"
        raise DataError(
            f"{name} could not be read as Parquet ({type(exc).__name__}): "
            "check the file or export it as CSV."
        ) from None
    return pd.DataFrame() if batch is None else batch.to_pandas()

