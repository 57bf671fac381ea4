"""Where Laplace noise comes from: numpy for simulation, or any hardened source for a release.

Every mechanism and threshold choice adds noise through one operation, ``add_laplace(values,
scale)``: the noisy values ``values + Lap(scale)`` element-wise. Simulation draws it from a
seeded numpy ``Generator``; a release passes a source whose samplers are hardened against
floating-point attacks (Mironov 2012), which needs the *exact* value inside the sampler — hence
"add noise to these values", never "give me noise to add".
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Noise(Protocol):
    """A source of Laplace noise."""

    def add_laplace(self, values: np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        """``values`` + Lap(scale), element-wise; ``scale`` broadcasts against ``values``."""
        ...


class SimulatedNoise:
    """numpy's Laplace sampler on a seeded ``Generator``: reproducible, for simulation only.

    Privacy
    -------
    numpy's floating-point sampler is fine for measuring accuracy but is not hardened against
    floating-point attacks: answers drawn with it must not be published.
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def add_laplace(self, values: np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        values = np.asarray(values, float)
        scale = np.asarray(scale, float)
        # laplace(0, 1)·b and laplace(0, b) are the same floats, so a scalar and a per-element
        # scale draw identical noise from the same stream.
        return values + self.rng.laplace(0.0, 1.0, size=values.shape) * scale


def as_noise(source: np.random.Generator | Noise) -> Noise:
    """A :class:`Noise` from a numpy ``Generator`` (simulation) or a noise source as it is."""
    if isinstance(source, Noise):
        return source
    if hasattr(source, "laplace"):  # a Generator, or a stand-in with its laplace()
        return SimulatedNoise(source)
    raise TypeError(f"expected a numpy Generator or a Noise source, got {type(source).__name__}")
