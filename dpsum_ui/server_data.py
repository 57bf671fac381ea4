"""Server-side datasets: files or folders under the data directory the server's operator chose.

Only ``DPSUM_DATA_DIR`` (environment) or ``dpsum_data_dir`` (Streamlit secrets) enables the
option; nothing outside that directory is ever listed or read. :func:`resolve` is pure and
refuses ``..``, absolute paths, symlinks that lead outside, symlink loops and anything that is
not a regular file or a folder (a FIFO named ``x.csv`` would block its reader forever).

The listing and a folder's file list are kept per process, keyed on the modification times of
the directories they depend on (a file added, removed, renamed or replaced by a link changes its
directory's), so a rerun does not resolve thousands of files again; a folder holds at most
``limits.MAX_DATASET_FILES`` files and the listing shows at most ``limits.MAX_LISTED_DATASETS``
entries.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from dpsum_core import limits
from dpsum_core.data.backends.duckdb import DATA_SUFFIXES, hidden, resolve_files
from dpsum_core.data.summary import DataSummary, MissingStatistics
from dpsum_core.errors import DataError

# A directory modified this recently may change again within its file system's timestamp
# resolution: what depends on it is not kept (as git does with "racily clean" entries).
_RACY_NS = 2_000_000_000
_KEPT = 64  # folders' file lists kept (least recently used out)


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
    try:
        root = Path(configured).resolve()
        return root if root.is_dir() else None
    except (OSError, RuntimeError):  # a link loop, a permission: no usable directory
        return None


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
    try:
        target = (root / rel).resolve()
        inside = target == root or root in target.parents
        kind = "folder" if target.is_dir() else "file" if target.is_file() else None
        exists = target.exists()
    except (OSError, RuntimeError) as exc:  # a symlink loop, a permission, a name too long
        raise DataError(f"{name!r} cannot be opened ({_why(exc)}): refused") from None
    if not inside:
        raise DataError(f"{name!r} leads outside the data directory: refused")
    if not exists:
        raise DataError(f"{name!r} does not exist in the data directory")
    if kind is None:
        raise DataError(
            f"{name!r} is not a regular file or a folder (a FIFO, socket or device): refused"
        )
    if target != root and (hidden(rel, Path()) or hidden(target, root)):
        raise DataError(
            f"{name!r} is hidden (a name starting with '.' or '_'), which a folder's scan "
            "skips too: choose a data file or folder"
        )
    if kind == "file" and target.suffix.lower() not in DATA_SUFFIXES:
        raise DataError(
            f"{name!r} is not a data file (Parquet, CSV or TSV by its name, as a folder's scan "
            "reads): choose a data file or folder"
        )
    return target


def _why(exc: BaseException) -> str:
    if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
        return "a symbolic link loop"
    return str(getattr(exc, "strerror", None) or type(exc).__name__).lower()


@dataclass(frozen=True)
class Listing:
    """What the data directory offers: ``names`` (at most ``limits.MAX_LISTED_DATASETS``),
    the entries ``skipped`` with why (plain words, for a notice), and how many ``more``
    entries were not looked at."""

    names: tuple[str, ...]
    skipped: tuple[str, ...] = ()
    more: int = 0


def listing(root: Path) -> Listing:
    """Data files and folders directly under ``root`` (links leading outside, loops, FIFOs,
    hidden and non-data files are skipped with their reason), kept until ``root`` changes.

    A listed entry is only a choice: reading it checks it again (:func:`dataset_files`)."""
    root = Path(root)
    return _remember(("list", str(root)), lambda: _list(root))


def _list(root: Path) -> tuple[Listing, tuple[Path, ...]]:
    names: list[str] = []
    skipped: list[str] = []
    try:
        entries = sorted(os.listdir(root))
    except OSError as exc:
        raise DataError(f"the data directory cannot be read ({_why(exc)})") from None
    more = 0
    for i, name in enumerate(entries):
        if len(names) >= limits.MAX_LISTED_DATASETS:
            more = len(entries) - i
            break
        try:
            resolve(root, name)
        except DataError as exc:
            if not name.startswith((".", "_")):  # hidden names are skipped silently
                skipped.append(str(exc))
            continue
        names.append(name)
    return Listing(tuple(names), tuple(skipped), more), (root,)


def list_datasets(root: Path) -> list[str]:
    """The names :func:`listing` offers."""
    return list(listing(root).names)


def dataset_files(root: Path, name: str) -> list[Path]:
    """The real paths of the files read for ``name`` (a file, or a folder of at most
    ``limits.MAX_DATASET_FILES`` Parquet/CSV files, sub-folders included), each checked with
    :func:`resolve`: one link in a folder that leads outside ``root`` refuses the whole dataset.

    This list, not the folder, is what the engine reads: call it again just before reading
    and before each second pass (a file or link added or swapped after an earlier check is then
    checked too, or not read). A folder's list is kept until one of the directories it was
    read from changes (their modification times), so a rerun does not resolve every file
    again."""
    target = resolve(root, name)
    if not target.is_dir():
        return [target]
    return list(_remember(("files", str(root), name), lambda: _folder(Path(root), name, target)))


def _folder(root: Path, name: str, target: Path) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    try:
        found = resolve_files(target)
    except (OSError, RuntimeError) as exc:
        raise DataError(f"{name!r} cannot be read ({_why(exc)}): refused") from None
    if len(found) > limits.MAX_DATASET_FILES:
        raise DataError(
            f"{name!r} holds {len(found):,} data files, more than the "
            f"{limits.MAX_DATASET_FILES:,} one dataset may have: merge them into fewer files "
            "(e.g. one Parquet file per partition)"
        )
    files = tuple(resolve(root, str(Path(name) / f.relative_to(target))) for f in found)
    # Every directory the answer depends on: those walked, and those of each file's real path.
    dirs = {root / name, *(f.parent for f in found), *(f.parent for f in files)}
    for path in list(dirs):
        dirs.update(p for p in path.parents if root in p.parents or p == root)
    return files, tuple(sorted(dirs))


def files_signature(root: Path | None, name: str | None) -> tuple[Path, tuple]:
    """(root, signature): the data directory and the checked files' (path, mtime, size), so
    that a changed file is summarised again."""
    if root is None:
        raise DataError("no server data directory is configured (DPSUM_DATA_DIR)")
    if not name:
        raise DataError("the data directory holds no Parquet/CSV file or folder")
    files = dataset_files(root, name)
    try:
        stats = [(f, f.stat()) for f in files]
    except OSError as exc:
        raise DataError(f"{name!r} cannot be read ({exc.strerror or exc}): refused") from None
    signature = tuple((str(f), info.st_mtime_ns, info.st_size) for f, info in stats)
    return root, signature


class ServerEntry:
    """One summarised server dataset of this session: the first summary (``summary``, whose
    fingerprint keys results), its latest extension by second passes, the backend, and the
    files' signature (:func:`files_signature`) that the summary was computed from."""

    def __init__(self, backend, summary: DataSummary, server: tuple[Path, tuple], name: str):
        self.backend = backend
        self.summary = summary
        self.latest = summary
        self._server = server
        self._name = name

    def extend(self, summary: DataSummary, missing: MissingStatistics) -> DataSummary:
        """The backend's second pass, after checking the files again with the server data
        rules: a file swapped for a link (leading outside, or anywhere) or changed since the
        summary is refused, never read."""
        root, signature = self._server
        if files_signature(root, self._name)[1] != signature:
            raise DataError(
                f"the server dataset {self._name!r} changed since it was summarised (a file "
                "was replaced, added or modified): choose it again to read it anew"
            )
        return self.backend.extend(summary, missing)


