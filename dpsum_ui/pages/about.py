"""About: what dpsum does, the paper, privacy notes, a FAQ, a glossary."""

from __future__ import annotations

from ..page import Page

PAGE = Page(
    script="app_pages/about.py",
    title="About",
    icon=":material/info:",
    url_path="about",
)
