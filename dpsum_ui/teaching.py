"""The single-query page's analysis: engine calls (θ curves, bias parts, θ samples) and their
figures. The curves over the θ grid are computed once per query; the page's one θ slider moves
the chart's marker, the numbers and the sentences together."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpsum_core.mechanisms.registry import get, label
from dpsum_core.mechanisms.sqm import sqm_scale
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.plots.style import domain_text, file_stem
from dpsum_core.simulate.budget import budget_split

from . import compute, figs, present, state
from . import keys as K


@dataclass(frozen=True)
class TeachingView:
    """Everything the page shows for the chosen query, algorithm and θ."""

    figure: go.Figure
    # built when called: the page draws it only while its expander is open
    all_figure: Callable[[], go.Figure]
    at_theta: dict[str, float]
    best: float
    true_answer: float
    text: dict[str, str]
    stem: str  # download file names: dataset, workload, ε, seed, τ


def components(curves: pd.DataFrame, parts: tuple, algorithm: str) -> pd.DataFrame:
    """One algorithm's error over θ with its bias split: truncation bias², binning bias²
    (none for an algorithm that sums the exact values, as SQM), variance and the total."""
    part = curves[curves["algorithm"] == algorithm].reset_index(drop=True)
    truncation, binning = parts
    binning = binning if get(algorithm).binned else 0.0
    return pd.DataFrame(
        {
            "theta": part["theta"],
            "truncation_bias": truncation,
            "binning_bias": binning,
            "truncation_bias2": truncation**2,
            "binning_bias2": binning**2,
            "variance": part["variance"],
            "total": part["total"],
        }
    )


def readout(row: pd.Series, scale: float) -> str:
    """The figure's readout at the chosen θ, in the data's unit (no squared errors)."""
    return (
        f"<b>θ = {row['theta']:,.0f} · expected error (RMSE) "
        f"{present.money(row['total'] ** 0.5)}</b><br>"
        f"truncation bias {present.money(row['truncation_bias'])} · "
        f"binning bias {present.money(row['binning_bias'])}<br>"
        f"noise (standard deviation) {present.money(row['variance'] ** 0.5)} · "
        f"Laplace scale {present.money(scale)}"
    )


def analyse(ctx: state.DataContext, plan: state.Plan, *, private: bool) -> TeachingView:
    """Curves over θ for the chosen query, θ samples of SVT/Recursive, and the explanations."""
    data, domain, config, workload = ctx.dataset, ctx.domain, plan.config, plan.workload
    # The page returned on ctx.error and plan.error, so none of these is None here.
    assert data is not None and domain is not None and config is not None and workload is not None
    taus = [float(t) for t in workload.thresholds]
    tau = float(state.get(K.TEACH_QUERY))
    query = taus.index(tau)
    theta = float(state.get(K.TEACH_THETA))
    algorithm = state.get(K.TEACH_ALGORITHM) or "identity"
    grid = np.asarray(present.theta_grid(domain), dtype=float)
    curves = compute.curves(data, config, query=query, thetas=grid, private=private)
    parts = compute.bias_parts(data, domain, tau, grid)
    table = components(curves, parts, algorithm)
    samples: dict[str, np.ndarray] = {}
    if private:
        samples = {t: compute.samples(data, config, t) for t in ("svt", "recursive")}
    best = float(grid[int(np.argmin(table["truncation_bias2"] + table["variance"]))])
    eps_theta, eps_m = budget_split(config.epsilon, config.rho, "svt" if private else "fixed")
    single = make_workload(f"values:{tau!r}", domain)
    scales = sqm_scale(single, grid[:, None], epsilon_measure=eps_m)[:, 0]
    at = int(np.argmin(np.abs(grid - theta)))
    # Two short subtitle lines, so that neither is cut at 1280 px (a projector's width).
    title_tail = (
        f"<br><sup>{data.name} · q_τ with τ = {tau:,.0f} · "
        f"{domain_text(domain.upper, domain.bins)}</sup>"
        f"<br><sup>ε = {config.epsilon:g}"
        + (f", ρ = {config.rho:g} (θ private)" if private else " (θ fixed, public)")
        + "</sup>"
    )
    key = (state.result_key(data, config), query, private, algorithm)
    figure = compute.figure(
        ("teach", *key, theta, tuple(samples)),
        lambda: figs.theta_curves_figure(
            table,
            algorithm,
            theta=theta,
            best=best,
            samples=samples,
            readout=readout(table.iloc[at], float(scales[at])),
            title=f"{label(algorithm)}: error over θ" + title_tail,
        ),
    )
    def all_figure() -> go.Figure:
        return compute.figure(
            ("teach_all", *key[:3], theta),
            lambda: figs.all_algorithms_figure(
                curves, theta=theta, title="Expected error of every algorithm" + title_tail
            ),
        )
    row = table.iloc[at]
    stem = file_stem(
        data.name, config.workload, f"eps{config.epsilon:g}", f"seed{config.seed}", f"tau{tau:g}"
    )
    return TeachingView(
        stem=stem,
        figure=figure,
        all_figure=all_figure,
        at_theta={k: float(row[k]) for k in (
            "truncation_bias", "binning_bias", "truncation_bias2", "binning_bias2", "variance",
            "total")},
        best=best,
        true_answer=float(data.sum_at_most(np.array([tau]))[0]),
        text=present.teaching_text(
            tau=tau, theta=theta, epsilon=config.epsilon, eps_theta=eps_theta, eps_m=eps_m,
            scale=float(scales[at]), weights=domain.weights, width=domain.width,
            exact=not get(algorithm).binned, algorithm_label=label(algorithm),
        ),
    )  # fmt: skip
