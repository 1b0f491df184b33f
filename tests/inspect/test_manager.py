"""audit_core.inspect's manager through its protocol methods: each rule against its brute-force
definition over the same completion order, late, errored and unscored samples, epochs, messages."""

import json

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.inspect import early_stopping
from audit_core.inspect._manager import StreamingInterval
from audit_core.inspect.simulation import run_now, simulate_run
from audit_core.sequential import AuditParams, confidence_sequence, replay


def used_scores(record, statuses=("used",)):
    """(id, epoch, score) of the record's completions with these statuses, in completion order."""
    return [(i, e) for i, e, status in record["order"] if status in statuses]


def drive(manager, scores, ids=None, metadata=None, epochs=1, scorers=("match",)):
    """Start, then schedule and complete each (id, epoch) one at a time with the given 0/1 score."""
    ids = list(range(1, len(scores) + 1)) if ids is None else ids
    manager.start(ids, metadata or [{}] * len(ids), epochs, list(scorers))
    for i, y in zip(ids, scores, strict=True):
        if manager.schedule(i, 1) is None:
            manager.complete(i, 1, {"match": y})
    return manager.summary()["audit_core"]


@pytest.mark.parametrize("accuracy", [0.95, 0.7, 0.85])
def test_default_is_replays_dual_test_at_the_same_case(accuracy):
    """early_stopping() with 8 samples at once: replay of every completed score (the late ones too)
    in completion order finds the manager's decision at the manager's case."""
    rng = np.random.default_rng(int(accuracy * 100))
    for _ in range(5):
        p = np.full(300, accuracy)
        outcomes = rng.random((300, 1)) < p[:, None]
        record = simulate_run(early_stopping(), p, rng, outcomes=outcomes, concurrency=8)
        scores = [float(outcomes[i - 1, 0]) for i, _ in used_scores(record, ("used", "late"))]
        again = replay(np.array(scores), AuditParams.gpqa())
        group = record["groups"][0]
        assert (again.dual.decision, again.dual.stop) == (group["dual"]["decision"], group["dual"]["stop"])
        assert record["decision"] == again.dual.decision
        if again.dual.stop is not None:
            assert record["stop"]["at"] == again.dual.stop and record["used"] == again.dual.stop
            assert record["run"] + record["skipped"] == 300
            assert group["late"] == len(scores) - again.dual.stop <= 7


def test_late_samples_are_recorded_and_change_nothing():
    manager = early_stopping()
    manager.start(list(range(1, 201)), [{}] * 200, 1, ["match"])
    for i in range(1, 101):
        assert manager.schedule(i, 1) is None
    for i in range(1, 101):  # 100 running at once, all correct: the audit passes before the last completes
        manager.complete(i, 1, {"match": "C"})
    record = manager.summary()["audit_core"]
    stop = record["groups"][0]["dual"]["stop"]
    assert record["decision"] == "audit passed" and stop < 100
    assert record["used"] == stop and record["groups"][0]["late"] == 100 - stop
    before = json.dumps(record["groups"][0]["dual"])
    manager.complete(101, 1, {"match": "I"})  # a straggler failing: still late, still nothing changes
    assert json.dumps(manager.summary()["audit_core"]["groups"][0]["dual"]) == before
    assert all(manager.schedule(i, 1).startswith("stopped: every question answered") for i in range(102, 201))


