"""The Data page on a survey of jobs (custodian review P1-2, P2-4, P3): rows shuffled, most
people with one job. The default column is the wage, not the job number; a wage column with a
few words in it is not taken for codes of people; the job number is offered last as a unit of
privacy, saying it looks like an index; by person, the cleaning report says that a negative
row was added into its person's total."""

from __future__ import annotations

import numpy as np
import pandas as pd
from app_helpers import assert_clean, new_app
from streamlit.testing.v1 import AppTest


def _survey() -> bytes:
    rng = np.random.default_rng(11)
    sizes = rng.choice([1, 2, 3, 4], size=800, p=[0.55, 0.30, 0.10, 0.05])
    person = np.repeat([f"P{i:05d}" for i in range(sizes.size)], sizes)
    wage = np.round(rng.lognormal(np.log(20), 0.5, person.size), 2).astype(object)
    wage[[5, 50, 500]] = ["n/a", "refused", "?"]
    wage[7] = -12.5
    frame = pd.DataFrame({"person_id": person,
                          "job_no": np.concatenate([np.arange(1, s + 1) for s in sizes]),
                          "hourly_wage": wage})  # fmt: skip
    return frame.sample(frac=1.0, random_state=1).to_csv(index=False).encode()


def _upload() -> AppTest:
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(("jobs.csv", _survey(), "text/csv")).run()
    at.button(key="domain_keep").click().run()
    assert_clean(at)
    return at


def test_the_wage_is_the_default_and_the_job_number_is_an_index_last() -> None:
    at = _upload()
    assert at.selectbox(key="data_column").value == "hourly_wage"  # old: job_no
    captions = " ".join(c.value for c in at.caption)
    assert "Value column 'hourly_wage' chosen by default" in captions, captions
    assert "skipped 'job_no'" in captions
    options = at.selectbox(key="data_id_column").options
    # old: "… the same 'job_no'" offered like any identifier, before nothing
    assert options[-1] == "One person = all rows with the same 'job_no' (looks like an index)"
    assert "One person = all rows with the same 'person_id'" in options


def test_a_wage_with_a_few_words_is_not_codes_of_people() -> None:
    at = _upload()
    at.selectbox(key="data_column").set_value("job_no").run()
    warnings = " ".join(w.value for w in at.warning)
    assert "'person_id'" in warnings and "looks like an identifier of people" in warnings
    assert "'hourly_wage'" not in warnings  # old: "'person_id', 'hourly_wage' look like …"


def test_by_person_the_report_says_the_negative_row_was_added() -> None:
    at = _upload()
    at.selectbox(key="data_column").set_value("hourly_wage").run()  # the default, said again
    assert "1 negative value set to 0." in " ".join(w.value for w in at.warning)  # by row
    at.selectbox(key="data_id_column").set_value("person_id").run()
    report = " ".join(w.value for w in at.warning)
    assert "1 negative value added into its person's total." in report  # old: nothing
