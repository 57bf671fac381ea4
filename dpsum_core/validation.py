"""Validators: each returns the cleaned value or raises ParameterError naming the bad value."""

from __future__ import annotations

import math

from dpsum_core import limits
from dpsum_core.errors import ParameterError
from dpsum_core.text import number


def typed(value: float) -> str:
    """A value the user typed, echoed in a message: with separators and no exponent
    (:func:`~dpsum_core.text.number`) unless it has more than 18 digits either side of the
    point, which only an exponent keeps readable (``1e+300``)."""
    v = float(value)
    return number(float(f"{v:.12g}")) if v == 0 or 1e-12 <= abs(v) < 1e18 else f"{v:g}"


def check_epsilon(epsilon: float, *, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float if it is a finite number within the allowed range."""
    eps = _finite(epsilon, name)
    if not limits.EPSILON_MIN <= eps <= limits.EPSILON_MAX:
        raise ParameterError(
            f"{name} must be between {number(limits.EPSILON_MIN)} and {number(limits.EPSILON_MAX)}, "
            f"got {typed(eps)}"
        )
    return eps


def check_rho(rho: float) -> float:
    """Return the share of the budget spent on choosing θ, strictly inside (0, 1)."""
    r = _finite(rho, "rho")
    if not limits.RHO_MIN <= r <= limits.RHO_MAX:
        raise ParameterError(
            f"rho must be between {number(limits.RHO_MIN)} and {number(limits.RHO_MAX)}, got {typed(r)}"
        )
    return r


def check_positive(value: float, name: str, *, upper: float = math.inf) -> float:
    """Return ``value`` if it is finite, > 0 and ≤ ``upper``."""
    v = _finite(value, name)
    if not 0 < v <= upper:
        bound = "" if math.isinf(upper) else f" and at most {number(upper)}"
        raise ParameterError(f"{name} must be > 0{bound}, got {typed(v)}")
    return v


def check_upper(upper: float) -> float:
    """Return the public upper bound U if it lies in [MIN_UPPER, MAX_UPPER]."""
    u = check_positive(upper, "upper bound U", upper=limits.MAX_UPPER)
    if u < limits.MIN_UPPER:
        raise ParameterError(
            f"upper bound U must be at least {number(limits.MIN_UPPER)}, got {typed(u)}: measure the "
            "values in a smaller unit (e.g. millionths) so that U is larger"
        )
    return u


def check_int(value: int, name: str, *, low: int, high: int) -> int:
    """Return ``value`` as an int if it is a whole number in [low, high]."""
    try:
        as_float = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a whole number, got {value!r}") from None
    if not math.isfinite(as_float) or as_float != int(as_float):
        raise ParameterError(f"{name} must be a whole number, got {value!r}")
    v = int(as_float)
    if not low <= v <= high:
        raise ParameterError(f"{name} must be between {low:,} and {high:,}, got {v:,}")
    return v


def check_unit_interval(value: float, name: str) -> float:
    """Return ``value`` if it lies strictly between 0 and 1."""
    v = _finite(value, name)
    if not 0 < v < 1:
        raise ParameterError(f"{name} must be strictly between 0 and 1, got {typed(v)}")
    return v


def check_choice(value: str, name: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``."""
    if value not in choices:
        raise ParameterError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _finite(value: float, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v):
        raise ParameterError(f"{name} must be a finite number, got {value!r}")
    return v
