"""Find the files of a release in a folder (each release names its own files)."""

from __future__ import annotations

from pathlib import Path


def release_file(out: str | Path, ending: str) -> Path:
    """The one file of ``out`` whose name ends with ``_<ending>`` (``answers.csv``,
    ``release.json``, ``report.html``, ``report.md``); AssertionError unless exactly one."""
    found = sorted(Path(out).glob(f"*_{ending}"))
    assert len(found) == 1, (ending, found)
    return found[0]


def release_endings(out: str | Path) -> list[str]:
    """The files of ``out``, each name without its release stem (``answers.csv``, …), sorted;
    every file must belong to one release (one stem)."""
    names = sorted(p.name for p in Path(out).iterdir())
    stems = {n.rsplit("_", 1)[0].removesuffix("_report") for n in names}
    assert len(stems) <= 1, names
    return sorted(n[len(next(iter(stems))) + 1 :] for n in names)
