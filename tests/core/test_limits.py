"""Every limit of dpsum_core.limits, at its edge and just past it (the CLI, the validators and
the app's widgets all read this one module)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from dpsum_core import limits
from dpsum_core.data.cleaning import clean
from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain
from dpsum_core.data.reading import load_column
from dpsum_core.errors import DataError, ParameterError
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment
from dpsum_core.text import number


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


def test_upper_minimum():
    assert Domain(upper=limits.MIN_UPPER).upper == limits.MIN_UPPER
    for bad in (limits.MIN_UPPER * 0.999, 1e-320, 5e-324):
        with pytest.raises(ParameterError, match=f"at least {number(limits.MIN_UPPER)}"):
            Domain(upper=bad)
        with pytest.raises(ParameterError, match=f"at least {number(limits.MIN_UPPER)}"):
            clean(np.array([0.0]), upper=bad)
    # at the minimum the bins are normal floats and the SVT grid can be built
    assert np.all(Domain(upper=limits.MIN_UPPER, bins=limits.MAX_BINS).edges > 2.3e-308)
    cfg = ExperimentConfig(workload="Q3", upper=limits.MIN_UPPER, bins=1000, trials=2,
                           truncations=("svt", "recursive"))
    data = make_dataset(np.array([0.0, 1e-7, 5e-7]), upper=limits.MIN_UPPER)
    assert run_experiment(data, cfg).runs


def _grid_size(upper, s, c):
    from dpsum_core.truncation.svt import svt_grid

    return svt_grid(upper, s=s, c=c).size


def test_svt_grid_size_edge():
    """K = ⌈log_c(U/s)⌉ + 1 grid points at most MAX_SVT_GRID; the message names a c and an s
    that fit, and both do."""
    import re

    from dpsum_core.truncation.params import START_FRACTION, TruncationParams

    U, s, K = 800_000.0, 800_000.0 * START_FRACTION, limits.MAX_SVT_GRID  # the default s = U/8
    c_edge = (U / s) ** (1 / (K - 1))
    ok = ExperimentConfig(truncation_params=TruncationParams(svt_c=c_edge))
    assert _grid_size(U, s, ok.truncation_params.svt_c) == K
    for c in (c_edge * (1 - 1e-9), 1.000000001, 1.0001):
        with pytest.raises(ParameterError, match=f"more than the {K:,} allowed") as err:
            ExperimentConfig(truncation_params=TruncationParams(svt_c=c))
        message = str(err.value)
        c_fit = float(re.search(r"c ≥ ([0-9.e+-]+)", message).group(1))
        s_fit = float(re.search(r"s ≥ ([0-9.e+-]+)", message).group(1))
        assert _grid_size(U, s, c_fit) <= K and _grid_size(U, s_fit, c) <= K
        ExperimentConfig(truncation_params=TruncationParams(svt_c=c_fit))
        ExperimentConfig(truncation_params=TruncationParams(svt_c=c, svt_s=s_fit))
    # the grid is checked only where SVT is used, against the configured U
    assert ExperimentConfig(truncations=("recursive",), truncation_params=TruncationParams(svt_c=1.0001))
    assert ExperimentConfig(upper=50_000.0, truncation_params=TruncationParams(svt_c=1.0001, svt_s=50_000.0))
    with pytest.raises(ParameterError, match="points, more than"):
        ExperimentConfig(upper=1e15, truncation_params=TruncationParams(svt_c=1.01))
