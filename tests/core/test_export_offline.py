"""Image export asks for nothing over the network: kaleido's page loads MathJax from a CDN unless
told not to (no figure here typesets LaTeX), a request at every start that, offline, held
`dpsum run`'s first image about 5 s. Both starts — `dpsum run`'s and the app's downloads — go
through :func:`start_image_server`."""

from __future__ import annotations

import kaleido

from dpsum_core.plots import export


def test_the_export_page_loads_no_remote_script(monkeypatch):
    asked: dict = {}
    monkeypatch.setattr(kaleido, "start_sync_server", lambda *a, **k: asked.update(k))
    export.start_image_server()
    page = kaleido.PageGenerator(mathjax=asked["mathjax"]).generate_index()
    assert "<script" in page and "http://" not in page and "https://" not in page
    # the control: kaleido's default page does load a remote script
    assert "https://" in kaleido.PageGenerator().generate_index()


def test_the_app_starts_the_same_server(monkeypatch):
    from dpsum_ui import compute

    started = []
    monkeypatch.setattr(compute, "start_image_server", lambda: started.append(True))
    compute._image_server.clear()
    compute._image_server()
    assert started == [True]
    compute._image_server.clear()
