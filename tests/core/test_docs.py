"""The README's library example and the modules' doctests run."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dpsum_core


def test_readme_example_runs():
    result = doctest.testfile("../../README.md", optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", [m.name for m in pkgutil.iter_modules(dpsum_core.__path__) if m.name != "__main__"])
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(f"dpsum_core.{name}"))
    assert result.failed == 0
