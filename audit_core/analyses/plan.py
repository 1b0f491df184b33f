"""Plan an audit before any label (paper 001's simulation engine answering "how many labels?").

With a pool (or an assumed structure of subgroups), a strategy and a process, q and α: the chance
of reaching each decision by n labels, how many labels the median and the 90th-percentile audit
need, and the chance of passing when there is no failure, each with its Monte Carlo error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from audit_core.analyses.common import Verdict
from audit_core.analyses.display import Displayed
from audit_core.analyses.sources import Source
from audit_core.auditing import AuditorConfig
from audit_core.auditing.plan import AuditPlan, assumed_pool, plan_audit
from audit_core.presets import DEFAULT_MODEL_PROCESS
from audit_core.report.document import ReportChart, ReportSection, ReportTable
from audit_core.sequential import AuditParams
from audit_core.views import auditing as views


@dataclass(frozen=True, repr=False)
class PlannedAudit(Displayed):
    """An audit plan: ``plan`` (the engine's :class:`~audit_core.auditing.plan.AuditPlan`), its
    budget and labels-needed tables, the P(decision by n) chart (``decisions_chart``), section,
    verdict, and the ``backend`` that ran the simulated audits."""

    _key_table = "budget_table"
    _key_chart = "decisions_chart"

    source: Source
    plan: AuditPlan = field(repr=False)
    budget_table: pd.DataFrame = field(repr=False)
    labels_table: pd.DataFrame = field(repr=False)
    decisions_chart: dict = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict
    backend: str = "local"

    def to_dict(self) -> dict:
        """The document ``plan --json`` prints: the engine's plan and the backend."""
        return {**self.plan.to_dict(), "backend": self.backend}


def assumed_pool_source(sizes: Sequence[int], failing_accuracy: float, base_accuracy: float = 0.92,
                        n_failing: int = 1, seed: int = 0, style: str = "gpqa") -> Source:
    """A pool built from an assumed structure: subgroup sizes, how many fail and how badly."""
    pool = assumed_pool(list(sizes), failing_accuracy, base_accuracy, n_failing, seed=seed, style=style)
    text = (f"assumed pool: {len(sizes)} subgroups of sizes {', '.join(map(str, sizes))}; {n_failing} failing at "
            f"accuracy {failing_accuracy:g}, the others at {base_accuracy:g}")
    return Source("pool", f"assumed:{tuple(sizes)}:{failing_accuracy}:{base_accuracy}:{n_failing}:{seed}:{style}",
                  "assumed pool", text, pool)


def _verdict(plan: AuditPlan) -> Verdict:
    labels = plan.labels_needed
    found = labels[(labels["scenario"] == "failure") & (labels["quantile"] == "median")]
    median = float(found["labels"].iloc[0]) if len(found) else float("inf")
    budget = plan.params.budget
    head = (f"With its failure mode, the median audit finds it after {median:g} labels" if median != float("inf")
            else f"With its failure mode, fewer than half of the audits find it within the budget of {budget}")
    p, low, high = plan.p_pass_no_failure
    return Verdict("neutral", f"{head}; without one, the audit passes with probability {p:.2f} "
                              f"(95% CI {low:.2f}–{high:.2f}) within {budget} labels.",
                   caveat=f"Simulated with {plan.replicates} audits per scenario: Monte Carlo error up to "
                          f"±{plan.mc_error:.2f}.")


def plan_study(pool: Source, strategy: str = "adaptive", process: str = DEFAULT_MODEL_PROCESS,
               params: AuditParams | None = None, replicates: int = 100, seed: int = 0,
               budgets: Sequence[int] | None = None, no_failure_accuracy: float | None = None,
               progress: Callable[[int, int], None] | None = None, jobs: int = 2,
               config: AuditorConfig | None = None, backend: str = "local", address: str | None = None) -> PlannedAudit:
    """``plan_audit`` on the pool, with its tables, chart, report section and verdict."""
    plan = plan_audit(pool.value, strategy, process, params, replicates, seed, budgets, no_failure_accuracy,
                      progress, jobs, config, backend, address)
    verdict = _verdict(plan)
    chart = views.plan_chart(plan)
    return PlannedAudit(source=pool, plan=plan, budget_table=plan.budget_table, labels_table=plan.labels_needed,
                        decisions_chart=chart,
                        section=views.plan_section(plan, pool.description, chart, verdict=verdict.text),
                        verdict=verdict, backend="dask" if address else backend)


@dataclass(frozen=True, repr=False)
class PlannedRun(Displayed):
    """How many samples an Inspect run that stops itself will need (docs/inspect.md, planning a run).

    ``rules``: the early-stopping settings simulated; ``n_samples``: the run's size (the pool's
    cases); ``samples_run`` / ``samples_used``: per simulated run, the samples completed (what the
    run pays for, late ones included) and those the rules used; ``decisions``: how often each
    decision of the dual test came out (one group only), ``stopped_early``: the runs that ended
    before their last sample (fewer samples run than the pool has); ``summary_table``, ``used_chart``, ``section``, ``verdict``.
    """

    _key_table = "summary_table"
    _key_chart = "used_chart"

    source: Source
    rules: dict
    n_samples: int
    runs: int
    seed: int
    concurrency: int
    samples_run: tuple = field(repr=False)
    samples_used: tuple = field(repr=False)
    decisions: dict = field(repr=False)
    stopped_early: int = field(repr=False)
    summary_table: pd.DataFrame = field(repr=False)
    used_chart: dict = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict

    def to_dict(self) -> dict:
        """The document ``plan --early-stopping --json`` prints."""
        return {"source": self.source.name, "rules": self.rules, "n_samples": self.n_samples, "runs": self.runs,
                "seed": self.seed, "concurrency": self.concurrency,
                "quantities": self.summary_table.to_dict("records"), "decisions": self.decisions,
                "stopped_early": self.stopped_early, "samples_run": list(self.samples_run)}


def _quantile_interval(values, quantile: float, confidence: float = 0.95) -> tuple[float, float, float]:
    """The sample ``quantile`` of ``values`` and its distribution-free interval: the order statistics
    whose ranks are the binomial(n, quantile) bounds (it covers the true quantile with at least
    ``confidence``, whatever the distribution)."""
    from scipy.stats import binom

    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    tail = (1.0 - confidence) / 2.0
    low = int(binom.ppf(tail, n, quantile))            # ranks, 0-based after the -1 below
    high = int(binom.ppf(1.0 - tail, n, quantile)) + 1
    point = float(np.quantile(x, quantile, method="inverted_cdf"))
    return point, float(x[max(low - 1, 0)]), float(x[min(high - 1, n - 1)])


def plan_inspect_run(pool: Source, per_subgroup: bool = False, dual: bool | None = None,
                     precision: float | None = None, threshold: float | None = None, style: str | None = None,
                     q: float | None = None, alpha: float | None = None, runs: int = 200, seed: int = 0,
                     concurrency: int = 8, progress: Callable[[int, int], None] | None = None) -> PlannedRun:
    """Simulated Inspect runs of the pool's cases through ``audit_core.inspect.early_stopping`` with
    these rules (per subgroup when ``per_subgroup``): the samples the run needs (median and 90th
    percentile, with distribution-free intervals), how often it stops early, and its decisions.

    Each case is one sample whose chance of being right is its accuracy (an assumed structure's
    accuracies; a labelled pool's own scores, so only the order varies), in a new random order each
    run, ``concurrency`` at once (Inspect's ``max_samples``)."""
    from audit_core.inspect import early_stopping
    from audit_core.inspect.simulation import simulate_runs
    from audit_core.presets import resolve_style
    from audit_core.sequential import wilson_interval

    value = pool.value
    chosen = resolve_style(style, value.style)
    names = np.asarray(value.stratum_names, dtype=object)[value.strata]
    metadata = [{"subgroup": str(name)} for name in names] if per_subgroup else None
    settings = {"subgroups": "subgroup" if per_subgroup else None, "dual": dual, "precision": precision,
                "threshold": threshold, "style": chosen, "q": q, "alpha": alpha}
    manager = early_stopping(**settings)   # bad settings fail here, once, with the manager's own message
    rules = {"per_subgroup": bool(per_subgroup), "dual": manager.rules.dual, "precision": manager.rules.precision,
             "threshold": manager.rules.threshold, "style": chosen, "q": manager.params.q,
             "alpha": manager.params.alpha}   # as resolved: the same plan says the same whoever left a default
    records = simulate_runs(lambda: early_stopping(**settings), value.accuracy, runs, seed=seed, metadata=metadata,
                            concurrency=concurrency, progress=progress)
    n = int(value.n)
    ran = tuple(int(r["run"]) for r in records)
    used = tuple(int(r["used"]) for r in records)
    early = sum(1 for r in records if r["run"] < n)
    decisions: dict[str, int] = {}
    for r in records:
        if r["decision"] is not None:
            decisions[r["decision"]] = decisions.get(r["decision"], 0) + 1
    rows = []
    for name, values in (("samples run", ran), ("samples used by the rules", used)):
        for label, level in (("median", 0.5), ("90th percentile", 0.9)):
            point, low, high = _quantile_interval(values, level)
            rows.append({"quantity": f"{name}, {label}", "value": point, "low": low, "high": high})
    low, high = wilson_interval(early, len(records))
    rows.append({"quantity": "share of runs stopped early", "value": early / len(records), "low": float(low),
                 "high": float(high)})
    for decision, count in sorted(decisions.items()):
        low, high = wilson_interval(count, len(records))
        rows.append({"quantity": f"share of runs: {decision}", "value": count / len(records), "low": float(low),
                     "high": float(high)})
    table = pd.DataFrame(rows, columns=["quantity", "value", "low", "high"])
    median, p90 = table["value"].iloc[0], table["value"].iloc[1]
    head = (f"An Inspect run of these {n:,} samples with these rules runs {median:,.0f} samples at the median and "
            f"{p90:,.0f} at the 90th percentile ({len(records)} simulated runs); {early} of them ended before their "
            "last sample")
    tail = (f": a budget of {p90:,.0f} samples lets 9 in 10 runs end by themselves." if early >= 0.9 * len(records)
            else ": fewer than 9 in 10 end by themselves, so a budget below the run's size would stop most runs "
                 "before their questions are answered.")
    verdict = Verdict("neutral", head + tail,
                      caveat="Simulated: each sample right with its case's accuracy, in a random order, "
                             f"{concurrency} at once; the 95% intervals are Monte Carlo errors.")
    chart = views.samples_run_chart(ran, n, title=f"Samples an early-stopping run needs ({len(records)} simulated)")
    section = ReportSection(
        key="plan_inspect_run", title="Plan of an Inspect run that stops itself",
        source=pool.description,
        parameters={k: v for k, v in {**rules, "runs": runs, "seed": seed, "concurrency": concurrency}.items()
                    if v is not None},
        summary=(verdict.text, verdict.caveat), tables=(ReportTable("Samples needed", table),),
        charts=(ReportChart("Samples run", chart),), numbers={"samples_run": list(ran), "decisions": decisions})
    return PlannedRun(source=pool, rules=rules, n_samples=n,
                      runs=len(records), seed=seed, concurrency=concurrency, samples_run=ran, samples_used=used,
                      decisions=decisions, stopped_early=early, summary_table=table, used_chart=chart, section=section,
                      verdict=verdict)
