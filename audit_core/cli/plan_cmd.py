"""``plan``: before any label, the chance of each decision by n labels and the labels needed.

    python -m audit_core plan --pool gpqa:small --replicates 200
    python -m audit_core plan --subgroups 120,160,168 --failing-accuracy 0.6 --budget 250
    python -m audit_core plan --early-stopping --pool gpqa:large [--per-subgroup] [--precision E] [--threshold Q]

For a pool (bundled key or labelled CSV) or an assumed structure of subgroups (sizes, how many
fail and at what accuracy), simulates the audit with and without the failure and prints the
budget table, the median and 90th-percentile labels needed and P(pass) when nothing fails, each
with its Monte Carlo interval. ``--json`` adds the full curves P(decision by n) for n up to the
budget. ``--backend dask`` runs the audits on Dask (a LocalCluster, or ``--address``).

``--early-stopping`` plans an Inspect AI run that stops itself instead (``audit_core.inspect.
early_stopping`` with the dual test, or ``--precision`` / ``--threshold``, per subgroup with
``--per-subgroup``): the samples it will run, median and 90th percentile over ``--replicates``
simulated runs (``--concurrency`` samples at once), the share that end early and their decisions.
"""

from __future__ import annotations

import argparse
import math

from audit_core import analyses, api
from audit_core.auditing.backends import BACKENDS
from audit_core.cli import add_dual_test_flags, emit, flag, stderr_progress
from audit_core.errors import InputError
from audit_core.presets import (
    DEFAULT_MODEL_PROCESS,
    MODEL_PROCESSES,
    STRATEGY_NAMES,
)


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, got {text!r}") from None


def add_backend_options(p) -> None:
    """--backend / --address, shared with ``simulate``."""
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="local process pool (default) or dask (LocalCluster unless --address)")
    p.add_argument("--address", metavar="tcp://HOST:PORT", help="scheduler of an existing Dask cluster (implies --backend dask)")


