"""Many users at once, with and without a hostile one: does the server stay up for everyone?

    python -m bench.load [--sessions 20] [--runs 5] [--quick]

Starts ``streamlit run app.py`` (tests/e2e/conftest.py's Server) and opens ``--sessions``
browser contexts in one Chromium (each a separate user and Streamlit session). Every session
runs the Explorer's default (Q1 × the default algorithms × 100 trials) ``--runs`` times, all
sessions clicking Run together in each round (distinct seeds, so nothing comes from a memo);
the click-to-figures time of each click is taken in the page's own clock (the e2e probe of
tests/e2e/test_explorer.py: pointer down on Run → answers figure of that seed drawn).

Two phases on the same server, after one unmeasured warm-up round:

- ``quiet``: the sessions alone;
- ``hostile``: one extra session first opens the hostile Compare link of issue 17 (an ε sweep
  over 13 values, 5 000 bins, 6 000 trials, TaMM with the recursive θ: hours of CPU) — the cost
  model must restore its settings without running anything, and refuse Run sweep — and then
  keeps the server busy with the heaviest run the cost model accepts in that family (TaMM,
  recursive θ, 5 000 bins, the most trials estimated within ``limits.MAX_CLICK_SECONDS``),
  pressing Run again with a new seed whenever it finishes.

- ``attacks`` (issue 27): one extra session fires, one at a time, the attacks of issue 27
  (:mod:`bench.attacks`) — the hostile Decide link (server data, U = 20 001, 5 000 bins, 7
  algorithms × 3 truncations), an id-column bomb CSV (one id with many rows, many single-row
  ids, the id column chosen) and a Parquet bomb (13 float columns of zeros, zstd) — without
  waiting for them; the sessions click meanwhile. Each attack is then given
  ``--attack-timeout`` seconds to end; one still running is reported (``timed_out``), its tab
  closed, and the next one starts: the phase is bounded in time whatever the server does.

Reported: errors (exceptions, error alerts, timeouts), whether every session got every figure,
the server's peak RSS (VmHWM), median and p90 click-to-figures per phase and the ratio of the
medians; per attack, its outcome (what its page showed), its seconds, the sessions' clicks
meanwhile against the quiet phase, the server's CPU seconds in the 5 s after its tab closed
(work left running) and its RSS. Targets (issues 17 and 27): 0 errors, every figure,
RSS ≤ 2 GiB, ratio ≤ 1.5 (the hostile phase and every attack).
"""

from __future__ import annotations

import importlib.util
import statistics
import time
from urllib.parse import urlencode

from bench.attacks import ATTACKS, Attacker, attack_files
from bench.common import emit, log, machine, parser, target

SESSIONS = 20
RUNS = 5
TIMEOUT_MS = 600_000
LIMITS = {"errors": 0, "server_peak_rss_mib": 2048.0, "hostile_median_ratio": 1.5}
FIRST_SEED = 1000
ATTACK_TIMEOUT_S = 120.0


def hostile_configs():
    """(the hostile Compare link's query, the heaviest accepted Explorer config of its family)."""
    from dpsum_core import limits
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.cost import run_cost
    from dpsum_ui import compare, share
    from dpsum_ui.state import EPSILON_GRID

    heavy = ExperimentConfig(bins=5000, trials=6000, truncations=("recursive",),
                             algorithms=("tamm",))  # fmt: skip
    link = share.config_to_query(heavy, sample="incomes.csv", column="income")
    link.update(share.view_to_query(
        compare.VIEW, {"sweep_epsilons": list(EPSILON_GRID), "sweep_truncation": "recursive"}))  # fmt: skip
    lo, hi = 1, heavy.trials  # the most trials the click budget accepts (cost grows with trials)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if run_cost(heavy.with_(trials=mid)).seconds <= limits.MAX_CLICK_SECONDS:
            lo = mid
        else:
            hi = mid - 1
    return link, heavy.with_(trials=lo)


