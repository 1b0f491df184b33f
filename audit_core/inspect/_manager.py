"""Anytime-valid early stopping for Inspect AI: the manager behind :func:`early_stopping`.

Inspect calls four async methods (``inspect_ai.util.EarlyStopping``): ``start_task`` with the
samples and epochs, ``schedule_sample`` before each (sample, epoch) runs (an ``EarlyStop`` skips
it), ``complete_sample`` with its scores when it ends, ``complete_task`` whose return value is
written into the log (``results.early_stopping.metadata``).

What the manager decides on (docs/inspect.md):

* **Cases.** ``epochs="cases"`` (default, as ``replay`` reads a log): each (sample, epoch) is one
  case, its score the watched scorer's value mapped as replay maps it (C = 1, I = 0, P = 0.5,
  N = 0, booleans 1/0, numbers as they are; it must lie in [0, 1]). ``epochs="clusters"``: a
  sample is one case whose score is the mean over its epochs, entering the decisions when its
  last epoch completes (the item is the unit; its epochs are a cluster).
* **Order.** Completed cases in the order Inspect reports them (``complete_sample``), which with
  ``max_samples`` > 1 differs from the dataset's. The order is written into the log, so that
  ``replay`` reads the scores in the same order.
* **Late cases.** Once a subgroup's question is answered its decisions are frozen: samples that
  were already running complete, are counted and written as late, and change nothing.
* **Not scores.** A sample that errored (Inspect reports the scores of an errored sample under
  ``score_on_error``) or has no value for the watched score is recorded and never fed to a rule.
  Skipped samples have no score at all.

Rules, per subgroup (the combination of the sample-metadata keys given; one group without), each
at level α/K for K subgroups (Bonferroni over the subgroups, as the Replay page's family-wise
flags; α itself without subgroups):

* ``dual``: the dual test of paper 001 (section 3.2.3, :class:`~audit_core.sequential.DualTest`):
  the model's e-process reaching K/α finds a failure mode, the auditor's passes the audit;
  P(failure found | every case's conditional mean >= q) <= α/K and symmetrically for the
  auditor's null, at any stopping time.
* ``precision`` = ε: the subgroup's anytime-valid confidence sequence
  (:func:`~audit_core.sequential.confidence_sequence` at α/K, the subgroup's scores in arrival
  order) has half-width <= ε. Every subgroup's interval covers its mean at once with probability
  >= 1 - α whenever the run stops.
* ``threshold`` = q': the same confidence sequence lies entirely above q' (decision "above") or
  below it ("below"); P(any wrong side) <= α.
* ``budget`` = B: at most B cases are used (in completion order); after that every sample is
  skipped. A budget is a stopping time: it keeps every other rule's guarantee.

A subgroup's question is answered when all its rules have answered (``stop_when="all"``) or the
first has (``"any"``); its remaining samples are then skipped. The task ends when every subgroup
is answered or the budget is spent.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from audit_core.data.inspect_log import inspect_value
from audit_core.errors import InputError, listed, quoted
from audit_core.presets import DEFAULT_AUDITOR_PROCESS, DEFAULT_MODEL_PROCESS, DEFAULT_STYLE
from audit_core.sequential.confseq import BINARY, GRADED, SCORE_TYPES, confidence_sequence, hedged_mixture_counts
from audit_core.sequential.dual import DualTest, check_roles
from audit_core.sequential.params import AuditParams

MANAGER_NAME = "audit_core.inspect"
DATASET = "dataset"  # planned_n: each subgroup's number of cases in the dataset
_LETTERS = {"C": 1.0, "I": 0.0}  # Inspect's CORRECT and INCORRECT, as inspect_value reads them
SCHEMA_VERSION = 1
CASES, CLUSTERS = "cases", "clusters"
EPOCH_TREATMENTS = (CASES, CLUSTERS)
ALL, ANY = "all", "any"
DUAL, PRECISION, THRESHOLD, BUDGET = "dual", "precision", "threshold", "budget"
ABOVE, BELOW = "above", "below"
WHOLE_RUN = "(all)"
# The metadata key of the log under which the manager writes its record (results.early_stopping.metadata).
METADATA_KEY = "audit_core"


@dataclass(frozen=True)
class StoppingRules:
    """The rules a manager applies (see the module docstring).

    ``dual``: run the dual test; ``precision``: ε for the half-width rule, or None; ``threshold``:
    q' for the threshold decision, or None; ``budget``: the most cases used, or None;
    ``stop_when``: ``"all"`` or ``"any"`` of a subgroup's rules answer its question."""

    dual: bool
    precision: float | None
    threshold: float | None
    budget: int | None
    stop_when: str

    def to_dict(self) -> dict:
        return {"dual": self.dual, "precision": self.precision, "threshold": self.threshold,
                "budget": self.budget, "stop_when": self.stop_when}


