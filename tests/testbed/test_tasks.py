"""testbed generate --inspect-task / --lmeval-task: runnable tasks whose samples carry what measure needs (issue 20)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import audit_core.cli as cli
from audit_core import analyses
from audit_core.identify.policies import letter
from audit_core.testbed import tasks
from audit_core.testbed.tasks import LMEVAL_TASKS


@pytest.fixture(scope="module")
def view():
    return analyses.generate_testbed(3, seed=5)


def test_inspect_task_file_and_samples(view, tmp_path):
    files = view.inspect_task(tmp_path / "run_me.py")
    assert set(files) == {"run_me.py", "run_me.jsonl", "manifest.json"}
    code = files["run_me.py"]
    compile(code, "run_me.py", "exec")  # valid Python; it imports inspect_ai only when run
    assert "with_name('run_me.jsonl')" in code and "inspect eval run_me.py" in code
    samples = [json.loads(line) for line in files["run_me.jsonl"].splitlines()]
    assert len(samples) == 3 * 36
    tags = tasks.testbed_tag(5, view.clusters)
    for sample, item in zip(samples, view.items, strict=True):
        meta = sample["metadata"]
        assert (meta["cluster"], meta["cell"], meta["oracle"]) == (item.cluster, item.cell, item.oracle)
        assert meta["testbed"] == tags[item.cluster]
        # Options in letter order under the cell's mapping: the i-th choice is the label of letter i.
        labels = {lab: letter(meta["mapping"], lab) for lab in sample["choices"]}
        assert [labels[c] for c in sample["choices"]] == ["A", "B", "C"]
        assert sample["target"] == letter(meta["mapping"], meta["oracle"])


def test_lmeval_task_folder(view, tmp_path):
    files = view.lmeval_task(tmp_path / "lm")
    assert set(files) == {f"{t}{ext}" for t in LMEVAL_TASKS.values() for ext in (".yaml", ".jsonl")} | {"manifest.json"}
    for readout, task in LMEVAL_TASKS.items():
        yaml = files[f"{task}.yaml"]
        assert f"task: {task}" in yaml and "tag: testbed" in yaml
        assert json.dumps(str((tmp_path / "lm" / f"{task}.jsonl").resolve())) in yaml  # absolute data path
        assert ("output_type: multiple_choice" if readout == "scoring" else "output_type: generate_until") in yaml
        docs = [json.loads(line) for line in files[f"{task}.jsonl"].splitlines()]
        assert len(docs) == 3 * 18 and {d["readout"] for d in docs} == {readout}
        for doc in docs:
            assert doc["choices"] == ["A", "B", "C"]
            assert doc["choices"][doc["answer_index"]] == doc["correct"] == letter(doc["mapping"], doc["oracle"])
            assert doc["prompt"].count("\nA. ") == 1


def test_tags_tell_seeds_apart():
    a = tasks.testbed_tag(0, analyses.generate_testbed(2, seed=0).clusters)
    b = tasks.testbed_tag(1, analyses.generate_testbed(2, seed=1).clusters)
    assert set(a) == set(b) and all(a[k]["cluster_key"] != b[k]["cluster_key"] for k in a)
    assert a == tasks.testbed_tag(0, analyses.generate_testbed(2, seed=0).clusters)


def test_cli_writes_the_tasks(tmp_path, capsys):
    code = cli.main(["testbed", "generate", "--clusters", "2", "--out", str(tmp_path / "items.jsonl"),
                     "--inspect-task", str(tmp_path / "t" / "task.py"), "--lmeval-task", str(tmp_path / "lm"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert sorted(Path(p).name for p in out["task_files"]) == sorted(
        ["task.py", "task.jsonl", "testbed_generated.yaml", "testbed_generated.jsonl", "testbed_scoring.yaml",
         "testbed_scoring.jsonl", "manifest.json", "manifest.json"])
    assert (tmp_path / "t" / "task.jsonl").read_text().count("\n") == 72


def test_cli_refuses_a_task_file_that_is_not_python(tmp_path, capsys):
    code = cli.main(["testbed", "generate", "--clusters", "1", "--out", str(tmp_path / "i.jsonl"),
                     "--inspect-task", str(tmp_path / "task.txt")])
    assert code == 2
    assert "--inspect-task: give a Python file name ending in .py" in capsys.readouterr().err
