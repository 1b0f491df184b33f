"""Many audits at once: e-BH for the false discovery rate, e-Bonferroni for the family-wise error.

Each audit contributes one e-value (its model process: rejecting means "failure mode found"; or
its auditor process: "audit passed"), after its last case or at its dual stop. e-BH rejects the
largest set R with e_i ≥ K/(α|R|) for every i in R (FDR ≤ α under any dependence, Wang & Ramdas
2022); e-Bonferroni rejects e_i ≥ K/α (FWER ≤ α).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from audit_core.analyses.common import Verdict, plural
from audit_core.analyses.display import Displayed
from audit_core.report.document import ReportSection
from audit_core.sequential.multiple import METHODS, MultipleTestResult, audit_e_value, combine
from audit_core.views import sequential as views


@dataclass(frozen=True, repr=False)
class CombinedAudits(Displayed):
    """Several audits combined: ``results`` (method → engine result), ``table``, section, verdict."""

    names: tuple[str, ...]
    level: float
    side: str
    at: str
    results: dict = field(repr=False)
    table: pd.DataFrame = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict

    _key_table = "table"

    def to_dict(self) -> dict:
        """The document ``combine --json`` prints: each run's log e-value (None when not finite), its own
        decision and whether each method rejects it, and each method's result."""
        log_e = list(next(iter(self.results.values())).log_e)
        decisions = list(self.table["own decision"])
        return {"level": self.level, "side": self.side, "at": self.at,
                "runs": [{"name": n, "log_e": (e if math.isfinite(e) else None), "own_decision": d,
                          **{m: r.rejected[i] for m, r in self.results.items()}}
                         for i, (n, e, d) in enumerate(zip(self.names, log_e, decisions, strict=True))],
                "methods": {m: r.to_dict() for m, r in self.results.items()}}


def _decision_of(run: Any) -> str | None:
    """The audit's own dual-test decision, from a replay result or its JSON."""
    if isinstance(run, dict):
        decision = run.get("decision")
        return decision.get("decision") if isinstance(decision, dict) else decision
    return run.decision


def combine_audits(runs: Sequence[tuple[str, Any]], level: float = 0.05, side: str = "model", at: str = "end",
                   methods: Sequence[str] = METHODS) -> CombinedAudits:
    """e-BH and/or e-Bonferroni over ``runs`` = (name, replay result or its ``to_dict()``) pairs."""
    names = tuple(name for name, _ in runs)
    log_e = [audit_e_value(run if isinstance(run, dict) else run.to_dict(), side, at) for _, run in runs]
    results: dict[str, MultipleTestResult] = combine(log_e, level, names, methods)
    decisions = [_decision_of(run) for _, run in runs]
    what = "failure modes" if side == "model" else "passed audits"
    verdict = Verdict("neutral", "; ".join(f"{m}: {plural(sum(r.rejected), 'audit')} of {len(names)} rejected"
                                           for m, r in results.items()) + f" ({what}, level {level:g}).",
                      caveat=" ".join(r.guarantee for r in results.values()))
    section = views.combination_section(results, names, decisions, level, f"{len(names)} replayed audits",
                                        verdict=verdict.text)
    return CombinedAudits(names=names, level=level, side=side, at=at, results=results,
                          table=views.combination_table(results, names, decisions), section=section, verdict=verdict)
