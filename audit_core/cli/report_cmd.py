"""``report --out FILE``: the dashboard's report from the command line (HTML, Markdown, zip, JSON).

Sections are the ones the dashboard builds (``audit_core.report.views``): identifiability of the
chosen support (always), ``--synthesize`` minimal identifying supports, ``--measure LOG|example``
estimand-separated results of a model response log, ``--replay CSV|KEY`` a recorded run,
``--simulate POOL`` a simulation study of the paper's rows. The format follows the ``--out``
suffix (.html, .md, .zip, .json, .pdf) unless ``--format`` is given.
"""

from __future__ import annotations

from pathlib import Path

from audit_core.cli import emit
from audit_core.cli.identify_cmd import parse_cost
from audit_core.errors import InputError

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
    p.add_argument("--replay", metavar="CSV|KEY", help="labelled CSV or bundled key (sdoh, gpqa:large, ..., recorded_run)")
    p.add_argument("--score", help="score column of --replay (auto-detected if omitted)")
    p.add_argument("--subgroup", action="append", metavar="COL", help="subgroup column of --replay (repeatable)")
    p.add_argument("--order", help="order column of --replay (auto-detected if omitted)")
    p.add_argument("--style", choices=("gpqa", "sdoh"), help="parameter defaults (default: the bundled data's style, else gpqa)")
    p.add_argument("--simulate", metavar="POOL", help="pool of a simulation study: gpqa:large|medium|small|none|sdoh")
    p.add_argument("--replicates", type=int, default=20, help="replicates per row of --simulate (default 20)")
    p.add_argument("--budget", type=int, help="annotation budget of --simulate (default: the style's)")
    p.add_argument("--seed", type=int, default=0, help="seed of --simulate and of the --measure bootstrap (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON document describing what was written")
    p.set_defaults(func=run)


def _identification_section(args):
    from audit_core.identify import (estimand_values, frozen_policy_class, identify, lattice,
                                     load_policy_class)
    from audit_core.report import ReportChart, views

    pc = frozen_policy_class() if args.policies is None else load_policy_class(args.policies)
    source = "frozen seven-policy class" if args.policies is None else f"policy file {args.policies}"
    if args.components is None:
        components = list(pc.component_names)
    elif args.components.strip().lower() in ("", "none", "base"):
        components = []
    else:
        components = [c.strip() for c in args.components.split(",") if c.strip()]
    ident = identify(pc, components=components, estimand=args.estimand)
    lat = lattice(pc, estimand=args.estimand)
    tau_values = estimand_values(pc, args.estimand)
    tau = dict(zip(pc.names, tau_values.astype(int).tolist()))
    charts = (ReportChart("Support lattice (Hasse diagram)",
                          views.lattice_spec(lat, pc.component_names, args.estimand, views.support_key(components))),
              ReportChart("Policy × cell responses", views.heatmap_spec(pc, tau_values, ident.cells)))
    section = views.identification_section(ident, lat, tau, args.estimand, views.support_name(components), source,
                                           components, None, charts)
    return pc, source, section


def _synthesis_section(args, pc, source):
    from audit_core.identify import identify, minimum_supports, parse_cell_id
    from audit_core.report import views

    cost = parse_cost(args.cost)
    result = minimum_supports(pc, estimand=args.estimand, cost=cost, enumerate_all=True)
    checks = [identify(pc, estimand=args.estimand, cells=list(s)) for s in result.supports]
    optima = views.optima_table(result, checks)
    spec = views.cell_frequency_spec(pc, result.supports, parse_cell_id) if result.supports else None
    return views.synthesis_section(result, optima, spec, args.estimand, source, cost, (), ())


def _measurement_section(args):
    from audit_core.identify import load_policy_class
    from audit_core.measure import load_response_log, measure
    from audit_core.measure.example import EXAMPLE_PATH
    from audit_core.measure.views import EXAMPLE_LOG_NAME, measurement_section

    layout = load_policy_class(args.policies) if args.policies else None
    if args.measure == "example":
        log = load_response_log(EXAMPLE_PATH.read_bytes(), name=EXAMPLE_LOG_NAME, policy_class=layout)
    else:
        log = load_response_log(args.measure, policy_class=layout)
    result = measure(log, n_boot=args.bootstrap, seed=args.seed)
    return measurement_section(result, "bootstrap" if args.bootstrap > 0 else "wilson")


