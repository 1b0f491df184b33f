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
            self.params = AuditParams(**row["params"])
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
               content: bytes | None = None, who: Identity | str | None = None, **overrides) -> LiveAudit:
        """Store a new audit of ``pool`` (bundled key or CSV path; ``content``: uploaded bytes).

        ``params`` default to :func:`~audit_core.sequential.params.paper_params` of ``style`` (the
        bundled pool's, else ``gpqa``) with ``overrides``; ``roles``: column roles (``score``,
        ``subgroups``, ``id``, ``text``, ``features``, ``suspects``; auto-detected if absent);
        ``truth``: a column the strategy may read as the truth (oracle, tests); ``who``: the
        creator, refused unless an owner (None: a caller without roles, like the command line).
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
            audit_id = store.insert_audit(conn, pool_id, pool, resolved, params.to_dict(), strategy, process,
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
        if event.kind == "labelled" and not isinstance(event.score, (int, float)):
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
            state.sampler.observe(row, float(event.score))
            step = None
            if claim.proposal.counted:
                state.test.update(float(event.score), claim.proposal.alternative)
                step = state.test.t
            record = LabelRecord(event.case_id, row, float(event.score), event.annotator, event.ts,
                                 claim.proposal.phase, claim.proposal.predicted, claim.proposal.counted, step,
                                 state.test.log_e_model if step else math.nan,
                                 state.test.log_e_auditor if step else math.nan, bool(event.verified))
            state.labels.append(record)
            state.labelled[row] = record
            state.resolved.append(record)
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
        counted_pending = sum(1 for c in state.pending.values() if c.proposal.counted)
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
            self._claimed_row(state, case_id)
            event = store.append_event(self.conn, self.audit_id, kind, case_id, who.name, **values,
                                       **_identity_columns(who))
            self._apply(state, event)
            return state.resolved[-1]

        return self._write(record)

    def label(self, case_id: str, score, annotator: Identity | str = DEFAULT_ANNOTATOR) -> LabelRecord:
        """Record the label of a proposed case; returns the record (with the e-values after it)."""
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
                "roles": {k: v for k, v in self.roles.items() if k != "resolved"}}

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
