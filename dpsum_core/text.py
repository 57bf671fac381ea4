"""Names as text (issue 27): the one escaping of every name a user or a file chooses — a file,
dataset, column or identifier-column name — before it reaches a report, a chart title, a file
name or a command line, so that a name is shown as typed and never read as markup or as a
further line.
"""

from __future__ import annotations

import html
import math
import re
import shlex
import unicodedata
from typing import Literal

import numpy as np

Target = Literal["markdown", "html", "plotly", "shell", "file"]

# Characters never shown as themselves: controls (newlines, tabs, escape sequences), format
# characters (bidirectional overrides that reorder what is read), line and paragraph
# separators, surrogates, private-use and unassigned code points.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Markdown (CommonMark and GitHub's): emphasis, code, links, images, raw HTML, entities,
# tables, headings, strikethrough and math. "_" inside a word is left alone: it cannot start or
# end emphasis there (``incomes_small.csv`` stays as it is).
_MARKDOWN = re.compile(r"[\\`*\[\]<>|!~&#$]|(?<![^\W_])_|_(?![^\W_])")
_FILE = re.compile(r"[^A-Za-z0-9._=-]+")


def _hidden(ch: str) -> bool:
    return unicodedata.category(ch) in _HIDDEN


def _escaped(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code < 0x10000 else (
        f"\\U{code:08x}"
    )


def visible(name: object) -> str:
    """``name`` on one line, each hidden character (see module) shown escaped: ``a\\nb``."""
    text = str(name)
    if not any(_hidden(ch) for ch in text):
        return text
    return "".join(_escaped(ch) if _hidden(ch) else ch for ch in text)


def escape_name(name: object, target: Target) -> str:
    """``name`` as it may be written into ``target``.

    Parameters
    ----------
    name
        A file, dataset, column or identifier-column name (anything: it is made text).
    target
        ``"markdown"``: one line, Markdown's and HTML's special characters backslash-escaped
        (rendered as typed by CommonMark, GitHub and this project's HTML report);
        ``"html"``: one line, HTML-escaped (``&``, ``<``, ``>``, quotes);
        ``"plotly"``: one line, with the ``&``, ``<`` and ``>`` of Plotly's pseudo-HTML
        escaped (titles, subtitles, annotations: no link, no tag);
        ``"shell"``: one shell word — :func:`shlex.quote`, or bash's ``$'…'`` quoting when the
        name holds hidden characters, so that the command stays on one line and names exactly
        the file;
        ``"file"``: a piece of a file name (characters other than letters, digits and
        ``._=-`` become ``-``).
    """
    text = str(name)
    if target == "shell":
        if not any(_hidden(ch) for ch in text):
            return shlex.quote(text)
        body = "".join(
            _escaped(ch) if _hidden(ch) else "\\" + ch if ch in "\\'" else ch for ch in text
        )
        return f"$'{body}'"
    if target == "file":
        return _FILE.sub("-", text).strip("-")
    shown = visible(text)
    if target == "markdown":
        return _MARKDOWN.sub(lambda m: "\\" + m.group(0), shown)
    return html.escape(shown, quote=target == "html")


# What limits the values when no clamp point θ is released (θ = ∞, or θ at U or above): the
# cleaning rule alone, which is public. In the same words everywhere; never with a count of the
# values clipped (a count read off the data, not protected by the release's noise).
CLIPPED_AT_U = "cleaning clips values above U to U (a public rule)"
NO_THETA_SHORT = "none beyond U"  # RawSum's θ = ∞, said the same in every table and legend
NO_THETA = f"{NO_THETA_SHORT}: {CLIPPED_AT_U}"
# An answer ClampShells' onset gate published as 0: shown with this, never as a bare 0.
NOT_TOLD_FROM_ZERO = "not distinguishable from 0"
# --bands with a minus first ("-5-15"): the CLI (before argparse) and the band parser say it
NO_NEGATIVE_BAND = "band edges are never negative (0 or thresholds of the workload, e.g. 0-15,15-20)"


def noun(n: int, word: str, plural: str | None = None) -> str:
    """``word`` for ``n`` things: in the plural (``plural``, else ``word`` + s) unless ``n`` is 1.

    >>> noun(1, "key"), noun(2, "key"), noun(0, "query", "queries")
    ('key', 'keys', 'queries')
    """
    return word if n == 1 else plural or word + "s"


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``n`` and ``word``, in the plural (``plural``, else ``word`` + s) unless ``n`` is 1,
    with thousands separators.

    >>> counted(1, "configuration"), counted(1200, "trial"), counted(3, "query", "queries")
    ('1 configuration', '1,200 trials', '3 queries')
    """
    return f"{n:,} {noun(n, word, plural)}"


def unit_nouns(by_person: bool) -> tuple[str, str]:
    """What the data's counts count, singular and plural: people when an identifier column
    makes a person (all their rows) the unit of privacy, records otherwise (one row each).

    >>> unit_nouns(True), unit_nouns(False)
    (('person', 'people'), ('record', 'records'))
    >>> counted(5843, *unit_nouns(True))
    '5,843 people'
    """
    return ("person", "people") if by_person else ("record", "records")


def summed(by_person: bool) -> str:
    """What a query q_τ adds up, for the unit of privacy: each row's value, or each person's
    total (all their rows summed, then clipped to [0, U]) when an identifier column makes a
    person the unit. The one wording of every place that defines the query (the report, the
    Release page, the explorer's axes, the workload's help; release.json names the unit).

    >>> summed(False), summed(True)
    ('values', "people's totals")
    """
    return "people's totals" if by_person else "values"


def query_words(by_person: bool) -> str:
    """The definition of a release's queries (after "workload Q1, "): what is summed up to
    each threshold τ and how cleaning caps it at U, per row or per person (:func:`summed`).

    >>> query_words(False)[:46]
    'sums of the values ≤ each threshold τ, after c'
    >>> query_words(True)[:63]
    "sums of people's totals ≤ each threshold τ, a person's total be"
    """
    if not by_person:
        return (
            "sums of the values ≤ each threshold τ, after cleaning: values above U count as U "
            "(a public rule), so the query at τ = U is the total with every value above U "
            "counted as U"
        )
    return (
        f"sums of {summed(True)} ≤ each threshold τ, a person's total being all their rows "
        "summed, then clipped to [0, U] (a public rule: a total above U counts as U, one below 0 "
        "as 0), so the query at τ = U is the sum of every person's total with every total above "
        "U counted as U; a person's single rows are never compared with τ"
    )


def number(value: float) -> str:
    """A public number (U, a threshold, a bin width) as the shortest decimal that reads back as
    it, with thousands separators, never an exponent.

    >>> number(2e6), number(800_000.0), number(12_345.5), number(1e-5)
    ('2,000,000', '800,000', '12,345.5', '0.00001')
    """
    whole, _, fraction = np.format_float_positional(float(value), trim="-").partition(".")
    return f"{int(whole):,}" + (f".{fraction}" if fraction else "")


# Above this ε a warning is given wherever ε is chosen or spent (the explorer, the Release page,
# `dpsum release`): one person can then change the odds of a result by e² ≈ 7.4 or more.
EPSILON_LARGE = 2.0


def odds_factor(epsilon: float) -> str:
    """e^ε, the factor by which one person can change the odds of any result, never with an
    exponent: three significant digits below 100 (``7.39``), whole with thousands separators
    up to a billion (``22,026``), and beyond that ``e^ε``, said to be more than a billion.

    >>> odds_factor(0.01), odds_factor(2), odds_factor(10), odds_factor(100)
    ('1.01', '7.39', '22,026', 'e^100, more than a billion')
    """
    if epsilon > math.log(1e9):
        return f"e^{epsilon:g}, more than a billion"
    factor = math.exp(epsilon)
    return f"{factor:,.0f}" if factor >= 100 else f"{factor:.3g}"


def epsilon_sentence(epsilon: float) -> str:
    """What ε means, in one sentence that follows the value (numbers never in e-notation): the
    explorer's caption under ε and the report's line under its headline say it alike.

    >>> epsilon_sentence(0.5)
    'ε = 0.5: strong privacy. Whether or not any one person is in the data changes the chance of any result by at most a factor e^ε ≈ 1.65 (about 65 %).'
    """
    factor = odds_factor(epsilon)
    odds = (
        f"about {100 * (math.exp(epsilon) - 1):.2g} %" if epsilon < math.log(2) else f"{factor} times"
    )
    bound = (f"a factor e^ε = {factor}" if "billion" in factor
             else f"a factor e^ε ≈ {factor} ({odds})")  # fmt: skip
    strength = (
        "very strong privacy, much noise" if epsilon <= 0.05
        else "strong privacy" if epsilon <= 0.5
        else "moderate privacy" if epsilon <= 1
        else "weak privacy, little noise" if epsilon <= EPSILON_LARGE
        else "very weak privacy"
    )  # fmt: skip
    return (
        f"ε = {epsilon:g}: {strength}. Whether or not any one person is in the data changes "
        f"the chance of any result by at most {bound}."
    )


def large_epsilon(epsilon: float) -> str | None:
    """What a large ε means (above :data:`EPSILON_LARGE`), as the start of a warning; ``None``
    for a smaller ε. The explorer, the Release page and ``dpsum release`` each end it their
    own way (the release is still made).

    >>> large_epsilon(10)[:60]
    'ε = 10 is large: one person can change the odds of a result '
    """
    if epsilon <= EPSILON_LARGE:
        return None
    return (
        f"ε = {epsilon:g} is large: one person can change the odds of a result by a factor of "
        f"up to {odds_factor(epsilon)}, which protects little"
    )


# release.json's note and the report's sentence when ε was chosen from the errors of the very
# data released (the app's Decide page on the release data): the choice itself is not private,
# the answers are (review 11 P2-8: "not covered by the guarantee" read as "not private").
EPSILON_FROM_DATA = (
    "The answers are ε-differentially private as released. Only the choice of ε itself looked "
    "at this data (the custodian compared errors against its true answers), and the stated ε "
    "accounts for the answers, not for that choice."
)
