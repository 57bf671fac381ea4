"""Golden outputs (issue 15): today's CLI and dashboard outputs, compared bit for bit.

Recorded before the engine's modules move into sub-packages, so that the move is shown to
change nothing. The cases (tests/golden/cases.py) reach the code only through
``python -m dpsum_core`` and ``AppTest.from_file(app.py)`` opened with shared links, never by
importing an engine module, so this file keeps working after the move.

Comparison is exact: string equality of each CSV/JSON/text file (numbers are written as
``repr``, so equal text means equal floats). The fields left out because they vary from run
to run (timings, versions, dates, temporary paths, unseeded release noise) are listed in the
docstring of tests/golden/cases.py. With other versions of the numeric libraries than those of
tests/golden/ENVIRONMENT.json the cases are skipped (and say why). To re-record (only for a reviewed, intended change of
behaviour): ``python -m tests.golden.record``.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version

import pytest

from tests.golden.cases import APP_CASES, CLI_CASES, GOLDEN, run_app, run_cli

RECORD = "python -m tests.golden.record (only for an intended, reviewed change of behaviour)"


def _other_libraries() -> list[str]:
    """Libraries whose version differs from the recording's: their numerics (vectorised maths,
    formatting) may differ in the last bit, which says nothing about dpsum's own code."""
    recorded = json.loads((GOLDEN.parent / "ENVIRONMENT.json").read_text())["versions"]
    return [f"{name} {v} (recorded with {recorded[name]})" for name in recorded
            if (v := version(name)) != recorded[name]]


# Reported as skipped, never as passed: re-record in this environment after a reviewed upgrade.
pytestmark = pytest.mark.skipif(
    bool(_other_libraries()), reason=f"goldens recorded with other libraries: {_other_libraries()}"
)


@pytest.fixture(scope="module")
def cli_outputs() -> dict[str, str]:
    """All CLI cases, two subprocesses at a time (they are independent)."""
    files: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for result in pool.map(run_cli, CLI_CASES):
            files.update(result)
    return files


def _compare(produced: dict[str, str], recorded_files: list[str]) -> None:
    assert recorded_files, f"no golden files: record them with {RECORD}"
    assert sorted(produced) == sorted(recorded_files), "the set of output files changed"
    for rel, text in sorted(produced.items()):
        expected = (GOLDEN / rel).read_text(encoding="utf-8")
        assert text == expected, (
            f"{rel} differs from the golden file (exact comparison); if the change of "
            f"behaviour is intended and reviewed, re-record with {RECORD}"
        )


@pytest.mark.parametrize("case", CLI_CASES, ids=lambda c: c.name)
def test_cli_output_is_unchanged(case, cli_outputs: dict[str, str]) -> None:
    prefix = f"cli/{case.name}/"
    recorded = [
        p.relative_to(GOLDEN).as_posix() for p in (GOLDEN / prefix).rglob("*") if p.is_file()
    ]
    _compare({k: v for k, v in cli_outputs.items() if k.startswith(prefix)}, recorded)


@pytest.mark.parametrize("case", APP_CASES, ids=lambda c: c.name)
def test_shared_link_shows_the_same_results(case) -> None:
    rel = f"app/{case.name}.json"
    _compare(run_app(case), [rel] if (GOLDEN / rel).is_file() else [])
