"""The one table from widget keys to ``ExperimentConfig`` fields (pure: no Streamlit here).

Defaults come from the engine's dataclasses, so the app, the CLI and the library agree.
:func:`config_from_values` (settings → config) and :func:`values_from_config` (a link or a
config file → settings) both read :data:`FIELDS` and the truncation methods' own descriptions of
their parameters (:data:`~dpsum_core.truncation.registry.PARAMETERS`); the few settings that are
not one field each (workload, truncation) are written out next to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dpsum_core.data.domain import Domain
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.recommend import recommend
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.truncation.method import Param
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.registry import PARAMETERS, REGISTRY

from . import keys as K

NAMED_WORKLOADS = ("Q1", "Q2", "Q3")
DEFAULT_SAMPLE = "incomes.csv"
# The ε slider's stops (1, 2, 3, 5 per decade); any other ε is typed in the field beside it.
EPSILON_GRID: tuple[float, ...] = (
    0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5,
    1.0, 2.0, 3.0, 5.0, 10.0,
)  # fmt: skip
COMPARE_VIEWS: tuple[str, ...] = ("heatmap", "error", "answers")
_CONFIG = ExperimentConfig()


@dataclass(frozen=True)
class Field:
    """One widget holding one config field."""

    key: str
    name: str
    label: str

    @property
    def default(self) -> Any:
        """The engine's default, as the widget holds it (tuples as lists)."""
        value = getattr(_CONFIG, self.name)
        return list(value) if isinstance(value, tuple) else value


FIELDS: tuple[Field, ...] = (
    Field(K.EPSILON, "epsilon", "epsilon"),
    Field(K.RHO, "rho", "rho"),
    Field(K.ALGORITHMS, "algorithms", "algorithms"),
    Field(K.TRIALS, "trials", "trials"),
    Field(K.DELTA, "delta", "delta"),
    Field(K.SEED, "seed", "seed"),
    Field(K.DOMAIN_UPPER, "upper", "upper bound U"),
    Field(K.DOMAIN_BINS, "bins", "bins"),
    Field(K.DOMAIN_WEIGHTS, "weights", "weights"),
)


def auto_key(param: Param) -> str:
    """The key of a parameter's "default from ε_θ" checkbox (``rm_beta_auto``)."""
    return f"{param.widget_key}_auto"


def param_defaults() -> dict[str, Any]:
    """The truncation parameters' widgets at their first values (and their "auto" boxes on)."""
    out: dict[str, Any] = {}
    for p in PARAMETERS.values():
        out[p.widget_key] = p.initial if p.default is None else p.default
        if p.auto:
            out[auto_key(p)] = True
    return out

# Settings that are not one config field each, and the page-only settings.
UI_DEFAULTS: dict[str, Any] = {
    K.DATA_SOURCE: "sample",
    K.DATA_SAMPLE: DEFAULT_SAMPLE,
    K.DATA_COLUMN: None,
    K.DATA_ID_COLUMN: None,
    K.DATA_SERVER: None,
    K.DATA_SERVER_PATH: "",
    K.RELEASE_DATA: "same",
    K.RELEASE_DATA_SAMPLE: DEFAULT_SAMPLE,
    K.RELEASE_DATA_COLUMN: None,
    K.RELEASE_ID_COLUMN: None,
    K.DOMAIN_BINS_MODE: "bins",
    K.DOMAIN_WIDTH: _CONFIG.upper / _CONFIG.bins,
    K.WORKLOAD_KIND: _CONFIG.workload,
    K.WORKLOAD_EVERY: 5,
    K.WORKLOAD_VALUES: "10000, 50000, 100000, 200000, 400000",
    K.TRUNCATION: _CONFIG.truncations[0],
    K.RM_BETA: 2 * _CONFIG.rho * _CONFIG.epsilon / 5,  # β's first value when not automatic
    K.ISO: True,
    K.TEACH_QUERY: None,
    K.TEACH_ALGORITHM: None,  # the ★ of the page's settings, unless a link names one
    K.TEACH_THETA: None,
    K.TEACH_PRIVATE: True,
    K.COMPARE_TRUNCATIONS: ["none", "svt", "recursive"],
    K.COMPARE_VIEW: "heatmap",
    K.SWEEP_EPSILONS: [0.001, 0.01, 0.1, 1.0],
    K.SWEEP_TRUNCATION: "svt",
    K.DECIDE_TARGET: "5",
    K.DECIDE_TARGET_ON: "error",
    K.DECIDE_ABOVE: 10.0,
    K.DECIDE_TRUNCATIONS: ["svt"],
}


