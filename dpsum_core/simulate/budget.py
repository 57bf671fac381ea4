"""The privacy ledger: what the threshold step and the measurement of each run spent."""


from __future__ import annotations

from dataclasses import asdict, dataclass

from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.registry import truncation as get_truncation

DECIMAL_DIGITS = 12  # ε values are decimals a user typed, times ρ: 12 digits hold every one


def decimal(value: float) -> float:
    """An ε derived by arithmetic, written as the decimal it stands for: the float dust of
    ``0.01 − 0.001`` (0.009000000000000001) removed, for files and tables.

    >>> decimal(0.01 - 0.001), decimal(0.001 + 0.009000000000000001), decimal(0.3)
    (0.009, 0.01, 0.3)
    """
    return float(f"{value:.{DECIMAL_DIGITS}g}")


@dataclass(frozen=True)
class Budget:
    """Privacy ledger of one (algorithm, truncation), recorded from what was spent: ε_θ is what
    the threshold step's noise bought (all m choices for SQM), ε_m what the measurement's noise
    bought (sensitivity / scale). The runner checks ε_θ + ε_m = ε."""

    algorithm: str
    truncation: str
    epsilon_theta: float
    epsilon_measure: float

    @property
    def total(self) -> float:
        """ε_θ + ε_m."""
        return self.epsilon_theta + self.epsilon_measure

    def as_dict(self) -> dict:
        """Plain dict with the total, each ε written as its decimal (:func:`decimal`)."""
        spent = ("epsilon_theta", "epsilon_measure")
        record = {k: decimal(v) if k in spent else v for k, v in asdict(self).items()}
        return {**record, "total": decimal(self.total)}


def budget_split(epsilon: float, rho: float, truncation: str) -> tuple[float, float]:
    """(ε_θ, ε_m): ε_θ = ρ·ε when the truncation method chooses θ from the data (its record's
    ``spends_rho``: SVT, recursive), else 0; ε_m = ε − ε_θ. Every ledger sums to ε."""
    eps_theta = rho * epsilon if get_truncation(truncation).spends_rho else 0.0
    return eps_theta, epsilon - eps_theta


def theta_fraction(
    algorithm: str, rho: float, truncation: str, *, public_cap: float | None = None
) -> float:
    """The fraction of ε one run of ``algorithm`` spends on θ (ε_θ = fraction · ε).

    An algorithm with its own θ ignores ``truncation``: a post-hoc θ (RawSum) costs nothing; a
    θ located inside (ClampShells) costs its record's ``theta_share``, nothing with a public
    cap. Every other algorithm: ρ when the truncation method chooses θ from the data, else 0
    (:func:`budget_split`).
    """
    alg = get(algorithm)
    if alg.runs_once:
        return alg.theta_share if public_cap is None else 0.0
    return rho if get_truncation(truncation).spends_rho else 0.0


def algorithm_split(
    algorithm: str, epsilon: float, rho: float, truncation: str, *, public_cap: float | None = None
) -> tuple[float, float]:
    """(ε_θ, ε_m) of one run of ``algorithm``: what its ledger records (the runner checks it);
    ε_θ = :func:`theta_fraction` · ε and every split sums to ε."""
    spent = theta_fraction(algorithm, rho, truncation, public_cap=public_cap) * epsilon
    return spent, epsilon - spent
