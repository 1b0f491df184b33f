"""Replay use case (paper 001 section 3.2): every e-process over a recorded annotation run.

Scores are replayed in annotation order (the run's order column when there is one). The dual test
stops at the first step where the model's e-process (failure mode found) or the auditor's (audit
passed) reaches 1/α.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from audit_core.analyses.common import Verdict
from audit_core.analyses.display import Displayed
from audit_core.analyses.sources import ColumnRoles, Source
from audit_core.data.bundled import BUNDLED
from audit_core.data.csvio import COMPACTED, compact_frame
from audit_core.data.inspect_log import STOPPED_EARLY
from audit_core.data.labels import ACCEPTED_SCORES, ScoreLabels, apply_score_mapping
from audit_core.data.labels import score_labels as _score_labels
from audit_core.data.loader import AuditData, load_audit_frame, missing_scores
from audit_core.data.sources import load_audit_source
from audit_core.errors import InputError
from audit_core.presets import BUNDLED_POOLS, DEFAULT_AUDITOR_PROCESS, DEFAULT_MODEL_PROCESS
from audit_core.report import format as fmt
from audit_core.report.document import ReportSection
from audit_core.sequential import (
    AUDIT_PASSED,
    FAILURE_FOUND,
    FAMILY_WISE,
    MODEL_PROCESSES,
    AuditParams,
    Replay,
    replay,
)
from audit_core.sequential.params import audit_params

__all__ = ["ACCEPTED_SCORES", "RunReplay", "missing_score_count", "replay_run", "score_labels", "typed_run"]

CAVEATS = {
    FAILURE_FOUND: ("The model's e-process reached 1/α: with probability at least 1 − α no such crossing "
                    "happens when every subgroup is at or above q, whatever the sampling and stopping."),
    AUDIT_PASSED: ("The auditor's e-process reached 1/α. What is controlled: if every subgroup this strategy "
                   "selects from step m on were below q (the auditor's null), a pass would happen with "
                   "probability at most α, whatever the stopping. So the strategy did not keep finding "
                   "subgroups below q; this is not a probability that it would find one, and not a proof "
                   "that no subgroup is below q."),
}
INCONCLUSIVE_CAVEAT = ("Neither e-process reached 1/α within the run: the dual test neither finds a failure mode "
                       "nor passes the audit. More labels can be added; the guarantees hold at any stopping time.")


@dataclass(frozen=True, repr=False)
class RunReplay(Displayed):
    """A replayed run.

    Attributes
    ----------
    data : the typed run (:class:`~audit_core.data.loader.AuditData`; notes in ``data.notes``).
    result : the engine's :class:`~audit_core.sequential.Replay`.
    roles : the score, subgroup and order columns used.
    verdict.
    decision_table, subgroup_table : display tables; trajectory_chart, subgroup_chart,
    frequency_chart : Vega-Lite specs; section. These are built from ``result`` on first use, once:
    the command line prints ``result`` and never loads the chart library (``with_views`` builds
    them all, e.g. before a copy is cached).
    """

    source: Source
    roles: ColumnRoles
    data: AuditData = field(repr=False)
    result: Replay = field(repr=False)
    verdict: Verdict

    _key_table = "subgroup_table"
    _key_chart = "trajectory_chart"

    def to_dict(self) -> dict:
        """The document ``replay --json`` prints: the engine's replay, the file, the columns used and
        the loader's notes."""
        data = self.data
        return {**self.result.to_dict(), "file": self.source.name,
                "columns": {"score": data.score, "order": data.order, "subgroups": list(data.subgroups),
                            "id": data.id},
                "warnings": list(data.warnings), "notes": list(data.notes),
                "verdict": self.verdict.text}  # the page's verdict, word for word

    @cached_property
    def _specs(self) -> tuple[dict, dict, dict]:
        from audit_core.views import sequential as views  # Altair: loaded when a view is first asked for

        return views.replay_specs(self.result, MODEL_PROCESSES, self.source.name)

    @property
    def trajectory_chart(self) -> dict:
        return self._specs[0]

    @property
    def subgroup_chart(self) -> dict:
        return self._specs[1]

    @property
    def frequency_chart(self) -> dict:
        return self._specs[2]

    @cached_property
    def decision_table(self) -> pd.DataFrame:
        from audit_core.views import sequential as views

        return views.decision_table(self.result, MODEL_PROCESSES)

    @property
    def subgroup_caption(self) -> str:
        """What the subgroup table's columns and flags mean (the Replay page's caption)."""
        from audit_core.views.flags import subgroup_caption

        return subgroup_caption(self.result)

    @cached_property
    def subgroup_table(self) -> pd.DataFrame:
        from audit_core.views import sequential as views

        return views.subgroup_view(self.result)[0]

    @cached_property
    def section(self) -> ReportSection:
        from audit_core.views import sequential as views

        return views.replay_section(self.result, MODEL_PROCESSES, self.source.name, self.source.description,
                                    self.roles.to_dict(), self.data.notes, self._specs, verdict=self.verdict.text,
                                    warnings=self.data.warnings)

    def with_views(self) -> RunReplay:
        """This replay with every table, chart and the section built (returns itself)."""
        for name in ("_specs", "decision_table", "subgroup_table", "section"):
            getattr(self, name)
        return self

    def compacted(self) -> RunReplay:
        """This replay with its typed table stored compactly (returns itself), for a replay a
        server keeps for several sessions: the text columns (ids, subgroup labels) become
        categorical or Arrow strings (:func:`~audit_core.data.csvio.compact_frame`; the same
        values, ~80 MB -> ~12 MB for a 525,000-row run). Nothing computed from the table changes."""
        if COMPACTED not in self.data.frame.attrs:
            object.__setattr__(self, "data", dataclasses.replace(self.data, frame=compact_frame(self.data.frame)))
        return self

    def without_table(self) -> RunReplay:
        """This replay without the rows of its typed table (returns itself), for a replay a server
        shares between sessions once its views are built (:meth:`with_views`): ``data.frame`` keeps
        its columns, their types and ``attrs``, with no rows. Everything shown and reported comes
        from ``result``, the columns used and the loader's notes (``to_dict``, ``section``, the
        tables and charts are unchanged); the typed table of a 655,000-row run was ~15 MB more per
        cached replay (the score column as floats, the ids as text). ``data.n`` is then 0: the
        number of cases replayed is ``result.n``."""
        if len(self.data.frame):
            object.__setattr__(self, "data", dataclasses.replace(self.data, frame=self.data.frame.iloc[:0].copy()))
        return self


