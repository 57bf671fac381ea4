"""Public defaults that follow the column's unit: s and θ₀ are fractions of U (issue: weekly
wages with U = 20 000 got θ ≥ U; hourly earnings with U = 200 got a recursive θ of 45 561)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpsum_core.cli import main
from dpsum_core.data.dataset import make_dataset
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment
from dpsum_core.truncation.params import PAPER, START_FRACTION, TruncationParams


def _column(median: float, upper: float, n: int = 20_000, seed: int = 1):
    rng = np.random.default_rng(seed)
    return make_dataset(rng.lognormal(np.log(median), 0.7, n), upper=upper)


@pytest.mark.parametrize(("median", "upper"), [(850.0, 20_000.0), (21.0, 200.0), (40_000.0, 800_000.0)])
def test_truncation_is_active_on_columns_of_any_unit(median, upper):
    data = _column(median, upper)
    cfg = ExperimentConfig(workload="Q2", epsilon=1.0, upper=upper, trials=100,
                           truncations=("svt", "recursive"), algorithms=("tamm",))
    result = run_experiment(data, cfg)
    assert result.inactive_truncation() == {}
    for trunc in ("svt", "recursive"):
        theta = result.run("tamm", trunc).theta
        assert np.mean(theta < upper) > 0.5, (trunc, np.median(theta))
    assert result.warnings() == []


def test_the_old_absolute_defaults_were_inactive_and_are_warned_about():
    """s = θ₀ = 50 000 on weekly wages (U = 20 000): truncation did nothing; now a warning says so."""
    data = _column(850.0, 20_000.0)
    cfg = ExperimentConfig(workload="Q2", epsilon=1.0, upper=20_000, trials=100,
                           truncations=("svt", "recursive"), algorithms=("tamm",),
                           truncation_params=PAPER)
    result = run_experiment(data, cfg)
    assert set(result.inactive_truncation()) == {"svt", "recursive"}
    assert all("truncation is inactive" in w for w in result.warnings())


def _starts(params: TruncationParams, upper: float) -> tuple[float, float]:
    """(s, θ₀) in force for U."""
    resolved = params.resolved(upper)
    return resolved["svt_s"], resolved["rm_theta0"]


def test_defaults_resolve_to_a_fraction_of_u_and_the_paper_keeps_its_constants():
    assert _starts(TruncationParams(), 800_000.0) == (100_000.0, 100_000.0)  # U/8
    assert _starts(TruncationParams(), 200.0) == (200 * START_FRACTION, 200 * START_FRACTION)
    assert _starts(TruncationParams(svt_s=7.0, rm_theta0=9.0), 200.0) == (7.0, 9.0)
    assert _starts(PAPER, 20_000.0) == (50_000.0, 50_000.0)


def test_cli_reports_the_parameters_in_force_and_warns_on_stderr(tmp_path, capsys):
    path = tmp_path / "weekly.csv"
    rng = np.random.default_rng(0)
    path.write_text("wage\n" + "\n".join(f"{v:.0f}" for v in rng.lognormal(np.log(850), 0.7, 3000)))
    code = main(["run", "--data", str(path), "--upper", "20000", "--workload", "Q3",
                 "--trials", "20", "--epsilon", "1", "--truncation", "svt",
                 "--svt-s", "50000", "--algorithms", "tamm", "--out", str(tmp_path / "o")])
    assert code == 0
    err = capsys.readouterr().err
    assert "warning: truncation is inactive: SVT chose θ ≥ U = 20,000" in err
    info = json.loads((tmp_path / "o" / "run.json").read_text())
    assert info["truncation_params_in_force"]["svt_s"] == 50_000.0
    assert info["truncation_params_in_force"]["rm_theta0"] == 20_000 * START_FRACTION
    assert info["inactive_truncation"]["svt"] > 10


def test_reproduce_runs_at_the_papers_constants(tmp_path):
    code = main(["reproduce", "--data", "sample_data/incomes_small.csv", "--out", str(tmp_path),
                 "--trials", "2", "--no-png", "--upper", "400000"])
    assert code == 0
    runs = json.loads((tmp_path / "run.json").read_text())["runs"]
    assert all(r["truncation_params_in_force"]["svt_s"] == 50_000.0 for r in runs)
    assert all(r["truncation_params_in_force"]["rm_theta0"] == 50_000.0 for r in runs)