class Hostile:
    """The extra session: the hostile link (must not run), then the heaviest accepted run,
    restarted whenever it finishes."""

    def __init__(self, browser, url: str) -> None:
        from dpsum_core.simulate.cost import run_cost
        from dpsum_ui import share
        from tests.e2e.conftest import ERROR, EXCEPTION, button, new_context, wait_idle

        link, self.config = hostile_configs()
        self.estimate_s = round(run_cost(self.config).seconds, 1)
        self.context = new_context(browser)
        page = self.page = self.context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        start = time.perf_counter()
        page.goto(f"{url}/compare?{urlencode(link)}")
        button(page, "sweep_run").wait_for()
        wait_idle(page, TIMEOUT_MS)
        self.link_open_s = round(time.perf_counter() - start, 3)
        notes = " ".join(page.locator('[data-testid="stAlertContentInfo"]').all_inner_texts())
        self.link_restored_without_running = "not run" in notes and page.locator(
            '[data-testid="stProgress"]').count() == 0  # fmt: skip
        button(page, "sweep_run").click()
        page.locator(ERROR).first.wait_for()
        wait_idle(page, TIMEOUT_MS)
        message = " ".join(page.locator(ERROR).all_inner_texts())
        self.sweep_refused = "would take about" in message and "Nothing was run" in message
        self.exceptions = page.locator(EXCEPTION).count()
        params = share.config_to_query(self.config, sample="incomes.csv", column="income")
        page.goto(f"{url}/?{urlencode(params)}")
        button(page, "explorer_run").wait_for()
        wait_idle(page, TIMEOUT_MS)
        self.seed = FIRST_SEED
        self.started = 0
        self.busy_checks: list[bool] = []  # at each round's end: was the heavy run computing?

    def keep_busy(self) -> None:
        """Press Run again (new seed) if the last heavy run has finished."""
        from tests.e2e.conftest import IDLE, button, set_number, sidebar_has, wait_idle

        page = self.page
        if page.locator(IDLE).count() == 0:
            return  # still running
        if self.started:
            self.seed += 1
            set_number(page, "seed", self.seed)
            sidebar_has(page, f"seed {self.seed}")
            wait_idle(page, TIMEOUT_MS)
        button(page, "explorer_run").click()
        page.locator('[data-testid="stProgress"]').first.wait_for()
        self.started += 1

    def running(self) -> bool:
        """Whether the heavy run is computing now (its progress bar is up)."""
        busy = self.page.locator('[data-testid="stProgress"]').count() > 0
        self.busy_checks.append(busy)
        return busy

    def report(self) -> dict:
        from tests.e2e.conftest import EXCEPTION

        return {
            "heavy_config": {
                "bins": self.config.bins,
                "trials": self.config.trials,
                "algorithms": list(self.config.algorithms),
                "truncations": list(self.config.truncations),
            },
            "heavy_estimate_s": self.estimate_s,
            "heavy_runs_started": self.started,
            "heavy_running_at_round_ends": f"{sum(self.busy_checks)}/{len(self.busy_checks)}",
            "link_open_s": self.link_open_s,
            "link_restored_without_running": self.link_restored_without_running,
            "sweep_refused": self.sweep_refused,
            "exceptions": self.exceptions + self.page.locator(EXCEPTION).count(),
        }


def _round(
    pages: list, seeds: list[int], errors: list[str], timeout_ms: float = TIMEOUT_MS
) -> list[float]:
    """Every session sets its seed, then all click Run together; click-to-figures per page."""
    from tests.e2e.conftest import (
        ERROR,
        EXCEPTION,
        answers_title,
        button,
        set_number,
        sidebar_has,
        wait_idle,
    )
    from tests.e2e.test_explorer import _PROBE

    for page, seed in zip(pages, seeds, strict=True):
        set_number(page, "seed", seed)
    for page, seed in zip(pages, seeds, strict=True):
        sidebar_has(page, f"seed {seed}", timeout_ms)
        wait_idle(page, timeout_ms)
    for page, seed in zip(pages, seeds, strict=True):
        page.evaluate(_PROBE, answers_title(seed))
        button(page, "explorer_run").click()
    times = []
    for i, (page, seed) in enumerate(zip(pages, seeds, strict=True)):
        try:
            page.wait_for_function(answers_title(seed), timeout=timeout_ms)
            page.wait_for_function("() => window.__probe.figure != null", timeout=timeout_ms)
            wait_idle(page, timeout_ms)
            t = page.evaluate("window.__probe")
            times.append((t["figure"] - t["click"]) / 1000)
        except Exception as exc:  # a timeout is a result here, not a crash of the benchmark
            errors.append(f"session {i} seed {seed}: {type(exc).__name__}: {str(exc)[:200]}")
        bad = page.locator(EXCEPTION).count() + page.locator(ERROR).count()
        if bad:
            errors.append(f"session {i} seed {seed}: {bad} exception/error element(s)")
    return times


def _stats(times: list[float]) -> dict:
    if not times:
        return {"median_s": None, "p90_s": None, "max_s": None, "clicks": 0}
    ordered = sorted(times)
    return {
        "median_s": round(statistics.median(ordered), 3),
        "p90_s": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 3),
        "max_s": round(ordered[-1], 3),
        "clicks": len(ordered),
    }


