"""ExperimentConfig: everything that determines a run except the data; round-trips through JSON."""


from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace

from dpsum_core import limits
from dpsum_core.data.domain import Domain
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.recommend import AUTO, CLAMPSHELLS_UP_TO, resolve_auto
from dpsum_core.mechanisms.registry import ALGORITHMS, DEFAULT_ALGORITHMS
from dpsum_core.text import noun, number
from dpsum_core.truncation.params import TruncationParams, missing
from dpsum_core.truncation.registry import PARAMETERS, TRUNCATION_METHODS
from dpsum_core.validation import check_epsilon, check_int, check_positive, check_rho


@dataclass(frozen=True)
class ExperimentConfig:
    """Everything that determines a run, except the data. Round-trips through JSON.

    Defaults are the paper's: U = 800 000, n = 1000, ε = 0.01, ρ = 0.1, 100 trials, δ = 100.
    ``algorithms`` may list ``auto``: it is replaced, here and before anything runs, by the
    algorithm :func:`~dpsum_core.mechanisms.recommend.recommend` picks from the public ε, U,
    n and workload, so the config (and every output written from it) names what ran.
    """

    workload: str = "Q1"
    epsilon: float = 0.01
    rho: float = 0.1
    truncations: tuple[str, ...] = ("svt",)
    algorithms: tuple[str, ...] = DEFAULT_ALGORITHMS
    trials: int = 100
    delta: float = 100.0
    seed: int = 0
    upper: float = 800_000.0
    bins: int = 1000
    weights: str = "upper"
    truncation_params: TruncationParams = field(default_factory=TruncationParams)
    # A public top code (0 < cap ≤ U) the user states as public knowledge: ClampShells clamps
    # there at no ε cost instead of locating θ* (never read from the data).
    public_cap: float | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "epsilon", check_epsilon(self.epsilon))
        set_(self, "rho", check_rho(self.rho))
        set_(self, "trials", check_int(self.trials, "trials", low=1, high=limits.MAX_TRIALS))
        set_(self, "delta", check_positive(self.delta, "delta"))
        set_(self, "seed", check_int(self.seed, "seed", low=0, high=2**63 - 1))
        set_(self, "truncations", _subset(self.truncations, TRUNCATION_METHODS, "truncation"))
        set_(self, "algorithms", _subset(self.algorithms, (*ALGORITHMS, AUTO), "algorithm"))
        if isinstance(self.truncation_params, dict):
            set_(self, "truncation_params", TruncationParams(**self.truncation_params))
        if needed := missing(self.truncation_params, self.truncations):
            raise ParameterError(needed)
        self.domain  # validates U, n and the weight rule  # noqa: B018
        resolved, _ = resolve_auto(
            self.algorithms, epsilon=self.epsilon, upper=self.upper, bins=self.bins,
            workload=self.workload,
        )
        set_(self, "algorithms", tuple(a for a in ALGORITHMS if a in resolved))
        if "svt" in self.truncations:
            self.truncation_params.check_svt_grid(self.upper)
        if "fixed" in self.truncations:
            _check_fixed_theta(self.truncation_params.theta, self.upper)
        if self.public_cap is not None:
            set_(self, "public_cap", _check_cap(self.public_cap, self.upper, self.algorithms))

    @property
    def domain(self) -> Domain:
        """The public domain."""
        return Domain(self.upper, self.bins, self.weights)  # type: ignore[arg-type]  # validated

    def to_dict(self) -> dict:
        """Plain dict (lists for tuples) for JSON; ``public_cap`` only when one is set."""
        out = asdict(self)
        if self.public_cap is None:
            del out["public_cap"]
        out["truncation_params"] = self.truncation_params.as_dict()
        out["truncations"] = list(self.truncations)
        out["algorithms"] = list(self.algorithms)
        return out

    def to_json(self) -> str:
        """JSON text; :meth:`from_json` restores an equal config."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict) -> ExperimentConfig:
        """Build from a dict, rejecting unknown keys with a clear message."""
        if not isinstance(data, dict):
            raise ParameterError("a configuration must be a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ParameterError(f"unknown configuration {noun(len(unknown), 'key')}: {', '.join(unknown)}")
        data = dict(data)
        tp = data.get("truncation_params")
        if tp is not None:
            if not isinstance(tp, dict):
                raise ParameterError("truncation_params must be an object")
            bad = sorted(set(tp) - set(PARAMETERS))
            if bad:
                raise ParameterError(f"unknown truncation {noun(len(bad), 'parameter')}: {', '.join(bad)}")
            data["truncation_params"] = TruncationParams(**tp)
        for key in ("truncations", "algorithms"):
            if key in data:
                value = data[key]
                data[key] = tuple(value.split(",")) if isinstance(value, str) else tuple(value)
        try:
            return cls(**data)
        except TypeError as exc:
            raise ParameterError(f"invalid configuration: {exc}") from None

    @classmethod
    def from_json(cls, text: str | bytes) -> ExperimentConfig:
        """Parse JSON text produced by :meth:`to_json`."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ParameterError(
                f"the configuration is not valid JSON ({exc.msg if hasattr(exc, 'msg') else exc})"
            ) from None
        return cls.from_dict(data)

    def with_(self, **changes) -> ExperimentConfig:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)


def _check_cap(cap: float, upper: float, algorithms: tuple[str, ...]) -> float:
    """A public cap: positive, at most U, and only with ClampShells (the algorithm that uses it)."""
    cap = check_positive(cap, "public cap")
    if cap > upper:
        raise ParameterError(
            f"the public cap ({number(cap)}) is above U ({number(upper)}): a cap is at most U (cleaning "
            "already clips every value to U)"
        )
    if "clampshells" not in algorithms:
        raise ParameterError(
            "a public cap is used by ClampShells only (it clamps there at no ε cost): choose "
            f"clampshells (or auto at ε ≤ {CLAMPSHELLS_UP_TO:g}), or leave the cap out"
        )
    return cap


def _check_fixed_theta(theta: float | None, upper: float) -> None:
    """A fixed θ is at most U: cleaning clips every value to U, so a θ above U would truncate
    nothing while a report said it truncated at θ (the reviewer's "θ = U = 500" with U = 200)."""
    if theta is not None and theta > upper:
        raise ParameterError(
            f"the fixed θ ({number(theta)}) is above U ({number(upper)}): no value exceeds U after cleaning, "
            "so it would truncate nothing; set θ ≤ U, or choose no truncation"
        )


def _subset(values, allowed: tuple[str, ...], name: str) -> tuple[str, ...]:
    if isinstance(values, str):
        values = values.split(",")
    items = tuple(str(v).strip().lower() for v in values if str(v).strip())
    if not items:
        raise ParameterError(f"choose at least one {name} ({', '.join(allowed)})")
    bad = [v for v in items if v not in allowed]
    if bad:
        raise ParameterError(f"unknown {name} {bad[0]!r}: choose from {', '.join(allowed)}")
    # Canonical order, no duplicates: results do not depend on how the list was typed.
    return tuple(v for v in allowed if v in items)
