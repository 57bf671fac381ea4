"""report.html on a phone (review 11 P2-7): numbers keep their units on one line, and tables
take a smaller font on a narrow screen."""

from __future__ import annotations

from dpsum_core.publish.page import NARROW, report_html


def test_numbers_keep_their_units_on_one_line() -> None:
    page = report_html(
        "At least 95 % (each on its own: about 1 in 20 may miss), 97.5 % ends.\n\n"
        "| 95 % interval | total |\n|---:|---:|\n| [0, 3,700] | 1 in 20 |\n\n"
        "      dpsum release --epsilon 0.5 %\n"
    )
    assert "95&nbsp;% (each" in page and "97.5&nbsp;% ends" in page
    assert "about 1&nbsp;in&nbsp;20 may" in page
    assert "<th>95&nbsp;% interval</th>" in page and "<td>1&nbsp;in&nbsp;20</td>" in page
    assert "<pre>dpsum release --epsilon 0.5 %</pre>" in page  # a command is copied as it is
    assert " %" not in page.replace("0.5 %", "")


def test_tables_are_smaller_on_a_phone() -> None:
    page = report_html("| a |\n|---|\n| 1 |\n")
    assert f"@media (max-width:{NARROW}){{" in page and "table{font-size:.8em}" in page
