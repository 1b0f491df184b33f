"""Peak memory and time of 10^6-row inputs as a multiple of their file size (issue 13).

Each job runs in a fresh Python process (peak RSS = its ``VmHWM`` from /proc, which starts anew
at exec, unlike ``ru_maxrss``): the baseline is ``pandas.read_csv`` of the same
file (what any reader pays), measured in the same run. Jobs:

- replay: ``load_audit_csv`` + ``replay`` of a 10^6-row labelled run (score, group, order);
- measure: ``load_response_log`` + ``measure`` (200 bootstrap replicates) of a 10^6-row response
  log (2 models x 13,889 clusters x 36 cells).

Prints one line per job and a JSON object last: seconds, peak RSS in MB, RSS / file size, and both
against the baseline.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

JOB = """
import sys, time
sys.path.insert(0, {root!r})
started = time.perf_counter()
kind, path = {kind!r}, {path!r}
if kind == "baseline":
    import pandas as pd
    pd.read_csv(path, dtype=str, keep_default_na=False)
elif kind == "replay":
    from audit_core.data.loader import load_audit_csv
    from audit_core.sequential import AuditParams, replay
    data = load_audit_csv(path, score="score", subgroups=("group",), order="order")
    replay(data.scores, AuditParams.for_style("gpqa"), subgroups=data.subgroup_frame)
else:
    from audit_core.measure import load_response_log, measure
    measure(load_response_log(path), bootstrap=200)
# VmHWM (peak resident set of this address space): ru_maxrss would keep the parent's peak across exec
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(time.perf_counter() - started, hwm.split()[1])
"""


def run_job(kind: str, path: Path) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", JOB.format(root=str(ROOT), kind=kind, path=str(path))],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1]) / 1024.0  # seconds, MB (VmHWM is in kB)


def replay_file(folder: Path, n: int = 1_000_000) -> Path:
    rng = np.random.default_rng(0)
    path = folder / "run.csv"
    pd.DataFrame({"order": np.arange(n), "score": (rng.random(n) < 0.85).astype(int),
                  "group": rng.choice([f"g{i}" for i in range(20)], n)}).to_csv(path, index=False)
    return path


def log_file(folder: Path, n_clusters: int = 13_889) -> Path:
    from audit_core.identify import frozen_policy_class
    from audit_core.identify.policies import ORACLE_LABEL
    cells = frozen_policy_class().cells
    rng = np.random.default_rng(1)
    n = 2 * n_clusters * len(cells)
    model = np.repeat(["m0", "m1"], n_clusters * len(cells))
    cluster = np.tile(np.repeat([f"k{i}" for i in range(n_clusters)], len(cells)), 2)
    cell = np.tile(cells, 2 * n_clusters)
    world = np.array([c.split(":")[0] for c in cells])
    oracle = np.tile([ORACLE_LABEL[w] for w in world], 2 * n_clusters)
    response = rng.choice(list("ABC"), n)
    path = folder / "log.csv"
    pd.DataFrame({"model": model, "cluster": cluster, "cell": cell, "response": response,
                  "oracle": oracle}).to_csv(path, index=False)
    return path


def main() -> None:
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for kind, path in (("replay", replay_file(folder)), ("measure", log_file(folder))):
            size_mb = path.stat().st_size / 2**20
            base_s, base_mb = run_job("baseline", path)
            s, mb = run_job(kind, path)
            report[kind] = {"rows": int(sum(1 for _ in open(path)) - 1), "file_mb": round(size_mb, 1),
                            "seconds": round(s, 2), "peak_rss_mb": round(mb, 1),
                            "rss_per_file_size": round(mb / size_mb, 2),
                            "baseline_read_csv_seconds": round(base_s, 2), "baseline_peak_rss_mb": round(base_mb, 1),
                            "time_vs_baseline": round(s / base_s, 2), "rss_vs_baseline": round(mb / base_mb, 2)}
            r = report[kind]
            print(f"{kind}: {r['rows']:,} rows, {r['file_mb']} MB file: {r['seconds']} s, peak RSS {r['peak_rss_mb']} MB "
                  f"({r['rss_per_file_size']} x file); pandas.read_csv {r['baseline_read_csv_seconds']} s, "
                  f"{r['baseline_peak_rss_mb']} MB -> {r['time_vs_baseline']} x time, {r['rss_vs_baseline']} x memory")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
