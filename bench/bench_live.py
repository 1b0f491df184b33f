"""Live audit latency on a 10,000-case pool (issue 10 targets: proposal < 50 ms, label write < 10 ms).

- Proposal: ``LiveAudit.next()`` (write transaction, catch-up read of the log, the adaptive
  sampler's select over every remaining case, the claim's INSERT, COMMIT with fsync). Baseline,
  same run and same pool: the sampler's bare in-memory ``select()``, i.e. one step of the
  simulation (``run_audit``); the ratio is the price of a durable, shared proposal. Also shown: a
  stateless proposal that reopens the audit and replays the whole log first (what the CLI does).
- Page path: one label click on the Live audit page, server side (``analyses.live``: the label,
  then the view the rerun draws, then the next claim with its view), with audits kept open
  across calls. Baseline, same run and pool: the same calls reopening the audit each time
  (``OPEN_AUDITS_KEPT = 0``), which rebuilds the pool and replays the whole log per call.
- Label write: ``LiveAudit.label()`` (transaction, INSERT, DualTest and model update, COMMIT
  with fsync). Baseline: a bare one-row INSERT + COMMIT in a WAL database with the same
  ``synchronous=FULL`` in the same directory (the durability floor of SQLite on this disk).

- Stores (issue 35): the same proposal and label write on a PostgreSQL workspace (``--pg-url``,
  else a private server started from Debian's binaries on a Unix socket, as the tests do), and 8
  labelling processes (tests/live/worker.py: claim, label, 20 ms pause) on one audit of each store:
  labels per second. Baseline: the SQLite workspace in the same run; printed as PG/SQLite ratios.

Usage: ``python bench/bench_live.py [--steps 60] [--pg-url URL | --no-postgres]``. Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from audit_core.analyses import live as live_use_cases  # noqa: E402
from audit_core.analyses import open_audits  # noqa: E402
from audit_core.auditing import make_sampler  # noqa: E402
from audit_core.live import LiveAudit, connect  # noqa: E402
from audit_core.sequential import AuditParams  # noqa: E402

N_CASES = 10_000


def pool_csv(path: Path, n: int = N_CASES, seed: int = 0) -> Path:
    """A synthetic pool: 16 features, 3 domains x 4 levels, accuracy 0.95 (no failure to find)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.standard_normal((n, 16)).round(4), columns=[f"f{j + 1:02d}" for j in range(16)])
    frame.insert(0, "case_id", [f"C{i:05d}" for i in range(n)])
    frame.insert(1, "domain", rng.choice(["Chemistry", "Biology", "Physics"], n))
    frame.insert(2, "level", rng.choice(["easy", "hard", "graduate", "post-graduate"], n))
    frame.insert(3, "correct", (rng.random(n) < 0.95).astype(int))
    frame.to_csv(path, index=False)
    return path


def ms(values) -> dict:
    values = [1000 * v for v in values]
    return {"median_ms": round(statistics.median(values), 3),
            "p95_ms": round(float(np.percentile(values, 95)), 3), "n": len(values)}


