"""Benchmark of the sequential engine (issue 3). Run: ``python bench/bench_eprocess.py``.

1. All six e-processes (vectorised) over 10^6 scores; target < 0.1 s (issue 21; 0.18 s before).
   Baseline in the same run: the whole-array implementation they replaced
   (tests/sequential/test_fast_paths.py's reference, same numbers bit for bit). CPU seconds of
   this process (the machine is shared; wall time printed too), with the load average.
1b. One streaming update of all six: EProcessSet (shared forecasters and factors) against six
   separate EProcess objects, same scores, same numbers; target <= 5 us (12 us before).
2. SR-LR: the O(n) recursion against the direct O(n^2) definition E_t = sum_j w_j prod_{k=j..t} L_k
   (numpy over j for each t), same scores, agreement checked; ratio measured at one n in this run.
3. Monte Carlo of 10,000 runs x 1,000 steps for LR and SR-LR under the boundary null, vectorised
   across runs; target < 5 s; ratio against the streaming interface on a subset of runs.

Prints readable lines, then one JSON object as the last line.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit_core.sequential import (  # noqa: E402
    PROCESS_NAMES,
    AuditParams,
    EProcessSet,
    log_evalues,
    make_process,
    sr_lr_log_evalues,
)
from audit_core.sequential.weights import changepoint_log_weights  # noqa: E402


def best_of(repeats, function, *args):
    """Smallest wall time of several runs (the machine is shared) and the last result."""
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def cpu_best_of(repeats, function, *args):
    """Smallest CPU time of this process over several runs, its wall time, and the last result."""
    best, wall, result = math.inf, math.inf, None
    for _ in range(repeats):
        start, started = time.process_time(), time.perf_counter()
        result = function(*args)
        best, wall = min(best, time.process_time() - start), min(wall, time.perf_counter() - started)
    return best, wall, result


def reference_module():
    """tests/sequential/test_fast_paths.py, which holds the whole-array reference implementation."""
    import importlib.util
    path = Path(__file__).resolve().parents[1] / "tests" / "sequential" / "test_fast_paths.py"
    spec = importlib.util.spec_from_file_location("fast_paths_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def streaming_us(scores: list[float], params: AuditParams, together: bool) -> tuple[float, list[float]]:
    """CPU microseconds per step to update all six processes, and their final log E."""
    if together:
        processes = EProcessSet(params)
        update = processes.update
        start = time.process_time()
        for y in scores:
            update(y)
        seconds = time.process_time() - start
        return seconds / len(scores) * 1e6, [p.log_e for p in processes.processes.values()]
    separate = [make_process(name, params) for name in PROCESS_NAMES]
    start = time.process_time()
    for y in scores:
        for process in separate:
            process.update(y)
    seconds = time.process_time() - start
    return seconds / len(scores) * 1e6, [p.log_e for p in separate]


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
    results["load_average"] = [round(v, 2) for v in os.getloadavg()]
    print(f"load average {results['load_average']}")
    reference = reference_module().reference_log_evalues
    seconds, wall, trajectories = cpu_best_of(5, log_evalues, scores, params)
    ref_seconds, ref_wall, expected = cpu_best_of(5, reference, scores, params)
    same = all(np.array_equal(trajectories[k], expected[k]) for k in PROCESS_NAMES)
    finite = all(np.isfinite(v).all() for v in trajectories.values())
    results.update(six_processes_1e6_cpu_seconds=round(seconds, 4), six_processes_1e6_wall_seconds=round(wall, 4),
                   reference_1e6_cpu_seconds=round(ref_seconds, 4), ratio_vs_reference=round(seconds / ref_seconds, 3),
                   same_numbers_as_reference=bool(same), six_processes_finite=bool(finite))
    print(f"all six processes over 10^6 scores: {seconds:.3f} s CPU ({wall:.3f} s wall); whole-array reference "
          f"{ref_seconds:.3f} s CPU ({ref_wall:.3f} s wall); ratio {seconds / ref_seconds:.2f} "
          f"(0.18 s x ratio = {0.18 * seconds / ref_seconds:.3f} s; target 0.1 s); identical: {same}; finite: {finite}")

    stream_scores = [float(v) for v in scores[:20_000]]
    stream_params = AuditParams.gpqa(budget=10**6)
    runs = [(streaming_us(stream_scores, stream_params, True), streaming_us(stream_scores, stream_params, False))
            for _ in range(5)]
    set_us = min(r[0][0] for r in runs)
    separate_us = min(r[1][0] for r in runs)
    same_stream = runs[0][0][1] == runs[0][1][1]
    results.update(stream_set_us=round(set_us, 2), stream_separate_us=round(separate_us, 2),
                   stream_ratio=round(set_us / separate_us, 3), stream_same_numbers=bool(same_stream))
    print(f"one streaming update of all six: EProcessSet {set_us:.2f} us CPU, six EProcess {separate_us:.2f} us "
          f"(ratio {set_us / separate_us:.2f}); target <= 5 us; identical: {same_stream}")

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
    results["targets_met"] = bool(seconds < 0.1 and set_us <= 5.0 and mc_seconds < 5.0 and finite and same
                                  and max_diff < 1e-9)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
