"""``compare A B [C ...]``: runs on the cases they share (ids matched), anytime-valid.

B − A with its anytime-valid confidence sequence and the margin's decision (B better, A better,
equivalent, non-inferior, continue, inconclusive at the budget), the fixed-n Newcombe interval and
exact McNemar test beside it, per subgroup; with three or more runs (or one long CSV with a
``run`` column) every pair with e-Bonferroni, tie groups and rank intervals. ``--fail-on worse``
exits 1 when a run is worse than the baseline A beyond the margin (a regression gate for CI).
"""

from __future__ import annotations

from audit_core import api
from audit_core.cli import add_dual_test_flags, emit
from audit_core.presets import (
    COMPARE_MARGIN,
    DEFAULT_STYLE,
    FAIL_ON,
    RUN_COLUMN,
)

_MAX_LISTED = 20


def register(subparsers) -> None:
    p = subparsers.add_parser("compare", help="compare runs case by case (anytime-valid difference, margin, tie groups)",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("runs", metavar="RUN", nargs="+",
                   help="A (the baseline), B, C ...: labelled CSVs, Inspect AI logs, lm-eval samples; or one CSV "
                        f"with a '{RUN_COLUMN}' column, or one folder of Inspect .eval logs")
    p.add_argument("--name", action="append", metavar="NAME", help="label of each run, in order (repeat)")
    p.add_argument("--name-a", help="label of run A (default: its file name)")
    p.add_argument("--name-b", help="label of run B (default: its file name)")
    p.add_argument("--margin", type=float, default=COMPARE_MARGIN,
                   help=f"pre-registered margin of B - A (default {COMPARE_MARGIN:g})")
    p.add_argument("--budget", type=int, help="planned number of paired cases (default: open-ended)")
    p.add_argument("--fail-on", choices=FAIL_ON,
                   help="exit 1 when a run is worse than A beyond the margin (worse) or not shown non-inferior")
    p.add_argument("--run-column", default=RUN_COLUMN, help=f"run column of a long CSV (default {RUN_COLUMN})")
    p.add_argument("--score", help="score column of every run (auto-detected if omitted)")
    p.add_argument("--id", dest="id_column", help="case id column of every run (auto-detected if omitted)")
    p.add_argument("--subgroup", action="append", metavar="COL", help="subgroup column (repeat or comma-separate)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval confidence (default 0.95)")
    add_dual_test_flags(p, f"run A's own style, else {DEFAULT_STYLE}", scope="of each run's dual test")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def _names(args) -> list[str] | None:
    from pathlib import Path
    if args.name:
        return list(args.name)
    if not (args.name_a or args.name_b):
        return None
    defaults = [Path(r).name for r in args.runs]
    if len(defaults) >= 1 and args.name_a:
        defaults[0] = args.name_a
    if len(defaults) >= 2 and args.name_b:
        defaults[1] = args.name_b
    return defaults


def run(args) -> int:
    subgroups = [c.strip() for item in args.subgroup for c in item.split(",") if c.strip()] if args.subgroup else None
    view = api.compare(*args.runs, score=args.score, subgroup=subgroups, id_column=args.id_column,
                       names=_names(args), confidence=args.confidence, margin=args.margin, budget=args.budget,
                       run_column=args.run_column, style=args.style, q=args.q, alpha=args.alpha, m=args.m,
                       model_process=args.model_process, auditor_process=args.auditor_process)
    emit(view.to_dict(), args.json, render_text)
    return 1 if args.fail_on and view.fails(args.fail_on) else 0


def _interval(row: dict, low: str = "ci_low", high: str = "ci_high") -> str:
    if row["difference"] is None or row.get(low) is None:
        return "n/a"
    return f"{row['difference']:+.3f} [{row[low]:+.3f}, {row[high]:+.3f}]"


def render_text(payload: dict) -> str:
    a, b = payload["names"]
    o, s = payload["overall"], payload["sequential"]
    lines = [payload["verdict"], "",
             f"{b} vs {a}: {payload['n_common']} common cases; only in {a}: {payload['only_a']['count']}, "
             f"only in {b}: {payload['only_b']['count']}",
             f"Accuracy {o['mean_a']:.3f} -> {o['mean_b']:.3f}",
             f"Anytime-valid {payload['confidence']:.0%} bounds on B - A: [{s['lower']:+.3f}, {s['upper']:+.3f}] "
             f"after {s['n']} cases ({s['method']}); margin {s['margin']:g}: {s['decision']}"
             + (f" (from case {s['decided_at']})" if s["decided_at"] else ""),
             f"Fixed n (valid only at a sample size fixed in advance): {_interval(o)} "
             f"({payload['confidence']:.0%} {o['interval']})"]
    if payload["mcnemar"]:
        m = payload["mcnemar"]
        lines.append(f"Exact McNemar test (fixed n): p = {m['pvalue']:.4g} "
                     f"({m['regressions']} regressions, {m['improvements']} improvements)")
    lines += [f"{o['regressions']} regressions, {o['improvements']} improvements"]
    runs = payload["runs"]
    if len(runs["names"]) > 2:
        lines += ["", f"{len(runs['names'])} runs on {runs['n']} matched cases, {runs['multiplicity']} over "
                      f"{runs['family_size']} pairs (each at level {runs['level_per_pair']:.3g}); tie groups at "
                      f"margin {runs['margin']:g}, best first:"]
        ranks = {r["run"]: r for r in runs["ranks"]}
        for g, members in enumerate(runs["groups"], start=1):
            shown = ", ".join(f"{name} (mean {runs['means'][runs['names'].index(name)]:.3f}, rank "
                              f"{ranks[name]['rank_low']}-{ranks[name]['rank_high']})" for name in members)
            lines.append(f"  group {g}: {shown}")
        lines += ["", "Pairs (B - A, simultaneous bounds):"]
        for r in runs["pairs"]:
            lines.append(f"  {r['b'][:24]:<24} - {r['a'][:24]:<24} {r['difference']:+.3f} "
                         f"[{r['lower']:+.3f}, {r['upper']:+.3f}]  {r['decision']}")
        unmatched = {k: v for k, v in runs["unmatched"].items() if v["count"]}
        if unmatched:
            lines.append("Cases not in every run: " + "; ".join(
                f"{k}: {v['count']} ({', '.join(v['ids'][:5])}{', ...' if v['count'] > 5 else ''})"
                for k, v in unmatched.items()))
    if payload["tasks"]:
        tasks = payload["tasks"]
        lines += ["", f"Per task and pooled ({tasks['pooling']}):"]
        for task, runs_of in (*tasks["per_task"].items(), ("pooled", tasks["pooled"])):
            groups = " > ".join("{" + ", ".join(g) + "}" for g in runs_of["groups"])
            lines.append(f"  {str(task)[:30]:<30} n={runs_of['n']:<6} tie groups, best first: {groups}")
    lines += ["", "Dual-test decision of each run alone:"]
    for d in payload["decisions"]:
        stop = f" at case {d['stop']}" if d["stop"] else f" after {d['n']} cases"
        lines.append(f"  {d['name']}: {d['decision']}{stop} ({d['model_process']} vs {d['auditor_process']})")
    if payload["subgroup_columns"]:
        lines += ["", f"Per subgroup ({', '.join(payload['subgroup_columns'])}; decision on bounds at alpha/"
                      f"{len(payload['subgroups'])}):"]
        for r in payload["subgroups"]:
            lines.append(f"  {str(r['subgroup'])[:40]:<40} n={r['n']:<5} {_interval(r, 'fw_low', 'fw_high')}  "
                         f"{r['decision']}  (fixed n {_interval(r)})  -{r['regressions']} +{r['improvements']}")
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
