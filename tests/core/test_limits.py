"""Every limit of dpsum_core.limits, at its edge and just past it (the CLI, the validators and
the app's widgets all read this one module)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from dpsum_core import limits
from dpsum_core.data import Domain, clean, load_column, make_dataset
from dpsum_core.errors import DataError, ParameterError
from dpsum_core.experiment import ExperimentConfig, run_experiment


def test_epsilon_edges():
    assert ExperimentConfig(epsilon=limits.EPSILON_MIN).epsilon == limits.EPSILON_MIN
    assert ExperimentConfig(epsilon=limits.EPSILON_MAX).epsilon == limits.EPSILON_MAX
    for bad in (limits.EPSILON_MIN * 0.999, limits.EPSILON_MAX * 1.001, 0, -1):
        with pytest.raises(ParameterError, match="epsilon must be between"):
            ExperimentConfig(epsilon=bad)


def test_rho_edges():
    assert ExperimentConfig(rho=limits.RHO_MIN).rho == limits.RHO_MIN
    assert ExperimentConfig(rho=limits.RHO_MAX).rho == limits.RHO_MAX
    for bad in (limits.RHO_MIN * 0.999, limits.RHO_MAX + 1e-9, 0.0, 1.0):
        with pytest.raises(ParameterError, match="rho must be between"):
            ExperimentConfig(rho=bad)


def test_bins_edges():
    assert Domain(bins=limits.MAX_BINS).bins == limits.MAX_BINS
    assert Domain(bins=1).bins == 1
    for bad in (limits.MAX_BINS + 1, 0):
        with pytest.raises(ParameterError, match="bins must be between"):
            Domain(bins=bad)


def test_trials_edges():
    assert ExperimentConfig(trials=limits.MAX_TRIALS).trials == limits.MAX_TRIALS
    for bad in (limits.MAX_TRIALS + 1, 0):
        with pytest.raises(ParameterError, match="trials must be between"):
            ExperimentConfig(trials=bad)
    with pytest.raises(ParameterError, match="whole number"):
        ExperimentConfig(trials=2.5)


def test_upper_edges():
    assert Domain(upper=limits.MAX_UPPER).upper == limits.MAX_UPPER
    for bad in (limits.MAX_UPPER * 1.001, 0.0, -5.0, float("inf"), float("nan")):
        with pytest.raises(ParameterError, match="upper bound U"):
            Domain(upper=bad)


def test_rows_edge(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ROWS", 5)
    values, _ = clean(np.arange(5.0), upper=10)
    assert values.size == 5
    with pytest.raises(DataError, match="more than the 5 this tool handles"):
        clean(np.arange(6.0), upper=10)
    with pytest.raises(DataError, match="more than the 5 this tool handles"):
        load_column(io.BytesIO(b"v\n" + b"1\n" * 6), upper=10, name="rows.csv")


def test_upload_size_edge(monkeypatch):
    monkeypatch.setattr(limits, "MAX_UPLOAD_MB", 1)
    header = b"v\n"
    at_limit = header + b"1\n" * ((2**20 - len(header)) // 2)
    assert len(at_limit) <= 2**20
    assert load_column(io.BytesIO(at_limit), upper=10, name="ok.csv").size > 0
    with pytest.raises(DataError, match="above the 1 MB upload limit"):
        load_column(io.BytesIO(at_limit + b"1\n" * 4096), upper=10, name="big.csv")


def test_answers_edge(monkeypatch):
    data = make_dataset(np.arange(1.0, 100.0), upper=800_000)
    cfg = ExperimentConfig(workload="Q3", trials=4, algorithms=("identity",), truncations=("none",))
    monkeypatch.setattr(limits, "MAX_ANSWERS", 4 * 10)
    assert run_experiment(data, cfg).runs[0].answers.shape == (4, 10)
    with pytest.raises(ParameterError, match="use at most 4 trials"):
        run_experiment(data, cfg.with_(trials=5))
