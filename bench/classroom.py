"""A classroom on one server: N students open the teacher's links at once.

    python -m bench.classroom [--students 30] [--proxy] [--quick]

One ``streamlit run app.py`` and one Chromium with N browser contexts (N students: own cookies,
storage and Streamlit session). Measured, on the server process from /proc:

- ``one_student``: a single student opens an Explorer link (default settings, a seed nobody ran
  yet): server CPU seconds and open-to-figures seconds;
- ``explorer``: N students open one Explorer link (another fresh seed) at once: server CPU in
  total, open-to-figures median and p90, and ``cpu_per_additional_student_s`` =
  (CPU of the N − CPU of the one student) / (N − 1), the figure that matters when the
  browsers share the server's cores (target ≤ 0.1 s; 1.2 s before issue 25);
- ``single_query``: one student opens a Single query link (a fresh seed), then the same N open
  another Single query link at once (CPU, open-to-drawn, and CPU per additional student);
- ``frame_floor``: the same N open the About page at once: the server CPU per student of
  serving Streamlit's own frontend (about 90 static files, ~9 MB: no app work), the floor under
  every page's per-student figure;
- ``theta_step_ms``: on Single query, arrow-key steps of θ in the lesson frame, by the page's
  own clock (performance.now in the page): until the four numbers and the explanations changed
  (target ≤ 50 ms), and until the chart's marker moved too (the next frame);
- ``lesson_bytes``: the size of the "Download this lesson" file (target ≤ 5 MB);
- the server's peak RSS (VmHWM; target ≤ 1.5 GiB at 30 sessions), ``shared_computations``
  (lines the server wrote with DPSUM_MEMO_TRACE=1) and the machine's load.

With ``--proxy`` the students go through nginx running ``deploy/nginx-classroom.conf`` (the
file the README hands to teachers; nginx caches Streamlit's frontend, the same bytes for every
student): the server's CPU is then Streamlit's plus nginx's (master and worker), and both are
reported (``streamlit_cpu_s``, ``nginx_cpu_s``).

Nothing is asserted; ``pass`` says how each figure compares with its target.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from urllib.parse import urlencode

from bench.common import emit, log, machine, parser, target

EXPLORER_SEEDS = (2501, 2502)  # the lone student's, then the class's (fresh: nobody ran them)
THETA_STEPS = 12


def _explorer_link(seed: int) -> str:
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_ui import share

    params = share.config_to_query(ExperimentConfig(seed=seed), sample="incomes.csv",
                                   column="income")  # fmt: skip
    return f"/?{urlencode(params)}"


SINGLE_QUERY_LINK = "/single-query?data=incomes.csv&workload=Q3&tau=240000&theta=80000"
LONE_SINGLE_QUERY_LINK = SINGLE_QUERY_LINK + "&seed=2503"  # the lone student's (fresh)


def _quantiles(values: list[float]) -> dict:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return {"median_s": round(statistics.median(ordered), 2), "p90_s": round(p90, 2),
            "max_s": round(ordered[-1], 2)}  # fmt: skip


def _open_all(browser, url: str, count: int, ready,
              credentials: dict[str, str] | None) -> tuple[list, list[float]]:  # fmt: skip
    """``count`` new contexts open ``url`` at once; seconds until ``ready(page)`` in each."""
    from tests.e2e.conftest import new_context

    contexts = [new_context(browser, credentials=credentials) for _ in range(count)]
    pages = [c.new_page() for c in contexts]
    start = time.perf_counter()
    for page in pages:
        page.set_default_timeout(600_000)
        page.goto(url, wait_until="commit")
    seconds = []
    for page in pages:  # in order: each is waited for from the common start
        ready(page)
        seconds.append(time.perf_counter() - start)
    return contexts, seconds


def _answers(seed: int):
    from tests.e2e.conftest import answers_title, wait_idle

    def ready(page) -> None:
        page.wait_for_function(answers_title(seed), timeout=600_000)
        wait_idle(page, 600_000)

    return ready


def _lesson_ready(page) -> None:
    from tests.e2e.conftest import wait_idle

    page.frame_locator(".st-key-teach_lesson iframe").locator("#chart .main-svg").first.wait_for(
        timeout=600_000)  # fmt: skip
    wait_idle(page, 600_000)


def _about_ready(page) -> None:
    from tests.e2e.conftest import wait_idle

    page.get_by_role("heading").first.wait_for(timeout=600_000)
    wait_idle(page, 600_000)


class _Meter:
    """CPU seconds of the server: Streamlit's, plus nginx's when the class goes through it."""

    def __init__(self, server, proxy) -> None:
        self.server, self.proxy = server, proxy

    def read(self) -> tuple[float, float]:
        from tests.e2e.test_concurrency import cpu_s

        nginx = sum(cpu_s(p) for p in self.proxy.pids()) if self.proxy else 0.0
        return cpu_s(self.server.proc.pid), nginx

    def cost(self, before: tuple[float, float]) -> dict:
        """The CPU the server used since ``before`` (a :meth:`read`): total and by process."""
        (s0, n0), (s1, n1) = before, self.read()
        cost = {"server_cpu_s": round(s1 - s0 + n1 - n0, 3)}
        if self.proxy:
            cost |= {"streamlit_cpu_s": round(s1 - s0, 3), "nginx_cpu_s": round(n1 - n0, 3)}
        return cost


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--students", type=int, default=30, help="browser contexts (default 30)")
    p.add_argument("--proxy", action="store_true",
                   help="students go through nginx with deploy/nginx-classroom.conf")  # fmt: skip
    args = p.parse_args()
    students = 3 if args.quick else args.students

    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, Server, new_context, open_app
    from tests.e2e.proxy import PASSWORD, USER, Proxy
    from tests.e2e.test_classroom import theta_steps
    from tests.e2e.test_concurrency import memory_kb

    result: dict = {"students": students, "proxy": args.proxy, "machine_before": machine()}
    server = Server(env={"DPSUM_MEMO_TRACE": "1"})
    proxy = Proxy(server.port) if args.proxy else None
    url = proxy.url if proxy else server.url
    credentials = {"username": USER, "password": PASSWORD} if proxy else None
    meter = _Meter(server, proxy)

    def open_all(path: str, count: int, ready) -> tuple[list, list[float], dict]:
        before = meter.read()
        contexts, seconds = _open_all(browser, url + path, count, ready, credentials)
        return contexts, seconds, meter.cost(before)

    def close(contexts: list) -> None:
        for c in contexts:
            c.close()

    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            warm = new_context(browser, credentials=credentials)
            open_app(warm.new_page(), url)  # imports, the sample loaded, nginx's cache filled
            warm.close()

            log("one student")
            contexts, seconds, one = open_all(_explorer_link(EXPLORER_SEEDS[0]), 1,
                                              _answers(EXPLORER_SEEDS[0]))  # fmt: skip
            close(contexts)
            result["one_student"] = {**one, "open_to_figures_s": round(seconds[0], 2)}

            log(f"{students} students: the Explorer link")
            contexts, seconds, cost = open_all(_explorer_link(EXPLORER_SEEDS[1]), students,
                                               _answers(EXPLORER_SEEDS[1]))  # fmt: skip
            close(contexts)
            extra = (cost["server_cpu_s"] - one["server_cpu_s"]) / max(1, students - 1)
            result["explorer"] = {
                **cost,
                "server_cpu_per_student_s": round(cost["server_cpu_s"] / students, 3),
                "cpu_per_additional_student_s": target(extra, 0.1),
                "open_to_figures": _quantiles(seconds),
            }
            log(f"one student, then the class: {result['one_student']} {result['explorer']}")

            log("one student: a Single query link")
            contexts, seconds, one_sq = open_all(LONE_SINGLE_QUERY_LINK, 1, _lesson_ready)
            close(contexts)
            log(f"{students} students: the Single query link")
            contexts, seconds, cost = open_all(SINGLE_QUERY_LINK, students, _lesson_ready)
            extra = (cost["server_cpu_s"] - one_sq["server_cpu_s"]) / max(1, students - 1)
            result["single_query"] = {
                **cost,
                "server_cpu_per_student_s": round(cost["server_cpu_s"] / students, 3),
                "one_student_cpu_s": one_sq["server_cpu_s"],
                "cpu_per_additional_student_s": target(extra, 0.1),
                "open_to_drawn": _quantiles(seconds),
            }
            memory = memory_kb(server.proc.pid)
            result["server_peak_rss_mib"] = target(memory["VmHWM"] / 1024, 1.5 * 1024, "MiB")

            log("θ steps and the lesson file")
            page = contexts[0].pages[0]
            theta_steps(page, 2)  # warm up
            steps = theta_steps(page, THETA_STEPS)
            numbers = [s["dom"] for s in steps]
            painted = [s["painted"] for s in steps]
            result["theta_step_ms"] = {
                "numbers_median": target(statistics.median(numbers), 50.0, "ms"),
                "numbers_max": round(max(numbers), 1),
                "with_chart_median": round(statistics.median(painted), 1),
                "with_chart_max": round(max(painted), 1),
                "steps": len(steps),
            }
            with page.expect_download() as info:
                page.frame_locator(".st-key-teach_lesson iframe").locator(
                    '#tools button[data-kind="lesson"]').click()
            size = Path(info.value.path()).stat().st_size
            result["lesson_bytes"] = target(size, 5_000_000, "bytes")
            close(contexts)

            log(f"{students} students: the About page (Streamlit's own frontend)")
            contexts, seconds, cost = open_all("/about", students, _about_ready)
            close(contexts)
            result["frame_floor"] = {**cost,
                                     "server_cpu_per_student_s": round(cost["server_cpu_s"]
                                                                       / students, 3),
                                     "open_to_drawn": _quantiles(seconds)}  # fmt: skip
            browser.close()
    finally:
        if proxy:
            proxy.stop()
        server.stop()
    result["shared_computations"] = server.log.read_text().count("dpsum shared memo: computed")
    result["machine_after"] = machine()
    emit(result)


if __name__ == "__main__":
    main()
