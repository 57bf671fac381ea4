"""The single-query page's analysis: engine calls (θ curves, bias parts, θ samples) and their
figures. The curves over the θ grid are computed once per query; the page's one θ slider moves
the chart's marker, the numbers and the sentences together."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpsum_core.data.dataset import Statistics
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.registry import ALGORITHMS, OWN_THETA, get, label
from dpsum_core.mechanisms.registry import truncation as theta_rule
from dpsum_core.mechanisms.sqm import sqm_scale
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.plots.data import data_histogram_figure
from dpsum_core.plots.export import IMAGE_SIZE, marked
from dpsum_core.plots.style import INTERACTIVE_ONLY, domain_text, file_stem
from dpsum_core.simulate.budget import algorithm_split
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.text import counted, summed, unit_nouns

from . import compute, figs, memo, present, state
from . import keys as K
from .draws import draws_payload, noisy_answers
from .lesson import figure_json, lesson_html, lesson_shell, markdown_html, plotly_url
from .names import shown_name
from .noise_record import answer_scale
from .page import Link
from .passes import with_passes
from .share import ViewParams

# What a Single query link shows beyond the configuration (dpsum_ui.share.view_to_query).
VIEW: ViewParams = {
    "tau": (K.TEACH_QUERY, "number", None),
    "theta": (K.TEACH_THETA, "number", None),
    "algorithm": (K.TEACH_ALGORITHM, "text", ALGORITHMS),
    "private": (K.TEACH_PRIVATE, "flag", None),
}

# Under the lesson's numbers (the true answer, the count between θ and τ: exact, from the data).
UNNOISED = "Computed from the data without noise: for teaching, not for publication."
# The same for data that is not a bundled sample (an upload, a server dataset): there "for
# teaching" read as leave to show a class an upload's exact numbers (review 9 P1-1).
UNNOISED_PRIVATE = (
    "Exact statistics of this data, computed without noise: showing them to a class or to "
    "anyone discloses them. To teach, use a sample or a synthetic file."
)
# The downloaded lesson holds the data's histogram too: said on its button and at its top.
LESSON_PRIVATE = (
    "This file holds exact statistics of the data (its histogram, the true answers), "
    "computed without noise: showing it to a class or to anyone discloses them. To teach, "
    "use a sample or a synthetic file."
)


LESSON_ALGORITHM = "tamm"  # the page's first algorithm: its θ is the slider (review 9, P2-7)


def star_line(best: str | None, chosen: str) -> str | None:
    """The line under the picker while the lesson shows :data:`LESSON_ALGORITHM` and the ★
    (``best``, recommended for releases) is another one that chooses its own θ; else None.

    >>> star_line("clampshells", "tamm")
    '★ recommended for releases: ClampShells. The lesson uses TaMM because its θ is the slider.'
    >>> star_line("clampshells", "clampshells") is None
    True
    """
    if best is None or chosen != LESSON_ALGORITHM or best == chosen:
        return None
    return (f"★ recommended for releases: {label(best)}. The lesson uses {label(chosen)} "
            "because its θ is the slider.")  # fmt: skip


def unnoised_words(ctx: state.DataContext) -> str:
    """The caption under the lesson's exact numbers: :data:`UNNOISED` on a bundled sample
    (public, synthetic), :data:`UNNOISED_PRIVATE` on any other data.

    Privacy
    -------
    The numbers are the data's own, without noise; only a sample's may be shown freely."""
    return UNNOISED if ctx.sample is not None else UNNOISED_PRIVATE


def redraws(link: Link) -> str | None:
    """A link is never run here: the page redraws its query, θ and curves from the settings
    (the curves by itself only within a link's budget, :func:`dpsum_ui.compute.analytic`)."""
    del link
    return "query, θ and curves"

T = TypeVar("T")


@dataclass(frozen=True)
class TeachingView:
    """Everything the page shows for the chosen query and algorithm, at every θ of the grid."""

    figure: go.Figure  # the chart at the starting θ (the lesson frame moves its marker)
    # built when called: the page draws it only while its expander is open
    all_figure: Callable[[], go.Figure]
    best: float
    stem: str  # download file names: dataset, workload, ε, seed, τ
    lesson: dict  # everything θ moves, per grid θ (dpsum_ui.lesson draws it in the browser)
    key: tuple  # what the view depends on (data, settings, query, θ mode, algorithm, start)


CHART_TEXT_PX = 16  # the smallest text of the lesson's chart in the app (a projector's minimum)

# Below this share of a curve's scale a bias is floating-point residue of a difference of
# large sums, not data: it is shown and drawn as an exact 0.
RESIDUE = 1e-9


def weighted(algorithm: str) -> bool:
    """Whether ``algorithm`` counts each record as its bin's weight (binning bias): the
    histogram algorithms, not SQM (exact values) nor the algorithms with their own θ (RawSum's
    bin sums and ClampShells' shell sums are sums of the exact values)."""
    alg = get(algorithm)
    return alg.binned and not alg.runs_once


def second_bias(algorithm: str) -> str:
    """What the second part of ``algorithm``'s bias is: ClampShells' is its **shell bias**
    (a query edge inside a shell, interpolated); the others' their binning bias (none for an
    algorithm that sums the exact values)."""
    return "shell bias" if algorithm in SHELL_BIAS else "binning bias"


SHELL_BIAS = ("clampshells",)  # algorithms whose second bias is :func:`second_bias`'s shell bias


def components(curves: pd.DataFrame, parts: tuple, algorithm: str,
               shells: tuple | None = None) -> pd.DataFrame:
    """One algorithm's error over θ with its bias split: truncation bias, binning bias (none
    for an algorithm that sums the exact values), variance and the total.
    ``shells``: ClampShells' split of its own bias (:func:`dpsum_ui.compute.shell_parts`:
    clamping at θ*, interpolation inside a shell), put in the truncation and binning columns
    (the page names the second one :func:`second_bias`).

    The total bias is the algorithm's own (``curves``, from its record's error function), so
    that RMSE² = (truncation + binning bias)² + variance at every θ for every algorithm:
    the binning bias is ``parts``' (the histogram's weights), the truncation bias the rest
    (values above θ counted as θ; for RawSum dropped, for ClampShells clamped at its θ*).
    ``parts``: :func:`dpsum_ui.compute.bias_parts`, whose sum gives the total bias its sign.
    """
    part = curves[curves["algorithm"] == algorithm].reset_index(drop=True)
    clamped, binned = (np.asarray(p, dtype=float) for p in parts)
    binning = binned if weighted(algorithm) else np.zeros_like(binned)
    bias2 = part["bias2"].to_numpy(dtype=float)
    if shells is not None:  # the engine's own split, signed: its sum is the bias
        truncation, binning = (np.asarray(p, dtype=float) for p in shells)
        total_bias = truncation + binning
    else:
        sign = np.where(clamped + binning > 0, 1.0, -1.0)
        total_bias = sign * np.sqrt(bias2)
        truncation = total_bias - binning
    variance = part["variance"].to_numpy(dtype=float)
    scale = max(float(np.max(np.abs(total_bias), initial=0.0)),
                float(np.max(np.sqrt(variance), initial=0.0)))  # fmt: skip
    truncation, binning = (np.where(np.abs(v) <= RESIDUE * scale, 0.0, v)
                           for v in (truncation, binning))  # fmt: skip
    return pd.DataFrame(
        {
            "theta": part["theta"],
            "truncation_bias": truncation,
            "binning_bias": binning,
            "truncation_bias2": truncation**2,
            "binning_bias2": binning**2,
            "variance": variance,
            "total": (truncation + binning) ** 2 + variance,
        }
    )


def noise_words(variance: float, scale: float | None, *, short: bool = False) -> str:
    """The noise of this answer: its SD (the engine's variance), and its Laplace scale b only
    where the answer is one Laplace draw (:func:`dpsum_ui.noise_record.answer_scale`);
    ``short``: without saying why there is no scale (a card's first lines)."""
    sd = present.money(variance**0.5)
    if scale is None:
        return f"noise SD {sd}" + ("" if short else " (combines noisy measurements)")
    return f"noise SD {sd} = √2 × Laplace scale {present.money(scale)}"


def readout(row: pd.Series, scale: float | None, second: str = "binning bias") -> str:
    """The figure's readout at the chosen θ, in the data's unit (no squared errors);
    ``scale``: this answer's Laplace scale, None if it combines several noisy measurements;
    ``second``: the name of the bias's second part (:func:`second_bias`)."""
    return (
        f"<b>θ = {row['theta']:,.0f} · expected error (RMSE) "
        f"{present.money(row['total'] ** 0.5)}</b><br>"
        f"truncation bias {present.money(row['truncation_bias'])} · "
        f"{second} {present.money(row['binning_bias'])}<br>"
        + noise_words(float(row["variance"]), scale)
    )


def analyse(data: Statistics, plan: state.Ready, *, private: bool) -> TeachingView | None:
    """Curves over θ for the chosen query, θ samples of SVT/Recursive, and the explanations;
    None while curves too heavy to compute by themselves wait for their button (raises
    :class:`~dpsum_core.simulate.cost.TooHeavy` above one click's budget)."""
    config, workload = plan.config, plan.workload
    domain = config.domain
    taus = [float(t) for t in workload.thresholds]
    tau = float(state.get(K.TEACH_QUERY))
    query = taus.index(tau)
    theta = float(state.get(K.TEACH_THETA))
    algorithm = str(state.get(K.TEACH_ALGORITHM))  # set by the page (LESSON_ALGORITHM at first)
    grid = np.asarray(present.theta_grid(domain), dtype=float)
    curves = compute.curves(data, config, query=query, thetas=grid, private=private)
    if curves is None:
        return None
    parts = compute.bias_parts(data, domain, tau, grid)
    shells = (compute.shell_parts(data, config, query, grid) if algorithm in SHELL_BIAS
              else None)  # fmt: skip
    table = components(curves, parts, algorithm, shells)
    second = second_bias(algorithm)
    alg = get(algorithm)
    samples: dict[str, np.ndarray] = {}
    if private and not alg.runs_once:  # RawSum and ClampShells use neither SVT nor Recursive
        samples = {t: compute.samples(data, config, t) for t in ("svt", "recursive")}
    best = float(grid[int(np.argmin(table["truncation_bias2"] + table["variance"]))])
    # The run's θ rule: the algorithm's own, else SVT's for a private θ (as the Explorer runs).
    rule = alg.theta_rule if alg.runs_once else ("svt" if private else "fixed")
    eps_theta, eps_m = algorithm_split(algorithm, config.epsilon, config.rho, rule,
                                       public_cap=config.public_cap)  # fmt: skip
    single = make_workload(f"values:{tau!r}", domain)
    scales = sqm_scale(single, grid[:, None], epsilon_measure=eps_m)[:, 0]
    at = int(np.argmin(np.abs(grid - theta)))
    drawn = _memo(data, (*state.result_key(data, config), "draws", query, algorithm, eps_m,
                         tuple(float(t) for t in grid)),
                  lambda: with_passes(data, lambda d: noisy_answers(
                      d, config, query=query, algorithm=algorithm, grid=grid, eps_m=eps_m)))
    # this answer's Laplace scale at each θ, as the algorithm's noise has it (None: combined)
    laplace = answer_scale(drawn.scale, table["variance"].to_numpy())
    noise: list[float | None] = ([float(b) for b in laplace] if laplace is not None
                                 else [None] * len(grid))  # fmt: skip
    # Two short subtitle lines, so that neither is cut at 1280 px (a projector's width).
    title_tail = (
        f"<br><sup>{shown_name(data.name, 'plotly')} · q_τ with τ = {tau:,.0f} · "
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
            readout=readout(table.iloc[at], noise[at], second),
            second=second,
            title=f"{label(algorithm)}: error over θ" + title_tail,
            axis_title=f"θ: where {label(algorithm)} would cut (it chooses its own θ)"
            if alg.runs_once else "truncation threshold θ",
        ),
        data,
    )
    def all_figure() -> go.Figure:
        return compute.figure(
            ("teach_all", *key[:3], theta),
            lambda: figs.all_algorithms_figure(
                curves, theta=theta, title="Expected error of every algorithm" + title_tail
            ),
            data,
        )

    by_person = data.report.id_column is not None  # q_τ sums people's totals

    def build_lesson() -> dict:
        texts = [
            present.teaching_text(
                tau=tau, theta=float(t), epsilon=config.epsilon, eps_theta=eps_theta,
                eps_m=eps_m, scale=float(s), weights=domain.weights, width=domain.width,
                exact=not weighted(algorithm), algorithm_label=label(algorithm),
                own_theta=theta_rule(rule).source if alg.runs_once else None,
                noise=(float(v) ** 0.5, b), queries=workload.size, per_query=alg.per_query,
                shells=algorithm in SHELL_BIAS, by_person=by_person,
            )
            for t, s, v, b in zip(grid, scales, table["variance"], noise, strict=True)
        ]
        truth = float(data.sum_at_most(np.array([tau]))[0])
        payload = lesson_payload(
            table, texts, noise, tau=tau, start=at, true_answer=truth,
            above=records_above(data, tau, grid), figure=figure, algorithm=algorithm,
            budget=(config.epsilon, eps_theta, eps_m), exact=(not weighted(algorithm), domain),
            theta_by=rule, units=unit_nouns(by_person),
        )
        own = label(algorithm) if alg.runs_once else None
        return {**payload, "demo": huge_value_demo(table, tau=tau, upper=domain.upper,
                                                   truth=truth, own=own, by_person=by_person),
                "draws": draws_payload(table, drawn, truth=truth, algorithm=algorithm,
                                       name=data.name, seed=config.seed)}

    # Built once per view, and once for every session on public data (dpsum_ui.memo).
    lesson = _memo(data, ("teach_lesson", *key, at), build_lesson)
    stem = file_stem(
        data.name, config.workload, f"eps{config.epsilon:g}", f"seed{config.seed}", f"tau{tau:g}"
    )
    return TeachingView(
        figure=figure, all_figure=all_figure, best=best, stem=stem, lesson=lesson,
        key=(*key, at),
    )  # fmt: skip