def weakest_subgroup(result: Replay):
    """The subgroup the evidence says is weakest: the lowest anytime-valid upper bound (each
    subgroup's own interval, all at the same level, so the bounds compare; ties: more cases first,
    then the table's order), not the lowest point estimate (0 of 2 cases is weak evidence of
    anything). None without at least two subgroups."""
    if not result.subgroup_columns or len(result.subgroup_table) < 2:
        return None
    return min(result.subgroups, key=lambda p: (p.cs_high, -p.n))


def _weakest(result: Replay) -> str:
    weakest = weakest_subgroup(result)
    if weakest is None:
        return ""
    name = " · ".join(map(str, weakest.label))
    return (f", weakest subgroup {name} (lowest anytime-valid upper bound {fmt.rate(weakest.cs_high)}; "
            f"accuracy {fmt.rate(weakest.accuracy)}, n = {fmt.count(weakest.n)})")


TWO_CLAIMS = ("Two tests, two claims, both at level α: the dual test compares the model's and the auditor's "
              "e-processes over the whole run (paper 001); a family-wise flag says that subgroup's "
              "anytime-valid interval at its share of α lies below q, all subgroups at once (the shares, fixed "
              "before the data, sum to α). "
              "Per-subgroup flags (each interval on its own) are claims about one subgroup each.")
FAILING_WINS = ("A subgroup proven below q wins over the dual test's pass or its silence (docs/e-processes.md, "
                "one verdict): the pass rejects the auditor's null, so this strategy did not keep finding subgroups "
                "below q; the flag proves, at level α family-wise, that this subgroup is below q.")


