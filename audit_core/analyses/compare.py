"""Compare two labelled runs on the cases they share (two models, two prompt versions, ...).

The paired difference B − A overall and per subgroup with intervals (Newcombe's paired score
interval for 0/1 scores, the paired t interval otherwise), the regressions and improvements case
by case, each run's own dual-test decision, and the cases present in one run only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from audit_core.analyses.common import Verdict, plural
from audit_core.analyses.display import Displayed
from audit_core.analyses.replay import typed_run
from audit_core.analyses.sources import Source
from audit_core.presets import DEFAULT_AUDITOR_PROCESS, DEFAULT_MODEL_PROCESS, audit_params
from audit_core.report.document import ReportSection
from audit_core.sequential import AuditParams
from audit_core.sequential.compare import RunComparison
from audit_core.sequential.compare import compare_runs as _compare_runs
from audit_core.views import sequential as views


@dataclass(frozen=True, repr=False)
class RunsComparison(Displayed):
    """Two runs compared case by case.

    Attributes
    ----------
    comparison : the engine's :class:`~audit_core.sequential.compare.RunComparison`.
    decisions_table, subgroup_table, changes_table : display tables; difference_chart : the paired
    differences with intervals; section; verdict.
    """

    sources: tuple[Source, Source]
    comparison: RunComparison = field(repr=False)
    decisions_table: pd.DataFrame = field(repr=False)
    subgroup_table: pd.DataFrame = field(repr=False)
    changes_table: pd.DataFrame = field(repr=False)
    difference_chart: dict = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict

    _key_table = "subgroup_table"
    _key_chart = "difference_chart"

    def to_dict(self) -> dict:
        """The document ``compare --json`` prints."""
        return self.comparison.to_dict()


def _verdict(c: RunComparison) -> Verdict:
    a, b = c.names
    o = c.overall
    if o.ci_low > 0:
        tone, what = "good", f"{b} is better than {a}"
    elif o.ci_high < 0:
        tone, what = "bad", f"{b} is worse than {a}"
    else:
        tone, what = "neutral", f"no clear difference between {b} and {a}"
    return Verdict(tone, f"{what}: {o.difference:+.3f} [{o.ci_low:+.3f}, {o.ci_high:+.3f}] on {c.n_common} common "
                         f"cases, {plural(o.regressions, 'regression')} and {plural(o.improvements, 'improvement')}.",
                   caveat="The interval holds for the common cases at a fixed sample size; each run's own audit "
                          "decision is anytime-valid.")


def compare_runs(source_a: Source, source_b: Source, score: str | None = None,
                 subgroups: Sequence[str] | None = None, id: str | None = None, params: AuditParams | None = None,
                 names: tuple[str, str] | None = None, confidence: float = 0.95,
                 model_process: str = DEFAULT_MODEL_PROCESS,
                 auditor_process: str = DEFAULT_AUDITOR_PROCESS) -> RunsComparison:
    """Type both runs with the same roles, then ``compare_runs`` them on their shared case ids."""
    runs = [typed_run(s, score, subgroups, id=id) for s in (source_a, source_b)]
    names = names or (source_a.name, source_b.name)
    if names[0] == names[1]:
        names = (names[0] + " (A)", names[1] + " (B)")
    params = params or audit_params(source_a.value.style)
    result = _compare_runs(runs[0], runs[1], params, names, confidence, model_process, auditor_process)
    notes = tuple(f"{n}: {note}" for n, data in zip(names, runs, strict=True) for note in data.notes)
    result = _with_notes(result, notes)
    verdict = _verdict(result)
    chart = views.comparison_chart(result)
    section = views.comparison_section(result, f"{source_a.description} and {source_b.description}",
                                       {**params.to_dict(), "model process": model_process,
                                        "auditor process": auditor_process, "confidence": confidence},
                                       chart, verdict=verdict.text)
    return RunsComparison(sources=(source_a, source_b), comparison=result,
                          decisions_table=views.decisions_table(result), subgroup_table=result.subgroups,
                          changes_table=result.changes, difference_chart=chart, section=section, verdict=verdict)


def _with_notes(result: RunComparison, notes: tuple[str, ...]) -> RunComparison:
    from dataclasses import replace
    return replace(result, notes=tuple(result.notes) + notes)