def live_latencies(audit: LiveAudit, steps: int) -> tuple[list[float], list[float]]:
    proposals, labels = [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        (case,) = audit.next("bench")
        t1 = time.perf_counter()
        audit.label(case.case_id, audit.truth(case.case_id), "bench")
        t2 = time.perf_counter()
        proposals.append(t1 - t0)
        labels.append(t2 - t1)
    return proposals, labels


def bare_selects(audit: LiveAudit, steps: int) -> list[float]:
    """The simulation's step on the same pool and seed: select, then the model update."""
    sampler = make_sampler(audit.strategy, audit.pool, audit.params, audit.seed, audit.config, audit.process)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        proposal = sampler.select()
        times.append(time.perf_counter() - t0)
        sampler.observe(proposal.index, float(audit.pool.labels[proposal.index]))
    return times


def bare_inserts(directory: Path, steps: int) -> list[float]:
    conn = sqlite3.connect(directory / "floor.sqlite", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, case_id TEXT, score REAL, ts TEXT)")
    times = []
    for i in range(steps):
        t0 = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (case_id, score, ts) VALUES (?, ?, ?)", (f"C{i}", 1.0, "now"))
        conn.execute("COMMIT")
        times.append(time.perf_counter() - t0)
    return times


def stateless_proposals(db: Path, audit_id: int, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        audit = LiveAudit(connect(db), audit_id)
        audit.next("bench")
        times.append(time.perf_counter() - t0)
    return times


def page_clicks(db: Path, audit_id: int, steps: int, kept: int) -> list[float]:
    """Seconds per label click as the page makes it (label, view, claim + view)."""
    open_audits.OPEN_AUDITS_KEPT = kept
    open_audits.kept.clear()
    times = []
    view = live_use_cases.live_audit_view(audit_id, "page", claim=True, db=db)
    for _ in range(steps):
        (case,) = view.current
        with open_audits.open_audit(audit_id, db) as audit:
            truth = audit.truth(case.case_id)
        t0 = time.perf_counter()
        live_use_cases.record_label(audit_id, case.case_id, truth, "page", db=db, show_next=False)
        live_use_cases.live_audit_view(audit_id, "page", claim=False, db=db)
        view = live_use_cases.live_audit_view(audit_id, "page", claim=True, db=db)
        times.append(time.perf_counter() - t0)
    return times


def eight_writers(db, pool: str, labels: int = 240) -> float:
    """Labels per second of 8 worker processes on one audit of ``db`` until ``labels`` are in."""
    import subprocess

    worker = ROOT / "tests" / "live" / "worker.py"
    audit = LiveAudit.create(connect(db), pool, "adaptive", "SR-LR-UI", seed=3,
                             params=AuditParams.gpqa(m=1000, budget=labels), truth="correct")
    procs = [subprocess.Popen([sys.executable, str(worker), str(db), str(audit.audit_id), f"w{i}", "1"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for i in range(8)]
    for proc in procs:
        assert proc.stdout.readline().strip() == "ready"
    t0 = time.perf_counter()
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        proc.communicate(timeout=900)
    elapsed = time.perf_counter() - t0
    assert LiveAudit(connect(db), audit.audit_id).status().n == labels
    return labels / elapsed


def store_comparison(directory: Path, csv: Path, pg_url: str, steps: int) -> dict:
    """Proposal and label write on each store, and 8 writers' throughput; PG/SQLite ratios."""
    params = AuditParams.gpqa(n_init=2, m=1000, budget=1000)
    out: dict = {}
    for name, db in (("sqlite", directory / "compare.sqlite"), ("postgresql", pg_url)):
        audit = LiveAudit.create(connect(db), str(csv), "adaptive", "SR-LR-UI", seed=0, params=params,
                                 truth="correct")
        proposals, labels = live_latencies(audit, steps)
        out[name] = {"proposal": ms(proposals), "label_write": ms(labels),
                     "eight_writers_labels_per_s": round(eight_writers(db, "gpqa:none"), 1)}
    for key in ("proposal", "label_write"):
        for stat in ("median_ms", "p95_ms"):
            out[f"{key}_{stat}_pg_over_sqlite"] = round(out["postgresql"][key][stat] / out["sqlite"][key][stat], 2)
    out["eight_writers_pg_over_sqlite"] = round(out["postgresql"]["eight_writers_labels_per_s"]
                                                / out["sqlite"]["eight_writers_labels_per_s"], 2)
    out["pg_label_target_met"] = out["postgresql"]["label_write"]["p95_ms"] < 10
    return out


def private_postgres():
    """A throw-away server as the tests start it (tests/live/conftest.py), and its database URL."""
    sys.path.insert(0, str(ROOT / "tests" / "live"))
    from conftest import _start_cluster, fresh_database

    server = _start_cluster()
    return server, fresh_database(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--pg-url", help="an empty PostgreSQL database to measure (default: a private server)")
    parser.add_argument("--no-postgres", action="store_true", help="measure SQLite alone")
    args = parser.parse_args()
    server, pg_url = None, args.pg_url
    if not args.no_postgres and pg_url is None:
        server, pg_url = private_postgres()
    try:
        run(args, pg_url)
    finally:
        if server is not None:
            server.stop()


def run(args, pg_url: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        csv = pool_csv(directory / "pool.csv")
        db = directory / "bench.sqlite"
        params = AuditParams.gpqa(n_init=2, m=1000, budget=1000)
        audit = LiveAudit.create(connect(db), str(csv), "adaptive", "SR-LR-UI", seed=0, params=params,
                                 truth="correct")
        assert audit.pool.n == N_CASES
        proposals, labels = live_latencies(audit, args.steps)
        floor_select = bare_selects(audit, args.steps)
        floor_insert = bare_inserts(directory, args.steps)
        stateless = stateless_proposals(db, audit.audit_id, 3)
        page_audit = LiveAudit.create(connect(db), str(csv), "adaptive", "SR-LR-UI", seed=1, params=params,
                                      truth="correct").audit_id
        page_kept = page_clicks(db, page_audit, args.steps, kept=8)
        page_audit = LiveAudit.create(connect(db), str(csv), "adaptive", "SR-LR-UI", seed=1, params=params,
                                      truth="correct").audit_id
        page_reopened = page_clicks(db, page_audit, min(args.steps, 20), kept=0)
        stores = store_comparison(directory, csv, pg_url, args.steps) if pg_url else None
    result = {
        "pool": N_CASES, "steps": args.steps,
        "proposal": ms(proposals), "proposal_baseline_bare_select": ms(floor_select),
        "proposal_stateless_replay": ms(stateless),
        "label_write": ms(labels), "label_baseline_bare_insert": ms(floor_insert),
        "page_click_kept_open": ms(page_kept), "page_click_baseline_reopened": ms(page_reopened),
    }
    result["page_click_ratio"] = round(result["page_click_baseline_reopened"]["median_ms"]
                                       / result["page_click_kept_open"]["median_ms"], 1)
    result["proposal_ratio"] = round(result["proposal"]["median_ms"] / result["proposal_baseline_bare_select"]["median_ms"], 2)
    result["label_ratio"] = round(result["label_write"]["median_ms"] / result["label_baseline_bare_insert"]["median_ms"], 2)
    result["proposal_target_met"] = result["proposal"]["p95_ms"] < 50
    result["label_target_met"] = result["label_write"]["p95_ms"] < 10
    print(f"pool of {N_CASES} cases, {args.steps} next/label cycles (adaptive, SR-LR-UI)")
    print(f"proposal (next):   median {result['proposal']['median_ms']:.2f} ms, p95 {result['proposal']['p95_ms']:.2f} ms"
          f"  (target < 50 ms: {'met' if result['proposal_target_met'] else 'NOT met'})")
    print(f"  baseline bare select: median {result['proposal_baseline_bare_select']['median_ms']:.2f} ms "
          f"-> ratio {result['proposal_ratio']}x")
    print(f"  stateless (reopen + replay {args.steps} labels): median "
          f"{result['proposal_stateless_replay']['median_ms']:.1f} ms")
    print(f"label write:       median {result['label_write']['median_ms']:.2f} ms, p95 {result['label_write']['p95_ms']:.2f} ms"
          f"  (target < 10 ms: {'met' if result['label_target_met'] else 'NOT met'})")
    print(f"  baseline bare INSERT+COMMIT (WAL, synchronous=FULL): median "
          f"{result['label_baseline_bare_insert']['median_ms']:.2f} ms -> ratio {result['label_ratio']}x")
    print(f"page label click (label + view + claim + view): median "
          f"{result['page_click_kept_open']['median_ms']:.1f} ms, p95 {result['page_click_kept_open']['p95_ms']:.1f} ms "
          f"with audits kept open; baseline reopening each call (first {result['page_click_baseline_reopened']['n']} "
          f"labels): median {result['page_click_baseline_reopened']['median_ms']:.1f} ms -> "
          f"{result['page_click_ratio']}x faster")
    if stores:
        result["stores"] = stores
        sq, pg = stores["sqlite"], stores["postgresql"]
        for key, label in (("proposal", "proposal (next)"), ("label_write", "label write")):
            print(f"{label:<17} SQLite median {sq[key]['median_ms']:.2f} / p95 {sq[key]['p95_ms']:.2f} ms; PostgreSQL "
                  f"median {pg[key]['median_ms']:.2f} / p95 {pg[key]['p95_ms']:.2f} ms -> PG/SQLite "
                  f"{stores[key + '_median_ms_pg_over_sqlite']}x (p95 {stores[key + '_p95_ms_pg_over_sqlite']}x)")
        print(f"8 writers (20 ms pause per label): SQLite {sq['eight_writers_labels_per_s']} labels/s, PostgreSQL "
              f"{pg['eight_writers_labels_per_s']} labels/s -> PG/SQLite {stores['eight_writers_pg_over_sqlite']}x; "
              f"PG label write p95 < 10 ms: {'met' if stores['pg_label_target_met'] else 'NOT met'}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
