"""Load test of one dashboard server (issue 13): N concurrent browser sessions against 127.0.0.1.

Starts ``streamlit run app.py`` on a free port of 127.0.0.1 (its own process group, ended at the
end), opens ``--sessions`` (default 10) headless Chromium pages at once, each in its own browser
context (its own Streamlit session), and in each: loads the Replay page, uploads its own CSV
(60 + i cases) and waits for "Cases replayed" to show exactly its own count. Reports latency
percentiles of the page load and of the upload-to-result step, server RSS before and after, and
session isolation (every session saw its own count). Everything is bounded: --timeout seconds per
step, the whole run by --deadline. Not a timed test: run it by hand.

    python bench/load_server.py --sessions 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def rss_mb(pid: int) -> float:
    """Resident set of the server and its children (MB)."""
    total = 0
    pids = [pid] + [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                                    text=True).stdout.split()]
    for p in pids:
        try:
            for line in open(f"/proc/{p}/status"):
                if line.startswith("VmRSS"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            continue
    return total / 1024.0


def csv_text(n: int) -> str:
    return "case,grp,correct\n" + "".join(f"c{i},{'a' if i % 2 else 'b'},{int(i % 5 != 0)}\n" for i in range(n))


async def metric(page, label: str) -> str | None:
    box = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    if await box.count() == 0:
        return None
    return (await box.locator('[data-testid="stMetricValue"]').inner_text()).strip()


async def session(browser, url: str, index: int, folder: Path, timeout: float) -> dict:
    context = await browser.new_context()
    page = await context.new_page()
    page.set_default_timeout(timeout * 1000)  # ten first runs on a shared 2-core machine are slow
    out = {"session": index, "expected": 60 + index}
    try:
        started = time.perf_counter()
        await page.goto(f"{url}/replay-run", timeout=timeout * 1000)
        await page.wait_for_selector('h1:has-text("Replay")', timeout=timeout * 1000)
        out["load_s"] = time.perf_counter() - started
        await page.locator('[data-testid="stSelectbox"]').filter(has_text="Data").first.click()
        await page.get_by_role("option", name="Upload a labelled CSV").click()
        path = folder / f"session{index}.csv"
        path.write_text(csv_text(out["expected"]))
        await page.wait_for_selector('input[type="file"]', state="attached", timeout=timeout * 1000)
        started = time.perf_counter()
        await page.set_input_files('input[type="file"]', str(path))
        deadline = time.monotonic() + timeout
        seen = None
        while time.monotonic() < deadline:
            seen = await metric(page, "Cases replayed")
            if seen == str(out["expected"]):
                break
            await asyncio.sleep(0.2)
        out["upload_s"] = time.perf_counter() - started
        out["seen"] = seen
    except Exception as exc:  # a session that fails is reported, the others go on
        out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    finally:
        await context.close()
    return out


async def run_sessions(url: str, n: int, timeout: float) -> list[dict]:
    from playwright.async_api import async_playwright
    with tempfile.TemporaryDirectory() as tmp:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                return await asyncio.gather(*(session(browser, url, i, Path(tmp), timeout) for i in range(n)))
            finally:
                await browser.close()


def percentiles(values: list[float]) -> dict:
    if not values:
        return {}
    q = statistics.quantiles(values, n=20, method="inclusive") if len(values) > 1 else values * 19
    return {"p50": round(statistics.median(values), 2), "p90": round(q[17], 2), "p95": round(q[18], 2),
            "max": round(max(values), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per step of a session")
    parser.add_argument("--deadline", type=float, default=600.0, help="seconds for the whole run")
    args = parser.parse_args()
    if not 1 <= args.sessions <= 50:
        sys.exit("--sessions: between 1 and 50")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tempfile.TemporaryFile()
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                               "--server.port", str(port), "--server.address", "127.0.0.1",
                               "--browser.gatherUsageStats", "false"],
                              cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        ready = time.monotonic() + 90
        while not healthy(url):
            if server.poll() is not None or time.monotonic() > ready:
                log.seek(0)
                sys.exit("server did not start:\n" + log.read().decode(errors="replace")[-2000:])
            time.sleep(0.3)
        before = rss_mb(server.pid)
        started = time.perf_counter()
        results = asyncio.run(asyncio.wait_for(run_sessions(url, args.sessions, args.timeout), args.deadline))
        wall = time.perf_counter() - started
        after = rss_mb(server.pid)
    finally:
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(server.pid, signal.SIGKILL)
        log.close()
    isolated = [r for r in results if r.get("seen") == str(r["expected"])]
    summary = {"sessions": args.sessions, "wall_s": round(wall, 1),
               "page_load_s": percentiles([r["load_s"] for r in results if "load_s" in r]),
               "upload_to_result_s": percentiles([r["upload_s"] for r in isolated]),
               "server_rss_mb": {"before": round(before, 1), "after": round(after, 1)},
               "isolation": f"{len(isolated)} of {args.sessions} sessions saw exactly their own upload",
               "errors": [r for r in results if "error" in r or r.get("seen") != str(r["expected"])]}
    for key, value in summary.items():
        print(f"{key}: {value}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
