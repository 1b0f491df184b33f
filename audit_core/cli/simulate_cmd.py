"""``simulate`` command (docs/cli.md): a simulation study of auditing strategies.

    python -m audit_core simulate --pool gpqa:large --strategy adaptive --process SR-LR-UI \
        --replicates 100 --budget 250 --seed 0 [--json]
    python -m audit_core simulate --pool sdoh --paper          # the paper's seven rows
    python -m audit_core simulate --pool gpqa:all --paper      # ... on all four GPQA-style settings

``--strategy`` / ``--process`` take one name or a comma list (every combination is run); without
either, or with ``--paper``, the paper's seven rows for the pool's style are run. Defaults follow
the pool's style: GPQA-style q 0.85, budget 250, 2 initial random cases; SDoH-style q 0.83,
budget 400, 20 initial cases (``AuditParams.gpqa()`` / ``.sdoh()``).
"""

from __future__ import annotations

from audit_core import analyses, api
from audit_core.cli import add_dual_test_flags, emit, flag, stderr_progress
from audit_core.cli.plan_cmd import add_backend_options
from audit_core.presets import (
    ALL_GPQA_POOLS,
    GPQA_STUDY_POOLS,
    MODEL_PROCESSES,
    SIMULATION_MODES,
    STRATEGY_NAMES,
)

ALL_GPQA = ALL_GPQA_POOLS






def register(subparsers) -> None:
    p = subparsers.add_parser(
        "simulate", help="simulation study of auditing strategies x e-processes",
        description="Replicated audits of a pool; rates of failure found / audit passed / inconclusive "
                    "with 95% Wilson intervals and stopping-time quartiles.")
    p.add_argument("--pool", required=True, metavar="FILE|KEY",
                   help="gpqa:large, gpqa:medium, gpqa:small, gpqa:none, gpqa:all (the four), sdoh, or a labelled audit CSV")
    p.add_argument("--strategy", metavar="NAME[,NAME]", help=f"one or more of {', '.join(STRATEGY_NAMES)}")
    p.add_argument("--process", metavar="NAME[,NAME]", help=f"one or more of {', '.join(MODEL_PROCESSES)}")
    p.add_argument("--paper", action="store_true", help="run the paper's seven (strategy, process) rows")
    p.add_argument("--mode", choices=SIMULATION_MODES, default="power",
                   help="power (default), or null: every subgroup below q lifted to q first, so each 'failure "
                        "mode found' is a Type-I error")
    p.add_argument("--replicates", type=int, default=20, help="replicates per row (default 20)")
    p.add_argument("--budget", type=int, help="annotations per audit (default: the style's, 250 or 400)")
    p.add_argument("--seed", type=int, default=0, help="study seed (default 0)")
    p.add_argument("--scenario", choices=("pool", "bank"), default="pool",
                   help="(a) pool without replacement, or (b) fresh draws from a stratum bank")
    add_dual_test_flags(p, "the pool's own style, else gpqa", processes=False)
    p.add_argument("--n-init", type=int, dest="n_init", help="initial random cases of the adaptive auditor")
    p.add_argument("--suspect", action="append", metavar="SUBGROUP",
                   help="a subgroup the informed-prior auditor suspects (repeatable)")
    p.add_argument("--score", metavar="COL", help="score column of a CSV pool (default: auto-detect)")
    p.add_argument("--subgroup", action="append", metavar="COL", help="subgroup column of a CSV pool (repeatable)")
    p.add_argument("--features", metavar="COL,COL", help="feature columns of a CSV pool (default: auto-detect)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    add_backend_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)






def _study_payload(pool, args, progress) -> dict:
    return api.simulate(pool, strategy=args.strategy, process=args.process, paper=args.paper,
                        replicates=args.replicates, seed=args.seed, mode=args.mode, style=args.style, q=args.q, alpha=args.alpha,
                        m=args.m, budget=args.budget, n_init=args.n_init, scenario=args.scenario,
                        suspect=args.suspect, jobs=args.jobs, backend=args.backend, address=args.address,
                        progress=progress).to_dict()


def run(args) -> int:
    suspects = tuple(args.suspect) if args.suspect else None
    progress = stderr_progress("audits", args.json)
    if args.pool != ALL_GPQA:
        with flag("--pool"):
            pool = analyses.pool_source(args.pool, score=args.score, subgroups=args.subgroup,
                                        features=[c.strip() for c in args.features.split(",")] if args.features
                                        else None, suspects=suspects)
        emit(_study_payload(pool, args, progress), args.json, render_text)
        return 0
    # All four GPQA-style settings: one flat "rows" list, each row naming its setting.
    payloads = {key: _study_payload(analyses.pool_source(key, suspects=suspects), args, progress)
                for key in GPQA_STUDY_POOLS}
    first = payloads[GPQA_STUDY_POOLS[0]]
    combined = {**first, "pool": ALL_GPQA,
                "rows": [{"setting": key, **row} for key, p in payloads.items() for row in p["rows"]],
                "timing": {"seconds": round(sum(p["timing"]["seconds"] for p in payloads.values()), 3),
                           "seconds_per_audit": [s for p in payloads.values() for s in p["timing"]["seconds_per_audit"]]}}
    combined.pop("sampling_frequency", None)
    emit(combined, args.json, render_text)
    return 0


def _rate(row: dict, key: str) -> str:
    """A rate with its 95% Wilson interval, e.g. ``0.42 [0.31, 0.54]``."""
    return f"{row[key]:.2f} [{row[key + '_low']:.2f}, {row[key + '_high']:.2f}]"


def render_text(payload: dict) -> str:
    head = (f"pool {payload['pool']}: {payload['replicates']} replicate(s) per row, seed {payload['seed']}, "
            f"q={payload['params']['q']}, alpha={payload['params']['alpha']}, m={payload['params']['m']}, "
            f"budget={payload['params']['budget']}, scenario={payload['config']['scenario']}")
    with_setting = any("setting" in r for r in payload["rows"])
    columns = (("setting",) if with_setting else ()) + (
        "strategy", "process", "failure found", "audit passed", "inconclusive", "stop median [IQR]")
    lines = []
    for r in payload["rows"]:
        lines.append(((r["setting"],) if with_setting else ()) + (
            r["strategy"], r["process"], _rate(r, "failure_found"), _rate(r, "passed"), _rate(r, "inconclusive"),
            f"{r['stop_median']:g} [{r['stop_q25']:g}-{r['stop_q75']:g}]"))
    widths = [max(len(columns[i]), *(len(line[i]) for line in lines)) for i in range(len(columns))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [head, "", fmt.format(*columns), fmt.format(*("-" * w for w in widths))]
    out += [fmt.format(*line) for line in lines]
    out.append(f"\n{payload['timing']['seconds']:.1f} s; rates with 95% Wilson intervals; stop = annotations used")
    freq = payload.get("sampling_frequency")
    if freq:
        out.append(f"adaptive {freq['process']} sampling frequency vs subgroup accuracy: Spearman rho = "
                   f"{freq['spearman_rho']:.2f} (paper, SDoH: -0.84)")
    return "\n".join(out)
