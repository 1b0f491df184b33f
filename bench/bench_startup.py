"""Start-up of every entry point, before -> after in one run, each against its floor (issue 24).

Rows (whole process, median of ``--runs``, peak RSS from wait4):
- ``python -m audit_core --help``                      floor: ``python -c pass``
- ``python -m audit_core audit status --audit 1`` (an audit of the sdoh pool; floor: ``python -c pass``);
  after issue 24's second round it reads the event log alone; ``status --verify`` (after only) is the
  replay it replaced, so ``verify`` vs ``status`` in the same tree shows what the log-only read saves
- ``python -m audit_core audit next --audit 1`` (the annotator's pending case, shown again: no write)
- ``python -m audit_core replay data/recorded_run.csv --json``   floor: ``python -c "import pandas, numpy"``
- ``python -m audit_core audit label`` of one case (label then undo, so every run labels the same case)
- the same on an audit with ``LONG_LOG`` (60) labels already: ``label_long`` (each call replays the log)
Dashboard (fresh ``streamlit run app.py`` servers, Chromium through Playwright):
- cold start: spawn -> first explorer page interactive (metrics drawn, no script running), in
  ``--app-rounds`` rounds, each round the floor then both trees in alternating order; floor: the
  same for bench/toggle_floor_app.py (a bare page with one metric); also each first page divided by
  its round's floor (median), which a load that drifts between rounds shifts alike
- first load of every other page on a warm server: one more fresh server per tree, once its first
  explorer page is drawn and the server is idle (under 5% of a CPU in four half-seconds in a row:
  the background warm-up, the explorer's and pages/_warm.py's, is done; the wait is printed), each page by its URL path in a new
  browser page, so a new session; ``--page-rounds`` rounds, trees alternating, medians; floor: the
  bare one-metric page's second load (a new session) on its own warm server, in the same rounds.
  With each load, the CPU seconds the server process and the browser (Chromium, Playwright) used
  during it: their own work for the page, which a busy machine slows but does not add to (wall
  times on a shared machine do).
"Interactive" everywhere: the page has drawn into its main area and the app's run state (stApp's
``data-test-script-state`` / ``data-test-connection-state``, as tests/app/test_browser.py waits on
it) says no script is running, stably for 250 ms (not counted).

"before" is a copy of ``--base`` (default 6490ef8, the commit the issue measured from) made with
``git archive``; "after" is this checkout. The runs of the two trees are interleaved, so load on
a shared machine falls on both alike: read the before/after ratios first. The load average is
printed with the figures. Last line: one JSON object.

    python bench/bench_startup.py [--runs 5] [--base REV] [--no-app] [--no-cli] [--app-rounds 3] [--page-rounds 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
PY = sys.executable
# What a user's shell has: compiled modules are cached (__pycache__), so the timed calls read .pyc
# files as every call after the first does (some environments set PYTHONDONTWRITEBYTECODE).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

ROWS = ("help", "status", "replay", "next", "label", "label_long")
LONG_LOG = 60   # labels already in the audit of the label_long row
PAGES = ("minimal-supports", "testbed-items", "measure-logs", "replay-run", "simulation", "live-audit",
         "audit-planner", "compare-runs", "audit-report")


def run_once(argv: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one process; fails loudly if it fails."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    err = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} in {cwd} failed ({process.returncode}):\n{err[-2000:]}")
    return elapsed, usage.ru_maxrss / 1024.0


def checkout(rev: str, folder: Path) -> Path:
    folder.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def cli_rows(trees: dict[str, Path], work: Path, runs: int) -> list[dict]:
    env = ENV
    setups = {}
    for name, tree in trees.items():
        db = work / f"{name}.sqlite"
        subprocess.run([PY, "-m", "audit_core", "audit", "new", "--pool", "sdoh", "--db", str(db)], cwd=tree,
                       env=env, check=True, capture_output=True)
        claimed = subprocess.run([PY, "-m", "audit_core", "audit", "next", "--audit", "1", "--db", str(db), "--json"],
                                 cwd=tree, env=env, check=True, capture_output=True, text=True)
        case = json.loads(claimed.stdout)["cases"][0]["case_id"]
        # a second audit with LONG_LOG labels: what a label costs deep into an audit (the log is replayed);
        # five correct in six, near the sdoh pool's q, so the audit is still running after them
        fill = (f"from audit_core import api\n"
                f"db = {str(db)!r}; a = api.audit_new('sdoh', seed=1, db=db).audit['audit_id']\n"
                f"for i in range({LONG_LOG}):\n"
                f"    c = api.audit_next(a, annotator='bench', db=db).cases[0].case_id\n"
                f"    api.audit_label(a, c, 0 if i % 6 == 0 else 1, annotator='bench', db=db)\n"
                f"print(api.audit_next(a, annotator='bench', db=db).cases[0].case_id)")
        long_case = subprocess.run([PY, "-c", fill], cwd=tree, env=env, check=True, capture_output=True,
                                   text=True).stdout.split()[-1]
        setups[name] = (db, case, long_case)
        # compile every module once, so the timed runs read .pyc files as a user's second call does
        run_once([PY, "-m", "audit_core", "--help"], tree, env)
        run_once([PY, "-m", "audit_core", "replay", "data/recorded_run.csv", "--json"], tree, env)

    def rows_for(name: str) -> dict[str, list[str]]:
        db, case, long_case = setups[name]
        return {
            "help": [PY, "-m", "audit_core", "--help"],
            "status": [PY, "-m", "audit_core", "audit", "status", "--audit", "1", "--db", str(db)],
            "replay": [PY, "-m", "audit_core", "replay", "data/recorded_run.csv", "--json"],
            "next": [PY, "-m", "audit_core", "audit", "next", "--audit", "1", "--db", str(db)],
            "label": [PY, "-c", "import sys; from audit_core.cli import main; "
                      f"db = {str(db)!r}; "
                      f"assert main(['audit', 'label', '--audit', '1', {case!r}, '1', '--db', db]) == 0; "
                      "assert main(['audit', 'undo', '--audit', '1', '--db', db]) == 0"],
            "label_long": [PY, "-c", "import sys; from audit_core.cli import main; "
                           f"db = {str(db)!r}; "
                           f"assert main(['audit', 'label', '--audit', '2', {long_case!r}, '1', '--db', db]) == 0; "
                           "assert main(['audit', 'undo', '--audit', '2', '--db', db]) == 0"],
        }

    floors = {"python -c pass": [PY, "-c", "pass"], "import pandas, numpy": [PY, "-c", "import pandas, numpy"]}
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(runs):
        for label, argv in floors.items():
            times.setdefault(("floor", label), []).append(run_once(argv, ROOT, env))
        for row in ROWS:
            for name, tree in trees.items():   # interleaved: before, after, before, after ...
                times.setdefault((name, row), []).append(run_once(rows_for(name)[row], tree, env))
        verify = rows_for("after")["status"] + ["--verify"]
        times.setdefault(("after", "verify"), []).append(run_once(verify, trees["after"], env))
    med = {k: (statistics.median(t for t, _ in v), statistics.median(m for _, m in v)) for k, v in times.items()}
    table = []
    floor_of = {"help": "python -c pass", "status": "python -c pass", "replay": "import pandas, numpy",
                "next": "import pandas, numpy", "label": "import pandas, numpy", "label_long": "import pandas, numpy"}
    goals = {"help": 0.3, "status": 0.5, "replay": 1.0, "next": None, "label": None, "label_long": None}
    for row in ROWS:
        before, after, floor = med[("before", row)], med[("after", row)], med[("floor", floor_of[row])]
        table.append({"row": row, "before_s": round(before[0], 3), "after_s": round(after[0], 3),
                      "speedup": round(before[0] / after[0], 2), "before_mb": round(before[1]),
                      "after_mb": round(after[1]), "floor": floor_of[row], "floor_s": round(floor[0], 3),
                      "after_over_floor_s": round(after[0] - floor[0], 3), "goal_s": goals[row]})
    verify = med[("after", "verify")]
    table.append({"row": "verify", "before_s": None, "after_s": round(verify[0], 3),
                  "speedup": round(verify[0] / med[("after", "status")][0], 2), "before_mb": None,
                  "after_mb": round(verify[1]), "floor": "status (after)", "floor_s": med[("after", "status")][0],
                  "after_over_floor_s": None, "goal_s": None})
    return table


# -- dashboard -------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


# The app's own run state, as the browser tests read it (tests/app/browser_idle.py): the old check
# here, on the running-man widget that Streamlit shows only after 500 ms of a run, read some first
# loads too early.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.app.browser_idle import IDLE_MS, STABLY_IDLE  # noqa: E402


def _settled(page, timeout_ms: int = 180_000) -> float:
    """Wait until the page has drawn something in its main area and the app's script run is over,
    stably for IDLE_MS; returns the perf_counter time at which it became idle (the wait's IDLE_MS
    is not counted in a load)."""
    page.wait_for_selector('[data-testid="stMain"] [data-testid="stElementContainer"]', timeout=timeout_ms)
    page.wait_for_function(STABLY_IDLE, arg=IDLE_MS, polling=20, timeout=timeout_ms)
    return time.perf_counter() - IDLE_MS / 1000.0


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")   # utime + stime


def _browser_cpu_seconds(server_pid: int) -> float:
    """CPU seconds of this process's descendants but the server: Chromium (every renderer still
    open) and Playwright's driver, i.e. the browser's side of a page load."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0.0, list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        if pid == server_pid:
            continue
        try:
            total += _cpu_seconds(pid)
        except (OSError, IndexError, ValueError):
            continue
        todo.extend(children.get(pid, []))
    return total


