"""About: what dpsum does, the paper and how to cite it, honest privacy notes, a FAQ, a
glossary."""

import streamlit as st

from dpsum_core import __version__
from dpsum_core.mechanisms.recommend import rule_in_words
from dpsum_core.text import summed

BIBTEX = """@misc{{wu_summation_queries_dp,
  title  = {{Answering Summation Queries for Numerical Attributes
            under Differential Privacy}},
  author = {{Wu and Pujol and Kotsogiannis and Machanavajjhala}}
}}

@software{{dpsum,
  title   = {{dpsum: prefix-sum queries under differential privacy}},
  version = {{{version}}}
}}"""

st.title("About dpsum")

left, right = st.columns([1.3, 1], gap="large")
with left:
    st.markdown(
        f"""
**dpsum** (version {__version__}) answers *prefix-sum queries* over one numeric column —
"what is the total income of everyone earning at most τ?" for many thresholds τ — under
**ε-differential privacy**, and shows how accurate each method is on your data.

It reimplements the five algorithms of the paper (SQM, Identity, Workload, TiMM, TaMM) and
the three ways of choosing the truncation threshold θ (none, the Sparse Vector Technique,
the recursive mechanism), plus a fixed, public θ — and adds **RawSum**, which measures raw
per-bin sums and chooses θ after measuring (post-processing, nothing spent on θ), and
**ClampShells**, which locates a clamp point from noisy shell sums with a quarter of ε.

**Which algorithm to use.** One rule, the same on every page (the ★ in the Explorer, Decide's
headline, the Release page's default, the algorithm Single query opens on): {rule_in_words()}.

Everything you see is computed by the `dpsum_core` engine, which the command line
(`dpsum run …`) uses too.

**Who it is for**
- *Data custodians*: which method and ε give useful answers on data like yours, before any
  release. The Decide page draws the error of every algorithm against ε (analytic, its cost
  shown first, with a simulation check) and says, for an error target you type, the smallest ε
  at which each meets it.
- *Teachers*: the Single query page explains truncation bias, binning bias, sensitivity and
  the budget split; θ moves in the browser (no server round trip), the chart, θ, the four
  numbers and the four explanations fit the first screen from 1280×800 up, and **Download
  this lesson** saves the page as one HTML file that works offline. Results on a sample or a
  server dataset are shared by everyone using the same settings and seed, so a class opening
  the same link computes it once. To serve a class from one small server, put the dashboard
  behind the password-protected nginx site of the README ("Serving the dashboard to a class"):
  it also keeps one copy of Streamlit's own files, so each extra student costs the server
  about 0.05 s of CPU instead of 0.17 s.
- *Paper authors*: the Compare page reproduces the paper's grid of 15 configurations (5 algorithms
  × 3 truncation methods), with RawSum and ClampShells beside it. Every
  view — the explorer's run, the Compare grid and ε sweep, the Single query's τ, θ and
  algorithm, the Decide page's target — has a link (the address bar and the **Share** button) that reproduces it, and
  every figure downloads as HTML, PNG or SVG under a name that says what it shows (dataset,
  workload, ε, seed).
"""
    )
    st.header("The paper")
    st.markdown(
        "Wu, Pujol, Kotsogiannis and Machanavajjhala: *Answering "
        "Summation Queries for Numerical Attributes under Differential Privacy*. "
        "Cite it as:"
    )
    st.code(
        BIBTEX.format(version=__version__),
        language="bibtex",
        wrap_lines=True,
    )
    st.caption(
        "Cite the paper for the methods and dpsum (with its version) for the software. "
        "Check the paper's venue and year on the authors' pages."
    )

with right:
    st.header("Privacy notes")
    st.warning(
        "**This dashboard shows true answers.** It is a tool for people who may already see "
        "the data (to choose a method and ε), not a channel for publishing results. The "
        "noisy answers on screen were all computed from the same data; publishing several of "
        "them spends the budget several times.",
        icon=":material/visibility:",
    )
    st.markdown(
        """
- **Floating-point noise.** The explorer's Laplace noise comes from numpy's sampler, which is
  fine for simulation but *not hardened against floating-point attacks* (Mironov, 2012). To
  publish, use the **Release** page (or `dpsum release`): one draw from OpenDP's hardened
  sampler, no seed, against a kept budget.
- **A fixed θ** is differentially private only if it was chosen **without looking at the
  data**. Picking it from the histogram or from the curves on the Single query page leaks
  information; SVT and the recursive mechanism choose θ privately and pay ρ·ε for it.
- **Choosing ε or an algorithm on the Decide page** looks at true errors: the choice depends
  on the data and is not covered by the privacy guarantee. It is for people allowed to see
  the data; to choose privately, decide on public or earlier data.
- **The domain** [0, U] and the bins must be public knowledge, never derived from the data.
  Cleaning (dropping non-numbers, clipping to [0, U]) is a fixed per-record rule and costs
  nothing.
- **Uploaded data** stays in memory for your session only. dpsum does not write it to disk,
  never puts it in a URL or a settings file, and forgets it when the session ends. Shared
  links carry only settings, the seed and a *sample* or *server* dataset's name and column
  (a server dataset's name is already listed to every user of that server).
- Neighbouring datasets differ by adding or removing one person (unbounded DP); the number
  of records N is treated as private.
"""
    )

