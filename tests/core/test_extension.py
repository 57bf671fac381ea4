"""Adding an algorithm is one module and one registry line (issue 15); adding a truncation
method with a parameter is one module and one registry line (issue 23). Shown on a copy of the
project: the additions are written exactly so, then the new algorithm and method run through the
experiment, the CLI (options, validation, run.json, the release report's command) and the
dashboard (every Explorer tab, the Parameters popover, the link, the Compare grid).

The fake algorithm measures the histogram like Identity (its noise is Identity's), under a name,
label and stream of its own; the fake truncation method picks the public θ = f·U, its parameter
f (``--part-f``, default ½) declared in its own module. Neither is a mechanism anyone should use:
they exercise the wiring, not the privacy (tested elsewhere).
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

from tests.core.release_files import release_file

ROOT = Path(__file__).resolve().parents[2]

FAKE_ALGORITHM = '''
"""Fake: Identity's measurement under another name (the extension test's algorithm)."""

from dpsum_core.mechanisms.algorithm import SHARED, Algorithm
from dpsum_core.mechanisms.baselines import IDENTITY_INTERVAL, identity, identity_error

RECORDS = (
    Algorithm(name="fake", label="Fake", color="#777777", dash="dot", symbol="cross",
              measures="the histogram of counts x (as Identity)", theta_rule=SHARED,
              measure=identity, error=identity_error, stream_id=99,
              interval=IDENTITY_INTERVAL),
)
'''

FAKE_TRUNCATION = '''
"""Part: the public θ = f·U, f its parameter (the extension test's truncation method)."""

import numpy as np

from dpsum_core.truncation.choice import ThetaLaw, ThresholdChoice
from dpsum_core.truncation.method import Param, Truncation
from dpsum_core.validation import check_unit_interval


def part_theta(data, *, epsilon, upper, params, trials, rng, tau=None):
    shape = (trials,) if tau is None else (trials, np.asarray(tau).size)
    return ThresholdChoice("part", np.full(shape, params.part_f * upper), 0.0)


def part_laws(data, *, epsilons, upper, params, tau=None):
    one = np.ones(1) if tau is None else np.ones((1, np.asarray(tau).size))
    return [ThetaLaw(one * params.part_f * upper, one) for _ in np.atleast_1d(epsilons)]


def part_cut_points(params, upper):
    return np.array([params.part_f * upper])


F = Param("part_f", "--part-f", "f (fraction of U)", help="θ = f·U for --truncation part",
          default=0.5, check=lambda v: check_unit_interval(v, "part f"), low=0.0, high=1.0,
          step=0.05, explain="θ is this fraction of U.")
RECORDS = (
    Truncation("part", "θ = f·U", "dot", 9, False, part_theta, part_laws, part_cut_points,
               description="a public θ, the fraction f of U", source="θ = f·U (public)",
               params=(F,)),
)
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
    (core / "truncation" / "part.py").write_text(FAKE_TRUNCATION)
    trunc = core / "truncation" / "registry.py"
    text = trunc.read_text()
    modules = re.search(r"^MODULES = \((.*)\)$", text, re.M)
    assert modules, "truncation/registry.py lists its modules in one MODULES line"
    trunc.write_text(text.replace(modules.group(0), f"MODULES = ({modules.group(1)}, part)"))
    _add_line(trunc, "from dpsum_core.truncation import fixed, recursive, svt\n",
              "from dpsum_core.truncation import part\n")
    return copy


def _python(copy: Path, code: str, timeout: int = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_a_new_algorithm_and_truncation_run_through_the_experiment(extended):
    proc = _python(extended, """
        import json
        from dpsum_core import ExperimentConfig, load_column, run_experiment
        data = load_column("sample_data/incomes_small.csv", upper=800_000)
        config = ExperimentConfig(workload="Q3", algorithms=("fake", "identity"),
                                  truncations=("part", "svt"), trials=5, seed=0,
                                  truncation_params={"part_f": 0.25})
        result = run_experiment(data, config)
        again = ExperimentConfig.from_json(config.to_json())
        print(json.dumps({"runs": [[r.algorithm, r.truncation, float(r.theta.max()),
                                    r.budget.total] for r in result.runs],
                          "round_trip": again == config}))
    """)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    runs = out["runs"]
    assert sorted(r[:2] for r in runs) == [["fake", "part"], ["fake", "svt"],
                                           ["identity", "part"], ["identity", "svt"]]
    assert all(r[3] == pytest.approx(0.01) for r in runs)  # every ledger sums to ε
    assert {r[2] for r in runs if r[1] == "part"} == {200_000.0}  # the method's θ = f·U
    assert out["round_trip"]  # the parameter is part of the configuration's JSON


def _cli(copy: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dpsum_core", *argv], cwd=copy,
                          env={**os.environ, "PYTHONPATH": str(copy), "COLUMNS": "100"},
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def test_a_new_algorithm_and_truncation_run_from_the_cli(extended, tmp_path):
    data = ("--data", "sample_data/incomes_small.csv", "--workload", "Q3")
    proc = _cli(extended, "run", *data, "--algorithms", "fake,identity", "--truncation",
                "part", "--part-f", "0.25", "--trials", "5", "--out", str(tmp_path / "run"))
    assert proc.returncode == 0, proc.stderr
    assert '"fake","part"' in (tmp_path / "run" / "summary.csv").read_text()
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["truncation_params_in_force"]["part_f"] == 0.25
    # the option, its help and its validation come from the module's description
    assert "θ = f·U for --truncation part" in _cli(extended, "run", "--help").stdout
    bad = _cli(extended, "run", *data, "--truncation", "part", "--part-f", "2", "--out",
               str(tmp_path / "bad"))
    assert bad.returncode == 2
    assert bad.stderr.strip() == "dpsum: error: part f must be strictly between 0 and 1, got 2"
    # a release with it: its report's command carries the parameter, its record the method
    proc = _cli(extended, "release", *data, "--algorithm", "identity", "--truncation", "part",
                "--part-f", "0.25", "--out", str(tmp_path / "release"))
    assert proc.returncode == 0, proc.stderr
    report = release_file(tmp_path / "release", "report.md").read_text()
    assert "--truncation part --part-f 0.25 --out NEW_FOLDER" in report
    assert "a public θ, the fraction f of U" in report
    record = json.loads(release_file(tmp_path / "release", "release.json").read_text())
    assert record["theta"] == 200_000.0
    # a release of the new algorithm: its intervals come from its record's interval hook
    proc = _cli(extended, "release", *data, "--algorithm", "fake", "--truncation", "part",
                "--out", str(tmp_path / "fake"))
    assert proc.returncode == 0, proc.stderr
    record = json.loads(release_file(tmp_path / "fake", "release.json").read_text())
    intervals = record["intervals"]
    assert intervals["method"].startswith("binning and truncation bounded")
    assert intervals["bias_bounded"] == intervals["queries"] == 10  # θ = U/2 bounded above
    answers = release_file(tmp_path / "fake", "answers.csv").read_text().splitlines()
    header, first = answers[0].split(","), answers[1].split(",")
    lower, upper = (float(first[header.index(c)]) for c in ("lower_95", "upper_95"))
    assert 0.0 <= lower <= float(first[header.index("private_answer")]) <= upper


def test_a_new_algorithm_and_truncation_show_on_every_page(extended):
    proc = _python(extended, """
        import json
        from streamlit.testing.v1 import AppTest
        from dpsum_ui.explorer import TABS

        def clean(at):
            assert not at.exception, [e.value for e in at.exception]
            assert not at.error, [e.value for e in at.error]

        def specs(at):
            return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]

        at = AppTest.from_file("app.py", default_timeout=120)
        at.run()
        at.selectbox(key="workload_kind").select("Q3")
        at.number_input(key="trials").set_value(5)
        at.button_group(key="algorithms").set_value(["fake", "identity"])
        at.button_group(key="truncation").set_value("part")
        at.run()
        at.number_input(key="part_f").set_value(0.25)  # in the Parameters popover
        at.run()
        at.button(key="explorer_run").click()
        at.run()
        clean(at)
        shown = {"tabs": {}, "link": dict(at.query_params)}
        for tab in TABS:  # every tab of the Explorer, the Summary's table included
            at.session_state["explorer_tab"] = tab
            at.run()
            clean(at)
            shown["tabs"][tab] = {
                "names": sorted({t.get("name") or "" for s in specs(at) for t in s["data"]}),
                "titles": [s["layout"].get("title", {}).get("text", "") for s in specs(at)],
                "tables": [df.value.astype(str).to_dict("list") for df in at.dataframe],
            }
        at.switch_page("app_pages/compare.py").run()
        at.multiselect(key="compare_truncations").set_value(["none", "part"]).run()
        at.button(key="compare_run").click().run()
        clean(at)
        shown["grid"] = [list(s["data"][0].get("x", [])) for s in specs(at)
                         if s["data"] and s["data"][0].get("type") == "heatmap"]
        print(json.dumps(shown))
    """, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    shown = json.loads(proc.stdout.strip().splitlines()[-1])
    tabs = shown["tabs"]
    assert any(n.startswith("Fake") for n in tabs["Answers"]["names"])
    assert any("θ = f·U" in t for t in tabs["Answers"]["titles"])
    summary = json.dumps(tabs["Summary & budget"]["tables"], ensure_ascii=False)
    assert "θ = f·U (public)" in summary and "Fake" in summary  # the method's own words
    assert all(tabs[t]["titles"] for t in tabs if t != "Summary & budget")  # each drew a chart
    assert shown["link"].get("part_f") == ["0.25"] or shown["link"].get("part_f") == "0.25"
    assert shown["grid"] and "θ = f·U" in shown["grid"][0]
