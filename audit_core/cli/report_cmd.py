"""``report --out FILE``: the dashboard's report from the command line (HTML, Markdown, zip, JSON).

Sections are the ones the dashboard builds (``audit_core.analyses``): identifiability of the
chosen support (always), ``--synthesize`` minimal identifying supports, ``--measure LOG|example``
estimand-separated results of a model response log, ``--replay CSV|KEY`` a recorded run,
``--simulate POOL`` a simulation study of the paper's rows. The format follows the ``--out``
suffix (.html, .md, .zip, .json, .pdf) unless ``--format`` is given.
"""

from __future__ import annotations

from pathlib import Path

from audit_core import analyses
from audit_core.cli import emit
from audit_core.cli.identify_cmd import parse_cost, policy_source
from audit_core.data.files import writable_target, write_file
from audit_core.errors import InputError
from audit_core.presets import BUNDLED_POOLS, EXAMPLE_RESPONSE_LOG, paper_params, paper_rows
from audit_core.sequential import AuditParams

FORMATS = {".html": "html", ".htm": "html", ".md": "md", ".zip": "zip", ".json": "json", ".pdf": "pdf"}


def register(subparsers) -> None:
    p = subparsers.add_parser("report", help="write a self-contained audit report (HTML / Markdown / zip / JSON / PDF)",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, metavar="FILE", help="output file (.html, .md, .zip, .json or .pdf)")
    p.add_argument("--format", choices=sorted(set(FORMATS.values())), help="override the format chosen by --out")
    p.add_argument("--title", default="Evaluation audit report", help="report title")
    p.add_argument("--policies", metavar="FILE", help="policy class (JSON or long CSV); default: the frozen class")
    p.add_argument("--components", metavar="A,B", help="support components (default all; 'none' = base only)")
    p.add_argument("--estimand", default="tau_full", help="estimand τ (default tau_full)")
    p.add_argument("--synthesize", action="store_true", help="add the minimal identifying supports")
    p.add_argument("--cost", metavar="KEY=N,...", help="synthesis cost per axis value or cell, e.g. generated=1,scoring=3")
    p.add_argument("--measure", metavar="LOG|example",
                   help="response log CSV (model, cluster, cell, response + oracle), or 'example' for the "
                        "bundled synthetic log; cells follow --policies when given")
    p.add_argument("--bootstrap", type=int, default=2000, metavar="B",
                   help="cluster-bootstrap replicates of --measure (default 2000; 0 = Wilson intervals only)")
    p.add_argument("--replay", metavar="FILE|KEY", help="labelled CSV, Inspect AI log, lm-eval samples file or folder, "
                                                         "or bundled key (sdoh, gpqa:large, ..., recorded_run)")
    p.add_argument("--score", help="score column of --replay (auto-detected if omitted)")
    p.add_argument("--subgroup", action="append", metavar="COL", help="subgroup column of --replay (repeatable)")
    p.add_argument("--order", help="order column of --replay (auto-detected if omitted)")
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


def _sections(args) -> list:
    """The report sections the options ask for, each built by its ``analyses`` use case exactly
    as the dashboard page builds it."""
    policy = policy_source(args.policies)
    sections = [analyses.explore_support(policy, _components(args.components), args.estimand).section]
    if args.synthesize:
        sections.append(analyses.check_supports(policy, args.estimand, cost=parse_cost(args.cost)).section)
    if args.measure:
        log = analyses.response_log_source(None if args.measure == EXAMPLE_RESPONSE_LOG else args.measure,
                                           policy=policy if args.policies else None)
        sections.append(analyses.measure_log(log, n_boot=args.bootstrap, seed=args.seed).section)
    if args.replay:
        run = analyses.run_source(args.replay, check=False)
        subgroups = [c.strip() for item in args.subgroup for c in item.split(",")] if args.subgroup else None
        params = AuditParams.for_style(args.style or run.value.style)
        sections.append(analyses.replay_run(run, score=args.score, subgroups=subgroups, order=args.order,
                                            params=params).section)
    if args.combine:
        if len(args.combine) < 2:
            raise InputError("--combine: give at least two runs")
        runs = []
        for run in args.combine:
            source = analyses.run_source(run, check=False)
            replayed = analyses.replay_run(source, subgroups=(), params=AuditParams.for_style(args.style or source.value.style))
            runs.append((run, replayed.result))
        sections.append(analyses.combine_audits(runs, args.level).section)
    if args.simulate:
        if args.simulate not in BUNDLED_POOLS:
            raise InputError(f"--simulate: expected a bundled pool ({', '.join(BUNDLED_POOLS)}), got {args.simulate!r}")
        pool = analyses.pool_source(args.simulate)
        style = args.style or pool.value.style
        params = paper_params(style, budget=args.budget)  # as `simulate --paper` and the Simulate page
        sections.append(analyses.simulate_study(pool, paper_rows(style), args.replicates, params,
                                                seed=args.seed).section)
    return sections


def run(args) -> int:
    from audit_core.report import Report, markdown_zip, render_html, render_json, render_markdown

    out = Path(args.out)
    fmt = args.format or FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise InputError(f"--out {out}: unknown suffix {out.suffix!r}; use .html, .md, .zip, .json or .pdf (or --format)")
    if args.replicates < 1:
        raise InputError(f"--replicates: must be at least 1, got {args.replicates}")
    if out.parent and not out.parent.exists():
        raise InputError(f"--out {out}: the folder {out.parent} does not exist")
    writable_target(out, "--out")  # a folder, a device or /proc is refused before the work
    sections = _sections(args)
    report = Report(args.title, tuple(sections))
    if fmt == "html":
        data = render_html(report).encode("utf-8")
    elif fmt == "md":
        data = render_markdown(report).encode("utf-8")
    elif fmt == "zip":
        data = markdown_zip(report)
    elif fmt == "pdf":
        from audit_core.report.pdf import render_pdf
        data = render_pdf(report)
    else:
        data = render_json(report).encode("utf-8")
    write_file(out, data, "--out")  # whole or not at all; a full disk or a long name is one message
    payload = {"out": str(out), "format": fmt, "bytes": len(data),
               "sections": [s.title for s in sections], "created_utc": report.created.isoformat()}
    emit(payload, args.json, lambda d: f"wrote {d['out']} ({d['format']}, {d['bytes']} bytes): "
                                       + "; ".join(d["sections"]))
    return 0