def _wait_idle(pid: int, timeout: float = 180.0, quiet: int = 4) -> float:
    """Seconds until the server's process used under 5% of a CPU in each of ``quiet`` half-seconds
    in a row: a warm server has finished what it does after its first page (the explorer warms the
    bundled class's other supports and loads the solver, then pages/_warm.py the other pages'
    first views, in a background thread). One quiet half-second is not enough on a busy machine,
    where a runnable thread can wait that long for a CPU."""
    start = time.perf_counter()
    last, calm = _cpu_seconds(pid), 0
    while time.perf_counter() - start < timeout and calm < quiet:
        time.sleep(0.5)
        now = _cpu_seconds(pid)
        calm = calm + 1 if now - last < 0.025 else 0
        last = now
    return round(time.perf_counter() - start, 2)


def app_run(tree: Path, script: str, browser, pages: tuple[str, ...], home: Path, cache: Path | None = None) -> dict:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**ENV, "AUDIT_HOME": str(home), "AUDIT_CACHE_DIR": str(cache or home / "cache")}
    start = time.perf_counter()
    server = subprocess.Popen([PY, "-m", "streamlit", "run", script, "--server.headless", "true",
                               "--server.port", str(port), "--server.address", "127.0.0.1",
                               "--browser.gatherUsageStats", "false"], cwd=tree, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        while not _healthy(url):
            if server.poll() is not None or time.perf_counter() - start > 180:
                raise SystemExit(f"streamlit in {tree} did not start")
            time.sleep(0.05)
        healthy = time.perf_counter() - start
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url, timeout=180_000)
        if script == "app.py":
            page.wait_for_selector('[data-testid="stMetric"]', timeout=180_000)
        first = _settled(page) - start
        page.close()
        loads, cpu = {}, {}
        idle = _wait_idle(server.pid) if pages else None
        for path in pages:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            cpu0, browser0, t0 = _cpu_seconds(server.pid), _browser_cpu_seconds(server.pid), time.perf_counter()
            page.goto(f"{url}/{path}" if path else url, timeout=180_000)
            loads[path or "(second load)"] = round(_settled(page) - t0, 2)
            cpu[path or "(second load)"] = (round(_cpu_seconds(server.pid) - cpu0, 2),
                                            round(_browser_cpu_seconds(server.pid) - browser0, 2))
            page.close()
        return {"healthy_s": round(healthy, 2), "first_page_s": round(first, 2), "page_first_load_s": loads,
                "page_cpu_s": cpu, "idle_after_s": idle}
    finally:
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(server.pid, signal.SIGKILL)


