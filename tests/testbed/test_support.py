"""Items for a support (issue 33): testbed generate --support CELLS|cheapest, the manifest, and the
oracles of every world on every item, sample and lm-eval document."""

from __future__ import annotations

import json

import pytest

import audit_core.cli as cli
from audit_core import analyses
from audit_core.errors import InputError
from audit_core.identify import frozen_policy_class, minimum_supports
from audit_core.testbed import check_items, read_items


@pytest.fixture(scope="module")
def cheapest():
    return minimum_supports(frozen_policy_class(), enumerate_all=False).supports[0]


def test_cheapest_support_gives_its_cells_only(cheapest, tmp_path):
    view = analyses.generate_testbed(3, seed=2, support="cheapest")
    assert view.support == tuple(cheapest) and len(cheapest) == 2 and view.support_origin == "cheapest"
    assert [i.cell for i in view.items] == list(cheapest) * 3
    assert check_items(view.items).ok
    full = analyses.generate_testbed(3, seed=2)
    by_id = {i.id: i for i in full.items}
    assert all(i == by_id[i.id] for i in view.items)  # the same items as the full testbed's, fewer of them
    manifest = view.manifest
    assert manifest["support"] == list(cheapest) and manifest["class"] == "frozen policy class"
    assert (manifest["model_calls_per_model"], manifest["model_calls_per_model_full"]) == (6, 108)


def test_every_item_and_sample_carries_every_worlds_oracle(tmp_path):
    view = analyses.generate_testbed(2, seed=0, support="target:ABC:generated,sham:ACB:scoring")
    for item, cluster in zip(view.items, [c for c in view.clusters for _ in range(2)], strict=True):
        assert item.world_oracles == dict(zip(("base", "target", "sham"), cluster.labels, strict=True))
        assert item.world_oracles[item.world] == item.oracle
    samples = [json.loads(line) for line in view.inspect_task(tmp_path / "task.py")["task.jsonl"].splitlines()]
    assert [s["metadata"]["oracles"] for s in samples] == [i.world_oracles for i in view.items]
    docs = view.lmeval_task(tmp_path / "lm")
    lines = [json.loads(x) for name in ("testbed_generated.jsonl", "testbed_scoring.jsonl")
             for x in docs[name].splitlines()]
    assert all(d["oracles"]["base"] != d["oracles"]["target"] for d in lines) and len(lines) == 4
    assert "testbed_support" in view.inspect_task(tmp_path / "task.py")["task.py"]


def test_a_tampered_world_oracle_is_a_mismatch(tmp_path):
    view = analyses.generate_testbed(1, seed=0, support="target:ABC:generated")
    record = view.items[0].to_dict()
    record["oracles"][record["world"]] = next(x for x in ("TRUE", "FALSE", "UNKNOWN") if x != record["oracle"])
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(record) + "\n")
    report = check_items(read_items(path))
    assert report.n_mismatches >= 1 and "oracles of the worlds" in " ".join(report.mismatches)


def test_bad_support_is_one_clear_message():
    with pytest.raises(InputError, match="unknown cell id 'target:XYZ:generated'"):
        analyses.generate_testbed(1, support="target:XYZ:generated")
    with pytest.raises(InputError, match="at least one cell id"):
        analyses.generate_testbed(1, support=" , ")


def test_cli_writes_the_support_and_its_manifest(cheapest, tmp_path, capsys):
    out = tmp_path / "items.jsonl"
    code = cli.main(["testbed", "generate", "--clusters", "4", "--support", "cheapest", "--out", str(out),
                     "--inspect-task", str(tmp_path / "t" / "task.py"), "--lmeval-task", str(tmp_path / "lm")])
    text = capsys.readouterr().out
    assert code == 0 and "8 model calls per model instead of 144 (136 saved)" in text
    assert len(read_items(out)) == 8
    for manifest in (tmp_path / "items.manifest.json", tmp_path / "t" / "manifest.json", tmp_path / "lm" / "manifest.json"):
        assert json.loads(manifest.read_text())["support"] == list(cheapest)
    assert cli.main(["testbed", "generate", "--clusters", "1", "--support", "nope", "--out", str(out)]) == 2
    assert "--support" in capsys.readouterr().err
