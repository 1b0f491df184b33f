"""``audit``: live adaptive audits stored in a workspace database (issue 10).

    python -m audit_core audit new --pool FILE|KEY [--style gpqa|sdoh] [--strategy adaptive] [--seed S] [--db PATH]
    python -m audit_core audit next --audit ID [--batch K] [--annotator NAME]
    python -m audit_core audit label --audit ID CASE_ID SCORE [--annotator NAME]
    python -m audit_core audit skip --audit ID CASE_ID --reason TEXT [--annotator NAME]
    python -m audit_core audit undo --audit ID
    python -m audit_core audit status --audit ID [--verify]
    python -m audit_core audit list
    python -m audit_core audit export --audit ID --out FILE.csv
    python -m audit_core audit copy --from FILE_OR_URL --to FILE_OR_URL [--audit ID ...]

The database is ``--db PATH`` (a SQLite file) or ``--db postgresql://...`` (a PostgreSQL
database, shared by several servers), else ``$AUDIT_DB``, else ``audits.sqlite`` in ``$AUDIT_HOME`` (default
``~/.audit_workbench``). ``next`` claims the case(s) for the annotator (offered again until
labelled). ``label`` records a score (0/1 or graded in [0, 1]) and shows the next case without
claiming it, so ``undo`` can still take the label back. ``skip`` gives a proposed case no label,
for a reason (unreadable, out of scope, ...); it is kept and listed, and undone like a label.
``--pool`` takes a CSV or an Inspect AI log (``.eval`` / ``.json``: one case per model output).
Every action goes through :mod:`audit_core.analyses.live`, as the Live audit page does. Exit 0
success, 2 bad input (a case id not in the pool, already labelled or not proposed, a bad score, ...).

Who acts (issue 23): events record the operating-system user running the command (marked
``os-user``), or the name given by ``--annotator`` / ``$AUDIT_ANNOTATOR`` (marked ``declared``);
neither is verified, and the command line has every right (whoever runs it can write the
workspace file anyway). Only a sign-in on the dashboard records a verified identity.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from audit_core import api
from audit_core.cli import FAIL_ON_DECISIONS, add_fail_on, emit, fail_on_status
from audit_core.errors import InputError
from audit_core.presets import MODEL_PROCESSES, STRATEGY_NAMES, STYLES


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _common(parser, audit: bool = True) -> None:
    parser.add_argument("--db", metavar="PATH|URL", help="workspace database: a SQLite file or a postgresql:// URL "
                        "(default: $AUDIT_DB, else $AUDIT_HOME/audits.sqlite)")
    if audit:
        parser.add_argument("--audit", type=int, required=True, metavar="ID", help="audit id (see `audit list`)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")

if TYPE_CHECKING:
    from audit_core.live.roles import Identity


def _annotator(parser) -> None:
    parser.add_argument("--annotator", default=os.environ.get("AUDIT_ANNOTATOR") or None, metavar="NAME",
                        help="who labels, recorded as self-declared (default $AUDIT_ANNOTATOR, else the "
                             "operating-system user)")


def _who(args) -> Identity:
    """The identity events record: a given name (self-declared), else the OS user."""
    from audit_core.live.roles import declared, os_user

    return declared(args.annotator) if args.annotator else os_user()


def register(subparsers) -> None:
    parser = subparsers.add_parser("audit", help="live adaptive audits: propose, label, undo, status, export",
                                   description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="audit_command", metavar="ACTION", required=True,
                                     parser_class=type(parser))
    new = commands.add_parser("new", help="create an audit of a pool; prints its audit_id")
    new.add_argument("--pool", required=True, metavar="FILE|KEY",
                     help="pool CSV, Inspect AI log (.eval/.json) or bundled key (gpqa:large, sdoh, ...)")
    new.add_argument("--style", choices=STYLES, help="parameter defaults (default: the pool's, else gpqa)")
    new.add_argument("--strategy", choices=STRATEGY_NAMES, default="adaptive", help="default adaptive")
    new.add_argument("--process", choices=MODEL_PROCESSES, default="SR-LR-UI", help="model e-process (default SR-LR-UI)")
    new.add_argument("--seed", type=int, default=0, help="strategy seed (default 0)")
    for flag, kind, text in (("--q", float, "performance threshold q"), ("--alpha", float, "level alpha"),
                             ("--m", int, "auditor's budget m"), ("--budget", int, "annotations at most"),
                             ("--n-init", int, "initial random cases of the adaptive auditor")):
        new.add_argument(flag, type=kind, help=text)
    new.add_argument("--score", metavar="COL", help="the pool's score column, if any (never read by the strategy)")
    new.add_argument("--subgroup", action="append", metavar="COL", help="subgroup column (repeatable)")
    new.add_argument("--features", metavar="COL,COL", help="feature columns (default: auto-detect)")
    new.add_argument("--id", metavar="COL", help="case id column (default: auto-detect, else row numbers)")
    new.add_argument("--text", metavar="COL", help="text shown with a proposed case")
    new.add_argument("--suspect", action="append", metavar="SUBGROUP", help="suspect subgroup (informed strategy)")
    new.add_argument("--truth-column", metavar="COL",
                     help="a column the strategy may read as the truth (oracle; tests of live = simulate)")
    _common(new, audit=False)
    new.set_defaults(func=run_new)
    nxt = commands.add_parser("next", help="the next proposed case(s), or the decision once stopped")
    nxt.add_argument("--batch", type=_positive, default=1, metavar="K", help="claim K cases at once (default 1)")
    _annotator(nxt)
    _common(nxt)
    nxt.set_defaults(func=run_next)
    label = commands.add_parser("label", help="record a label; prints the status and the next case")
    label.add_argument("case_id", metavar="CASE_ID")
    label.add_argument("score", metavar="SCORE", help="0/1 or a graded score in [0, 1]")
    _annotator(label)
    _common(label)
    label.set_defaults(func=run_label)
    skip = commands.add_parser("skip", help="skip a proposed case without a label, for a reason")
    skip.add_argument("case_id", metavar="CASE_ID")
    skip.add_argument("--reason", required=True, metavar="TEXT", help="why (unreadable, out of scope, ...)")
    _annotator(skip)
    _common(skip)
    skip.set_defaults(func=run_skip)
    undo = commands.add_parser("undo", help="undo the last label or skip (only before the next case is proposed)")
    _annotator(undo)
    _common(undo)
    undo.set_defaults(func=run_undo)
    status = commands.add_parser("status", help="n, log E of each process, decision and stop")
    status.add_argument("--verify", action="store_true",
                        help="replay the log through the strategy, checking every proposal (slower; the "
                             "status is the same)")
    _common(status)
    add_fail_on(status, tuple(FAIL_ON_DECISIONS.values()), "the dual test's decision so far")
    status.set_defaults(func=run_status)
    listing = commands.add_parser("list", help="the audits of the workspace")
    _common(listing, audit=False)
    listing.set_defaults(func=run_list)
    export = commands.add_parser("export", help="labelled CSV in the recorded-run format")
    export.add_argument("--out", required=True, metavar="FILE.csv")
    _common(export)
    export.set_defaults(func=run_export)
    copy = commands.add_parser("copy", help="copy audits with every event and their pools to another workspace")
    copy.add_argument("--from", dest="source", required=True, metavar="PATH|URL", help="the workspace to copy from")
    copy.add_argument("--to", dest="target", required=True, metavar="PATH|URL", help="the workspace to copy into")
    copy.add_argument("--audit", type=int, action="append", metavar="ID", help="only this audit (repeatable)")
    copy.add_argument("--json", action="store_true", help="print one JSON document")
    copy.set_defaults(func=run_copy)


def run_new(args) -> int:
    subgroups = [c.strip() for item in args.subgroup or () for c in item.split(",") if c.strip()] or None
    try:
        action = api.audit_new(args.pool, strategy=args.strategy, process=args.process, seed=args.seed, db=args.db,
                               style=args.style, score=args.score, subgroup=subgroups, features=args.features,
                               id=args.id, text=args.text, truth_column=args.truth_column, suspect=args.suspect,
                               q=args.q, alpha=args.alpha, m=args.m, budget=args.budget, n_init=args.n_init)
    except InputError as exc:
        if "truth column" in str(exc):
            raise InputError(f"{exc} (--truth-column COL)") from None
        raise
    emit(action.audit, args.json, lambda p: (f"audit_id {p['audit_id']}: {p['strategy']} / {p['process']} on "
                                             f"{p['pool']} (seed {p['seed']}, q {p['params']['q']}, "
                                             f"budget {p['params']['budget']})"))
    return 0


def _status_lines(status: dict) -> list[str]:
    from audit_core.report import format as fmt  # numpy: loaded when output is written

    stop = f" at step {status['stop']}" if status["stop"] else ""
    # log₁₀ E for people (the JSON keeps natural logs); "—" before the first label
    log_e = {k: fmt.evalue(status[k]) for k in ("log_e_model", "log_e_auditor")}
    lines = [f"audit {status['audit_id']}: {status['decision'].upper()}{stop}; n = {status['n']} of "
             f"{status['budget']}" + (f" (+{status['n_heldout']} held out)" if status["n_heldout"] else "")
             + (f", {status['n_skipped']} skipped" if status["n_skipped"] else ""),
             f"  {fmt.LOG_E_LABEL} {status['process']} = {log_e['log_e_model']}, {status['auditor_process']} = "
             f"{log_e['log_e_auditor']} (threshold {fmt.evalue(status['log_threshold'])})"]
    if status["pending"]:
        lines.append(f"  pending: {', '.join(status['pending'][:10])}" + (" ..." if len(status["pending"]) > 10 else ""))
    if status["done"]:
        lines.append("  the audit is over" + (" (no case left)" if not status["stopped"] else ""))
    return lines


def _case_lines(cases: list[dict], heading: str) -> list[str]:
    lines = [heading] if cases else []
    for case in cases:
        predicted = "" if case["predicted"] is None else f", predicted {case['predicted']:.3f}"
        lines.append(f"  {case['case_id']}  [{case['subgroup']}]  ({case['phase']}{predicted})")
        if case["text"]:
            lines.append(f"      {case['text'][:160]}")
    return lines


def run_next(args) -> int:
    who = _who(args)
    payload = api.audit_next(args.audit, batch=args.batch, annotator=who, db=args.db).to_dict()

    def text(p: dict) -> str:
        if p["cases"]:
            lines = _case_lines(p["cases"], f"proposed to {who.name}:")
            if len(p["cases"]) > 1:   # one line to paste: inspect eval TASK --sample-id ID,ID,...
                ids = dict.fromkeys(c["case_id"].split("#")[0] for c in p["cases"])
                lines.append(f"sample ids: {','.join(ids)}")
            return "\n".join(lines)
        why = "" if p["status"]["done"] else "\n  (nothing new until pending labels come in)"
        return "\n".join(_status_lines(p["status"])) + why

    emit(payload, args.json, text)
    return 0


def _resolved_text(p: dict) -> str:
    done = (f"labelled {p['labelled']['case_id']} = {p['labelled']['score']:g}" if "labelled" in p
            else f"skipped {p['skipped']['case_id']} ({p['skipped']['reason']})")
    heading = "next (yours):" if p["next_claimed"] else "next (claim it with `audit next`):"
    return "\n".join([done] + _status_lines(p["status"]) + _case_lines(p["next"], heading))


def run_label(args) -> int:
    action = api.audit_label(args.audit, args.case_id, args.score, annotator=_who(args), db=args.db)
    emit(action.to_dict(), args.json, _resolved_text)
    return 0


def run_skip(args) -> int:
    action = api.audit_skip(args.audit, args.case_id, args.reason, annotator=_who(args), db=args.db)
    emit(action.to_dict(), args.json, _resolved_text)
    return 0


def run_undo(args) -> int:
    payload = api.audit_undo(args.audit, annotator=_who(args), db=args.db).to_dict()

    def text(p: dict) -> str:
        record = p["undone"]
        what = f"{record['score']:g}" if "score" in record else f"skipped ({record['reason']})"
        return "\n".join([f"undone: {record['case_id']} = {what} (pending again)"] + _status_lines(p["status"]))

    emit(payload, args.json, text)
    return 0


def run_status(args) -> int:
    action = api.audit_status(args.audit, db=args.db, verify=args.verify)
    payload = {**action.status.to_dict(), "audit": action.audit}
    emit(payload, args.json, lambda p: "\n".join(_status_lines(p)))
    return fail_on_status(args, {FAIL_ON_DECISIONS[payload["decision"]]})


def run_list(args) -> int:
    audits = api.audit_list(db=args.db).to_dict("records")

    def text(rows: dict) -> str:
        if not rows["audits"]:
            return "no audits in this workspace (create one with `audit new --pool FILE`)"
        return "\n".join(f"{a['audit_id']:>4}  {a['strategy']:<12}{a['process']:<10}{a['labels']:>5} labels  "
                         + (f"{a['skipped']} skipped  " if a["skipped"] else "")
                         + f"{a['pool']}  ({a['created']})" for a in rows["audits"])

    emit({"audits": audits}, args.json, text)
    return 0


def run_export(args) -> int:
    result = api.audit_export(args.audit, args.out, db=args.db)
    emit(result.to_dict(), args.json, lambda p: f"wrote {p['n']} labelled cases to {p['path']}")
    return 0


def run_copy(args) -> int:
    rows = api.audit_copy(args.source, args.target, audits=args.audit)

    def text(p: dict) -> str:
        if not p["copied"]:
            return "no audits to copy"
        return "\n".join(f"audit {r['source_id']} -> {r['target_id']}: {r['events']} events, {r['decision']}"
                         for r in p["copied"])

    emit({"copied": rows}, args.json, text)
    return 0
