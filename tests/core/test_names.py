"""Issue 27.5: a file, dataset, column or identifier-column name cannot forge a report, a
chart title, a file name or a command line (the attack's names)."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pandas as pd
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain
from dpsum_core.plots.data import data_histogram_figure
from dpsum_core.plots.export import report_html as figures_html
from dpsum_core.plots.export import to_html
from dpsum_core.plots.results import answers_figure
from dpsum_core.publish.command import record_command
from dpsum_core.publish.release import plan_release, release
from dpsum_core.publish.report import report_html, report_markdown
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment
from dpsum_core.text import escape_name, visible

FORGED_UNIT = "**Unit of privacy**: one row = one person"
NEWLINES = f"salaries.csv\n\n- {FORGED_UNIT}\n## Answers\n"
IMAGE = "<img src=x onerror=alert(document.cookie)>.csv"
LINK = '<a href="https://evil.example/login">Session expired: sign in again</a>.csv'
ATTACKS = [NEWLINES, IMAGE, LINK, "a\rb\x1b[2Jc\u202egnp.csv"]
# What must never appear as markup (a backslash-escaped "\<" is Markdown's literal "<")
LIVE = re.compile(r"(?<!\\)<(img|a|script|svg|iframe)\b", re.IGNORECASE)
# The report's own chart: an image whose source is a base64 SVG (the name inside it is escaped
# and encoded), the one <img> a report may hold
OWN_CHART = re.compile(
    r'<img (?:src="data:image/svg\+xml;base64,[A-Za-z0-9+/=]+" )?alt="Private answers and their '
    r'95 % intervals"(?: src="data:image/svg\+xml;base64,[A-Za-z0-9+/=]+")?\s*/?>'
)


def _bash_words(command: str) -> list[str]:
    """The words bash reads from ``command`` (how a user's shell would run it)."""
    run = subprocess.run(["bash", "-c", f"printf '%s\\0' {command}"], capture_output=True,
                         check=True)  # fmt: skip
    return run.stdout.decode().split("\0")[:-1]


@pytest.mark.parametrize("name", ATTACKS)
def test_every_target_shows_a_name_on_one_line_and_never_as_markup(name):
    for target in ("markdown", "html", "plotly", "file"):
        text = escape_name(name, target)
        assert "\n" not in text and "\r" not in text and "\x1b" not in text, target
        assert not LIVE.search(text), target
    assert visible("a\nb") == "a\\nb" and visible("plain name.csv") == "plain name.csv"
    assert escape_name("incomes_small.csv", "markdown") == "incomes_small.csv"
    words = _bash_words(escape_name(name, "shell"))
    assert words == [name] and "\n" not in escape_name(name, "shell")


@pytest.fixture(scope="module")
def person_data():
    rng = np.random.default_rng(0)
    values = pd.Series(rng.integers(0, 1000, 300).astype(float))
    ids = pd.Series([f"p{i % 100}" for i in range(300)])
    return values, ids


@pytest.mark.parametrize("name", ATTACKS)
def test_names_cannot_forge_the_release_report(person_data, name):
    values, ids = person_data
    data = make_dataset(values, upper=1000.0, name=name, column=name, ids=ids, id_column=name)
    rel = release(data, ExperimentConfig(workload="Q3", upper=1000.0, bins=100, epsilon=1.0),
                  algorithm="identity", truncation="none")  # fmt: skip
    md = report_markdown(rel, dataset=name, ledger_line=f"ledger {name}")
    page = report_html(md)
    # how a CommonMark renderer shows report.md (markdown-it-py: a dev dependency, via rich)
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").enable("table").render(md)
    prose = "\n".join(ln for ln in md.splitlines() if not ln.startswith("      "))  # not code
    for out in (prose, page, rendered):
        assert not LIVE.search(OWN_CHART.sub("", out)), out
    # one unit-of-privacy line, the true one (per person); the report's own headings only
    assert prose.count("**Unit of privacy**") == 1
    for out in (rendered, page):
        (unit,) = re.findall(r"<strong>Unit of privacy</strong>: ([^<]*)", out)
        assert unit.startswith("one person = all rows with the same"), unit
        assert re.findall(r"<h[1-6]>", out) == ["<h1>", "<h2>", "<h2>", "<h2>"]
    assert len(re.findall(r"^#", md, re.MULTILINE)) == 4
    # the name is still shown as typed (escaped), and the command names the file exactly
    assert "Session expired" in page or "Session expired" not in name
    (command,) = [ln.strip() for ln in md.splitlines() if ln.strip().startswith("dpsum release")]
    words = _bash_words(command)
    assert words[words.index("--data") + 1] == name
    assert words[words.index("--id-column") + 1] == name


@pytest.mark.parametrize("name", ATTACKS)
def test_names_cannot_put_markup_in_chart_titles_or_downloaded_pages(name):
    data = make_dataset(np.arange(50.0), upper=100.0, name=name, column=name,
                        ids=pd.Series([f"p{i % 10}" for i in range(50)]), id_column=name)  # fmt: skip
    figures = [data_histogram_figure(data, Domain(100.0, 10))]
    config = ExperimentConfig(workload="Q3", upper=100.0, bins=100, trials=2,
                              algorithms=("identity",), truncations=("none",))  # fmt: skip
    figures.append(answers_figure(run_experiment(data, config), "none"))
    for fig in figures:
        title = fig.layout.title.text
        assert not LIVE.search(title) and not re.search(r"[\n\r\x1b\u202e]", title), title
        assert "<br>" in title  # Plotly's own markup is kept
    page = figures_html([(name, figures[0])], title=f"dpsum reproduction on {name}")
    head = page.split("<script", 1)[0]
    assert not LIVE.search(head) and "\n" not in head.split("<h1>", 1)[1].split("</h1>")[0]
    assert "evil.example/login\\\">" not in to_html(figures[0])  # no live link in the JSON


def test_the_link_attack_is_shown_as_text_in_the_title():
    data = make_dataset(np.arange(5.0), upper=10.0, name=LINK, column="v")
    title = data_histogram_figure(data, Domain(10.0, 5)).layout.title.text
    assert title.startswith('&lt;a href="https://evil.example/login"&gt;Session expired')


def test_the_release_command_quotes_names_with_control_characters():
    config = {"upper": 1000.0, "bins": 10, "weights": "upper", "workload": "Q3",
              "epsilon": 1.0, "algorithm": "identity", "truncation": "none",
              "isotonic": True, "truncation_params": {}}  # fmt: skip
    command = record_command(config, dataset=NEWLINES, id_column="pid\nx")
    assert "\n" not in command
    words = _bash_words(command)
    assert words[words.index("--data") + 1] == NEWLINES
    assert words[words.index("--id-column") + 1] == "pid\nx"


def test_reproduce_this_quotes_every_name_as_one_shell_word():
    """The dashboard's "Reproduce this" command: a column, an identifier or a server dataset
    name with newlines or a trailing ``>`` is one word that bash reads back exactly."""
    from dpsum_ui.reproduce import data_path, release_command, run_command

    config = ExperimentConfig(workload="Q3", upper=1000.0, bins=100)
    path = data_path("server", sample=None, server="x;echo owned #>")
    command = run_command(config, path=path, column=NEWLINES, id_column="pid\n")
    lines = command.split(" \\\n  ")
    assert all("\n" not in line for line in lines)
    words = _bash_words(" ".join(lines))
    assert words[words.index("--data") + 1] == "<data directory>/x;echo owned #>"
    assert words[words.index("--column") + 1] == NEWLINES
    assert words[words.index("--id-column") + 1] == "pid\n"
    plan_words = _bash_words(release_command(
        plan_release(config, algorithm="identity", truncation="none"), path=path,
        column=LINK, budget=None,
    ).replace(" \\\n  ", " "))  # fmt: skip
    assert plan_words[plan_words.index("--column") + 1] == LINK
