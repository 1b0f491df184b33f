"""Benchmark of the sequential engine (issue 3). Run: ``python bench/bench_eprocess.py``.

1. All six e-processes (vectorised) over 10^6 scores; target < 1 s.
2. SR-LR: the O(n) recursion against the direct O(n^2) definition E_t = sum_j w_j prod_{k=j..t} L_k
   (numpy over j for each t), same scores, agreement checked; ratio measured at one n in this run.
3. Monte Carlo of 10,000 runs x 1,000 steps for LR and SR-LR under the boundary null, vectorised
   across runs; target < 5 s; ratio against the streaming interface on a subset of runs.

Prints readable lines, then one JSON object as the last line.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit_core.sequential import AuditParams, log_evalues, make_process, sr_lr_log_evalues  # noqa: E402
from audit_core.sequential.weights import changepoint_log_weights  # noqa: E402


def best_of(repeats, function, *args):
    """Smallest wall time of several runs (the machine is shared) and the last result."""
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def sr_direct(scores: np.ndarray, params: AuditParams) -> np.ndarray:
    """SR-LR straight from the definition: for every t a log-sum over all changepoints j <= t."""
    log_l = scores * math.log(params.q_mod / params.q) + (1 - scores) * math.log((1 - params.q_mod) / (1 - params.q))
    log_w = changepoint_log_weights(len(scores), params.weights, params.m)
    out = np.empty(len(scores))
    for t in range(1, len(scores) + 1):
        # sum_{k=j..t} log L_k for j = 1..t, via a reversed running sum
        tails = np.cumsum(log_l[:t][::-1])[::-1]
        out[t - 1] = np.logaddexp.reduce(log_w[:t] + tails)
    return out


def monte_carlo(params: AuditParams, runs: int, steps: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    scores = (rng.random((runs, steps)) < params.q).astype(float)
    trajectories = log_evalues(scores, params, names=("LR", "SR-LR"))
    return {name: float(np.mean((v >= params.log_threshold).any(axis=1))) for name, v in trajectories.items()}


def monte_carlo_streaming(params: AuditParams, runs: int, steps: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    scores = (rng.random((runs, steps)) < params.q).astype(float)
    crossed = {"LR": 0, "SR-LR": 0}
    for row in scores:
        for name in crossed:
            process = make_process(name, params)
            for y in row:
                process.update(y)
            crossed[name] += process.crossed
    return {name: count / runs for name, count in crossed.items()}


def main() -> None:
    params = AuditParams.gpqa()
    rng = np.random.default_rng(2024)
    results: dict = {}

    n = 10**6
    scores = (rng.random(n) < 0.8).astype(float)
    seconds, trajectories = best_of(3, log_evalues, scores, params)
    finite = all(np.isfinite(v).all() for v in trajectories.values())
    results["six_processes_1e6_seconds"] = round(seconds, 4)
    results["six_processes_finite"] = bool(finite)
    print(f"all six processes over 10^6 scores: {seconds:.3f} s (target < 1 s), finite: {finite}")

    n_direct = 3000
    sample = scores[:n_direct]
    direct_seconds, direct = best_of(1, sr_direct, sample, params)
    fast_seconds, fast = best_of(20, sr_lr_log_evalues, sample, params)
    max_diff = float(np.max(np.abs(direct - fast)))
    ratio = direct_seconds / fast_seconds
    # Direct is O(n^2): scaled from n_direct to 10^6 it would take this long.
    extrapolated = direct_seconds * (n / n_direct) ** 2
    results.update({"sr_direct_n": n_direct, "sr_direct_seconds": round(direct_seconds, 4),
                    "sr_fast_seconds": round(fast_seconds, 6), "sr_speedup": round(ratio, 1),
                    "sr_max_abs_log_diff": max_diff,
                    "sr_direct_extrapolated_1e6_seconds": round(extrapolated, 1)})
    print(f"SR-LR at n={n_direct}: direct O(n^2) {direct_seconds:.3f} s, recursion {fast_seconds * 1e3:.3f} ms, "
          f"speed-up x{ratio:.0f}, max |diff| in log E {max_diff:.2e}; direct at 10^6 would take ~{extrapolated:.0f} s")

    runs, steps = 10_000, 1_000
    mc_seconds, rates = best_of(2, monte_carlo, params, runs, steps, 7)
    stream_runs = 100
    stream_seconds, _ = best_of(1, monte_carlo_streaming, params, stream_runs, steps, 7)
    per_run_vectorised = mc_seconds / runs
    per_run_streaming = stream_seconds / stream_runs
    mc_ratio = per_run_streaming / per_run_vectorised
    results.update({"mc_runs": runs, "mc_steps": steps, "mc_seconds": round(mc_seconds, 3),
                    "mc_rejection_rates": rates, "mc_streaming_runs": stream_runs,
                    "mc_streaming_seconds": round(stream_seconds, 3), "mc_speedup_vs_streaming": round(mc_ratio, 1)})
    se = math.sqrt(params.alpha * (1 - params.alpha) / runs)
    print(f"Monte Carlo {runs} x {steps} (LR and SR-LR, boundary null): {mc_seconds:.3f} s (target < 5 s); "
          f"rejection rates {rates} (alpha {params.alpha}, SE {se:.4f}); "
          f"x{mc_ratio:.0f} faster per run than the streaming interface ({stream_runs} runs: {stream_seconds:.2f} s)")
    results["targets_met"] = bool(seconds < 1.0 and mc_seconds < 5.0 and finite and max_diff < 1e-9)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
