"""The Release page's expected error says its share of the answer with the table's formatter:
"0.999 %" in both (the sentence said "1.0 %" beside the table's "0.999 %")."""

from __future__ import annotations

import numpy as np

from dpsum_core.publish.release import ReleaseEstimate
from dpsum_ui.release_words import estimate_table, expected_words


def test_the_sentence_and_the_table_write_the_share_alike():
    est = ReleaseEstimate(thresholds=np.array([1e5, 2e5, 3e5]), rmse=np.array([9.0, 9.0, 9.0]),
                          noise_sd=np.array([5.0, 5.0, 5.0]),
                          relative=np.array([0.00999, 0.00999, 0.00999]))  # fmt: skip
    assert "about **0.999 %** of the answer" in expected_words(est, "income")
    assert list(estimate_table(est)["RMSE as a share of the answer"]) == ["0.999 %"] * 3
    tiny = ReleaseEstimate(est.thresholds, est.rmse, est.noise_sd, np.full(3, 0.00045))
    assert "about **0.045 %** of the answer" in expected_words(tiny, None)
