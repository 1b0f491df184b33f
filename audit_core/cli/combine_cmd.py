"""``combine RUN [RUN ...]``: several audits at once, with e-BH (FDR) and e-Bonferroni (FWER).

Each RUN is a ``replay --json`` output (.json) or a labelled audit CSV, replayed here with the
given parameters. Each audit contributes the log e-value of its model process (``--side model``:
rejecting means "failure mode found") or of its auditor process (``--side auditor``: "audit
passed"), after the run's last case (``--at end``) or at the dual test's stop (``--at stop``).
"""

from __future__ import annotations

from audit_core import api
from audit_core.cli import add_dual_test_flags, add_fail_on, emit, fail_on_status
from audit_core.presets import (
    DEFAULT_STYLE,
    MULTIPLE_SIDES,
    MULTIPLE_TIMES,
)


def register(subparsers) -> None:
    p = subparsers.add_parser("combine", help="combine several audits' e-values with e-BH (FDR) and e-Bonferroni (FWER)",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", metavar="RUN", help="replay --json output (.json) or labelled audit CSV")
    p.add_argument("--level", type=float, default=0.05, help="FDR / FWER level (default 0.05)")
    p.add_argument("--method", choices=api.COMBINE_METHODS, default="both", help="procedure (default both)")
    p.add_argument("--side", choices=MULTIPLE_SIDES, default="model",
                   help="model: each audit's model e-value, a rejection = failure mode found (default); auditor: "
                        "the auditor's e-value, a rejection = that audit's strategy did not keep finding subgroups "
                        "below q (not a proof that none is)")
    p.add_argument("--at", choices=MULTIPLE_TIMES, default="end", help="e-value after the last case (default) or at the dual stop")
    add_dual_test_flags(p, f"each run's own style, else {DEFAULT_STYLE}", scope="for CSV runs")
    p.add_argument("--score", help="score column of CSV runs (auto-detected if omitted)")
    add_fail_on(p, ("failure", "passed", "inconclusive"),
                "failure: an audit rejected with --side model; passed: one rejected with --side auditor; "
                "inconclusive: an audit no method rejected")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def run(args) -> int:
    view = api.combine(args.runs, level=args.level, side=args.side, at=args.at, method=args.method, score=args.score,
                       style=args.style, q=args.q, alpha=args.alpha, m=args.m, model_process=args.model_process,
                       auditor_process=args.auditor_process)
    payload = view.to_dict()
    emit(payload, args.json, render_text)
    rejected = [any(run[m] for m in payload["methods"]) for run in payload["runs"]]
    met = {"failure" if payload["side"] == "model" else "passed"} if any(rejected) else set()
    if not all(rejected):
        met.add("inconclusive")
    return fail_on_status(args, met)


def render_text(payload: dict) -> str:
    from audit_core.report import format as fmt  # numpy: loaded when output is written

    meaning = "failure mode found" if payload["side"] == "model" else "audit passed"
    methods = list(payload["methods"])
    lines = [f"{len(payload['runs'])} audits combined at level {payload['level']} "
             f"(rejection = {meaning}; e-values {'after the last case' if payload['at'] == 'end' else 'at the dual stop'})", ""]
    for m in methods:
        info = payload["methods"][m]
        threshold = "none reached" if info["threshold"] is None else f"e >= {info['threshold']:.4g}"
        lines.append(f"{m}: {info['n_rejected']} of {info['n_hypotheses']} rejected ({threshold}); {info['guarantee']}")
    width = max(len(r["name"]) for r in payload["runs"])
    lines += ["", f"{'run':<{width}}  {fmt.LOG_E_LABEL:>9}  " + "  ".join(f"{m:>12}" for m in methods) + "  own decision"]
    for r in payload["runs"]:
        log_e = fmt.evalue(r["log_e"])  # log₁₀ E for people; the JSON keeps natural logs
        marks = "  ".join(f"{'reject' if r[m] else '-':>12}" for m in methods)
        lines.append(f"{r['name']:<{width}}  {log_e:>9}  {marks}  {r['own_decision']}")
    return "\n".join(lines)
