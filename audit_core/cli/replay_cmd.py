"""``replay FILE``: every e-process over a recorded annotation run (docs/cli.md).

FILE is a labelled audit CSV, an Inspect AI log (``.eval`` or ``.json``), lm-eval samples files
(``samples_<task>_<time>.jsonl``, one or several) or an lm-eval output folder; the kind is found
from the content. ``--score`` names the CSV column, the Inspect scorer or the lm-eval metric;
``--subgroup`` a column, metadata key or doc field; ``--filter`` the lm-eval filter. Scores are
replayed in the file's order column (CSV; ``--order COL`` to name it, ``--file-order`` to ignore
it), the samples' timestamps (Inspect) or file order (lm-eval). Parameters default to the
style's values of docs/e-processes.md, Parameters and defaults (``--style gpqa`` unless given); any can be overridden.
"""

from __future__ import annotations

import argparse

from audit_core import api
from audit_core.cli import emit
from audit_core.errors import InputError
from audit_core.presets import DEFAULT_AUDITOR_PROCESS, DEFAULT_MODEL_PROCESS, DEFAULT_STYLE, STYLES
from audit_core.report import format as fmt
from audit_core.sequential import AUDITOR_PROCESSES, MODEL_PROCESSES, PROCESS_NAMES
from audit_core.sequential.params import WEIGHT_SCHEMES

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
    parser.add_argument("file", metavar="FILE", nargs="+",
                        help="labelled audit CSV, Inspect AI log (.eval/.json), lm-eval samples_*.jsonl file(s) "
                             "or lm-eval output folder")
    parser.add_argument("--score", help="score column, Inspect scorer or lm-eval metric (0/1 or a number in [0, 1]); "
                                        "auto-detected if omitted and unambiguous")
    parser.add_argument("--filter", help="lm-eval filter (e.g. strict-match) when the samples have several")
    parser.add_argument("--order", help="annotation-order column (auto-detected: 'order', 'step', ...)")
    parser.add_argument("--file-order", action="store_true", help="replay in file order even if an order column exists")
    parser.add_argument("--subgroup", action="append", metavar="COL",
                        help="subgroup column for the per-subgroup table (repeat or comma-separate)")
    parser.add_argument("--style", choices=STYLES, default=DEFAULT_STYLE, help="default parameters (docs/e-processes.md, Parameters and defaults)")
    parser.add_argument("--q", type=float, help="performance threshold q")
    parser.add_argument("--alpha", type=float, help="level; stop when E >= 1/alpha")
    parser.add_argument("--m", type=int, help="auditor's budget m (its null is tested from step m)")
    parser.add_argument("--delta", type=float, help="model's fixed alternative is q - delta")
    parser.add_argument("--delta-aud", type=float, help="auditor's fixed alternative is q + delta-aud")
    parser.add_argument("--eta", type=float, help="EWAF learning rate")
    parser.add_argument("--weights", choices=WEIGHT_SCHEMES, help="changepoint weights of the SR processes")
    parser.add_argument("--grid-mod", type=_grid, help="forecaster grid below q, e.g. 0.6,0.7,0.8")
    parser.add_argument("--grid-aud", type=_grid, help="forecaster grid above q, e.g. 0.88,0.91,0.94")
    parser.add_argument("--model-process", choices=MODEL_PROCESSES, default=DEFAULT_MODEL_PROCESS)
    parser.add_argument("--auditor-process", choices=AUDITOR_PROCESSES, default=DEFAULT_AUDITOR_PROCESS)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(func=run)


def _with_q_hint(message: str, args) -> str:
    """A parameter message after ``--q``: say which flags fit the new threshold."""
    if args.q is not None and "grid" in message:
        return f"{message}; with --q {args.q} give --grid-mod and --grid-aud on its two sides"
    if args.q is not None and "parameter delta" in message:
        return f"{message}; with --q {args.q} give --delta and --delta-aud that fit it"
    return message


