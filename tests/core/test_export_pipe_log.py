"""`dpsum run`'s images: kaleido's browser pipe logs "JSONError decoding message. Ignoring" with a
traceback when a read ends inside a message (seen under load in CI; the export went on and
succeeded). Inside :func:`image_export` that one record is dropped, nothing else is, and the
filter goes when the export ends."""

from __future__ import annotations

import logging

from dpsum_core.plots import export


def _record(msg: str) -> logging.LogRecord:
    return logging.LogRecord("choreographer.channels.pipe", logging.ERROR, __file__, 1, msg, None, None)


def test_only_the_torn_message_is_dropped():
    assert not export._torn_message(_record("JSONError decoding message. Ignoring"))
    assert export._torn_message(_record("Error in trying to decode JSON off our read."))
    assert export._torn_message(_record("anything else"))


def test_the_filter_is_on_the_pipe_only_during_an_export(caplog):
    with export.image_export():
        pipe = logging.getLogger("choreographer.channels.pipe")  # made by kaleido's logistro
        assert export._torn_message in pipe.filters
        with caplog.at_level(logging.ERROR, logger="choreographer.channels.pipe"):
            pipe.error("JSONError decoding message. Ignoring")
            pipe.error("another error")
        assert [r.getMessage() for r in caplog.records] == ["another error"]
    assert export._torn_message not in pipe.filters
