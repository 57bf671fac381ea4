"""Where a release's draws come from: dpsum's own OpenDP source only (:func:`hardened`), each
quantity drawn once (:class:`DrawOnce`)."""

from __future__ import annotations

import numpy as np

from dpsum_core.errors import ParameterError
from dpsum_core.noise import Noise, OpenDPNoise


def hardened(noise: object = None) -> Noise:
    """The noise source of a release: dpsum's own OpenDP source, and nothing else.

    Raises
    ------
    ParameterError
        For anything but ``None`` (a new :class:`~dpsum_core.noise.OpenDPNoise`) or an
        ``OpenDPNoise`` itself (not a subclass: its sampler could be anything): a numpy
        Generator, :class:`~dpsum_core.noise.SimulatedNoise` or any other object with an
        ``add_laplace``, since a seeded or home-made source would make the noise reproducible
        (two releases with one seed are identical) or unhardened. A ``ValueError``.
    """
    if noise is None:
        return OpenDPNoise()
    if type(noise) is OpenDPNoise:
        return noise
    raise ParameterError(
        f"a release takes no seed and no noise source but dpsum's own (got "
        f"{type(noise).__name__}): its noise comes from OpenDP's samplers and the operating "
        "system's entropy, so leave noise out (seeded simulations are for run)"
    )


class DrawOnce:
    """A noise source that draws each quantity of a release once, however often it is run.

    The first time the release asks for a draw, the hardened source makes it and the inputs
    (exact values, scales) and the noisy output are kept. After :meth:`rewind` (a second
    aggregation pass found a statistic missing and the release runs again on the extended
    summary), the same sequence of requests gets the kept outputs back, without drawing; a
    request beyond them draws anew. A replayed request must ask with exactly the inputs and
    scales it asked with the first time (the summary's statistics are exact, so it does):
    anything else is a bug and raises RuntimeError rather than release a mixed result.

    Privacy
    -------
    Each noisy value is drawn once and reused as the same public value: the run after a pass
    is post-processing of what was drawn before it, plus fresh draws for what comes after.
    ``draws`` counts the source's draws (one ``add_laplace`` each), ``values`` the noisy
    numbers drawn.
    """

    def __init__(self, source: Noise) -> None:
        self.source = source
        self._kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._next = 0

    @property
    def draws(self) -> int:
        """How many draws the source made."""
        return len(self._kept)

    @property
    def values(self) -> int:
        """How many noisy numbers the source drew."""
        return sum(out.size for _, _, out in self._kept)

    def rewind(self) -> None:
        """Start the sequence of requests again (the next requests replay the kept draws)."""
        self._next = 0

    def check_used(self) -> None:
        """Raise RuntimeError unless the last run used every kept draw (a bug otherwise)."""
        if self._next != len(self._kept):
            raise RuntimeError(
                f"the release used {self._next} of its {len(self._kept)} draws (a bug)"
            )

    def outputs(self) -> tuple[np.ndarray, ...]:
        """The noisy values of every draw, in order (public once drawn)."""
        return tuple(out.copy() for _, _, out in self._kept)

    def add_laplace(self, values: np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        values = np.asarray(values, float)
        scales = np.broadcast_to(np.asarray(scale, float), values.shape)
        if self._next < len(self._kept):
            kept_values, kept_scales, out = self._kept[self._next]
            if not (
                np.array_equal(kept_values, values) and np.array_equal(kept_scales, scales)
            ):
                raise RuntimeError(
                    "a release asked again for a draw with other inputs after a second pass "
                    "(a bug: nothing is drawn twice)"
                )
            self._next += 1
            return out.copy()
        out = np.asarray(self.source.add_laplace(values, scale), float)
        self._kept.append((values.copy(), np.array(scales), out.copy()))
        self._next += 1
        return out
