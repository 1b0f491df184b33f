"""Dashboard responsiveness: toggle rerun server time and cold start (issue 5 targets).

- Toggle rerun: on the Protocol explorer with the frozen class, flip the `target` toggle and time
  the script rerun (AppTest, same process, so it is server time without the browser). Cached =
  the normal app; baseline = the same rerun after clearing st.cache_data / st.cache_resource
  (what every rerun would cost without caching). Target: cached median < 150 ms.
- Cold start: a fresh Python process runs the default page once (imports + first run, every cache
  empty). Reported with and without the interpreter + Streamlit import. Target: < 3 s. Also the
  time from `streamlit run` to a healthy server.
Last line: one JSON object.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

COLD = """
import time, os, sys
t0 = time.perf_counter()
from streamlit.testing.v1 import AppTest
from streamlit.logger import set_log_level
set_log_level("error")
t1 = time.perf_counter()
at = AppTest.from_file("app.py", default_timeout=120).run()
t2 = time.perf_counter()
assert not at.exception, [e.value for e in at.exception]
print(f"{t1 - t0} {t2 - t1}")
"""


def toggle_times(repeats: int, clear: bool) -> list[float]:
    import streamlit as st
    from streamlit.logger import set_log_level
    set_log_level("error")  # AppTest runs without a server; its warnings are noise here
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    times = []
    value = True
    for _ in range(repeats):
        value = not value
        at.toggle(key="cmp_target").set_value(value)
        if clear:
            st.cache_data.clear()
            st.cache_resource.clear()
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        assert not at.exception, [e.value for e in at.exception]
    return times


def cold_start(runs: int) -> tuple[float, float]:
    first_runs, totals = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", COLD], cwd=ROOT, capture_output=True, text=True, check=True)
        import_s, run_s = map(float, out.stdout.split()[-2:])
        first_runs.append(run_s)
        totals.append(import_s + run_s)
    return min(first_runs), min(totals)


def server_ready() -> float:
    """Seconds from `streamlit run app.py` to a healthy server (/_stcore/health answers 200)."""
    import os
    import signal
    import socket
    import urllib.request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                                "--server.port", str(port), "--server.address", "127.0.0.1"],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        while time.perf_counter() - start < 60:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as response:
                    if response.status == 200:
                        return time.perf_counter() - start
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not become healthy within 60 s")
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


def main() -> None:
    warm = toggle_times(repeats=12, clear=False)[2:]  # first flips fill the caches for both states
    uncached = toggle_times(repeats=5, clear=True)
    cached_ms = statistics.median(warm) * 1000
    uncached_ms = statistics.median(uncached) * 1000
    cold_run_s, cold_total_s = cold_start(runs=2)
    ready_s = server_ready()
    print(f"toggle rerun, cached:   median {cached_ms:7.1f} ms over {len(warm)} reruns (target < 150 ms)")
    print(f"toggle rerun, no cache: median {uncached_ms:7.1f} ms over {len(uncached)} reruns (baseline)")
    print(f"speed-up from caching:  {uncached_ms / cached_ms:5.1f}x")
    print(f"cold start, first run of the default page in a fresh process: {cold_run_s:5.2f} s (target < 3 s)")
    print(f"cold start incl. Python + Streamlit import: {cold_total_s:5.2f} s")
    print(f"`streamlit run` until the server is healthy: {ready_s:5.2f} s (the page run above follows)")
    print(json.dumps({
        "toggle_rerun_cached_ms": round(cached_ms, 1), "toggle_rerun_uncached_ms": round(uncached_ms, 1),
        "cache_speedup": round(uncached_ms / cached_ms, 2), "cold_start_first_run_s": round(cold_run_s, 3),
        "cold_start_total_s": round(cold_total_s, 3), "server_ready_s": round(ready_s, 3),
        "toggle_target_ms": 150, "cold_target_s": 3,
        "toggle_ok": cached_ms < 150, "cold_ok": cold_run_s < 3}))


if __name__ == "__main__":
    main()
