"""measure reads the Inspect AI and lm-eval logs of the testbed's runnable tasks (issue 20).

The logs in tests/fixtures/testbed/ were written by inspect-ai and lm-eval themselves from the task
files ``testbed generate`` writes, with scripted models answering as policies of the frozen class
(tests/fixtures/make_testbed_logs.py). The rates each log must give are computed here from the
policy definitions in data/frozen_policies.json and the fixture's design (which policy answered
which cluster), independently of the measure engine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit_core import analyses
from audit_core.errors import InputError
from audit_core.measure import measure
from audit_core.testbed import tasks

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "testbed"
DESIGN = json.loads((FIXTURES / "design.json").read_text())
FROZEN = json.loads((ROOT / "data" / "frozen_policies.json").read_text())
MAPPINGS = FROZEN["axes"]["mapping"]
READOUTS = FROZEN["axes"]["readout"]
CANONICAL = ("ABC", "generated")


def correct_cells(policy: str) -> dict[str, bool]:
    """Per cell, whether the policy answers the reference oracle (a policy answers by role, so on
    every cluster a cell is right exactly when it is right on the reference cluster)."""
    responses = next(p["responses"] for p in FROZEN["policies"] if p["name"] == policy)
    return {cell: responses[cell] == FROZEN["oracle"][cell] for cell in FROZEN["oracle"]}


def implied_counts(policy_of_cluster: dict[str, str]) -> dict[str, tuple[int, int]]:
    """(successes, n) of each estimate over the clusters, from the policies' definitions."""
    totals: dict[str, list[int]] = {}

    def add(name, s, n):
        pair = totals.setdefault(name, [0, 0])
        pair[0] += int(s)
        pair[1] += int(n)

    for policy in policy_of_cluster.values():
        ok = correct_cells(policy)
        contexts = [(m, r) for m in MAPPINGS for r in READOUTS]
        b = [ok[f"base:{m}:{r}"] for m, r in contexts]
        t = [ok[f"target:{m}:{r}"] for m, r in contexts]
        s = [ok[f"sham:{m}:{r}"] for m, r in contexts]
        n_base = sum(b)
        local = sum(x and y and z for x, y, z in zip(b, t, s, strict=True))
        add("base_accuracy", n_base, len(contexts))
        add("target_follow", sum(x and y for x, y in zip(b, t, strict=True)), n_base)
        add("sham_stay", sum(x and z for x, z in zip(b, s, strict=True)), n_base)
        add("local_given_base", local, n_base)
        add("local_paired", local, len(contexts))
        add("sham_stable", sum(s), len(contexts))
        m, r = CANONICAL
        add("static_correctness", ok[f"base:{m}:{r}"], 1)
        add("local_response", all(ok[f"{w}:{m}:{r}"] for w in ("base", "target", "sham")), 1)
        add("tau_full", all(ok.values()), 1)
        add("validity", len(ok), len(ok))
    return {k: tuple(v) for k, v in totals.items()}


def measured_counts(log, model: str | None = None) -> dict[str, tuple[int, int]]:
    result = measure(log, bootstrap=0)
    block = result.pooled if model is None else result.model(model)
    return {e.name: (e.successes, e.n) for e in block.estimates}


def load(*paths, policy=None):
    data = [str(p) for p in paths]
    return analyses.response_log_source(data[0] if len(data) == 1 else data, policy=policy)


INSPECT_LOGS = ["inspect_ideal.eval", "inspect_target_inertia.eval", "inspect_mapping_shortcut.eval",
                "inspect_mixture.eval"]


@pytest.mark.parametrize("name", INSPECT_LOGS)
def test_inspect_round_trip_gives_the_rates_the_policy_implies(name):
    source = load(FIXTURES / name)
    log = source.value
    policy = name.removeprefix("inspect_").removesuffix(".eval")
    assert log.models == (f"mockllm/{policy}",)
    assert len(log.clusters) == 24 and log.observed.all()
    expected = implied_counts(DESIGN["logs"][name])
    got = measured_counts(log)
    assert {k: got[k] for k in expected} == expected
    assert not any("INVALID" in n for n in log.notes)


def test_the_policies_are_told_apart_by_the_rates():
    # Guards the test above: the four designs do not all imply the same rates.
    implied = {name: implied_counts(DESIGN["logs"][name]) for name in INSPECT_LOGS}
    assert len({json.dumps(v, sort_keys=True) for v in implied.values()}) == 4
    assert implied["inspect_ideal.eval"]["tau_full"] == (24, 24)
    assert implied["inspect_target_inertia.eval"]["target_follow"] == (0, 24 * 12)
    assert DESIGN["logs"]["inspect_mixture.eval"] == DESIGN["logs"]["lmeval_mixture"]
    assert sorted(DESIGN["logs"]["inspect_mixture.eval"].values()).count("ideal") == DESIGN["mixture"]["ideal"]


