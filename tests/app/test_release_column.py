"""After the value column changes, the Release page names the columns (researcher's review
P2-4: "this ledger belongs to the dataset 'wages.csv', not to 'wages.csv'", and the earlier
release shown under the new column's header without naming its own)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from app_helpers import assert_clean, errors, kept, new_app

from dpsum_ui.page_state import ReleaseState

PAGE = "app_pages/release.py"


def _wages() -> bytes:
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({
        "person_id": rng.integers(0, 400, 1500),
        "hourly_wage": rng.uniform(5, 90, 1500).round(2),
        "job_no": rng.integers(1, 6, 1500),
    })  # fmt: skip
    return frame.to_csv(index=False).encode()


def _released_by_person():
    """wages.csv uploaded, column hourly_wage by person_id, released once on Q3."""
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3").run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(("wages.csv", _wages(), "text/csv")).run()
    at.number_input(key="domain_upper").set_value(100.0).run()
    at.selectbox(key="data_column").set_value("hourly_wage").run()
    at.selectbox(key="data_id_column").set_value("person_id").run()
    assert_clean(at)
    at.switch_page(PAGE).run()
    at.number_input(key="release_total").set_value(1.0).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    return at


def test_a_release_and_the_ledger_refusal_name_their_columns_after_the_column_changes():
    at = _released_by_person()
    text = " ".join(m.value for m in at.markdown)
    assert "Made on **wages.csv**, column **hourly_wage**" in text
    assert "all rows with the same 'person_id'" in text
    (table,) = [d.value for d in at.dataframe if "Column" in d.value.columns]
    assert list(table["Column"]) == ["hourly_wage"] and list(table["Identifier"]) == ["person_id"]
    assert kept(at, ReleaseState).last_data == ("wages.csv", "upload")

    # another value column of the same file, about the same people
    at.switch_page("app_pages/data.py").run()
    at.selectbox(key="data_column").set_value("job_no").run()
    at.switch_page(PAGE).run()
    at.number_input(key="release_total").set_value(1.0).run()
    refusal = " ".join(errors(at))
    assert "'wages.csv', column 'hourly_wage', not to 'wages.csv', column 'job_no'" in refusal
    assert "identifying people by 'person_id'" in refusal
    assert "per content of those rows (PRIVACY.md)" in refusal
    assert "not to 'wages.csv': " not in refusal  # never "wages.csv, not wages.csv" again
    assert at.checkbox(key="release_confirm").disabled
    # the earlier release is shown as such, named by its column, its downloads its own
    headers = [h.value for h in at.header]
    assert "The earlier release (other data)" in headers and "The release" not in headers
    said = " ".join(w.value for w in at.warning)
    assert "This earlier release is of column 'hourly_wage' of wages.csv" in said
    assert "not of the data selected now (column 'job_no' of wages.csv" in said
    assert "the column differs" in said and "unit of privacy" not in said
    assert "another column is another dataset with its own ledger" in said
    assert "Made on **wages.csv**, column **hourly_wage**" in " ".join(m.value for m in at.markdown)


def test_after_the_unit_changes_the_earlier_release_says_only_the_unit_differs():
    """Review9 P3: after one row = one person was chosen on the same column, the note said
    "another column is another dataset" though only the unit of privacy had changed."""
    at = _released_by_person()
    at.switch_page("app_pages/data.py").run()
    at.selectbox(key="data_id_column").set_value(None).run()  # one row = one person
    at.switch_page(PAGE).run()
    assert "The earlier release (other data)" in [h.value for h in at.header]
    (said,) = [w.value for w in at.warning if "This earlier release" in w.value]
    assert ("This earlier release is of column 'hourly_wage' of wages.csv, one person = all "
            "rows with the same 'person_id'**, not of the data selected now (column "
            "'hourly_wage' of wages.csv, one row = one person): the unit of privacy differs."
            ) in said  # fmt: skip
    assert "another unit of privacy is another dataset with its own ledger" in said
    assert "another column" not in said and "keep one unit of privacy per dataset" in said
