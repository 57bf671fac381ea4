"""What a truncation method is: its record (:class:`Truncation`) and the description of each of
its public parameters (:class:`Param`), written once in the method's own module.

The configuration (:class:`~dpsum_core.truncation.params.TruncationParams`), the command line's
options, the dashboard's widgets, its links, the ``dpsum`` command lines written for a user and
the release report all read these descriptions; none of them names a method's parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from dpsum_core.truncation.choice import ThetaLaw, ThresholdChoice

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


class Values(Protocol):
    """The parameters in force, by name (``params.svt_r``): what a method's functions read.

    :class:`~dpsum_core.truncation.params.TruncationParams` is one; the protocol keeps the
    methods' modules below it (no import cycle, even for annotations)."""

    def __getattr__(self, name: str) -> Any: ...


Choose = Callable[..., ThresholdChoice]  # (data, *, epsilon, upper, params, trials, rng, tau)
Laws = Callable[..., list[ThetaLaw]]  # (data, *, epsilons, upper, params, tau)
CutPoints = Callable[[Values, float], np.ndarray]  # (params, U) -> public points
Distinct = Callable[[Values, float, int], int]  # (params, U, trials) -> distinct θ
Check = Callable[[Any], Any]  # raises ParameterError naming the parameter, else returns


def one_theta(params: Values, upper: float, trials: int) -> int:
    """Distinct θ over ``trials`` trials (for cost estimates): one, public."""
    return 1


@dataclass(frozen=True)
class Param:
    """One public parameter of a truncation method, described once.

    Attributes
    ----------
    name
        Its name in configurations, run.json, release.json and links (``svt_r``).
    flag
        Its command-line option (``--svt-r``).
    label
        Its widget's label (``r (fraction)``).
    help
        The command line's help (``None``: none, argparse shows the flag alone).
    default
        The engine's default; ``None`` means resolved where its inputs are known (see
        ``per_upper`` and ``auto``) or, with ``missing``, that the user must give it.
    check
        ``check(value)`` raises ParameterError naming the parameter (a given value only).
    choices
        The allowed values of a text parameter (a radio in the dashboard).
    low, high, step
        The widget's bounds and step (the engine's ``check`` is the rule; these only guide).
    explain
        The widget's help; a function of the widget's computed lower bound (see ``floor``).
    per_upper
        Empty means U·:data:`START_FRACTION` (follows the column's unit).
    auto
        Empty means a default computed from ε_θ; the checkbox label saying which (its key is
        ``<key>_auto``).
    initial
        The widget's first value when the engine's default is ``None`` and the field is not
        left empty (a fixed θ, a β to start from).
    missing
        The message when a method that needs this parameter runs without it.
    key
        The dashboard's widget key (default: ``name``).
    floor
        ``floor(U, values) -> lowest allowed value | None`` for the widget (SVT's c), from
        public values only.
    """

    name: str
    flag: str
    label: str
    help: str | None = None
    default: Any = None
    check: Check | None = None
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    step: float | None = None
    explain: str | Callable[[float | None], str] | None = None
    per_upper: bool = False
    auto: str | None = None
    initial: Any = None
    missing: str | None = None
    key: str = ""
    floor: Callable[[float, Callable[[str], Any]], float | None] | None = None

    @property
    def widget_key(self) -> str:
        """The dashboard's widget key."""
        return self.key or self.name

    @property
    def numeric(self) -> bool:
        """Whether the parameter is a number (else a text among ``choices``)."""
        return not self.choices

    def in_force(self, params: Values, upper: float) -> Any:
        """The value in force for U: the given one, or U·START_FRACTION for ``per_upper``."""
        value = getattr(params, self.name)
        return upper * START_FRACTION if value is None and self.per_upper else value

    def validate(self, value: Any) -> None:
        """Raise ParameterError if a given value is not allowed (``None`` is "not given")."""
        if value is not None and self.check is not None:
            self.check(value)


@dataclass(frozen=True)
class Truncation:
    """What dpsum knows about one way of choosing θ.

    Attributes
    ----------
    name
        Identifier in configs, the CLI, files and links (``svt``).
    label
        Display name (``SVT``), the same in figures, tables and widgets.
    dash
        Line dash of its curves where algorithms are told apart by colour (decision figure).
    stream_id
        Fixed key of its random streams; never reused or renumbered (shared links rely on it).
        Methods are listed (options, runs, figures) in the order of their stream_id.
    spends_rho
        Whether θ is chosen from the data, spending ε_θ = ρε (the ledger's first line).
    choose, laws, cut_points
        θ for many trials; the law of θ at each ε_θ (analytic error, no noise); the public points
        a data summary must hold for it. ``None`` for the θ rules of algorithms that choose θ
        themselves (RawSum's ``posthoc``, ClampShells' ``inside``: their algorithm's record).
    distinct_thetas
        ``(params, U, trials) -> int``: how many distinct θ ``trials`` trials can draw, from
        public parameters only (TaMM builds one strategy per distinct θ; simulate.cost).
    description
        The method in plain words, for reports (``θ chosen privately with …``).
    source
        Where θ comes from, in the Explorer's words (``SVT (AboveThreshold)``).
    params
        Its public parameters, in the order of the command line, links and files.
    title
        The heading of its parameters in the dashboard (default: ``label``).
    caution
        What the dashboard says beside its parameters that must be given (a fixed θ's warning).
    """

    name: str
    label: str
    dash: str
    stream_id: int
    spends_rho: bool
    choose: Choose | None = None
    laws: Laws | None = None
    cut_points: CutPoints | None = None
    distinct_thetas: Distinct = one_theta
    description: str = ""
    source: str = ""
    params: tuple[Param, ...] = ()
    title: str = ""
    caution: str = ""

    @property
    def heading(self) -> str:
        """The heading of its parameters in the dashboard."""
        return self.title or self.label

    @property
    def chosen(self) -> bool:
        """Whether it is a method one chooses (not an algorithm's own θ rule)."""
        return self.choose is not None
