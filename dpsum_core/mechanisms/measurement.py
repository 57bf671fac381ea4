"""What every mechanism reads (:class:`Inputs`) and returns (:class:`Measurement`).

select → measure → reconstruct: only the "measure" step touches the private histogram or values,
and it adds Laplace noise for all trials at once through a :class:`~dpsum_core.noise.Noise`.
A Measurement carries the ε its noise actually bought (sensitivity / scale), for the ledger.
"""


from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpsum_core.data.dataset import Statistics
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.workloads import Workload


@dataclass(frozen=True, eq=False)
class Inputs:
    """What a mechanism may read: the private data and its histogram, the public workload and
    domain. True answers are for expected-error (bias) evaluation only, never for answers."""

    data: Statistics
    x: np.ndarray
    workload: Workload
    domain: Domain
    true_answers: np.ndarray
    delta: float = 100.0  # the relative error's public floor max(y, δ) (ClampShells' onset gate)
    # A public cap on the values (a documented top code, stated by the user, never read from
    # the data): ClampShells clamps there without locating θ*, all of ε on its measurement.
    public_cap: float | None = None


@dataclass(frozen=True, eq=False)
class Measurement:
    """Noisy answers of all trials (trials × m) and the ε the noise bought in each trial
    (the largest over trials; every trial spends the same by construction). An algorithm that
    chooses θ after measuring (post-processing) reports it in ``theta`` (trials,); one that
    locates θ inside, with its own share of the budget (ClampShells), also reports that share
    in ``epsilon_theta`` (``epsilon`` is then the measurement's share alone)."""

    answers: np.ndarray
    epsilon: float
    theta: np.ndarray | None = None
    epsilon_theta: float = 0.0


def _spent(sensitivity: np.ndarray, scale: np.ndarray) -> float:
    """ε of a Laplace release: sensitivity / scale, the worst trial."""
    return float(np.max(np.asarray(sensitivity, float) / np.asarray(scale, float)))


def truncated_weights(domain: Domain, theta: np.ndarray) -> np.ndarray:
    """T_θ diagonals min(v_j, θ) for each trial: shape (trials, n)."""
    return np.minimum(domain.bin_weights[None, :], np.asarray(theta, float)[:, None])


def column_cover(workload: Workload, n: int) -> np.ndarray:
    """#{i : k_i ≥ j} for j = 1..n: the L1 norm of column j of W."""
    return workload.size - np.searchsorted(np.sort(workload.counts), np.arange(1, n + 1))
