"""The Laplace scale behind one answer, read from the noise an algorithm actually adds.

The Single query page shows the noise of one answer; its standard deviation comes from the
algorithm's error function (the engine's analytic variance), its Laplace scale from the noise
the algorithm's own ``measure`` adds (:class:`Recorder`): a scale is named only where the
answer *is* one Laplace draw (SQM, Workload), never for an answer that combines several noisy
measurements (Identity sums noisy counts, the matrix mechanisms reconstruct from noisy
strategy rows, RawSum and ClampShells add noisy sums).
"""

from __future__ import annotations

import numpy as np

from dpsum_core.noise import Noise, SimulatedNoise


class Recorder:
    """A :class:`~dpsum_core.noise.Noise` that draws as the seeded simulation does and keeps
    the shape of every call's values and the scale of each of its entries.

    Privacy
    -------
    Simulation only (numpy's sampler): used for the page's illustrations, never a release.
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self._noise: Noise = SimulatedNoise(rng)
        self.calls: list[tuple[tuple[int, ...], np.ndarray]] = []

    def add_laplace(self, values: np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        values = np.asarray(values, float)
        self.calls.append((values.shape, np.broadcast_to(np.asarray(scale, float), values.shape)))
        return self._noise.add_laplace(values, scale)


def one_draw_scale(
    calls: list[tuple[tuple[int, ...], np.ndarray]], answers_shape: tuple[int, ...], query: int
) -> np.ndarray | None:
    """The scale of the noise added to answer ``query`` in each trial, if the algorithm added
    noise once with one entry per answer (values shaped as the answers); else None."""
    if len(calls) != 1 or calls[0][0] != tuple(answers_shape):
        return None
    return np.array(calls[0][1][:, query], dtype=float)


def answer_scale(scale: np.ndarray | None, variance: np.ndarray) -> np.ndarray | None:
    """``scale`` (:func:`one_draw_scale`) where the engine's variance of the answer is exactly
    that one draw's, 2b², at every θ; None otherwise (the answer combines several noisy
    measurements: no single scale to name)."""
    if scale is None:
        return None
    variance = np.asarray(variance, dtype=float)
    if scale.shape != variance.shape or not np.allclose(2.0 * scale**2, variance, rtol=1e-9):
        return None
    return scale