def _replay_section(args):
    from audit_core.data.bundled import BUNDLED
    from audit_core.data.loader import load_audit_csv
    from audit_core.report import views
    from audit_core.sequential import MODEL_PROCESSES, AuditParams, replay

    bundled = BUNDLED.get(args.replay)
    path = str(bundled.path) if bundled else args.replay
    subgroups = [c.strip() for item in args.subgroup for c in item.split(",")] if args.subgroup else None
    data = load_audit_csv(path, score=args.score or (bundled.score if bundled else None),
                          subgroups=subgroups if subgroups is not None else (list(bundled.subgroups) if bundled else None),
                          order=args.order or (bundled.order if bundled else None))
    params = AuditParams.for_style(args.style or (bundled.style if bundled else "gpqa"))
    result = replay(data.scores, params, subgroups=data.subgroup_frame)
    name = Path(path).name
    source = f"bundled {bundled.key}: {bundled.title}" if bundled else f"file {path}"
    columns = {"score column": data.score, "subgroup columns": list(data.subgroups), "order column": data.order}
    return views.replay_section(result, MODEL_PROCESSES, name, source, columns, data.notes,
                                views.replay_specs(result, MODEL_PROCESSES, name))


def _simulation_section(args):
    from audit_core.auditing import load_pool, paper_params, paper_rows, run_study, sampling_frequency_vs_accuracy
    from audit_core.data.bundled import BUNDLED
    from audit_core.report import ReportChart, views

    if args.simulate not in BUNDLED:
        raise InputError(f"--simulate: expected a bundled pool ({', '.join(k for k in BUNDLED if k != 'recorded_run')}), "
                         f"got {args.simulate!r}")
    style = args.style or BUNDLED[args.simulate].style
    params = paper_params(style, budget=args.budget)  # as `simulate --paper` and the Simulate page
    pool = load_pool(args.simulate)
    rows = paper_rows(style)
    study = run_study(pool, rows, args.replicates, params, args.seed)
    bars, boxes = views.study_specs(study)
    charts = [ReportChart("Audit outcomes per method", bars), ReportChart("Stopping times", boxes)]
    table, rho = sampling_frequency_vs_accuracy(study, pool, "adaptive", "SR-LR-UI")
    charts.append(ReportChart("Sampling frequency vs accuracy (adaptive · SR-LR-UI)",
                              views.sampling_frequency_spec(table, rho, "SR-LR-UI")))
    return views.study_section(study, f"Simulation study on {BUNDLED[args.simulate].title}",
                               f"bundled pool {args.simulate}: {BUNDLED[args.simulate].description}",
                               {**params.to_dict(), "replicates": args.replicates, "seed": args.seed}, charts)


def run(args) -> int:
    from audit_core.report import Report, markdown_zip, render_html, render_json, render_markdown

    out = Path(args.out)
    fmt = args.format or FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise InputError(f"--out {out}: unknown suffix {out.suffix!r}; use .html, .md, .zip, .json or .pdf (or --format)")
    if args.replicates < 1:
        raise InputError(f"--replicates: must be at least 1, got {args.replicates}")
    pc, source, section = _identification_section(args)
    sections = [section]
    if args.synthesize:
        sections.append(_synthesis_section(args, pc, source))
    if args.measure:
        sections.append(_measurement_section(args))
    if args.replay:
        sections.append(_replay_section(args))
    if args.simulate:
        sections.append(_simulation_section(args))
    report = Report(args.title, tuple(sections))
    if fmt == "html":
        out.write_text(render_html(report), encoding="utf-8")
    elif fmt == "md":
        out.write_text(render_markdown(report), encoding="utf-8")
    elif fmt == "zip":
        out.write_bytes(markdown_zip(report))
    elif fmt == "pdf":
        from audit_core.report.pdf import render_pdf
        out.write_bytes(render_pdf(report))
    else:
        out.write_text(render_json(report), encoding="utf-8")
    payload = {"out": str(out), "format": fmt, "bytes": out.stat().st_size,
               "sections": [s.title for s in sections], "created_utc": report.created.isoformat()}
    emit(payload, args.json, lambda d: f"wrote {d['out']} ({d['format']}, {d['bytes']} bytes): "
                                       + "; ".join(d["sections"]))
    return 0