def _memo(data: Statistics, key: tuple, build: Callable[[], T]) -> T:
    """``build()`` once per key in this session, and once for every session on public data."""
    return state.memo("figure", key, lambda: memo.shared(data, ("figure", key), build))


def huge_value_demo(table: pd.DataFrame, *, tau: float, upper: float, truth: float,
                    own: str | None = None, by_person: bool = False) -> dict:
    """"Add one person with a huge value", at every grid θ: the untruncated q_τ moves by the
    newcomer's whole value (τ, the largest value q_τ counts; U for the whole sum), the
    truncated one by min(θ, τ) ≤ θ. ``table``: :func:`components` (the truncated sum is the
    true answer plus the signed truncation bias); ``own``: the label of an algorithm that
    picks its own cut (the slider's θ is then where it would cut); ``by_person``: q_τ sums
    people's totals (:func:`~dpsum_core.text.summed`), so the newcomer brings a huge total."""
    money = present.money
    one = "total" if by_person else "value"  # what q_τ compares with τ: a person's total

    def exact(value: float) -> str:  # every digit: the move must show in the sum itself
        return f"{value:,.0f}"

    whole = ("here τ = U: the whole sum" if tau >= upper
             else f"the whole sum, τ = U, would move by up to U = {money(upper)}")  # fmt: skip
    moves, truncated = [], []
    for r in table.itertuples(index=False):
        before = truth + float(r.truncation_bias)
        move = min(float(r.theta), tau)
        moves.append(move / tau if tau > 0 else 0.0)
        truncated.append(
            ("Truncated" if own is None else f"If {own} cut")
            + f" at θ = {r.theta:,.0f}: {exact(before)} → {exact(before + move)}, "
            + (f"it moves by {money(move)}: at most θ." if r.theta < tau else
               f"it moves by {money(move)} too: θ ≥ τ, so truncation changes nothing in q_τ "
               f"(move θ below τ = {tau:,.0f} to see the move shrink).")
        )
    newcomer = (f"A newcomer whose total (all their rows) is {money(tau)}" if by_person
                else f"A newcomer with the value {money(tau)}")  # fmt: skip
    return {
        "title": f"Add one person with a huge {one}",
        "intro": f"{newcomer}, the largest {one} q_τ counts (a {one} above τ is not in q_τ at "
        f"all; {whole}).",
        "untruncated": f"Without truncation: {exact(truth)} → {exact(truth + tau)}, it moves "
        f"by {money(tau)}.",
        "truncated": truncated,
        "bar": moves,  # the truncated move as a share of the untruncated one
        "outro": "The noise must cover the largest move one person can cause: τ without "
        "truncation (U for the whole sum), min(θ, τ) with it. So truncating at θ lets the noise "
        "be scaled to θ instead of τ.",
    }