def _verdict(result: Replay) -> Verdict:
    """The run's one statement (docs/e-processes.md, "One verdict"): the dual test's decision, then
    the family-wise subgroup flags (the same lines as the report's summary,
    :func:`~audit_core.views.sequential.flag_statements`). A failure found by the dual test leads;
    otherwise a subgroup proven below q family-wise leads, as "a failing subgroup was found", with
    the dual test's pass or inconclusive result after it: a pass beside a proven failure is never
    the headline."""
    dual = result.dual
    pair = f"{dual.model_process} vs {dual.auditor_process}"
    from audit_core.views.flags import flag_statements  # plain text: no chart library

    flags = " ".join(flag_statements(result)) if result.subgroup_columns else ""
    tail = f" {flags}" if flags else ""
    level = f"q = {result.params.q:g}, α = {result.params.alpha:g}"
    two = f" {TWO_CLAIMS}" if flags else ""
    if dual.decision == FAILURE_FOUND:
        return Verdict("bad", f"Dual test: failure mode found at case {fmt.count(dual.stop)} of {fmt.count(result.n)}"
                              f"{_weakest(result)} ({pair}, {level}).{tail}",
                       CAVEATS[FAILURE_FOUND] + two)
    failing = result.flagged(FAMILY_WISE) if result.subgroup_columns else ()
    if failing:
        names = fmt.listing(" · ".join(map(str, p.label)) for p in failing)
        dual_said = (f"the dual test passed the audit at case {fmt.count(dual.stop)} of {fmt.count(result.n)}"
                     if dual.decision == AUDIT_PASSED else
                     f"the dual test was inconclusive after {fmt.count(result.n)} cases")
        return Verdict("bad", f"A failing subgroup was found: {names} below q family-wise, although {dual_said} "
                              f"({pair}, {level}).{tail}",
                       FAILING_WINS + " " + CAVEATS.get(dual.decision, INCONCLUSIVE_CAVEAT) + two)
    if dual.decision == AUDIT_PASSED:
        return Verdict("good", f"Dual test: audit passed at case {fmt.count(dual.stop)} of {fmt.count(result.n)} "
                               f"({pair}, {level}).{tail}",
                       CAVEATS[AUDIT_PASSED] + two)
    return Verdict("neutral", f"Dual test: inconclusive after {fmt.count(result.n)} cases, neither e-process reached "
                              f"1/α = {1 / result.params.alpha:g} ({pair}){_weakest(result)}.{tail}",
                   INCONCLUSIVE_CAVEAT + two)


def missing_score_count(source: Source, column: str) -> int:
    """How many rows of a run's CSV have no value in ``column`` (0 for a log or no such column):
    the page offers to leave them out."""
    table = source.value
    if table.is_log or column not in table.columns:
        return 0
    return int(missing_scores(table.frame[column]).sum())


def score_labels(source: Source, column: str) -> ScoreLabels:
    """The distinct labels of a run's column with suggested scores, for a value-mapping step
    (accepted values: :data:`ACCEPTED_SCORES`)."""
    table = source.value
    if column not in table.columns:
        raise InputError(f"{source.name}: no column {column!r}")
    return _score_labels(table.column(column), column)


def typed_run(source: Source, score: str | None = None, subgroups: Sequence[str] | None = None,
              order: str | bool | None = None, id: str | None = None,
              score_mapping: Mapping[str, float] | None = None, filter: str | None = None,
              drop_missing: bool = False) -> AuditData:
    """The run typed with the chosen roles (see :func:`replay_run` for what None means)."""
    table = source.value
    if table.is_log:
        return load_audit_source(table.log, source.name, score=score, subgroups=subgroups, order=order,
                                 filter=filter, labels=table.labels)
    if filter is not None:
        raise InputError(f"{source.name}: a filter applies to lm-eval samples only")
    if source.bundled:  # the bundled dataset's roles; a file's are detected (and noted) by the loader
        roles = table.defaults
        score = score or roles.score
        subgroups = tuple(roles.subgroups) if subgroups is None else subgroups
        order = roles.order if order is None else order
    frame = table.frame
    if score_mapping:
        score = score or table.defaults.score
        if not score or score not in frame.columns:
            raise InputError("a score mapping needs the score column it applies to")
        frame = frame.assign(**{score: apply_score_mapping(frame[score], score_mapping, score)})
    try:
        return load_audit_frame(frame, name=source.name, score=score, id=id,
                                subgroups=None if subgroups is None else tuple(subgroups), order=order,
                                drop_missing=drop_missing)
    except InputError as exc:
        column = score or table.defaults.score
        if column in frame.columns and missing_scores(frame[column]).any() and not drop_missing:
            raise  # the cause is the rows without a score, whatever the labels of the others
        labels = _score_labels(frame[column], column) if column in frame.columns and not score_mapping else None
        if labels is None or not labels.needs_mapping or labels.too_many:
            raise
        shown = ", ".join(f"{k}={v:g}" for k, v in labels.suggested.items()) or "none recognised"
        raise InputError(f"{exc}; column {column!r} holds labels ({', '.join(labels.labels[:8])}) that need a "
                         f"mapping to scores (the built-in vocabulary suggests: {shown})") from None


