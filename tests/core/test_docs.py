"""The README's library example and the modules' doctests run."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import dpsum_core

ROOT = Path(__file__).resolve().parents[2]


def test_readme_example_runs():
    result = doctest.testfile("../../README.md", optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# Every module of the engine, sub-packages included (walk_packages, not iter_modules: the
# top level alone holds none of the algorithms since the engine moved into sub-packages).
MODULES = sorted(
    m.name for m in pkgutil.walk_packages(dpsum_core.__path__, "dpsum_core.")
    if not m.name.endswith("__main__")
)
# The Spark backend imports pyspark, an optional dependency (the `spark` extra).
OPTIONAL = {"dpsum_core.data.backends.spark": "pyspark"}


def test_every_subpackage_is_walked():
    assert {"dpsum_core.mechanisms.registry", "dpsum_core.data.backends.sql",
            "dpsum_core.mechanisms.isotonic", "dpsum_core.simulate.decision"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    if name in OPTIONAL:
        pytest.importorskip(OPTIONAL[name])
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_one_recommendation_rule_is_worded_the_same_everywhere():
    """README, About and the Explorer's guide state the rule from its one source."""
    from dpsum_core.mechanisms.recommend import rule_in_words

    rule = rule_in_words()
    assert rule in (ROOT / "README.md").read_text()
    assert "rule_in_words()" in (ROOT / "app_pages" / "about.py").read_text()
    guide = (ROOT / "dpsum_ui" / "guide.py").read_text()
    assert "rule_in_words()" in guide and "TaMM with SVT** (the paper" not in guide


def test_the_curated_api_is_importable_and_typed():
    """Every name of dpsum_core.__all__ resolves, and the stub the type checkers read lists the
    same names (a name added to one and not the other fails here)."""
    stub = (Path(dpsum_core.__file__).parent / "__init__.pyi").read_text()
    exported = set(re.findall(r" as (\w+)$", stub, re.M)) | {"__version__"}
    assert exported == set(dpsum_core.__all__)
    for name in dpsum_core.__all__:
        assert getattr(dpsum_core, name) is not None


def test_the_readmes_library_examples_import_only_from_dpsum_core():
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    imports = re.findall(r"^>>> from (\S+) import", readme, re.M)
    assert imports and set(imports) == {"dpsum_core"}
