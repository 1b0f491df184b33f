"""A fresh server's first page, the explorer on the bundled class (issue 24): once a server has
drawn it (its charts and suggestions are kept on disk at first use, audit_core/results_cache.py,
issue 30), a new server's run loads no chart library and no solver, and the background warm-up
loads the solver afterwards, for the Minimal supports page (fresh interpreters: what a new server
process has loaded)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys, threading
from streamlit.testing.v1 import AppTest
from pages import _cache, _warm
if "--no-warm" in sys.argv:   # neither the explorer's warm-up nor the pages' (pages/_warm.py): the first run alone
    _cache._WARMED.add("bundled:frozen|tau_full")
    _warm._started = True
HEAVY = ("altair", "ortools", "scipy.optimize")
at = AppTest.from_file("app.py", default_timeout=300).run()
assert not at.exception, [e.value for e in at.exception]
metrics = [m.value for m in at.metric][:4]
for thread in threading.enumerate():
    if thread.name == "warm-supports":
        thread.join(timeout=300)
print(json.dumps({"metrics": metrics, "heavy": [m for m in HEAVY if m in sys.modules],
                  "verdict": at.success[0].value if at.success else ""}))
"""


def run_probe(probe: str, *flags: str, tmp_path, timeout: float = 600, cache=None):
    """Run ``probe`` in a fresh interpreter at the repository root (its own workspace under
    ``tmp_path``; its results cache ``cache``, default its own under ``tmp_path``) and return the
    JSON value it prints last."""
    env = {**os.environ, "AUDIT_HOME": str(tmp_path), "PYTHONPATH": str(ROOT),
           "AUDIT_CACHE_DIR": str(cache or tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", probe, *flags], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _run(*flags: str, tmp_path, cache) -> dict:
    return run_probe(PROBE, *flags, tmp_path=tmp_path, cache=cache)


def test_the_first_explorer_run_loads_no_chart_library_and_no_solver(tmp_path):
    cache = tmp_path / "cache"
    computed = _run("--no-warm", tmp_path=tmp_path / "first", cache=cache)   # the first server ever: computes
    assert set(computed["heavy"]) >= {"altair", "ortools"}
    first = _run("--no-warm", tmp_path=tmp_path / "next", cache=cache)       # any server after it
    assert first["heavy"] == []
    assert first["metrics"] == computed["metrics"] == ["36", "7", "0", "yes"]
    assert "2 cells of its 36 already identify it" in first["verdict"]     # the suggestion is there
    assert first["verdict"] == computed["verdict"]


def test_the_warm_up_loads_the_solver_for_the_next_pages(tmp_path):
    cache = tmp_path / "cache"
    _run(tmp_path=tmp_path / "first", cache=cache)   # the first server ever keeps every support's results
    warmed = _run(tmp_path=tmp_path / "next", cache=cache)
    # Every support of the bundled class draws the class's kept charts with its own rows, so
    # warming all of them needs no Altair; the solver is loaded for Minimal supports.
    assert set(warmed["heavy"]) == {"ortools", "scipy.optimize"}