# The per-step intervals by (alpha, planned n, successes, failures), shared by every manager
# of the process (a simulation's thousands of runs look up the same counts); bounded.
_HEDGED: dict[tuple[float, int | None, int, int], tuple[float, float]] = {}
_HEDGED_MAX = 1_000_000
# Counts looked up together: the triangle of pairs reachable in this many more scores.
_WINDOW = 24


class StreamingInterval:
    """The anytime-valid interval of :func:`~audit_core.sequential.confidence_sequence` kept as
    scores arrive, at O(1) per 0/1 score: the running intersection of the hedged mixture's
    per-step intervals (:func:`~audit_core.sequential.confseq.hedged_mixture_counts`), looked
    up by counts and computed a window of reachable counts at a time. Equal to
    ``confidence_sequence(scores, alpha).final`` to rounding (tests/inspect/test_manager.py).
    ``score_type`` declared before the data (issue 28 item 5): ``"graded"`` is PrPl-EB from the
    first score, recomputed at each score (O(n)); ``"binary"`` refuses a score other than 0 or 1.
    None: 0/1 until a graded score arrives, then PrPl-EB over the whole sequence, as
    ``confidence_sequence`` would choose it for the scores so far; that switch is decided by the
    data, so the α bound covers the run only when it never happens (declare the type)."""

    __slots__ = ("alpha", "scores", "successes", "low", "high", "graded", "score_type", "planned_n")

    def __init__(self, alpha: float, score_type: str | None = None, planned_n: int | None = None):
        if score_type is not None and score_type not in SCORE_TYPES:
            raise InputError(f"score_type: expected one of {', '.join(SCORE_TYPES)} or None, got {score_type!r}")
        self.alpha = alpha
        self.scores: list[float] = []
        self.successes = 0
        self.low, self.high = 0.0, 1.0
        self.score_type = score_type
        self.graded = score_type == GRADED
        self.planned_n = planned_n  # 0/1 scores: tuned to it (set before the data); graded: PrPl-EB as without

    def update(self, y: float) -> tuple[float, float]:
        if self.score_type == BINARY and y not in (0.0, 1.0):
            raise InputError(f"score_type: declared {BINARY!r} but a score is {y:g}; declare {GRADED!r} for "
                             "a scorer with partial credit")
        self.scores.append(y)
        if self.graded or y not in (0.0, 1.0):
            self.graded = True
            self.low, self.high = confidence_sequence(self.scores, self.alpha, score_type=GRADED).final
            return self.low, self.high
        self.successes += int(y)
        key = (self.alpha, self.planned_n, self.successes, len(self.scores) - self.successes)
        raw = _HEDGED.get(key)
        if raw is None:
            raw = _fill_window(self.alpha, self.planned_n, key[2], key[3])
        low, high = max(self.low, raw[0]), min(self.high, raw[1])
        if low > high:  # the empty intersection (a miss): both stay where they met, as confidence_sequence
            low = high = self.high if raw[0] > self.high else self.low
        self.low, self.high = low, high
        return low, high