def records_above(data: Statistics, tau: float, grid: np.ndarray) -> np.ndarray:
    """Records in (θ, τ] at each grid θ: those q_τ sums (values ≤ τ) and truncation counts
    as θ (none once θ ≥ τ; deterministic, memoised)."""
    key = (data.fingerprint, data.name, data.column, "above", tau, tuple(float(t) for t in grid))

    def count(d: Statistics) -> np.ndarray:
        at_most = d.count_at_most(np.minimum(np.append(grid, tau), tau))
        return np.asarray(at_most[-1] - at_most[:-1], dtype=np.int64)

    return state.memo("curves", key, lambda: with_passes(data, count))


def lesson_payload(
    table: pd.DataFrame,
    texts: list[dict[str, str]],
    scales: list[float | None],
    *,
    tau: float,
    start: int,
    true_answer: float,
    above: np.ndarray,
    figure: go.Figure,
    algorithm: str,
    budget: tuple[float, float, float],
    exact: tuple[bool, Domain],
    theta_by: str,
    units: tuple[str, str],
) -> dict:
    """What the page shows at every grid θ (one row of ``table``, one entry of ``texts`` and
    ``scales`` per θ: this answer's Laplace scale, None where it combines several noisy
    measurements), as plain strings for :func:`dpsum_ui.lesson.lesson_html`; ``units``: what
    the data counts (:func:`~dpsum_core.text.unit_nouns`: people under an identifier column)."""
    money = present.money
    rows = list(table.itertuples(index=False))
    epsilon, eps_theta, eps_m = budget
    exact_values, domain = exact
    rule = "the upper edge" if domain.weights == "upper" else "the midpoint"
    fig = figure_json(figure)
    # In the app the page's controls and summary say the rest: one title line, less margin.
    fig["layout"]["title"]["text"] = str(fig["layout"]["title"]["text"]).split("<br>")[0]
    # The readout above the plot; below it the ticks, θ's axis title (as in the files) and the
    # legend. Every text of the chart at CHART_TEXT_PX or more: it is read on a projector.
    layout = fig["layout"]
    layout["margin"] = {"l": 85, "r": 20, "t": 72, "b": 62}
    layout["title"].update({"y": 1, "pad": {"t": 4}})
    layout["legend"]["font"] = {"size": CHART_TEXT_PX}
    layout["annotations"][0]["font"]["size"] = CHART_TEXT_PX  # the readout
    axis = layout[f"xaxis{'2' if 'xaxis2' in layout else ''}"]
    axis["title"] = {**axis.get("title", {}), "font": {"size": CHART_TEXT_PX}}
    if "yaxis2" in layout:  # the SVT / Recursive row's labels
        layout["yaxis2"]["tickfont"] = {"size": CHART_TEXT_PX}
    budget_short = budget_sentence(theta_by, epsilon, eps_theta, eps_m)
    second = second_bias(algorithm)
    cut = summed(units == unit_nouns(True)).capitalize()  # what θ truncates: values or totals
    return {
        "thetas": [float(r.theta) for r in rows],
        "theta_text": [f"{r.theta:,.0f}" for r in rows],
        "start": int(start),
        "unnoised": UNNOISED,
        "number_labels": {"truncation": "Truncation bias", "binning": second.capitalize(),
                          "rmse": "Expected error (RMSE)", "truth": "True answer q_τ"},
        "numbers": {
            "truncation": [money(r.truncation_bias) for r in rows],
            "binning": [money(r.binning_bias) for r in rows],
            "rmse": [money(r.total**0.5) for r in rows],
            "truth": money(true_answer),
        },
        "notes": {
            # the records that drive this bias: in (θ, τ], or the algorithm's own cut
            "truncation": f"as if {label(algorithm)} cut at θ"
            if theta_by in OWN_THETA else
            [f"{counted(int(n), *units)} between θ and τ" for n in above],
        },
        "readout": [readout(table.iloc[i], scales[i], second) for i in range(len(rows))],
        "card_titles": {"truncation": "Truncation bias", "binning": second.capitalize(),
                        "sensitivity": "Sensitivity", "budget": "Budget split"},
        "cards": {
            "truncation": {
                "short": [f"{label(algorithm)} picks its own cut θ*, at a "
                          f"{'shell' if algorithm in SHELL_BIAS else 'bin'} edge; if θ* were "
                          f"θ{' (the next shell edge up)' if algorithm in SHELL_BIAS else ''}: "
                          f"bias {money(r.truncation_bias)}." for r in rows]
                if theta_by in OWN_THETA else
                [f"{cut} above θ = {r.theta:,.0f} count as θ: the sum loses "
                 f"{money(abs(r.truncation_bias))}." for r in rows],
                "long": [markdown_html(t["truncation"]) for t in texts],
            },
            "binning": {
                "short": [f"{label(algorithm)} interpolates a query edge inside a shell: "
                          f"{money(r.binning_bias)}." for r in rows]
                if algorithm in SHELL_BIAS else
                f"{label(algorithm)} sums the {cut.lower()} exactly: no binning bias."
                if exact_values else [
                    f"{cut} count as {rule} of their bin (bins of width {domain.width:,.6g}): "
                    f"{money(r.binning_bias)}." for r in rows],
                "long": markdown_html(texts[0]["binning"]),
            },
            "sensitivity": {
                "short": [f"One person moves q_τ by ≤ min(θ, τ) = {min(r.theta, tau):,.0f}; "
                          f"{noise_words(r.variance, s, short=True)}."
                          for r, s in zip(rows, scales, strict=True)],
                "long": [markdown_html(t["sensitivity"]) for t in texts],
            },
            "budget": {"short": budget_short, "long": markdown_html(texts[0]["budget"])},
        },
        "figure": fig,
        "fit": True,
        "chart_height": 420,
        "title": f"{label(algorithm)}: error over θ, q_τ with τ = {tau:,.0f}",
        # what the slider moves: the cut of the shown algorithm, or where one that picks its
        # own cut would cut (its curves: its error if its θ* were there)
        "slider_label": f"θ: if {label(algorithm)} cut here"
        if theta_by in OWN_THETA else "Truncation threshold θ",
        "algorithm": algorithm,
    }  # fmt: skip


