"""``measure`` command: estimand-separated results from a model response log.

``python -m audit_core measure LOG [LOG ...] [--policies FILE] [--bootstrap B] [--seed S]
[--confidence C] [--json]``; the JSON document is :meth:`Measurement.to_dict`. Exit 2 on bad input.
A LOG is a response-log CSV or evaluation logs of the testbed's tasks (Inspect AI, lm-eval).
"""

from __future__ import annotations

from audit_core import api
from audit_core.cli import emit
from audit_core.cli.identify_cmd import policy_source


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "measure", help="estimand-separated results from a response log",
        description="Base accuracy, target-follow and sham-stay given base-correct, local response, "
                    "full-support response, readout validity and behavioural composition per model.")
    p.add_argument("log", nargs="+", metavar="LOG",
                   help="long CSV (model, cluster, cell, response + oracle), or evaluation logs of the testbed's "
                        "tasks: Inspect AI .eval/.json logs, lm-eval samples files or output folders (several "
                        "logs are measured together)")
    p.add_argument("--policies", metavar="FILE", help="policy class whose axes define the cells "
                   "(default: the frozen 36-cell layout)")
    p.add_argument("--bootstrap", type=int, default=2000, metavar="B", help="cluster-bootstrap replicates (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--label", action="append", metavar="NAME",
                   help="with several evaluation logs: the model name of each, in order (repeat; default each "
                        "log's model, with its file name where two logs name the same model)")
    p.add_argument("--units", action="store_true", help="also list every model-cluster unit (text output)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)


def run(args) -> int:
    layout = policy_source(args.policies) if args.policies else None
    payload = api.measure_log(args.log[0] if len(args.log) == 1 else args.log, policies=layout, bootstrap=args.bootstrap, seed=args.seed,
                              confidence=args.confidence, labels=args.label).to_dict()
    if not args.json and not args.units:
        payload = {**payload, "units": []}
    emit(payload, args.json, render_text)
    return 0


def _interval(low, high) -> str:
    return "-" if low is None else f"[{low:.3f}, {high:.3f}]"


def _model_block(m: dict, confidence: float) -> list[str]:
    pct = f"{100 * confidence:g}%"
    lines = [f"{m['model']}: {m['n_units']} model-cluster units ({m['n_complete_units']} with all cells), "
             f"{m['n_complete_paired']} of {m['n_paired']} paired units complete"]
    header = f"  {'estimate':<46} {'k/n':>11} {'rate':>6}  {pct + ' Wilson':<17} {pct + ' cluster bootstrap':<17}"
    lines.append(header)
    for e in m["estimates"]:
        rate = "-" if e["rate"] is None else f"{e['rate']:.3f}"
        lines.append(f"  {e['label']:<46} {str(e['successes']) + '/' + str(e['n']):>11} {rate:>6}  "
                     f"{_interval(e['wilson_low'], e['wilson_high']):<17} {_interval(e['boot_low'], e['boot_high'])}")
    total = sum(m["composition"].values())
    lines.append("  composition (paired units): " + ", ".join(
        f"{name} {count}" for name, count in m["composition"].items()) + f" (total {total})")
    return lines


def render_text(payload: dict) -> str:
    lines = [f"Response log {payload['source']}: {payload['n_cells']} cells per cluster, "
             f"{payload['n_contexts']} base/target/sham contexts per cluster; bootstrap "
             f"{payload['bootstrap']['replicates']} replicates over clusters (seed {payload['bootstrap']['seed']})", ""]
    if payload.get("support"):
        lines[-1:-1] = [f"Support: {payload['support']['text']}"]
    if payload.get("identified_tau"):
        lines += _identified_block(payload["identified_tau"]) + [""]
    blocks = payload["models"] + ([payload["pooled"]] if len(payload["models"]) > 1 else [])
    for m in blocks:
        lines += _model_block(m, payload["confidence"]) + [""]
    if payload["transitions"]:
        lines.append("Local paired response per oracle transition (base→target→sham):")
        for t in payload["transitions"]:
            e = next(x for x in t["estimates"] if x["name"] == "local_paired")
            rate = "-" if e["rate"] is None else f"{e['rate']:.3f}"
            lines.append(f"  {t['transition']:<24} {t['model']:<22} {str(e['successes']) + '/' + str(e['n']):>9} "
                         f"{rate:>6}  {_interval(e['boot_low'], e['boot_high'])}")
        lines.append("")
    if payload["units"]:
        lines.append(f"  {'model':<22} {'cluster':<14} {'oracle':<22} cells static local τ_full  local/paired")
        for u in payload["units"]:
            flags = ["-" if u[k] is None else str(u[k]) for k in ("static_correctness", "local_response", "tau_full")]
            lines.append(f"  {u['model']:<22} {u['cluster']:<14} {u['oracle']:<22} {u['cells_observed']:>5} "
                         f"{flags[0]:>6} {flags[1]:>5} {flags[2]:>6}  {u['local']}/{u['n_paired']}")
        lines.append("")
    if payload.get("invariance"):
        lines += _invariance_block(payload["invariance"]["pooled"]) + [""]
    for note in payload["notes"] + (payload.get("invariance") or {}).get("notes", []):
        lines.append(f"note: {note}")
    return "\n".join(lines)


def _identified_block(d: dict) -> list[str]:
    """τ through identification (the log covers only an identifying support), with the assumption."""
    pct = f"{100 * d['confidence']:g}%"
    lines = [f"{d['estimand']} through identification on {d['cells_per_cluster']} of {d['cells_per_cluster_full']} "
             f"cells per cluster ({', '.join(d['cells'])}): {d['model_calls']:,} model calls instead of "
             f"{d['model_calls_full']:,} ({d['model_calls_saved']:,} saved)",
             f"  assumption: {d['assumption']}",
             f"  {d['statement']}",
             f"  {'model':<30} {'k/n':>9} {'τ':>6}  {pct + ' Wilson':<17} {pct + ' cluster bootstrap':<19} outside the class"]
    blocks = d["models"] + ([d["pooled"]] if len(d["models"]) > 1 else [])
    for m in blocks:
        t, o = m["tau"], m["outside"]
        rate = "-" if t["rate"] is None else f"{t['rate']:.3f}"
        lines.append(f"  {m['model']:<30} {str(t['successes']) + '/' + str(t['n']):>9} {rate:>6}  "
                     f"{_interval(t['wilson_low'], t['wilson_high']):<17} {_interval(t['boot_low'], t['boot_high']):<19} "
                     f"{o['successes']}/{o['n']}")
    if d["outside_units"]:
        shown = d["outside_units"][:20]
        more = len(d["outside_units"]) - len(shown)
        lines.append("  units outside the class (no τ given): " + ", ".join(shown) + (f" (and {more} more)" if more else ""))
    return lines


def _invariance_block(m: dict) -> list[str]:
    lines = [f"Mapping and readout invariance, transitions ({m['model']}):"]
    for e in m["estimates"]:
        rate = "-" if e["rate"] is None else f"{e['rate']:.4f}"
        lines.append(f"  {e['label']:<58} {str(e['successes']) + '/' + str(e['n']):>9} {rate:>7}  "
                     f"{_interval(e['boot_low'], e['boot_high'])}")
    bal = m["balanced_transitions"]
    if bal:
        sel, acc = bal["selective_mean"], bal["base_accuracy_mean"]
        if sel["value"] is not None:
            p = "-" if bal["p_delta_positive"] is None else f"{bal['p_delta_positive']:.3f}"
            lines.append(f"  balanced transitions over {len(bal['directions'])} direction(s): selective response "
                         f"{sel['value']:.3f} {_interval(sel['boot_low'], sel['boot_high'])} vs base accuracy "
                         f"{acc['value']:.3f} {_interval(acc['boot_low'], acc['boot_high'])}, P(Δ > 0) = {p}")
    asym = m["asymmetry"]
    if asym:
        parts = [f"after {e['name'].split(':')[1]} {e['rate']:.3f} ({e['successes']}/{e['n']})"
                 for e in asym["by_base"] if e["rate"] is not None]
        lines.append("  selective response by base oracle: " + ", ".join(parts))
    return lines
