"""Issue 27 §10: the note written under a downloaded figure shows quotes as typed (it showed
``&quot;``) and markup as text."""

from __future__ import annotations

import re

import plotly.graph_objects as go

from dpsum_ui.widgets import with_note

# Plotly's pseudo-HTML decodes these named entities (and numeric ones); any other shows as typed.
_PLOTLY_ENTITIES = {"mu", "amp", "lt", "gt", "nbsp", "times", "plusmn", "deg"}


def test_a_figure_note_shows_quotes_as_typed_and_markup_as_text():
    typed = 'Kept for the "board" <a href="https://x.example">link</a> & O\'Brien'
    (note,) = with_note(go.Figure(), typed).layout.annotations
    assert "&quot;" not in note.text and '"board"' in note.text
    assert "<a" not in note.text and "&lt;a href=" in note.text and "&amp; O'Brien" in note.text
    named = set(re.findall(r"&([a-z]+);", note.text))
    assert named <= _PLOTLY_ENTITIES, named
