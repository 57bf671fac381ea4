"""nginx in front of a test server, configured by the very file the README hands to teachers.

``deploy/nginx-classroom.conf`` is what a teacher installs; :class:`Proxy` runs it on a free
local port with only the site-specific lines swapped (address, certificate, password file,
cache folder, the app's port), so the tests and ``bench/classroom.py --proxy`` measure the
shipped configuration, not a copy of it. Each swap must find its line: a change to the shipped
file that a test did not anticipate fails loudly instead of being silently tested around.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "nginx-classroom.conf"
NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)  # fmt: skip
USER, PASSWORD = "student", "class-of-2026"


def _swap(text: str, old: str, new: str) -> str:
    if old not in text:
        raise ValueError(f"{CONFIG.name} no longer contains {old!r}: update tests/e2e/proxy.py")
    return text.replace(old, new)


def site_config(upstream_port: int, port: int, folder: Path) -> str:
    """The shipped configuration, made to run here: plain HTTP on 127.0.0.1:``port``, the app
    on ``upstream_port``, the cache and a password file under ``folder``."""
    text = CONFIG.read_text()
    text = _swap(text, "listen 443 ssl;", f"listen 127.0.0.1:{port};")
    text = _swap(text, "    ssl_certificate     /etc/ssl/dpsum.crt;\n", "")
    text = _swap(text, "    ssl_certificate_key /etc/ssl/dpsum.key;\n", "")
    text = _swap(text, "/etc/nginx/dpsum.htpasswd", str(folder / "htpasswd"))
    text = _swap(text, "/var/cache/nginx/dpsum", str(folder / "cache"))
    return _swap(text, "127.0.0.1:8501", f"127.0.0.1:{upstream_port}")


class Proxy:
    """A running nginx (master and one worker) serving ``deploy/nginx-classroom.conf`` in
    front of the app on ``upstream_port``; credentials :data:`USER` / :data:`PASSWORD`."""

    def __init__(self, upstream_port: int) -> None:
        from tests.e2e.conftest import free_port

        port = free_port()
        if NGINX is None:
            raise FileNotFoundError("nginx is not installed (apt-get install -y nginx)")
        self.folder = Path(tempfile.mkdtemp(prefix="dpsum-nginx-"))
        self.folder.chmod(0o755)  # a worker running as another user reads the password file
        self.url = f"http://127.0.0.1:{port}"
        (self.folder / "htpasswd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
        self.access_log = self.folder / "access.log"
        user = "user root;\n" if os.geteuid() == 0 else ""  # the cache folder is ours
        main = (
            f"{user}daemon off;\nworker_processes 1;\npid {self.folder}/nginx.pid;\n"
            f"error_log {self.folder}/error.log;\nevents {{ worker_connections 1024; }}\n"
            "http {\n"
            "    log_format cache '$request_uri $status $upstream_cache_status';\n"
            f"    access_log {self.access_log} cache;\n"
            + "".join(f"    {kind}_temp_path {self.folder}/{kind};\n"
                      for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
            + site_config(upstream_port, port, self.folder) + "\n}\n"
        )  # fmt: skip
        (self.folder / "nginx.conf").write_text(main)
        self.proc = subprocess.Popen(
            [NGINX, "-p", str(self.folder), "-c", str(self.folder / "nginx.conf")],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.error_log()}")
            try:
                urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2)
            except urllib.error.HTTPError:
                return  # 401 without credentials: nginx is up
            except OSError:
                time.sleep(0.1)
                continue
            return
        self.stop()
        raise RuntimeError(f"nginx did not start within 20 s: {self.error_log()}")

    def error_log(self) -> str:
        path = self.folder / "error.log"
        return path.read_text()[-2000:] if path.exists() else ""

    def pids(self) -> list[int]:
        """The master's and its workers' process ids (their CPU is the proxy's cost)."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        return [self.proc.pid, *map(int, children.read_text().split())]

    def log_lines(self) -> list[tuple[str, str, str]]:
        """(request URI, status, cache status) of every request so far; cache status is
        ``-`` where nginx did not cache (pages, the WebSocket, /_stcore/, /media/)."""
        lines = []
        for line in self.access_log.read_text().splitlines():
            uri, status, cache = line.rsplit(" ", 2)
            lines.append((uri, status, cache))
        return lines

    def stop(self) -> None:
        from tests.e2e.conftest import stop_process

        stop_process(self.proc, timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)
