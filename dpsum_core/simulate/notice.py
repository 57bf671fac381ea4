"""The notice carried by every simulation output (run.json, the CSVs' NOTICE.txt, the CLI).

A run shows true answers next to noisy ones and draws its noise with numpy from a recorded
seed: good for choosing a configuration, wrong for publishing. Releases are a separate command.
"""


from __future__ import annotations

NOT_FOR_PUBLICATION = (
    "NOT FOR PUBLICATION. These files are a simulation for choosing a configuration: they hold "
    "true answers and other statistics computed from the data without noise, and noise drawn "
    "with numpy from a recorded seed (reproducible, and not hardened against floating-point "
    "attacks). To publish private answers, make a release with "
    "dpsum release or the dashboard's Release page (one trial, OpenDP's samplers, a kept "
    "privacy budget)."
)


# The marks of the exact figures `dpsum run` and `dpsum reproduce` print on stdout beside their
# files (`dpsum release` marks its cleaning report on stderr the same way): the cleaning
# report's counts, and the run's accuracy table, whose errors set simulated answers against the
# true answers. Each starts its line, in capitals as the files' notice.
CLEANING = "cleaning report (NOT FOR PUBLICATION, computed without noise)"
ACCURACY = "simulation accuracy (NOT FOR PUBLICATION, computed from the data without noise)"


# The mark of a line on stderr that states exact statistics of the data (the cleaning report,
# the domain warnings, a refusal's counts): for the operator, never published.
UNNOISED = "(not for publication, computed without noise)"


def with_notice(info: dict) -> dict:
    """``info`` (a run record for JSON) with the not-for-publication notice as its first key."""
    return {"notice": NOT_FOR_PUBLICATION, **info}