def _fill_window(alpha: float, planned_n: int | None, s: int, f: int) -> tuple[float, float]:
    if len(_HEDGED) > _HEDGED_MAX:
        _HEDGED.clear()
    pairs = [(s + a, f + b) for a in range(_WINDOW + 1) for b in range(_WINDOW + 1 - a)
             if (alpha, planned_n, s + a, f + b) not in _HEDGED and s + a + f + b >= 1]
    successes = [p[0] for p in pairs]
    failures = [p[1] for p in pairs]
    lows, highs = hedged_mixture_counts(successes, failures, alpha, planned_n=planned_n)
    for (si, fi), low, high in zip(pairs, lows.tolist(), highs.tolist(), strict=True):
        _HEDGED[(alpha, planned_n, si, fi)] = (low, high)
    return _HEDGED[(alpha, planned_n, s, f)]


class _Group:
    """One subgroup's state: the dual test, its scores in arrival order and the rules' answers."""

    __slots__ = ("label", "scores", "dual", "precision", "threshold", "answered_at", "late", "total",
                 "interval", "stream")

    def __init__(self, label: str, total: int):
        self.label = label
        self.total = total  # cases of this subgroup in the run
        self.scores: list[float] = []
        self.dual: DualTest | None = None
        self.precision: int | None = None   # cases used when the half-width first was <= eps
        self.threshold: tuple[str, int] | None = None  # (above / below, cases used)
        self.answered_at: int | None = None  # global index (1-based, among used cases) of the answer
        self.late = 0
        self.interval = (0.0, 1.0)
        self.stream: StreamingInterval | None = None


