"""Checkpoints of long runs: the engine calls :func:`checkpoint` between units of work — each
θ group's strategy (TaMM with a continuous θ builds one per trial), the stages of RawSum's
design, each J* group of ClampShells, each point of a sweep or a simulation — and whoever
started the run decides, through the hook it bound with :func:`checkpoints`, what happens
there: report progress, or stop the run by raising.

This is how the dashboard stops a run whose browser tab was closed, or whose user clicked
again: its hook raises the stop request of the page's script within one unit of work, not at
the end of a run that could last minutes. The engine never learns who is listening (it must
not import Streamlit); without a bound hook a checkpoint does nothing.

>>> calls = []
>>> with checkpoints(lambda: calls.append(1)):
...     checkpoint(); checkpoint()
>>> checkpoint()  # nothing bound here
>>> len(calls)
2
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# Per thread (and task): the dashboard runs every session's script in its own thread, so a
# session's hook is never called by another session's run.
_HOOK: ContextVar[Callable[[], None] | None] = ContextVar("dpsum_checkpoint", default=None)


@contextmanager
def checkpoints(hook: Callable[[], None]) -> Iterator[None]:
    """Within this block (this thread or task), every :func:`checkpoint` calls ``hook``.

    ``hook`` may raise to stop the run; the exception propagates out of the engine call
    unchanged, and nothing the run had not finished is returned or cached.
    """
    token = _HOOK.set(hook)
    try:
        yield
    finally:
        _HOOK.reset(token)


def checkpoint() -> None:
    """Call the hook bound by :func:`checkpoints`, if any (it may raise to stop the run)."""
    hook = _HOOK.get()
    if hook is not None:
        hook()
