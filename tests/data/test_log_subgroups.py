"""Issue 29 item 12: a log's default subgroups are one natural key, never every key crossed.

Before, every metadata key named like a subgroup was crossed ("organic_chemistry · na"; on lm-eval
16 cells of n = 14-20, and the verdict listed all 16). Now the default is the first key, in
``NATURAL_SUBGROUP_ORDER``, that splits the cases into 2 to 30 groups (``task`` when the input spans
several tasks), or none; the choices list every key, so the user crosses more."""

from __future__ import annotations

import json
from pathlib import Path

from audit_core.data.sources import load_audit_source, log_choices

ROOT = Path(__file__).resolve().parents[2]
INSPECT = ROOT / "tests" / "fixtures" / "inspect"
LMEVAL = ROOT / "tests" / "fixtures" / "lmeval"


def _log(metadata_of) -> bytes:
    samples = [{"id": f"s{i}", "epoch": 1, "scores": {"s": {"value": "C" if i % 3 else "I"}},
                "metadata": metadata_of(i)} for i in range(60)]
    return json.dumps({"eval": {"task": "t", "model": "m"}, "status": "success", "samples": samples}).encode()


def test_inspect_default_is_one_key_and_the_others_stay_offered():
    data = load_audit_source(INSPECT / "run.eval", score="match")
    assert data.subgroups == ("subject",)
    choices = log_choices(INSPECT / "run.eval")
    assert choices.default_subgroups == ("subject",) and set(choices.subgroups) == {"subject", "level"}
    crossed = load_audit_source(INSPECT / "run.eval", score="match", subgroups=["subject", "level"])
    assert crossed.subgroups == ("subject", "level")


def test_a_key_with_one_value_or_a_value_per_case_is_not_a_default():
    raw = _log(lambda i: {"difficulty": "na", "subject": f"s{i}", "topic": "abc"[i % 3]})
    assert load_audit_source(raw, name="x.json").subgroups == ("topic",)
    none = _log(lambda i: {"difficulty": "na", "subject": f"s{i}"})
    assert load_audit_source(none, name="y.json").subgroups == ()


def test_lmeval_several_tasks_default_to_task_alone():
    data = load_audit_source(LMEVAL / "suite", score="acc")
    assert data.subgroups == ("task",)
    assert log_choices(LMEVAL / "suite").default_subgroups == ("task",)
