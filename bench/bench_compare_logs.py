"""Reading a folder of Inspect AI ``.eval`` logs for Compare runs, against ``inspect_ai.analysis.samples_df``.

The folder: ``--logs`` logs (default 100) of ``--samples`` samples each (default 1,000), the same
case ids in every log, written by inspect-ai itself (``inspect_ai.eval`` with its mock model,
offline; needs the test dependency ``inspect-ai``). Each distinct run is a real evaluation (the
mock model answers from a seeded table, so run r is right on a share 0.55 + 0.3 r / logs of the
cases); writing 100 evaluations of 1,000 samples takes minutes, so ``--distinct`` runs (default
10) are evaluated and the folder holds each one's log under ``--logs / --distinct`` new eval ids
(the copy's ``header.json``, ``summaries.json`` and journal keep inspect-ai's layout; only
``eval_id`` and ``run_id`` change, so ``samples_df`` counts every copy).

Timed, best of ``--repeats``, each in this process after a warm-up read of one log:

* workbench: the folder read as Compare reads it, one run per log (``audit_core.api`` folder
  expansion and ``analyses.run_source`` of each log, the ``match`` score typed 0/1): every sample
  member, read by the fields the workbench uses, its event transcript skipped unparsed
  (``SAMPLE_FIELDS`` in ``audit_core/data/inspect_log.py``);
* baseline: ``samples_df(folder)`` (inspect-ai's own data frame of every sample, its default
  columns, read from each log's thinned ``summaries.json``), in the same run;
* the same members as the workbench reads: ``samples_df(folder, full=True)`` (every sample member,
  all of it), timed once (``--full-repeats``; it is the slowest).

The summaries cannot give the workbench's answer: inspect-ai thins them (metadata strings are
shortened with their whitespace collapsed, structured values over 1 KB removed, scores lose their
edit history), and those are the subgroups and the annotation order.

Checked, not timed: both give the same number of samples per log and the same mean of ``match``
per log (C = 1, I = 0). Goal: the workbench >= 2x faster. Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def evaluate(run: int, logs: int, samples: int, workdir: Path) -> Path:
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    share = 0.55 + 0.3 * run / logs
    rng = random.Random(run)
    right = {i: rng.random() < share for i in range(samples)}

    def answer(messages, tools, tool_choice, config) -> ModelOutput:  # noqa: ARG001 (Inspect's custom_outputs call)
        i = int(messages[-1].text.split()[1].rstrip(":"))
        output = ModelOutput.from_content(model="mockllm/model", content=str(2 * i + (0 if right[i] else 7)))
        output.usage = ModelUsage(input_tokens=12, output_tokens=2, total_tokens=14)  # no tokenizer download
        return output

    dataset = [Sample(id=f"c{i:05d}", input=f"Question {i}: what is {i} + {i}?", target=str(2 * i),
                      metadata={"subject": ("algebra", "biology", "chemistry")[i % 3]}) for i in range(samples)]
    task = Task(dataset=dataset, solver=[generate()], scorer=[match()], name="arith")
    (log,) = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=answer), log_dir=str(workdir),
                          display="none", max_samples=64)
    return Path(log.location)


_UUID = re.compile(rb'("uuid":\s*")([A-Za-z0-9]+)(")')


def copy_with_new_id(source: Path, target: Path, copy: int) -> None:
    """The log under a new eval id, run id and sample uuids (``samples_df`` counts a sample once
    per uuid); every member otherwise as written, compressed alike."""
    old = json.loads(zipfile.ZipFile(source).read("header.json"))["eval"]

    def renamed(match: re.Match) -> bytes:
        fresh = hashlib.blake2b(match.group(2) + copy.to_bytes(4, "big"), digest_size=11).hexdigest()
        return match.group(1) + fresh.encode() + match.group(3)

    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for info in zin.infolist():
            data = _UUID.sub(renamed, zin.read(info))
            if info.filename in ("header.json", "_journal/start.json"):
                for key in ("eval_id", "run_id"):
                    data = data.replace(old[key].encode(), f"{old[key][:-4]}{copy:04d}".encode())
            zout.writestr(info, data, compress_type=info.compress_type)


def make_folder(logs: int, distinct: int, samples: int, folder: Path) -> None:
    work = Path(tempfile.mkdtemp(prefix="evals-"))
    try:
        for run in range(distinct):
            written = evaluate(run, distinct, samples, work / f"run{run}")
            for copy in range(logs // distinct):
                copy_with_new_id(written, folder / f"run{run:02d}_{copy:02d}.eval", copy)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def workbench_read(folder: Path) -> dict[str, tuple[int, float]]:
    from audit_core import analyses
    from audit_core.api import _expanded_log_folder
    out = {}
    for path in _expanded_log_folder((str(folder),)):
        frame = analyses.run_source(path).value.frame
        out[Path(path).name] = (len(frame), float(frame["match"].mean()))
    return out


def baseline_read(folder: Path) -> dict[str, tuple[int, float]]:
    from inspect_ai.analysis import samples_df
    with io.StringIO() as quiet:
        stderr, sys.stderr = sys.stderr, quiet  # samples_df draws a progress bar
        try:
            df = samples_df(str(folder))
        finally:
            sys.stderr = stderr
    score = (df["score_match"].astype(str) == "C").astype(float)
    grouped = score.groupby(df["log"].map(lambda p: Path(str(p)).name))
    return {name: (int(s.size), float(s.mean())) for name, s in grouped}


def full_read(folder: Path) -> int:
    from inspect_ai.analysis import samples_df
    with io.StringIO() as quiet:
        stderr, sys.stderr = sys.stderr, quiet
        try:
            return len(samples_df(str(folder), full=True))
        finally:
            sys.stderr = stderr


def best_of(fn, folder: Path, repeats: int) -> tuple[float, dict]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(folder)
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logs", type=int, default=100)
    parser.add_argument("--distinct", type=int, default=10)
    parser.add_argument("--samples", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--full-repeats", type=int, default=1)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    folder = Path(tempfile.mkdtemp(prefix="eval-folder-"))
    try:
        start = time.perf_counter()
        make_folder(args.logs, args.distinct, args.samples, folder)
        print(f"wrote {args.logs} logs of {args.samples} samples ({args.distinct} evaluations) in "
              f"{time.perf_counter() - start:.1f} s")
        first = sorted(folder.glob("*.eval"))[:1]
        ours_warm = Path(tempfile.mkdtemp(prefix="warm-"))
        shutil.copy(first[0], ours_warm / first[0].name)
        workbench_read(ours_warm), baseline_read(ours_warm)  # imports and first-call costs, both sides
        shutil.rmtree(ours_warm)
        ours_s, ours = best_of(workbench_read, folder, args.repeats)
        base_s, base = best_of(baseline_read, folder, args.repeats)
        full_s, full_n = best_of(full_read, folder, args.full_repeats) if args.full_repeats else (float("nan"), 0)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    same = ours.keys() == base.keys() and all(
        ours[k][0] == base[k][0] and abs(ours[k][1] - base[k][1]) < 1e-12 for k in ours)
    out = {"logs": args.logs, "samples_per_log": args.samples, "workbench_seconds": round(ours_s, 3),
           "samples_df_seconds": round(base_s, 3), "speed_up": round(base_s / ours_s, 2),
           "same_n_and_means": same, "goal": ">= 2x",
           "samples_df_full_seconds": round(full_s, 3), "speed_up_full": round(full_s / ours_s, 2),
           "samples_df_full_rows": full_n}
    print(f"workbench {ours_s:.2f} s, samples_df {base_s:.2f} s: {base_s / ours_s:.2f}x; "
          f"same n and means per log: {same}")
    print(f"samples_df(full=True), the same sample members: {full_s:.2f} s ({full_n} rows): {full_s / ours_s:.2f}x")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
