"""The public parameters of the truncation methods, as declared by the methods' own modules
(SVT's r, c, s; the recursive mechanism's β, θ₀, μ; a fixed θ), with their defaults.
"""

from __future__ import annotations

from typing import Any

from dpsum_core.text import noun
from dpsum_core.truncation.method import START_FRACTION
from dpsum_core.truncation.registry import PARAMETERS, REGISTRY
from dpsum_core.truncation.svt import SVT_S, SVT_VARIANTS, check_svt_grid

__all__ = ["PAPER", "PARAMETERS", "START_FRACTION", "SVT_VARIANTS", "TruncationParams"]


class TruncationParams:
    """Public parameters of the threshold choice: one value per parameter a method declares
    (:data:`~dpsum_core.truncation.registry.PARAMETERS`), read as attributes (``params.svt_r``).

    Immutable, compared and hashed by value. ``None`` means a default resolved where its inputs
    are known: β = 2·ε_θ/5 (the paper's), and the SVT start s and the recursive θ₀ = U/8
    (:data:`START_FRACTION`), which follows the column's unit (dollars per year, per week, per
    hour) instead of staying at the paper's 50 000 whatever U is. :data:`PAPER` holds the
    paper's constants exactly, for reproducing it.

    Raises
    ------
    ParameterError
        A value is out of its range (the message names the parameter).
    TypeError
        A name no method declares.
    """

    __slots__ = ("_values",)

    def __init__(self, **values: Any) -> None:
        unknown = sorted(set(values) - set(PARAMETERS))
        if unknown:
            raise TypeError(f"unknown truncation {noun(len(unknown), 'parameter')}: {', '.join(unknown)}")
        merged = {name: values.get(name, p.default) for name, p in PARAMETERS.items()}
        for name, value in merged.items():
            PARAMETERS[name].validate(value)
        object.__setattr__(self, "_values", merged)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"no truncation parameter {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("TruncationParams is immutable: build a new one")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TruncationParams) and self._values == other._values

    def __hash__(self) -> int:
        return hash(tuple(self._values.items()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"TruncationParams({inner})"

    def __reduce__(self) -> tuple:
        return (_rebuild, (dict(self._values),))

    def __deepcopy__(self, memo: dict) -> TruncationParams:
        return self  # immutable

    def check_svt_grid(self, upper: float) -> None:
        """Raise ParameterError if SVT's grid up to ``upper`` has more than MAX_SVT_GRID points.

        The grid depends on U as well as on s and c, so this is called where U is known (the
        experiment's configuration); the message names the smallest c and the smallest s that
        fit (a larger c or s means fewer points).
        """
        check_svt_grid(upper, s=SVT_S.in_force(self, upper), c=self.svt_c)

    def as_dict(self) -> dict:
        """Plain dict for JSON, in the order of the parameters' declarations."""
        return dict(self._values)

    def resolved(self, upper: float) -> dict:
        """The parameters in force for U (the defaults that follow U filled in, β as given),
        for run.json and release.json."""
        return {name: p.in_force(self, upper) for name, p in PARAMETERS.items()}


def _rebuild(values: dict) -> TruncationParams:
    return TruncationParams(**values)


def missing(params: TruncationParams, methods: tuple[str, ...]) -> str | None:
    """The message for the first parameter a chosen method needs and lacks, else ``None``."""
    for name in methods:
        for p in REGISTRY[name].params if name in REGISTRY else ():
            if p.missing and getattr(params, p.name) is None:
                return p.missing
    return None


# The paper's constants (s = θ₀ = 50 000 with U = 800 000), for reproducing it.
PAPER = TruncationParams(svt_s=50_000.0, rm_theta0=50_000.0)
