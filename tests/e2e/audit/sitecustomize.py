"""Test-only audit hook for the e2e "uploads never written to disk" tests.

Put this folder on PYTHONPATH and set DPSUM_AUDIT_LOG: every file the process then opens for
writing (and every tempfile.mkstemp / mkdtemp) is logged there as one JSON line — the path
only, never any data. Python imports ``sitecustomize`` at start-up (site module).
"""

import json
import os
import sys
import time

_LOG = os.environ.get("DPSUM_AUDIT_LOG")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

if _LOG:
    _fd = os.open(_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def _emit(**record) -> None:
        os.write(_fd, (json.dumps({"t": time.time(), **record}) + "\n").encode())

    def _hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = (*args, None, None)[:3]
            if isinstance(path, int) or path is None:
                return  # an already open descriptor
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
            )
            if writing:
                _emit(event=event, path=os.fsdecode(path), mode=mode, flags=flags)
        elif event in ("tempfile.mkstemp", "tempfile.mkdtemp"):
            _emit(event=event, path=os.fsdecode(args[0]))

    _emit(event="hook-installed", path=None, pid=os.getpid())
    sys.addaudithook(_hook)
