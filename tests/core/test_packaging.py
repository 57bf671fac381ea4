"""Packaging metadata: `pip install .` gives a `dpsum` command with the runtime dependencies.

(The install itself is checked by hand in a fresh venv — it downloads — see README.)
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import dpsum_core
from dpsum_core import cli

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_console_script_is_the_cli_entry_point():
    module, _, name = PROJECT["scripts"]["dpsum"].partition(":")
    assert module == "dpsum_core.cli" and getattr(cli, name) is cli.main
    assert cli.build_parser().prog == "dpsum"


def test_version_and_dependencies_match_the_repository():
    assert PROJECT["version"] == dpsum_core.__version__
    requirements = [
        line.strip()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    engine = [r for r in requirements if not r.startswith("streamlit")]
    assert PROJECT["dependencies"] == engine