def budget_sentence(rule: str, epsilon: float, eps_theta: float, eps_m: float) -> str:
    """The budget card's sentence for a run under θ rule ``rule`` (``fixed``, ``svt``, or an
    algorithm's own: ``posthoc``, ``inside``) with the split (ε_θ, ε_m) of
    :func:`dpsum_core.simulate.budget.algorithm_split`."""
    method = theta_rule(rule)
    if rule in OWN_THETA:
        how = "locates θ" if eps_theta > 0 else f"({method.label})"
        return f"ε = {epsilon:g}: ε_θ = {eps_theta:g} {how}, ε_m = {eps_m:g} measures the answer."
    if eps_theta > 0:
        return (f"ε = {epsilon:g}: ε_θ = {eps_theta:g} picks θ privately, "
                f"ε_m = {eps_m:g} measures the answer.")  # fmt: skip
    return (f"A fixed θ costs nothing: all of ε = {epsilon:g} measures the answer "
            "(private only if θ was chosen without looking at the data).")  # fmt: skip


_LESSON_BINS = 1000


def lesson_extra(view: TeachingView, data: Statistics, ctx: state.DataContext,
                 config: ExperimentConfig, *, tau: float, private: bool) -> dict:
    """What "Download this lesson" adds to the lesson frame's payload: the whole chart (at a
    fixed height), the data's histogram with θ's line (moved with the slider), the settings and
    the seed, a title and a footer (:func:`frame_html` makes the file in the browser); on data
    other than a bundled sample, a notice at its top and in its footer that it discloses the
    data's exact statistics.

    Privacy
    -------
    The file holds the data's histogram and true answers without noise."""
    domain = config.domain
    theta = view.lesson["thetas"][view.lesson["start"]]
    # at most 1,000 bars (public bins merged), so that the file stays under 5 MB at any n
    shown = domain if domain.bins <= _LESSON_BINS else Domain(domain.upper, _LESSON_BINS,
                                                             domain.weights)  # fmt: skip
    histogram = data_histogram_figure(data, shown, thetas=(("θ", theta),))
    settings = {
        "data": f"{data.name} · {data.column} · {ctx.unit_of_privacy}",
        "public domain": domain_text(domain.upper, domain.bins) + f" · weights {domain.weights}",
        "workload": config.workload,
        "query": f"q_τ with τ = {tau:,.0f}",
        "algorithm": label(view.lesson["algorithm"]),
        "budget": f"ε = {config.epsilon:g}" + (f", ρ = {config.rho:g} (θ chosen privately)"
                                                 if private else " (θ fixed, public)"),
        "seed": f"{config.seed} ({counted(config.trials, 'trial')}: the SVT and Recursive marks)",
    }  # fmt: skip
    sample = ctx.sample is not None
    footer = ("Made with dpsum (Single query page). Move θ with the slider or the arrow keys: "
              "everything is computed in this file, no network needed. ")
    return {
        "unnoised": unnoised_words(ctx),
        "notice": None if sample else LESSON_PRIVATE,
        "figure": figure_json(view.figure),
        "fit": False,
        "chart_height": 600,
        "histogram": figure_json(histogram),
        "settings": settings,
        "title": f"Truncation in five minutes: {label(view.lesson['algorithm'])}, "
        f"q_τ with τ = {tau:,.0f}",
        "footer": footer + ("Drawn from the data without noise (true answers): not for "
                            "publication unless the data are public." if sample
                            else LESSON_PRIVATE),
    }  # fmt: skip


