"""What a notebook user reaches for (issue 29 item 9): a public confidence_sequence call, the
measurement's display saying whether τ is identified, one naming scheme for to_frame() columns,
and an InputError naming the argument for every bad argument."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import audit_core
from audit_core.errors import InputError
from audit_core.sequential.confseq import confidence_sequence as engine_sequence


def test_confidence_sequence_per_subgroup_is_the_engines_on_each_groups_scores():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"domain": rng.choice(["bio", "chem", "phys"], 300), "correct": (rng.random(300) < 0.8) * 1})
    result = audit_core.confidence_sequence(frame, subgroup="domain")
    table = result.to_frame()
    assert list(table.columns) == ["group", "n", "mean", "cs_low", "cs_high", "method", "empty_from"]
    assert list(table["group"]) == ["(all)", "bio", "chem", "phys"]
    for row in table.itertuples():
        scores = frame["correct"] if row.group == "(all)" else frame.loc[frame["domain"] == row.group, "correct"]
        engine = engine_sequence(scores.to_numpy(float), alpha=0.05)
        # The engine's own call (equal to the last bit but for its shared log tables' summation order).
        assert row.n == len(scores) and (row.cs_low, row.cs_high) == pytest.approx(engine.final, abs=1e-12)
        np.testing.assert_allclose(result.sequences[row.group].lower, engine.lower, rtol=0, atol=1e-12)
    # The same scores given directly, with one label per score: the same numbers.
    direct = audit_core.confidence_sequence(frame["correct"].tolist(), groups=frame["domain"].tolist())
    pd.testing.assert_frame_equal(direct.to_frame(), table)
    html = result._repr_html_()
    assert "anytime-valid interval" in html and "<svg" in html and "<table>" in html
    assert result.to_dict()["groups"][0]["lower"][-1] == table["cs_low"].iloc[0]


def test_confidence_sequence_refuses_what_it_cannot_use():
    for call, message in [
        (lambda: audit_core.confidence_sequence([0.5, 2.0]), "score"),
        (lambda: audit_core.confidence_sequence("0,1,1"), "scores: expected a list of scores"),
        (lambda: audit_core.confidence_sequence([1, 0], confidence=1.5), "confidence"),
        (lambda: audit_core.confidence_sequence([1, 0], groups=["a"]), "subgroup: 1 subgroup values for 2 scores"),
        (lambda: audit_core.confidence_sequence(pd.DataFrame({"x": ["a"]}), score="y"), "score: column 'y' not found"),
        (lambda: audit_core.confidence_sequence([1, 0], method="magic"), "method"),
    ]:
        with pytest.raises(InputError, match=message):
            call()


def test_the_measurements_display_says_whether_tau_is_identified_on_its_support():
    measured = audit_core.measure_log("example", bootstrap=0)
    html = measured._repr_html_()
    assert measured.support_verdict.text.split(" (")[0] in html
    assert "on a support that identifies it" in html


def test_to_frame_columns_are_snake_case_ids_and_the_display_keeps_readable_labels(tmp_path):
    results = [audit_core.replay("recorded_run"), audit_core.plan(subgroups=[40, 40], replicates=5, jobs=1),
               audit_core.measure_log("example", bootstrap=0), audit_core.compare("gpqa:large", "gpqa:medium"),
               audit_core.combine(["gpqa:small", "gpqa:none"]), audit_core.synthesize(),
               audit_core.simulate("gpqa:small", strategy="stratified", process="LR", replicates=2, jobs=1,
                                   mode="null", budget=20)]
    for result in results:
        columns = list(result.to_frame().columns)
        assert all(re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", c) for c in columns), (type(result).__name__, columns)
        assert len(set(columns)) == len(columns)
    measured = results[2]
    assert "wilson_95_pct_low" in measured.to_frame().columns
    assert "<th>Wilson 95%</th>" in measured._repr_html_()  # people read the labels: one [low, high] column


@pytest.mark.parametrize("call, message", [
    (lambda: audit_core.replay("recorded_run", subgroup=5), "subgroup: expected a name"),
    (lambda: audit_core.replay(42), "run: expected a file path, a bundled name"),
    (lambda: audit_core.synthesize(cost="generated=one"), "cost: generated='one' is not a number"),
    (lambda: audit_core.synthesize(cost=3), "cost: expected a mapping"),
    (lambda: audit_core.simulate(5, replicates=1), "pool: expected a bundled key"),
    (lambda: audit_core.simulate("gpqa:small", replicates="5"), "replicates: expected a whole number"),
    (lambda: audit_core.plan(subgroups=[50, "60"]), "subgroups: expected a list of whole numbers"),
    (lambda: audit_core.measure_log("example", seed=-1), "seed: must be 0 or more"),
    (lambda: audit_core.measure_log("example", confidence="0.9"), "confidence: expected a finite number"),
    (lambda: audit_core.compare("gpqa:large", "gpqa:medium", names="ab"), "names: expected a list of labels"),
    (lambda: audit_core.combine("gpqa:large"), "runs: expected a list of runs"),
    (lambda: audit_core.combine(["gpqa:large", "gpqa:none"], level=float("nan")), "level: expected a finite number"),
    (lambda: audit_core.replay("recorded_run", score_mapping=["pass"]), "score_mapping: expected a mapping"),
    (lambda: audit_core.replay("recorded_run", grid_mod=0.7), "grid_mod: expected a list of numbers"),
    (lambda: audit_core.identify_support("target", estimand=3), "estimand: expected text"),
    (lambda: audit_core.replay("recorded_run", nonsense=1), "replay: got an unexpected keyword argument"),
])
def test_every_bad_argument_raises_input_error_naming_it(call, message):
    with pytest.raises(InputError, match=re.escape(message)):
        call()


def test_synthesize_takes_the_cost_as_the_command_line_writes_it():
    text, mapping = (audit_core.synthesize(cost=c).synthesis for c in ("generated=1,scoring=3",
                                                                        {"generated": 1, "scoring": 3}))
    assert (text.status, text.cost, text.supports) == (mapping.status, mapping.cost, mapping.supports)
