"""Random streams of an experiment: one root seed, one stream per (truncation, purpose).

The ids are fixed per *name* and never renumbered, so shared links reproduce their figures and
adding an algorithm leaves the others' draws bit-identical.
"""


from __future__ import annotations

import numpy as np

from dpsum_core.mechanisms.registry import truncation as get_truncation

# Fixed stream ids (never renumber: shared links reproduce their figures through them).
THETA_STREAM = 0  # the shared θ of the batch algorithms
SQM_THETA_STREAM = 6  # SQM's per-query θ_i


def stream(seed: int, truncation: str, stream_id: int) -> np.random.Generator:
    """The random stream of one (truncation, purpose) pair under a root seed."""
    key = (get_truncation(truncation).stream_id, stream_id)
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))
