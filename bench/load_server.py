"""Load test of one dashboard server (issue 18, item 5): N websocket sessions against 127.0.0.1.

No browsers: each session is a websocket client of Streamlit's own protocol (``/_stcore/stream``,
protobuf ``BackMsg`` out, ``ForwardMsg`` in, from the installed streamlit package), so the client
is not the bottleneck. The script starts ``streamlit run`` on free ports of 127.0.0.1 (each server
in its own process group, ended at the end) and measures:

* floor: a bare Streamlit page (``bench/toggle_floor_app.py``): 20 simultaneous first pages and a
  toggle with 20 sessions connected: what Streamlit itself costs on this machine;
* the workbench: time to the first complete Protocol explorer page (script finished) for 10 and for
  20 sessions opening it together (p50 / p95), after one warm-up session (the cold start, imports
  and bundled data, is reported on its own);
* a toggle's rerun (the explorer's ``target`` component, a fragment run) while 20 sessions stay
  connected: p50 / p95 over ``--toggles`` clicks;
* uploads: ``--upload-sessions`` sessions each upload their own CSV run of ``--upload-mb`` MB to
  Replay (over the same HTTP upload route the browser uses) and wait for "Cases replayed" to equal
  their own row count; the server's resident memory (process and children) after all of them;
* isolation: every session then points its uploader at another session's uploaded file id; the
  server must not hand it that file (its page keeps its own count, never the other's).

``--toggle-load`` measures only the toggles under load (issue 27 item 10), in one run: the floor
(the bare page), the same bare page drawing as many metrics as make it send the explorer's number
of messages per toggle (``floor_same_messages``: Streamlit's cost per message alone), and the
explorer, each on its own server with ``--idle`` idle sessions, measured once each server has been
idle for 5 s (the workbench's start-up warm-up done), taking turns round by round: one toggler,
``--togglers`` sessions clicking at the same moment, and the same beside one hostile visitor
(rapid full reruns of its page on the same server); p50 / p95 of each, the messages per toggle,
and the explorer's p95 over the floor's under the same load (goal: at most 2x).

Bounded: at most 40 sessions, ``--timeout`` seconds per step, the whole run by ``--deadline``.
Goals (issue 18): first pages p95 <= 2 s with 20 sessions, toggle p95 <= 300 ms, memory <= 1 GB.
Prints the figures and the load average (the machine may be shared). Run by hand:

    python bench/load_server.py            # everything
    python bench/load_server.py --skip-upload --sessions 10,20
    python bench/load_server.py --baseline /path/to/main/checkout   # before -> after in one run
    python bench/load_server.py --toggle-load                       # toggles under load, with the floor
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[1]
MAX_SESSIONS = 40
XSRF_COOKIE = "_streamlit_xsrf"


# ------------------------------------------------------------------------------------------ server

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``streamlit run script`` on 127.0.0.1:<free port>, in its own process group."""

    def __init__(self, script: str, timeout: float, cwd: Path = ROOT, env: dict | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(self.port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
            env={**os.environ, **(env or {})})
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.proc.stderr.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        self.xsrf = self._cookie(response)
                        return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError("server did not become healthy")

    @staticmethod
    def _cookie(response) -> str:
        for header in response.headers.get_all("Set-Cookie") or []:
            if header.startswith(XSRF_COOKIE + "="):
                return header.split(";", 1)[0].split("=", 1)[1]
        return ""

    def rss_mb(self) -> float:
        """Resident memory of the server and its children (MB)."""
        pids = [self.proc.pid] + [int(p) for p in subprocess.run(
            ["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout.split()]
        total = 0
        for pid in pids:
            try:
                with open(f"/proc/{pid}/status") as status:
                    total += next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))
            except (FileNotFoundError, StopIteration):
                continue
        return total / 1024

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def wait_until_idle(self, limit: float, quiet: float = 0.02, seconds: int = 5) -> float:
        """Wait until the server uses under ``quiet`` s of CPU in each of ``seconds`` seconds in a
        row (its start-up warm-up of every page has finished: a warm-up step waits for one quiet
        second, pages/_runs.py), at most ``limit`` seconds; returns the seconds waited."""
        start, calm = time.monotonic(), 0
        while time.monotonic() - start < limit and calm < seconds:
            before = self.cpu_seconds()
            await asyncio.sleep(1.0)   # the event loop goes on: the sessions' websockets stay open
            calm = calm + 1 if self.cpu_seconds() - before < quiet else 0
        return time.monotonic() - start

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)


# ----------------------------------------------------------------------------------------- session

@dataclass
class Run:
    seconds: float
    status: int
    elements: list = field(default_factory=list)  # (fragment_id, element proto)
    exceptions: list = field(default_factory=list)
    messages: int = 0  # every ForwardMsg of the run, script_finished included

    def widgets(self, kind: str):
        return [(frag, el) for frag, el in self.elements if el.WhichOneof("type") == kind]

    def metric(self, label: str) -> str | None:
        found = [el.metric.body for _, el in self.elements
                 if el.WhichOneof("type") == "metric" and el.metric.label == label]
        return found[-1] if found else None


class Session:
    """One Streamlit session over a websocket, speaking the browser's protocol."""

    def __init__(self, server: Server, timeout: float):
        self.server, self.timeout = server, timeout
        self.states: dict[str, object] = {}  # widget id -> (field, value): sent with every rerun
        self.session_id = ""
        self.page_hash = ""
        self.page_name = ""
        self.query_string = ""  # the URL's query as the page last set it (page_info_changed)

    async def connect(self) -> None:
        self.ws = await websockets.connect(
            f"ws://127.0.0.1:{self.server.port}/_stcore/stream",
            subprotocols=["streamlit", self.server.xsrf or "x"],
            additional_headers={"Origin": self.server.url, "Cookie": f"{XSRF_COOKIE}={self.server.xsrf}"},
            max_size=None, open_timeout=self.timeout)

    async def close(self) -> None:
        await self.ws.close()

    async def _send(self, msg: BackMsg) -> None:
        await self.ws.send(msg.SerializeToString())

    async def rerun(self, page_name: str = "", query: str | None = None, fragment_id: str = "") -> Run:
        """Send a rerun with the current widget states and, as a browser does, the query string
        the page last set (``query``: another one); wait for its script_finished."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query_string if query is None else query
        state.page_name = page_name
        state.page_script_hash = ""  # the page is chosen by its URL name, as on a fresh load
        if fragment_id:
            state.fragment_id = fragment_id
        for wid, (kind, value) in self.states.items():
            w = state.widget_states.widgets.add()
            w.id = wid
            if kind == "file_uploader_state_value":
                w.file_uploader_state_value.CopyFrom(value)
            else:
                setattr(w, kind, value)
        start = time.perf_counter()
        await self._send(msg)
        return await self._until_finished(start)

    async def _until_finished(self, start: float) -> Run:
        run = Run(0.0, -1)
        end = start + self.timeout
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), timeout=max(0.1, end - time.perf_counter()))
            fwd = ForwardMsg()
            fwd.ParseFromString(raw)
            run.messages += 1
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fwd.new_session.initialize.session_id or self.session_id
                self.page_hash = fwd.new_session.page_script_hash or self.page_hash
            elif kind == "page_info_changed":
                self.query_string = fwd.page_info_changed.query_string
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                element = fwd.delta.new_element
                run.elements.append((fwd.delta.fragment_id, element))
                if element.WhichOneof("type") == "exception":
                    run.exceptions.append(element.exception.message)
            elif kind == "script_finished":
                status = fwd.script_finished
                if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                run.seconds, run.status = time.perf_counter() - start, status
                return run
            elif kind == "file_urls_response":
                self._file_urls = fwd.file_urls_response

    async def upload(self, widget_id: str, name: str, data: bytes) -> object:
        """Upload ``data`` as the browser does (file URL request, HTTP PUT); return the file info."""
        msg = BackMsg()
        request_id = uuid.uuid4().hex
        msg.file_urls_request.request_id = request_id
        msg.file_urls_request.file_names.append(name)
        msg.file_urls_request.session_id = self.session_id
        await self._send(msg)
        self._file_urls = None
        while self._file_urls is None:
            raw = await asyncio.wait_for(self.ws.recv(), timeout=self.timeout)
            fwd = ForwardMsg()
            fwd.ParseFromString(raw)
            if fwd.WhichOneof("type") == "file_urls_response":
                self._file_urls = fwd.file_urls_response
        urls = self._file_urls.file_urls[0]
        upload_url = urls.upload_url if urls.upload_url.startswith("http") else self.server.url + urls.upload_url
        async with httpx.AsyncClient(timeout=self.timeout) as client:
            response = await client.put(upload_url, files={"file": (name, data, "text/csv")},
                                        headers={"X-Xsrftoken": self.server.xsrf},
                                        cookies={XSRF_COOKIE: self.server.xsrf})
            response.raise_for_status()
        from streamlit.proto.Common_pb2 import FileUploaderState
        state = FileUploaderState()
        info = state.uploaded_file_info.add()
        info.file_id, info.name, info.size = urls.file_id, name, len(data)
        info.file_urls.CopyFrom(urls)
        self.states[widget_id] = ("file_uploader_state_value", state)
        return state


# -------------------------------------------------------------------------------------- measuring

def pct(values: list[float], p: float) -> float:
    xs = sorted(values)
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * len(xs) + 0.5)) - 1))]


def summary(values: list[float]) -> str:
    if not values:
        return "no values"
    return (f"p50 {statistics.median(values):.2f} s, p95 {pct(values, 95):.2f} s, max {max(values):.2f} s "
            f"(n={len(values)})")


async def first_pages(server: Server, n: int, timeout: float, page: str = "") -> tuple[list[float], list[Session]]:
    """``n`` sessions connect and ask for their first page at once; seconds to script finished."""
    sessions = [Session(server, timeout) for _ in range(n)]
    await asyncio.gather(*(s.connect() for s in sessions))
    runs = await asyncio.gather(*(s.rerun(page) for s in sessions))
    bad = [r for r in runs if r.status != ForwardMsg.FINISHED_SUCCESSFULLY or r.exceptions]
    if bad:
        print(f"  ! {len(bad)} first pages did not finish cleanly: {bad[0].exceptions[:1]}")
    return [r.seconds for r in runs], sessions


async def toggles(session: Session, first: Run, label: str, count: int) -> list[float]:
    """Click the toggle ``label`` ``count`` times (alternating); seconds per rerun."""
    found = [(frag, el) for frag, el in first.widgets("checkbox") if el.checkbox.label == label]
    if not found:
        raise RuntimeError(f"no toggle {label!r} on the page")
    frag, element = found[0]
    value = element.checkbox.default
    times = []
    for _ in range(count):
        value = not value
        session.states[element.checkbox.id] = ("bool_value", value)
        run = await session.rerun(session.page_name, fragment_id=frag)
        times.append(run.seconds)
    return times


def csv_run(rows: int, seed: int) -> bytes:
    rng = random.Random(seed)
    lines = ["case,grp,correct"] + [f"c{i},g{i % 12},{int(rng.random() < 0.8)}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


async def upload_session(server: Server, index: int, rows: int, timeout: float) -> tuple[Session, int, object, float]:
    session = Session(server, timeout)
    await session.connect()
    session.page_name = "replay-run"
    first = await session.rerun("replay-run")
    select = next(el for _, el in first.widgets("selectbox") if el.selectbox.label == "Data")
    upload_label = next(o for o in select.selectbox.options if o.startswith("Upload"))
    session.states[select.selectbox.id] = ("string_value", upload_label)
    second = await session.rerun("replay-run")
    uploader = next(el for _, el in second.widgets("file_uploader"))
    n = rows + index  # every session its own count
    start = time.perf_counter()
    info = await session.upload(uploader.file_uploader.id, f"run_{index}.csv", csv_run(n, index))
    run = await session.rerun("replay-run")
    seconds = time.perf_counter() - start
    shown = run.metric("Cases replayed")
    if shown is None or int(shown.replace(",", "")) != n:
        raise RuntimeError(f"session {index}: Cases replayed {shown!r}, expected {n}; {run.exceptions[:1]}")
    session.uploader_id = uploader.file_uploader.id
    return session, n, info, seconds


# ------------------------------------------------------------------ toggles under load (issue 27)

async def toggle_once(session: Session, toggle: tuple[str, str], value: bool) -> Run:
    """Set the toggle (fragment id, widget id) to ``value`` and rerun its fragment."""
    frag, wid = toggle
    session.states[wid] = ("bool_value", value)
    run = await session.rerun(session.page_name, fragment_id=frag)
    if run.status != ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY or run.exceptions:
        raise RuntimeError(f"a toggle's rerun (status {run.status}) did not finish cleanly: {run.exceptions[:1]}")
    return run


def target_toggle(first: Run, label: str = "target") -> tuple[tuple[str, str], bool]:
    found = [(frag, el) for frag, el in first.widgets("checkbox") if el.checkbox.label == label]
    if not found:
        raise RuntimeError(f"no toggle {label!r} on the page")
    frag, element = found[0]
    return (frag, element.checkbox.id), element.checkbox.default


class Hostile:
    """One hostile visitor: its own session asks for a full rerun of its page again and again, as
    fast as the server answers (a held-down reload key, a script in a loop), for as long as it runs."""

    def __init__(self, server: Server, timeout: float):
        self.session = Session(server, timeout)
        self.runs = 0
        self.stopping = False

    async def start(self) -> None:
        await self.session.connect()
        await self.session.rerun()
        self.task = asyncio.ensure_future(self._loop())

    async def _loop(self) -> None:
        while not self.stopping:
            await self.session.rerun()
            self.runs += 1

    async def stop(self) -> None:
        # A flag, not only a cancel: Python 3.11's wait_for can swallow a cancellation that meets
        # an arriving message, and the loop would go on for ever.
        self.stopping = True
        while not self.task.done():
            self.task.cancel()
            await asyncio.wait([self.task], timeout=1)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            self.task.result()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.session.close(), timeout=10)


class ToggleRoom:
    """One server with ``idle`` connected sessions (first page loaded) and ``togglers`` sessions
    ready to click their page's ``target`` toggle."""

    def __init__(self, name: str, server: Server, timeout: float):
        self.name, self.server, self.timeout = name, server, timeout

    async def open(self, idle: int, togglers: int) -> None:
        _, self.idle = await first_pages(self.server, idle, self.timeout)
        self.togglers = [Session(self.server, self.timeout) for _ in range(togglers)]
        await asyncio.gather(*(s.connect() for s in self.togglers))
        firsts = [await s.rerun() for s in self.togglers]   # one by one: a warm page each
        self.toggles = [target_toggle(first) for first in firsts]
        self.values = [value for _, value in self.toggles]
        for session, (toggle, value) in zip(self.togglers, self.toggles, strict=True):   # both supports once
            await toggle_once(session, toggle, not value)
            self.messages = (await toggle_once(session, toggle, value)).messages   # per toggle

    async def click(self, how_many: int) -> list[float]:
        """The first ``how_many`` togglers click at once (each flips its toggle); seconds each."""
        async def one(i: int) -> float:
            self.values[i] = not self.values[i]
            return (await toggle_once(self.togglers[i], self.toggles[i][0], self.values[i])).seconds
        return list(await asyncio.gather(*(one(i) for i in range(how_many))))

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.idle + self.togglers), return_exceptions=True)


