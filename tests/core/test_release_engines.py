"""A release from every engine: the same draws, once each, and the same answers.

Each release counts its noise draws (calls of the noise source, each one OpenDP measurement in a
real release) and checks them against the plan: what the truncation method draws to choose θ
plus what the algorithm draws to measure. Engines working from a summary (DuckDB, Spark) fetch
what the summary lacks in second passes, some of them after θ is drawn (the recursive
mechanism's continuous θ); nothing is drawn again for that. With the same deterministic noise
(the tests' stand-in for OpenDP's), memory, DuckDB and Spark release identical answers and θ.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dpsum_core import limits
from dpsum_core.data.backends import open_backend
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms.registry import ALGORITHMS, get
from dpsum_core.publish import ledger
from dpsum_core.publish.draws import DrawOnce
from dpsum_core.publish.release import _release_with, plan_release, summary_for
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.truncation.params import TruncationParams
from tests.core.release_files import release_endings, release_file

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "sample_data" / "incomes_small.csv"
CONFIG = ExperimentConfig(workload="Q3", epsilon=0.5, truncation_params=TruncationParams(theta=150_000.0))
# Draws of the threshold step (SVT: the noisy threshold and the noisy queries; recursive: the
# noisy crossover; none, fixed, posthoc: none) and of the measurement (one Laplace vector;
# ClampShells three at ε = 0.5: its inside θ stage, the partition (from tree depth 1) and the
# measurement).
THETA_DRAWS = {"none": 0, "fixed": 0, "svt": 2, "recursive": 1, "posthoc": 0, "inside": 0}
MEASURE_DRAWS = {"clampshells": 3}
CASES = [
    (alg, trunc)
    for alg in ALGORITHMS
    for trunc in ([None] if get(alg).runs_once else ["none", "fixed", "svt", "recursive"])
]


class CountingNoise:
    """Deterministic Laplace noise (a fixed seed) that counts its draws: a test stand-in for
    OpenDP's sampler, so that releases from different engines can be compared exactly."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(2024)
        self.draws = 0

    def add_laplace(self, values, scale):
        values = np.asarray(values, float)
        self.draws += 1
        return values + self.rng.laplace(0.0, 1.0, values.shape) * np.asarray(scale, float)


def _release(data, plan, extend=None):
    noise = CountingNoise()
    return _release_with(data, plan, noise, extend), noise.draws


def _engines(spark_session=None):
    yield "duckdb", open_backend(SMALL, upper=CONFIG.upper, engine="duckdb")
    if spark_session is not None:
        yield "spark", open_backend(SMALL, upper=CONFIG.upper, engine="spark", spark=spark_session)


def _check_all_cases(backends):
    memory = load_column(SMALL, upper=CONFIG.upper)
    passes = 0
    for engine, backend in backends:
        def counted(summary, missing, backend=backend):
            nonlocal passes
            passes += 1
            return backend.extend(summary, missing)

        for alg, trunc in CASES:
            plan = plan_release(CONFIG, algorithm=alg, truncation=trunc)
            expected = THETA_DRAWS[plan.truncation] + MEASURE_DRAWS.get(alg, 1)
            ref, ref_draws = _release(memory, plan)
            got, draws = _release(summary_for(backend, plan), plan, extend=counted)
            assert ref_draws == draws == expected, (engine, alg, trunc, ref_draws, draws)
            np.testing.assert_array_equal(got.private_answers, ref.private_answers)
            np.testing.assert_array_equal(got.noise_halfwidth, ref.noise_halfwidth)
            assert got.theta == ref.theta and got.budget == ref.budget, (engine, alg, trunc)
    assert passes > 0  # the recursive θ needs a pass after it is drawn: that path is exercised


@pytest.fixture
def small_top_k(monkeypatch):
    """A top-k of 20 values (of 5 000), so that the continuous recursive θ falls below it and
    the summary must be extended after θ is drawn."""
    monkeypatch.setattr(limits, "SUMMARY_TOP_K", 20)


def test_memory_and_duckdb_releases_draw_the_plan_once_and_agree(small_top_k):
    _check_all_cases(_engines())


def test_spark_release_draws_the_plan_once_and_agrees(small_top_k, request):
    if shutil.which("java") is None and os.environ.get("DPSUM_REQUIRE_SPARK") != "1":
        pytest.skip("Spark needs a Java runtime (java not on PATH)")
    spark = request.getfixturevalue("spark")
    _check_all_cases([e for e in _engines(spark) if e[0] == "spark"])


def test_draw_once_replays_and_refuses_a_different_request():
    source = CountingNoise()
    once = DrawOnce(source)
    first = once.add_laplace(np.array([1.0, 2.0]), 3.0)
    once.rewind()
    np.testing.assert_array_equal(once.add_laplace(np.array([1.0, 2.0]), 3.0), first)
    assert source.draws == 1 and once.draws == 1 and once.values == 2
    once.check_used()
    once.rewind()
    with pytest.raises(RuntimeError, match="other inputs"):
        once.add_laplace(np.array([1.0, 2.5]), 3.0)
    once.rewind()
    with pytest.raises(RuntimeError, match="used 0 of its 1"):
        once.check_used()


def test_a_cli_release_from_a_folder_binds_the_ledger_to_its_content(tmp_path, capsys):
    from dpsum_core.cli import main

    folder = tmp_path / "parts"
    folder.mkdir()
    shutil.copy(SMALL, folder / "a.csv")
    book = tmp_path / "ledger.json"

    def cli(out, data=folder, engine="duckdb"):
        return main(
            ["release", "--data", str(data), "--engine", engine, "--algorithm", "tamm",
             "--truncation", "recursive", "--workload", "Q3", "--epsilon", "0.1",
             "--out", str(tmp_path / out), "--ledger", str(book)]
        )  # fmt: skip

    assert cli("one") == 0
    assert ledger.load(book).fingerprint.startswith("content:sha256:")
    assert ledger.load(book).spent == 0.1
    assert release_endings(tmp_path / "one") == [
        "answers.csv", "release.json", "report.html", "report.md"
    ]  # fmt: skip
    assert cli("same", data=SMALL, engine="memory") == 0  # its one file: the same rows
    assert ledger.load(book).spent == 0.2
    shutil.copy(SMALL, folder / "b.csv")  # every row twice: another dataset
    capsys.readouterr()
    assert cli("two") == 2
    assert "belongs to the dataset" in capsys.readouterr().err
    # refused before anything was written: not even the --out folder is made
    assert not (tmp_path / "two").exists() and ledger.load(book).spent == 0.2
    # the byte fingerprints of ledgers of versions 2 and 3, checked when they are upgraded
    assert ledger.source_fingerprint(SMALL) == ledger.file_fingerprint(SMALL)
    assert ledger.source_fingerprint(None, table="db.incomes") == "table:db.incomes"


def test_the_report_says_which_engine_and_its_command_uses_it(tmp_path):
    """release.json records the engine, and the report's command makes the release again with
    the same engine (a folder read by DuckDB is not one file for the memory engine)."""
    out = tmp_path / "rel"
    proc = subprocess.run(
        [sys.executable, "-m", "dpsum_core", "release", "--engine", "duckdb",
         "--data", str(SMALL), "--algorithm", "tamm", "--truncation", "none", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(release_file(out, "release.json").read_text())["engine"] == "duckdb"
    assert "dpsum release --engine duckdb --data" in release_file(out, "report.md").read_text()
