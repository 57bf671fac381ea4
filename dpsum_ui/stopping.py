"""This script's stop check, for the engine's checkpoints (:mod:`dpsum_core.checkpoint`): a run
or a cleaning whose browser tab was closed, or whose user clicked again, ends at its next
checkpoint instead of keeping a core busy."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.runtime.scriptrunner import get_script_run_ctx


def stop_check() -> Callable[[], None]:
    """Streamlit's check of this script's stop and rerun requests: raises StopException (the
    session is going away) or RerunException (a new click) when one is pending. Streamlit makes
    the same check inside every st.* call that sends something to the browser; this one sends
    nothing, so the engine may call it at every checkpoint. Where the running Streamlit lacks
    it, the progress bar's redraws (every 0.2 s) are the check."""
    ctx = get_script_run_ctx(suppress_warning=True)
    check = getattr(ctx, "yield_check", None)
    return check if callable(check) else _no_check


def _no_check() -> None:
    """No stop check outside a script run (a test calling the helpers directly)."""
