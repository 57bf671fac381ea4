"""Server-side datasets: files or folders under the data directory the server's operator chose.

Only ``DPSUM_DATA_DIR`` (environment) or ``dpsum_data_dir`` (Streamlit secrets) enables the
option; nothing outside that directory is ever listed or read. :func:`resolve` is pure and
refuses ``..``, absolute paths and symlinks that lead outside.
"""

from __future__ import annotations

import os
from pathlib import Path

from dpsum_core.data.backends.duckdb import DATA_SUFFIXES, hidden, resolve_files
from dpsum_core.errors import DataError


def data_dir() -> Path | None:
    """The configured data directory, or None (then the option does not appear)."""
    configured = os.environ.get("DPSUM_DATA_DIR")
    if not configured:
        try:
            import streamlit as st

            configured = st.secrets.get("dpsum_data_dir")
        except Exception:  # no secrets file: not configured
            configured = None
    if not configured:
        return None
    root = Path(configured).resolve()
    return root if root.is_dir() else None


def resolve(root: Path, name: str) -> Path:
    """The real path of ``name`` inside ``root``.

    Raises
    ------
    DataError
        For an absolute path, a ``..`` component, a path (or symlink target) outside ``root``,
        or a path that does not exist.
    """
    root = Path(root).resolve()
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise DataError(
            f"{name!r} holds a control character (e.g. a NUL byte), which no file name in the "
            "data directory has: choose a dataset from the list, or type its name again"
        )
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts or not name.strip():
        raise DataError(f"{name!r}: choose a dataset inside the data directory")
    target = (root / rel).resolve()
    if target != root and root not in target.parents:
        raise DataError(f"{name!r} leads outside the data directory: refused")
    if not target.exists():
        raise DataError(f"{name!r} does not exist in the data directory")
    if target != root and (hidden(rel, Path()) or hidden(target, root)):
        raise DataError(
            f"{name!r} is hidden (a name starting with '.' or '_'), which a folder's scan "
            "skips too: choose a data file or folder"
        )
    if target.is_file() and target.suffix.lower() not in DATA_SUFFIXES:
        raise DataError(
            f"{name!r} is not a data file (Parquet, CSV or TSV by its name, as a folder's scan "
            "reads): choose a data file or folder"
        )
    return target


def list_datasets(root: Path) -> list[str]:
    """Data files and folders directly under ``root`` (relative names; links leading outside
    are not listed)."""
    out = []
    for entry in sorted(Path(root).iterdir()):
        try:
            resolve(root, entry.name)
        except DataError:
            continue
        out.append(entry.name)
    return out


def dataset_files(root: Path, name: str) -> list[Path]:
    """The real paths of the files read for ``name`` (a file, or a folder of Parquet/CSV
    files, sub-folders included), each checked with :func:`resolve`: one link in a folder that
    leads outside ``root`` refuses the whole dataset.

    This list, not the folder, is what the engine reads: call it again just before reading
    (a file or link added after an earlier check is then checked too, or not read)."""
    target = resolve(root, name)
    if not target.is_dir():
        return [target]
    return [resolve(root, str(Path(name) / f.relative_to(target))) for f in resolve_files(target)]
