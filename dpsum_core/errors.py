"""Errors whose message is safe to show to a user, as-is, in the CLI or the app."""

from __future__ import annotations


class DpsumError(Exception):
    """Base class: the message says what was wrong and what to do."""


class DataError(DpsumError):
    """The data could not be read or holds nothing usable."""


class DataStatisticError(DataError):
    """A :class:`DataError` whose message states an exact statistic of the data (a number of
    rows, of cells, of records): the CLI marks it "not for publication, computed without
    noise", as it marks the cleaning report."""


class ParameterError(DpsumError, ValueError):
    """A parameter is outside its allowed range or malformed."""
