"""τ through identification on a support (issue 33): the same number as measured directly when the
model is a policy of the class, the units outside the class counted when it is not."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

import audit_core.cli as cli
from audit_core import analyses
from audit_core.errors import InputError
from audit_core.identify import frozen_policy_class, minimum_supports
from audit_core.identify.policies import LABELS
from audit_core.measure import identified_tau, load_response_log, measure
from audit_core.measure.eval_logs import load_response_source
from audit_core.measure.identified import ASSUMPTION, OUTSIDE
from audit_core.sequential.intervals import wilson_interval

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "testbed"
DIRECTIONS = [(a, b) for a in LABELS for b in LABELS if a != b]
PC = frozen_policy_class()


@pytest.fixture(scope="module")
def cheapest():
    result = minimum_supports(PC, enumerate_all=False)
    assert result.status == "OPTIMAL" and result.cost == 2
    return result.supports[0]


def by_role(policy: str, cell: str, oracle: dict[str, str]) -> str:
    """The letter a frozen policy gives in ``cell`` of a cluster with ``oracle`` (base, target, sham
    labels), by role: the reference letter read as a label, renamed base/target/third, written back."""
    mapping = cell.split(":")[1]
    reference = LABELS[mapping.index(PC.response(policy, cell))]
    third = next(x for x in LABELS if x not in (oracle["base"], oracle["target"]))
    label = {"TRUE": oracle["base"], "UNKNOWN": oracle["target"], "FALSE": third}[reference]
    return mapping[LABELS.index(label)]


def csv_log(units, cells=None, per_world=False) -> bytes:
    """``units``: (model, cluster, oracle, {cell: response}); ``per_world``: oracle_<world> columns."""
    out = io.StringIO()
    out.write("model,cluster,cell,response," + ("oracle_base,oracle_target,oracle_sham" if per_world else "oracle") + "\n")
    for model, cluster, oracle, answers in units:
        for cell, response in answers.items():
            if cells is not None and cell not in cells:
                continue
            tail = ",".join(oracle[w] for w in ("base", "target", "sham")) if per_world else oracle[cell.split(":")[0]]
            out.write(f"{model},{cluster},{cell},{response},{tail}\n")
    return out.getvalue().encode()


def policy_units(clusters_per_direction: int = 1):
    units = []
    for policy in PC.names:
        for k in range(len(DIRECTIONS) * clusters_per_direction):
            base, target = DIRECTIONS[k % len(DIRECTIONS)]
            oracle = {"base": base, "target": target, "sham": base}
            units.append((policy, f"c{k:02d}", oracle, {c: by_role(policy, c, oracle) for c in PC.cells}))
    return units


def direct_tau(log):
    return {(u.model, u.cluster): u.tau_full for u in measure(log, bootstrap=0).units}


@pytest.mark.parametrize("which", ["cheapest", "cheapest+base", "full"])
def test_each_frozen_policy_gives_the_same_tau_both_ways(cheapest, which):
    """All seven frozen policies on clusters of all six directions: τ_full measured on all 36 cells and
    through identification on an identifying sub-support agree unit by unit (42 units)."""
    log = load_response_log(csv_log(policy_units()), name="policies.csv")
    cells = {"cheapest": cheapest, "cheapest+base": tuple(cheapest) + ("base:ABC:generated",), "full": PC.cells}[which]
    result = identified_tau(log, cells=cells, bootstrap=0)
    direct = direct_tau(log)
    assert all(u.status == "identified" for u in result.units)
    assert {(u.model, u.cluster): u.tau for u in result.units} == direct
    assert {u.model for u in result.units if u.tau == 1} == {"ideal"}  # so the check above could fail
    assert result.pooled.tau.successes == 6 and result.pooled.tau.n == 42 and result.pooled.n_outside == 0
    assert result.model("ideal").tau.rate == 1.0 and result.model("target_inertia").tau.rate == 0.0


def test_fixture_logs_of_real_harnesses_agree_unit_by_unit(cheapest):
    """The Inspect AI and lm-eval logs of the scripted mixture (full support): identified on the
    cheapest support = measured directly, for each of the 24 clusters."""
    for name in ("inspect_mixture.eval", "lmeval_mixture"):
        log = load_response_source(str(FIXTURES / name))
        result = identified_tau(log, cells=cheapest, bootstrap=50)
        assert {(u.model, u.cluster): u.tau for u in result.units} == direct_tau(log)
        assert result.pooled.tau.successes == 12 and result.pooled.tau.n == 24  # 12 ideal clusters of 24
        assert result.pooled.tau.boot_low is not None and result.pooled.tau.wilson_low < 0.5 < result.pooled.tau.wilson_high


def off_class(cell: str, oracle: dict[str, str]) -> str:
    """No policy's behaviour: ideal, except the third label in the target world's generated cells."""
    world, mapping, readout = cell.split(":")
    if world == "target" and readout == "generated":
        third = next(x for x in LABELS if x not in (oracle["base"], oracle["target"]))
        return mapping[LABELS.index(third)]
    return by_role("ideal", cell, oracle)


def test_the_share_outside_the_class_is_what_the_mixture_implies(cheapest):
    """Seeded mixture: each of 240 units is off-class with probability 0.25, else a frozen policy
    drawn uniformly. The units outside the class are exactly the off-class ones (so the share is the
    mixture's realised share); their share's 99% Wilson interval holds 0.25 (n = 240: half-width
    about 0.07, so a detector counting half of them, share 0.125, would be excluded)."""
    rng = np.random.default_rng(33)
    units, scripted_off = [], set()
    for k in range(240):
        base, target = DIRECTIONS[k % len(DIRECTIONS)]
        oracle = {"base": base, "target": target, "sham": base}
        if rng.random() < 0.25:
            scripted_off.add(f"c{k:03d}")
            answers = {c: off_class(c, oracle) for c in PC.cells}
        else:
            policy = PC.names[int(rng.integers(len(PC.names)))]
            answers = {c: by_role(policy, c, oracle) for c in PC.cells}
        units.append(("m", f"c{k:03d}", oracle, answers))
    log = load_response_log(csv_log(units), name="mixture.csv")
    result = identified_tau(log, cells=cheapest, bootstrap=0)
    outside = {u.cluster for u in result.units if u.status == OUTSIDE}
    assert outside == scripted_off and 40 < len(outside) < 80
    share = result.pooled.outside
    assert share.successes == len(scripted_off) and share.n == 240
    low, high = wilson_interval(share.successes, share.n, 0.99)
    assert low < 0.25 < high and not low < 0.125 < high
    assert all(u.tau is None for u in result.units if u.status == OUTSIDE)  # never assigned a τ
    # Measured directly, the off-class units have τ_full = 0; identified units agree with it.
    direct = direct_tau(log)
    assert all(direct[("m", c)] == 0 for c in outside)
    assert all(direct[(u.model, u.cluster)] == u.tau for u in result.units if u.status == "identified")


def test_the_two_numbers_differ_for_a_model_outside_the_class_off_the_support(cheapest):
    """docs/measure.md's example: ideal except INVALID in a cell the support does not observe. Directly
    τ_full = 0 (a cell disagrees with the oracle); through identification the support sees an ideal
    unit and gives τ = 1: the assumption (a policy of the class) is what fails, and no log of the
    support can show it."""
    oracle = {"base": "TRUE", "target": "UNKNOWN", "sham": "TRUE"}
    answers = {c: by_role("ideal", c, oracle) for c in PC.cells}
    answers["base:CBA:scoring"] = "INVALID"
    log = load_response_log(csv_log([("m", "c1", oracle, answers)]), name="one.csv")
    assert direct_tau(log) == {("m", "c1"): 0}
    result = identified_tau(log, cells=cheapest, bootstrap=0)
    assert [(u.status, u.tau, u.policies) for u in result.units] == [("identified", 1, ("ideal",))]


def test_a_support_that_does_not_identify_is_refused_with_one_message():
    log = load_response_log(csv_log(policy_units()), name="policies.csv")
    with pytest.raises(InputError, match=r"tau_full is not identified on these 1 cell\(s\): policies 'ideal' and"):
        identified_tau(log, cells=["base:ABC:generated"], bootstrap=0)


def test_a_cut_log_with_the_oracles_of_every_world_is_measured_through_identification(cheapest):
    units = policy_units()
    cut = load_response_log(csv_log(units, cells=set(cheapest), per_world=True), name="cut.csv")
    view = analyses.measure_log(analyses.response_log_source(csv_log(units, cells=set(cheapest), per_world=True),
                                                             "cut.csv"), bootstrap=100)
    assert view.identified is not None and view.identified.cells == tuple(cheapest)
    full = direct_tau(load_response_log(csv_log(units), name="full.csv"))
    assert {(u.model, u.cluster): u.tau for u in view.identified.units} == full
    payload = view.to_dict()["identified_tau"]
    assert payload["assumption"] == ASSUMPTION and payload["cells_per_cluster"] == 2
    assert payload["model_calls"] == 42 * 2 and payload["model_calls_saved"] == 42 * 34
    assert "Theorem 1" in payload["statement"] and ASSUMPTION in view.support_verdict.caveat
    assert view.identified_table["τ (identified)"].iloc[-1] == pytest.approx(6 / 42)
    assert cut.n_units == 42
    # With one 'oracle' column the cut log cannot know the base world's oracle: one clear message.
    with pytest.raises(InputError, match="has no row in world 'base', so its oracle there is unknown"):
        load_response_log(csv_log(units, cells=set(cheapest)), name="cut.csv")


def test_measure_cli_states_the_assumption_and_the_calls_saved(cheapest, tmp_path, capsys):
    path = tmp_path / "cut.csv"
    path.write_bytes(csv_log(policy_units(), cells=set(cheapest), per_world=True))
    assert cli.main(["measure", str(path), "--bootstrap", "50"]) == 0
    text = capsys.readouterr().out
    assert f"assumption: {ASSUMPTION}" in text and "84 model calls instead of 1,512 (1,428 saved)" in text
    assert cli.main(["measure", str(path), "--bootstrap", "0", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["identified_tau"]["pooled"]["tau"]["successes"] == 6
