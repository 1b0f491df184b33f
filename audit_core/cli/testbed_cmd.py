"""``testbed`` command: solver-grounded items for paper 000's protocol.

``python -m audit_core testbed generate --clusters N --seed S [--directions T-U,F-T,...]
[--depth D] [--distractors K] [--vocabulary w1,w2,...] --out items.jsonl [--inspect samples.jsonl]
[--inspect-task task.py] [--lmeval-task DIR] [--support CELLS|cheapest [--cost KEY=N,...]]`` writes
one item per cell (36 per cluster, or the cells of the support) and
optionally the same items as Inspect AI samples, a runnable Inspect AI task, an lm-eval task folder.
``python -m audit_core testbed check items.jsonl`` re-derives every label and edit: exit 0 when all
hold, 1 on any mismatch, 2 on a malformed file.
"""

from __future__ import annotations

from pathlib import Path

from audit_core import api
from audit_core.cli import emit
from audit_core.cli.identify_cmd import parse_cost
from audit_core.errors import InputError
from audit_core.testbed.generator import DEFAULT_VOCABULARY, GeneratorParams  # no numpy at import

# The engine names the role of a bad value; the CLI adds the flag that set it.
FLAG_OF = {"support": "--support", "cost": "--cost", "direction": "--directions", "number of clusters": "--clusters", "seed": "--seed", "generator depth": "--depth",
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
    g.add_argument("--inspect-task", metavar="task.py", help="also write an Inspect AI task file (and its "
                   "samples, task.jsonl beside it): run it with inspect eval task.py --model ...")
    g.add_argument("--lmeval-task", metavar="DIR", help="also write an lm-eval task folder (YAML and data): run "
                   "it with lm_eval --tasks testbed --include_path DIR --log_samples")
    g.add_argument("--support", metavar="CELLS", help="only the cells of this support: comma list of cell ids "
                   "(world:mapping:readout), or 'cheapest' for the cheapest support that identifies τ_full on the "
                   "frozen class (as synthesize; default all 36 cells)")
    g.add_argument("--cost", metavar="KEY=N,...", help="with --support cheapest: cost per axis value or cell id, "
                   "as synthesize --cost (default 1 per cell)")
    g.add_argument("--json", action="store_true", help="print one JSON document")
    g.set_defaults(func=run_generate)
    c = actions.add_parser("check", help="re-derive every label and edit of an items file")
    c.add_argument("items", metavar="items.jsonl")
    c.add_argument("--json", action="store_true", help="print one JSON document")
    c.set_defaults(func=run_check)
    p.set_defaults(func=lambda _args: _missing_action(p))


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
        view = api.generate_testbed(args.clusters, seed=args.seed, directions=_list(args.directions, "--directions"),
                                    depth=args.depth, distractors=args.distractors,
                                    vocabulary=_list(args.vocabulary, "--vocabulary"), out=args.out,
                                    inspect=args.inspect, inspect_task=args.inspect_task,
                                    lmeval_task=args.lmeval_task, support=args.support,
                                    cost=parse_cost(args.cost))
    except InputError as exc:
        flag = next((f for prefix, f in FLAG_OF.items() if str(exc).startswith(prefix)), None)
        raise InputError(f"{flag}: {exc}" if flag else str(exc)) from None
    emit({**view.to_dict(), "out": args.out, "inspect": args.inspect, "inspect_task": args.inspect_task,
          "lmeval_task": args.lmeval_task, "task_files": list(view.task_files)}, args.json, _render_generate)
    return 0


def _render_generate(payload: dict) -> str:
    n_cells = payload.get("cells_per_cluster", 36)
    lines = [(f"wrote {payload['items']} items ({payload['clusters']} clusters x {n_cells} cells, seed "
              f"{payload['seed']}) to {payload['out']}")]
    if payload.get("support_origin") not in (None, "full"):
        calls = payload["clusters"] * 36
        lines.append(f"support ({payload['support_origin']}, for the {payload['class']}): "
                     f"{', '.join(payload['support'])}: {n_cells} of 36 cells per cluster, {payload['items']} model "
                     f"calls per model instead of {calls} ({calls - payload['items']} saved); manifest.json beside "
                     "the files records it")
    if payload["inspect"]:
        lines.append(f"wrote the same items as Inspect AI samples to {payload['inspect']}")
    if payload.get("inspect_task"):
        lines.append(f"wrote the Inspect AI task {payload['inspect_task']}: inspect eval {payload['inspect_task']} "
                     "--model <provider>/<model>, then measure the .eval log it writes")
    if payload.get("lmeval_task"):
        lines.append(f"wrote the lm-eval task folder {payload['lmeval_task']}: lm_eval --model ... --tasks testbed "
                     f"--include_path {payload['lmeval_task']} --log_samples --output_path out, then measure out/")
    lines.append("directions: " + ", ".join(f"{d} {n}" for d, n in payload["directions"].items()))
    lines.append("target edits: " + ", ".join(f"{k} {n}" for k, n in payload["target_edits"].items()))
    lines.append("sham edits: " + ", ".join(f"{k} {n}" for k, n in payload["sham_edits"].items()))
    return "\n".join(lines)


def run_check(args) -> int:
    view = api.check_testbed(Path(args.items))
    emit(view.to_dict(), args.json, _render_check)
    return 0 if view.report.ok else 1


def _render_check(payload: dict) -> str:
    head = (f"{payload['items_file']}: {payload['n_items']} items, {payload['n_clusters']} clusters: "
            + ("every label and edit re-derived" if payload["ok"] else f"{payload['n_mismatches']} mismatch(es)"))
    shown = payload["mismatches"]
    more = payload["n_mismatches"] - len(shown)
    return "\n".join([head] + [f"  {m}" for m in shown] + ([f"  ... and {more} more"] if more > 0 else []))