def test_inspect_target_inertia_is_all_target_inertia():
    result = measure(load(FIXTURES / "inspect_target_inertia.eval").value, bootstrap=0)
    composition = dict(result.pooled.composition)
    assert composition == {**{k: 0 for k in composition}, "target inertia": 24 * 12}


def test_lmeval_round_trip_gives_the_rates_the_mixture_implies():
    log = load(FIXTURES / "lmeval_mixture").value
    assert log.models == ("policy-lm/mixture",)
    assert len(log.clusters) == 24 and log.observed.all()
    design = DESIGN["logs"]["lmeval_mixture"]
    expected = implied_counts(design)
    got = measured_counts(log)
    assert {k: got[k] for k in expected} == expected
    # Unit by unit: each cluster's estimands are those of the policy that answered it.
    for unit in measure(log, bootstrap=0).units:
        implied = implied_counts({unit.cluster: design[unit.cluster]})
        assert (unit.static_correctness, unit.local_response, unit.tau_full) == tuple(
            implied[k][0] for k in ("static_correctness", "local_response", "tau_full"))


def test_lmeval_samples_files_read_like_their_folder():
    files = sorted((FIXTURES / "lmeval_mixture").rglob("samples_*.jsonl"))
    assert len(files) == 2
    from_files = measured_counts(load(*files).value)
    assert from_files == measured_counts(load(FIXTURES / "lmeval_mixture").value)


def test_inspect_and_lmeval_logs_measured_together_as_two_models():
    log = load(FIXTURES / "inspect_mixture.eval", FIXTURES / "lmeval_mixture").value
    assert log.models == ("mockllm/mixture", "policy-lm/mixture")
    expected = implied_counts(DESIGN["logs"]["inspect_mixture.eval"])
    for model in log.models:
        got = measured_counts(log, model)
        assert {k: got[k] for k in expected} == expected


def test_fixture_logs_hold_the_items_the_generator_makes_today():
    # The tags in the logs are those of the clusters regenerated now: same seed, same problems.
    t = DESIGN["testbed"]
    view = analyses.generate_testbed(t["clusters"], t["seed"], depth=t["depth"], distractors=t["distractors"])
    tags = tasks.testbed_tag(t["seed"], view.clusters)
    from audit_core.measure.eval_logs import _read_one
    (rows,) = _read_one(str(FIXTURES / "inspect_ideal.eval"), None)
    assert rows.tags == {c: (v["seed"], v["cluster_key"]) for c, v in tags.items()}


def test_text_answers_are_invalid_and_errors_left_out_both_counted():
    log = load(FIXTURES / "inspect_partial.eval").value
    n_text = 2 * len(DESIGN["partial"]["text_cells"])
    got = measured_counts(log)
    # text answers are INVALID; the one errored sample is no answer of the model (issue 29 item 5)
    assert got["validity"] == (72 - n_text - 1, 72 - 1)
    note = next(n for n in log.notes if "without an option letter" in n)
    assert f"{n_text} answered without an option letter" in note
    assert any("1 sample(s) errored or hold no response" in n for n in log.notes)
    assert "'The statement is TRUE.'" in note


# ------------------------------------------------------------------------------- user mistakes

def test_log_of_another_testbed_seed_is_refused():
    with pytest.raises(InputError, match="another testbed") as err:
        load(FIXTURES / "inspect_ideal.eval", FIXTURES / "inspect_seed1.eval")
    assert "seed 1" in str(err.value) and "seed 0" in str(err.value)


def test_ordinary_inspect_log_is_refused():
    with pytest.raises(InputError, match="not a log of testbed items"):
        load(ROOT / "tests" / "fixtures" / "inspect" / "run.eval")


def test_ordinary_lmeval_output_is_refused():
    with pytest.raises(InputError, match="not a log of testbed items"):
        load(ROOT / "tests" / "fixtures" / "lmeval" / "suite")


