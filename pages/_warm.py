"""The server's warm-up after its first page: what every visitor's first load of each page would
otherwise pay, done once per server process in a background thread (issue 24).

A page's first load on a warm server did two things that are the same for every visitor:
importing its use case (the Audit planner pulls in ``scipy.stats``, Replay the chart builders)
and computing the page's bundled default view (Replay replays the bundled recorded run and draws
its charts; Measure bootstraps the bundled response log; Compare replays two bundled runs; Testbed
generates the default items; Minimal supports solves the bundled class). Both go into what every
session shares: ``sys.modules`` and the ``pages/_cache.py`` caches, called with the arguments the
page passes on its first run, each page's first view declared once in ``pages/_first_views.py``
(tests/app/test_page_warm_up.py checks that a page's first run after the warm-up computes none of
them). Numbers are the engine's, computed by the same cached calls, kept in memory only.

Uploads are never warmed. The warm-up waits for the explorer's own warm-up (the supports of the
bundled class and the solver, pages/_cache.py) so a visitor toggling on the first page goes first,
and each step waits until no visitor's page has run for a second (pages/_runs.py). Its last step
freezes the heap it leaves (:func:`freeze_heap`), so the garbage collector's full passes no longer
walk the libraries and the warmed views while visitors wait.
"""

from __future__ import annotations

import gc
import threading
import time

from streamlit.runtime.scriptrunner import add_script_run_ctx

from audit_core import analyses
from pages import _cache, _runs, _uploads
from pages._first_views import COMPARE, MEASURE, SUPPORTS, TESTBED

# app.py imports this module on a fresh server's first run: it names the use cases' choices
# (analyses.BUNDLED, analyses.ALL_DIRECTIONS ...) only inside the steps, so importing it loads
# no use case (the testbed generator, the estimands) before the first page is drawn.

# Each page's use case (a lazy export of audit_core.analyses: reading it imports its module).
USE_CASES = ("check_supports", "generate_testbed", "measure_log", "replay_run", "simulate_study", "live",
             "plan_study", "compare_runs")
THREAD = "warm-pages"
_started = False
_lock = threading.Lock()
# What the last warm-up did, for the tests and the bench: step -> seconds.
done: dict[str, float] = {}


def import_use_cases() -> None:
    """Import every page's use-case module, and Streamlit's emoji catalogue (Streamlit loads it
    the first time a label or caption is not plain ASCII, e.g. "Starting…" on Simulate)."""
    for name in USE_CASES:
        getattr(analyses, name)
    import streamlit.emojis  # noqa: F401


def warm_replay() -> None:
    """Replay's first view: the bundled default run with its own roles, style and the style's
    parameters, as the page's widgets start (pages/replay-run.py)."""
    source = _uploads.bundled_source("run", analyses.DEFAULT_RUN)
    table = source.value
    defaults = table.defaults
    if table.is_log:  # the bundled default is a CSV; a log's first view needs the page's choices
        return
    columns = list(table.columns)
    score = defaults.score if defaults.score in columns else None
    if score is None:
        return
    groups = tuple(g for g in defaults.subgroups if g in columns)
    order = defaults.order if defaults.order in columns else False
    labels = _cache.score_labels(source, score)
    if labels is not None and labels.needs_mapping:  # the page asks for a mapping first
        return
    d = analyses.AuditParams.for_style(table.style)   # the page's widgets start at the style's defaults
    params = analyses.AuditParams.from_thresholds(table.style, q=d.q, alpha=d.alpha, m=d.m, q_mod=d.q_mod,
                                                  q_aud=d.q_aud, eta=d.eta)
    _cache.replay_run(source, score, groups, order, analyses.DEFAULT_MODEL_PROCESS,
                      analyses.DEFAULT_AUDITOR_PROCESS, (), False, None, params)   # as the page: no row left out, untuned


def warm_measure() -> None:
    """Measure's first view: the bundled response log at the page's first interval settings."""
    from audit_core.analyses.measure import INTERVALS
    source = _uploads.bundled_source("response_log")
    _cache.measure_log(source, MEASURE.bootstrap, MEASURE.seed, MEASURE.confidence, next(iter(INTERVALS)))


def warm_compare() -> None:
    """Compare's first view: the bundled set of runs, A and B its first two, the engine's margin."""
    source = _uploads.bundled_source("run", COMPARE.run_set)
    params = analyses.audit_params(analyses.resolve_style(None, source.value.style))  # as the Compare page
    _cache.compare_runs((source,), None, None, COMPARE.confidence, float(analyses.COMPARE_MARGIN),
                        COMPARE.budget or None, COMPARE.pair, params)


def warm_supports_page() -> None:
    """Minimal supports' first view: the bundled class, its first estimand, costs per value of the
    readout axis at the page's first ratio, nothing required or excluded, its first time limit."""
    policy = _uploads.bundled_source("policy_class")
    pc = policy.value
    axes = list(pc.axes)
    values = list(pc.axes["readout" if "readout" in axes else axes[-1]])
    if len(values) != 2:   # more values: the page starts from a cost table
        return
    estimand = next(iter(analyses.available_estimands(pc)))
    cost = {values[0]: 1.0, values[1]: float(SUPPORTS.ratio)}
    _cache.check_supports(policy, estimand, tuple(sorted(cost.items())), (), (), SUPPORTS.time_limit)


def warm_testbed() -> None:
    """Testbed's first view: its first clusters, seed, depth and distractors, every direction, every
    cell (no support). Every argument is passed as the page passes it: Streamlit's cache key is made of
    the arguments given, so a default left out is a different key."""
    _cache.generate_testbed(TESTBED.n_clusters, TESTBED.seed, tuple(analyses.ALL_DIRECTIONS), TESTBED.depth,
                            TESTBED.distractors, None)


STEPS = (("imports", import_use_cases), ("supports", warm_supports_page), ("replay", warm_replay),
         ("measure", warm_measure), ("compare", warm_compare), ("testbed", warm_testbed))


def warm_pages() -> dict[str, float]:
    """Every step above, in order; a step that fails is skipped (the page computes it itself)."""
    for thread in threading.enumerate():   # the explorer's toggles first (pages/_cache.py warm_supports)
        if thread.name == "warm-supports" and thread is not threading.current_thread():
            thread.join()
    for name, step in STEPS:
        _runs.wait_until_idle()  # visitors' pages first: each step starts on a quiet server (pages/_runs.py)
        start = time.perf_counter()
        try:
            step()
        except Exception:  # noqa: BLE001  (a warm-up never fails a page: the page computes its view)
            continue
        done[name] = round(time.perf_counter() - start, 3)
    _runs.wait_until_idle()
    freeze_heap()
    return done


def freeze_heap() -> None:
    """Move every object alive now (the libraries, the bundled views just warmed) out of the
    garbage collector's reach (``gc.freeze``). Its full passes then walk only what came after: on
    the warmed explorer server a full pass held the interpreter lock for 79-155 ms, and every
    visitor's run waited with it; after the freeze, 4-5 ms (bench/load_server.py --toggle-load,
    issue 27 item 10). The price: a reference cycle among these objects that later becomes garbage
    is never collected; they are the libraries and the bundled first views, which live as long as
    the server."""
    gc.collect()
    gc.freeze()


def start() -> None:
    """Start the warm-up once per server process, after a page's run (app.py)."""
    global _started
    with _lock:
        if _started:
            return
        _started = True
    thread = threading.Thread(target=warm_pages, name=THREAD, daemon=True)
    add_script_run_ctx(thread)  # the caches expect a script context; nothing is sent from it
    thread.start()

