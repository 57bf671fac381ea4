"""Plot style shared by every figure: Okabe–Ito colours fixed per algorithm, names, dashes, titles,
file stems. Colour is never the only cue (WCAG 1.4.1): each algorithm also has a marker and dash.
"""


from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dpsum_core.data.cleaning import unit_of_privacy
from dpsum_core.mechanisms.registry import REGISTRY
from dpsum_core.simulate.results import ExperimentResult
from dpsum_core.text import counted, escape_name, number

if TYPE_CHECKING:  # analytics imports this module
    pass


# Non-colour cues per algorithm live in its registry record (dash, symbol); "dash" is left to
# the true answers and "dot" to analytic curves.
MARKERS_PER_LINE = 12  # enough to tell the lines apart, few enough not to hide them
TRUE_COLOR = "#000000"
ERROR_FLOOR = 1e-6
_LAYOUT = dict(
    template="plotly_white",
    font=dict(size=14),
    legend=dict(orientation="v", yanchor="top", y=1, xanchor="left", x=1.02),
    margin=dict(l=60, r=20, t=90, b=60),
    hovermode="x unified",
)


# Axis words and formats shared by the figures. Amounts (sums, thresholds, θ, errors in the
# data's unit) are labelled as such: the data's unit (dollars, hours, …) is not known by name.
IN_UNIT = ", in the data's unit"
# Relative errors on a log axis: ticks in percent (1%, 10%), as every table and sentence writes
# them (never 10⁻²); hover with three significant digits.
PERCENT_LOG = dict(type="log", tickformat=",~%", hoverformat=",.3~%")
# An annotation shown in the browser only (a hint about the chart's toolbar or gestures): static
# exports (PNG, SVG; :func:`dpsum_core.plots.export.to_image`) leave it out.
INTERACTIVE_ONLY = "interactive_only"


def log_ticks(values, *, amounts: bool = False) -> dict:
    """Tick settings of a log axis over ``values``, so that its labels never crowd: from two
    decades up, labels at the powers of ten only (unlabelled minor ticks between); under two,
    at 1, 2 and 5 times them (Plotly's own choice labels every digit there). ``amounts``: the
    labels are whole numbers with thousands separators (800,000; never 800k nor 2G)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    wide = v.size > 0 and np.log10(v.max() / v.min()) >= 2
    ticks: dict = (
        dict(dtick=1, minor=dict(ticks="outside", ticklen=3, showgrid=False)) if wide
        else dict(dtick="D2")
    )  # fmt: skip
    return {**ticks, "tickformat": ",~r"} if amounts else ticks


def algorithm_style(algorithm: str, *, width: float = 2, dash: str | None = None) -> dict:
    """``mode``, ``line`` and ``marker`` of an algorithm's line: its colour, its dash pattern
    (or ``dash``) and a few of its marker symbols, so that lines differ without colour."""
    record = REGISTRY.get(algorithm)
    color = record.color if record else "#777777"
    return dict(
        mode="lines+markers",
        line=dict(color=color, width=width, dash=dash or (record.dash if record else "solid")),
        marker=dict(
            symbol=record.symbol if record else "circle",
            size=8,
            color=color,
            maxdisplayed=MARKERS_PER_LINE,
        ),
    )


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"






def domain_text(upper: float, bins: int) -> str:
    """The public domain in a subtitle: ``U = 800,000, 1,000 bins``."""
    return f"U = {number(float(f'{upper:.6g}'))}, {bins:,} bins"  # never "1e+06"


def unit_text(id_column: str | None) -> str:
    """The unit of privacy in a subtitle when it is a person of several rows (`` · one person
    = all rows with the same 'pid'``, escaped for Plotly); nothing for the default, one row =
    one person."""
    return "" if id_column is None else f" · {escape_name(unit_of_privacy(id_column), 'plotly')}"


def _title(text: str, result: ExperimentResult) -> str:
    c = result.config
    # ρ only matters when θ is chosen privately (SVT, Recursive)
    rho = f", ρ = {c.rho:g}" if {"svt", "recursive"} & set(c.truncations) else ""
    return (
        f"{text}<br><sup>{escape_name(result.dataset_name, 'plotly')}{unit_text(result.cleaning.get('id_column'))} · "
        f"{result.workload.spec} · "
        f"{domain_text(c.upper, c.bins)} · ε = {c.epsilon:g}{rho} · "
        f"{counted(c.trials, 'trial')} · seed {c.seed}</sup>"
    )


def file_stem(dataset: str, *parts: str) -> str:
    """A download's file name without extension, saying what it shows:
    ``file_stem("incomes.csv", "Q1", "eps0.01", "seed0", "answers")`` →
    ``dpsum_incomes_Q1_eps0.01_seed0_answers`` (characters unsafe in file names become -)."""
    return escape_name("_".join(["dpsum", Path(dataset).stem, *parts]), "file")


def run_stem(result: ExperimentResult, what: str) -> str:
    """File name of a download of one run: dataset, workload, ε, seed and ``what``."""
    c = result.config
    return file_stem(
        result.dataset_name, result.workload.spec, f"eps{c.epsilon:g}", f"seed{c.seed}", what
    )
