"""Live adaptive audits (issue 10): the strategy proposes, a person labels, the dual test updates.

The state of an audit is never stored, only its events; :class:`LiveAudit` rebuilds it by
replaying the event log through a fresh sampler seeded with the audit's seed:

* ``proposed`` → ``sampler.select()``; the case it returns must be the case recorded (a mismatch
  means the pool or the code changed and is reported, never papered over);
* ``labelled`` → ``sampler.observe(case, y)`` and, for a counted case, ``DualTest.update(y)``;
* ``skipped`` → ``sampler.skip(case)``: the case gets no label (the annotator gave a reason) and
  stays out of the pool; nothing enters the dual test or the budget;
* ``undone`` cancels the last label or skip, which had no proposal after it, so the replay simply
  drops the pair: the case is pending again, and the sampler state is the one before it.

Skips and validity. A skipped case is missing data. The dual test is valid for the cases that
were labelled; it stays valid for the pool as a whole when the decision to skip does not depend on
whether the model was right (an unreadable item, one outside the audit's scope). Skips are kept
with their reasons, counted in the status and listed in the report, so a reader can judge that.

Validity. A proposal is made from the sampler state after exactly the labels logged before it,
so it depends only on labels received before it (the e-processes stay valid: the strategy is
predictable). A batch of k proposals is k selects in one write transaction with no label between
them. Each proposal is claimed in the same transaction that appends it (``BEGIN IMMEDIATE``), and
a pending case is out of the sampler's candidates, so two sessions are never given the same case.
With one annotator, batches of one and the labels of a column, the log is
select, label, select, label, ... which is literally :func:`~audit_core.auditing.run_audit`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from audit_core.auditing.strategies import (
    AUDITOR_FOR,
    STRATEGY_NAMES,
    AuditorConfig,
    Proposal,
    check_row,
    make_sampler,
)
from audit_core.errors import InputError
from audit_core.live import store
from audit_core.live.overlap import OverlapPlan, is_overlapped
from audit_core.live.pool import (
    MAX_WORKSPACE_POOL_BYTES,
    build_live_pool,
    check_pool_bytes,
    check_pool_cases,
    pool_source,
    resolve_roles,
    sha256,
)
from audit_core.live.records import LabelRecord, LiveProposal, LiveStatus, SkipRecord, _finite  # noqa: F401 (re-exported)
from audit_core.live.roles import Identity, as_identity, require, require_undo
from audit_core.presets import DEFAULT_ANNOTATOR, resolve_style  # noqa: F401 (DEFAULT_ANNOTATOR re-exported)
from audit_core.sequential import AuditParams, DualTest
from audit_core.sequential.params import paper_params

LIVE_STRATEGIES = tuple(s for s in STRATEGY_NAMES if s != "oracle")  # the oracle needs the truth


@dataclass
class _Pending:
    proposal: Proposal
    annotator: str
    batch: int


@dataclass
class _State:
    """The audit's state after a prefix of its event log (rebuilt, never stored)."""

    sampler: object
    test: DualTest
    pending: dict = field(default_factory=dict)      # row -> _Pending, in proposal order
    labels: list = field(default_factory=list)       # LabelRecord, in the order received
    labelled: dict = field(default_factory=dict)     # row -> LabelRecord
    skipped: dict = field(default_factory=dict)      # row -> SkipRecord, in the order received
    resolved: list = field(default_factory=list)     # LabelRecord / SkipRecord: what an undo cancels
    # double labelling (audit_core.live.overlap): every label of an overlapped case, first included,
    # as (annotator, score, ts, verified); the first label's claim; adjudications; and, when the
    # label choice is "adjudicated", the first-labelled cases not yet fed, in first-label order
    overlap_labels: dict = field(default_factory=dict)   # row -> [(annotator, score, ts, verified)]
    first_claim: dict = field(default_factory=dict)      # row -> (_Pending, first label's event)
    adjudications: dict = field(default_factory=dict)    # row -> Event (the adjudicated one)
    offers: dict = field(default_factory=dict)           # row -> {annotator: batch} offered, not yet labelled
    waiting: list = field(default_factory=list)          # rows, first-label order
    last_event: int = 0
    can_undo: bool = False


