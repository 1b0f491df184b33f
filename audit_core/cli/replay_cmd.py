"""``replay FILE``: every e-process over a recorded annotation run (docs/cli.md).

FILE is a labelled audit CSV, an Inspect AI log (``.eval`` or ``.json``), lm-eval samples files
(``samples_<task>_<time>.jsonl``, one or several) or an lm-eval output folder; the kind is found
from the content. ``--score`` names the CSV column, the Inspect scorer or the lm-eval metric;
``--subgroup`` a column, metadata key or doc field; ``--filter`` the lm-eval filter. Scores are
replayed in the file's order column (CSV; ``--order COL`` to name it, ``--file-order`` to ignore
it), the samples' timestamps (Inspect) or file order (lm-eval). Parameters default to the
style's values of docs/e-processes.md, Parameters and defaults (``--style``, else the run's own
style, else gpqa: :func:`audit_core.presets.resolve_style`); any can be overridden.
"""

from __future__ import annotations

import argparse

from audit_core import analyses, api
from audit_core.cli import ANY_FLAG, FAIL_ON_DECISIONS, add_dual_test_flags, add_fail_on, emit, fail_on_status
from audit_core.errors import InputError
from audit_core.presets import (
    DEFAULT_STYLE,
    PROCESS_NAMES,
    WEIGHT_SCHEMES,
)

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
    parser.add_argument("--map", action="append", metavar="LABEL=SCORE,...", dest="score_map",
                        help="map text labels of the score column to scores, e.g. --map pass=1,fail=0 (repeat or "
                             "comma-separate); --map builtin takes the built-in vocabulary (correct/incorrect, "
                             "pass/fail, yes/no, ✓/✗, partial = 0.5, 1..k ratings), explicit pairs override it")
    parser.add_argument("--filter", help="lm-eval filter (e.g. strict-match) when the samples have several")
    parser.add_argument("--order", help="annotation-order column (auto-detected: 'order', 'step', ...)")
    parser.add_argument("--file-order", action="store_true", help="replay in file order even if an order column exists")
    parser.add_argument("--subgroup", action="append", metavar="COL",
                        help="subgroup column, metadata key or doc field for the per-subgroup table (repeat or "
                             "comma-separate; several are crossed); default: those named like a subgroup "
                             "(subject, category, ...), see --choices")
    parser.add_argument("--no-subgroups", action="store_true", help="no subgroups: the run as one group")
    parser.add_argument("--choices", action="store_true",
                        help="list what the file offers (a log's scorers or metrics, its subgroup keys and the "
                             "default ones, lm-eval filters; a CSV's columns and detected roles) and stop")
    add_dual_test_flags(parser, f"the run's own style, else {DEFAULT_STYLE}")
    parser.add_argument("--delta", type=float, help="model's fixed alternative is q - delta")
    parser.add_argument("--delta-aud", type=float, help="auditor's fixed alternative is q + delta-aud")
    parser.add_argument("--eta", type=float, help="EWAF learning rate")
    parser.add_argument("--weights", choices=WEIGHT_SCHEMES, help="changepoint weights of the SR processes")
    parser.add_argument("--grid-mod", type=_grid, help="forecaster grid below q, e.g. 0.6,0.7,0.8")
    parser.add_argument("--grid-aud", type=_grid, help="forecaster grid above q, e.g. 0.88,0.91,0.94")
    add_fail_on(parser, (*FAIL_ON_DECISIONS.values(), ANY_FLAG),
                "failure / passed / inconclusive: the dual test's decision; any-flag: a subgroup below q, "
                "family-wise or for that subgroup alone")
    parser.add_argument("--label", action="append", metavar="NAME",
                        help="with several files: the name of each run in the run column, in file order "
                             "(repeat; default the model and task of each log, or the file name)")
    parser.add_argument("--planned-n", type=int, metavar="N",
                        help="the number of cases the audit planned, declared before the data: the overall "
                             "anytime-valid interval of 0/1 scores is tuned to it (narrower up to N, valid at every n)")
    parser.add_argument("--drop-missing", action="store_true",
                        help="leave out rows without a score (the output says how many); without it they are refused")
    parser.add_argument("--follow", action="store_true",
                        help="read FILE again whenever it changes (a run still being written): one line per "
                             "reading, then the full replay when an Inspect log records its end, when FILE has not "
                             "changed for --idle seconds, or at Ctrl-C")
    parser.add_argument("--every", type=float, default=2.0, metavar="S", help="with --follow: seconds between checks "
                                                                             "(default 2)")
    parser.add_argument("--idle", type=float, default=60.0, metavar="S",
                        help="with --follow: stop after S seconds without a change (default 60)")
    parser.add_argument("--json", action="store_true", help="print one JSON document (with --follow: at the end)")
    parser.set_defaults(func=run)


