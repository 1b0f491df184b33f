"""One streaming update of all six e-processes (issue 21: 12 us before, goal <= 5 us).

Compares, in ONE process and interleaved (the machine is shared; CPU time of this process):

- ``old``: six ``EProcess`` objects of the code the issue measured (commit 6490ef8, read from git
  and imported under another package name), one ``update`` each per score;
- ``six now``: six ``EProcess`` objects of this tree;
- ``EProcessSet before``: the set as it was before this change (commit f90d8c6);
- ``set now``: one ``EProcessSet`` of this tree (one ``update`` for all six).

Each round feeds every variant the same 2,000 scores (Bernoulli(0.7), GPQA parameters) from a
fresh object; the smallest per-step time over the rounds is kept. The final log E of all six
processes must be identical across the variants (checked). Prints the ratio set/old and that ratio
times the issue's 12 us. Last line: one JSON object.

Run: ``python bench/bench_stream_update.py [rounds]`` from the repository root (needs git).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from audit_core.sequential import PROCESS_NAMES, AuditParams, EProcessSet  # noqa: E402

BASE = "6490ef8"  # the commit whose streaming update the issue measured (12 us)
PREVIOUS = "f90d8c6"  # EProcessSet before this change (5.24-5.36 us at load 13, ratio 0.37)
STEPS = 2_000


def import_commit(directory: Path, commit: str, name: str):
    """audit_core at ``commit``, extracted from git and renamed ``name`` (imports rewritten)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "audit_core"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive, check=True)
    package = directory / name
    (directory / "audit_core").rename(package)
    for path in package.rglob("*.py"):
        text = path.read_text()
        path.write_text(re.sub(r"\baudit_core\b", name, text))
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))
    return importlib.import_module(f"{name}.sequential")


def per_step_us(make, scores: list[float]) -> tuple[float, list[float]]:
    """CPU microseconds per score for one variant on a fresh object, and its final log E values."""
    update, final = make()
    start = time.process_time()
    for y in scores:
        update(y)
    return (time.process_time() - start) / len(scores) * 1e6, final()


def separate(module, params):
    processes = [module.make_process(name, params) for name in PROCESS_NAMES]

    def update(y):
        for process in processes:
            process.update(y)
    return update, lambda: [p.log_e for p in processes]


def together(params, cls=EProcessSet):
    processes = cls(params)
    return processes.update, lambda: [processes.processes[name].log_e for name in PROCESS_NAMES]


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    print(f"load average: {os.getloadavg()}")
    scores = [float(v) for v in (np.random.default_rng(0).random(STEPS) < 0.7)]
    with tempfile.TemporaryDirectory() as directory:
        base = import_commit(Path(directory), BASE, "audit_core_base")
        previous = import_commit(Path(directory), PREVIOUS, "audit_core_previous")
        base_params = base.AuditParams.gpqa(budget=10**6)
        previous_params = previous.AuditParams.gpqa(budget=10**6)
        params = AuditParams.gpqa(budget=10**6)
        now = sys.modules["audit_core.sequential"]
        variants = {"old (six EProcess, 6490ef8)": lambda: separate(base, base_params),
                    "EProcessSet before (f90d8c6)": lambda: together(previous_params, previous.EProcessSet),
                    "six EProcess now": lambda: separate(now, params),
                    "EProcessSet now": lambda: together(params)}
        best = {name: float("inf") for name in variants}
        finals = {}
        for _ in range(rounds):
            for name, make in variants.items():
                us, final = per_step_us(make, scores)
                best[name] = min(best[name], us)
                finals[name] = final
    identical = len({tuple(v) for v in finals.values()}) == 1
    old, ours = best["old (six EProcess, 6490ef8)"], best["EProcessSet now"]
    before = best["EProcessSet before (f90d8c6)"]
    for name, us in best.items():
        print(f"  {name:>28}: {us:.2f} us per score (CPU, best of {rounds} rounds of {STEPS})")
    print(f"EProcessSet before / old = {before / old:.3f}; now / before = {ours / before:.3f}")
    print(f"EProcessSet / old = {ours / old:.3f}; on the issue's scale (old = 12 us): {12 * ours / old:.2f} us "
          f"(goal <= 5 us: {'met' if 12 * ours / old <= 5 else 'NOT met'}); identical final log E: {identical}")
    print(json.dumps({"load_average": os.getloadavg(), "us": best, "ratio_set_vs_old": ours / old, "ratio_before_vs_old": before / old,
                      "issue_scale_us": 12 * ours / old, "identical": identical}))


if __name__ == "__main__":
    main()
