"""The Single query page's repeated noisy answers: drawn from the configured seed as a run
measures (:func:`noisy_answers`), and what the lesson frame shows of them (:func:`draws_payload`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpsum_core.data.dataset import Statistics
from dpsum_core.mechanisms.matrix import tamm_public_grid
from dpsum_core.mechanisms.registry import get, label
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for

from . import present
from .noise_record import Recorder, one_draw_scale

DRAWS = 5  # noisy answers drawn at each grid θ (the lesson's spread)
# The teaching draws' own stream purpose (dpsum_core.simulate.streams: a run's purposes are the
# algorithms' stream ids, below 100), so that they never repeat a run's noise.
_DRAWS_STREAM = 100


@dataclass(frozen=True)
class Drawn:
    """:data:`DRAWS` noisy answers of one query at each grid θ, and how they were drawn."""

    answers: np.ndarray  # θ × draws
    scale: np.ndarray | None  # one draw's Laplace scale per θ; None: it combines several
    # An algorithm that chooses its own θ (RawSum, ClampShells): the θ each draw cut at, and
    # the θ it most often cuts at (its record's posthoc_theta); its answers are the same at
    # every slider θ. None for the others (they cut at the slider's θ).
    cuts: np.ndarray | None = None
    typical: float | None = None


def noisy_answers(data: Statistics, config: ExperimentConfig, *, query: int,
                  algorithm: str, grid: np.ndarray, eps_m: float) -> Drawn:
    """:data:`DRAWS` noisy answers of query ``query`` by ``algorithm`` at each θ of ``grid``,
    measured as a run measures: at a fixed θ with budget ``eps_m``, with the Laplace scale the
    algorithm gave this answer at each θ if it added one draw per answer
    (:func:`dpsum_ui.noise_record.one_draw_scale`, else None). An algorithm that chooses its
    own θ (RawSum, ClampShells) runs as the Explorer runs it, at its whole ε (it splits it
    itself) and its own θ: the same :data:`DRAWS` answers at every grid θ, with the θ each cut
    at (the page opens on the ★, often one of them: its demonstration is never empty).

    Every draw comes from the configured seed: one numpy stream per (seed, algorithm), the
    stream purpose :data:`_DRAWS_STREAM` (the same seed draws the same answers).

    Privacy
    -------
    A simulation for the people allowed to see the data (numpy's sampler, seeded): on an upload
    it shows that user noisy answers of their own data; shared between sessions only on public
    data (:mod:`dpsum_ui.memo`, by the page). Never a release.
    """  # fmt: skip
    alg = get(algorithm)
    points = np.asarray(grid, dtype=float)
    rng = np.random.default_rng(
        np.random.SeedSequence(config.seed, spawn_key=(_DRAWS_STREAM, alg.stream_id)))

    inputs = inputs_for(data, config)
    if alg.runs_once and alg.posthoc_theta is not None:  # every such record has posthoc_theta
        # θ only gives the trial count; its whole ε, as run_experiment and the estimate run it
        measured = alg.run(inputs, np.full(DRAWS, np.inf), epsilon=config.epsilon, rng=rng)
        answers = np.asarray(measured.answers[:, query], dtype=float)
        cuts = np.asarray(measured.theta, dtype=float).reshape(DRAWS, -1)[:, 0]
        typical = float(alg.posthoc_theta(inputs, np.array([config.epsilon]))[0])
        return Drawn(np.tile(answers, (points.size, 1)), None, cuts, typical)
    thetas = np.repeat(points, DRAWS)
    theta = thetas[:, None] * np.ones(inputs.workload.size) if alg.per_query else thetas
    noise = Recorder(rng)
    with tamm_public_grid(inputs.workload, config.domain, points):
        measured = alg.run(inputs, theta, epsilon=eps_m, rng=noise)
    scale = one_draw_scale(noise.calls, measured.answers.shape, query)
    answers = np.asarray(measured.answers[:, query], dtype=float).reshape(points.size, DRAWS)
    return Drawn(answers, None if scale is None else scale[::DRAWS])


def draws_payload(table: pd.DataFrame, drawn: Drawn, *, truth: float, algorithm: str,
                  name: str, seed: int) -> dict:
    """The repeated noisy answers at every grid θ next to the true answer, in words and as
    positions on a line (what the lesson frame draws). ``table``: the algorithm's biases at
    each grid θ (:func:`dpsum_ui.teaching.components`); for an algorithm with its own θ the
    expected centre is read at the grid θ nearest the one it most often cuts at."""
    money = present.money
    biases = (table["truncation_bias"] + table["binning_bias"]).to_numpy(dtype=float)
    thetas = table["theta"].to_numpy(dtype=float)
    if drawn.typical is None or drawn.cuts is None:
        centre = truth + biases
        where = "(true answer + biases)"
        how, own = " at each θ", ""
    else:
        near = int(np.argmin(np.abs(thetas - drawn.typical)))
        centre = np.full(len(thetas), truth + biases[near])
        where = (f"(true answer + biases if it cuts near θ = {money(drawn.typical)}, where it "
                 "most often cuts)")  # fmt: skip
        cut = ", ".join(money(c) if np.isfinite(c) else "∞ (no cut)" for c in drawn.cuts.tolist())
        how, own = "", (f"; it chose its own θ each time (θ = {cut}), so these answers do not "
                        "move with the slider, whose θ only shows where it would cut")  # fmt: skip
    answers = drawn.answers
    return {
        "title": f"{DRAWS} noisy answers at this θ" if drawn.cuts is None
        else f"{DRAWS} noisy answers at its own θ",
        "note": f"Illustrations on {name}: {label(algorithm)} answered q_τ {DRAWS} times with "
        f"fresh noise{how}, drawn with seed {seed} (the same seed draws the same answers){own}. "
        "A release draws once, with no seed.",
        "truth": truth,
        "truth_text": f"true answer {money(truth)}",
        "centre": [float(c) for c in centre],
        # the expected centre, not these draws' mean (five draws scatter around it)
        "centre_text": [f"expected centre {money(c)} {where}; these {DRAWS} "
                        f"average {money(float(np.mean(row)))}"
                        for c, row in zip(centre, answers, strict=True)],
        "answers": [[float(a) for a in row] for row in answers],
        "answers_text": [", ".join(money(float(a)) for a in row) for row in answers],
    }