def _with_q_hint(message: str, args) -> str:
    """A parameter message after ``--q``: say which flags fit the new threshold."""
    if args.q is not None and "grid" in message:
        return f"{message}; with --q {args.q} give --grid-mod and --grid-aud on its two sides"
    if args.q is not None and "parameter delta" in message:
        return f"{message}; with --q {args.q} give --delta and --delta-aud that fit it"
    return message


BUILTIN = "builtin"


def _score_mapping(items: list[str] | None, source, score: str | None) -> dict[str, float] | None:
    """``--map`` values as label -> score: ``builtin`` (the suggestions of
    :func:`audit_core.data.labels.score_labels` for the score column), then LABEL=SCORE pairs."""
    if not items:
        return None
    mapping: dict[str, float] = {}
    pairs = [p.strip() for item in items for p in item.split(",") if p.strip()]
    if BUILTIN in pairs:
        table = source.value
        column = score or (None if table.is_log else table.defaults.score)
        if table.is_log:
            raise InputError("--map applies to the score column of a CSV; a log's scorer values have their own meaning")
        if column is None:
            raise InputError("--map builtin needs the score column: name it with --score")
        mapping.update(analyses.score_labels(source, column).suggested)
    for pair in pairs:
        if pair == BUILTIN:
            continue
        label, sep, value = pair.rpartition("=")
        if not sep or not label.strip():
            raise InputError(f"--map: expected LABEL=SCORE, got {pair!r}")
        try:
            mapping[label.strip()] = float(value)
        except ValueError:
            raise InputError(f"--map: the score of {label.strip()!r} must be a number in [0, 1], got {value!r}") from None
    return mapping


def run(args) -> int:
    if args.file_order and args.order:
        raise InputError("replay: give either --order COL or --file-order, not both")
    subgroups = [c.strip() for item in args.subgroup for c in item.split(",") if c.strip()] if args.subgroup else None
    if args.no_subgroups:
        if subgroups:
            raise InputError("replay: give either --subgroup COL or --no-subgroups, not both")
        subgroups = []
    source = args.file[0] if len(args.file) == 1 else args.file
    if args.choices:
        emit(_choices(analyses.run_source(source, check=False, labels=args.label)), args.json, render_choices)
        return 0
    def replayed(run_source):
        try:
            return api.replay(run_source, score=args.score, subgroup=subgroups, order=args.order,
                              file_order=args.file_order, filter=args.filter, style=args.style, q=args.q,
                              alpha=args.alpha, m=args.m, delta=args.delta, delta_aud=args.delta_aud, eta=args.eta,
                              weights=args.weights, grid_mod=args.grid_mod, grid_aud=args.grid_aud,
                              model_process=args.model_process, auditor_process=args.auditor_process,
                              score_mapping=_score_mapping(args.score_map, run_source, args.score),
                              drop_missing=args.drop_missing, planned_n=args.planned_n)
        except InputError as exc:
            raise InputError(_with_flags(_with_q_hint(str(exc), args))) from None

    if args.follow:
        if len(args.file) != 1:
            raise InputError("replay --follow: follow one file")
        view = _followed(args.file[0], replayed, args)
    else:
        view = replayed(analyses.run_source(source, name=", ".join(str(f) for f in args.file), check=False,
                                            labels=args.label))
    payload = view.to_dict()
    payload["notes"] = [_with_flags(note) for note in payload["notes"]]
    emit(payload, args.json, render_text)
    met = {FAIL_ON_DECISIONS[payload["decision"]["decision"]]}
    if payload["flags"]["family_wise"] or payload["flags"]["per_subgroup"]:
        met.add(ANY_FLAG)
    return fail_on_status(args, met)


