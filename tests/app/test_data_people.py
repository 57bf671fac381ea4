"""Data and Release pages on a per-person file (new-user review): the default column skips row
numbers and identifiers and says so, the clipping warning counts people, and a category such
as a state is not taken for codes of people."""

from __future__ import annotations

import numpy as np
import pandas as pd
from app_helpers import assert_clean, new_app
from streamlit.testing.v1 import AppTest


def _jobs(*, state: bool = False) -> bytes:
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 8, 400)
    person = np.repeat(np.arange(400), sizes)
    frame = pd.DataFrame({
        "worker": np.arange(person.size),
        "person_id": person,
        "job": np.concatenate([np.arange(s) for s in sizes]),
        "hourly_wage": np.round(rng.lognormal(3.3, 0.5, person.size), 2),
    })  # fmt: skip
    if state:  # one row per person, and a category
        frame = pd.DataFrame({
            "state": np.array(["CA", "NY", "TX"])[np.arange(4000) % 3],
            "income": np.round(rng.uniform(0, 9e4, 4000), 2),
        })  # fmt: skip
    return frame.to_csv(index=False).encode()


def _upload(name: str, content: bytes) -> AppTest:
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv")).run()
    at.button(key="domain_keep").click().run()
    assert_clean(at)
    return at


def test_the_default_column_is_the_value_and_the_page_says_why() -> None:
    at = _upload("jobs.csv", _jobs())
    assert at.selectbox(key="data_column").value == "hourly_wage"  # old: worker
    captions = " ".join(c.value for c in at.caption)
    assert "Value column 'hourly_wage' chosen by default" in captions, captions
    assert "worker" in captions and "job" in captions


def test_the_clipping_warning_counts_people() -> None:
    at = _upload("jobs.csv", _jobs())
    at.selectbox(key="data_id_column").set_value("person_id").run()
    at.number_input(key="domain_upper").set_value(150.0).run()
    warnings = " ".join(w.value for w in at.warning)
    assert "people (" in warnings and "had a total (all their rows summed) above U" in warnings
    assert "records (" not in warnings


def test_a_state_column_is_a_category_not_codes_of_people() -> None:
    at = _upload("states.csv", _jobs(state=True))
    at.selectbox(key="data_column").set_value("income").run()
    at.switch_page("app_pages/release.py").run()
    text = " ".join(i.value for i in at.info) + " ".join(w.value for w in at.warning)
    assert "look like codes of people" not in text  # old: 'state' flagged


def test_the_release_command_carries_the_explicit_one_row_per_person() -> None:
    """The Release page's command must run: the CLI refuses this file without the flag."""
    at = _upload("jobs.csv", _jobs())
    at.selectbox(key="data_column").set_value("hourly_wage").run()
    at.switch_page("app_pages/release.py").run()
    at.checkbox(key="release_one_row_sure").check().run()
    (command,) = [c.value for c in at.code if c.value.startswith("dpsum release")]
    assert "--one-row-per-person" in command
    at.switch_page("app_pages/data.py").run()
    at.selectbox(key="data_id_column").set_value("person_id").run()
    at.switch_page("app_pages/release.py").run()
    (command,) = [c.value for c in at.code if c.value.startswith("dpsum release")]
    assert "--one-row-per-person" not in command and "--id-column person_id" in command


def _people_warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if "of people** (repeated codes)" in w.value]


def test_the_data_page_flags_a_column_of_people_codes_and_says_how_to_release_by_person() -> None:
    """The Release page's rule (identifiers.suspects), said on the Data page before any
    release: by person with the unit box or --id-column, else --one-row-per-person."""
    at = _upload("jobs.csv", _jobs())
    (said,) = _people_warnings(at)  # old: nothing on the Data page
    assert "Column 'person_id' looks like an identifier of people" in said, said
    assert "the release should be by person" in said and "**Unit of privacy**" in said
    assert "`dpsum release --id-column person_id`" in said and "`--one-row-per-person`" in said
    assert "worker" not in said and "'job'" not in said  # a row number, a category
    at.selectbox(key="data_id_column").set_value("person_id").run()
    assert _people_warnings(at) == []  # chosen: nothing left to say
    assert_clean(at)


def test_a_category_column_is_not_flagged_on_the_data_page() -> None:
    at = _upload("states.csv", _jobs(state=True))
    at.selectbox(key="data_column").set_value("income").run()
    assert _people_warnings(at) == []


def _cautions(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if "may not be a value to sum" in w.value]


def test_an_index_chosen_by_hand_as_the_value_keeps_a_caution() -> None:
    """Researcher's review P2-6: choosing 'job' by hand removed the default's note and said
    nothing; the caution stays, says why, and is labelled as read off the data."""
    at = _upload("jobs.csv", _jobs())
    assert not _cautions(at)  # the default, hourly_wage: an amount
    at.selectbox(key="data_column").set_value("job").run()
    assert_clean(at)
    (caution,) = _cautions(at)
    assert "'job'" in caution and "For you only (read off the file's first rows)" in caution
    assert "an index, not a value" in caution or "a count, an index" in caution, caution
    assert "probably meaningless" in caution and "spend ε" in caution
    at.selectbox(key="data_column").set_value("worker").run()
    (caution,) = _cautions(at)
    assert "'worker'" in caution and "a row number or an identifier" in caution, caution
    at.selectbox(key="data_column").set_value("hourly_wage").run()
    assert not _cautions(at)


def test_a_value_column_named_like_an_identifier_keeps_a_caution() -> None:
    """The public rule (the column's name) needs no data: said without 'for you only'."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"amount": rng.uniform(0, 9e4, 300), "user_id": rng.uniform(0, 1e6, 300)})
    at = _upload("ids.csv", frame.to_csv(index=False).encode())
    at.selectbox(key="data_column").set_value("user_id").run()
    (caution,) = _cautions(at)
    assert "'user_id'" in caution and "name is that of an identifier" in caution, caution
    assert "For you only" not in caution


def test_the_release_page_repeats_the_caution_before_spending() -> None:
    """Release offered to spend ε 'on the sums of job' without a word (review P2-6)."""
    at = _upload("jobs.csv", _jobs())
    at.selectbox(key="data_column").set_value("job").run()
    at.switch_page("app_pages/release.py").run()
    assert not at.exception
    (caution,) = _cautions(at)
    assert "'job'" in caution and "Choose the column of amounts on the Data page" in caution
    at.switch_page("app_pages/data.py").run()
    at.selectbox(key="data_column").set_value("hourly_wage").run()
    at.switch_page("app_pages/release.py").run()
    assert not _cautions(at)