async def measure_toggle_load(args, results: dict, figures: dict) -> None:
    """Issue 27 item 10, in one run: the floor (the bare page, ``bench/toggle_floor_app.py``) and
    the explorer, each on its own server with ``--idle`` idle sessions connected, measured in
    alternating rounds so the machine's load hits both alike:

    * one toggler beside the idle sessions;
    * ``--togglers`` sessions clicking their toggle at the same moment;
    * the same beside one hostile visitor (rapid full reruns of its page, on the same server).

    The floor of each case is the bare page's toggle under the same load (the same number of
    sessions connected and clicking, the same hostile visitor)."""
    rooms = [ToggleRoom("floor", Server("bench/toggle_floor_app.py", args.timeout), args.timeout)]
    if args.baseline:   # another checkout's explorer, as "before", in the same rounds
        rooms.append(ToggleRoom("before", Server("app.py", args.timeout, cwd=Path(args.baseline)), args.timeout))
    rooms.append(ToggleRoom("explorer", Server("app.py", args.timeout), args.timeout))
    try:
        for room in rooms:
            await room.open(args.idle, args.togglers)
            print(f"{room.name}: {args.idle} idle and {args.togglers} togglers connected; "
                  f"{room.messages} messages per toggle", flush=True)
        # The bare page again, with as many metrics as make it send the explorer's number of
        # messages per toggle: what Streamlit's cost per message alone makes of a toggle.
        extra = rooms[-1].messages - rooms[0].messages
        same = ToggleRoom("floor_same_messages", Server("bench/toggle_floor_app.py", args.timeout,
                                                         env={"FLOOR_METRICS": str(1 + extra)}), args.timeout)
        rooms.insert(1, same)
        await same.open(args.idle, args.togglers)
        print(f"{same.name}: {same.messages} messages per toggle", flush=True)
        # The steady state: each workbench server warms every page once after its first page
        # (pages/_warm.py), in the gaps between runs; measured once that has finished.
        for room in rooms:
            waited = await room.server.wait_until_idle(args.deadline / 4)
            print(f"{room.name}: idle after {waited:.0f} s", flush=True)
        await asyncio.sleep(2)
        cases = {"one": (1, False), "many": (args.togglers, False), "hostile": (args.togglers, True)}
        times = {(room.name, case): [] for room in rooms for case in cases}
        for round_ in range(args.toggle_rounds):
            print(f"round {round_ + 1} of {args.toggle_rounds}; load average {os.getloadavg()[0]:.1f}", flush=True)
            for case, (how_many, hostile) in cases.items():
                for room in rooms:
                    print(f"  {room.name}: {case}", flush=True)
                    visitor = Hostile(room.server, args.timeout) if hostile else None
                    if visitor:
                        await visitor.start()
                        await asyncio.sleep(0.3)
                    try:
                        for _ in range(args.toggles if how_many == 1 else 1):
                            times[(room.name, case)] += await room.click(how_many)
                    finally:
                        if visitor:
                            await visitor.stop()
    finally:
        for room in rooms:
            with contextlib.suppress(Exception):
                await room.close()
            room.server.stop()
    labels = {"one": "1 toggler", "many": f"{args.togglers} toggling at once",
              "hostile": f"{args.togglers} toggling at once beside a hostile visitor"}
    for case, label in labels.items():
        for room in rooms:
            values = times[(room.name, case)]
            results[f"{room.name}: {label} (+{args.idle} idle)"] = summary(values)
            figures[f"{room.name}_{case}_p50"] = round(statistics.median(values), 3)
            figures[f"{room.name}_{case}_p95"] = round(pct(values, 95), 3)
    for room in rooms:
        figures[f"{room.name}_messages"] = room.messages
    for case in ("many", "hostile"):
        for room in rooms[1:]:
            ratio = figures[f"{room.name}_{case}_p95"] / figures[f"floor_{case}_p95"]
            figures[f"{room.name}_ratio_{case}"] = round(ratio, 2)
            results[f"{room.name} / floor p95, {labels[case]}"] = f"{ratio:.2f}x (goal <= 2x)"
        for room in rooms[2:]:   # the explorer (and before) against the bare page of the same messages
            ratio = figures[f"{room.name}_{case}_p95"] / figures[f"floor_same_messages_{case}_p95"]
            figures[f"{room.name}_ratio_same_messages_{case}"] = round(ratio, 2)
            results[f"{room.name} / floor of the same messages p95, {labels[case]}"] = f"{ratio:.2f}x"


