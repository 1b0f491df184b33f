"""Benchmark: the paper's whole GPQA-style study, the SDoH-style study and the accuracy-model cost.

    python bench/bench_simulate.py [--replicates 100] [--jobs 2] [--baseline-replicates 40]

1. GPQA-style study (paper 001 Figure 2): 4 settings x 7 rows x 100 replicates, budget 250,
   q 0.85, m 40, 2 initial random cases, scenario (a); target < 10 minutes on 2 cores. The paper
   reports about 15 minutes for ONE audit on two cores.
2. SDoH-style study (Figure 3): 7 rows x 40 replicates, q 0.83, budget 400, 20 initial cases, and
   the Spearman correlation of sampling frequency with category accuracy (paper: -0.84).
3. Baselines measured in the same run, on the same seeds (adaptive SR-LR-UI, GPQA Medium): the
   same ridge ensemble refit from scratch every step (identical audits, so the ratio is the pure
   cost of refitting) and a paper-style NN ensemble retrained every step (stopping times compared).

The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from audit_core.auditing import (  # noqa: E402
    PAPER_ROWS,
    SDOH_PAPER_ROWS,
    AuditorConfig,
    load_pool,
    paper_params,
    run_study,
    sampling_frequency_vs_accuracy,
)

SETTINGS = ("large", "medium", "small", "none")
PAPER_SECONDS_PER_AUDIT = 15 * 60
PAPER_SAYS = {
    "large": "SR-LR-UI best power among adaptive rows; adaptive beats stratified and pre-learned; oracle fastest",
    "medium": "same ordering; lower power for every row",
    "small": "same ordering; lowest power",
    "none": "every method passes the audit at high rates and never falsely reports a failure",
}


def table(summary) -> str:
    lines = [f"  {'strategy':<12}{'process':<10}{'found':>7}{'passed':>8}{'inconcl.':>9}   stop median [IQR]   s/audit"]
    for _, r in summary.iterrows():
        lines.append(f"  {r['strategy']:<12}{r['process']:<10}{r['failure_found']:>7.2f}{r['passed']:>8.2f}"
                     f"{r['inconclusive']:>9.2f}   {r['stop_median']:>5.0f} [{r['stop_q25']:.0f}-{r['stop_q75']:.0f}]"
                     f"{'':<6}{r['seconds_per_audit']:.3f}")
    return "\n".join(lines)


def rows_json(summary) -> list[dict]:
    keep = ("strategy", "process", "failure_found", "passed", "inconclusive", "stop_median", "stop_q25", "stop_q75")
    return [{k: (round(float(r[k]), 3) if isinstance(r[k], (float, np.floating)) else r[k]) for k in keep}
            for _, r in summary.iterrows()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--sdoh-replicates", type=int, default=40)
    parser.add_argument("--baseline-replicates", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    gpqa = paper_params("gpqa")
    out: dict = {"replicates": args.replicates, "jobs": args.jobs}

    # 1. The whole GPQA-style study.
    started = time.perf_counter()
    studies = {}
    for setting in SETTINGS:
        pool = load_pool(f"gpqa:{setting}")
        studies[setting] = run_study(pool, PAPER_ROWS, args.replicates, gpqa, seed=args.seed, jobs=args.jobs)
        print(f"\nGPQA-style {setting.capitalize()} ({args.replicates} replicates, "
              f"{studies[setting].seconds:.1f} s)   paper: {PAPER_SAYS[setting]}")
        print(table(studies[setting].summary), flush=True)
    gpqa_wall = time.perf_counter() - started
    audits = sum(len(s.results) for s in studies.values())
    cpu_per_audit = float(np.mean(np.concatenate([s.results["seconds"].to_numpy() for s in studies.values()])))
    print(f"\nGPQA study: {audits} audits in {gpqa_wall:.1f} s wall on {args.jobs} worker(s) "
          f"({gpqa_wall / audits * 1000:.1f} ms wall per audit, {cpu_per_audit * 1000:.1f} ms per audit in a worker); "
          f"paper: ~{PAPER_SECONDS_PER_AUDIT} s per audit -> {PAPER_SECONDS_PER_AUDIT / cpu_per_audit:,.0f}x")
    out.update(gpqa_audits=audits, gpqa_wall_seconds=round(gpqa_wall, 2), under_10_minutes=gpqa_wall < 600,
               seconds_per_audit=round(cpu_per_audit, 4), wall_seconds_per_audit=round(gpqa_wall / audits, 4),
               paper_seconds_per_audit=PAPER_SECONDS_PER_AUDIT,
               speedup_vs_paper_per_audit=round(PAPER_SECONDS_PER_AUDIT / cpu_per_audit, 1),
               gpqa={s: rows_json(st.summary) for s, st in studies.items()})

    # 2. SDoH-style study and the sampling-frequency correlation.
    sdoh = load_pool("sdoh")
    study = run_study(sdoh, SDOH_PAPER_ROWS, args.sdoh_replicates, paper_params("sdoh"), seed=args.seed, jobs=args.jobs)
    freq, rho = sampling_frequency_vs_accuracy(study, sdoh)
    print(f"\nSDoH-style ({args.sdoh_replicates} replicates, {study.seconds:.1f} s)   paper: SR-LR-UI highest "
          "power and fewest samples except the informed prior; rho = -0.84")
    print(table(study.summary))
    print(f"  adaptive SR-LR-UI sampling frequency vs category accuracy: Spearman rho = {rho:.2f}")
    out.update(sdoh=rows_json(study.summary), sdoh_spearman_rho=round(rho, 3), paper_spearman_rho=-0.84)

    # 3. Baselines on the same seeds: refit-from-scratch (identical audits) and a paper-style NN.
    medium = load_pool("gpqa:medium")
    row = (("adaptive", "SR-LR-UI"),)
    timings, stops = {}, {}
    for learner in ("online", "refit", "neural"):
        base = run_study(medium, row, args.baseline_replicates, gpqa, seed=args.seed + 1, jobs=args.jobs,
                         config=AuditorConfig(learner=learner))
        timings[learner] = float(base.results["seconds"].mean())
        stops[learner] = base.results[["decision", "n_annotated"]]
        s = base.summary.iloc[0]
        print(f"\nbaseline {learner:<7} adaptive SR-LR-UI, GPQA Medium, {args.baseline_replicates} audits: "
              f"{timings[learner]:.3f} s per audit; found {s['failure_found']:.2f}, stop median {s['stop_median']:.0f}")
    identical = stops["online"].equals(stops["refit"])
    ratio_refit = timings["refit"] / timings["online"]
    ratio_neural = timings["neural"] / timings["online"]
    print(f"online vs refit-from-scratch: {ratio_refit:.1f}x faster, identical audits: {identical}; "
          f"online vs paper-style NN ensemble: {ratio_neural:.1f}x faster")
    out.update(baseline_replicates=args.baseline_replicates,
               online_seconds_per_audit=round(timings["online"], 4),
               refit_seconds_per_audit=round(timings["refit"], 4),
               neural_seconds_per_audit=round(timings["neural"], 4),
               speedup_online_vs_refit=round(ratio_refit, 2), speedup_online_vs_neural=round(ratio_neural, 2),
               online_equals_refit=bool(identical),
               baseline_stop_median={k: float(v["n_annotated"].median()) for k, v in stops.items()},
               baseline_failure_found={k: float((v["decision"] == "failure mode found").mean())
                                       for k, v in stops.items()})
    print(json.dumps(out, separators=(",", ":")))


if __name__ == "__main__":
    main()