def app_rows(trees: dict[str, Path], work: Path, rounds: int, page_rounds: int) -> dict:
    """``rounds`` rounds of: the floor page, then each tree's fresh server to its first explorer page
    (the trees' order alternating), first-page medians; then ``page_rounds`` rounds of: the floor
    page's second load on its warm server, then each tree's pages' first loads on a warm server
    (trees alternating), medians per page. Each first page is also divided by the floor of its own
    round, which the load shifts alike. ``rounds`` 0: pages only. Each tree's servers share one
    results cache (``AUDIT_CACHE_DIR``), filled by the tree's first, untimed server."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
    runs: dict[str, list[dict]] = {"floor": [], **{name: [] for name in trees}}
    page_runs: dict[str, list[dict]] = {"floor": [], **{name: [] for name in trees}}
    first_ever: dict[str, float] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=args, headless=True)
        try:
            app_run(ROOT, "bench/toggle_floor_app.py", browser, (), work / "home_warm")   # warm the OS caches
            for name, tree in trees.items():   # once untimed: compiles .pyc files, warms the OS file cache,
                # and is the tree's first server ever: it fills the tree's results cache (issue 30), which
                # every later server of the tree reads, as a deployed server's restarts do
                first_ever[name] = app_run(tree, "app.py", browser, (), work / f"home_{name}_warm",
                                           work / f"cache_{name}")["first_page_s"]
            for i in range(rounds):
                runs["floor"].append(app_run(ROOT, "bench/toggle_floor_app.py", browser, (), work / f"home_floor{i}"))
                for name in (list(trees) if i % 2 == 0 else list(trees)[::-1]):
                    runs[name].append({"load": os.getloadavg()[0],
                                       **app_run(trees[name], "app.py", browser, (), work / f"home_{name}{i}",
                                                 work / f"cache_{name}")})
            for i in range(page_rounds):
                # the floor of a page's first load: the bare page's second load (a new session) on its warm server
                page_runs["floor"].append(app_run(ROOT, "bench/toggle_floor_app.py", browser, ("",),
                                                  work / f"home_pfloor{i}"))
                for name in (list(trees) if i % 2 == 0 else list(trees)[::-1]):
                    page_runs[name].append({"load": os.getloadavg()[0],
                                            **app_run(trees[name], "app.py", browser, PAGES, work / f"home_{name}_p{i}",
                                                      work / f"cache_{name}")})
        finally:
            browser.close()
    out: dict = {}
    floors = [r["first_page_s"] for r in runs["floor"]]
    page_floors = [r["page_first_load_s"]["(second load)"] for r in page_runs["floor"]]
    page_floor_cpu = [r["page_cpu_s"]["(second load)"][0] for r in page_runs["floor"]]
    page_floor_browser = [r["page_cpu_s"]["(second load)"][1] for r in page_runs["floor"]]
    out["floor"] = {"first_page_s": round(statistics.median(floors), 2) if floors else None, "runs": floors,
                    "page_first_load_s": round(statistics.median(page_floors), 2) if page_floors else None,
                    "page_runs": page_floors,
                    "page_cpu_s": round(statistics.median(page_floor_cpu), 2) if page_floor_cpu else None,
                    "page_browser_cpu_s": round(statistics.median(page_floor_browser), 2) if page_floor_browser else None}
    for name in trees:
        firsts = [r["first_page_s"] for r in runs[name]]
        pages = {path: [r["page_first_load_s"][path] for r in page_runs[name]] for path in PAGES}
        cpus = {path: [r["page_cpu_s"][path][0] for r in page_runs[name]] for path in PAGES}
        browser_cpus = {path: [r["page_cpu_s"][path][1] for r in page_runs[name]] for path in PAGES}
        out[name] = {"first_page_s": round(statistics.median(firsts), 2) if firsts else None, "runs": firsts,
                     "healthy_s": round(statistics.median(r["healthy_s"] for r in runs[name]), 2) if firsts else None,
                     "over_floor": round(statistics.median(f / fl for f, fl in zip(firsts, floors, strict=True)), 2)
                     if firsts else None,
                     "page_first_load_s": {path: round(statistics.median(v), 2) if v else None
                                           for path, v in pages.items()},
                     "page_cpu_s": {path: round(statistics.median(v), 2) if v else None for path, v in cpus.items()},
                     "page_browser_cpu_s": {path: round(statistics.median(v), 2) if v else None
                                            for path, v in browser_cpus.items()},
                     "page_runs": pages, "loads": [r["load"] for r in runs[name]],
                     "page_loads": [r["load"] for r in page_runs[name]],
                     "idle_after_s": [r["idle_after_s"] for r in page_runs[name]],
                     "first_ever_s": first_ever.get(name)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", default="6490ef8", help="the 'before' revision (default 6490ef8)")
    parser.add_argument("--no-app", action="store_true", help="command line only")
    parser.add_argument("--app-rounds", type=int, default=3, help="rounds of fresh servers per tree (default 3)")
    parser.add_argument("--no-cli", action="store_true", help="dashboard only")
    parser.add_argument("--page-rounds", type=int, default=1,
                        help="rounds of warm servers per tree for the pages' first loads (default 1)")
    args = parser.parse_args()
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        work = Path(tmp)
        trees = {"before": checkout(args.base, work / "before"), "after": ROOT}
        started = time.perf_counter()
        table = [] if args.no_cli else cli_rows(trees, work, args.runs)
        print(f"load average at start {load_start[0]:.2f} / {load_start[1]:.2f} / {load_start[2]:.2f} "
              f"(1/5/15 min, {os.cpu_count()} CPUs); median of {args.runs}")
        print(f"{'row':<8}{'before s':>10}{'after s':>9}{'ratio':>7}{'MB before':>11}{'MB after':>10}  "
              f"{'floor':<22}{'floor s':>8}{'goal s':>8}")
        for r in table:
            if r["row"] == "verify":   # same tree: the replay that status --verify still runs
                print(f"status --verify (after) {r['after_s']:.3f} s, {r['after_mb']} MB: "
                      f"{r['speedup']:.1f}x the log-only status")
                continue
            print(f"{r['row']:<11}{r['before_s']:>7.3f}{r['after_s']:>9.3f}{r['speedup']:>6.1f}x{r['before_mb']:>11}"
                  f"{r['after_mb']:>10}  {r['floor']:<22}{r['floor_s']:>8.3f}{(r['goal_s'] or float('nan')):>8.2f}")
        app = None
        if not args.no_app:
            app = app_rows(trees, work, args.app_rounds, args.page_rounds)
            b, a = app["before"], app["after"]
            if args.app_rounds:
                print(f"\nDashboard: fresh server -> first explorer page interactive, median of {args.app_rounds} "
                      f"interleaved rounds (load averages {b['loads']} / {a['loads']}); "
                      f"floor = bare one-metric page {app['floor']['first_page_s']:.2f} s {app['floor']['runs']}")
                print(f"{'':<22}{'before s':>10}{'after s':>9}{'ratio':>7}")
                for key, label in (("healthy_s", "server healthy"), ("first_page_s", "first explorer page")):
                    print(f"{label:<22}{b[key]:>10.2f}{a[key]:>9.2f}{b[key] / a[key]:>6.1f}x")
                print(f"{'first page / floor':<22}{b['over_floor']:>10.2f}{a['over_floor']:>9.2f}"
                      f"{b['over_floor'] / a['over_floor']:>6.1f}x   (runs: before {b['runs']}, after {a['runs']})")
                print(f"{'first server ever':<22}{b['first_ever_s']:>10.2f}{a['first_ever_s']:>9.2f}   (each tree's untimed "
                      "first server: .pyc files not yet written, results cache empty: what a first use pays)")
            if args.page_rounds:
                print(f"\npages' first loads on a warm server (it has served one explorer page and is idle; a new "
                      f"browser session per page), median of {args.page_rounds} (loads {b['page_loads']} / "
                      f"{a['page_loads']}; idle {b['idle_after_s']} / {a['idle_after_s']} s after the first page)")
                print(f"  {'':<20}{'wall s':^33}{'server CPU s':^24}{'browser CPU s':^24}")
                print(f"  {'page':<20}{'before':>8}{'after':>8}{'ratio':>8}{'floor':>8}"
                      + f"{'before':>8}{'after':>8}{'floor':>8}" * 2)
                fl = app["floor"]
                for path in PAGES:
                    bb, aa = b["page_first_load_s"][path], a["page_first_load_s"][path]
                    print(f"  {path:<20}{bb:>8.2f}{aa:>8.2f}{bb / aa:>7.1f}x{fl['page_first_load_s']:>8.2f}"
                          f"{b['page_cpu_s'][path]:>8.2f}{a['page_cpu_s'][path]:>8.2f}{fl['page_cpu_s']:>8.2f}"
                          f"{b['page_browser_cpu_s'][path]:>8.2f}{a['page_browser_cpu_s'][path]:>8.2f}"
                          f"{fl['page_browser_cpu_s']:>8.2f}")
                floor = fl["page_first_load_s"]
                print(f"  floor: the bare one-metric page's second load on its warm server {floor:.2f} s "
                      f"{app['floor']['page_runs']}; CPU s: the server process's and the browser's (Chromium, Playwright) CPU "
                      "time during the load, their work for the page, which a busy machine slows but does not add to")
        print(json.dumps({"load_start": load_start, "load_end": os.getloadavg(), "runs": args.runs,
                          "cli": table, "app": app, "seconds": round(time.perf_counter() - started, 1)}))


if __name__ == "__main__":
    main()
