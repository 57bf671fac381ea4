"""Analytic error as θ varies (the θ views of the teaching page); no noise drawn.

Built on each algorithm's expected-error function and on the law of θ; deterministic, so the
dashboard can cache it.
"""


from __future__ import annotations

import numpy as np
import pandas as pd

from dpsum_core.data.dataset import Statistics
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.error import Components, components_frame
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.budget import budget_split
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for


def theta_error_components(
    data: Statistics,
    config: ExperimentConfig,
    *,
    thetas: np.ndarray,
    private_theta: bool = True,
) -> dict[str, Components]:
    """Squared bias and variance of every query of the workload at each θ, per algorithm.

    Parameters
    ----------
    thetas
        θ grid to evaluate (k values).
    private_theta
        If true the measurement budget is ε_m = (1−ρ)ε, as when θ is chosen privately;
        otherwise ε_m = ε (a fixed, public θ). A post-hoc algorithm always has ε_m = ε.

    Returns
    -------
    dict
        ``{algorithm: (bias2, variance)}``, each array of shape (k, m). Deterministic: no noise
        is drawn.
    """
    inputs = inputs_for(data, config)
    thetas = np.asarray(thetas, float)
    out = {}
    for name in config.algorithms:
        alg = get(name)
        # An algorithm's own θ costs ρε nothing, so it always gets the whole ε.
        trunc = "fixed" if not private_theta or alg.runs_once else "svt"
        out[name] = alg.error(inputs, thetas, budget_split(config.epsilon, config.rho, trunc)[1])
    return out


def theta_curves(
    data: Statistics,
    config: ExperimentConfig,
    *,
    query: int,
    thetas: np.ndarray,
    private_theta: bool = True,
) -> pd.DataFrame:
    """Squared bias, variance and expected squared error of one query as θ varies.

    See :func:`theta_error_components`; ``query`` indexes the configured workload.

    Returns
    -------
    pandas.DataFrame
        Columns algorithm, theta, bias2, variance, total (one row per algorithm and θ).
    """
    m = make_workload(config.workload, config.domain).size
    if not 0 <= query < m:
        raise ParameterError(f"query must be between 0 and {m - 1}, got {query}")
    parts = theta_error_components(data, config, thetas=thetas, private_theta=private_theta)
    return components_frame(parts, thetas, query)
