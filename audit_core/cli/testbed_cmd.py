"""``testbed`` command: solver-grounded items for paper 000's protocol.

``python -m audit_core testbed generate --clusters N --seed S [--directions T-U,F-T,...]
[--depth D] [--distractors K] [--vocabulary w1,w2,...] --out items.jsonl [--inspect samples.jsonl]``
writes one item per cell (36 per cluster) and optionally the same items as Inspect AI samples.
``python -m audit_core testbed check items.jsonl`` re-derives every label and edit: exit 0 when all
hold, 1 on any mismatch, 2 on a malformed file.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from audit_core import analyses
from audit_core.cli import emit
from audit_core.errors import InputError
from audit_core.testbed.generator import DEFAULT_VOCABULARY, GeneratorParams, direction_name  # no numpy at import

# The engine names the role of a bad value; the CLI adds the flag that set it.
FLAG_OF = {"direction": "--directions", "number of clusters": "--clusters", "seed": "--seed", "generator depth": "--depth",
           "generator distractors": "--distractors", "generator vocabulary": "--vocabulary"}


def register(subparsers) -> None:
    p = subparsers.add_parser("testbed", help="generate and check signed-Horn testbed items",
                              description="Open-world signed-Horn theories with a three-valued solver oracle: "
                                          "seeded clusters (base, target edit, sham edit), one item per cell.")
    actions = p.add_subparsers(dest="testbed_action", metavar="ACTION", parser_class=type(p))
    g = actions.add_parser("generate", help="write items (JSONL) for N seeded clusters")
    g.add_argument("--clusters", type=int, required=True, metavar="N", help="number of clusters")
    g.add_argument("--seed", type=int, default=0, metavar="S", help="generator seed (default 0)")
    g.add_argument("--directions", metavar="LIST", help="comma list of BASE-TARGET directions, e.g. "
                   "TRUE-UNKNOWN,F-T (default: all six), assigned to clusters in turn")
    g.add_argument("--depth", type=int, default=GeneratorParams.depth, metavar="D",
                   help=f"derivation depth of the query (default {GeneratorParams.depth})")
    g.add_argument("--distractors", type=int, default=GeneratorParams.distractors, metavar="K",
                   help=f"distractor rules per theory (default {GeneratorParams.distractors})")
    g.add_argument("--vocabulary", metavar="WORDS", help=f"comma list of atom names (default: "
                   f"{len(DEFAULT_VOCABULARY)} built-in adjectives)")
    g.add_argument("--out", required=True, metavar="items.jsonl", help="items file to write")
    g.add_argument("--inspect", metavar="samples.jsonl", help="also write the items as Inspect AI samples")
    g.add_argument("--json", action="store_true", help="print one JSON document")
    g.set_defaults(func=run_generate)
    c = actions.add_parser("check", help="re-derive every label and edit of an items file")
    c.add_argument("items", metavar="items.jsonl")
    c.add_argument("--json", action="store_true", help="print one JSON document")
    c.set_defaults(func=run_check)
    p.set_defaults(func=lambda args: _missing_action(p))


def _missing_action(parser) -> int:
    raise InputError(f"{parser.prog}: choose an action: generate or check")


def _list(text: str | None, flag: str) -> list[str] | None:
    if text is None:
        return None
    values = [t.strip() for t in text.split(",") if t.strip()]
    if not values:
        raise InputError(f"{flag}: give at least one value")
    return values


def run_generate(args) -> int:
    try:
        view = analyses.generate_testbed(args.clusters, args.seed, _list(args.directions, "--directions"),
                                         args.depth, args.distractors, _list(args.vocabulary, "--vocabulary"))
    except InputError as exc:
        flag = next((f for prefix, f in FLAG_OF.items() if str(exc).startswith(prefix)), None)
        raise InputError(f"{flag}: {exc}" if flag else str(exc)) from None
    try:
        Path(args.out).write_text(view.jsonl, encoding="utf-8")
        if args.inspect:
            Path(args.inspect).write_text(view.inspect_jsonl, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--out/--inspect: cannot write ({exc})") from None
    clusters = view.clusters
    payload = {"clusters": len(clusters), "items": len(view.items), "seed": args.seed,
               "params": view.params.validated().to_dict(), "out": args.out, "inspect": args.inspect,
               "directions": dict(Counter(direction_name(c.direction) for c in clusters)),
               "target_edits": dict(Counter(c.target_edit.kind for c in clusters)),
               "sham_edits": dict(Counter(c.sham_edit.kind for c in clusters))}
    emit(payload, args.json, _render_generate)
    return 0


def _render_generate(payload: dict) -> str:
    lines = [(f"wrote {payload['items']} items ({payload['clusters']} clusters x 36 cells, seed "
              f"{payload['seed']}) to {payload['out']}")]
    if payload["inspect"]:
        lines.append(f"wrote the same items as Inspect AI samples to {payload['inspect']}")
    lines.append("directions: " + ", ".join(f"{d} {n}" for d, n in payload["directions"].items()))
    lines.append("target edits: " + ", ".join(f"{k} {n}" for k, n in payload["target_edits"].items()))
    lines.append("sham edits: " + ", ".join(f"{k} {n}" for k, n in payload["sham_edits"].items()))
    return "\n".join(lines)


def run_check(args) -> int:
    report = analyses.check_testbed(Path(args.items)).report
    emit({"items_file": args.items, **report.to_dict()}, args.json, _render_check)
    return 0 if report.ok else 1


def _render_check(payload: dict) -> str:
    head = (f"{payload['items_file']}: {payload['n_items']} items, {payload['n_clusters']} clusters: "
            + ("every label and edit re-derived" if payload["ok"] else f"{payload['n_mismatches']} mismatch(es)"))
    shown = payload["mismatches"]
    more = payload["n_mismatches"] - len(shown)
    return "\n".join([head] + [f"  {m}" for m in shown] + ([f"  ... and {more} more"] if more > 0 else []))
