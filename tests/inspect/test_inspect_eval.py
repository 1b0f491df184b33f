"""Real ``inspect eval`` runs that stop themselves (inspect-ai's mock model, scripted outputs with
their token usage set, so nothing is downloaded), read back by ``replay``."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("inspect_ai")

from audit_core.data.inspect_log import read_eval_archive  # noqa: E402
from audit_core.data.sources import load_audit_source  # noqa: E402
from audit_core.inspect import early_stopping  # noqa: E402
from audit_core.sequential import confidence_sequence  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from scripted import arith_task  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def run(task, model, tmp_path, **options):
    # in a thread of its own: an xdist worker that ran a Playwright (sync) browser test before keeps an
    # event loop running in the main thread, and Inspect's eval refuses to start inside one
    from concurrent.futures import ThreadPoolExecutor

    from inspect_ai import eval as inspect_eval

    with ThreadPoolExecutor(1) as pool:
        (log,) = pool.submit(inspect_eval, task, model=model, log_dir=str(tmp_path), display="none",
                             fail_on_error=False, **{"max_samples": 6, **options}).result()
    assert log.status == "success", log.error
    return log


def replay_json(path, *flags):
    done = subprocess.run([sys.executable, "-m", "audit_core", "replay", str(path), "--json", *flags],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_default_run_stops_itself_and_replay_reproduces_it(tmp_path):
    """300 samples, 6 at once, a model right 97% of the time: the dual test passes the audit after a
    fraction of the run; the log says so and replay finds the same decision at the same case."""
    task, model = arith_task(300, {"algebra": 0.03, "biology": 0.03, "chemistry": 0.03},
                             early_stopping=early_stopping())
    log = run(task, model, tmp_path)
    summary = log.results.early_stopping
    record = summary.metadata["audit_core"]
    assert summary.manager == "audit_core.inspect"
    assert record["decision"] == "audit passed" and record["skipped"] == len(summary.early_stops) > 100
    assert record["run"] == len(log.samples) == 300 - record["skipped"]
    assert record["run"] - record["used"] <= 6  # late: at most the samples running at the stop
    again = replay_json(log.location)
    assert (again["decision"]["decision"], again["decision"]["stop"]) == ("audit passed", record["stop"]["at"])
    assert again["n"] == record["run"] and again["columns"]["order"] == "completion"
    note = next(n for n in again["notes"] if n.startswith("stopped early"))
    assert note.startswith(f"stopped early: {record['run']} of 300 samples run, {record['skipped']} skipped")
    assert "tokens not spent" in note


def test_subgroups_stop_one_by_one_in_a_real_run(tmp_path):
    """Three subjects, one weak (40% wrong): per-subgroup dual test and precision 0.15, stop_when any.
    Each subgroup stops on its own; the intervals the log records are the confidence sequences
    (alpha/3, tuned to the subgroup's cases in the dataset) of the subgroup's scores as replay's
    reader reads them from the log."""
    manager = early_stopping(subgroups="subject", precision=0.15, dual=True, stop_when="any")
    task, model = arith_task(300, {"algebra": 0.02, "biology": 0.4, "chemistry": 0.05}, early_stopping=manager)
    log = run(task, model, tmp_path)
    record = log.results.early_stopping.metadata["audit_core"]
    assert record["skipped"] > 0 and record["stop"]["reason"] == "every question answered"
    groups = {g["subgroup"]: g for g in record["groups"]}
    assert set(groups) == {"algebra", "biology", "chemistry"}
    assert groups["biology"]["dual"]["decision"] == "failure mode found"
    data = load_audit_source(Path(log.location).read_bytes(), "run.eval", subgroups=("subject",))
    assert data.order == "completion"
    frame = data.frame
    for name, group in groups.items():
        scores = frame.loc[frame["subject"] == name, data.score].to_numpy(dtype=float)[:group["used"]]
        assert len(scores) == group["used"] and group["answered_at"] is not None
        tuned = confidence_sequence(scores, 0.05 / 3, planned_n=group["cases"])   # the subgroup's cases in the dataset
        assert group["interval"] == pytest.approx(list(tuned.final), abs=1e-12)
    header, samples = read_eval_archive(Path(log.location).read_bytes(), "run.eval")
    assert len(samples) == record["run"]  # skipped samples are not in the log


def test_epochs_clusters_and_an_errored_sample_in_a_real_run(tmp_path):
    """2 epochs as clusters; q003 raises and is scored anyway (score_on_error): the manager sees its
    scores and counts it as errored, never as a score."""
    manager = early_stopping(epochs="clusters")
    task, model = arith_task(60, {"algebra": 0.0, "biology": 0.0, "chemistry": 0.0}, early_stopping=manager,
                             epochs=2, fail={3})
    log = run(task, model, tmp_path, score_on_error=True)
    record = log.results.early_stopping.metadata["audit_core"]
    statuses = {(i, e): s for i, e, s in record["order"]}
    assert statuses[("q003", 1)] == statuses[("q003", 2)] == "errored"
    assert record["parameters"]["epochs"] == "clusters"
    assert "pending" in statuses.values()  # a first epoch waits for the second
    means = np.array([1.0] * record["used"])  # every cluster used is two correct epochs
    assert record["groups"][0]["mean"] == pytest.approx(means.mean())


@pytest.mark.slow
def test_inspect_eval_command_line_with_the_recipe(tmp_path):
    """The documented recipe, as a user runs it: a task file adding early_stopping=..., then
    ``inspect eval task.py --model mockllm/model``. The task binds the mock model with scripted
    outputs (wrong for every question, token usage set: the mock's default usage counts tokens
    with a file it downloads), so the dual test finds the failure mode early."""
    (tmp_path / "task.py").write_text(textwrap.dedent("""
        from inspect_ai import Task, task
        from inspect_ai.dataset import Sample
        from inspect_ai.model import ModelOutput, ModelUsage, get_model
        from inspect_ai.scorer import match
        from inspect_ai.solver import generate

        import audit_core.inspect


        def wrong(messages, tools, tool_choice, config):
            output = ModelOutput.from_content(model="mockllm/model", content="no idea")
            output.usage = ModelUsage(input_tokens=9, output_tokens=2, total_tokens=11)
            return output


        @task
        def arith():
            return Task(dataset=[Sample(id=i, input=f"What is {i} + {i}?", target=str(2 * i)) for i in range(150)],
                        solver=generate(), scorer=match(), early_stopping=audit_core.inspect.early_stopping(),
                        model=get_model("mockllm/model", custom_outputs=wrong))
    """))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["inspect", "eval", "task.py", "--model", "mockllm/model", "--log-dir", "logs",
                           "--display", "none", "--max-samples", "4"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (path,) = (tmp_path / "logs").glob("*.eval")
    again = replay_json(path)
    header, _ = read_eval_archive(path.read_bytes(), "run.eval")
    record = header["results"]["early_stopping"]["metadata"]["audit_core"]
    assert record["decision"] == again["decision"]["decision"] == "failure mode found"
    assert again["decision"]["stop"] == record["stop"]["at"] < 60 and record["skipped"] > 80