def register(subparsers) -> None:
    p = subparsers.add_parser("plan", help="audit planner: P(decision by n labels), labels needed, P(pass | no failure)",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--pool", metavar="FILE|KEY", help="bundled pool (gpqa:large, ..., sdoh) or labelled audit CSV")
    p.add_argument("--subgroups", type=_ints, metavar="N,N,...", help="assumed subgroup sizes (instead of --pool)")
    p.add_argument("--failing", type=int, default=1, help="assumed: how many subgroups fail (default 1, the first)")
    p.add_argument("--failing-accuracy", type=float, default=0.6, help="assumed: accuracy of a failing subgroup (default 0.6)")
    p.add_argument("--base-accuracy", type=float, default=0.92, help="assumed: accuracy of the others (default 0.92)")
    p.add_argument("--strategy", choices=STRATEGY_NAMES, default="adaptive")
    p.add_argument("--process", choices=MODEL_PROCESSES, default=DEFAULT_MODEL_PROCESS)
    add_dual_test_flags(p, "the pool's style, else gpqa", processes=False)
    p.add_argument("--budget", type=int, help="labels per audit (default: the style's)")
    p.add_argument("--n-init", type=int, dest="n_init", help="initial random cases of the adaptive auditor")
    p.add_argument("--budgets", type=_ints, metavar="N,N,...", help="rows of the budget table (default: five up to --budget)")
    p.add_argument("--no-failure-accuracy", type=float, help="accuracy given to failing subgroups in the no-failure scenario (default q + delta_aud)")
    p.add_argument("--suspect", action="append", metavar="SUBGROUP", help="suspect subgroup of the informed strategy")
    p.add_argument("--replicates", type=int, default=200, help="audits per scenario (default 200)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--jobs", type=int, default=2, help="workers (default 2)")
    add_backend_options(p)
    p.add_argument("--early-stopping", action="store_true",
                   help="plan an Inspect AI run that stops itself (how many samples it will run) instead")
    p.add_argument("--per-subgroup", action="store_true", help="early stopping: the rules per subgroup")
    p.add_argument("--precision", type=float, metavar="E",
                   help="early stopping: stop when the anytime-valid half-width is <= E")
    p.add_argument("--threshold", type=float, metavar="Q",
                   help="early stopping: stop when the anytime-valid interval is above or below Q")
    p.add_argument("--no-dual", action="store_true", help="early stopping: without the dual test")
    p.add_argument("--concurrency", type=int, default=8, help="early stopping: samples at once (default 8)")
    p.add_argument("--json", action="store_true", help="print one JSON document (with the curves)")
    p.set_defaults(func=run)


_AUDIT_ONLY = ("m", "budget", "n_init", "budgets", "no_failure_accuracy", "suspect", "address")


def run(args) -> int:

    if (args.pool is None) == (args.subgroups is None):
        raise InputError("plan: give either --pool or --subgroups")
    if args.early_stopping:
        return run_early_stopping(args)
    pool = None
    if args.pool is not None:
        with flag("--pool"):
            pool = analyses.pool_source(args.pool, suspects=tuple(args.suspect) if args.suspect else None)
    view = api.plan(pool, subgroups=args.subgroups, failing=args.failing, failing_accuracy=args.failing_accuracy,
                    base_accuracy=args.base_accuracy, strategy=args.strategy, process=args.process, style=args.style,
                    q=args.q, alpha=args.alpha, m=args.m, budget=args.budget, n_init=args.n_init,
                    budgets=args.budgets, no_failure_accuracy=args.no_failure_accuracy, suspect=args.suspect,
                    replicates=args.replicates, seed=args.seed, jobs=args.jobs, backend=args.backend,
                    address=args.address, progress=stderr_progress("audits", args.json))
    emit(view.to_dict(), args.json, render_text)
    return 0


def _labels(value) -> str:
    return "> budget" if value is None or (isinstance(value, float) and math.isinf(value)) else f"{value:g}"


def render_text(payload: dict) -> str:
    params = payload["params"]
    p = payload["p_pass_no_failure"]
    lines = [f"Plan for {payload['pool']}: {payload['strategy']} / {payload['process']}, q={params['q']}, "
             f"alpha={params['alpha']}, budget {params['budget']}; {payload['replicates']} audits per scenario, "
             f"seed {payload['seed']} ({payload['backend']})", "",
             f"P(pass | no failure) = {p['estimate']:.2f} [{p['low']:.2f}, {p['high']:.2f}]", "",
             "Labels to a decision (inconclusive = never):"]
    for r in payload["labels_needed"]:
        lines.append(f"  {r['scenario']:<10} {r['quantile']:<16} {_labels(r['labels']):>9}  "
                     f"[{_labels(r['low'])}, {_labels(r['high'])}]")
    lines += ["", f"{'scenario':<10} {'budget':>6}  {'failure found':>20}  {'audit passed':>20}  {'inconclusive':>20}"]
    for r in payload["budget_table"]:
        cells = [f"{r[k]:.2f} [{r[k + ' low']:.2f}, {r[k + ' high']:.2f}]"
                 for k in ("failure mode found", "audit passed", "inconclusive")]
        lines.append(f"{r['scenario']:<10} {r['budget']:>6}  " + "  ".join(f"{c:>20}" for c in cells))
    lines += ["", payload["mc_note"], f"{payload['seconds']:.1f} s"]
    return "\n".join(lines)


def run_early_stopping(args) -> int:
    given = [f"--{name.replace('_', '-')}" for name in _AUDIT_ONLY if getattr(args, name) is not None]
    if given:
        raise InputError(f"plan --early-stopping: {', '.join(given)}: only for a labelling audit, not for an Inspect run")
    pool = None
    if args.pool is not None:
        with flag("--pool"):
            pool = analyses.pool_source(args.pool)
    view = api.plan_early_stopping(pool, subgroups=args.subgroups, failing=args.failing,
                                   failing_accuracy=args.failing_accuracy, base_accuracy=args.base_accuracy,
                                   per_subgroup=args.per_subgroup, dual=False if args.no_dual else None,
                                   precision=args.precision, threshold=args.threshold, style=args.style, q=args.q,
                                   alpha=args.alpha, replicates=args.replicates, seed=args.seed,
                                   concurrency=args.concurrency, progress=stderr_progress("runs", args.json))
    emit(view.to_dict(), args.json, render_run_text)
    return 0


def render_run_text(payload: dict) -> str:
    rules = ", ".join(k.replace("_", " ") if v is True else f"{k} {v}" for k, v in payload["rules"].items()
                      if v not in (None, False))
    lines = [f"Plan of an Inspect run that stops itself, {payload['source']}: {payload['n_samples']:,} samples, "
             f"{payload['runs']} simulated runs, {payload['concurrency']} at once, seed {payload['seed']} ({rules})", ""]
    for row in payload["quantities"]:
        share = row["quantity"].startswith("share")
        cell = (lambda x: f"{x:.2f}") if share else (lambda x: f"{x:,.0f}")
        lines.append(f"  {row['quantity']:<44} {cell(row['value']):>8}  [{cell(row['low'])}, {cell(row['high'])}]")
    lines += ["", "[95% intervals: Monte Carlo error of the simulated runs]"]
    return "\n".join(lines)