_MEMORY: OrderedDict[tuple, tuple[tuple[tuple[str, int], ...], object]] = OrderedDict()
_LOCK = threading.Lock()


def _remember(key: tuple, build):
    """``build()``'s answer (or its DataError) under ``key``, kept while the directories it
    names keep their modification times; not kept when one of them changed within the last
    2 s (a change within its timestamp's resolution would go unseen)."""
    with _LOCK:
        kept = _MEMORY.get(key)
        if kept is not None:
            _MEMORY.move_to_end(key)
    if kept is not None and kept[0] == _stamps(p for p, _ in kept[0]):
        answer = kept[1]
    else:
        try:
            answer, dirs = build()
        except DataError as exc:
            answer, dirs = exc, _error_dirs(key)
        stamps = _stamps(str(d) for d in dirs)
        if stamps is not None and all(time.time_ns() - ns > _RACY_NS for _, ns in stamps):
            with _LOCK:
                _MEMORY[key] = (stamps, answer)
                while len(_MEMORY) > _KEPT:
                    _MEMORY.popitem(last=False)
    if isinstance(answer, DataError):
        raise DataError(str(answer))
    return answer


def _error_dirs(key: tuple) -> tuple[Path, ...]:
    """A refusal depends on the folder it read (the listing's on the data directory)."""
    root = Path(key[1])
    return (root,) if key[0] == "list" else (root, root / key[2])


def _stamps(paths) -> tuple[tuple[str, int], ...] | None:
    """(path, mtime in ns) of each directory, or None when one cannot be read."""
    try:
        return tuple((str(p), os.stat(p).st_mtime_ns) for p in paths)
    except OSError:
        return None