class LiveAudit:
    """An open live audit on a workspace connection (see the module doc).

    ``audit_id``, ``pool`` (what the strategy sees), ``data`` (the pool table), ``params`` (as
    created), ``test_params`` (the dual test's: the oracle's fixed alternative moves), ``strategy``,
    ``process``, ``seed``, ``config``. Every write re-reads the log inside its transaction, so
    several LiveAudit objects (threads, processes, browser sessions) can work on one audit.
    """

    def __init__(self, conn, audit_id: int) -> None:
        row = store.audit_row(conn, audit_id)
        self.conn = conn
        self.audit_id = int(row["id"])
        self.pool_spec, self.created = row["pool_spec"], row["created"]
        self.roles = row["roles"]
        self.strategy, self.process, self.seed = row["strategy"], row["process"], int(row["seed"])
        try:  # a hand-edited row ({"q": "x"}, an unknown key) is refused here, not mid-replay
            params = dict(row["params"])
            self.overlap = OverlapPlan.from_dict(params.pop("overlap", None))
            self.params = AuditParams(**params)
            self.config = AuditorConfig(**row["config"])
        except (TypeError, ValueError) as exc:
            raise InputError(f"audit {self.audit_id}: its stored parameters are not valid ({exc}); the workspace "
                             "was changed outside the workbench (restore it from a backup)") from None
        if sha256(row["content"]) != row["sha256"]:
            raise InputError(f"audit {self.audit_id}: the stored pool does not match its checksum")
        self.pool, self.data = build_live_pool(row["content"], row["pool_name"], self.roles)
        if row["cases"] is None:   # an audit created before schema 5: store what status needs
            store.record_cases(conn, self.audit_id, self.pool.n)
        self.row_of = {str(c): i for i, c in enumerate(self.pool.case_ids)}
        self._state: _State | None = None

    # -- creation ---------------------------------------------------------------------------
    @classmethod
    def create(cls, conn, pool: str, strategy: str = "adaptive", process: str = "SR-LR-UI",
               seed: int = 0, style: str | None = None, params: AuditParams | None = None,
               config: AuditorConfig | None = None, roles: dict | None = None, truth: str | None = None,
               content: bytes | None = None, who: Identity | str | None = None,
               overlap: OverlapPlan | None = None, **overrides) -> LiveAudit:
        """Store a new audit of ``pool`` (bundled key or CSV path; ``content``: uploaded bytes).

        ``params`` default to :func:`~audit_core.sequential.params.paper_params` of ``style`` (the
        bundled pool's, else ``gpqa``) with ``overrides``; ``roles``: column roles (``score``,
        ``subgroups``, ``id``, ``text``, ``features``, ``suspects``; auto-detected if absent);
        ``truth``: a column the strategy may read as the truth (oracle, tests); ``who``: the
        creator, refused unless an owner (None: a caller without roles, like the command line);
        ``overlap``: the double-labelling plan (:class:`~audit_core.live.overlap.OverlapPlan`;
        default none), stored with the parameters.
        """
        if who is not None:
            require(who, "create")
        check_row(strategy, process)
        if strategy == "oracle" and truth is None:
            raise InputError("strategy oracle: it knows the true accuracy, so it needs a truth column")
        name, data, base_roles = pool_source(pool, content)
        given = {**base_roles, **{k: v for k, v in (roles or {}).items() if v is not None}}
        resolved = resolve_roles(data, name, given, truth)
        resolved["style"] = resolve_style(style, resolved.get("style"))
        config = config or AuditorConfig(suspects=tuple(resolved["suspects"]) or None)
        if config.scenario != "pool" or config.prediction_alternative:
            raise InputError("live audits: only scenario 'pool' without the prediction alternative (its "
                             "bets are not in the recorded-run format, so a replay could not repeat them)")
        params = params or paper_params(resolved["style"], **overrides)
        check_pool_bytes(name, len(data))  # an Inspect log's table of outputs, too
        live_pool, _ = build_live_pool(data, name, resolved)
        check_pool_cases(name, live_pool.n)
        make_sampler(strategy, live_pool, params, seed, config, process)   # fail now on bad suspects etc.
        with store.write_transaction(conn):
            digest = sha256(data)
            stored = store.stored_pool_bytes(conn)
            if not store.has_pool(conn, digest) and stored + len(data) > MAX_WORKSPACE_POOL_BYTES:
                raise InputError(f"pool {name}: the workspace already stores {stored / 2**20:.1f} MB of pools; "
                                 f"together they may take at most {MAX_WORKSPACE_POOL_BYTES // 2**20} MB "
                                 f"(ask whoever runs the server to archive old audits)")
            pool_id = store.store_pool(conn, name, data, digest)
            stored_params = params.to_dict()
            if overlap is not None and overlap.active:
                stored_params["overlap"] = overlap.to_dict()
            audit_id = store.insert_audit(conn, pool_id, pool, resolved, stored_params, strategy, process,
                                          int(seed), config.to_dict())
            store.record_cases(conn, audit_id, live_pool.n)
        return cls(conn, audit_id)

    @classmethod
    def open(cls, db=None, audit_id: int = 0) -> LiveAudit:
        return cls(store.connect(db), audit_id)

    # -- state ------------------------------------------------------------------------------
    def _fresh_state(self) -> _State:
        sampler = make_sampler(self.strategy, self.pool, self.params, self.seed, self.config, self.process)
        test = DualTest(sampler.test_params, model_process=self.process, auditor_process=AUDITOR_FOR[self.process])
        return _State(sampler=sampler, test=test)

    @property
    def test_params(self) -> AuditParams:
        return self._current().sampler.test_params

    def _current(self) -> _State:
        """Catch up with the log (a full replay when an undo arrived since the last look)."""
        new = store.read_events(self.conn, self.audit_id, self._state.last_event if self._state else 0)
        last = new[-1].id if new else None
        if self._state is None or any(e.kind == "undone" for e in new):
            events = store.read_events(self.conn, self.audit_id)
            self._state, new = self._fresh_state(), store.effective_events(events)
            last = events[-1].id if events else 0
        try:
            for event in new:
                self._apply(self._state, event)
        except BaseException:
            self._state = None
            raise
        if last is not None:
            self._state.last_event = last
        return self._state

    def _apply(self, state: _State, event: store.Event) -> None:
        row = self.row_of.get(event.case_id)
        if event.kind in ("labelled", "skipped") and row not in state.pending:
            # the workbench writes a label or skip only for a pending proposal: a row that is not
            # one was written by someone else
            raise InputError(f"audit {self.audit_id}: event {event.id} {event.kind} case {event.case_id!r}, which "
                             "was not proposed; the workspace was changed outside the workbench (restore it "
                             "from a backup)")
        if event.kind in ("overlap_labelled", "adjudicated", "offered"):
            self._apply_overlap(state, row, event)
            return
        if event.kind in ("labelled", "overlap_labelled", "adjudicated") and not isinstance(event.score, (int, float)):
            raise InputError(f"audit {self.audit_id}: event {event.id} has no numeric score; the workspace was "
                             "changed outside the workbench (restore it from a backup)")
        if event.kind == "proposed":
            proposal = state.sampler.select()
            if proposal is None or proposal.index != row:
                got = None if proposal is None else self.pool.case_ids[proposal.index]
                raise InputError(f"audit {self.audit_id}: event {event.id} proposed case {event.case_id!r} but "
                                 f"the replayed strategy proposes {got!r}; the pool or the workbench changed")
            state.pending[row] = _Pending(proposal, event.annotator, int(event.batch or event.id))
            state.can_undo = False
        elif event.kind == "labelled":
            claim = state.pending.pop(row)
            if self.overlapped(row):
                state.overlap_labels[row] = [(event.annotator, float(event.score), event.ts, bool(event.verified))]
                state.first_claim[row] = (claim, event)
            if self.overlap.label_choice == "adjudicated" and self.overlap.active:
                state.first_claim[row] = (claim, event)
                state.waiting.append(row)
                self._drain(state)
            else:
                self._feed(state, row, claim, event, float(event.score))
            state.can_undo = True
        elif event.kind == "skipped":
            claim = state.pending.pop(row)
            state.sampler.skip(row)
            skip = SkipRecord(event.case_id, row, str(event.reason or ""), event.annotator, event.ts,
                              claim.proposal.phase, claim.proposal.counted, bool(event.verified))
            state.skipped[row] = skip
            state.resolved.append(skip)
            state.can_undo = True
        state.last_event = event.id

    def _feed(self, state: _State, row: int, claim: _Pending, event: store.Event, score: float) -> None:
        """The label the e-processes see enters the sampler and (counted cases) the dual test."""
        state.sampler.observe(row, score)
        step = None
        if claim.proposal.counted:
            state.test.update(score, claim.proposal.alternative)
            step = state.test.t
        record = LabelRecord(event.case_id, row, score, event.annotator, event.ts,
                             claim.proposal.phase, claim.proposal.predicted, claim.proposal.counted, step,
                             state.test.log_e_model if step else math.nan,
                             state.test.log_e_auditor if step else math.nan, bool(event.verified))
        state.labels.append(record)
        state.labelled[row] = record
        state.resolved.append(record)

    def overlapped(self, row: int) -> bool:
        """Whether the pool row's case is double-labelled (by the seeded hash of its id)."""
        return is_overlapped(self.overlap, self.seed, str(self.pool.case_ids[row]))

    def _settled(self, state: _State, row: int) -> float | None:
        """The label a case has settled on: its only label, all its labels when they agree (once
        it has its ``labellers``), an adjudication; None while it waits."""
        if row in state.adjudications:
            return float(state.adjudications[row].score)
        if row not in state.overlap_labels:
            return float(state.first_claim[row][1].score)
        scores = [x[1] for x in state.overlap_labels[row]]
        if len(scores) >= self.overlap.labellers and max(scores) - min(scores) < 1e-9:
            return scores[0]
        return None

    def _drain(self, state: _State) -> None:
        """Feed the waiting cases from the head of the first-label order while settled (module doc
        of :mod:`audit_core.live.overlap`: the order never depends on label values)."""
        while state.waiting:
            row = state.waiting[0]
            score = self._settled(state, row)
            if score is None:
                return
            state.waiting.pop(0)
            claim, event = state.first_claim[row]
            self._feed(state, row, claim, event, score)

    def _apply_overlap(self, state: _State, row, event: store.Event) -> None:
        if row is None or row not in state.overlap_labels or (event.kind != "offered"
                                                              and not isinstance(event.score, (int, float))):
            raise InputError(f"audit {self.audit_id}: event {event.id} {event.kind} case {event.case_id!r}, which "
                             "has no first label of an overlapped case; the workspace was changed outside the "
                             "workbench (restore it from a backup)")
        if event.kind == "offered":
            # a claim on the case's further label: like a proposal, the last label cannot be undone after it
            state.offers.setdefault(row, {})[event.annotator] = int(event.batch or event.id)
            state.can_undo = False
            state.last_event = event.id
            return
        if event.kind == "overlap_labelled":
            state.overlap_labels[row].append((event.annotator, float(event.score), event.ts, bool(event.verified)))
            state.offers.get(row, {}).pop(event.annotator, None)
        else:
            state.adjudications[row] = event
        if self.overlap.label_choice == "adjudicated":
            self._drain(state)
        state.last_event = event.id

    def _status(self, state: _State) -> LiveStatus:
        test, sampler = state.test, state.sampler
        pending_rows = list(state.pending)
        exhausted = not sampler.cases.available.any() and not _heldout_left(sampler)
        return LiveStatus(
            audit_id=self.audit_id, strategy=self.strategy, process=self.process,
            auditor_process=AUDITOR_FOR[self.process], n=test.t,
            n_heldout=sum(1 for r in state.labels if not r.counted), n_skipped=len(state.skipped),
            budget=self.params.budget,
            log_e_model=float(test.log_e_model), log_e_auditor=float(test.log_e_auditor),
            log_threshold=float(test.params.log_threshold), decision=test.decision, stop=test.stop,
            stopped=test.stopped, exhausted=exhausted,
            pending=tuple(str(self.pool.case_ids[r]) for r in pending_rows), can_undo=state.can_undo)

    def status(self) -> LiveStatus:
        return self._status(self._current())

    def labels(self) -> tuple[LabelRecord, ...]:
        """Every effective label in the order received (held-out ones included, ``counted`` False)."""
        return tuple(self._current().labels)

    def skips(self) -> tuple[SkipRecord, ...]:
        """Every effective skip in the order received."""
        return tuple(self._current().skipped.values())

    def last_resolved(self) -> LabelRecord | SkipRecord | None:
        """The label or skip an undo would cancel now (None when nothing can be undone)."""
        state = self._current()
        return state.resolved[-1] if state.can_undo and state.resolved else None

    def pending(self, annotator: Identity | str | None = None) -> tuple[LiveProposal, ...]:
        annotator = None if annotator is None else as_identity(annotator).name
        state = self._current()
        return tuple(self._proposal(row, claim) for row, claim in state.pending.items()
                     if annotator is None or claim.annotator == annotator)

    def _proposal(self, row: int, claim: _Pending) -> LiveProposal:
        text_col = self.data.text
        return LiveProposal(case_id=str(self.pool.case_ids[row]), row=int(row), phase=claim.proposal.phase,
                            predicted=_finite(claim.proposal.predicted),
                            subgroup=self.pool.stratum_names[self.pool.strata[row]],
                            text=str(self.data.frame[text_col].iloc[row]) if text_col else None,
                            annotator=claim.annotator, counted=claim.proposal.counted, batch=claim.batch)

    def _room(self, state: _State) -> bool:
        """A new proposal may be made: not stopped, budget left after the pending counted cases,
        and the sampler needs no outstanding label first."""
        counted_pending = sum(1 for c in state.pending.values() if c.proposal.counted) + \
            sum(1 for r in state.waiting if state.first_claim[r][0].proposal.counted)
        return (not state.test.stopped and state.test.t + counted_pending < self.params.budget
                and state.sampler.ready)

    # -- writes -----------------------------------------------------------------------------
    def _write(self, action):
        """Run ``action(state)`` inside one write transaction on the caught-up state."""
        try:
            with store.write_transaction(self.conn):
                return action(self._current())
        except BaseException:
            self._state = None   # the in-memory state may be ahead of a rolled-back log
            raise

    def next(self, annotator: Identity | str = DEFAULT_ANNOTATOR, batch: int = 1) -> tuple[LiveProposal, ...]:
        """The annotator's pending cases; without any, ``batch`` new ones claimed at once.

        Returns () when the audit has stopped, no case is left, or (pre-learned) the held-out labels
        must come in first. ``annotator``: a name or an :class:`~audit_core.live.roles.Identity`
        (refused unless its role may label).
        """
        if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
            raise InputError(f"batch: expected a whole number >= 1, got {batch!r}")
        who = require(annotator, "claim")
        annotator = who.name

        def claim(state: _State) -> tuple[LiveProposal, ...]:
            mine = [(row, c) for row, c in state.pending.items() if c.annotator == annotator]
            if mine:
                return tuple(self._proposal(row, c) for row, c in mine)
            offered = self._offered(state, annotator)
            if offered:
                return offered
            further = self._further(state, annotator)[:int(batch)]
            if further:   # claimed, so that no one else is offered the label the case still needs
                number = store.next_batch_number(self.conn, self.audit_id)
                for proposal in further:
                    event = store.append_event(self.conn, self.audit_id, "offered", proposal.case_id, annotator,
                                               batch=number, **_identity_columns(who))
                    self._apply(state, event)
                return self._offered(state, annotator)
            number = store.next_batch_number(self.conn, self.audit_id)
            made = []
            for _ in range(int(batch)):
                if not self._room(state):
                    break
                proposal = state.sampler.select()
                if proposal is None:
                    break
                case_id = str(self.pool.case_ids[proposal.index])
                event = store.append_event(self.conn, self.audit_id, "proposed", case_id, annotator, batch=number,
                                           **_identity_columns(who))
                state.pending[proposal.index] = _Pending(proposal, annotator, number)
                state.can_undo = False
                state.last_event = event.id
                made.append(self._proposal(proposal.index, state.pending[proposal.index]))
            return tuple(made)

        return self._write(claim)

    def _offered(self, state: _State, annotator: str) -> tuple[LiveProposal, ...]:
        """The overlapped cases claimed by ``annotator`` for a further label and not yet labelled."""
        return tuple(self._proposal(row, _Pending(state.first_claim[row][0].proposal, annotator, held[annotator]))
                     for row, held in state.offers.items() if annotator in held and row not in state.adjudications)

    def _further(self, state: _State, annotator: str) -> tuple[LiveProposal, ...]:
        """Overlapped cases that need another label, that ``annotator`` has not labelled and that are
        not already offered to as many others as labels are missing (no one's label is shown: a
        proposal carries none), oldest first."""
        out = []
        for row, given in state.overlap_labels.items():
            held = state.offers.get(row, {})
            if len(given) + len(held) < self.overlap.labellers and row not in state.adjudications \
                    and annotator not in held and all(a != annotator for a, *_ in given):
                claim = state.first_claim[row][0]
                out.append(self._proposal(row, _Pending(claim.proposal, annotator, 0)))
        return tuple(out)

    def further_cases(self, annotator: Identity | str) -> tuple[LiveProposal, ...]:
        """The overlapped cases ``annotator`` may still be asked to label: claimed by them for a further
        label, or open to them (see :meth:`next`)."""
        state, name = self._current(), as_identity(annotator).name
        return self._offered(state, name) + self._further(state, name)

    def _claimed_row(self, state: _State, case_id: str) -> int:
        """The pool row of a case this audit proposed and has not resolved (else InputError)."""
        row = self.row_of.get(case_id)
        if row is None:
            raise InputError(f"case id {case_id!r}: not in the pool of audit {self.audit_id}")
        if row in state.labelled:
            done = state.labelled[row]
            raise InputError(f"case id {case_id!r}: already labelled ({done.score:g} by {done.annotator} "
                             f"at {done.ts})")
        skipped = state.skipped.get(row)
        if skipped is not None:
            raise InputError(f"case id {case_id!r}: already skipped by {skipped.annotator} at {skipped.ts} "
                             f"({skipped.reason})")
        if row not in state.pending:
            raise InputError(f"case id {case_id!r}: not proposed in audit {self.audit_id}; ask for the next case")
        if state.test.stopped and state.pending[row].proposal.counted:
            raise InputError(f"audit {self.audit_id}: stopped ({state.test.decision}"
                             f"{'' if state.test.stop is None else f' at step {state.test.stop}'}); "
                             "no more labels are taken")
        return row

    def _resolve(self, case_id, annotator, kind: str, **values):
        """Append the ``labelled`` / ``skipped`` event of a claimed case; returns its record."""
        who, case_id = require(annotator, "label" if kind == "labelled" else "skip"), str(case_id)

        def record(state: _State):
            row = self.row_of.get(case_id)
            if kind == "labelled" and row in state.overlap_labels and row not in state.pending:
                return self._further_label(state, row, case_id, who, values["score"])
            self._claimed_row(state, case_id)
            event = store.append_event(self.conn, self.audit_id, kind, case_id, who.name, **values,
                                       **_identity_columns(who))
            before = len(state.resolved)
            self._apply(state, event)
            # an overlapped case under "adjudicated" waits: nothing reached the e-processes yet
            return state.resolved[-1] if len(state.resolved) > before else None

        return self._write(record)

    def _further_label(self, state: _State, row: int, case_id: str, who: Identity, score: float):
        """A further label of an overlapped case: never twice by one annotator, at most ``labellers``."""
        given, held = state.overlap_labels[row], state.offers.get(row, {})
        if any(a == who.name for a, *_ in given):
            raise InputError(f"case id {case_id!r}: {who.name} already labelled it (each labeller labels an "
                             "overlapped case once)")
        if len(given) >= self.overlap.labellers:
            raise InputError(f"case id {case_id!r}: already has its {self.overlap.labellers} labels")
        if who.name not in held and len(given) + len(held) >= self.overlap.labellers:
            raise InputError(f"case id {case_id!r}: its last label is claimed by {', '.join(held)}; ask for the next case")
        event = store.append_event(self.conn, self.audit_id, "overlap_labelled", case_id, who.name, score=score,
                                   **_identity_columns(who))
        self._apply(state, event)
        return event

    def adjudicate(self, case_id: str, score, reason: str, adjudicator: Identity | str = DEFAULT_ANNOTATOR):
        """Settle a disagreement: the adjudicator's label ``score`` of an overlapped case whose labels
        differ, with ``reason``; an ``adjudicated`` event (append-only, with the signed-in name and
        time). Under the ``adjudicated`` label choice it is the label the e-processes see."""
        who, case_id = require(adjudicator, "adjudicate"), str(case_id)
        score, reason = check_score(score), check_reason(reason)

        def settle(state: _State):
            row = self.row_of.get(case_id)
            if row is None or row not in state.overlap_labels:
                raise InputError(f"case id {case_id!r}: not an overlapped case with labels in audit {self.audit_id}")
            if row in state.adjudications:
                done = state.adjudications[row]
                raise InputError(f"case id {case_id!r}: already adjudicated ({done.score:g} by {done.annotator} "
                                 f"at {done.ts})")
            scores = [x[1] for x in state.overlap_labels[row]]
            if len(scores) < 2 or max(scores) - min(scores) < 1e-9:
                raise InputError(f"case id {case_id!r}: its labels do not disagree; nothing to adjudicate")
            event = store.append_event(self.conn, self.audit_id, "adjudicated", case_id, who.name, score=score,
                                       reason=reason, **_identity_columns(who))
            self._apply(state, event)
            return event

        return self._write(settle)

    def overlap_labels(self) -> tuple[dict, ...]:
        """Every label of the overlapped cases (first included): case_id, subgroup, annotator, score,
        ts, verified, first (True for the case's first label)."""
        state = self._current()
        return tuple({"case_id": str(self.pool.case_ids[row]),
                      "subgroup": self.pool.stratum_names[self.pool.strata[row]],
                      "annotator": a, "score": y, "ts": ts, "verified": v, "first": i == 0}
                     for row, given in state.overlap_labels.items() for i, (a, y, ts, v) in enumerate(given))

    def adjudications(self) -> tuple[dict, ...]:
        """Every adjudication: case_id, score, reason, adjudicator, ts, verified."""
        return tuple({"case_id": e.case_id, "score": float(e.score), "reason": e.reason, "adjudicator": e.annotator,
                      "ts": e.ts, "verified": bool(e.verified)} for e in self._current().adjudications.values())

    def disagreements(self) -> tuple[dict, ...]:
        """The adjudication queue: overlapped cases whose labels differ and are not yet adjudicated,
        each with every label and its author (case_id, subgroup, labels [(annotator, score, ts)])."""
        state = self._current()
        out = []
        for row, given in state.overlap_labels.items():
            scores = [x[1] for x in given]
            if row not in state.adjudications and len(scores) >= 2 and max(scores) - min(scores) >= 1e-9:
                out.append({"case_id": str(self.pool.case_ids[row]),
                            "subgroup": self.pool.stratum_names[self.pool.strata[row]],
                            "labels": [(a, y, ts) for a, y, ts, _ in given]})
        return tuple(out)

    def waiting(self) -> tuple[str, ...]:
        """Cases labelled but not yet seen by the e-processes (label choice ``adjudicated``)."""
        return tuple(str(self.pool.case_ids[r]) for r in self._current().waiting)

    def label(self, case_id: str, score, annotator: Identity | str = DEFAULT_ANNOTATOR) -> LabelRecord | None:
        """Record the label of a proposed case; returns the record (with the e-values after it), or
        None when the case waits for adjudication (an overlapped case under "adjudicated")."""
        return self._resolve(case_id, annotator, "labelled", score=check_score(score))

    def skip(self, case_id: str, reason: str, annotator: Identity | str = DEFAULT_ANNOTATOR) -> SkipRecord:
        """Skip a proposed case without a label, for ``reason`` (see the module doc on validity).

        The case leaves the pending list and the pool; the strategy learns nothing from it and
        proposes the next case from the labels alone. Undone like a label.
        """
        return self._resolve(case_id, annotator, "skipped", reason=check_reason(reason))

    def undo(self, annotator: Identity | str = DEFAULT_ANNOTATOR) -> LabelRecord | SkipRecord:
        """Undo the last label or skip (allowed only before the next proposal); returns it.

        The case is pending again. After a batch, labels can be undone one after another, last
        first, as long as no case was proposed after the label being undone: no proposal ever
        depended on a label that no longer exists. An annotator undoes only their own label or
        skip, an owner anyone's, a viewer none (:func:`~audit_core.live.roles.require_undo`).
        """
        who = require(annotator, "undo")

        def cancel(state: _State) -> LabelRecord | SkipRecord:
            if not state.can_undo or not state.resolved:
                raise InputError(f"audit {self.audit_id}: nothing to undo (only the last label can be undone, "
                                 "and only before the next case is proposed)")
            last = state.resolved[-1]
            require_undo(who, last.annotator)
            if len(state.overlap_labels.get(last.row, ())) > 1 or state.waiting:
                raise InputError(f"case id {last.case_id!r}: others have labelled it too (or it waits to be settled); "
                                 "a double-labelled case's first label cannot be undone, it can be adjudicated")
            store.append_event(self.conn, self.audit_id, "undone", last.case_id, who.name, **_identity_columns(who))
            return last

        result = self._write(cancel)
        self._state = None    # the sampler cannot forget a label: replay without it
        return result

    def preview(self, annotator: Identity | str = DEFAULT_ANNOTATOR) -> tuple[tuple[LiveProposal, ...], bool]:
        """(cases, claimed): the annotator's pending cases (claimed), else the case ``next`` would
        propose now, computed from the same state but not claimed or logged (so the last label
        can still be undone). None is proposed once the audit has stopped or has no case left."""
        annotator = as_identity(annotator).name
        state = self._current()
        mine = tuple(self._proposal(r, c) for r, c in state.pending.items() if c.annotator == annotator)
        if mine:
            return mine, True
        offered = self._offered(state, annotator)
        if offered:
            return offered, True
        further = self._further(state, annotator)
        if further:
            return further[:1], False
        if not self._room(state):
            return (), False
        proposal = state.sampler.select()
        self._state = None       # the select advanced the sampler: the next use replays the log
        if proposal is None:
            return (), False
        return (self._proposal(proposal.index, _Pending(proposal, annotator, 0)),), False

    def truth(self, case_id: str) -> float:
        """The truth column's value of a case (only for audits created with ``truth``)."""
        if not self.roles.get("truth"):
            raise InputError(f"audit {self.audit_id}: created without a truth column")
        return float(self.pool.labels[self.row_of[str(case_id)]])

    def to_dict(self) -> dict:
        return {"audit_id": self.audit_id, "pool": self.pool_spec, "strategy": self.strategy,
                "process": self.process, "auditor_process": AUDITOR_FOR[self.process], "seed": self.seed,
                "created": self.created, "params": self.params.to_dict(), "test_params": self.test_params.to_dict(),
                "roles": {k: v for k, v in self.roles.items() if k != "resolved"}, "overlap": self.overlap.to_dict()}

    def __repr__(self) -> str:
        return f"LiveAudit({self.audit_id}, {self.pool_spec!r}, {self.strategy}/{self.process}, seed={self.seed})"


