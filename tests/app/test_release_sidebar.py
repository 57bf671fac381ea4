"""The Release page's sidebar names the settings the release uses, by the rule of its
release.json and the command line (statistician's review P3-7: it showed the explorer's ρ, SVT
and algorithms next to a ClampShells release, which uses none of them)."""

from __future__ import annotations

from app_helpers import assert_clean, new_app


def _sidebar(at) -> str:
    return " ".join(c.value for c in at.sidebar.caption) + " ".join(
        m.value for m in at.sidebar.markdown
    )


def test_the_release_sidebar_shows_only_what_the_releases_theta_rule_reads() -> None:
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3").run()
    explorer = _sidebar(at)
    assert "ρ = 0.1" in explorer and "trials" in explorer  # the explorer's own settings
    at.switch_page("app_pages/release.py").run()
    assert_clean(at)
    assert at.selectbox(key="release_algorithm").value == "clampshells"
    shown = _sidebar(at)
    assert "**Release settings**" in shown and "**Settings**" not in shown
    assert "ClampShells · θ located by the algorithm" in shown
    assert "ε = 0.01 (ε_θ = 0.0025 + ε_m = 0.0075)" in shown
    assert "δ = 100 (its onset gate)" in shown
    for unused in ("ρ", "SVT", "trials", "seed", "Algorithms:", "SQM"):
        assert unused not in shown, (unused, shown)
    # TaMM with SVT reads ρ and SVT's parameters; with a fixed θ, θ alone
    at.selectbox(key="release_algorithm").set_value("tamm").run()
    shown = _sidebar(at)
    assert "TaMM · SVT" in shown and "ρ = 0.1 (the share of ε choosing θ)" in shown
    assert "SVT's parameters: Variant: paper · r (fraction): 0.998" in shown
    at.selectbox(key="release_truncation").set_value("fixed").run()
    shown = _sidebar(at)
    assert "fixed θ's parameters: Fixed θ: 100,000" in shown
    assert "ρ" not in shown and "SVT" not in shown and "δ" not in shown
