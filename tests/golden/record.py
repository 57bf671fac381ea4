"""Re-record the golden outputs: ``python -m tests.golden.record`` (from the repository root).

Re-recording is allowed ONLY when a change of behaviour is intended and has been reviewed:
the goldens exist to prove that a refactoring (issue 15: moving the engine's modules into
sub-packages) leaves every output unchanged (tests/golden/compare.py: exactly, numbers within
a tolerance for other CPUs' kernels). If tests/core/test_golden.py fails
after a change that was meant to be behaviour-neutral, the change is wrong, not the goldens.
When a behaviour change is intended, re-record in its own commit, and let the reviewer read
``git diff tests/golden/outputs`` (plain CSV/JSON/text) and say why each difference is right.

The files are specific to the library versions they were recorded with; ENVIRONMENT.json
says which (the golden tests skip, and say why, under other versions).
"""

from __future__ import annotations

import json
import platform
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata

from .cases import APP_CASES, CLI_CASES, GOLDEN, run_app, run_cli


def produce_all() -> dict[str, str]:
    """Every case's outputs, {path relative to outputs/: text}."""
    files: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:  # subprocesses: the CLI cases overlap
        for result in pool.map(run_cli, CLI_CASES):
            files.update(result)
    for case in APP_CASES:  # AppTest runs in this process, one case after the other
        files.update(run_app(case))
    return files


def _environment() -> dict:
    versions: dict[str, str | None] = {}
    for name in ("numpy", "scipy", "pandas", "pyarrow", "plotly", "streamlit", "duckdb", "opendp"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "note": "where the goldens were recorded: with other library versions tests/core/test_golden.py skips (and says why)",
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "versions": versions,
    }


def main() -> None:
    files = produce_all()
    if GOLDEN.exists():
        shutil.rmtree(GOLDEN)
    for rel, text in sorted(files.items()):
        path = GOLDEN / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    (GOLDEN.parent / "ENVIRONMENT.json").write_text(
        json.dumps(_environment(), indent=2) + "\n", encoding="utf-8"
    )
    total = sum(len(t.encode()) for t in files.values())
    print(f"wrote {len(files)} files ({total / 1024:.0f} KiB) under {GOLDEN}")


if __name__ == "__main__":
    main()
