"""Live audits: live = simulate, export → replay, undo, batches, claims, errors, the label column."""

import numpy as np
import pytest

from audit_core.auditing import AUDITOR_FOR, load_pool, make_sampler, paper_params, run_audit
from audit_core.data.loader import load_audit_csv
from audit_core.errors import InputError
from audit_core.live import LiveAudit, connect, export_csv, store
from audit_core.sequential import AuditParams, replay
from tests.live.helpers import label_to_end, workspace

GPQA = AuditParams.gpqa(n_init=2)


@pytest.fixture(scope="module")
def large():
    return load_pool("gpqa:large")


@pytest.mark.parametrize("strategy, process, seed", [
    ("adaptive", "SR-LR-UI", 3), ("adaptive", "LR", 8), ("stratified", "LR", 1),
    ("pre-learned", "LR", 4), ("informed", "LR-UI", 2)])
def test_live_with_the_truth_column_is_the_simulated_audit(db, tmp_path, large, strategy, process, seed):
    audit = LiveAudit.create(workspace(db), "gpqa:large", strategy, process, seed=seed, params=GPQA,
                             truth="correct")
    label_to_end(audit)
    run = run_audit(large, strategy, process, GPQA, seed=seed, labels=large.labels)
    counted = [r for r in audit.labels() if r.counted]
    assert [r.case_id for r in counted] == list(run.case_ids) and run.n > 0
    assert [r.phase for r in counted] == list(run.phases)
    np.testing.assert_array_equal([r.log_e_model for r in counted], run.log_e_model)
    np.testing.assert_array_equal([r.log_e_auditor for r in counted], run.log_e_auditor)
    status = audit.status()
    assert (status.decision, status.stop, status.n) == (run.decision, run.stop, run.n)
    assert status.n_heldout == (len(run.extra["heldout"]) if strategy == "pre-learned" else 0)


def test_oracle_needs_the_truth_and_then_equals_the_simulation(db, tmp_path):
    with pytest.raises(InputError, match="truth column"):
        LiveAudit.create(workspace(db), "sdoh", "oracle", "LR")
    audit = LiveAudit.create(workspace(db), "sdoh", "oracle", "LR", seed=5, truth="correct")
    label_to_end(audit)
    pool = load_pool("sdoh")
    run = run_audit(pool, "oracle", "LR", paper_params("sdoh"), seed=5)
    assert [r.case_id for r in audit.labels()] == list(run.case_ids)
    assert audit.test_params.delta != audit.params.delta          # the oracle bets at the failure's accuracy
    assert (audit.status().decision, audit.status().stop) == (run.decision, run.stop)


def test_export_reproduces_the_recorded_run_byte_for_byte(db, tmp_path):
    # data/recorded_run.csv is run_audit(sdoh, adaptive, SR-LR-UI, seed 7); the live audit with the
    # pool's own labels as the annotator writes the same file, plus who labelled (issue 23).
    audit = LiveAudit.create(workspace(db), "sdoh", "adaptive", "SR-LR-UI", seed=7, truth="correct")
    label_to_end(audit)
    result = export_csv(audit, tmp_path / "out.csv")
    written = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()
    assert written[0].endswith(",provenance,annotator,annotator_verified")
    assert {line.rsplit(",", 2)[1:] == ["ann", "false"] for line in written[1:]} == {True}
    without = "".join(line.rsplit(",", 2)[0] + "\n" for line in written)
    assert without.encode() == open("data/recorded_run.csv", "rb").read()
    assert result.n == audit.status().n


@pytest.mark.parametrize("strategy, process", [("adaptive", "LR-UI"), ("pre-learned", "SR-LR"),
                                               ("informed", "SR-LR-UI")])
def test_export_then_replay_gives_the_live_trajectories(db, tmp_path, strategy, process):
    audit = LiveAudit.create(workspace(db), "gpqa:medium", strategy, process, seed=11, params=GPQA,
                             truth="correct")
    rng = np.random.default_rng(0)
    while (proposals := audit.next("ann")):
        for p in proposals:   # a human who sometimes disagrees with the column, with graded scores
            audit.label(p.case_id, audit.truth(p.case_id) if rng.random() < 0.8 else 0.5, "ann")
    export_csv(audit, tmp_path / "run.csv")
    data = load_audit_csv(tmp_path / "run.csv")
    result = replay(data.scores, audit.test_params, subgroups=data.subgroup_frame, model_process=process,
                    auditor_process=AUDITOR_FOR[process])
    counted = [r for r in audit.labels() if r.counted]
    np.testing.assert_allclose(result.log_e[process], [r.log_e_model for r in counted], rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.log_e[AUDITOR_FOR[process]], [r.log_e_auditor for r in counted], atol=1e-12)
    status = audit.status()
    assert (result.decision, result.dual.stop, result.n) == (status.decision, status.stop, status.n)
    assert list(data.frame["case_id" if "case_id" in data.frame else data.id]) == [r.case_id for r in counted]


