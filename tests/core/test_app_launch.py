"""Issue 27 §9 (and 24 §5): `dpsum app` listens on 127.0.0.1 unless an address is given, and
stopping it (SIGTERM, SIGINT) stops the Streamlit server it started: no child left serving."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from dpsum_dashboard import launch

ROOT = Path(__file__).resolve().parents[2]
LINUX = Path("/proc/net/tcp").exists()


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No address from the environment or from a user's Streamlit config files."""
    monkeypatch.delenv("STREAMLIT_SERVER_ADDRESS", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _address(cmd: list[str]) -> list[str]:
    return [a for a in cmd if a.startswith("--server.address")]


def test_the_default_address_is_this_machine_only(clean_env):
    assert _address(launch.command(["--server.port", "8600"])) == ["--server.address=127.0.0.1"]


@pytest.mark.parametrize(
    "argv", [["--server.address", "0.0.0.0"], ["--server.address=10.0.0.5"]]
)
def test_an_address_given_on_the_command_line_is_kept(clean_env, argv):
    cmd = launch.command(argv)
    assert _address(cmd) == argv[:1] and cmd[-len(argv):] == argv


def test_an_address_from_the_environment_or_a_config_file_is_kept(clean_env, monkeypatch):
    monkeypatch.setenv("STREAMLIT_SERVER_ADDRESS", "0.0.0.0")
    assert _address(launch.command([])) == []
    monkeypatch.delenv("STREAMLIT_SERVER_ADDRESS")
    (clean_env / ".streamlit").mkdir()
    (clean_env / ".streamlit" / "config.toml").write_text('[server]\naddress = "0.0.0.0"\n')
    assert _address(launch.command([])) == []


def _listeners(port: int) -> set[str]:
    """Local addresses (hex, as in /proc/net/tcp*) listening on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if int(hex_port, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                found.add(address)
    return found


def _descendants(pid: int) -> set[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not LINUX, reason="reads listening sockets from /proc/net/tcp")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_dpsum_app_serves_on_loopback_and_stops_with_its_server(tmp_path, sig):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "STREAMLIT_SERVER_ADDRESS"}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "dpsum_core", "app", "--server.headless", "true",
         "--server.port", str(port), "--server.fileWatcherType", "none"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline, status = time.monotonic() + 60, None
        while time.monotonic() < deadline and proc.poll() is None and status is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                    status = r.status
            except OSError:
                time.sleep(0.3)
        assert status == 200
        assert _listeners(port) == {"0100007F"}  # 127.0.0.1 only: not 0.0.0.0, not ::
        assert b"streamlit" in Path(f"/proc/{proc.pid}/cmdline").read_bytes()  # exec'd
        family = _descendants(proc.pid)
        proc.send_signal(sig)
        assert proc.wait(timeout=30) is not None
        with socket.socket() as s, pytest.raises(OSError):
            s.connect(("127.0.0.1", port))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in family):
            time.sleep(0.2)
        assert not [p for p in family if _alive(p)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(not LINUX, reason="reads listening sockets from /proc/net/tcp")
def test_the_quick_start_streamlit_run_serves_on_loopback(tmp_path):
    """The README's quick start, `streamlit run app.py` from the repository, listened on every
    interface (the dashboard shows true answers, with no login): the repository's
    .streamlit/config.toml now says 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "STREAMLIT_SERVER_ADDRESS"}
    env.update(HOME=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not _listeners(port):
            time.sleep(0.3)
        assert _listeners(port) == {"0100007F"}  # 127.0.0.1 only: not 0.0.0.0, not ::
    finally:
        proc.kill()
        proc.wait()


def test_the_packaged_config_leaves_the_address_to_dpsum_app(clean_env, monkeypatch):
    """The shipped config's 127.0.0.1 is not passed as an option (it would override the
    environment's or a user's address)."""
    assert not [o for o in launch.config_options() if o.startswith("--server.address")]
    monkeypatch.setenv("STREAMLIT_SERVER_ADDRESS", "0.0.0.0")
    assert _address(launch.command([])) == []


def test_app_help_is_plain_text_without_rst_markup(capsys):
    """`dpsum app --help` printed its docstring's RST (``dpsum app [STREAMLIT OPTIONS]``)."""
    assert launch.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dpsum app [STREAMLIT OPTIONS]") and "``" not in out
