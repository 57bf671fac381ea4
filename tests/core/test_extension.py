"""Adding an algorithm is one module and one registry line; adding a truncation method is one
module and one record (issue 15). Shown on a copy of the project: the additions are written
exactly so, then the new algorithm and method run through the experiment, the CLI and a page.

The fake algorithm measures the histogram like Identity (its noise is Identity's), under a name,
label and stream of its own; the fake truncation method picks the public θ = U/2. Neither is a
mechanism anyone should use: they exercise the wiring, not the privacy (tested elsewhere).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_ALGORITHM = '''
"""Fake: Identity's measurement under another name (the extension test's algorithm)."""

from dpsum_core.mechanisms.algorithm import SHARED, Algorithm
from dpsum_core.mechanisms.baselines import identity, identity_error

RECORDS = (
    Algorithm(name="fake", label="Fake", color="#777777", dash="dot", symbol="cross",
              measures="the histogram of counts x (as Identity)", theta_rule=SHARED,
              measure=identity, error=identity_error, stream_id=99),
)
'''

FAKE_TRUNCATION = '''
"""Half: the public θ = U/2 (the extension test's truncation method)."""

import numpy as np

from dpsum_core.truncation.choice import ThetaLaw, ThresholdChoice


def half_theta(data, *, epsilon, upper, params, trials, rng, tau=None):
    shape = (trials,) if tau is None else (trials, np.asarray(tau).size)
    return ThresholdChoice("half", np.full(shape, upper / 2), 0.0)


def half_laws(data, *, epsilons, upper, params, tau=None):
    one = np.ones(1) if tau is None else np.ones((1, np.asarray(tau).size))
    return [ThetaLaw(one * upper / 2, one) for _ in np.atleast_1d(epsilons)]


def half_cut_points(params, upper):
    return np.array([upper / 2])
'''


def _add_line(path: Path, after: str, line: str) -> None:
    text = path.read_text()
    assert text.count(after) == 1, f"{after!r} not found once in {path}"
    path.write_text(text.replace(after, after + line))


@pytest.fixture(scope="module")
def extended(tmp_path_factory) -> Path:
    """A copy of the project with one algorithm module + one registry line and one truncation
    module + one record line added, nothing else."""
    copy = tmp_path_factory.mktemp("extended") / "dpsum"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(
        ".git", ".ci-venv", "tests", "bench", "docs", "__pycache__", "out*", "*.egg-info"))
    core = copy / "dpsum_core"
    (core / "mechanisms" / "fake.py").write_text(FAKE_ALGORITHM)
    registry = core / "mechanisms" / "registry.py"
    text = registry.read_text()
    families = re.search(r"^FAMILIES = \((.*)\)$", text, re.M)
    assert families, "registry.py lists its families in one FAMILIES line"
    text = text.replace(families.group(0), f"FAMILIES = ({families.group(1)}, fake)")
    registry.write_text(text)
    _add_line(registry, "from dpsum_core.mechanisms.algorithm import Algorithm\n",
              "from dpsum_core.mechanisms import fake\n")
    (core / "truncation" / "half.py").write_text(FAKE_TRUNCATION)
    trunc = core / "truncation" / "registry.py"
    _add_line(trunc, "from dpsum_core.truncation import fixed, recursive, svt\n",
              "from dpsum_core.truncation import half\n")
    _add_line(trunc, "_RECORDS = (\n",
              '    Truncation("half", "θ = U/2", "dot", 9, False, half.half_theta, half.half_laws,'
              " half.half_cut_points),\n")
    return copy


def _python(copy: Path, code: str, timeout: int = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_a_new_algorithm_and_truncation_run_through_the_experiment(extended):
    proc = _python(extended, """
        import json
        from dpsum_core.data.reading import load_column
        from dpsum_core.simulate.config import ExperimentConfig
        from dpsum_core.simulate.experiment import run_experiment
        data = load_column("sample_data/incomes_small.csv", upper=800_000)
        config = ExperimentConfig(workload="Q3", algorithms=("fake", "identity"),
                                  truncations=("half", "svt"), trials=5, seed=0)
        result = run_experiment(data, config)
        print(json.dumps([[r.algorithm, r.truncation, float(r.theta.max()), r.budget.total]
                          for r in result.runs]))
    """)
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(proc.stdout)
    assert sorted(r[:2] for r in runs) == [["fake", "half"], ["fake", "svt"],
                                           ["identity", "half"], ["identity", "svt"]]
    assert all(r[3] == pytest.approx(0.01) for r in runs)  # every ledger sums to ε
    assert {r[2] for r in runs if r[1] == "half"} == {400_000.0}  # the method's θ = U/2


def test_a_new_algorithm_and_truncation_run_from_the_cli(extended, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "dpsum_core", "run", "--data", "sample_data/incomes_small.csv",
         "--workload", "Q3", "--algorithms", "fake,identity", "--truncation", "half",
         "--trials", "5", "--out", str(tmp_path / "out")],
        cwd=extended, env={**os.environ, "PYTHONPATH": str(extended)},
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    summary = (tmp_path / "out" / "summary.csv").read_text()
    assert '"fake","half"' in summary


def test_a_new_algorithm_and_truncation_show_on_the_explorer(extended):
    proc = _python(extended, """
        import json
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file("app.py", default_timeout=120)
        at.run()
        at.selectbox(key="workload_kind").select("Q3")
        at.number_input(key="trials").set_value(5)
        at.button_group(key="algorithms").set_value(["fake", "identity"])
        at.button_group(key="truncation").set_value("half")
        at.run()
        at.button(key="explorer_run").click()
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        names = {t.get("name") for el in at.get("plotly_chart")
                 for t in json.loads(el.proto.spec)["data"]}
        titles = [json.loads(el.proto.spec)["layout"].get("title", {}).get("text", "")
                  for el in at.get("plotly_chart")]
        print(json.dumps({"names": sorted(n for n in names if n), "titles": titles}))
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    shown = json.loads(proc.stdout.strip().splitlines()[-1])
    assert any(n.startswith("Fake") for n in shown["names"])
    assert any("θ = U/2" in t for t in shown["titles"])