def replay_run(source: Source, score: str | None = None, subgroups: Sequence[str] | None = None,
               order: str | bool | None = None, params: AuditParams | None = None,
               model_process: str = DEFAULT_MODEL_PROCESS,
               auditor_process: str = DEFAULT_AUDITOR_PROCESS,
               score_mapping: Mapping[str, float] | None = None, filter: str | None = None,
               drop_missing: bool = False, planned_n: int | None = None) -> RunReplay:
    """Type the run with the chosen roles, then ``replay`` it through the six e-processes.

    ``score``/``subgroups``/``order`` of None take the bundled dataset's roles, or are detected
    in a file (the loader notes what it chose); ``subgroups=()`` means none; ``order=False``
    means file order. For an evaluation log, ``score`` names the scorer or metric and
    ``subgroups`` metadata keys or doc fields; ``filter`` picks an lm-eval filter.
    ``score_mapping`` maps text labels of the score column (e.g.
    correct/incorrect) to scores in [0, 1] before the column is read.
    ``params`` default to the run's style (:func:`audit_core.presets.resolve_style`). Rows without a
    score are refused, saying how many;
    ``drop_missing`` leaves them out and the warnings say so. ``planned_n``: the number of cases
    the audit planned before the data; the overall interval of 0/1 scores is tuned to it
    (:func:`audit_core.sequential.replay`).
    """
    data = typed_run(source, score, subgroups, order, score_mapping=score_mapping, filter=filter,
                     drop_missing=drop_missing)
    return _replayed(source, data, params if params is not None else audit_params(source.value.style),
                     model_process, auditor_process, planned_n)


def declared_family(source: Source, data: AuditData) -> list[tuple[str, ...]] | None:
    """The subgroups named before the data, when the source names them all (issue 28 item 1): a
    bundled pool (its table is every case of the pool) or a run recorded from a bundled pool
    (``BundledDataset.pool``), for the subgroup columns used. None otherwise: a file or log may
    lack a subgroup that was never sampled, and the family-wise flags then spend α by order of
    first appearance (:mod:`audit_core.sequential.replay`)."""
    if not source.bundled or not data.subgroups or not source.key.startswith("bundled:"):
        return None
    dataset = BUNDLED.get(source.key.removeprefix("bundled:"))
    if dataset is None:
        return None
    if dataset.key in BUNDLED_POOLS:
        frame = data.frame
    elif dataset.pool in BUNDLED:
        frame = pd.read_csv(BUNDLED[dataset.pool].path, usecols=lambda c: c in data.subgroups, dtype=str)
    else:
        return None
    if not set(data.subgroups) <= set(frame.columns):
        return None
    return sorted(set(map(tuple, frame[list(data.subgroups)].astype(str).itertuples(index=False, name=None))))


def _replayed(source: Source, data: AuditData, params: AuditParams, model_process: str,
              auditor_process: str, planned_n: int | None = None) -> RunReplay:
    """``replay`` of typed data, with its views, section and verdict."""
    result = replay(data.scores, params, subgroups=data.subgroup_frame, model_process=model_process,
                    auditor_process=auditor_process, family=declared_family(source, data), planned_n=planned_n)
    used = ColumnRoles(data.score, tuple(data.subgroups), data.order)
    verdict = _verdict(result)
    stopped = next((note for note in data.notes if note.startswith(STOPPED_EARLY)), None)
    if stopped:  # an Inspect run stopped by audit_core.inspect: said with the decision, on every front end
        verdict = dataclasses.replace(verdict, text=f"{verdict.text} Evaluation {stopped}.")
    return RunReplay(source=source, roles=used, data=data, result=result, verdict=verdict)
