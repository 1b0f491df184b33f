"""Items per cell of the frozen layout, their two file forms, and `check_items`."""

import json
from dataclasses import replace

import pytest

from audit_core.errors import InputError
from audit_core.identify import frozen_policy_class, parse_cell_id
from audit_core.identify.policies import LABELS, letter
from audit_core.testbed import (
    check_items,
    cluster_items,
    generate_clusters,
    inspect_sample,
    items_of,
    read_items,
    write_jsonl,
)
from audit_core.testbed.items import (
    item_from_dict,
    render_literal,
    render_prompt,
    sentence,
)


@pytest.fixture(scope="module")
def clusters():
    return generate_clusters(12, 7)


@pytest.fixture()
def items_file(tmp_path, clusters):
    path = tmp_path / "items.jsonl"
    write_jsonl((i.to_dict() for i in items_of(clusters)), path)
    return path


def test_items_follow_the_frozen_cells(clusters):
    pc = frozen_policy_class()
    for c in clusters:
        items = cluster_items(c)
        assert tuple(i.cell for i in items) == pc.cells and len(items) == 36
        for i in items:
            parts = parse_cell_id(i.cell, pc.axes)
            assert (i.world, i.mapping, i.readout) == (parts["world"], parts["mapping"], parts["readout"])
            assert i.oracle == dict(zip(("base", "target", "sham"), c.labels, strict=False))[i.world]
            assert i.correct == letter(i.mapping, i.oracle)
            assert dict(i.options)[i.correct] == i.oracle and sorted(dict(i.options).values()) == sorted(LABELS)
            assert (i.edit is None) == (i.world == "base")
            assert i.candidates == (("A", "B", "C") if i.readout == "scoring" else ())
            for fact in i.theory.facts:
                assert f"- {sentence(render_literal(fact))}" in i.prompt
            assert f"{i.correct}. {i.oracle}" in i.prompt


def test_item_record_has_the_machine_readable_theory(clusters):
    record = cluster_items(clusters[0])[20].to_dict()
    assert set(record["theory"]) == {"facts", "rules", "query"}
    assert all(set(r) == {"if", "then"} for r in record["theory"]["rules"])
    assert item_from_dict(json.loads(json.dumps(record))).to_dict() == record


def test_inspect_samples(clusters):
    item = cluster_items(clusters[1])[31]
    sample = inspect_sample(item)
    assert set(sample) == {"id", "input", "choices", "target", "metadata"}
    assert sample["choices"][ord(sample["target"]) - ord("A")] == item.oracle
    assert sample["metadata"]["cell"] == item.cell and sample["metadata"]["theory"] == item.theory.to_dict()
    assert "Facts:" in sample["input"] and "A. " not in sample["input"]  # Inspect adds the options


def test_check_passes_on_generated_items(items_file):
    report = check_items(read_items(items_file))
    assert report.ok and report.n_items == 432 and report.n_clusters == 12, report.mismatches


def _rewrite(path, line_no, change):
    lines = path.read_text().splitlines()
    record = json.loads(lines[line_no])
    change(record)
    lines[line_no] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def test_one_flipped_label_is_found(items_file):
    def flip(record):
        record["oracle"] = next(x for x in LABELS if x != record["oracle"])
    _rewrite(items_file, 40, flip)
    report = check_items(read_items(items_file))
    assert not report.ok and report.n_mismatches == 1
    assert "oracle is" in report.mismatches[0] and "but the solver derives" in report.mismatches[0]


@pytest.mark.parametrize("line_no, change, expected", [
    (3, lambda r: r.update(correct="C" if r["correct"] != "C" else "A"), "correct letter"),
    (15, lambda r: r["theory"].update(facts=r["theory"]["facts"][1:]), "disagree on the target theory"),
    (30, lambda r: r.update(edit={"kind": "add_fact", "fact": "zzz"}), "disagree on the sham edit"),
    (0, lambda r: r.update(world="sham"), "field 'world'"),
    (5, lambda r: r.update(prompt=r["prompt"].replace("Facts", "Fact")), "not the rendering"),
])
def test_other_tampering_is_found(items_file, line_no, change, expected):
    _rewrite(items_file, line_no, change)
    report = check_items(read_items(items_file))
    assert not report.ok and any(expected in m for m in report.mismatches), report.mismatches


def test_cluster_level_checks(clusters):
    items = list(items_of(clusters[:2]))
    report = check_items(items[:35] + items[36:])
    assert any("1 of 36 cells missing" in m for m in report.mismatches)
    # Sham items that show the base theory: the sham no longer changes anything.
    c = clusters[0]
    same = [i if i.world != "sham" else replace(i, theory=c.base, prompt=render_prompt(c.base, i.mapping, i.readout))
            for i in cluster_items(c)]
    msgs = check_items(same).mismatches
    assert any("sham theory is the base theory" in m for m in msgs)


@pytest.mark.parametrize("text, message", [
    ("{not json}\n", "line 1: not JSON"),
    ('{"cell": "base:ABC:generated"}\n', "field 'options'"),
    ("", "no items"),
    ('[1, 2]\n', "must be a JSON object"),
])
def test_malformed_files_raise_input_error(tmp_path, text, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_items(path)
    with pytest.raises(InputError, match="file not found"):
        read_items(tmp_path / "absent.jsonl")


def test_id_and_candidates_must_match(clusters):
    record = cluster_items(clusters[0])[1].to_dict()  # base:ABC:scoring
    assert record["candidates"] == ["A", "B", "C"]
    with pytest.raises(InputError, match="is not cluster:cell"):
        item_from_dict({**record, "id": "k9999:base:ABC:scoring"})
    with pytest.raises(InputError, match="candidates"):
        item_from_dict({**record, "candidates": ["A", "B"]})


def test_items_feed_the_measure_engine(clusters):
    """Answering every item with its correct letter gives a response log that `measure` scores as
    the ideal updater: τ_full on every unit, selective response 1 in every direction."""
    from audit_core.measure import load_response_log, measure, measure_invariance

    lines = ["model,cluster,cell,response,oracle"]
    lines += [f"ideal,{i.cluster},{i.cell},{i.correct},{i.oracle}" for i in items_of(clusters)]
    log = load_response_log(("\n".join(lines) + "\n").encode())
    pooled = measure(log, bootstrap=0).pooled
    assert (pooled.estimate("tau_full").successes, pooled.estimate("tau_full").n) == (12, 12)
    inv = measure_invariance(log, bootstrap=0).pooled
    assert inv.estimate("equivariance").rate == 1.0 and len(inv.balanced.directions) == 6
    assert inv.balanced.selective_mean.value == 1.0
