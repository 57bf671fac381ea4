"""What a query sums, for the unit of privacy (audit6 P1-1): with an identifier column a release
sums people's totals ≤ τ (each clipped to [0, U]), and every place that defines the query says
so — the report (Markdown and HTML) and the explorer's answers figure — while a
release per row keeps the row-level words."""

from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd
import pytest

from dpsum_core.cli import main
from dpsum_core.data.dataset import make_dataset
from dpsum_core.plots.results import answers_figure
from dpsum_core.publish.release import release
from dpsum_core.publish.report import record_json, report_html, report_markdown
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for, run_experiment
from dpsum_core.text import query_words, summed

U = 1000.0


def _data(by_person: bool):
    """300 rows of 60 people (5 rows each, 150–250 apiece): every row ≤ 250, every total > 250."""
    rng = np.random.default_rng(7)
    values = rng.uniform(150.0, 250.0, 300)
    ids = pd.Series([f"p{i % 60}" for i in range(300)])
    if by_person:
        return make_dataset(values, upper=U, ids=ids, id_column="pid")
    return make_dataset(values, upper=U)


@pytest.fixture(scope="module", params=[True, False], ids=["per person", "per row"])
def released(request):
    by_person = request.param
    data = _data(by_person)
    config = ExperimentConfig(workload="values:250,1000", epsilon=1.0, upper=U, bins=20)
    rel = release(data, config, algorithm="identity", truncation="none")
    return by_person, data, config, rel


def test_the_words_name_what_was_summed():
    assert summed(False) == "values" and summed(True) == "people's totals"
    person = query_words(True)
    assert person.startswith("sums of people's totals ≤ each threshold τ")
    assert "clipped to [0, U]" in person and "a total above U counts as U" in person
    assert "values above U count as U" not in person
    assert query_words(False).startswith("sums of the values ≤ each threshold τ")


def test_what_the_words_say_is_what_was_released(released):
    # the data are built so that the two readings differ: at τ = 250 every row counts, no total
    by_person, data, config, _ = released
    truth = inputs_for(data, config).true_answers
    assert bool(truth[0] == 0.0) is by_person and truth[1] > 0


def test_the_report_and_release_json_define_the_query_for_the_unit(released):
    by_person, _, _, rel = released
    md = report_markdown(rel, dataset="t.csv")
    (line,) = [x for x in md.splitlines() if x.startswith("- **Queries**")]
    assert line == f"- **Queries**: workload values:250,1000, {query_words(by_person)}."
    assert ("sums of the values" in md) is not by_person
    assert query_words(by_person) in html.unescape(report_html(md))
    # release.json names the unit (unit_of_privacy, id_column) and holds no prose: its text
    # is kept free of "cleaning", "count" and "people" (tests/core/test_release.py's guards)
    assert json.loads(record_json(rel))["id_column"] == ("pid" if by_person else None)


def test_the_explorers_answers_figure_names_what_is_summed(released):
    by_person, data, config, _ = released
    result = run_experiment(data, config.with_(trials=2, algorithms=("identity",)))
    fig = answers_figure(result, result.config.truncations[0])
    what = "people's totals" if by_person else "values"
    assert f"(query sums {what} ≤ τ)" in fig.layout.xaxis.title.text
    assert fig.layout.yaxis.title.text.startswith(f"sum of {what} ≤ τ")


@pytest.mark.parametrize("command", ["run", "release"])
def test_the_id_column_help_says_what_each_query_then_sums(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    said = " ".join(capsys.readouterr().out.split())  # argparse wraps the help's lines
    assert "(each query then sums the people's totals ≤ τ)" in said
