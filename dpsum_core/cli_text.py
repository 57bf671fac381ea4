"""What ``dpsum run``, ``reproduce`` and ``release`` print of the data's exact figures: the
cleaning report's line and the run's accuracy table, each marked not for publication
(:mod:`dpsum_core.simulate.notice`). On stdout for run and reproduce, so that a refusal stays
one line on stderr; release prints its cleaning line on stderr, its stdout being the release's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dpsum_core.mechanisms.registry import label, truncation_label
from dpsum_core.simulate.notice import ACCURACY, CLEANING

if TYPE_CHECKING:
    from dpsum_core.data.dataset import Statistics
    from dpsum_core.simulate.results import ExperimentResult


def cleaning_line(data: Statistics) -> str:
    """The cleaning report of ``data`` on one line, marked: its counts are exact.

    Privacy
    -------
    The counts (rows read, kept, values clipped to U) are computed without noise: for the
    operator, never published.
    """
    return f"{CLEANING}: {data.name}, column {data.column!r}: " + " ".join(data.report.lines())


def accuracy_text(result: ExperimentResult, auto: str | None = None) -> str:
    """The run's accuracy: a marked line saying what the table is and how its error is
    computed, then the table (algorithms and truncations by their labels, ★ on the one ``auto``
    resolved to, errors in percent as in the sentences:
    :func:`~dpsum_core.simulate.results.percent`).

    Privacy
    -------
    Every error is measured against the true answers, computed from the data without noise: the
    table is a simulation's, for choosing a configuration, and not for publication.
    """
    import pandas as pd

    from dpsum_core.publish.report import PUBLIC_CAP_LABEL
    from dpsum_core.simulate.results import headline_definition, headline_name, percent

    ov = result.overview()
    capped = result.config.public_cap is not None  # ClampShells' θ is the cap: nothing located
    table = pd.DataFrame(
        {
            "Algorithm": [("★ " if a == auto else "") + label(a) for a in ov["algorithm"]],
            "Truncation": [
                PUBLIC_CAP_LABEL if capped and a == "clampshells" else truncation_label(t)
                for a, t in zip(ov["algorithm"], ov["truncation"], strict=True)
            ],
            headline_name().capitalize(): ov["median_rel_error"].map(percent),
            "… with isotonic": ov["median_rel_error_iso"].map(percent),
        }
    ).to_string(index=False)
    said = (
        f"{ACCURACY}: the errors below compare the simulated answers ŷ with the true answers y. "
        f"{headline_definition()}"
    )
    return f"{said}\n{table}"
