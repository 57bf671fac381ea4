"""In-memory backend (numpy, the default): today's loading and cleaning, then the summary.

Privacy
-------
Reads private records into memory and returns a private :class:`~dpsum_core.data.summary.DataSummary`;
nothing is released.
"""


from __future__ import annotations

from itertools import pairwise

import numpy as np

from dpsum_core import limits
from dpsum_core.data.dataset import Dataset
from dpsum_core.data.exact import prefix_limbs, to_units
from dpsum_core.data.reading import load_column
from dpsum_core.data.summary import CutPoints, DataSummary, MissingStatistics, from_intervals


def summarize_dataset(data: Dataset, cuts: CutPoints) -> DataSummary:
    """The summary of an in-memory :class:`~dpsum_core.data.dataset.Dataset` at ``cuts``.

    Privacy
    -------
    The result is private data (see :mod:`dpsum_core.data.summary`).
    """
    points = cuts.all
    idx = np.concatenate(([0], np.searchsorted(data.values, points, side="right"), [data.size]))
    cum = prefix_limbs(data.values, idx)
    limb_sums = [
        tuple(b - a for a, b in zip(lo, hi, strict=True))
        for lo, hi in pairwise(cum)
    ]
    return from_intervals(
        name=data.name,
        column=data.column,
        upper=data.upper,
        report=data.report,
        points=points,
        counts=np.diff(idx),
        limb_sums=limb_sums,  # type: ignore[arg-type]
        top=data.values[::-1][: limits.SUMMARY_TOP_K],
    )


class MemoryBackend:
    """Holds the cleaned, sorted records; every pass is a numpy search on them."""

    engine = "memory"

    def __init__(
        self,
        source,
        *,
        upper: float,
        column: str | None = None,
        name: str | None = None,
        id_column: str | None = None,
    ):
        self._read = dict(source=source, upper=upper, column=column, name=name, id_column=id_column)
        self.data = load_column(**self._read)

    def summarize(self, cuts: CutPoints, *, content: bool = False) -> DataSummary:
        """First pass: the summary at ``cuts``; with ``content`` its report holds the data's
        content (the records are read again if they were read without it)."""
        if content and self.data.report.content is None:
            self.data = load_column(**self._read, content=True)
        return summarize_dataset(self.data, cuts)

    def extend(self, summary: DataSummary, missing: MissingStatistics) -> DataSummary:
        """Second pass: exactly the points and order statistics named by ``missing``."""
        values = self.data.values
        if missing.points.size:
            idx = np.searchsorted(values, missing.points, side="right")
            units = [to_units(*s) for s in prefix_limbs(values, idx)]
            summary = summary.with_points(missing.points, idx, units)
        if missing.positions.size:
            summary = summary.with_order_statistics(missing.positions, values[missing.positions])
        return summary
