"""Issue 18: names read from an evaluation log (scorers, metrics, filters, tasks, sample ids) are
quoted in messages at most MAX_NAME_CHARS characters each (as chart labels), and long lists of
them are cut: a log naming a scorer with 100,000 characters gave a 200 KB error message."""

import json

import pytest

from audit_core import analyses
from audit_core.errors import MAX_NAME_CHARS, MAX_NAMES_LISTED, InputError, listed, quoted
from audit_core.views.charts import MAX_LABEL_CHARS

LONG = "s" * 100_000
BOUND = 1_000  # every message below is a few hundred characters of its own words


def _message(raw: bytes, name: str, score=None) -> str:
    with pytest.raises(InputError) as caught:
        analyses.replay_run(analyses.run_source(raw, name), score=score)
    return str(caught.value)


def _inspect(scores: dict, sample_id=LONG) -> bytes:
    return json.dumps({"eval": {"task": "t"}, "samples": [{"id": sample_id, "epoch": 1, "scores": scores}]}).encode()


def test_quoted_and_listed_cut_names_as_chart_labels_are_cut():
    assert MAX_NAME_CHARS == MAX_LABEL_CHARS == 120
    assert quoted("match") == "'match'" and listed(["a", "b"]) == "a, b"
    assert quoted(LONG) == repr("s" * 119 + "…")
    many = listed([f"m{i}" for i in range(500)])
    assert many.endswith(f"and {500 - MAX_NAMES_LISTED} more") and "m19" in many and "m20," not in many


@pytest.mark.parametrize("scores, score, expected", [
    ({LONG: {"value": "C"}, "b" + LONG: {"value": "I"}}, None, "2 scorers"),
    ({LONG: {"value": "C"}}, "nope" + LONG, "no such scorer"),
    ({LONG: {"value": "C"}}, LONG + ".key", "gives one value per sample"),
    ({LONG: {"value": [1, 2]}}, LONG, "is not C/I/P/N"),
    ({LONG: {"value": {LONG: 1, "b" + LONG: 0}}}, LONG, "several values per sample"),
    ({f"s{i}{LONG}": {"value": "C"} for i in range(60)}, None, "and 40 more"),
])
def test_inspect_log_messages_bound_the_names_they_quote(scores, score, expected):
    message = _message(_inspect(scores), "x.json", score)
    assert expected in message and len(message) < BOUND + 2 * MAX_NAMES_LISTED * MAX_NAME_CHARS
    assert "s" * MAX_NAME_CHARS not in message and "…" in message


def test_inspect_sample_id_in_a_message_is_bounded():
    raw = json.dumps({"eval": {"task": "t"}, "samples": [{"id": LONG, "scores": {"m": "C"}}]}).encode()
    message = _message(raw, "x.json")
    assert "is not a JSON object" in message and len(message) < BOUND and "s" * MAX_NAME_CHARS not in message


def _samples(rows) -> bytes:
    return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()


def test_lmeval_messages_bound_filters_metrics_and_tasks():
    two_filters = [{"doc_id": i, "doc": {}, "filter": f + LONG, "metrics": ["m" + LONG], "m" + LONG: 1}
                   for i in range(3) for f in ("f", "g")]
    for score, expected in ((None, "2 filters"), ("zz" + LONG, "2 filters")):
        message = _message(_samples(two_filters), "samples_x.jsonl", score)
        assert expected in message and len(message) < BOUND and "s" * MAX_NAME_CHARS not in message
    metrics = [{"doc_id": i, "doc": {}, "filter": "none", "metrics": ["m" + LONG, "n" + LONG],
                "m" + LONG: 1, "n" + LONG: 0} for i in range(3)]
    for score, expected in ((None, "could serve as the score"), ("zz" + LONG, "not found")):
        message = _message(_samples(metrics), "samples_x.jsonl", score)
        assert expected in message and len(message) < BOUND and "s" * MAX_NAME_CHARS not in message