async def measure_workbench(name: str, root: Path, args, counts: list[int], results: dict) -> None:
    """Every workbench figure on one server started from ``root`` (this checkout, or a baseline)."""
    server = Server("app.py", args.timeout, cwd=root)
    try:
        rss_start = server.rss_mb()
        cold = Session(server, args.timeout)
        await cold.connect()
        run = await cold.rerun()
        results[f"{name}: cold first page (1 session)"] = f"{run.seconds:.2f} s"
        await cold.close()
        sessions: list[Session] = []
        for n in counts:
            cpu0 = server.cpu_seconds()
            times, sessions = await first_pages(server, n, args.timeout)
            cpu = server.cpu_seconds() - cpu0
            results[f"{name}: {n} first explorer pages at once"] = summary(times) + f"; server CPU {cpu / n:.2f} s/page"
            if n != counts[-1]:
                await asyncio.gather(*(s.close() for s in sessions))
        probe = Session(server, args.timeout)
        await probe.connect()
        first = await probe.rerun()
        results[f"{name}: toggle 'target', {len(sessions)} idle"] = summary(
            await toggles(probe, first, "target", args.toggles))
        await asyncio.gather(*(s.close() for s in sessions + [probe]))
        results[f"{name}: server RSS after first pages"] = f"{server.rss_mb():.0f} MB (start {rss_start:.0f} MB)"
        if args.skip_upload:
            return
        rows = int(args.upload_mb * 2**20 / 16)  # ~16 bytes per row of csv_run
        gate = asyncio.Semaphore(args.upload_concurrency)  # bounded: a shared machine's memory

        async def one(i: int):
            async with gate:
                return await upload_session(server, i, rows, args.timeout)

        done = await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(args.upload_sessions))),
                                      timeout=args.deadline)
        results[f"{name}: {args.upload_sessions} uploads of {args.upload_mb:g} MB to Replay"] = summary(
            [d[3] for d in done])
        results[f"{name}: server RSS after {args.upload_sessions} uploads"] = f"{server.rss_mb():.0f} MB"
        leaks = 0
        for i, (session, n, _, _) in enumerate(done):  # point the uploader at the next session's file
            _, other_n, other_info, _ = done[(i + 1) % len(done)]
            session.states[session.uploader_id] = ("file_uploader_state_value", other_info)
            run = await session.rerun("replay-run")
            shown = run.metric("Cases replayed")
            if shown is not None and int(shown.replace(",", "")) == other_n and other_n != n:
                leaks += 1
        results[f"{name}: sessions shown another session's upload"] = f"{leaks} of {len(done)}"
        await asyncio.gather(*(d[0].close() for d in done))
    finally:
        server.stop()


