"""After an update on disk under a running server, the pages once mixed old and new code
(a traceback on Release for every session): the frame now says to restart and runs no page."""

from __future__ import annotations

import os

from app_helpers import new_app

from dpsum_ui import codeversion


def test_a_file_touched_under_the_roots_changes_the_fingerprint(tmp_path):
    (tmp_path / "pkg").mkdir()
    module = tmp_path / "pkg" / "a.py"
    module.write_text("x = 1\n")
    before = codeversion.fingerprint((tmp_path / "pkg",))
    os.utime(module, ns=(module.stat().st_atime_ns, module.stat().st_mtime_ns + 1_000_000))
    assert codeversion.fingerprint((tmp_path / "pkg",)) != before
    (tmp_path / "pkg" / "b.py").write_text("y = 2\n")  # a new file, even with an older time
    os.utime(tmp_path / "pkg" / "b.py", ns=(0, 0))
    assert codeversion.fingerprint((tmp_path / "pkg",))[0] == 2


def test_the_frame_says_to_restart_and_runs_no_page(monkeypatch):
    monkeypatch.setattr(codeversion, "watching", lambda: False)
    monkeypatch.setattr(codeversion, "_Look", type("_Look", (), {"at": float("-inf"), "changed": False}))
    at = new_app()
    at.run()
    assert not at.error and at.title  # nothing changed: the page runs
    monkeypatch.setattr(codeversion, "_STARTED", (0, 0))  # as if the files had changed since
    monkeypatch.setattr(codeversion._Look, "at", float("-inf"))
    at.run()
    assert [e.value for e in at.error] == [codeversion.RESTART]
    assert not at.title and not at.button  # no page ran


def test_a_developer_server_that_reloads_is_left_alone(monkeypatch):
    monkeypatch.setattr(codeversion, "watching", lambda: True)
    monkeypatch.setattr(codeversion, "_STARTED", (0, 0))
    assert not codeversion.changed()