def _heldout_left(sampler) -> bool:
    heldout = getattr(sampler, "heldout", None)
    return heldout is not None and sampler.fixed_prediction is None


def check_score(score) -> float:
    """A label: 0/1 or a graded score in [0, 1] (numbers or numeric strings)."""
    try:
        y = float(score)
    except (TypeError, ValueError):
        raise InputError(f"score: expected a number in [0, 1], got {score!r}") from None
    if isinstance(score, bool) or not math.isfinite(y) or not 0.0 <= y <= 1.0:
        raise InputError(f"score: expected a number in [0, 1], got {score!r}")
    return y


MAX_REASON_LENGTH = 500


def check_reason(reason) -> str:
    """Why a case is skipped: non-empty text, whitespace collapsed, at most 500 characters."""
    text = " ".join(str(reason or "").split())
    if not text:
        raise InputError("reason: say why the case is skipped (for example: the item is unreadable)")
    if len(text) > MAX_REASON_LENGTH:
        raise InputError(f"reason: at most {MAX_REASON_LENGTH} characters, got {len(text)}")
    return text


def _identity_columns(who: Identity) -> dict:
    """How the event's annotator is known (the store's schema-4 columns)."""
    return {"verified": who.verified, "source": who.source, "issuer": who.issuer}


def open_audit(audit_id: int, db: str | os.PathLike | None = None) -> LiveAudit:
    """Open audit ``audit_id`` of the workspace database ``db`` (default: inside ``AUDIT_HOME``)."""
    return LiveAudit(store.connect(db), audit_id)