def test_mixed_layouts_are_refused(tmp_path):
    with pytest.raises(InputError, match="mixed layouts"):
        load(FIXTURES / "inspect_ideal.eval", ROOT / "data" / "example_response_log.csv")
    # A policy class of another layout than the items' 36 cells.
    custom = tmp_path / "class.json"
    frozen = json.loads((ROOT / "data" / "frozen_policies.json").read_text())
    frozen["axes"]["readout"] = ["generated"]
    frozen["base"]["readout"] = ["generated"]
    frozen["components"].pop("readout")
    frozen["oracle"] = {k: v for k, v in frozen["oracle"].items() if k.endswith("generated")}
    for p in (p for p in frozen["policies"] if "responses" in p):  # the mixture has weights only
        p["responses"] = {k: v for k, v in p["responses"].items() if k.endswith("generated")}
    custom.write_text(json.dumps(frozen))
    policy = analyses.policy_source(str(custom))
    with pytest.raises(InputError, match="not cells of the layout being measured"):
        load(FIXTURES / "inspect_ideal.eval", policy=policy)


def test_model_that_answered_in_text_is_refused():
    with pytest.raises(InputError, match="answered in text, never with an option letter") as err:
        load(FIXTURES / "inspect_text.eval")
    assert "mockllm/text" in str(err.value) and "The statement is TRUE." in str(err.value)


# ------------------------------------------------------------------- identification alongside

def test_measured_tau_full_is_stated_with_its_identification():
    view = analyses.measure_log(load(FIXTURES / "inspect_mixture.eval"), bootstrap=0)
    assert view.identification.identified and len(view.identification.cells) == 36
    tau = sum(1 for p in DESIGN["logs"]["inspect_mixture.eval"].values() if p == "ideal")
    assert view.support_verdict.text.startswith(f"measured τ_full = {tau / 24:.2f} ({tau}/24 complete units) "
                                                "on a support that identifies it")
    assert view.support_verdict.text in view.section.summary[0]


def test_a_log_covering_part_of_the_cells_says_tau_is_not_identified_there(tmp_path):
    import pandas as pd
    frame = pd.read_csv(ROOT / "data" / "example_response_log.csv", dtype=str, keep_default_na=False)
    part = frame[frame["cell"].str.contains(":ABC:")]  # one mapping only: 6 cells of 36
    path = tmp_path / "part.csv"
    part.to_csv(path, index=False)
    view = analyses.measure_log(load(path), bootstrap=0)
    ident = view.identification
    assert not ident.identified and ident.n_collisions > 0 and len(ident.cells) == 6
    assert view.support_verdict.tone == "bad"
    assert (f"where it is not identified (6 cells of 36 covered; {ident.n_collisions} colliding pair"
            in view.support_verdict.text)
    assert "τ_full is not measured" in view.support_verdict.text


def test_replay_reader_keeps_a_score_whose_scorer_is_named_like_a_metadata_key():
    # The testbed task's scorer and its metadata key are both 'testbed': the metadata column used
    # to overwrite the score column (every value the tag's JSON, "not a finite number").
    from audit_core.data.sources import load_audit_source
    data = load_audit_source(str(FIXTURES / "inspect_target_inertia.eval"), score="testbed", subgroups=())
    assert len(data.scores) == 864 and int(data.scores.sum()) == 24 * sum(correct_cells("target_inertia").values())


def test_inspect_json_log_measures_like_its_eval_log():
    from_json = load(FIXTURES / "inspect_partial.json").value
    from_eval = load(FIXTURES / "inspect_partial.eval").value
    assert from_json.models == from_eval.models == ("mockllm/partial",)
    assert measured_counts(from_json) == measured_counts(from_eval)
    assert [n for n in from_json.notes if "INVALID" in n] == [n for n in from_eval.notes if "INVALID" in n]


def test_lmeval_output_folder_as_one_zip(tmp_path):
    import shutil
    archive = shutil.make_archive(str(tmp_path / "out"), "zip", root_dir=FIXTURES, base_dir="lmeval_mixture")
    zipped = analyses.response_log_source(Path(archive).read_bytes(), name="out.zip").value
    assert zipped.models == ("policy-lm/mixture",)
    assert measured_counts(zipped) == measured_counts(load(FIXTURES / "lmeval_mixture").value)


def test_each_epoch_of_an_inspect_log_is_a_model():
    log = load(FIXTURES / "inspect_epochs.eval").value
    assert log.models == ("mockllm/epochs [epoch 1]", "mockllm/epochs [epoch 2]")
    expected = implied_counts(DESIGN["logs"]["inspect_epochs.eval"])
    for model in log.models:
        got = measured_counts(log, model)
        assert {k: got[k] for k in expected} == expected
    assert any("2 epochs (one model per epoch)" in n for n in log.notes)
