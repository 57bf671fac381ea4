"""Golden outputs (issue 15, made portable in issue 23 §0): today's CLI and dashboard outputs.

Recorded before the engine's modules move into sub-packages, so that refactorings are shown to
change nothing. The cases (tests/golden/cases.py) reach the code only through
``python -m dpsum_core`` and ``AppTest.from_file(app.py)`` opened with shared links, never by
importing an engine module.

Two checks, for two promises:

- **The same results on any machine** (``test_cli_output_is_unchanged``,
  ``test_shared_link_shows_the_same_results``): names, columns, text, order and counts exactly,
  numbers within the tolerance of tests/golden/compare.py (another CPU's OpenBLAS kernel or
  numpy SIMD path changes the last bits; .ci/run runs these tests a second time with another
  kernel forced: ``OPENBLAS_CORETYPE=Prescott`` and numpy's AVX2/AVX-512 paths disabled).
- **Bit for bit on one machine** (``test_same_machine_same_seed_is_bit_identical``): the same
  seed and streams give byte-identical files, as the README promises.

The fields left out because they vary from run to run (timings, versions, dates, temporary
paths, unseeded release noise) are listed in the docstring of tests/golden/cases.py. With other
versions of the numeric libraries than those of tests/golden/ENVIRONMENT.json the cases are
skipped (and say why). To re-record (only for a reviewed, intended change of behaviour):
``python -m tests.golden.record``.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version

import pytest

from tests.golden.cases import APP_CASES, CLI_CASES, GOLDEN, run_app, run_cli
from tests.golden.compare import differences

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
        found = differences(rel, text, (GOLDEN / rel).read_text(encoding="utf-8"))
        assert not found, (
            f"{rel} differs from the golden file beyond the tolerance of "
            f"tests/golden/compare.py: {found}; if the change of behaviour is intended and "
            f"reviewed, re-record with {RECORD}"
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


def test_same_machine_same_seed_is_bit_identical(cli_outputs: dict[str, str]) -> None:
    """The promise the tolerance does not cover: on one machine the same seed and streams give
    byte-identical files (the case with every algorithm × truncation, run again)."""
    case = next(c for c in CLI_CASES if c.name == "run_q1_all")
    again = run_cli(case)
    assert again and again == {k: v for k, v in cli_outputs.items() if k in again}