class AnytimeStopping:
    """Inspect AI ``EarlyStopping`` manager with anytime-valid rules (module docstring).

    Made by :func:`early_stopping`; one manager serves one task (``start_task`` resets it, so a
    task object run twice starts afresh). The four protocol methods are thin async wrappers of
    ``start``, ``schedule``, ``complete`` and ``summary``, which simulations call directly.
    """

    def __init__(self, score: str | None, subgroups: tuple[str, ...], rules: StoppingRules, params: AuditParams,
                 model_process: str, auditor_process: str, epochs: str, score_type: str | None = None,
                 planned_n: str | None = DATASET):
        self.score = score
        self.score_type = score_type
        self.planned_n = planned_n
        self.subgroup_keys = subgroups
        self.rules = rules
        self.params = params
        self.model_process, self.auditor_process = model_process, auditor_process
        self.epochs = epochs
        self._started = False

    # ---------------------------------------------------------------- the Inspect protocol
    async def start_task(self, task, samples, epochs: int) -> str:
        scorers = [getattr(s, "name", None) for s in (getattr(task, "scorers", None) or [])]
        ids = [s.id if s.id is not None else position for position, s in enumerate(samples, start=1)]
        self.start(ids, [s.metadata or {} for s in samples], int(epochs), [s for s in scorers if s],
                   task=getattr(task, "task", None))
        return MANAGER_NAME

    async def schedule_sample(self, id, epoch: int):
        reason = self.schedule(id, epoch)
        if reason is None:
            return None
        from inspect_ai.util import EarlyStop  # Inspect is there: it is calling us

        return EarlyStop(id=id, epoch=epoch, reason=reason)

    async def complete_sample(self, id, epoch: int, scores) -> None:
        self.complete(id, epoch, _score_values(scores), errored=_reported_as_errored())

    async def complete_task(self) -> dict:
        return self.summary()

    # ---------------------------------------------------------------- the manager itself
    def start(self, ids: Sequence, metadata: Sequence[dict], epochs: int, scorers: Sequence[str] = (),
              task: str | None = None) -> None:
        """Register the run: sample ids (in dataset order), their metadata, epochs and the task's scorers."""
        if len(ids) != len(metadata):
            raise InputError(f"early stopping: {len(ids)} sample id(s) for {len(metadata)} metadata record(s)")
        if epochs < 1:
            raise InputError(f"early stopping: epochs must be at least 1, got {epochs}")
        self.task = task
        self.scorer, self.key = _choose_score(self.score, list(scorers))
        self.n_epochs = epochs
        self.group_of: dict = {}
        labels = {}
        for sample_id, meta in zip(ids, metadata, strict=True):
            label = _group_label(meta, self.subgroup_keys)
            self.group_of[_key(sample_id)] = label
            labels[label] = labels.get(label, 0) + 1
        per_sample = 1 if self.epochs == CLUSTERS else epochs
        self.groups = {label: _Group(label, count * per_sample) for label, count in sorted(labels.items())}
        self.family_alpha = self.params.alpha / len(self.groups)
        total = len(ids) * per_sample
        # The dual test over the whole run: its budget is the run, not AuditParams.budget (replay
        # reads a recorded run the same way); each subgroup at alpha / K.
        dual_params = self.params.replace(alpha=self.family_alpha, budget=max(total, 1))
        for group in self.groups.values():
            group.dual = (DualTest(dual_params, self.model_process, self.auditor_process) if self.rules.dual
                          else None)
            if self.rules.precision is not None or self.rules.threshold is not None:
                group.stream = StreamingInterval(self.family_alpha, self.score_type, self._planned(group.total))
        self.n_cases = len(ids) * epochs
        self.used = 0
        self.order: list[list] = []   # [id, epoch, status] of every completed sample, in completion order
        self.skipped: list[list] = []  # [id, epoch, reason]
        self.stop: dict | None = None
        self._pending: dict = {}      # clusters: sample -> scores of the epochs completed so far
        self._started = True

    def _planned(self, cases: int) -> int | None:
        """A subgroup's planned number of cases: its cases in the dataset (times the epochs), at most
        the budget; known from the samples' metadata before any score (None: untuned)."""
        if self.planned_n is None or cases < 1:
            return None
        return min(cases, self.rules.budget) if self.rules.budget is not None else cases

    def schedule(self, id, epoch: int) -> str | None:
        """None to run (id, epoch), else the reason it is skipped."""
        group = self.groups[self.group_of[_key(id)]]
        reason = None
        if self.stop is not None:
            reason = f"stopped: {self.stop['reason']}"
        elif group.answered_at is not None:
            reason = f"subgroup {group.label!r} answered: {self._answer_text(group)}"
        if reason is not None:
            self.skipped.append([id, epoch, reason])
        return reason

    def complete(self, id, epoch: int, values: dict, errored: bool = False) -> None:
        """Take one completed (id, epoch) with its scorers' values (``scorer -> value``)."""
        group = self.groups[self.group_of[_key(id)]]
        value = None if errored else self._value(values, id, epoch)
        status = "errored" if errored else "unscored" if value is None else "used"
        if value is not None and self.epochs == CLUSTERS:
            done = self._pending.setdefault(_key(id), [])
            done.append(value)
            if len(done) < self.n_epochs:
                status, value = "pending", None
            else:
                value = math.fsum(done) / len(done)
        if value is not None and (group.answered_at is not None or self.stop is not None):
            status, value = "late", None
            group.late += 1
        self.order.append([id, epoch, status])
        if value is None:
            return
        self.used += 1
        if self._update(group, value) and all(g.answered_at is not None for g in self.groups.values()):
            self.stop = {"reason": "every question answered", "at": self.used}
        if self.rules.budget is not None and self.used >= self.rules.budget and self.stop is None:
            self.stop = {"reason": f"budget of {self.rules.budget} cases spent", "at": self.used}

    def _value(self, values: dict, id, epoch: int) -> float | None:
        raw = values.get(self.scorer)
        if isinstance(raw, dict):
            if self.key is None:
                raise InputError(f"early stopping: scorer {quoted(self.scorer)} gives several values per sample "
                                 f"({listed(raw)}); choose one as the score, e.g. "
                                 f"{quoted(f'{self.scorer}.{next(iter(raw))}')}")
            raw = raw.get(self.key)
        if raw is None:
            return None
        number = _LETTERS.get(raw) if type(raw) is str else None  # the common case, C or I, without parsing
        if number is None:
            number = inspect_value(raw)
        if number is None or not 0.0 <= number <= 1.0:
            raise InputError(f"early stopping: sample {quoted(id)} epoch {epoch}: the value of "
                             f"{quoted(self.score_name)} is {raw!r}, not a score in [0, 1] (C/I/P/N, a boolean "
                             "or a number)")
        return number

    def _update(self, group: _Group, y: float) -> bool:
        """Feed y to the group's rules; True when the group's question is answered with it."""
        rules = self.rules
        group.scores.append(y)
        changed = False
        if group.dual is not None and not group.dual.stopped:
            group.dual.update(y)
            changed = group.dual.stop is not None
        if rules.precision is not None or rules.threshold is not None:
            low, high = group.stream.update(y)
            group.interval = (low, high)
            n = len(group.scores)
            if rules.precision is not None and group.precision is None and (high - low) / 2 <= rules.precision:
                group.precision = n
                changed = True
            if rules.threshold is not None and group.threshold is None:
                if low > rules.threshold:
                    group.threshold, changed = (ABOVE, n), True
                elif high < rules.threshold:
                    group.threshold, changed = (BELOW, n), True
        if not changed:  # a rule's answer is what can answer the group's question
            return False
        answers = [a for a in self._answers(group) if a is not None]
        enabled = rules.dual + (rules.precision is not None) + (rules.threshold is not None)
        if enabled and (len(answers) == enabled if rules.stop_when == ALL else answers):
            group.answered_at = self.used
            return True
        return False

    def _answers(self, group: _Group) -> list:
        """Each enabled rule's answer for the group, None while open."""
        out = []
        if self.rules.dual:
            out.append(group.dual.decision if group.dual.stop is not None else None)
        if self.rules.precision is not None:
            out.append(group.precision)
        if self.rules.threshold is not None:
            out.append(group.threshold)
        return out

    def _answer_text(self, group: _Group) -> str:
        parts = []
        if self.rules.dual and group.dual.stop is not None:
            parts.append(f"{group.dual.decision} at case {group.dual.stop}")
        if self.rules.precision is not None and group.precision is not None:
            parts.append(f"half-width <= {self.rules.precision:g} at case {group.precision}")
        if self.rules.threshold is not None and group.threshold is not None:
            parts.append(f"{group.threshold[0]} q' = {self.rules.threshold:g} at case {group.threshold[1]}")
        return "; ".join(parts)

    @property
    def score_name(self) -> str:
        return self.scorer if self.key is None else f"{self.scorer}.{self.key}"

    def summary(self) -> dict:
        """The record ``complete_task`` writes into the log (JSON values only)."""
        if not self._started:
            return {METADATA_KEY: {"version": SCHEMA_VERSION, "started": False}}
        groups = []
        for group in self.groups.values():
            entry = {"subgroup": group.label, "cases": group.total, "used": len(group.scores), "late": group.late,
                     "mean": math.fsum(group.scores) / len(group.scores) if group.scores else None,
                     "answered_at": group.answered_at, "answer": self._answer_text(group) or None}
            if group.dual is not None:
                dual = group.dual
                entry[DUAL] = {"decision": dual.decision, "stop": dual.stop, "log_e_model": _finite(dual.log_e_model),
                               "log_e_auditor": _finite(dual.log_e_auditor)}
            if self.rules.precision is not None or self.rules.threshold is not None:
                entry["interval"] = list(group.interval)
            if self.rules.precision is not None:
                entry[PRECISION] = {"met_at": group.precision}
            if self.rules.threshold is not None:
                entry[THRESHOLD] = (None if group.threshold is None
                                    else {"side": group.threshold[0], "at": group.threshold[1]})
            groups.append(entry)
        run = len(self.order)
        record = {
            "version": SCHEMA_VERSION,
            "task": self.task,
            "parameters": {"score": self.score_name, "subgroups": list(self.subgroup_keys), "epochs": self.epochs,
                           "score_type": self.score_type, "planned_n": self.planned_n,
                           "rules": self.rules.to_dict(), "alpha": self.params.alpha,
                           "family_alpha": self.family_alpha, "K": len(self.groups),
                           "model_process": self.model_process, "auditor_process": self.auditor_process,
                           "audit_params": self.params.to_dict()},
            "samples": self.n_cases, "run": run, "skipped": len(self.skipped), "used": self.used,
            "stop": self.stop,
            "decision": self._overall_decision(),
            "groups": groups,
            "order": self.order,
        }
        return {METADATA_KEY: record}

    def _overall_decision(self) -> str | None:
        """The dual test's decision of the run when there is one group (what replay finds), else None."""
        if not self.rules.dual or len(self.groups) != 1:
            return None
        return next(iter(self.groups.values())).dual.decision

    def __repr__(self) -> str:
        rules = ", ".join(k for k, v in self.rules.to_dict().items() if v not in (None, False) and k != "stop_when")
        return (f"AnytimeStopping({rules}; score={self.score or '(the only scorer)'}, "
                f"subgroups={list(self.subgroup_keys) or 'none'}, epochs={self.epochs})")


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _key(sample_id) -> str:
    """Ids as Inspect may hand them back (an int id in the dataset, the same id later): one key."""
    return str(sample_id)


