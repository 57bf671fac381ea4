"""The sample datasets shipped with dpsum (public, fully synthetic incomes), found wherever dpsum
runs: ``sample_data/`` of the checkout, or the installed dashboard's copy
(``dpsum_dashboard/sample_data``, package data of the wheel). A command or a script names one as
``sample:NAME`` (``sample:incomes.csv``), which reads the same file from any folder.
"""

from __future__ import annotations

from pathlib import Path

from dpsum_core.errors import DataError

PREFIX = "sample:"
NAMES: tuple[str, ...] = ("incomes.csv", "incomes_small.csv")


def sample_dir() -> Path:
    """``sample_data/`` of the checkout, or of the installed dashboard (dpsum_dashboard)."""
    root = Path(__file__).resolve().parents[2]
    checkout = root / "sample_data"
    return checkout if checkout.is_dir() else root / "dpsum_dashboard" / "sample_data"


def sample_path(name: str) -> Path:
    """The file of the sample dataset ``name`` (one of :data:`NAMES`).

    Raises
    ------
    DataError
        ``name`` is not a sample's name (the message lists the samples).
    """
    if name not in NAMES:
        raise DataError(
            f"unknown sample dataset {name!r}: choose one of "
            + ", ".join(PREFIX + n for n in NAMES)
        )
    return sample_dir() / name


def resolve(source: str) -> str:
    """``source`` as a path: ``sample:NAME`` becomes the sample's file, anything else (a file,
    a folder, a glob) is returned as given.

    >>> resolve("data/wages.csv")
    'data/wages.csv'
    >>> Path(resolve("sample:incomes_small.csv")).name
    'incomes_small.csv'
    """
    if source.startswith(PREFIX):
        return str(sample_path(source.removeprefix(PREFIX)))
    return source


def reference(path: str) -> str | None:
    """``sample:NAME`` when ``path`` is a shipped sample's file (a command that names it so
    works from any folder), else ``None``.

    >>> reference(resolve("sample:incomes.csv")), reference("data/wages.csv")
    ('sample:incomes.csv', None)
    """
    given = Path(path).resolve()
    return next((PREFIX + n for n in NAMES if sample_path(n).resolve() == given), None)