def run(args) -> int:
    if args.file_order and args.order:
        raise InputError("replay: give either --order COL or --file-order, not both")
    subgroups = [c.strip() for item in args.subgroup for c in item.split(",") if c.strip()] if args.subgroup else None
    source = args.file[0] if len(args.file) == 1 else args.file
    try:
        view = api.replay(source, score=args.score, subgroup=subgroups, order=args.order, file_order=args.file_order,
                          filter=args.filter, style=args.style, q=args.q, alpha=args.alpha, m=args.m,
                          delta=args.delta, delta_aud=args.delta_aud, eta=args.eta, weights=args.weights,
                          grid_mod=args.grid_mod, grid_aud=args.grid_aud, model_process=args.model_process,
                          auditor_process=args.auditor_process, name=", ".join(str(f) for f in args.file))
    except InputError as exc:
        raise InputError(_with_flags(_with_q_hint(str(exc), args))) from None
    payload = view.to_dict()
    payload["notes"] = [_with_flags(note) for note in payload["notes"]]
    emit(payload, args.json, render_text)
    return 0


# Engine messages name roles; the command line names its flags.
_FLAG_HINTS = (("choose one as the score", "choose one with --score"),
               ("choose the subgroup columns", "choose them with --subgroup COL"),
               ("choose one filter", "choose one with --filter"))


def _with_flags(message: str) -> str:
    for role, flag in _FLAG_HINTS:
        message = message.replace(role, flag)
    return message


LOG_E = fmt.LOG_E_LABEL


def render_text(payload: dict) -> str:
    """The text summary; e-values as log₁₀ E (the JSON keeps natural logs, see docs/cli.md)."""
    params = payload["params"]
    decision = payload["decision"]
    order = payload["columns"]["order"]
    lines = [
        f"Replay of {payload['file']}: {payload['n']} scores in "
        f"{'annotation order (' + repr(order) + ')' if order else 'file order'}",
        f"q={params['q']}, alpha={params['alpha']} (stop at {LOG_E} >= {fmt.evalue(decision['log_threshold'])}), "
        f"m={params['m']}, eta={params['eta']}, weights={params['weights']}",
        "",
        f"Decision ({decision['model_process']} vs {decision['auditor_process']}): {decision['decision'].upper()}"
        + (f" at step {decision['stop']}" if decision["stop"] else f" after {payload['n']} steps"),
        "",
        *([payload["verdict"], ""] if payload.get("verdict") else []),
        f"{'process':<11}{'final ' + LOG_E:>16}{'max ' + LOG_E:>14}{'stop':>7}  decision",
    ]
    for name in PROCESS_NAMES:
        process = payload["processes"][name]
        stop = "-" if process["stop"] is None else str(process["stop"])
        lines.append(f"{name:<11}{fmt.evalue(process['final_log_e']):>16}{fmt.evalue(max(process['log_e'])):>14}{stop:>7}  "
                     f"{process['decision']}")
    overall = payload["overall"]
    lines += ["", f"Overall accuracy {overall['accuracy']:.3f} (n={overall['n']}): 95% anytime-valid "
                  f"[{overall['cs_low']:.3f}, {overall['cs_high']:.3f}], Wilson (fixed n) "
                  f"[{overall['ci_low']:.3f}, {overall['ci_high']:.3f}]"]
    columns = payload["subgroup_columns"]
    if columns:
        rows = sorted(payload["subgroups"], key=lambda r: r["accuracy"])
        lines += ["", f"Subgroups by {', '.join(columns)} (lowest accuracy first; anytime-valid interval, "
                      "Wilson fixed-n in parentheses):"]
        for row in rows[:_MAX_SUBGROUP_ROWS]:
            label = " / ".join(str(row[c]) for c in columns)
            flag = ("  (below q, family-wise)" if row.get("fw_high", row["cs_high"]) < params["q"] else
                    "  (below q for this subgroup alone)" if row["cs_high"] < params["q"] else "")
            lines.append(f"  {label[:44]:<44} n={row['n']:<5} acc={row['accuracy']:.3f} "
                         f"[{row['cs_low']:.3f}, {row['cs_high']:.3f}] "
                         f"({row['ci_low']:.3f}, {row['ci_high']:.3f}){flag}")
        if len(rows) > _MAX_SUBGROUP_ROWS:
            lines.append(f"  ... {len(rows) - _MAX_SUBGROUP_ROWS} more (see --json)")
    if payload["notes"]:
        lines += ["", "Notes:"] + [f"  - {note}" for note in payload["notes"]]
    return "\n".join(lines)
