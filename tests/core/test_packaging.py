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
    assert PROJECT["dependencies"] == requirements  # streamlit too: `dpsum app` needs it
    dev = (ROOT / "requirements-dev.txt").read_text().splitlines()
    (spark,) = PROJECT["optional-dependencies"]["spark"]
    assert spark in dev


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
    # a shipped sample by name (as Reproduce writes it): read from the installed dashboard
    ran = _outside(installed, "dpsum", "run", "--data", "sample:incomes_small.csv",
                   "--workload", "Q1", "--truncation", "svt,recursive", "--trials", "5",
                   "--out", "out", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert {"answers.csv", "summary.csv", "run.json"} <= {p.name for p in (tmp_path / "out").iterdir()}


def test_the_spark_extra_adds_the_spark_engine_to_the_installed_dpsum(installed, tmp_path):
    """`pip install '.[spark]'`: the wheel declares the extra (PySpark, the range of
    pyproject.toml), and with PySpark importable (here from the test environment, no network)
    the installed `dpsum run --engine spark` works from a folder outside the checkout."""
    (meta,) = next(installed.glob("lib/python*/site-packages")).glob("dpsum-*.dist-info/METADATA")
    lines = meta.read_text().splitlines()
    assert "Provides-Extra: spark" in lines
    (spark,) = PROJECT["optional-dependencies"]["spark"]
    required = [ln for ln in lines if ln.startswith("Requires-Dist: pyspark")]
    assert len(required) == 1 and 'extra == "spark"' in required[0], required
    assert set(spark.removeprefix("pyspark").split(",")) == set(
        required[0].split(";")[0].removeprefix("Requires-Dist: pyspark").split(",")
    )
    ran = _outside(installed, "dpsum", "run", "--data", str(ROOT / "sample_data/incomes_small.csv"),
                   "--engine", "spark", "--spark-master", "local[1]", "--workload", "Q1",
                   "--truncation", "svt", "--trials", "3", "--out", "out", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]
    # Engines agree exactly and the run is seeded: the same answers as the in-memory run.
    mem = _outside(installed, "dpsum", "run", "--data", str(ROOT / "sample_data/incomes_small.csv"),
                   "--workload", "Q1", "--truncation", "svt", "--trials", "3", "--out", "mem",
                   cwd=tmp_path)
    assert mem.returncode == 0, mem.stderr
    answers = (tmp_path / "out" / "answers.csv").read_text()
    assert answers and answers == (tmp_path / "mem" / "answers.csv").read_text()


def test_the_wheel_holds_every_engine_package(installed):
    """Every package of the checkout's engine is in the installed copy."""
    site = next(installed.glob("lib/python*/site-packages"))
    packaged = {p.parent.relative_to(site) for p in (site / "dpsum_core").rglob("__init__.py")}
    source = {p.parent.relative_to(ROOT) for p in (ROOT / "dpsum_core").rglob("__init__.py")}
    assert packaged == source


def test_the_wheel_holds_the_dashboard(installed):
    """app.py, every page, dpsum_ui and the sample data are in the installed copy."""
    site = next(installed.glob("lib/python*/site-packages"))
    dash = site / "dpsum_dashboard"
    assert (dash / "app.py").read_text() == (ROOT / "app.py").read_text()
    assert {p.name for p in (dash / "app_pages").glob("*.py")} == {
        p.name for p in (ROOT / "app_pages").glob("*.py")
    }
    assert {p.name for p in (site / "dpsum_ui").glob("*.py")} == {
        p.name for p in (ROOT / "dpsum_ui").glob("*.py")
    }
    assert (dash / "sample_data" / "incomes.csv").stat().st_size > 0
    assert not (dash / "app.py").is_symlink()


def test_dpsum_app_starts_the_dashboard_from_any_folder(installed, tmp_path):
    """`dpsum app --help` prints; `dpsum app --server.headless true --server.port P` serves
    /_stcore/health from a folder outside the checkout, with the installed app.py."""
    import socket
    import time
    import urllib.request

    helped = _outside(installed, "dpsum", "app", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "streamlit run" in helped.stdout, helped.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen(
        [str(installed / "bin" / "dpsum"), "app", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port),
         "--server.fileWatcherType", "none"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 25
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                    status = r.status
                    break
            except OSError:
                time.sleep(0.3)
        assert status == 200, proc.stdout.read().decode() if proc.poll() is not None else "no health"
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=10)
        proc.stdout.close()
