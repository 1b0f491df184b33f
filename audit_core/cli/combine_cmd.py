"""``combine RUN [RUN ...]``: several audits at once, with e-BH (FDR) and e-Bonferroni (FWER).

Each RUN is a ``replay --json`` output (.json) or a labelled audit CSV, replayed here with the
given parameters. Each audit contributes the log e-value of its model process (``--side model``:
rejecting means "failure mode found") or of its auditor process (``--side auditor``: "audit
passed"), after the run's last case (``--at end``) or at the dual test's stop (``--at stop``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from audit_core import analyses
from audit_core.cli import emit
from audit_core.errors import InputError
from audit_core.presets import DEFAULT_AUDITOR_PROCESS, DEFAULT_MODEL_PROCESS
from audit_core.report import format as fmt
from audit_core.sequential import AUDITOR_PROCESSES, MODEL_PROCESSES, AuditParams
from audit_core.sequential.multiple import E_BH, E_BONFERRONI, METHODS, SIDES, TIMES
from audit_core.sequential.params import STYLES

METHOD_CHOICES = {"e-bh": (E_BH,), "e-bonferroni": (E_BONFERRONI,), "both": METHODS}


def register(subparsers) -> None:
    p = subparsers.add_parser("combine", help="combine several audits' e-values with e-BH (FDR) and e-Bonferroni (FWER)",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", metavar="RUN", help="replay --json output (.json) or labelled audit CSV")
    p.add_argument("--level", type=float, default=0.05, help="FDR / FWER level (default 0.05)")
    p.add_argument("--method", choices=sorted(METHOD_CHOICES), default="both", help="procedure (default both)")
    p.add_argument("--side", choices=SIDES, default="model",
                   help="model: find failures (default); auditor: certify passes")
    p.add_argument("--at", choices=TIMES, default="end", help="e-value after the last case (default) or at the dual stop")
    p.add_argument("--style", choices=STYLES, default="gpqa", help="parameters for CSV runs (default gpqa)")
    p.add_argument("--q", type=float, help="performance threshold q for CSV runs")
    p.add_argument("--alpha", type=float, help="per-audit level alpha for CSV runs")
    p.add_argument("--m", type=int, help="auditor's budget m for CSV runs")
    p.add_argument("--score", help="score column of CSV runs (auto-detected if omitted)")
    p.add_argument("--model-process", choices=MODEL_PROCESSES, default=DEFAULT_MODEL_PROCESS)
    p.add_argument("--auditor-process", choices=AUDITOR_PROCESSES, default=DEFAULT_AUDITOR_PROCESS)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def _load_run(path: str, args, params: AuditParams | None) -> tuple[dict, AuditParams | None]:
    """The replay payload of one RUN (read from JSON, or replayed from a labelled file)."""
    if Path(path).suffix.lower() == ".json":
        try:
            payload = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(f"run {path}: file not found") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"run {path}: not a JSON document ({exc})") from None
        return payload, params
    if params is None:
        params = AuditParams.for_style(args.style, q=args.q, alpha=args.alpha, m=args.m)
    view = analyses.replay_run(analyses.run_source(path, check=False), score=args.score, subgroups=(), params=params,
                               model_process=args.model_process, auditor_process=args.auditor_process)
    return view.result.to_dict(), params


def run(args) -> int:
    if len(args.runs) < 2:
        raise InputError("combine: give at least two runs")
    if not 0.0 < args.level < 1.0:
        raise InputError(f"--level: must lie strictly between 0 and 1, got {args.level}")
    params = None
    runs = []
    for path in args.runs:
        payload, params = _load_run(path, args, params)
        runs.append((path, payload))
    if len({name for name, _ in runs}) < len(runs):
        raise InputError("combine: a run is given twice")
    try:
        view = analyses.combine_audits(runs, args.level, args.side, args.at, METHOD_CHOICES[args.method])
    except InputError as exc:
        raise InputError(f"combine: {exc}") from None
    results, names = view.results, view.names
    log_e = list(next(iter(results.values())).log_e)
    decisions = list(view.table["own decision"])
    payload = {"level": args.level, "side": args.side, "at": args.at,
               "runs": [{"name": n, "log_e": (None if not math.isfinite(e) else e), "own_decision": d,
                         **{m: r.rejected[i] for m, r in results.items()}}
                        for i, (n, e, d) in enumerate(zip(names, log_e, decisions, strict=False))],
               "methods": {m: r.to_dict() for m, r in results.items()}}
    emit(payload, args.json, render_text)
    return 0


def render_text(payload: dict) -> str:
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