def test_the_pool_label_column_is_never_read(tmp_path, large):
    original = open("data/gpqa_style_large.csv", "rb").read().decode().splitlines()
    header = original[0].split(",")
    at = header.index("correct")
    flipped = [original[0]] + [",".join(str(1 - int(v)) if j == at else v for j, v in enumerate(line.split(",")))
                               for line in original[1:]]
    (tmp_path / "flipped.csv").write_text("\n".join(flipped) + "\n")
    answers = dict(zip(large.case_ids, large.labels, strict=False))
    runs = []
    for name, spec in (("a.sqlite", "data/gpqa_style_large.csv"), ("b.sqlite", str(tmp_path / "flipped.csv"))):
        audit = LiveAudit.create(connect(tmp_path / name), spec, "adaptive", "SR-LR-UI", seed=4, params=GPQA)
        assert np.isnan(audit.pool.labels).all() and "correct" not in audit.roles["features"]
        assert "p_correct" not in audit.roles["features"]
        while (proposals := audit.next()):
            for p in proposals:
                audit.label(p.case_id, answers[p.case_id])
        runs.append([(r.case_id, r.phase) for r in audit.labels()])
    assert runs[0] == runs[1] and len(runs[0]) > 5


def test_undo_only_the_last_label_and_only_before_the_next_proposal(db, tmp_path):
    conn = workspace(db)
    audit = LiveAudit.create(conn, "gpqa:large", "adaptive", "SR-LR-UI", seed=2, params=GPQA, truth="correct")
    with pytest.raises(InputError, match="nothing to undo"):
        audit.undo()
    label_to_end(audit, limit=6)
    before = audit.status()
    (p,) = audit.next()
    audit.label(p.case_id, 0.0)
    assert audit.status().n == before.n + 1 and audit.status().can_undo
    undone = audit.undo("reviewer")
    assert undone.case_id == p.case_id
    after = audit.status()
    assert (after.n, after.log_e_model, after.log_e_auditor) == (before.n, before.log_e_model, before.log_e_auditor)
    assert after.pending == (p.case_id,) and not after.can_undo
    with pytest.raises(InputError, match="nothing to undo"):
        audit.undo()
    assert audit.next() == (audit.pending()[0],)           # the same case again, not a new proposal
    audit.label(p.case_id, 1.0)
    (q,) = audit.next()                                     # a proposal after the label: no undo now
    with pytest.raises(InputError, match="before the next case"):
        audit.undo()
    kinds = [e.kind for e in store.read_events(conn, audit.audit_id)]
    assert kinds.count("undone") == 1 and kinds.count("labelled") == 8   # the log keeps the undone label
    # the state equals an audit that never saw the undone label
    twin = LiveAudit.create(workspace(db, "twin.sqlite"), "gpqa:large", "adaptive", "SR-LR-UI", seed=2,
                            params=GPQA, truth="correct")
    label_to_end(twin, limit=6)
    (p2,) = twin.next()
    twin.label(p2.case_id, 1.0)
    assert twin.next()[0].case_id == q.case_id
    assert twin.status().log_e_model == audit.status().log_e_model


def test_batch_proposals_depend_only_on_labels_before_the_batch(db, tmp_path, large):
    audit = LiveAudit.create(workspace(db), "gpqa:large", "adaptive", "SR-LR-UI", seed=6, params=GPQA,
                             truth="correct")
    label_to_end(audit, limit=5)
    batch = audit.next("ann", batch=4)
    assert len({p.case_id for p in batch}) == 4 and len({p.batch for p in batch}) == 1
    assert audit.next("ann", batch=4) == batch                # pending cases are offered again, no new claim
    # the same four come from a sampler that saw only the five earlier labels
    sampler = make_sampler("adaptive", audit.pool, GPQA, 6, audit.config, "SR-LR-UI")
    for record in audit.labels():
        assert sampler.select().index == record.row
        sampler.observe(record.row, record.score)
    assert [sampler.select().index for _ in range(4)] == [p.row for p in batch]
    for p in reversed(batch):                                  # labels may come back in any order
        audit.label(p.case_id, 0.0)
    reopened = LiveAudit(connect(db), audit.audit_id)
    assert [r.case_id for r in reopened.labels()] == [r.case_id for r in audit.labels()]
    assert reopened.status().log_e_model == audit.status().log_e_model