def _group_label(metadata: dict, keys: tuple[str, ...]) -> str:
    if not keys:
        return WHOLE_RUN
    import json

    parts = []
    for key in keys:
        value = metadata.get(key)
        parts.append("" if value is None else value if isinstance(value, str) else json.dumps(value, sort_keys=True))
    return " / ".join(parts)


def _choose_score(score: str | None, scorers: list[str]) -> tuple[str, str | None]:
    """(scorer, dict key or None), as the log reader chooses: the only scorer when none is named."""
    if score is None:
        if len(scorers) != 1:
            raise InputError(f"early stopping: the task has {len(scorers)} scorers ({listed(scorers) or 'none'}); "
                             "choose one as the score")
        return scorers[0], None
    if not scorers or score in scorers:
        if scorers or "." not in score:
            return score, None
    scorer, _, key = score.partition(".")
    if key and (not scorers or scorer in scorers):
        return scorer, key
    raise InputError(f"early stopping: score {quoted(score)}: no such scorer; the task's scorers are {listed(scorers)}")


def _score_values(scores) -> dict:
    """scorer -> value from Inspect's ``dict[str, SampleScore]`` (plain values pass through)."""
    out = {}
    for name, entry in (scores or {}).items():
        score = getattr(entry, "score", entry)
        out[name] = getattr(score, "value", score)
    return out


