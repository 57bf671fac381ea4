"""Only the session store touches ``st.session_state`` (issue 23 §1.3): every other dashboard
module reads and writes the session through :mod:`dpsum_ui.store`'s typed functions, so one
module knows the session's key strings and the shape of what is kept under them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STORE = "dpsum_ui/store.py"
# Modules still to be moved onto the store: none left (the analysis pages moved with issue 23
# §1.4); a module is never added to it.
NOT_YET: frozenset[str] = frozenset()

Reaching = ast.Attribute | ast.Name | ast.ImportFrom


def _names(node: Reaching) -> list[str]:
    """The names a node reaches: an attribute's, a variable's, an import's."""
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.Name):
        return [node.id]
    return [alias.name for alias in node.names]


def uses(source: str) -> list[int]:
    """The lines of ``source`` that reach ``session_state`` (an attribute, a name or an
    import); text that only mentions it (docstrings, comments) does not count."""
    nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, Reaching)]
    return sorted(n.lineno for n in nodes if "session_state" in _names(n))


def modules() -> list[str]:
    """Every module of the dashboard: the helpers, the page scripts and the frame."""
    found = [*(ROOT / "dpsum_ui").rglob("*.py"), *(ROOT / "app_pages").glob("*.py")]
    return sorted(str(p.relative_to(ROOT)) for p in [*found, ROOT / "app.py"])


@pytest.mark.parametrize(
    "source",
    [
        "import streamlit as st\nst.session_state['x'] = 1\n",
        "import streamlit\nv = streamlit.session_state.get('x')\n",
        "from streamlit import session_state\n",
        "import streamlit as st\nss = st.session_state\n",
    ],
)
def test_the_check_sees_every_way_to_reach_the_session(source: str) -> None:
    assert uses(source)


def test_the_check_ignores_words_in_text() -> None:
    assert not uses('"""Kept in ``st.session_state``."""\n# st.session_state\n')


def test_only_the_store_touches_session_state() -> None:
    offenders = {
        path: uses((ROOT / path).read_text(encoding="utf-8"))
        for path in modules()
        if path != STORE and path not in NOT_YET
    }
    offenders = {path: lines for path, lines in offenders.items() if lines}
    assert not offenders, f"st.session_state outside {STORE} (use its functions): {offenders}"


def test_the_list_of_modules_not_yet_moved_only_shrinks() -> None:
    """Every listed module exists and still uses the session directly: one moved onto the
    store leaves the list."""
    stale = {path for path in NOT_YET if not uses((ROOT / path).read_text(encoding="utf-8"))}
    assert not stale, f"remove from NOT_YET (they use the store now): {sorted(stale)}"
