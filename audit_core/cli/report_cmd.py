"""``report --out FILE``: the dashboard's report from the command line (HTML, Markdown, zip, JSON).

Sections are the ones the dashboard builds (``audit_core.analyses``): identifiability of the
chosen support (always), ``--synthesize`` minimal identifying supports, ``--measure LOG|example``
estimand-separated results of a model response log, ``--replay CSV|KEY`` a recorded run,
``--simulate POOL`` a simulation study of the paper's rows. The format follows the ``--out``
suffix (.html, .md, .zip, .json, .pdf) unless ``--format`` is given.
"""

from __future__ import annotations

from audit_core import api
from audit_core.cli import emit
from audit_core.cli.identify_cmd import parse_cost, policy_source
from audit_core.errors import InputError
from audit_core.presets import BUNDLED_POOLS


def register(subparsers) -> None:
    p = subparsers.add_parser("report", help="write a self-contained audit report (HTML / Markdown / zip / JSON / PDF)",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, metavar="FILE", help="output file (.html, .md, .zip, .json or .pdf)")
    p.add_argument("--format", choices=sorted(set(api.REPORT_FORMATS.values())), help="override the format chosen by --out")
    p.add_argument("--title", default="Evaluation audit report", help="report title")
    p.add_argument("--policies", metavar="FILE", help="policy class (JSON or long CSV); default: the frozen class")
    p.add_argument("--components", metavar="A,B", help="support components (default all; 'none' = base only)")
    p.add_argument("--estimand", default="tau_full", help="estimand τ (default tau_full)")
    p.add_argument("--synthesize", action="store_true", help="add the minimal identifying supports")
    p.add_argument("--cost", metavar="KEY=N,...", help="synthesis cost per axis value or cell, e.g. generated=1,scoring=3")
    p.add_argument("--measure", metavar="LOG|example",
                   help="response log CSV (model, cluster, cell, response + oracle), an Inspect AI log or "
                        "lm-eval output of the testbed's tasks, or 'example' for the bundled synthetic log; "
                        "cells follow --policies when given")
    p.add_argument("--bootstrap", type=int, default=2000, metavar="B",
                   help="cluster-bootstrap replicates of --measure (default 2000; 0 = Wilson intervals only)")
    p.add_argument("--replay", metavar="FILE|KEY", help="labelled CSV, Inspect AI log, lm-eval samples file or folder, "
                                                         "or bundled key (sdoh, gpqa:large, ..., recorded_run)")
    p.add_argument("--score", help="score column of --replay (auto-detected if omitted)")
    p.add_argument("--subgroup", action="append", metavar="COL", help="subgroup column of --replay (repeatable)")
    p.add_argument("--order", help="order column of --replay (auto-detected if omitted)")
    p.add_argument("--planned-n", type=int, metavar="N",
                   help="cases the --replay audit planned before any data: its overall interval is tuned to N")
    p.add_argument("--style", choices=("gpqa", "sdoh"), help="parameter defaults (default: the bundled data's style, else gpqa)")
    p.add_argument("--simulate", metavar="POOL", help="pool of a simulation study: gpqa:large|medium|small|none|sdoh")
    p.add_argument("--combine", nargs="+", metavar="RUN",
                   help="several runs (bundled keys or labelled files) combined with e-BH and e-Bonferroni")
    p.add_argument("--level", type=float, default=0.05, help="FDR / FWER level of --combine (default 0.05)")
    p.add_argument("--replicates", type=int, default=20, help="replicates per row of --simulate (default 20)")
    p.add_argument("--budget", type=int, help="annotation budget of --simulate (default: the style's)")
    p.add_argument("--seed", type=int, default=0, help="seed of --simulate and of the --measure bootstrap (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON document describing what was written")
    p.set_defaults(func=run)


def _components(text: str | None) -> list[str] | None:
    if text is None:
        return None
    if text.strip().lower() in ("", "none", "base"):
        return []
    return [c.strip() for c in text.split(",") if c.strip()]


def _results(args) -> list:
    """The results whose report sections the options ask for, each from the call its command and
    dashboard page make."""
    policy = policy_source(args.policies)
    results = [api.identify_support(_components(args.components), estimand=args.estimand, policies=policy)]
    if args.synthesize:
        results.append(api.synthesize(policy, estimand=args.estimand, cost=parse_cost(args.cost), all=True))
    if args.measure:
        results.append(api.measure_log(args.measure, policies=policy if args.policies else None,
                                       bootstrap=args.bootstrap, seed=args.seed))
    if args.replay:
        subgroups = [c.strip() for item in args.subgroup for c in item.split(",")] if args.subgroup else None
        results.append(api.replay(args.replay, score=args.score, subgroup=subgroups, order=args.order,
                                  style=args.style, planned_n=args.planned_n))
    if args.combine:
        if len(args.combine) < 2:
            raise InputError("--combine: give at least two runs")
        replayed = [api.replay(run, subgroup=[], style=args.style) for run in args.combine]
        results.append(api.combine(replayed, level=args.level))
    if args.simulate:
        if args.simulate not in BUNDLED_POOLS:
            raise InputError(f"--simulate: expected a bundled pool ({', '.join(BUNDLED_POOLS)}), got {args.simulate!r}")
        # the paper's rows and parameters, as `simulate --paper` and the Simulate page
        results.append(api.simulate(args.simulate, paper=True, replicates=args.replicates, budget=args.budget,
                                    seed=args.seed, style=args.style))
    return results


def run(args) -> int:
    if args.replicates < 1:
        raise InputError(f"--replicates: must be at least 1, got {args.replicates}")
    api.report_target(args.out, args.format)  # a bad suffix, folder or device is refused before the work
    written = api.write_report(args.out, *_results(args), title=args.title, format=args.format)
    emit(written.to_dict(), args.json, lambda d: f"wrote {d['out']} ({d['format']}, {d['bytes']} bytes): "
                                                 + "; ".join(d["sections"]))
    return 0