def measure(browser, sessions: int, runs: int, attacks: dict | None) -> dict:
    """The phases on one fresh server (``attacks``: the attack phase's settings, or None)."""
    import tempfile

    from tests.e2e.conftest import Server, button, new_context, wait_idle
    from tests.e2e.test_concurrency import cpu_s, memory_kb

    data_dir = tempfile.TemporaryDirectory(prefix="dpsum-load-")
    files = attack_files(data_dir.name, **attacks["sizes"]) if attacks else {}
    server = Server(env={"DPSUM_DATA_DIR": data_dir.name})
    contexts = []
    hostile = None
    try:
        start = time.perf_counter()
        pages = []
        for _ in range(sessions):
            context = new_context(browser)
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(server.url)
            pages.append(page)
        for page in pages:
            button(page, "explorer_run").wait_for()
            wait_idle(page, TIMEOUT_MS)
        opened_s = time.perf_counter() - start
        log(f"load: {sessions} sessions open in {opened_s:.0f} s")
        seed = FIRST_SEED
        warm_errors: list[str] = []
        _round(pages, [seed + i for i in range(sessions)], warm_errors)  # warm-up, not counted
        seed += sessions
        phases = {}
        for phase in ("quiet", "hostile"):
            errors: list[str] = []
            times: list[float] = []
            if phase == "hostile":
                hostile = Hostile(browser, server.url)
                hostile.keep_busy()
            t0, cpu0 = time.perf_counter(), cpu_s(server.proc.pid)
            for r in range(runs):
                if hostile is not None:
                    hostile.keep_busy()
                times += _round(pages, [seed + i for i in range(sessions)], errors)
                seed += sessions
                if hostile is not None:
                    hostile.running()
                log(f"load: {phase} round {r + 1}/{runs}: {len(times)} figures, "
                    f"{len(errors)} errors")  # fmt: skip
            rss_mib = round(memory_kb(server.proc.pid)["VmHWM"] / 1024, 1)
            phases[phase] = {
                **_stats(times),
                "errors": errors,
                "figures": len(times),
                "expected_figures": sessions * runs,
                "seconds": round(time.perf_counter() - t0, 1),
                "server_cpu_s": round(cpu_s(server.proc.pid) - cpu0, 1),
                "server_peak_rss_mib_so_far": rss_mib,
            }
        hostile_report = hostile.report() if hostile is not None else None
        if hostile is not None:  # its heavy runs would slow the attack phase's clicks
            hostile.context.close()
            hostile = None
        if attacks is not None:
            phases["attacks"] = _attacks(
                browser, server, pages, seed, runs, files, attacks["timeout_s"],
                phases["quiet"]["median_s"],
            )  # fmt: skip
        memory = memory_kb(server.proc.pid)
        quiet, noisy = phases["quiet"]["median_s"], phases["hostile"]["median_s"]
        out = {
            "sessions": sessions,
            "runs_per_session": runs,
            "open_all_s": round(opened_s, 1),
            "warm_up_errors": warm_errors,
            "phases": phases,
            "hostile": hostile_report,
            "server_peak_rss_mib": round(memory["VmHWM"] / 1024, 1),
            "hostile_median_ratio": round(noisy / quiet, 3) if quiet and noisy else None,
            "hostile_p90_ratio": (
                round(phases["hostile"]["p90_s"] / phases["quiet"]["p90_s"], 3)
                if phases["quiet"]["p90_s"] and phases["hostile"]["p90_s"]
                else None
            ),
        }
        return out
    finally:
        if hostile is not None:
            hostile.context.close()
        for context in contexts:
            context.close()
        server.stop()
        data_dir.cleanup()


