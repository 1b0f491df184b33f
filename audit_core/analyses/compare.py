"""Compare runs on the cases they share (two models, two prompt versions, a folder of K runs).

Two runs (A, the baseline, and B): the anytime-valid confidence sequence of the paired difference
B − A with the pre-registered margin's decision (B better, A better, equivalent, non-inferior,
continue, inconclusive at the budget), beside the fixed-n Newcombe interval and the exact McNemar
test; overall and per subgroup (family-wise over the subgroups, as Replay has it); the regressions
and improvements case by case; each run's own dual-test decision; the cases present in one run
only. K runs (several sources, or one long table with a ``run`` column): every pair with
e-Bonferroni over the K(K−1)/2 pairs, tie groups at the margin and a rank interval per run
(:mod:`audit_core.sequential.compare`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from audit_core.analyses.common import Verdict
from audit_core.analyses.display import Displayed
from audit_core.analyses.replay import typed_run
from audit_core.analyses.sources import Source
from audit_core.data.loader import load_audit_frame
from audit_core.errors import InputError
from audit_core.presets import (
    A_BETTER,
    B_BETTER,
    COMPARE_MARGIN,
    CONTINUE,
    DEFAULT_AUDITOR_PROCESS,
    DEFAULT_MODEL_PROCESS,
    EQUIVALENT,
    FAIL_ON,
    INCONCLUSIVE_AT_BUDGET,
    NON_INFERIOR,
    RUN_COLUMN,
    TASK_COLUMN,
)
from audit_core.report.document import ReportSection
from audit_core.sequential import AuditParams
from audit_core.sequential.compare import (
    ManyRunComparison,
    MatchedRuns,
    RunComparison,
    TaskComparisons,
    compare_by_task,
    compare_many,
    match_runs,
)
from audit_core.sequential.compare import compare_runs as _compare_runs
from audit_core.sequential.params import audit_params
from audit_core.views import sequential as views


@dataclass(frozen=True, repr=False)
class RunsComparison(Displayed):
    """Runs compared case by case.

    Attributes
    ----------
    comparison : the engine's :class:`~audit_core.sequential.compare.RunComparison` of A and B
        (anytime-valid sequence and decision, fixed-n interval, McNemar, subgroups, changes).
    runs : the engine's :class:`~audit_core.sequential.compare.ManyRunComparison` of every run
        (for two runs: the same pair at the same level). matched : the cases every run shares and
        each run's unmatched ids. names : every run's name; A and B are ``comparison.names``.
    decisions_table, subgroup_table, changes_table, tie_table, pairs_table : display tables;
    difference_chart (fixed-n, per subgroup), trajectory_chart (the sequence with the margin band),
    ranks_chart : Vega-Lite specs; section; verdict (the decision sentence). tasks : when the
    matched cases span two or more tasks (a ``task`` column), every run compared within each task
    and pooled (:class:`~audit_core.sequential.compare.TaskComparisons`, its pooling stated), else
    None; task_table : its table (empty without tasks).
    """

    sources: tuple[Source, ...]
    comparison: RunComparison = field(repr=False)
    runs: ManyRunComparison = field(repr=False)
    matched: MatchedRuns = field(repr=False)
    names: tuple[str, ...]
    decisions_table: pd.DataFrame = field(repr=False)
    subgroup_table: pd.DataFrame = field(repr=False)
    changes_table: pd.DataFrame = field(repr=False)
    tie_table: pd.DataFrame = field(repr=False)
    pairs_table: pd.DataFrame = field(repr=False)
    difference_chart: dict = field(repr=False)
    trajectory_chart: dict = field(repr=False)
    ranks_chart: dict = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict
    tasks: TaskComparisons | None = field(default=None, repr=False)
    task_table: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)

    _key_table = "tie_table"
    _key_chart = "trajectory_chart"

    @property
    def decision(self) -> str:
        """The margin decision of B against A (anytime-valid, at 1 − confidence)."""
        return self.comparison.sequence.decision

    def fails(self, fail_on: str) -> bool:
        """The regression gate (``compare --fail-on``): ``"worse"`` when some run is worse than the
        baseline A beyond the margin (decision "A better" on the simultaneous bounds; for two runs
        the pair's own), ``"not-non-inferior"`` when some run is not shown non-inferior to A."""
        if fail_on not in FAIL_ON:
            raise InputError(f"fail on: expected one of {', '.join(FAIL_ON)}, got {fail_on!r}")
        # the baseline is the first run of ``runs``, so each of its pairs has it as "a"
        baseline = self.comparison.names[0]
        versus = [r["decision"] for r in self.runs.pairs.to_dict(orient="records") if r["a"] == baseline]
        if fail_on == "worse":
            return any(d == A_BETTER for d in versus)
        return not all(d in (B_BETTER, EQUIVALENT, NON_INFERIOR) for d in versus)

    def to_dict(self) -> dict:
        """The document ``compare --json`` prints."""
        return {**self.comparison.to_dict(), "verdict": self.verdict.text,
                "runs": {**self.runs.to_dict(), "unmatched": self.matched.to_dict()},
                "tasks": None if self.tasks is None else self.tasks.to_dict()}


_SENTENCES = {
    B_BETTER: ("good", "{b} is better than {a} by more than the margin {m:g}"),
    A_BETTER: ("bad", "{b} is worse than {a} by more than the margin {m:g}"),
    EQUIVALENT: ("good", "{b} and {a} are equivalent within the margin {m:g}"),
    NON_INFERIOR: ("good", "{b} is non-inferior to {a} (not worse by more than the margin {m:g})"),
    CONTINUE: ("neutral", "{b} and {a} are not separated yet at the margin {m:g} (continue)"),
    INCONCLUSIVE_AT_BUDGET: ("neutral", "inconclusive at the budget: {b} and {a} are not separated at the margin {m:g}"),
}


def _verdict(c: RunComparison, many: ManyRunComparison) -> Verdict:
    a, b = c.names
    seq = c.sequence
    tone, what = _SENTENCES[seq.decision]
    text = (f"{what.format(a=a, b=b, m=seq.margin)}: B − A = {seq.difference:+.3f}, anytime-valid "
            f"{1 - seq.alpha:.0%} bounds [{seq.lower:+.3f}, {seq.upper:+.3f}] after {seq.n} paired cases"
            + (f" (decided at case {seq.decided_at})" if seq.decided_at else "") + ".")
    caveat = ("The bounds hold at every case and under optional stopping (a confidence sequence); the Newcombe "
              "interval and McNemar's test beside them hold only at a sample size fixed in advance.")
    if len(many.names) > 2:
        groups = ", ".join("{" + ", ".join(many.names[r] for r in g) + "}" for g in many.groups)
        text += f" Tie groups of the {len(many.names)} runs at the margin, best first: {groups}."
        # The sentence is the pair named beforehand, at alpha; the family is at alpha / P per pair, so
        # a pair separated in the sentence may still be joined in a group (directly or by a chain).
        caveat += (f" The bounds of {b} − {a} are at level α (the pair named beforehand); the tie groups, ranks and "
                   f"the table of every pair hold all at once, each of the {many.family_size} pairs at level "
                   f"α/{many.family_size} (e-Bonferroni)")
        joined = any({many.names.index(a), many.names.index(b)} <= set(g) for g in many.groups)
        if seq.decision in (A_BETTER, B_BETTER) and joined:
            caveat += f", which is why {a} and {b} are separated here yet share a tie group"
        caveat += "."
    return Verdict(tone, text, caveat=caveat)


def split_runs(source: Source, run_column: str = RUN_COLUMN, score: str | None = None,
               subgroups: Sequence[str] | None = None, id: str | None = None) -> list[tuple[str, object]]:
    """One long table with a ``run_column`` as (run name, typed run) pairs, runs in file order."""
    table = source.value
    if table.is_log or run_column not in table.columns:
        raise InputError(f"{source.name}: one table compares runs only with a {run_column!r} column naming each "
                         "row's run; otherwise give two or more runs")
    frame = table.frame
    if source.bundled:
        score = score or table.defaults.score
        subgroups = tuple(table.defaults.subgroups) if subgroups is None else subgroups
    if source.bundled:
        from audit_core.data.bundled import BUNDLED_RUN_SETS
        dataset = BUNDLED_RUN_SETS.get(source.key.removeprefix("bundled:"))
        if dataset is not None:
            id = id or dataset.id
            # the true accuracy column is the generator's, never a run's feature
            frame = frame.drop(columns=[c for c in (dataset.truth,) if c and c in frame.columns])
    names = list(dict.fromkeys(frame[run_column].astype(str)))
    if len(names) < 2:
        raise InputError(f"{source.name}: column {run_column!r} names {len(names)} run; a comparison needs two or more")
    labels = frame[run_column].astype(str)
    return [(name, load_audit_frame(frame[labels == name].drop(columns=[run_column]).reset_index(drop=True),
                                    name=name, score=score, id=id,
                                    subgroups=None if subgroups is None else tuple(subgroups)))
            for name in names]


def compare_runs(source_a: Source, source_b: Source | None = None, score: str | None = None,
                 subgroups: Sequence[str] | None = None, id: str | None = None, params: AuditParams | None = None,
                 names: Sequence[str] | None = None, confidence: float = 0.95,
                 model_process: str = DEFAULT_MODEL_PROCESS, auditor_process: str = DEFAULT_AUDITOR_PROCESS,
                 margin: float = COMPARE_MARGIN, budget: int | None = None, others: Sequence[Source] = (),
                 run_column: str = RUN_COLUMN, pair: tuple[int, int] = (0, 1)) -> RunsComparison:
    """Type every run with the same roles and compare them on their shared case ids.

    Runs: ``source_a``, ``source_b`` and ``others``; or ``source_a`` alone, a long table whose
    ``run_column`` names each row's run. ``pair``: which two runs are A (the baseline) and B (by
    position). ``margin``: the pre-registered δ; ``budget``: the planned number of paired cases
    (None: open-ended, undecided is "continue"). Level α = 1 − ``confidence`` for every bound.
    """
    sources = (source_a,) + ((source_b,) if source_b is not None else ()) + tuple(others)
    if source_b is None and not others:
        typed = split_runs(source_a, run_column, score, subgroups, id)
        run_names, runs = [n for n, _ in typed], [r for _, r in typed]
    else:
        runs = [typed_run(s, score, subgroups, id=id) for s in sources]
        run_names = [s.name for s in sources]
    if names is not None:
        if len(names) != len(runs):
            raise InputError(f"names: {len(names)} name(s) for {len(runs)} run(s)")
        run_names = [str(n) for n in names]
    run_names = _distinct(run_names)
    first, second = pair
    if not (0 <= first < len(runs) and 0 <= second < len(runs)) or first == second:
        raise InputError(f"runs A and B: choose two different runs of the {len(runs)}")
    params = params or audit_params(source_a.value.style)
    names_ab = (run_names[first], run_names[second])
    result = _compare_runs(runs[first], runs[second], params, names_ab, confidence, model_process, auditor_process,
                           margin, budget)
    notes = tuple(f"{n}: {note}" for n, data in zip(run_names, runs, strict=True) for note in data.notes)
    result = replace(result, notes=tuple(result.notes) + notes)
    # every run on the cases all share, A and B first so that the pair's bounds are A's order too
    order = [first, second] + [i for i in range(len(runs)) if i not in (first, second)]
    matched = match_runs([runs[i] for i in order], [run_names[i] for i in order])
    many = compare_many(matched.scores, matched.names, 1.0 - confidence, margin, budget)
    tasks = _by_task(runs[order[0]], matched, 1.0 - confidence, margin, budget)
    verdict = _verdict(result, many)
    chart = views.comparison_chart(result)
    trajectory = views.difference_trajectory_chart(result)
    ranks = views.ranks_chart(many)
    described = " and ".join(s.description for s in sources)
    section = views.comparison_section(
        result, described, {**params.to_dict(), "model process": model_process, "auditor process": auditor_process,
                            "confidence": confidence, "margin": margin, "budget": budget,
                            "multiplicity": f"{many.multiplicity} over {many.family_size} pair(s)"},
        chart, verdict=verdict.text, many=many,
        charts=(("Anytime-valid difference with the margin band", trajectory), ("Ranks and tie groups", ranks)),
        tasks=tasks)
    return RunsComparison(sources=sources, comparison=result, runs=many, matched=matched, names=tuple(run_names),
                          decisions_table=views.decisions_table(result), subgroup_table=views.subgroup_display_table(result),
                          changes_table=result.changes, tie_table=many.tie_table(), pairs_table=views.pairs_table(many),
                          difference_chart=chart, trajectory_chart=trajectory, ranks_chart=ranks, section=section,
                          verdict=verdict, tasks=tasks,
                          task_table=tasks.table() if tasks is not None else pd.DataFrame())


def _by_task(first, matched: MatchedRuns, alpha: float, margin: float, budget: int | None) -> TaskComparisons | None:
    """Per task and pooled, when the first run names two or more tasks among the matched cases."""
    if TASK_COLUMN not in first.frame.columns or first.id is None:
        return None
    task_of = dict(zip(first.frame[first.id].astype(str), first.frame[TASK_COLUMN].astype(str), strict=True))
    labels = [task_of[i] for i in matched.ids]
    if len(set(labels)) < 2:
        return None
    return compare_by_task(matched.scores, labels, matched.names, alpha, margin, budget)


def _distinct(names: Sequence[str]) -> list[str]:
    """Names made unique by their position ("run (2)") when two runs share one."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    if len(set(out)) < len(out):  # a given name collided with a made-up one
        out = [f"{n} [{i + 1}]" for i, n in enumerate(out)]
    return out
