"""The construction ``method="auto"`` picks is decided before the data (issue 28 item 5): by the
declared score type, or for a recorded run by the whole column's type, never by one subgroup's
own few scores."""

from __future__ import annotations

import numpy as np
import pytest

from audit_core.analyses import subgroup_sequences
from audit_core.errors import InputError
from audit_core.sequential.confseq import (
    HEDGED_MIXTURE,
    PRPL_EB,
    confidence_sequence,
    score_type_of,
)
from audit_core.sequential.replay import subgroup_table


def test_a_declared_type_chooses_the_construction():
    zeros_ones = np.array([1, 0, 1, 1, 1, 0, 1, 1] * 5, dtype=float)
    assert confidence_sequence(zeros_ones).method == HEDGED_MIXTURE
    assert confidence_sequence(zeros_ones, score_type="binary").method == HEDGED_MIXTURE
    graded = confidence_sequence(zeros_ones, score_type="graded")
    assert graded.method == PRPL_EB
    assert graded.final == confidence_sequence(zeros_ones, method=PRPL_EB).final
    with pytest.raises(InputError, match="declared 'binary' but a score is 0.5"):
        confidence_sequence([1.0, 0.5], score_type="binary")
    with pytest.raises(InputError, match="score_type: expected one of binary, graded"):
        confidence_sequence([1.0], score_type="0/1")
    assert score_type_of([0, 1, 1]) == "binary" and score_type_of([0, 0.5]) == "graded"


def test_every_subgroup_follows_the_columns_type_not_its_own():
    # subgroup a has only 0/1 scores, b a graded one: with the column graded, a is PrPl-EB too
    scores = np.array([1, 0, 1, 1, 0.5, 1, 0, 1], dtype=float)
    groups = np.array(["a", "a", "a", "a", "b", "b", "b", "b"])
    a_alone = confidence_sequence(scores[groups == "a"], 0.05, method=PRPL_EB).final
    table = subgroup_table(scores, groups).set_index("subgroup")
    assert (table.loc["a", "cs_low"], table.loc["a", "cs_high"]) == pytest.approx(a_alone, abs=1e-12)
    assert (table.loc["a", "cs_low"], table.loc["a", "cs_high"]) != pytest.approx(
        confidence_sequence(scores[groups == "a"], 0.05).final, abs=1e-6)
    import pandas as pd
    sequences = subgroup_sequences(scores, pd.DataFrame({"g": groups}))
    assert set(sequences.table["method"]) == {PRPL_EB}
    declared = subgroup_sequences(scores[groups == "a"], score_type="graded")
    assert set(declared.table["method"]) == {PRPL_EB}


def test_a_planned_n_tunes_the_overall_interval_from_the_python_call():
    """Issue 28 item 3: the planned-n construction reached from ``audit_core.confidence_sequence``;
    the overall interval is the planned one (narrower here), a subgroup's is not tuned."""
    import audit_core
    from audit_core.sequential.confseq import PLANNED

    scores = [1, 1, 0, 1] * 10
    groups = ["a", "b"] * 20
    planned = audit_core.confidence_sequence(scores, groups=groups, planned_n=40).to_frame().set_index("group")
    plain = audit_core.confidence_sequence(scores, groups=groups).to_frame().set_index("group")
    assert planned.loc["(all)", "method"] == PLANNED and plain.loc["(all)", "method"] == HEDGED_MIXTURE
    assert (planned.loc["(all)", "cs_high"] - planned.loc["(all)", "cs_low"]
            < plain.loc["(all)", "cs_high"] - plain.loc["(all)", "cs_low"])
    expected = confidence_sequence(np.array(scores, dtype=float), 0.05, planned_n=40).final
    assert (planned.loc["(all)", "cs_low"], planned.loc["(all)", "cs_high"]) == pytest.approx(expected, abs=1e-12)
    assert planned.loc["a", "method"] == plain.loc["a", "method"] == HEDGED_MIXTURE