def _reported_as_errored() -> bool:
    """Did Inspect report this completion as an errored sample (its scores under ``score_on_error``)?

    The protocol's ``complete_sample`` does not say; Inspect's ``SampleTerminalReporter._report``
    (inspect-ai 0.3.285) holds the outcome ("completed" / "errored") two frames up. Looked up by
    name so that another Inspect version without it counts every completion as scored;
    tests/inspect/test_inspect_eval.py fails if the lookup stops finding the errored sample.
    """
    frame = sys._getframe(1)
    for _ in range(8):
        if frame is None:
            return False
        if frame.f_code.co_name == "_report" and "outcome" in frame.f_locals:
            return frame.f_locals["outcome"] == "errored"
        frame = frame.f_back
    return False


def early_stopping(score: str | None = None, subgroups: str | Sequence[str] | None = None, *,
                   dual: bool | None = None, precision: float | None = None, threshold: float | None = None,
                   budget: int | None = None, params: AuditParams | None = None, style: str = DEFAULT_STYLE,
                   alpha: float | None = None, q: float | None = None,
                   model_process: str = DEFAULT_MODEL_PROCESS, auditor_process: str = DEFAULT_AUDITOR_PROCESS,
                   epochs: str = CASES, stop_when: str = ALL, score_type: str | None = None,
                   planned_n: str | None = DATASET) -> AnytimeStopping:
    """An Inspect AI early-stopping manager with anytime-valid rules (``Task(early_stopping=...)``).

    Args:
        score: the scorer to watch (``"match"``; ``"scorer.key"`` for dict values); None: the task's only scorer.
        subgroups: a sample-metadata key or several (crossed); None: the run as one group.
        dual: the dual test of paper 001; None: on when no other rule is given.
        precision: ε, stop a subgroup when its anytime-valid half-width is <= ε.
        threshold: q', stop a subgroup when its anytime-valid interval lies above or below q'.
        budget: the most cases used before every remaining sample is skipped.
        params: the dual test's parameters; None: ``AuditParams.for_style(style, alpha=alpha, q=q)``,
            replay's defaults (``gpqa`` unless given).
        alpha, q: overrides of the style's level and threshold (with ``params`` None).
        model_process, auditor_process: the dual test's pair (replay's defaults).
        epochs: ``"cases"`` (each (sample, epoch) a case) or ``"clusters"`` (a sample's mean over its epochs).
        stop_when: a subgroup stops when ``"all"`` of its rules have answered, or ``"any"``.
        score_type: ``"binary"`` (a 0/1 scorer such as ``match``) or ``"graded"`` (partial credit),
            declared before the run: the precision and threshold rules' interval is chosen by it.
            None: 0/1 until a graded score arrives (the α bound then assumes none does).
        planned_n: ``"dataset"`` (default): the precision and threshold rules' interval of 0/1
            scores is tuned to each subgroup's number of cases in the dataset (times the epochs;
            at most ``budget``), known from the samples' metadata before any score (narrower up
            to it, valid at every n; docs/confidence_sequence.md, Widths); None: untuned (the
            hedged beta mixture).

    Returns:
        An :class:`AnytimeStopping`; ``early_stopping()`` watches the only scorer with the dual test
        at replay's defaults over the whole run, so ``replay`` of its log finds the same decision
        at the same case.
    """
    if params is None:
        try:
            params = AuditParams.for_style(style, alpha=alpha, q=q)
        except InputError as exc:
            if q is None:
                raise
            raise InputError(f"{exc}; with q = {q} give params=AuditParams.{style}(q={q}, grid_mod=..., grid_aud=..., "
                             "delta=..., delta_aud=...) that fit it") from None
    elif alpha is not None or q is not None:
        raise InputError("early stopping: give either params or alpha / q, not both")
    check_roles(model_process, auditor_process)
    if epochs not in EPOCH_TREATMENTS:
        raise InputError(f"early stopping: epochs must be one of {', '.join(EPOCH_TREATMENTS)}, got {epochs!r}")
    if stop_when not in (ALL, ANY):
        raise InputError(f"early stopping: stop_when must be {ALL!r} or {ANY!r}, got {stop_when!r}")
    for name, value in (("precision", precision), ("threshold", threshold)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not 0.0 < value < 1.0):
            raise InputError(f"early stopping: {name} must be a number strictly between 0 and 1, got {value!r}")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 1):
        raise InputError(f"early stopping: budget must be a whole number of cases >= 1, got {budget!r}")
    if dual is None:
        dual = precision is None and threshold is None
    if not dual and precision is None and threshold is None and budget is None:
        raise InputError("early stopping: no rule; give dual, precision, threshold or budget")
    keys = (subgroups,) if isinstance(subgroups, str) else tuple(subgroups or ())
    keys = tuple(k[len("metadata."):] if k.startswith("metadata.") else k for k in keys)
    rules = StoppingRules(dual=bool(dual), precision=None if precision is None else float(precision),
                          threshold=None if threshold is None else float(threshold), budget=budget,
                          stop_when=stop_when)
    if score_type is not None and score_type not in SCORE_TYPES:
        raise InputError(f"early stopping: score_type must be one of {', '.join(SCORE_TYPES)} or None, "
                         f"got {score_type!r}")
    if planned_n not in (DATASET, None):
        raise InputError(f"early stopping: planned_n must be {DATASET!r} or None, got {planned_n!r}")
    return AnytimeStopping(score, keys, rules, params, model_process, auditor_process, epochs, score_type,
                           planned_n)
