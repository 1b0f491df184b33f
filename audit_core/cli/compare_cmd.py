"""``compare A.csv B.csv``: two labelled runs on the cases they share (ids matched).

Paired difference B - A overall and per subgroup with 95% intervals (Newcombe's paired score
interval for 0/1 scores, the paired t interval otherwise), the regressions and improvements case
by case, each run's own dual-test decision, and the cases present in one run only.
"""

from __future__ import annotations

from pathlib import Path

from audit_core import api
from audit_core.cli import emit
from audit_core.presets import (
    AUDITOR_PROCESSES,
    DEFAULT_AUDITOR_PROCESS,
    DEFAULT_MODEL_PROCESS,
    DEFAULT_STYLE,
    MODEL_PROCESSES,
    STYLES,
)

_MAX_LISTED = 20


def register(subparsers) -> None:
    p = subparsers.add_parser("compare", help="compare two labelled runs case by case (paired difference, regressions)",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("run_a", metavar="A", help="labelled audit CSV of the first run (the baseline)")
    p.add_argument("run_b", metavar="B", help="labelled audit CSV of the second run")
    p.add_argument("--name-a", help="label of run A (default: its file name)")
    p.add_argument("--name-b", help="label of run B (default: its file name)")
    p.add_argument("--score", help="score column of both runs (auto-detected if omitted)")
    p.add_argument("--id", dest="id_column", help="case id column of both runs (auto-detected if omitted)")
    p.add_argument("--subgroup", action="append", metavar="COL", help="subgroup column (repeat or comma-separate)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval confidence (default 0.95)")
    p.add_argument("--style", choices=STYLES, help=f"dual-test parameters (default: run A's own style, else {DEFAULT_STYLE})")
    p.add_argument("--q", type=float, help="performance threshold q")
    p.add_argument("--alpha", type=float, help="level alpha of each run's dual test")
    p.add_argument("--m", type=int, help="auditor's budget m")
    p.add_argument("--model-process", choices=MODEL_PROCESSES, default=DEFAULT_MODEL_PROCESS)
    p.add_argument("--auditor-process", choices=AUDITOR_PROCESSES, default=DEFAULT_AUDITOR_PROCESS)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def run(args) -> int:
    subgroups = [c.strip() for item in args.subgroup for c in item.split(",") if c.strip()] if args.subgroup else None
    names = (args.name_a or Path(args.run_a).name, args.name_b or Path(args.run_b).name)
    view = api.compare(args.run_a, args.run_b, score=args.score, subgroup=subgroups, id_column=args.id_column,
                       names=names, confidence=args.confidence, style=args.style, q=args.q, alpha=args.alpha,
                       m=args.m, model_process=args.model_process, auditor_process=args.auditor_process)
    emit(view.to_dict(), args.json, render_text)
    return 0


def _interval(row: dict) -> str:
    if row["difference"] is None:
        return "n/a"
    return f"{row['difference']:+.3f} [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]"


def render_text(payload: dict) -> str:
    a, b = payload["names"]
    o = payload["overall"]
    lines = [f"{b} vs {a}: {payload['n_common']} common cases; only in {a}: {payload['only_a']['count']}, "
             f"only in {b}: {payload['only_b']['count']}",
             f"Accuracy {o['mean_a']:.3f} -> {o['mean_b']:.3f}; difference (B - A) {_interval(o)} "
             f"({payload['confidence']:.0%} {o['interval']})",
             f"{o['regressions']} regressions, {o['improvements']} improvements", "",
             "Dual-test decision of each run alone:"]
    for d in payload["decisions"]:
        stop = f" at case {d['stop']}" if d["stop"] else f" after {d['n']} cases"
        lines.append(f"  {d['name']}: {d['decision']}{stop} ({d['model_process']} vs {d['auditor_process']})")
    if payload["subgroup_columns"]:
        lines += ["", f"Per subgroup ({', '.join(payload['subgroup_columns'])}):"]
        for r in payload["subgroups"]:
            lines.append(f"  {str(r['subgroup'])[:40]:<40} n={r['n']:<5} {_interval(r)}  "
                         f"-{r['regressions']} +{r['improvements']}")
    for kind in ("regressions", "improvements"):
        rows = payload[kind]
        if rows:
            lines += ["", f"{kind.capitalize()} ({len(rows)}):"]
            lines += [f"  {r['id']}  {r['subgroup']}  {r['score_a']:g} -> {r['score_b']:g}" for r in rows[:_MAX_LISTED]]
            if len(rows) > _MAX_LISTED:
                lines.append(f"  ... {len(rows) - _MAX_LISTED} more (see --json)")
    if payload["notes"]:
        lines += ["", "Notes:"] + [f"  - {n}" for n in payload["notes"]]
    return "\n".join(lines)
