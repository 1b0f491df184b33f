"""Dual test, first crossings, Wilson interval and replay."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from audit_core.errors import InputError
from audit_core.sequential import (
    AUDIT_PASSED,
    FAILURE_FOUND,
    INCONCLUSIVE,
    PROCESS_NAMES,
    AuditParams,
    DualTest,
    Proportion,
    confidence_sequence,
    dual_decision,
    first_crossing,
    log_evalues,
    replay,
    wilson_interval,
)


def test_first_crossing_ties_count():
    thr = math.log(20.0)
    assert first_crossing([0.0, 1.0, thr, thr + 1.0], thr) == 3
    assert first_crossing([0.0, thr - 1e-12], thr) is None
    assert first_crossing(np.array([thr]), thr) == 1
    with pytest.raises(InputError):
        first_crossing(np.zeros((2, 2)), thr)


def test_dual_decision_rules():
    assert dual_decision(5, None) == (FAILURE_FOUND, 5)
    assert dual_decision(None, 7) == (AUDIT_PASSED, 7)
    assert dual_decision(7, 7) == (FAILURE_FOUND, 7)  # tie: the failure is reported
    assert dual_decision(9, 7) == (AUDIT_PASSED, 7)
    assert dual_decision(None, None) == (INCONCLUSIVE, None)


def test_dual_test_streaming_matches_replay():
    rng = np.random.default_rng(8)
    params = AuditParams.gpqa(budget=10**6)
    for p_correct in (0.6, 0.97, 0.86):
        y = (rng.random(500) < p_correct).astype(float)
        result = replay(y, params)
        for model, auditor in (("SR-LR-UI", "AUD-LR-UI"), ("LR", "AUD-LR")):
            test = DualTest(params, model, auditor)
            for v in y:
                if test.update(v):
                    break
            expected = replay(y, params, model_process=model, auditor_process=auditor)
            assert (test.decision, test.stop) == (expected.dual.decision, expected.dual.stop)
        assert result.decision in (FAILURE_FOUND, AUDIT_PASSED, INCONCLUSIVE)
    assert replay((rng.random(300) < 0.5).astype(float), params).decision == FAILURE_FOUND
    assert replay(np.ones(300), params).decision == AUDIT_PASSED


def test_dual_test_budget_and_roles():
    params = AuditParams.gpqa(budget=30)
    test = DualTest(params)
    for _ in range(30):
        stopped = test.update(0.85 > 0.5)  # all correct, but the auditor only starts at m = 40
    assert stopped and test.decision == INCONCLUSIVE and test.stop is None
    with pytest.raises(InputError, match="already stopped"):
        test.update(1.0)
    with pytest.raises(InputError, match="model process"):
        DualTest(params, model_process="AUD-LR")
    with pytest.raises(InputError, match="auditor process"):
        DualTest(params, auditor_process="LR")


def test_wilson_interval_known_values_and_vectorised():
    low, high = wilson_interval(5, 10)
    assert (low, high) == pytest.approx((0.236593, 0.763407), abs=1e-6)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.277533, abs=1e-6)
    lows, highs = wilson_interval(np.array([0, 5, 10, 0]), np.array([10, 10, 10, 0]))
    assert lows.shape == (4,) and lows[3] == 0.0 and highs[3] == 1.0
    assert highs[2] == 1.0 and lows[2] == pytest.approx(1 - 0.277533, abs=1e-6)
    assert wilson_interval(50, 100, 0.99)[0] < wilson_interval(50, 100, 0.95)[0]
    with pytest.raises(InputError):
        wilson_interval(11, 10)


def test_replay_subgroup_table_and_json_shape():
    rng = np.random.default_rng(21)
    n = 240
    domain = rng.choice(["Chemistry", "Biology"], n)
    level = rng.choice(["easy", "hard"], n)
    y = (rng.random(n) < np.where(domain == "Chemistry", 0.5, 0.95)).astype(float)
    params = AuditParams.gpqa()
    result = replay(y, params, subgroups=pd.DataFrame({"domain": domain, "level": level}))
    table = result.subgroup_table
    assert list(table.columns) == ["domain", "level", "n", "correct", "accuracy", "ci_low", "ci_high", "cs_low", "cs_high",
                                   "fw_low", "fw_high", "fw_alpha"]
    assert table["n"].sum() == n and len(table) == 4
    for _, row in table.iterrows():
        mask = (domain == row["domain"]) & (level == row["level"])
        assert row["n"] == mask.sum() and row["correct"] == y[mask].sum()
        assert row["ci_low"] <= row["accuracy"] <= row["ci_high"]
        # the anytime-valid bound of the subgroup = the sequence over its scores in arrival order
        sequence = confidence_sequence(y[mask], 0.05)
        assert (row["cs_low"], row["cs_high"]) == pytest.approx(sequence.final, abs=1e-12)
        # (not "contains Wilson's interval": the running intersection keeps a lower bound reached
        # after an early streak of 1s, e.g. Biology/hard: 0.882 after 43 straight 1s, Wilson's 0.863
        # at the end; the hedged mixture is narrow near 1)
        assert row["cs_low"] <= row["accuracy"] <= row["cs_high"]
    trajectories = log_evalues(y, params)
    for name in PROCESS_NAMES:
        assert np.array_equal(result.log_e[name], trajectories[name])
        assert result.stops[name] == first_crossing(trajectories[name], params.log_threshold)
    payload = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert payload["n"] == n and set(payload["processes"]) == set(PROCESS_NAMES)
    assert len(payload["processes"]["LR"]["log_e"]) == n
    assert payload["decision"]["decision"] == result.decision
    assert payload["subgroup_columns"] == ["domain", "level"] and len(payload["subgroups"]) == 4
    assert payload["overall"]["n"] == n
    assert (payload["overall"]["cs_low"], payload["overall"]["cs_high"]) == pytest.approx(
        confidence_sequence(y, 0.05).final, abs=1e-12)
    assert all({"cs_low", "cs_high"} <= set(row) for row in payload["subgroups"])
    assert result.dual.to_dict() == payload["decision"] and isinstance(result.overall, Proportion)
    labels = [p.label for p in result.subgroups]
    assert labels == sorted(labels) and [p.n for p in result.subgroups] == table["n"].tolist()


def test_replay_input_checks():
    params = AuditParams.gpqa()
    with pytest.raises(InputError, match="non-empty"):
        replay([], params)
    with pytest.raises(InputError, match="align"):
        replay([1.0, 0.0], params, subgroups=["a"])
    assert len(replay([1.0, 0.0], params).subgroup_table) == 1


def test_replay_of_bundled_recorded_run_reproduces_the_streaming_audit():
    """data/recorded_run.csv was written by a streaming DualTest inside an adaptive audit; replaying
    its scores through the vectorised processes gives the same trajectories and decision."""
    auditing = pytest.importorskip("audit_core.auditing")
    bundled = pytest.importorskip("audit_core.data.bundled")
    generators = pytest.importorskip("audit_core.data.generators")
    import importlib.util
    from pathlib import Path

    from audit_core.data.loader import load_audit_csv

    script = Path("data/generate_examples.py")
    info = bundled.BUNDLED["recorded_run"]
    if not (script.is_file() and info.path.is_file() and bundled.BUNDLED["sdoh"].path.is_file()):
        pytest.skip("bundled data not generated")
    spec = importlib.util.spec_from_file_location("generate_examples", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sdoh = pd.read_csv(bundled.BUNDLED["sdoh"].path)
    features = list(generators.feature_columns(sdoh))
    pool = auditing.build_pool("sdoh", sdoh["correct"].to_numpy(float), sdoh[features].to_numpy(float),
                               sdoh[["category"]].to_numpy(object), case_ids=sdoh["case_id"].to_numpy(),
                               subgroup_columns=("category",), style="sdoh")
    params = AuditParams.sdoh()
    run = auditing.run_audit(pool, "adaptive", "SR-LR-UI", params, seed=module.RECORDED_RUN_SEED)
    data = load_audit_csv(info.path, score=info.score, subgroups=info.subgroups, order=info.order)
    result = replay(data.scores, params)
    assert np.array_equal(data.scores, np.asarray(run.scores, dtype=float))
    assert np.max(np.abs(result.log_e["SR-LR-UI"] - np.asarray(run.log_e_model))) < 1e-9
    assert np.max(np.abs(result.log_e["AUD-LR-UI"] - np.asarray(run.log_e_auditor))) < 1e-9
    assert (result.decision, result.dual.stop) == (run.decision, run.stop)
