"""Review 9 P2-6: an identifier with very few distinct values ('school': 3,000 rows → 4
people) was accepted without a word. The Data page (and the Release page, above the
confirmation) now cautions, by the rule that makes such a column a category
(:func:`dpsum_core.data.identifiers.few_distinct`); a real identifier gets no caution."""

from __future__ import annotations

import numpy as np
import pandas as pd
from app_helpers import assert_clean
from streamlit.testing.v1 import AppTest
from test_data_people import _upload


def _schools() -> bytes:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({
        "person_id": np.arange(3000) // 3,  # 1,000 people with 3 rows each
        "school": np.array(["North", "South", "East", "West"])[np.arange(3000) % 4],
        "wage": np.round(rng.uniform(0, 150, 3000), 2),
    })  # fmt: skip
    return frame.to_csv(index=False).encode()


def _cautions(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if "may not identify people" in w.value]


def test_an_identifier_with_few_values_is_cautioned_against() -> None:
    at = _upload("schools.csv", _schools())
    assert at.selectbox(key="data_column").value == "wage"
    assert _cautions(at) == []  # one row per person: nothing to say here
    at.selectbox(key="data_id_column").set_value("school").run()
    assert_clean(at)
    (said,) = _cautions(at)  # old: none
    assert "**'school' may not identify people:** 4 distinct values for 3,000 rows" in said
    assert "√rows ≈ 55" in said and "category" in said and "in the box above" in said
    at.switch_page("app_pages/release.py").run()
    (said,) = _cautions(at)
    assert "on the Data page" in said


def test_a_real_identifier_is_not_cautioned_against() -> None:
    at = _upload("schools.csv", _schools())
    at.selectbox(key="data_id_column").set_value("person_id").run()
    assert_clean(at)
    assert _cautions(at) == []
