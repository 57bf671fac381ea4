"""The public parameters of the truncation methods (SVT's r, c, s; the recursive mechanism's
β, θ₀, μ; a fixed θ) and their defaults, scaled to U.
"""


from __future__ import annotations

from dataclasses import asdict, dataclass

from dpsum_core import limits
from dpsum_core.errors import ParameterError
from dpsum_core.truncation.svt import check_svt_grid
from dpsum_core.validation import check_choice, check_positive, check_unit_interval

SVT_VARIANTS: tuple[str, ...] = ("paper", "tight")


@dataclass(frozen=True)
class TruncationParams:
    """Public parameters of the threshold choice.

    ``None`` means a default resolved where its inputs are known: β = 2·ε_θ/5 (the paper's),
    and the SVT start s and the recursive θ₀ = U/8 (:data:`START_FRACTION`), which follows the
    column's unit (dollars per year, per week, per hour) instead of staying at the paper's
    50 000 whatever U is. :data:`PAPER` holds the paper's constants exactly, for reproducing it.
    """

    svt_variant: str = "paper"
    svt_r: float = 0.998
    svt_c: float = 1.2
    svt_s: float | None = None
    rm_beta: float | None = None
    rm_theta0: float | None = None
    rm_mu: float = 0.5
    theta: float | None = None  # the user's fixed θ

    def __post_init__(self) -> None:
        check_choice(self.svt_variant, "svt variant", SVT_VARIANTS)
        check_unit_interval(self.svt_r, "svt r")
        c = check_positive(self.svt_c, "svt c")
        if c <= 1:
            raise ParameterError(f"svt c (grid ratio) must be > 1, got {c:g}")
        if self.svt_s is not None:
            check_positive(self.svt_s, "svt s")
        if self.rm_beta is not None:
            check_positive(self.rm_beta, "recursive beta", upper=limits.MAX_RM_BETA)
        if self.rm_theta0 is not None:
            check_positive(self.rm_theta0, "recursive theta0")
        mu = check_positive(self.rm_mu, "recursive mu")
        if mu > 0.5:
            raise ParameterError(f"recursive mu must be in (0, 0.5], got {mu:g}")
        if self.theta is not None:
            check_positive(self.theta, "theta")

    def check_svt_grid(self, upper: float) -> None:
        """Raise ParameterError if SVT's grid up to ``upper`` has more than MAX_SVT_GRID points.

        The grid depends on U as well as on s and c, so this is called where U is known (the
        experiment's configuration); the message names the smallest c and the smallest s that
        fit (a larger c or s means fewer points).
        """
        check_svt_grid(upper, s=self.start(upper)[0], c=self.svt_c)

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return asdict(self)

    def start(self, upper: float) -> tuple[float, float]:
        """(s, θ₀) in force for domain bound U: the given values, or U·START_FRACTION."""
        default = upper * START_FRACTION
        return (
            default if self.svt_s is None else self.svt_s,
            default if self.rm_theta0 is None else self.rm_theta0,
        )

    def resolved(self, upper: float) -> dict:
        """The parameters in force for U (defaults filled in, β as given), for run.json."""
        s, theta0 = self.start(upper)
        return {**self.as_dict(), "svt_s": s, "rm_theta0": theta0}


# The start of the SVT grid and the recursive mechanism's θ₀ as a fraction of U, so that they
# carry over to any unit (the paper's 50 000 at U = 800 000 is U/16). Truncation can only pick
# θ ≥ s, and θ₀ anchors the recursive crossover curve θ₀·e^{βi}: both must sit below the top
# of a column's values, which for income-like columns with a sensible public U is a few tenths
# of U. Measured with bench/accuracy.py --starts on synthetic annual (45 000 and 4 856 rows),
# weekly, hourly and top-coded columns, Q1, ε ∈ {0.01, 0.1, 1}: U/8 gave the lowest TaMM
# error with SVT and with the recursive mechanism in every column at ε = 0.01 (e.g. annual
# 0.098 vs 0.117 at U/16 and 0.121 at U/100 with SVT), and was within noise of the best
# elsewhere; lower starts only add SVT steps and pull the recursive θ down. A start above the
# column's top is flagged after the run (θ ≥ U in most trials).
START_FRACTION = 1 / 8
PAPER = TruncationParams(svt_s=50_000.0, rm_theta0=50_000.0)
