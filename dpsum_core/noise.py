"""Where Laplace noise comes from: numpy for simulation, OpenDP's sampler for a release.

Every mechanism and threshold choice adds noise through one operation, ``add_laplace(values,
scale)``: the noisy values ``values + Lap(scale)`` element-wise. Simulation draws it from a
seeded numpy ``Generator``; a release draws from :class:`OpenDPNoise` only (the library
refuses any other source: :func:`dpsum_core.publish.draws.hardened`), whose sampler is
hardened against floating-point attacks (Mironov 2012), which needs the *exact* value inside
the sampler — hence "add noise to these values", never "give me noise to add".
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

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


class OpenDPNoise:
    """OpenDP's Laplace measurement: the hardened source of every draw of a release.

    Each call hands the *exact* values to ``opendp.measurements.make_laplace`` (one measurement
    per distinct scale), and OpenDP returns them with noise added: internally it rounds the
    input to a multiple of 2^k (k = −1074 by default, the finest float granularity, so finite
    floats are not moved) and samples discrete Laplace noise exactly, with integer arithmetic,
    from the operating system's entropy (OpenSSL). Nothing is seeded and nothing is
    reproducible.

    OpenDP features: only ``contrib`` is enabled, because ``make_laplace`` still sits in
    OpenDP's contrib tier (its proof has not finished OpenDP's vetting process). The old
    ``floating-point`` flag (now ``idealized-numerics``) is *not* needed and not enabled: it
    unlocks measurements that are open to floating-point attacks, and the float Laplace of
    OpenDP ≥ 0.8 is not one of them (``tests/stats/test_release_noise.py`` checks that a
    release runs with only ``contrib`` enabled).

    Privacy
    -------
    This is a sampler, not an accountant: the scale comes from dpsum's own sensitivity
    analysis (:mod:`dpsum_core.mechanisms`, :mod:`dpsum_core.truncation`). At the
    default granularity OpenDP's privacy map of Lap(b) is exactly d_in/b, the ε the engine's
    ledger records for each step.
    """

    def __init__(self) -> None:
        self._dp, self._domain, self._metric = _opendp_space()
        self._dp.enable_features("contrib")  # every time: a caller may have disabled it since
        self._measurements: dict[float, object] = {}

    def _laplace(self, scale: float):
        """The vector Laplace measurement of scale ``scale`` (built once per scale and source:
        a source lives for one release, so no scale, which may depend on a θ released to that
        custodian only, outlives it)."""
        meas = self._measurements.get(scale)
        if meas is None:
            meas = self._dp.m.make_laplace(self._domain, self._metric, scale=scale)
            if len(self._measurements) < 4096:  # SQM uses one scale per query
                self._measurements[scale] = meas
        return meas

    def add_laplace(self, values: np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        values = np.asarray(values, float)
        scales = np.broadcast_to(np.asarray(scale, float), values.shape)
        if not (np.all(np.isfinite(values)) and np.all(np.isfinite(scales))):
            raise ValueError("OpenDP noise needs finite values and scales (a bug in the caller)")
        if np.any(scales <= 0):
            raise ValueError("a Laplace scale must be > 0 (a bug in the caller)")
        flat_values, flat_scales = values.ravel(), scales.ravel()
        out = np.empty(flat_values.size)
        for b in np.unique(flat_scales):
            where = np.flatnonzero(flat_scales == b)
            out[where] = self._laplace(float(b))(flat_values[where].tolist())
        return out.reshape(values.shape)


@lru_cache(maxsize=1)
def _opendp_space() -> tuple[Any, Any, Any]:
    """OpenDP, the input domain (vectors of non-NaN floats) and the metric
    (L1 distance) of every Laplace measurement: constants, built once per process (about 0.1 ms
    each, and ClampShells builds dozens of measurements per release). Nothing random and nothing
    about the data: the same three objects for every release; each measurement built on them
    still draws fresh noise from the operating system's entropy at every call."""
    import opendp.prelude as dp  # imported here: 0.3 s, needed by releases only

    return dp, dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
