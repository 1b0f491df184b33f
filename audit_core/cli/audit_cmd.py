"""``audit``: live adaptive audits stored in a workspace database (issue 10).

    python -m audit_core audit new --pool FILE|KEY [--style gpqa|sdoh] [--strategy adaptive] [--seed S] [--db PATH]
                                   [--overlap PERCENT [--labellers K] [--label-choice first|adjudicated]]
    python -m audit_core audit next --audit ID [--batch K] [--annotator NAME]
    python -m audit_core audit label --audit ID CASE_ID SCORE [--annotator NAME]
    python -m audit_core audit skip --audit ID CASE_ID --reason TEXT [--annotator NAME]
    python -m audit_core audit undo --audit ID
    python -m audit_core audit status --audit ID [--verify]
    python -m audit_core audit list
    python -m audit_core audit export --audit ID --out FILE.csv
    python -m audit_core audit copy --from FILE_OR_URL --to FILE_OR_URL [--audit ID ...]
    python -m audit_core audit agreement --audit ID [--bootstrap B] [--seed S]
    python -m audit_core audit adjudicate --audit ID CASE_ID SCORE --reason TEXT [--annotator NAME]
    python -m audit_core audit trail --audit ID [--out FILE.csv|FILE.json]

The database is ``--db PATH`` (a SQLite file) or ``--db postgresql://...`` (a PostgreSQL
database, shared by several servers), else ``$AUDIT_DB``, else ``audits.sqlite`` in ``$AUDIT_HOME`` (default
``~/.audit_workbench``). ``next`` claims the case(s) for the annotator (offered again until
labelled). ``label`` records a score (0/1 or graded in [0, 1]) and shows the next case without
claiming it, so ``undo`` can still take the label back. ``skip`` gives a proposed case no label,
for a reason (unreadable, out of scope, ...); it is kept and listed, and undone like a label.
``--pool`` takes a CSV or an Inspect AI log (``.eval`` / ``.json``: one case per model output).
Double labelling (issue 34): ``new --overlap 30`` gives 30 % of cases (chosen by their ids before
any label) to ``--labellers`` people each (default 2); ``--label-choice`` says which label the
e-processes see (``first``, default, or ``adjudicated``: a case waits until settled). ``agreement``
prints percent agreement, Cohen's κ and Krippendorff's α with bootstrap intervals, per subgroup and
per labeller, and the disagreements; ``adjudicate`` settles one; ``trail`` lists every event.
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


def _percent(text: str) -> float:
    """A share of cases as a percent, 0-100 (a trailing % allowed), returned as a share 0-1."""
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percent of cases from 0 to 100, got {text!r}") from None
    if not 0.0 <= value <= 100.0:
        raise argparse.ArgumentTypeError(f"expected a percent of cases from 0 to 100, got {text!r}")
    return value / 100.0


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
    new.add_argument("--overlap", type=_percent, default=0.0, metavar="PERCENT",
                     help="percent of cases labelled by several people (0-100; default 0)")
    new.add_argument("--labellers", type=int, default=2, metavar="K",
                     help="labellers per double-labelled case (default 2)")
    new.add_argument("--label-choice", choices=("first", "adjudicated"), default="first",
                     help="the label the e-processes see: the first (default) or the settled one")
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
    agree = commands.add_parser("agreement", help="agreement between the labellers of double-labelled cases")
    agree.add_argument("--bootstrap", type=int, default=1000, metavar="B",
                       help="bootstrap resamples of cases for each interval (default 1000)")
    agree.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    _common(agree)
    agree.set_defaults(func=run_agreement)
    settle = commands.add_parser("adjudicate", help="settle a disagreement between labellers, with a reason")
    settle.add_argument("case_id", metavar="CASE_ID")
    settle.add_argument("score", metavar="SCORE", help="the settled label: 0/1 or a graded score in [0, 1]")
    settle.add_argument("--reason", required=True, metavar="TEXT", help="why this label")
    _annotator(settle)
    _common(settle)
    settle.set_defaults(func=run_adjudicate)
    trail = commands.add_parser("trail", help="every event of an audit: who did what, when")
    trail.add_argument("--out", metavar="FILE.csv|FILE.json", help="write the trail (CSV or JSON by the suffix)")
    _common(trail)
    trail.set_defaults(func=run_trail)


def run_new(args) -> int:
    subgroups = [c.strip() for item in args.subgroup or () for c in item.split(",") if c.strip()] or None
    try:
        action = api.audit_new(args.pool, strategy=args.strategy, process=args.process, seed=args.seed, db=args.db,
                               style=args.style, score=args.score, subgroup=subgroups, features=args.features,
                               id=args.id, text=args.text, truth_column=args.truth_column, suspect=args.suspect,
                               q=args.q, alpha=args.alpha, m=args.m, budget=args.budget, n_init=args.n_init,
                               overlap=args.overlap, labellers=args.labellers, label_choice=args.label_choice)
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
    if "labelled" in p and p["labelled"]["step"] is None:   # a double-labelled case's label
        done += (" (double-labelled: waits for the other labels or an adjudication)" if p["labelled"]["waits"]
                 else " (double-labelled: a further label, for agreement)" if not p["labelled"]["first"]
                 else " (double-labelled)")
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


def _agreement_lines(p: dict) -> list[str]:
    from audit_core.report import format as fmt  # numpy: loaded when output is written

    def stat(name: str, value: dict | None) -> str:
        if value is None or value["estimate"] is None:
            return f"{name} —"
        low = "—" if value["low"] is None else fmt.number(value["low"])
        high = "—" if value["high"] is None else fmt.number(value["high"])
        return f"{name} {fmt.number(value['estimate'])} [{low}, {high}]"

    plan = p["overlap"]
    lines = [f"audit {p['audit_id']}: {plan['share']:.0%} of cases double-labelled by {plan['labellers']}, "
             f"e-processes see the {'first' if plan['label_choice'] == 'first' else 'settled'} label"]
    if not p["n_cases"]:
        return lines + ["  no case has two labels yet"]
    level = p["percent_agreement"]["confidence"] if p["percent_agreement"] else 0.95
    lines.append(f"  {p['n_cases']} cases, {p['n_labels']} labels, {p['n_annotators']} labellers "
                 f"({level:.0%} bootstrap intervals over cases, {p['bootstrap']} resamples)")
    for g in [{"subgroup": "(all)", **p}, *p["subgroups"]]:
        parts = [stat("agreement", g["percent_agreement"])]
        if g["cohen_kappa"] is not None:
            parts.append(stat("kappa", g["cohen_kappa"]))
        parts.append(stat(f"alpha ({p['level']})", g["krippendorff_alpha"]))
        lines.append(f"  {g['subgroup']} (n = {g['n_cases']}): " + ", ".join(parts))
    for a in p["annotators"]:
        if a["shared"]:
            lines.append(f"  {a['annotator']}: agrees {fmt.number(a['agreement'])} on {a['shared']} shared cases, "
                         f"bias {a['bias']:+.3f}")
    for d in p["disagreements"]:
        labels = ", ".join(f"{x['annotator']} {x['score']:g}" for x in d["labels"])
        done = d["settled"]
        lines.append(f"  disagreement {d['case_id']} [{d['subgroup']}]: {labels}"
                     + (f" -> {done['score']:g} by {done['adjudicator']} ({done['reason']})" if done else
                        " (to settle with `audit adjudicate`)"))
    if p["waiting"]:
        lines.append(f"  waiting for adjudication before the e-processes see them: {', '.join(p['waiting'][:10])}")
    return lines


def run_agreement(args) -> int:
    result = api.audit_agreement(args.audit, db=args.db, bootstrap=args.bootstrap, seed=args.seed)
    emit(result.to_dict(), args.json, lambda p: "\n".join(_agreement_lines(p)))
    return 0


def run_adjudicate(args) -> int:
    result = api.audit_adjudicate(args.audit, args.case_id, args.score, args.reason, annotator=_who(args), db=args.db)

    def text(p: dict) -> str:
        done = p["adjudicated"]
        enters = ("; the e-processes see this label" if done["entered_e_processes"]
                  else "; the e-processes keep the first label (label choice 'first')")
        return "\n".join([f"adjudicated {done['case_id']} = {done['score']:g} by {done['adjudicator']}{enters}"]
                         + _status_lines(p["status"]))

    emit(result.to_dict(), args.json, text)
    return 0


def run_trail(args) -> int:
    from audit_core.analyses.live_agreement import audit_trail_bytes, audit_trail_records

    frame = api.audit_trail(args.audit, db=args.db)
    if args.out:
        from pathlib import Path

        from audit_core.data.files import write_file
        out = Path(args.out)
        write_file(out, audit_trail_bytes(args.audit, frame, out.suffix), "trail file")
    emit({"audit_id": args.audit, "events": audit_trail_records(frame)}, args.json,
         lambda p: (f"wrote {len(p['events'])} events to {args.out}" if args.out else
                    "\n".join(f"{e['event']:>5}  {e['time (UTC)']}  {e['kind']:<17}{e['case'] or '':<14}"
                              f"{e['annotator'] or '':<24}" + ("" if e["score"] is None else f"{e['score']:g}  ")
                              + (e["reason"] or "") for e in p["events"])))
    return 0