async def main(args: argparse.Namespace) -> int:
    counts = sorted(int(c) for c in args.sessions.split(","))
    if max(counts + [args.upload_sessions]) > MAX_SESSIONS:
        raise SystemExit(f"at most {MAX_SESSIONS} sessions")
    print(f"load average at start: {os.getloadavg()}  (cores: {os.cpu_count()})", flush=True)
    results: dict[str, str] = {}
    if args.toggle_load:
        if args.idle + args.togglers + 1 > MAX_SESSIONS:
            raise SystemExit(f"at most {MAX_SESSIONS} sessions")
        figures: dict[str, float] = {}
        await measure_toggle_load(args, results, figures)
        print(f"load average at end: {os.getloadavg()}")
        width = max(map(len, results))
        for key, value in results.items():
            print(f"{key:<{width}}  {value}")
        print(json.dumps({"load_average": os.getloadavg(), **figures}))
        return 0

    # The floor: a bare Streamlit page.
    floor = Server("bench/toggle_floor_app.py", args.timeout)
    try:
        await first_pages(floor, 1, args.timeout)
        times, sessions = await first_pages(floor, counts[-1], args.timeout)
        results[f"floor: {counts[-1]} first pages at once"] = summary(times)
        probe = Session(floor, args.timeout)
        await probe.connect()
        first = await probe.rerun()
        results[f"floor: toggle, {counts[-1]} idle"] = summary(await toggles(probe, first, "target", args.toggles))
        await asyncio.gather(*(s.close() for s in sessions + [probe]))
    finally:
        floor.stop()
    targets = ([("before", Path(args.baseline))] if args.baseline else []) + [("after" if args.baseline else "workbench", ROOT)]
    for name, root in targets:
        await measure_workbench(name, root, args, counts, results)
        print(f"{name} done; load average {os.getloadavg()}", flush=True)
    print(f"load average at end: {os.getloadavg()}")
    width = max(map(len, results))
    for key, value in results.items():
        print(f"{key:<{width}}  {value}")
    print(json.dumps({"load_average": os.getloadavg(), **results}))
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", default="10,20", help="simultaneous first pages, comma-separated (default 10,20)")
    parser.add_argument("--toggles", type=int, default=15, help="toggle clicks measured (default 15)")
    parser.add_argument("--upload-sessions", type=int, default=20)
    parser.add_argument("--upload-mb", type=float, default=10.0)
    parser.add_argument("--upload-concurrency", type=int, default=4, help="uploads in flight at once (default 4)")
    parser.add_argument("--skip-upload", action="store_true")
    parser.add_argument("--toggle-load", action="store_true",
                        help="only the toggles under load (issue 27 item 10): the floor and the explorer, "
                             "one toggler, --togglers at once, and the same beside a hostile visitor")
    parser.add_argument("--idle", type=int, default=20, help="idle sessions beside the togglers (default 20)")
    parser.add_argument("--togglers", type=int, default=10, help="sessions toggling at once (default 10)")
    parser.add_argument("--toggle-rounds", type=int, default=6,
                        help="rounds of the toggle cases, floor and explorer taking turns (default 6)")
    parser.add_argument("--baseline", metavar="DIR", help="another checkout (e.g. the main branch) measured first "
                                                            "in the same run, as 'before'")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per step (default 180)")
    parser.add_argument("--deadline", type=float, default=900.0, help="seconds for the uploads (default 900)")
    sys.exit(asyncio.run(main(parser.parse_args())))
