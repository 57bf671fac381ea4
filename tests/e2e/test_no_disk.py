"""Uploaded data is never written to disk.

A server of its own runs with HOME, TMPDIR and the working directory in a fresh folder, and
with an audit hook (tests/e2e/audit/sitecustomize.py) that logs every file the server opens
for writing. A file with a unique marker is uploaded from memory (the test never writes it
anywhere) and run; then the marker is searched for in that folder, in every file of /tmp
changed since the test started, and in every new file of the repository; and the audit log
must show no file opened for writing while the upload was read and run.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from tests.e2e.conftest import (
    AUDIT_HOOK_DIR,
    ERROR,
    EXCEPTION,
    ROOT,
    Server,
    assert_clean,
    chart_title,
    goto_page,
    make_income_csv,
    new_context,
    open_app,
    run_q3,
    sidebar_has,
    true_answers,
    upload_payload,
    wait_idle,
)

pytestmark = pytest.mark.e2e

MAX_SCAN_BYTES = 512 * 2**20


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory, browser):
    """A server whose HOME, TMPDIR and cwd are in a fresh folder, with the audit hook."""
    root = tmp_path_factory.mktemp("sandbox")
    dirs = {name: root / name for name in ("home", "tmp", "cwd")}
    for d in dirs.values():
        d.mkdir()
    audit = root / "audit.jsonl"
    started = time.time()
    server = Server(
        env={
            "HOME": str(dirs["home"]),
            "TMPDIR": str(dirs["tmp"]),
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(AUDIT_HOOK_DIR), os.environ.get("PYTHONPATH", "")) if p
            ),
            "DPSUM_AUDIT_LOG": str(audit),
        },
        cwd=dirs["cwd"],
    )
    try:
        yield {"root": root, "audit": audit, "server": server, "started": started, **dirs}
    finally:
        server.stop()


@pytest.fixture(scope="module")
def sandbox_page(sandbox, browser):
    """One browser session on the sandbox server, shared by this module's tests."""
    context = new_context(browser)
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_app(page, sandbox["server"].url)
        yield page
    finally:
        context.close()


def audit_records(path: Path, offset: int = 0) -> list[dict]:
    text = path.read_text()[offset:]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def writes_since(path: Path, offset: int) -> list[dict]:
    """Files opened for writing since ``offset`` (byte-code caches aside)."""
    return [
        r for r in audit_records(path, offset)
        if r["event"] != "hook-installed" and "__pycache__" not in (r.get("path") or "")
    ]


def files_with(marker: bytes, files) -> list[str]:
    """The regular files among ``files`` whose bytes contain ``marker``."""
    found = []
    for f in files:
        try:
            if not f.is_file() or f.is_symlink() or f.stat().st_size > MAX_SCAN_BYTES:
                continue
            if marker in f.read_bytes():
                found.append(str(f))
        except OSError:  # vanished, or not ours to read
            continue
    return found


def tree(root: Path, newer_than: float | None = None, skip: Path | None = None):
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: None):
        here = Path(dirpath)
        if skip is not None and (here == skip or skip in here.parents):
            dirnames[:] = []
            continue
        for name in filenames:
            f = here / name
            try:
                if newer_than is None or f.lstat().st_mtime >= newer_than:
                    yield f
            except OSError:
                continue


def new_repo_files(newer_than: float) -> list[Path]:
    """Untracked and ignored files of the repository changed since ``newer_than``."""
    out = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all", "-z"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode()
    files = []
    for entry in filter(None, out.split("\0")):
        status, path = entry[:2], entry[3:]
        if status in ("??", "!!"):
            p = ROOT / path
            for f in (tree(p, newer_than) if p.is_dir() else [p]):
                try:
                    if f.lstat().st_mtime >= newer_than:
                        files.append(f)
                except OSError:
                    continue
    return files


def scan_everywhere(marker: bytes, sandbox: dict) -> dict[str, list[str]]:
    since = sandbox["started"] - 1
    return {
        "sandbox (HOME, TMPDIR, cwd)": files_with(marker, tree(sandbox["root"])),
        "/tmp (changed since the test started)": files_with(
            marker, tree(Path("/tmp"), newer_than=since, skip=sandbox["root"])
        ),
        "repository (new files)": files_with(marker, new_repo_files(since)),
    }


def upload_and_run(page, sandbox: dict, name: str, body: bytes, expect: dict,
                   seed: int) -> list[dict]:
    """Upload from memory on the Data page, run the explorer; the server's writes meanwhile."""
    offset = sandbox["audit"].stat().st_size
    goto_page(page, "Data")
    page.locator(".st-key-data_source label", has_text="an uploaded file").click()
    page.locator(".st-key-data_upload input[type=file]").set_input_files(
        upload_payload(name, body)
    )
    page.locator('[data-testid="stAlert"]', has_text=f"{expect['read']:,} rows read").wait_for()
    sidebar_has(page, f"{name} · {expect['column']}")
    wait_idle(page)
    goto_page(page, "Explorer")
    run_q3(page, seed=seed, trials=20)
    assert f"{name} · Q3" in chart_title(page, "explorer_answers")
    assert true_answers(page) == pytest.approx(expect["truth"], rel=1e-12)
    assert_clean(page)
    return writes_since(sandbox["audit"], offset)


def test_upload_is_never_written_to_disk(sandbox, sandbox_page):
    marker = f"mk{uuid.uuid4().hex}"
    # the marker is in every text cell and in a column name; nothing numeric carries it
    body, expect = make_income_csv("income", rows=300, seed=11, name="private.csv",
                                   note=marker)
    body = body.replace(b"income,note\n", f"income,note_{marker}\n".encode(), 1)
    assert len(body) < 2**20  # stays under the web server's 1 MB in-memory spool

    audit = audit_records(sandbox["audit"])
    assert audit and audit[0]["event"] == "hook-installed", audit[:3]  # the hook is live

    page = sandbox_page
    # the app found its pages and config although it was started from another folder
    for title in ("Single query", "Compare", "About"):
        goto_page(page, title)
        assert page.locator(EXCEPTION).count() == 0 and page.locator(ERROR).count() == 0
    writes = upload_and_run(page, sandbox, "private.csv", body, expect, seed=1)
    assert marker not in page.url
    assert marker not in page.locator('[data-testid="stApp"]').inner_text()

    assert writes == [], writes  # nothing opened for writing while uploading and running
    found = scan_everywhere(marker.encode(), sandbox)
    assert found == {k: [] for k in found}, found


def test_large_upload_is_not_spooled_to_disk(sandbox, sandbox_page):
    """A 1.2 MB upload (above Starlette's default 1 MB spool size) stays in memory too."""
    marker = f"mk{uuid.uuid4().hex}"
    body, expect = make_income_csv("income", rows=40_000, seed=12, name="large.csv",
                                   note=marker)
    assert len(body) > 1.2 * 2**20, len(body)

    writes = upload_and_run(sandbox_page, sandbox, "large.csv", body, expect, seed=2)

    # whatever was spooled is gone: the marker is in no file anyone can open
    found = scan_everywhere(marker.encode(), sandbox)
    assert found == {k: [] for k in found}, found
    # Starlette would spool a part above 1 MB to TMPDIR; app.py raises its threshold to the
    # upload limit (dpsum_ui.uploads.keep_uploads_in_memory), so nothing is opened for writing.
    assert writes == [], json.dumps(writes)
