"""Keep uploaded files in memory: never let the web server spool them to disk."""

from __future__ import annotations

from dpsum_core import limits


def keep_uploads_in_memory() -> None:
    """Raise Starlette's multipart spool threshold to the upload limit.

    Streamlit's Starlette server parses uploads with ``starlette.formparsers.MultiPartParser``,
    which writes any part above ``spool_max_size`` (1 MB by default) to a temporary file
    before Streamlit reads it into memory. dpsum promises that uploaded data never touches the
    disk, and uploads are capped at ``limits.MAX_UPLOAD_MB`` anyway (server.maxUploadSize), so
    the threshold is raised to that cap: every accepted upload stays in memory. Idempotent;
    a no-op when the server is not Starlette-based.
    """
    try:
        from starlette.formparsers import MultiPartParser
    except ImportError:  # pragma: no cover - Tornado server: bodies are kept in memory
        return
    cap = (limits.MAX_UPLOAD_MB + 1) * 2**20  # + headroom for the multipart envelope
    if MultiPartParser.spool_max_size < cap:
        MultiPartParser.spool_max_size = cap
