"""Plan an audit before any label (paper 001's simulation engine answering "how many labels?").

With a pool (or an assumed structure of subgroups), a strategy and a process, q and α: the chance
of reaching each decision by n labels, how many labels the median and the 90th-percentile audit
need, and the chance of passing when there is no failure, each with its Monte Carlo error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from audit_core.analyses.common import Verdict
from audit_core.analyses.display import Displayed
from audit_core.analyses.sources import Source
from audit_core.auditing import AuditorConfig
from audit_core.auditing.plan import AuditPlan, assumed_pool, plan_audit
from audit_core.presets import DEFAULT_MODEL_PROCESS
from audit_core.report.document import ReportSection
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
               progress: Callable[[int, int], None] | None = None, n_jobs: int = 2,
               config: AuditorConfig | None = None, backend: str = "local", address: str | None = None) -> PlannedAudit:
    """``plan_audit`` on the pool, with its tables, chart, report section and verdict."""
    plan = plan_audit(pool.value, strategy, process, params, replicates, seed, budgets, no_failure_accuracy,
                      progress, n_jobs, config, backend, address)
    verdict = _verdict(plan)
    chart = views.plan_chart(plan)
    return PlannedAudit(source=pool, plan=plan, budget_table=plan.budget_table, labels_table=plan.labels_needed,
                        decisions_chart=chart,
                        section=views.plan_section(plan, pool.description, chart, verdict=verdict.text),
                        verdict=verdict, backend="dask" if address else backend)
