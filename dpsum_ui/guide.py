"""The guide: one short box per step for a newcomer or a class, shown while the sidebar's
"Guide" switch is on; the switch travels in share links. The steps are numbered from the page
the app opens on (the Explorer, on a sample): try, understand one query, compare, then bring
your own data, decide and release."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from dpsum_core.mechanisms.recommend import rule_in_words
from dpsum_core.text import summed

from . import keys as K
from .store import live, seed_live, set_live

PARAM = "guide"  # query field of a link made with the guide on: guide=1

# Step 3's first sentences, per row and with an identifier column (a person, all their rows, the
# unit of privacy): q_τ then sums people's totals, which θ truncates (dpsum_core.text.summed).
_PER_ROW = (
    f"q_τ adds up the {summed(False)} ≤ τ. Move **θ** (mouse or arrow keys): values above θ "
    "count as θ."
)
_PER_PERSON = (
    f"q_τ adds up the {summed(True)} ≤ τ (a person's total: all their rows summed, then clipped "
    "to [0, U]). Move **θ** (mouse or arrow keys): totals above θ count as θ."
)


TEXTS: dict[str, str] = {
    "data": (
        "**Step 1 · your data.** Pick one numeric column and say who a person is: one row "
        "per person, or the column that identifies a person when people have several rows "
        "(the page suggests one when a column looks like it). **U**, the upper "
        "end of the domain [0, U], must be **public** — known before you look at the data (a "
        "legal maximum, a published range). If it came from the data, the largest value itself "
        "would leak. **Cleaning** drops values that are not numbers and clips every value "
        "into [0, U]: a fixed rule applied to each record on its own, so it costs no privacy. "
        "The report below says how many records it touched."
    ),
    "explorer": (
        "**Step 2 · the explorer** (the app opens here, on a sample dataset; yours comes "
        "from step 1, the Data page). Press **Run**: each algorithm answers every query many "
        "times with fresh noise (ε, the privacy budget, sets how much). In *Answers*, the "
        "**band** is where 90 % of the noisy answers fell (5th to 95th percentile): its width "
        "is the spread of the noise, not how close the answers are to the truth. A narrow band "
        "away from the true line is **bias** (truncation or binning), and it can miss the "
        "truth in most queries: the *Relative error* tab counts bias and noise together. "
        "The **relative error** is the "
        "miss as a share of the true answer, |noisy − true| / true (0.05 = off by 5 %; a "
        "small floor δ stands in for tiny true answers). "
        "Look first at the algorithm marked **★**, the one every page recommends: "
        + rule_in_words()
        + ". The *Summary* tab names the lowest error of your run."
    ),
    "single-query": (
        "**Step 3 · one query.** " + _PER_ROW + " Lower θ → less noise (one person can move the "
        "answer by at most θ) but a larger **truncation bias** (the big values are cut). The "
        "four numbers and the four boxes follow θ; the best θ on the chart was found by "
        "looking at the data, so a private method (SVT, Recursive) must choose θ instead. "
        "The page opens on TaMM, which cuts at the θ you move (so do SQM, Identity, Workload "
        "and TiMM); the **★** marks the one recommended for releases. RawSum and ClampShells "
        "choose their own θ (θ then shows where they would cut). "
        "Below the boxes: add one person with a huge value (without truncation the answer "
        "jumps by all of it, truncated by at most θ), and five noisy answers next to the true "
        "answer (at this θ; for RawSum and ClampShells at the θ each chose)."
    ),
    "compare": (
        "**Step 4 · compare.** The paper's grid: every algorithm with every way of choosing θ, "
        "on the same data, seed and ε. Each cell is the typical relative error (lower is "
        "better); the ε sweep shows how each improves as the budget grows."
    ),
    "decide": (
        "**Step 5 · decide.** Type the error you can live with (5 = answers off by about 5 % "
        "in the typical query). Each line is one algorithm's error as ε, the privacy budget, "
        "grows; where it crosses the horizontal **target** line is the smallest ε that meets "
        "it. Smaller ε means more privacy, so the line that crosses first (furthest left) "
        "does best on *this* data. These curves use the true answers: they are for people "
        "allowed to see the data, to understand the trade-off. Choosing from them is not "
        "covered by the privacy guarantee: for a release, let the ★ (auto) choose, from public "
        "inputs only, or decide on public data. **Use ε = … on the Release page** hands the "
        "first line's ε, rounded up, to the Release page."
    ),
    "release": (
        "**Step 6 · release.** This is the only page that publishes: one draw of noise, with "
        "no seed, so nobody can redo it. The **ledger** adds up the ε spent on this dataset: "
        "each release of the same people spends budget again, and the ledger refuses a release "
        "that would go over the total you set. What is **published**: the noisy answers, "
        "their 95 % intervals (lower and upper end, and whether the bias is bounded), the "
        "truncation threshold θ used, and ε — never the true answers or the data."
    ),
}


def text(step: str, *, by_person: bool = False) -> str:
    """The box's text for ``step`` (a key of :data:`TEXTS`); ``by_person``: a person, all their
    rows, is the unit of privacy, and Step 3 says that q_τ sums people's totals."""
    said = TEXTS[step]
    return said.replace(_PER_ROW, _PER_PERSON) if by_person else said


def on() -> bool:
    """Whether the guide is switched on in this session."""
    return bool(live(K.GUIDE))


def switch() -> None:
    """The sidebar's Guide switch (off by default, kept for the session)."""
    seed_live(K.GUIDE, False)
    st.sidebar.toggle(
        "Guide",
        key=K.GUIDE,
        help="One short explanation per step, in plain words (Explorer, Single query, Compare, "
        "Data, Decide, Release). "
        "Share links carry it.",
    )


def box(step: str, *, folded: bool = False, by_person: bool = False) -> None:
    """The guide's box for ``step`` (a key of :data:`TEXTS`), if on; ``folded``: in a popover
    named after the step, which opens over the page and moves nothing (a page whose first
    screen is full); ``by_person``: in the words of a person as the unit (:func:`text`)."""
    if not on():
        return
    said = text(step, by_person=by_person)
    with st.container(key=f"guide_{step}"):
        if folded:
            number = said.split(" · ", 1)[0].strip("*")  # "Step 3": one short line
            with st.popover(f"Guide: {number}", icon=":material/school:"):
                st.info(said, icon=":material/school:")
        else:
            st.info(said, icon=":material/school:")


def restore(params: Mapping[str, object]) -> None:
    """Switch the guide on (or off) as a link says; nothing if the link does not say."""
    value = params.get(PARAM)
    if isinstance(value, list):
        value = value[-1] if value else None
    if value is not None:
        set_live(K.GUIDE, str(value).strip().lower() not in ("0", "false", "no", "off"))


def with_guide(params: dict[str, str]) -> dict[str, str]:
    """A link's query fields plus ``guide=1`` while the guide is on (links made without it
    stay exactly as before)."""
    return {**params, PARAM: "1"} if on() else params