def _attacks(
    browser, server, pages: list, seed: int, runs: int, files: dict, timeout_s: float,
    quiet_median: float | None,
) -> dict:  # fmt: skip
    """Each attack of issue 27 in turn, the sessions clicking meanwhile (see the module
    docstring); bounded by ``timeout_s`` per attack."""
    from tests.e2e.test_concurrency import cpu_s, memory_kb

    out: dict = {}
    for name in ATTACKS:
        attacker = Attacker(browser, server.url, files)
        errors: list[str] = []
        times: list[float] = []
        t0, cpu0 = time.perf_counter(), cpu_s(server.proc.pid)
        try:
            attacker.fire(name)
        except Exception as exc:  # reported, never a crash of the benchmark
            errors.append(f"{name}: could not start: {type(exc).__name__}: {str(exc)[:200]}")
        for r in range(runs):
            times += _round(pages, [seed + i for i in range(len(pages))], errors,
                            timeout_ms=1000 * max(timeout_s, 60.0))  # fmt: skip
            seed += len(pages)
            log(f"load: attack {name} round {r + 1}/{runs}: {len(times)} figures")
        outcome = attacker.settle(timeout_s - (time.perf_counter() - t0))
        closed_cpu = cpu_s(server.proc.pid)
        attacker.close()
        time.sleep(5.0)
        lingering = round(cpu_s(server.proc.pid) - closed_cpu, 1)
        memory = memory_kb(server.proc.pid)
        median = _stats(times)["median_s"]
        out[name] = {
            **outcome,
            **_stats(times),
            "errors": errors,
            "figures": len(times),
            "expected_figures": len(pages) * runs,
            "median_ratio": round(median / quiet_median, 3) if median and quiet_median else None,
            "server_cpu_s": round(closed_cpu - cpu0, 1),
            "server_cpu_s_in_5_s_after_close": lingering,
            "server_rss_mib": round(memory["VmRSS"] / 1024, 1),
            "server_peak_rss_mib_so_far": round(memory["VmHWM"] / 1024, 1),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        log(f"load: attack {name}: {outcome['outcome']} in {outcome['seconds_to_settle']} s")
    return out


def main() -> None:
    """Run both phases and print one JSON object."""
    p = parser(__doc__)
    p.add_argument(
        "--sessions", type=int, help=f"concurrent sessions (default {SESSIONS}, quick 3)"
    )
    p.add_argument(
        "--runs", type=int, help=f"Run clicks per session and phase (default {RUNS}, quick 2)"
    )
    p.add_argument("--attack-timeout", type=float, default=ATTACK_TIMEOUT_S,
                   help="seconds each attack of issue 27 may take before it is skipped "
                   f"(default {ATTACK_TIMEOUT_S:g}; 0: no attack phase)")  # fmt: skip
    p.add_argument("--id-rows", type=int,
                   help="id-column bomb: rows of the one large id, and as many single-row ids "
                   "(default 5·10⁵, quick 10⁵)")  # fmt: skip
    p.add_argument("--parquet-rows", type=int,
                   help="Parquet bomb: rows of zeros in each of 13 float columns "
                   "(default 5·10⁶ ≈ 0.5 GB decoded, quick 10⁶; the issue's is 2·10⁷)")  # fmt: skip
    args = p.parse_args()
    sessions = args.sessions or (3 if args.quick else SESSIONS)
    runs = args.runs or (2 if args.quick else RUNS)
    attacks = None
    if args.attack_timeout > 0:
        sizes = {
            "id_rows": args.id_rows or (100_000 if args.quick else 500_000),
            "parquet_rows": args.parquet_rows or (1_000_000 if args.quick else 5_000_000),
        }
        attacks = {"timeout_s": args.attack_timeout, "sizes": sizes}
    out: dict = {"machine": machine(), "attacks": attacks}
    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

    if CHROMIUM is None or importlib.util.find_spec("playwright") is None:
        out["reason"] = "not measured: Chromium or the playwright package is missing"
        emit(out)
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            out.update(measure(browser, sessions, runs, attacks))
        finally:
            browser.close()
    phases, hostile = out["phases"], out["hostile"] or {}
    every = [p for name, p in phases.items() if name != "attacks"]
    every += list(phases.get("attacks", {}).values())
    errors = sum(len(p["errors"]) for p in every) + int(hostile.get("exceptions", 0))
    out["every_session_got_its_figures"] = all(
        p["figures"] == p["expected_figures"] for p in every
    )
    out["targets"] = {
        "errors": target(errors, LIMITS["errors"], "errors"),
        "server_peak_rss_mib": target(
            out["server_peak_rss_mib"], LIMITS["server_peak_rss_mib"], "MiB"
        ),
        "hostile_median_ratio": target(
            out["hostile_median_ratio"], LIMITS["hostile_median_ratio"], "×"
        ),
        "hostile_link_not_run": target(
            int(bool(hostile.get("link_restored_without_running"))), 1, "", at_least=True
        ),
        "hostile_sweep_refused": target(
            int(bool(hostile.get("sweep_refused"))), 1, "", at_least=True
        ),
    }
    for name, attack in phases.get("attacks", {}).items():
        out["targets"][f"attack_{name}_median_ratio"] = target(
            attack["median_ratio"], LIMITS["hostile_median_ratio"], "×"
        )
        out["targets"][f"attack_{name}_settled"] = target(
            int(not attack["timed_out"]), 1, "", at_least=True
        )
    emit(out)


if __name__ == "__main__":
    main()
