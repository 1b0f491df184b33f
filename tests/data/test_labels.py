"""Score labels: suggestions for text labels and the mapping applied before the loader reads scores."""

import pandas as pd
import pytest

from audit_core.data.labels import MAX_LABELS, apply_score_mapping, score_labels
from audit_core.data.loader import load_audit_frame
from audit_core.errors import InputError


@pytest.mark.parametrize("values, expected", [
    (["correct", "incorrect", "correct"], {"correct": 1.0, "incorrect": 0.0}),
    (["PASS", "fail"], {"PASS": 1.0, "fail": 0.0}),
    (["✓", "✗", "✓"], {"✓": 1.0, "✗": 0.0}),
    (["0,5", "1,0", "0,25"], {"0,5": 0.5, "1,0": 1.0, "0,25": 0.25}),
    (["1", "3", "5", "2"], {"1": 0.0, "3": 0.5, "5": 1.0, "2": 0.25}),
    (["partial", "right", "wrong"], {"partial": 0.5, "right": 1.0, "wrong": 0.0}),
])
def test_suggestions(values, expected):
    labels = score_labels(pd.Series(values), "v")
    assert labels.needs_mapping and labels.suggested == expected
    assert labels.labels == tuple(dict.fromkeys(values))  # first appearance, not alphabetical


def test_columns_the_loader_reads_need_no_mapping():
    assert not score_labels(pd.Series(["0", "1", "0.5"]), "v").needs_mapping
    assert not score_labels(pd.Series(["yes", "no", "TRUE"]), "v").needs_mapping


def test_too_many_labels_is_not_a_label_column():
    labels = score_labels(pd.Series([f"q{i}" for i in range(MAX_LABELS + 5)]), "id")
    assert labels.too_many and labels.suggested == {}


def test_mapping_feeds_the_loader_and_unmapped_labels_are_reported():
    frame = pd.DataFrame({"v": ["correct", "incorrect", "unsure"], "g": ["a", "b", "a"]})
    mapped = frame.assign(v=apply_score_mapping(frame["v"], {"correct": 1, "incorrect": 0}, "v"))
    with pytest.raises(InputError, match="'v', data row 3: not a finite number"):
        load_audit_frame(mapped, score="v", subgroups=("g",), order=False)
    full = frame.assign(v=apply_score_mapping(frame["v"], {"correct": 1, "incorrect": 0, "unsure": 0.5}, "v"))
    data = load_audit_frame(full, score="v", subgroups=("g",), order=False)
    assert data.scores.tolist() == [1.0, 0.0, 0.5]


@pytest.mark.parametrize("bad", [1.5, -0.1, "x", float("nan")])
def test_mapping_scores_outside_the_unit_interval_are_refused(bad):
    with pytest.raises(InputError, match="score for label 'a'"):
        apply_score_mapping(pd.Series(["a"]), {"a": bad}, "v")


def test_a_rating_scale_read_from_the_file_says_so():
    labels = score_labels(pd.Series(["1", "4", "2"]), "rating")
    assert labels.suggested == {"1": 0.0, "4": 1.0, "2": 1 / 3}
    assert "from 1 to 4, the highest rating in the file" in labels.note
    assert score_labels(pd.Series(["correct", "incorrect"]), "v").note is None