def test_two_sessions_never_get_the_same_case(db):
    path = db
    first = LiveAudit.create(connect(path), "sdoh", "adaptive", "SR-LR-UI", seed=1, truth="correct")
    second = LiveAudit(connect(path), first.audit_id)
    a = first.next("alice", batch=2)
    b = second.next("bob", batch=3)
    assert not {p.case_id for p in a} & {p.case_id for p in b}
    second.label(a[0].case_id, 1.0, "bob")                    # anyone may label a pending case
    assert first.status().n == 1 and set(first.status().pending) == {p.case_id for p in a[1:] + b}
    with pytest.raises(InputError, match="already labelled"):
        first.label(a[0].case_id, 1.0, "alice")


def test_bad_labels_exit_with_a_message(db, tmp_path):
    audit = LiveAudit.create(workspace(db), "gpqa:large", "stratified", "LR", seed=0, params=GPQA.replace(budget=3))
    (p,) = audit.next()
    with pytest.raises(InputError, match="not in the pool"):
        audit.label("Q999", 1)
    unproposed = next(c for c in audit.pool.case_ids if c != p.case_id)
    with pytest.raises(InputError, match="not proposed"):
        audit.label(unproposed, 1)
    for bad in (1.5, -0.1, "yes", float("nan"), True):
        with pytest.raises(InputError, match="score"):
            audit.label(p.case_id, bad)
    audit.label(p.case_id, "0.25")
    with pytest.raises(InputError, match="already labelled"):
        audit.label(p.case_id, 1)
    label_free = [audit.next()[0] for _ in range(1)]
    audit.label(label_free[0].case_id, 1)
    (last,) = audit.next()
    audit.label(last.case_id, 1)
    assert audit.status().stopped and audit.next() == ()      # budget of 3 reached: no more proposals
    with pytest.raises(InputError, match="truth column"):
        audit.truth(p.case_id)


def test_a_log_that_the_strategy_would_not_produce_is_refused(db, tmp_path):
    conn = workspace(db)
    audit = LiveAudit.create(conn, "gpqa:large", "adaptive", "SR-LR-UI", seed=0, params=GPQA)
    (p,) = audit.next()
    other = next(c for c in audit.pool.case_ids if c != p.case_id)
    with store.write_transaction(conn):
        store.append_event(conn, audit.audit_id, "proposed", other, "intruder", batch=99)
    with pytest.raises(InputError, match="replayed strategy proposes"):
        LiveAudit(connect(db), audit.audit_id).status()


def test_prelearned_asks_for_the_heldout_labels_first(db, tmp_path):
    audit = LiveAudit.create(workspace(db), "gpqa:large", "pre-learned", "LR", seed=3, params=GPQA,
                             truth="correct")
    first = audit.next("ann", batch=40)
    assert len(first) == 30 and {p.phase for p in first} == {"heldout"} and not any(p.counted for p in first)
    for p in first[:-1]:
        audit.label(p.case_id, audit.truth(p.case_id), "ann")
    assert audit.next("other") == ()                          # the model is not fitted yet
    audit.label(first[-1].case_id, audit.truth(first[-1].case_id), "ann")
    (p,) = audit.next("other")
    assert p.phase == "subset" and p.counted and audit.status().n_heldout == 30 and audit.status().n == 0


def test_labels_of_a_batch_can_be_undone_last_first_until_a_proposal_follows(db, tmp_path):
    audit = LiveAudit.create(workspace(db), "gpqa:large", "adaptive", "LR", seed=9, params=GPQA,
                             truth="correct")
    label_to_end(audit, limit=2)
    first, second = audit.next("ann", batch=2)
    audit.label(first.case_id, 1.0, "ann")
    audit.label(second.case_id, 0.0, "ann")
    assert audit.undo().case_id == second.case_id
    assert audit.undo().case_id == first.case_id              # no proposal came after either label
    with pytest.raises(InputError, match="nothing to undo"):   # the label before the batch had one after it
        audit.undo()
    assert audit.status().n == 2 and set(audit.status().pending) == {first.case_id, second.case_id}
