"""Second passes over a server dataset's files: a task, or a release, that needs statistics the
data summary lacks gets them here (:func:`dpsum_core.data.summary.complete`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from dpsum_core.data.dataset import Statistics
from dpsum_core.data.summary import DataSummary, MissingStatistics, complete

from .store import memo_values

T = TypeVar("T")


def with_passes(data: Statistics, task: Callable[[Statistics], T]) -> T:
    """``task(data)``; for a server summary, with second passes over the files when the task
    needs statistics the summary lacks (:func:`dpsum_core.data.summary.complete`). The extended
    summary is kept for the next task; results stay keyed by the first summary."""
    if isinstance(data, DataSummary):
        for entry in memo_values("server"):
            if entry.summary is data:
                result, entry.latest = complete(entry.latest, lambda s: task(s), entry.extend)
                return result
    return task(data)



def release_input(
    data: Statistics,
) -> tuple[Statistics, Callable[[DataSummary, MissingStatistics], DataSummary] | None]:
    """(data, extend) for :func:`dpsum_core.publish.release.release_plan`: for a server summary,
    the summary as extended so far (by :func:`with_passes`) and its backend's second pass, so
    that the release fetches what it lacks before the draws that use it; a release runs its
    passes itself, since :func:`~dpsum_core.data.summary.complete` would run it (and draw)
    again after each pass. Records in memory need no pass: (data, None)."""
    if isinstance(data, DataSummary):
        for entry in memo_values("server"):
            if entry.summary is data:
                return entry.latest, entry.extend
    return data, None
