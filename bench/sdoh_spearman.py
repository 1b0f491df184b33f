"""Why the SDoH-style study gives Spearman rho about -0.65, not the paper's -0.84 (paper 001, §4.2,
Figure 3 top left: SR-LR-UI sampling frequency vs category accuracy).

    python bench/sdoh_spearman.py [--replicates 40] [--seeds 2024 0 1 2] [--jobs 2]

Runs the adaptive SR-LR-UI row of the SDoH-style study (paper parameters: q .83, m 40, budget
400, 20 initial random cases) with run_study's own seeding, once as in the study (each audit
stops at its decision) and once with the stop removed (alpha 1e-100: the sampler does not look at
the test, so the same cases in the same order, continued to the budget). For each it counts the
sampling frequency of each of the 28 categories four ways, all cases or without the 20 initial
random ones, and reports rho with a bootstrap standard error over replicates (500 resamples).
``--features "category indicators"`` reruns it with the features replaced by the category itself,
``"synthetic + indicators x S"`` with the indicators (times S) appended to the synthetic features.
Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit_core.auditing import draw_labels, load_pool, paper_params, run_audit  # noqa: E402
from audit_core.auditing.study import replicate_seeds  # noqa: E402

ROW = ("adaptive", "SR-LR-UI")
FEATURES = ("synthetic embedding", "category indicators", "synthetic + indicators x 0.5",
            "synthetic + indicators x 1")


def sdoh_pool(features: str):
    """The bundled SDoH-style pool, or the same pool with its 16 synthetic embedding features
    replaced by an indicator of the case's category (28 columns): a model that can tell the
    categories apart exactly, as a strong embedding would."""
    pool = load_pool("sdoh")
    indicators = np.eye(len(pool.stratum_names))[pool.strata]
    if features == "category indicators":
        pool = dataclasses.replace(pool, features=indicators * 3.0)
    elif features.startswith("synthetic + indicators x "):
        scale = float(features.rsplit(" ", 1)[1])
        pool = dataclasses.replace(pool, features=np.hstack([pool.features, indicators * scale]))
    return pool


def one(args) -> tuple[list[int], list[str], int | None]:
    seed, replicate, stop, features = args
    pool = sdoh_pool(features)
    params = paper_params("sdoh") if stop else paper_params("sdoh", alpha=1e-100)
    label_seed, run_seed = replicate_seeds(seed, replicate, ROW)
    labels = draw_labels(pool, np.random.default_rng(label_seed))
    run = run_audit(pool, *ROW, params, seed=run_seed, labels=labels)
    return [int(c) for c in run.cases], list(run.phases), run.stop


def rho(pool, counts: np.ndarray) -> float:
    return float(spearmanr(counts / pool.stratum_sizes(), pool.stratum_accuracy()).statistic)


def summarise(pool, runs, skip_init: bool, rng) -> dict:
    k = len(pool.stratum_names)
    per_run = np.zeros((len(runs), k))
    for r, (cases, phases, _) in enumerate(runs):
        keep = [c for c, p in zip(cases, phases, strict=True) if not (skip_init and p == "init")]
        per_run[r] = np.bincount(pool.strata[np.asarray(keep, dtype=int)], minlength=k)
    estimate = rho(pool, per_run.sum(axis=0))
    boot = [rho(pool, per_run[rng.integers(len(runs), size=len(runs))].sum(axis=0)) for _ in range(500)]
    return {"rho": round(estimate, 3), "bootstrap_se": round(float(np.std(boot)), 3),
            "cases_per_audit": round(float(per_run.sum() / len(runs)), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=40)
    parser.add_argument("--seeds", type=int, nargs="+", default=[2024])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--features", choices=FEATURES, nargs="+", default=[FEATURES[0]])
    parser.add_argument("--stop-only", action="store_true", help="skip the runs continued to the budget")
    args = parser.parse_args()
    pool = load_pool("sdoh")
    out = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as executor:
        for features, seed, stop in itertools.product(args.features, args.seeds, (True,) if args.stop_only else (True, False)):
            runs = list(executor.map(one, [(seed, r, stop, features) for r in range(args.replicates)]))
            rng = np.random.default_rng(0)
            for skip_init in (False, True):
                key = f"{features}, seed {seed}, {'stops at decision' if stop else 'to the budget (400)'}, " \
                      f"{'without' if skip_init else 'with'} the 20 initial random cases"
                out[key] = summarise(pool, runs, skip_init, rng)
                print(f"{key}: rho = {out[key]['rho']:.3f} (bootstrap SE {out[key]['bootstrap_se']:.3f}), "
                      f"{out[key]['cases_per_audit']} cases per audit", flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
