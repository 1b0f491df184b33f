"""``replay FILE.csv``: every e-process over a recorded annotation run (DESIGN.md section 6).

Scores are replayed in the file's ``order`` column if there is one (``--order COL`` to name it,
``--file-order`` to ignore it), else in file order. Parameters default to the style's values of
DESIGN.md section 3 (``--style gpqa`` unless given); any of them can be overridden.
"""

from __future__ import annotations

import argparse

from audit_core.cli import emit
from audit_core.data.loader import load_audit_csv
from audit_core.errors import InputError
from audit_core.sequential import AUDITOR_PROCESSES, MODEL_PROCESSES, PROCESS_NAMES, AuditParams, replay
from audit_core.sequential.params import STYLES, WEIGHT_SCHEMES

_MAX_SUBGROUP_ROWS = 20


def _grid(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "replay", help="replay a recorded annotation run through the six e-processes and the dual test",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("file", metavar="FILE.csv", help="labelled audit CSV, one row per annotated case")
    parser.add_argument("--score", help="score column (0/1 or a number in [0, 1]); auto-detected if omitted")
    parser.add_argument("--order", help="annotation-order column (auto-detected: 'order', 'step', ...)")
    parser.add_argument("--file-order", action="store_true", help="replay in file order even if an order column exists")
    parser.add_argument("--subgroup", action="append", metavar="COL",
                        help="subgroup column for the per-subgroup table (repeat or comma-separate)")
    parser.add_argument("--style", choices=STYLES, default="gpqa", help="default parameters (DESIGN.md section 3)")
    parser.add_argument("--q", type=float, help="performance threshold q")
    parser.add_argument("--alpha", type=float, help="level; stop when E >= 1/alpha")
    parser.add_argument("--m", type=int, help="auditor's budget m (its null is tested from step m)")
    parser.add_argument("--delta", type=float, help="model's fixed alternative is q - delta")
    parser.add_argument("--delta-aud", type=float, help="auditor's fixed alternative is q + delta-aud")
    parser.add_argument("--eta", type=float, help="EWAF learning rate")
    parser.add_argument("--weights", choices=WEIGHT_SCHEMES, help="changepoint weights of the SR processes")
    parser.add_argument("--grid-mod", type=_grid, help="forecaster grid below q, e.g. 0.6,0.7,0.8")
    parser.add_argument("--grid-aud", type=_grid, help="forecaster grid above q, e.g. 0.88,0.91,0.94")
    parser.add_argument("--model-process", choices=MODEL_PROCESSES, default="SR-LR-UI")
    parser.add_argument("--auditor-process", choices=AUDITOR_PROCESSES, default="AUD-LR-UI")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(func=run)


def _params(args) -> AuditParams:
    try:
        return AuditParams.for_style(
            args.style, q=args.q, alpha=args.alpha, m=args.m, delta=args.delta, delta_aud=args.delta_aud,
            eta=args.eta, weights=args.weights, grid_mod=args.grid_mod, grid_aud=args.grid_aud,
        )
    except InputError as exc:
        if "grid" in str(exc) and args.q is not None:
            raise InputError(f"{exc}; with --q {args.q} give --grid-mod and --grid-aud on its two sides") from None
        if "parameter delta" in str(exc) and args.q is not None:
            raise InputError(f"{exc}; with --q {args.q} give --delta and --delta-aud that fit it") from None
        raise


def run(args) -> int:
    params = _params(args)
    subgroups = None
    if args.subgroup:
        subgroups = [c.strip() for item in args.subgroup for c in item.split(",") if c.strip()]
    if args.file_order and args.order:
        raise InputError("replay: give either --order COL or --file-order, not both")
    data = load_audit_csv(args.file, score=args.score, subgroups=subgroups,
                          order=False if args.file_order else args.order)
    result = replay(data.scores, params, subgroups=data.subgroup_frame,
                    model_process=args.model_process, auditor_process=args.auditor_process)
    payload = result.to_dict()
    payload["file"] = str(args.file)
    payload["columns"] = {"score": data.score, "order": data.order, "subgroups": list(data.subgroups), "id": data.id}
    payload["notes"] = list(data.notes)
    emit(payload, args.json, render_text)
    return 0


def render_text(payload: dict) -> str:
    params = payload["params"]
    decision = payload["decision"]
    order = payload["columns"]["order"]
    lines = [
        f"Replay of {payload['file']}: {payload['n']} scores in "
        f"{'annotation order (' + repr(order) + ')' if order else 'file order'}",
        f"q={params['q']}, alpha={params['alpha']} (stop at log E >= {decision['log_threshold']:.3f}), "
        f"m={params['m']}, eta={params['eta']}, weights={params['weights']}",
        "",
        f"Decision ({decision['model_process']} vs {decision['auditor_process']}): {decision['decision'].upper()}"
        + (f" at step {decision['stop']}" if decision["stop"] else f" after {payload['n']} steps"),
        "",
        f"{'process':<11}{'final log E':>12}{'max log E':>11}{'stop':>7}  decision",
    ]
    for name in PROCESS_NAMES:
        process = payload["processes"][name]
        stop = "-" if process["stop"] is None else str(process["stop"])
        lines.append(f"{name:<11}{process['final_log_e']:>12.3f}{max(process['log_e']):>11.3f}{stop:>7}  "
                     f"{process['decision']}")
    overall = payload["overall"]
    lines += ["", f"Overall accuracy {overall['accuracy']:.3f} (95% Wilson {overall['ci_low']:.3f}-"
                  f"{overall['ci_high']:.3f}, n={overall['n']})"]
    columns = payload["subgroup_columns"]
    if columns:
        rows = sorted(payload["subgroups"], key=lambda r: r["accuracy"])
        lines += ["", f"Subgroups by {', '.join(columns)} (lowest accuracy first):"]
        for row in rows[:_MAX_SUBGROUP_ROWS]:
            label = " / ".join(str(row[c]) for c in columns)
            flag = "  (interval below q)" if row["ci_high"] < params["q"] else ""
            lines.append(f"  {label[:44]:<44} n={row['n']:<5} acc={row['accuracy']:.3f} "
                         f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]{flag}")
        if len(rows) > _MAX_SUBGROUP_ROWS:
            lines.append(f"  ... {len(rows) - _MAX_SUBGROUP_ROWS} more (see --json)")
    if payload["notes"]:
        lines += ["", "Notes:"] + [f"  - {note}" for note in payload["notes"]]
    return "\n".join(lines)