FAQ: tuple[tuple[str, str], ...] = (
    (
        "How do I choose ε?",
        "ε is how much one person can change what is published: smaller ε, more privacy, more "
        "noise. Start from the paper's ε = 0.01 and the error you can accept, then use the "
        "**Decide** page: it shows, for an error target, the smallest ε at which each "
        "algorithm meets it. Values of 0.1 to 1 are common in practice; above about 2 the "
        "protection is weak. Fix ε before publishing, and remember that every release of "
        "the same people spends it again.",
    ),
    (
        "What does differential privacy promise, and what not?",
        "It promises that the published answers are almost as likely whether or not any one "
        "person's record is in the data (within a factor e^ε), so nobody can learn much about "
        "an individual from them, whatever else they know. It does **not** hide what the data "
        "says about a group (a published total is meant to be learned), it does not protect "
        "answers computed outside the mechanism (the true answers this dashboard shows), "
        "and it weakens with every extra release unless the budget is kept.",
    ),
    (
        "Why must the domain [0, U] be public?",
        "The noise is sized for the most one person can add, which depends on U (and on θ). "
        "If U were read from the data — say, the largest income — then U itself would reveal "
        "that person. Choose U from public knowledge (a legal maximum, a published range, a "
        "previous year); values above it are clipped to U, which costs nothing.",
    ),
    (
        "Why one row per person?",
        "The guarantee protects one *row*: adding or removing one row changes the answers by "
        "at most the sensitivity. If a person had several rows (several jobs, several years), "
        "they would change the answers by several times as much and be protected less. "
        "On the Data page, choose the column that identifies a person (**Unit of privacy**): "
        "each person's rows are then summed into one before anything is computed.",
    ),
    (
        "Why does the dashboard show true answers, and the release not?",
        "To choose a method and ε you need to see how far the noisy answers fall from the "
        "truth, so the explorer, Compare, Single query and Decide pages show true answers: "
        "they are for people already allowed to see the data. The **Release** page is the "
        "one that publishes: it shows and saves only the private answers, θ and ε, never "
        "the true answers.",
    ),
    (
        "How do I cite this?",
        "Cite the paper for the methods (Wu, Pujol, Kotsogiannis and Machanavajjhala, "
        "*Answering Summation Queries for Numerical Attributes under Differential "
        "Privacy*) and dpsum with its version for the software: the BibTeX is above, "
        "under *The paper*.",
    ),
)

st.header("Frequently asked questions")
for question, answer in FAQ:
    with st.expander(question):
        st.markdown(answer)

st.header("Glossary")
g1, g2 = st.columns(2, gap="large")
with g1:
    st.markdown(
        f"""
- **Prefix-sum query q_τ**: the total of all {summed(False)} ≤ τ; when an identifier column makes a
  person (all their rows) the unit of privacy, the total of the {summed(True)} ≤ τ, a person's total
  being all their rows summed, then clipped to [0, U]. A **workload** is a list of them
  (Q1: every bin edge, Q2: every 10th, Q3: every 100th).
- **ε (epsilon)**: the privacy budget. Smaller ε = stronger privacy = more noise.
- **ρ (rho)**: the share of ε spent on choosing θ: ε_θ = ρ·ε, and the answers get
  ε_m = (1−ρ)·ε. The ledger on the explorer shows ε_θ + ε_m = ε for every algorithm.
- **Truncation θ**: values above θ are counted as θ. It lowers the sensitivity (less
  noise) at the cost of bias.
- **Sensitivity**: the most one person can change an answer; the Laplace noise scale is
  sensitivity / ε.
- **SVT (Sparse Vector Technique)**: privately finds the first grid point below which a
  fraction r of the records lie, and uses it as θ.
- **Recursive mechanism**: privately estimates θ from how fast the largest values fall.
"""
    )
with g2:
    st.markdown(
        """
- **SQM**: answers each query on its own with its own θ (budget split over the m queries).
- **Identity**: adds noise to every bin count, then sums.
- **Workload**: adds noise to the query answers directly.
- **TiMM / TaMM**: matrix mechanisms with a GreedyH strategy built for the workload
  (TiMM) or for the *truncated* workload (TaMM).
- **Isotonic regression**: free post-processing that makes the answers non-decreasing in τ,
  as true prefix sums are.
- **Relative error**: |ŷ − y| / max(y, δ); δ avoids dividing by tiny true answers.
- **Expected error (RMSE)**: √(bias² + variance) of an algorithm, in the data's unit,
  computed exactly without simulation; the explorer draws it over the simulated error as a
  check.
- **RawSum**: measures noisy sums of the raw values per bin, reconstructs them by least
  squares, and chooses θ after measuring (post-processing: no ε spent on θ).
- **ClampShells**: spends a quarter of ε locating a clamp point θ* from noisy shell sums,
  then measures the shells of values clamped at θ*. From ε ≈ 0.06 it also measures every
  bin below θ* with the budget no other step uses (a value low in its shell pays less than
  the shell's top value would) and cuts its cells where those sums show a heap (values piled
  on round numbers, like whole-dollar wages), so that small queries stop interpolating across
  it. The ★ in most settings (the rule is above).
- **Seed**: fixes every random draw, so a link or a config file reproduces the same figures.
"""
    )