def default_algorithms(config: ExperimentConfig) -> tuple[str, ...]:
    """The algorithms selected by default: the engine's default ones, with the algorithm
    recommended for ``config``'s public inputs (ε, U, bins, workload: the explorer's ★)
    among them — what a fresh session selects, and a link or file that names none."""
    base = tuple(_CONFIG.algorithms)
    rec = recommend(
        epsilon=config.epsilon, upper=config.upper, bins=config.bins, workload=config.workload
    ).algorithm
    return base if rec in base else (*base, rec)


def defaults() -> dict[str, Any]:
    """Initial settings: the paper's defaults, taken from the engine's own defaults, with the
    algorithm recommended at those defaults (public inputs only) always among those selected."""
    out = {**param_defaults(), **UI_DEFAULTS, **{f.key: f.default for f in FIELDS}}
    out[K.ALGORITHMS] = list(default_algorithms(_CONFIG))
    return out


def workload_spec(get: Callable[[str], Any]) -> str:
    """The workload text (``Q1``, ``every:K``, ``values:…``) from the settings."""
    kind = get(K.WORKLOAD_KIND)
    if kind in NAMED_WORKLOADS:
        return kind
    if kind == "every":
        k = get(K.WORKLOAD_EVERY)
        if k is None:
            raise ParameterError("every K-th edge needs K: enter a whole number ≥ 1")
        return f"every:{int(k)}"
    text = (get(K.WORKLOAD_VALUES) or "").strip()
    if not text:
        raise ParameterError("values: needs at least one threshold, e.g. 10000, 50000")
    return f"values:{text}"


def config_from_values(
    get: Callable[[str], Any],
    *,
    domain: Domain | None = None,
    truncations: tuple[str, ...] | None = None,
    algorithms: tuple[str, ...] | None = None,
) -> ExperimentConfig:
    """The ExperimentConfig that the settings read by ``get(key)`` describe.

    ``domain``: the public domain as resolved from the Data page (which may set the bin
    width rather than n); it replaces the U, n and weight-rule settings.

    Raises
    ------
    ParameterError
        A setting is empty or out of range (the engine's validators word the message).
    """

    def value(field: Field) -> Any:
        v = get(field.key)
        if v is None:
            raise ParameterError(f"{field.label} is empty: enter a value")
        return tuple(v) if isinstance(v, list) else v

    truncs = truncations or (get(K.TRUNCATION),)
    top = {f.name: value(f) for f in FIELDS}
    if algorithms is not None:
        top["algorithms"] = tuple(algorithms)
    if domain is not None:
        top.update(upper=domain.upper, bins=domain.bins, weights=domain.weights)
    return ExperimentConfig(
        workload=workload_spec(get),
        truncations=tuple(truncs),
        truncation_params=params_from_values(get, truncs),
        **top,
    )


def params_from_values(get: Callable[[str], Any], truncations: tuple[str, ...]) -> TruncationParams:
    """The truncation parameters the settings read by ``get(key)`` describe: a parameter that
    must be given (a fixed θ) only when its method is chosen, ``None`` for an empty optional one
    or a ticked "auto" box (the engine's default)."""
    values: dict[str, Any] = {}
    for method in REGISTRY.values():
        for p in method.params:
            v = get(p.widget_key)
            if (p.missing and method.name not in truncations) or (p.auto and get(auto_key(p))):
                v = None
            elif v is None and (p.missing or p.default is not None):
                raise ParameterError(f"{method.label}: {p.label} is empty: enter a value")
            values[p.name] = float(v) if v is not None and p.numeric else v
    return TruncationParams(**values)


def values_from_config(config: ExperimentConfig) -> dict[str, Any]:
    """The settings that reproduce ``config`` (for a link or a config file)."""
    out: dict[str, Any] = {}
    for f in FIELDS:
        v = getattr(config, f.name)
        out[f.key] = list(v) if isinstance(v, tuple) else type(f.default)(v)
    tp = config.truncation_params
    for p in PARAMETERS.values():
        v = getattr(tp, p.name)
        if p.auto:
            out[auto_key(p)] = v is None
        if v is not None or not (p.auto or p.missing):
            out[p.widget_key] = None if v is None else float(v) if p.numeric else str(v)
    spec = config.workload
    if spec.upper() in NAMED_WORKLOADS:
        out[K.WORKLOAD_KIND] = spec.upper()
    elif spec.lower().startswith("every:"):
        out[K.WORKLOAD_KIND] = "every"
        out[K.WORKLOAD_EVERY] = int(spec.split(":", 1)[1])
    else:
        out[K.WORKLOAD_KIND] = "values"
        values = spec.split(":", 1)[1].split(",")
        out[K.WORKLOAD_VALUES] = ", ".join(v.strip() for v in values if v.strip())
    out[K.TRUNCATION] = config.truncations[0]
    if len(config.truncations) > 1:
        out[K.COMPARE_TRUNCATIONS] = list(config.truncations)
    out[K.DOMAIN_BINS_MODE] = "bins"
    out[K.DOMAIN_WIDTH] = float(config.upper / config.bins)
    return out