def test_subgroups_stop_one_by_one_and_skip_their_samples():
    """A subgroup that always fails is answered early; its later samples are skipped while the other
    keeps running; the dual test of each runs at alpha / 2."""
    manager = early_stopping(subgroups="subject")
    n = 400
    metadata = [{"subject": "weak" if i % 2 else "strong"} for i in range(n)]
    rng = np.random.default_rng(5)
    scores = ["I" if i % 2 else ("C" if rng.random() < 0.9 else "I") for i in range(n)]
    record = drive(manager, scores, metadata=metadata)
    groups = {g["subgroup"]: g for g in record["groups"]}
    assert groups["weak"]["dual"]["decision"] == "failure mode found"
    assert record["parameters"]["family_alpha"] == pytest.approx(0.025) and record["parameters"]["K"] == 2
    weak = [2 * k for k in range(1, n // 2 + 1)]  # ids of the weak subgroup (1-based, odd positions)
    skipped = {i for i, _, reason in manager.skipped}
    assert set(weak[groups["weak"]["used"]:]) <= skipped
    assert groups["strong"]["used"] > groups["weak"]["used"]
    weak_scores = np.zeros(groups["weak"]["used"])
    alone = replay(weak_scores, AuditParams.gpqa(alpha=0.025))
    assert alone.dual.stop == groups["weak"]["dual"]["stop"] == groups["weak"]["used"]


@pytest.mark.parametrize("planned_n", ["dataset", None])
def test_precision_and_threshold_rules_equal_their_definitions(planned_n):
    """The first case at which the subgroup's confidence_sequence (alpha/K, scores in arrival order;
    by default tuned to the subgroup's 400 cases in the dataset, issue 28 item 3) has half-width
    <= eps, and lies above or below q', computed over every prefix."""
    rng = np.random.default_rng(11)
    for accuracy, eps, q in ((0.9, 0.1, 0.7), (0.3, 0.12, 0.5), (0.6, 0.15, 0.62)):
        scores = (rng.random(400) < accuracy).astype(float)
        record = drive(early_stopping(precision=eps, threshold=q, planned_n=planned_n), list(scores))
        group = record["groups"][0]
        assert record["parameters"]["planned_n"] == planned_n
        sequence = confidence_sequence(scores, 0.05, planned_n=400 if planned_n else None)
        half = (sequence.upper - sequence.lower) / 2
        first = lambda hits: int(np.argmax(hits)) + 1 if hits.any() else None  # noqa: E731
        assert group["precision"]["met_at"] == first(half <= eps)
        above, below = first(sequence.lower > q), first(sequence.upper < q)
        expected = None if above is None and below is None else (
            {"side": "above", "at": above} if below is None or (above is not None and above < below)
            else {"side": "below", "at": below})
        assert group["threshold"] == expected
        n = group["used"]
        assert n == max(group["precision"]["met_at"] or 400, (expected or {"at": 400})["at"])
        low, high = confidence_sequence(scores[:n], 0.05, planned_n=400 if planned_n else None).final
        assert group["interval"] == pytest.approx([low, high], abs=1e-12)


def test_the_interval_is_tuned_to_each_subgroups_cases_capped_by_the_budget():
    """Two subgroups of 300 and 100 cases and a budget of 150: the planned n of each is
    min(cases, budget), known before any score; the tuned interval is narrower there than the
    untuned one on the same scores."""
    rng = np.random.default_rng(4)
    metadata = [{"g": "big" if i % 4 else "small"} for i in range(400)]
    scores = list((rng.random(400) < 0.8).astype(float))
    capped = early_stopping(subgroups="g", precision=0.01, budget=150)
    drive(capped, scores, metadata=metadata)
    assert {g.label: capped._planned(g.total) for g in capped.groups.values()} == {"big": 150, "small": 100}
    # Without a budget every case is used: at its planned n the tuned interval is the narrower.
    record = drive(early_stopping(subgroups="g", precision=0.01), scores, metadata=metadata)
    plain = drive(early_stopping(subgroups="g", precision=0.01, planned_n=None), scores, metadata=metadata)
    for g, u in zip(record["groups"], plain["groups"], strict=True):
        used = [s for s, m in zip(scores, metadata, strict=True) if m["g"] == g["subgroup"]]
        assert g["used"] == g["cases"] == len(used) == (300 if g["subgroup"] == "big" else 100)
        assert g["interval"] == pytest.approx(list(confidence_sequence(used, 0.025, planned_n=len(used)).final), abs=1e-12)
        assert g["interval"][1] - g["interval"][0] < u["interval"][1] - u["interval"][0]
    with pytest.raises(InputError, match="planned_n"):
        early_stopping(precision=0.1, planned_n=100)


def test_streaming_interval_equals_confidence_sequence_0_1_and_graded():
    rng = np.random.default_rng(2)
    for scores in ((rng.random(700) < 0.8).astype(float), np.concatenate([(rng.random(30) < 0.5), rng.random(20)]),
                   np.ones(50), np.zeros(50)):
        for planned in (None, 60):
            stream = StreamingInterval(0.01, planned_n=planned)
            for k, y in enumerate(scores, start=1):
                low, high = stream.update(float(y))
                if k in (1, 2, 10, 31, len(scores)):
                    expected = confidence_sequence(scores[:k], 0.01, planned_n=planned if set(scores[:k]) <= {0, 1} else None)
                    assert (low, high) == pytest.approx(expected.final, abs=1e-12)


def test_a_declared_score_type_fixes_the_construction_before_the_first_score():
    """Issue 28 item 5: graded is PrPl-EB from the first score (on 0/1 scores too); binary refuses a
    graded score; the manager's record names the declared type."""
    rng = np.random.default_rng(5)
    scores = (rng.random(60) < 0.7).astype(float)
    graded = StreamingInterval(0.05, "graded")
    for k, y in enumerate(scores, start=1):
        low, high = graded.update(float(y))
        if k in (1, 7, 60):
            expected = confidence_sequence(scores[:k], 0.05, score_type="graded")
            assert expected.method == "PrPl-EB" and (low, high) == pytest.approx(expected.final, abs=1e-12)
    binary = StreamingInterval(0.05, "binary")
    binary.update(1.0)
    with pytest.raises(InputError, match="declared 'binary' but a score is 0.5"):
        binary.update(0.5)
    with pytest.raises(InputError, match="score_type"):
        early_stopping(precision=0.2, score_type="ordinal")
    record = drive(early_stopping(budget=5, dual=False, score_type="binary"), ["C", "I"] * 5)
    assert record["parameters"]["score_type"] == "binary"


def test_budget_skips_everything_after_it():
    record = drive(early_stopping(budget=25, dual=False), ["C", "I"] * 50)
    assert record["used"] == 25 and record["run"] == 25 and record["skipped"] == 75
    assert record["stop"] == {"reason": "budget of 25 cases spent", "at": 25}


def test_errored_and_unscored_samples_are_not_scores():
    manager = early_stopping()
    manager.start([1, 2, 3, 4], [{}] * 4, 1, ["match"])
    manager.complete(1, 1, {"match": "I"}, errored=True)   # score_on_error: scored, but errored
    manager.complete(2, 1, {})                              # no value for the scorer
    manager.complete(3, 1, {"match": None})

    def _report(outcome):  # Inspect's SampleTerminalReporter._report, as far as the lookup sees it
        run_now(manager.complete_sample(4, 1, {"match": "I"}))

    _report("errored")
    record = manager.summary()["audit_core"]
    assert record["used"] == 0 and [s for *_, s in record["order"]] == ["errored", "unscored", "unscored", "errored"]


def test_epochs_as_cases_and_as_clusters():
    """cases: every (sample, epoch) a score in completion order; clusters: a sample's mean over its
    epochs, entering when its last epoch completes. Both equal replay of those sequences."""
    rng = np.random.default_rng(8)
    p = np.where(np.arange(60) % 3 == 0, 0.5, 0.8)
    outcomes = rng.random((60, 3)) < p[:, None]
    for treatment in ("cases", "clusters"):
        record = simulate_run(early_stopping(epochs=treatment), p, np.random.default_rng(1), epochs=3,
                              outcomes=outcomes, concurrency=6)
        if treatment == "cases":
            sequence = [float(outcomes[i - 1, e - 1]) for i, e in used_scores(record, ("used", "late"))]
        else:
            sequence = [outcomes[i - 1].mean() for i, _ in used_scores(record, ("used", "late"))]
            assert all(s in ("used", "late", "pending") for *_, s in record["order"])
        again = replay(np.array(sequence), AuditParams.gpqa())
        assert (again.dual.decision, again.dual.stop) == (record["decision"], record["groups"][0]["dual"]["stop"])
        assert record["parameters"]["epochs"] == treatment
        json.dumps(record)  # the log's metadata is JSON


def test_messages():
    with pytest.raises(InputError, match="2 scorers"):
        early_stopping().start([1], [{}], 1, ["match", "graded"])
    with pytest.raises(InputError, match="no such scorer"):
        early_stopping("exact").start([1], [{}], 1, ["match", "graded"])
    manager = early_stopping()
    manager.start([1, 2], [{}] * 2, 1, ["judge"])
    with pytest.raises(InputError, match="several values per sample"):
        manager.complete(1, 1, {"judge": {"accuracy": "C", "style": 0.5}})
    with pytest.raises(InputError, match="not a score in"):
        manager.complete(2, 1, {"judge": 7})
    keyed = early_stopping("judge.style")
    keyed.start([1], [{}], 1, ["judge"])
    keyed.complete(1, 1, {"judge": {"accuracy": "C", "style": 0.5}})
    assert keyed.groups["(all)"].scores == [0.5]
    with pytest.raises(InputError, match=r"with q = 0.95 give params=AuditParams.gpqa\(q=0.95"):
        early_stopping(q=0.95)
    for bad in ({"precision": 0}, {"threshold": 1.5}, {"budget": 0}, {"epochs": "items"}, {"dual": False},
                {"stop_when": "most"}, {"params": AuditParams.gpqa(), "alpha": 0.1}):
        with pytest.raises(InputError):
            early_stopping(**bad)