def frame_html(view: TeachingView, data: Statistics, ctx: state.DataContext,
               config: ExperimentConfig, *, tau: float, private: bool, figure: go.Figure,
               stem: str) -> str:
    """The lesson frame in the app (plotly.js from this server), with its downloads made in the
    browser at the θ on screen: the chart as PNG, SVG and HTML (``figure``: the page's chart
    with the downloads' note; ``stem``: their file name) and the lesson as one offline file.
    The server drew the page at the θ it started from and hears nothing of a θ step, so a file
    made here would show that θ, not the one on screen."""
    src = plotly_url()

    def build() -> str:
        extra = lesson_extra(view, data, ctx, config, tau=tau, private=private)
        export = {
            "figure": figure_json(marked(figure)),  # said not for publication, as every download
            "interactive_only": INTERACTIVE_ONLY,
            "stem": stem,
            "width": IMAGE_SIZE[0],
            "height": IMAGE_SIZE[1],
            "lesson": {**lesson_shell({**view.lesson, **extra}), "payload": extra,
                       "name": f"{view.stem}_{view.lesson['algorithm']}_lesson.html",
                       "help": extra["notice"]},
        }  # fmt: skip
        return lesson_html({**view.lesson, "unnoised": extra["unnoised"], "export": export},
                           plotly_src=src)

    note = hash(figure.to_json())  # the downloads' note is in the figure
    return _memo(data, ("teach_frame", *view.key, src, stem, note, ctx.sample is None), build)
