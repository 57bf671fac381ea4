"""Packaging: `pip install .` gives a `dpsum` command with the runtime dependencies, and the
built wheel, installed outside the checkout, runs (no network: dependencies come from the test
environment)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

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


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The wheel built from this checkout, installed into a fresh venv outside the checkout.

    The venv sees the test environment's site-packages through a .pth file (the runtime
    dependencies are already there; nothing is downloaded) and gets dpsum from the wheel only.
    """
    tmp = tmp_path_factory.mktemp("install")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp / "dist"), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    (wheel,) = (tmp / "dist").glob("dpsum-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    outer = [p for p in sys.path if p.endswith("site-packages")]
    (Path(site) / "_outer_dependencies.pth").write_text("\n".join(outer) + "\n")
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True, capture_output=True, timeout=300,
    )
    return venv


def _outside(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [str(venv / "bin" / args[0]), *args[1:]], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=300,
    )


def test_the_installed_dpsum_works_from_any_folder(installed, tmp_path):
    """`pip install .` then `dpsum` from a folder outside the checkout: the wheel holds every
    sub-package (packaging by discovery), `--help` prints and `run` writes its outputs."""
    where = _outside(installed, "python", "-c", "import dpsum_core; print(dpsum_core.__file__)",
                     cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(installed), "dpsum came from the checkout"
    helped = _outside(installed, "dpsum", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "run" in helped.stdout, helped.stderr
    ran = _outside(installed, "dpsum", "run", "--data", str(ROOT / "sample_data/incomes_small.csv"),
                   "--workload", "Q1", "--truncation", "svt,recursive", "--trials", "5",
                   "--out", "out", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert {"answers.csv", "summary.csv", "run.json"} <= {p.name for p in (tmp_path / "out").iterdir()}


def test_the_wheel_holds_every_engine_package(installed):
    """Every package of the checkout's engine is in the installed copy."""
    site = next(installed.glob("lib/python*/site-packages"))
    packaged = {p.parent.relative_to(site) for p in (site / "dpsum_core").rglob("__init__.py")}
    source = {p.parent.relative_to(ROOT) for p in (ROOT / "dpsum_core").rglob("__init__.py")}
    assert packaged == source
