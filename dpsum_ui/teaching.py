"""The single-query page's analysis: engine calls (θ curves, θ samples) and their figures."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from dpsum_core.algorithms import label
from dpsum_core.budget import budget_split
from dpsum_core.mechanisms import sqm_scale
from dpsum_core.workloads import make_workload

from . import compute, figs, present, state
from . import keys as K


@dataclass(frozen=True)
class TeachingView:
    """Everything the page shows for the chosen query, algorithm and θ."""

    figure: go.Figure
    all_figure: go.Figure
    at_theta: dict[str, float]
    best: float
    true_answer: float
    text: dict[str, str]


def analyse(ctx: state.DataContext, plan: state.Plan, *, private: bool) -> TeachingView:
    """Curves over θ for the chosen query, θ samples of SVT/Recursive, and the explanations."""
    data, domain, config = ctx.dataset, ctx.domain, plan.config
    taus = [float(t) for t in plan.workload.thresholds]
    tau = float(state.get(K.TEACH_QUERY))
    query = taus.index(tau)
    theta = float(state.get(K.TEACH_THETA))
    algorithm = state.get(K.TEACH_ALGORITHM) or "identity"
    grid = present.theta_grid(domain)
    curves = compute.curves(data, config, query=query, thetas=np.asarray(grid), private=private)
    samples = {}
    if private:
        samples = {t: compute.samples(data, config, t) for t in ("svt", "recursive")}
    best = present.best_theta(curves, algorithm)
    eps_theta, eps_m = budget_split(config.epsilon, config.rho, "svt" if private else "fixed")
    single = make_workload(f"values:{tau!r}", domain)
    scale = float(sqm_scale(single, np.array([[theta]]), epsilon_measure=eps_m)[0, 0])
    title_tail = (
        f"<br><sup>{data.name} · q_τ with τ = {tau:,.0f} · ε = {config.epsilon:g}"
        + (f", ρ = {config.rho:g} (θ private)" if private else " (θ fixed, public)")
        + "</sup>"
    )
    key = (state.result_key(data, config), query, private, algorithm, theta)
    figure = compute.figure(
        ("teach", *key, tuple(samples)),
        lambda: figs.theta_curves_figure(
            curves,
            algorithm,
            theta=theta,
            best=best,
            samples=samples,
            title=f"{label(algorithm)}: bias² and variance over θ" + title_tail,
        ),
    )
    all_figure = compute.figure(
        ("teach_all", *key[:3], theta),
        lambda: figs.all_algorithms_figure(
            curves, theta=theta, title="Expected error of every algorithm" + title_tail
        ),
    )
    return TeachingView(
        figure=figure,
        all_figure=all_figure,
        at_theta=present.at_theta(curves, algorithm, theta),
        best=best,
        true_answer=float(data.sum_at_most(np.array([tau]))[0]),
        text=present.teaching_text(
            tau=tau, theta=theta, epsilon=config.epsilon, eps_theta=eps_theta, eps_m=eps_m,
            scale=scale,
        ),
    )  # fmt: skip
