"""Issue 28 item 2: one verdict. A pass of the dual test beside a subgroup proven below q
family-wise is never the headline: the page, report, PDF and JSON say "a failing subgroup was
found" and why that claim wins (docs/e-processes.md, "One verdict"). The weakest subgroup named is
the one with the lowest anytime-valid upper bound, not the lowest point estimate of a few cases."""

from __future__ import annotations

import numpy as np
import pandas as pd

from audit_core import analyses
from audit_core.analyses.replay import _verdict, weakest_subgroup
from audit_core.report.document import Report
from audit_core.report.pdf import typst_source
from audit_core.sequential import FAMILY_WISE, AuditParams, replay
from audit_core.views import sequential as views

PARAMS = AuditParams.gpqa()  # q = 0.85, α = 0.05


def passed_beside_a_failing_subgroup():
    """364 cases of B at accuracy 0.97 first (the auditor's e-process crosses at case 90), then
    36 cases of A (9 % of the run) at 0.15: A's family-wise interval ends far below q."""
    rng = np.random.default_rng(0)
    scores = np.concatenate([(rng.random(364) < 0.97), (rng.random(36) < 0.15)]).astype(float)
    groups = pd.Series(["B"] * 364 + ["A"] * 36, name="grp")
    return replay(scores, PARAMS, subgroups=groups, family=["A", "B"])


def test_a_pass_beside_a_proven_failing_subgroup_is_not_the_headline():
    result = passed_beside_a_failing_subgroup()
    # the situation: both valid claims at once
    assert result.decision == "audit passed" and result.dual.stop == 90
    assert [p.label for p in result.flagged(FAMILY_WISE)] == [("A",)]
    verdict = _verdict(result)
    assert verdict.tone == "bad"
    assert verdict.text.startswith("A failing subgroup was found: A below q family-wise, although the dual test "
                                   "passed the audit at case 90 of 400")
    assert "wins over the dual test's pass" in verdict.caveat
    assert "Dual test: audit passed" not in verdict.text
    # the report's summary and the PDF lead with the same sentence
    trajectory, accuracy, frequency = views.replay_specs(result, ("SR-LR-UI",), "run")
    section = views.replay_section(result, ("SR-LR-UI",), "run", "test", {}, (), (trajectory, accuracy, frequency),
                                   verdict=verdict.text)
    assert section.summary[0] == verdict.text
    assert "A failing subgroup was found: A below q family-wise" in typst_source(Report(title="t", sections=(section,)))


def test_the_weakest_subgroup_is_the_one_the_evidence_says():
    # 0 of 2 (point estimate 0, upper bound ~0.95) against 3 of 12 (0.25, upper bound ~0.6)
    scores = np.array([0, 0] + [1, 0, 0, 0] * 3 + [1] * 20, dtype=float)
    groups = pd.Series(["two"] * 2 + ["twelve"] * 12 + ["rest"] * 20, name="grp")
    result = replay(scores, PARAMS, subgroups=groups, family=["two", "twelve", "rest"])
    table = result.subgroup_table.set_index("grp")
    assert table.loc["two", "accuracy"] < table.loc["twelve", "accuracy"]
    assert table.loc["twelve", "cs_high"] < table.loc["two", "cs_high"]
    assert weakest_subgroup(result).label == ("twelve",)
    assert "weakest subgroup twelve (lowest anytime-valid upper bound" in _verdict(result).text


def test_the_bundled_runs_weakest_subgroup_is_not_two_cases_at_zero():
    run = analyses.replay_run(analyses.run_source("recorded_run"))
    text = run.verdict.text
    assert "weakest subgroup High Priority" not in text
    contacts = run.result.subgroup_table.set_index("category").loc["Patient Contacts"]
    assert contacts["cs_high"] == run.result.subgroup_table["cs_high"].min()
    assert (f"weakest subgroup Patient Contacts (lowest anytime-valid upper bound {contacts['cs_high']:.3f}; "
            "accuracy 0.333, n = 9)") in text


def test_a_comparison_of_many_runs_says_which_level_its_sentence_and_its_groups_are_at():
    """The bundled set of four runs: model-b is better than model-a at α (the pair named
    beforehand), yet all four share one tie group at α/6 per pair. The caveat says the sentence's
    level, the family's, and why the two can differ; two runs say nothing of a family."""
    view = analyses.compare_runs(analyses.run_source("compare:gpqa"))
    many = view.runs
    assert view.comparison.sequence.decision == "B better" and len(many.groups) == 1
    caveat = view.verdict.caveat
    assert "The bounds of model-b − model-a are at level α (the pair named beforehand)" in caveat
    assert "each of the 6 pairs at level α/6 (e-Bonferroni)" in caveat
    assert "why model-a and model-b are separated here yet share a tie group" in caveat
    pair = analyses.compare_runs(analyses.run_source("gpqa:large"), analyses.run_source("gpqa:medium")).verdict
    assert "e-Bonferroni" not in pair.caveat and "tie group" not in pair.caveat