def _followed(path: str, replayed, args):
    """Each reading as one line on stderr (stdout keeps the final document); the last good view."""
    import sys

    last = None
    try:
        for reading in analyses.follow_run(path, replayed, every=args.every, idle=args.idle):
            if reading.error is not None:
                line = f"could not read this version ({reading.error}); " + (
                    "the last reading stands" if last is not None else "waiting for the next change")
            else:
                last = reading.view
                d = last.result.dual
                line = (f"{last.result.n} scores, {d.decision}" + (f" at step {d.stop}" if d.stop else "")
                        + (f", run {reading.status}" if reading.status else ""))
            print(f"[{reading.at}] reading {reading.number}: {line}", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("stopped following", file=sys.stderr)
    if last is None:
        raise InputError(f"replay --follow: no readable version of {path!r} was seen")
    return last


def _choices(source) -> dict:
    """What ``--score`` and ``--subgroup`` can name in this file, and what is taken without them."""
    table = source.value
    if table.is_log:
        return {"file": source.name, "kind": table.kind, **table.choices.to_dict()}
    return {"file": source.name, "kind": table.kind, "scores": list(table.columns), "subgroups": list(table.columns),
            "default_score": table.defaults.score, "default_subgroups": list(table.defaults.subgroups),
            "filters": []}


def render_choices(payload: dict) -> str:
    lines = [f"{payload['file']} ({payload['kind']})",
             f"  --score: {', '.join(payload['scores']) or 'none'}"
             + (f" (default {payload['default_score']})" if payload.get("default_score") else ""),
             f"  --subgroup: {', '.join(payload['subgroups']) or 'none'}",
             f"  subgroups without --subgroup: {', '.join(payload['default_subgroups']) or 'none'} "
             "(--no-subgroups for none)"]
    if payload["filters"]:
        lines.append(f"  --filter: {', '.join(payload['filters'])}")
    return "\n".join(lines)


# Engine messages name roles; the command line names its flags.
_FLAG_HINTS = (("choose one as the score", "choose one with --score"),
               ("choose the subgroup columns", "choose them with --subgroup COL"),
               ("choose one filter", "choose one with --filter"),
               ("leave out the rows without a score", "leave out the rows without a score with --drop-missing"),
               ("planned_n:", "--planned-n:"),
               ("that need a mapping to scores", "that need a mapping to scores: give --map builtin or --map LABEL=SCORE,..."))


def _with_flags(message: str) -> str:
    for role, flag in _FLAG_HINTS:
        message = message.replace(role, flag)
    return message




def render_text(payload: dict) -> str:
    from audit_core.report import format as fmt  # numpy: loaded when output is written

    LOG_E = fmt.LOG_E_LABEL
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
        *[f"Warning: {w}" for w in payload.get("warnings", [])],
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
    tuned = fmt.planned_note(payload["intervals"].get("planned_n"))
    lines += ["", f"Overall accuracy {overall['accuracy']:.3f} (n={overall['n']}): 95% anytime-valid{tuned} "
                  f"{fmt.anytime_interval(overall['cs_low'], overall['cs_high'])}, Wilson (fixed n) "
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
                         f"{fmt.anytime_interval(row['cs_low'], row['cs_high'])} "
                         f"({row['ci_low']:.3f}, {row['ci_high']:.3f}){flag}")
        if len(rows) > _MAX_SUBGROUP_ROWS:
            lines.append(f"  ... {len(rows) - _MAX_SUBGROUP_ROWS} more (see --json)")
    if payload["notes"]:
        lines += ["", "Notes:"] + [f"  - {note}" for note in payload["notes"]]
    return "\n".join(lines)
