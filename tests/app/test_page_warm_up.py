"""The warm-up after a server's first page (pages/_warm.py, issue 24): once it is done, a new
session's first load of Replay, Measure, Compare, Testbed and Minimal supports computes nothing of
its bundled view (the engine's use case is not called: the shared cache answers), no page's first
run imports a library or use case, and the numbers are those the page computes without the warm-up
(fresh interpreters: what a new server process has loaded)."""

from __future__ import annotations

from tests.app.test_first_page_work import run_probe

PROBE = """
import json, sys, threading
from streamlit.testing.v1 import AppTest
from audit_core import analyses
from pages import _warm
if "--no-warm" in sys.argv:
    _warm._started = True   # as if started: no page warm-up in this process
USE_CASES = ("replay_run", "score_labels", "measure_log", "compare_runs", "generate_testbed", "run_source",
             "response_log_source", "check_supports", "policy_source")
HEAVY = ("altair", "scipy.stats", "scipy.optimize", "ortools")
at = AppTest.from_file("app.py", default_timeout=300).run()
assert not at.exception, [e.value for e in at.exception]
for name in ("warm-supports", _warm.THREAD):
    for thread in threading.enumerate():
        if thread.name == name:
            thread.join(timeout=300)
heavy_before = [m for m in HEAVY if m in sys.modules]
calls = {}

def counting(name):
    real = getattr(analyses, name)
    def call(*args, **kwargs):
        calls[name] = calls.get(name, 0) + 1
        return real(*args, **kwargs)
    return call

for name in USE_CASES:
    setattr(analyses, name, counting(name))
pages = {}
FILES = {"replay": "replay-run", "measure": "measure-logs", "compare": "compare-runs", "testbed": "testbed-items",
         "supports": "minimal-supports", "plan": "audit-planner", "simulate": "simulation"}
for page in ("replay", "measure", "compare", "testbed", "supports", "plan", "simulate"):
    loaded = set(sys.modules)
    at = AppTest.from_file("app.py", default_timeout=300)
    at.switch_page(f"pages/{FILES[page]}.py")
    at.run()
    assert not at.exception, (page, [e.value for e in at.exception])
    shown = [*at.success, *at.warning, *at.info]
    pages[page] = {"metrics": [m.value for m in at.metric], "verdict": [s.value for s in shown][:1],
                   "calls": dict(calls), "imported": sorted(m for m in set(sys.modules) - loaded
                                                            if m.startswith(("scipy", "altair", "audit_core")))}
    calls.clear()
import gc
print(json.dumps({"pages": pages, "heavy_before": heavy_before, "warmed": sorted(_warm.done),
                  "frozen": gc.get_freeze_count()}))
"""


def _run(*flags: str, tmp_path) -> dict:
    return run_probe(PROBE, *flags, tmp_path=tmp_path, timeout=900)


def test_after_the_warm_up_a_pages_first_run_computes_nothing_bundled_and_shows_the_same_numbers(tmp_path):
    warm = _run(tmp_path=tmp_path / "warm")
    cold = _run("--no-warm", tmp_path=tmp_path / "cold")
    assert warm["warmed"] == ["compare", "imports", "measure", "replay", "supports", "testbed"]
    # the warmed heap is out of the collector's full passes (pages/_warm.py freeze_heap); not without it
    assert warm["frozen"] > 100_000 and cold["frozen"] == 0
    # the page's libraries were loaded by the warm-up, before any of these pages ran
    assert set(warm["heavy_before"]) == {"altair", "scipy.stats", "scipy.optimize", "ortools"}
    for page in ("replay", "measure", "compare", "testbed", "supports"):
        assert warm["pages"][page]["calls"] == {}, page            # the shared cache answered
        assert cold["pages"][page]["calls"], page                   # without the warm-up the page computes
        assert warm["pages"][page]["metrics"], page
        assert warm["pages"][page]["metrics"] == cold["pages"][page]["metrics"], page
        assert warm["pages"][page]["verdict"] == cold["pages"][page]["verdict"], page
    # no page's first run imports a library or a use case after the warm-up; without it they do
    # (the Audit planner's and Simulate's first runs compute nothing, they only imported)
    assert {page: v["imported"] for page, v in warm["pages"].items() if v["imported"]} == {}
    assert "scipy.stats" not in cold["heavy_before"]
    assert any(m.startswith("audit_core.analyses.plan") for m in cold["pages"]["plan"]["imported"])


def test_importing_the_warm_up_loads_no_use_case(tmp_path):
    # app.py imports pages._warm on a fresh server's first run, before the first page is drawn:
    # it must add nothing but itself to what the shared page modules load (an import of the
    # testbed's choices at module level loaded the testbed generator and the estimands there), and
    # the pages' first views, plain values declared once for the page and the warm-up.
    code = ("import sys, json; import pages._page_config, pages._cache, pages._uploads, pages._shared, pages._state; "
            "before = set(sys.modules); import pages._warm; "
            "print(json.dumps(sorted(set(sys.modules) - before)))")
    assert run_probe(code, tmp_path=tmp_path, timeout=120) == ["pages._first_views", "pages._warm"]
