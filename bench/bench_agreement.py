"""Agreement over 100,000 labels by 10 annotators (issue 34; goal < 0.2 s).

Data (seeded): 20,000 cases in 5 subgroups, each labelled by 5 of 10 annotators (100,000 0/1
labels), annotators right with probability 0.8-0.95. Timed: :func:`audit_core.measure.interrater`
with its bootstrap intervals (``bootstrap`` 200, overall and per subgroup), best of 5. Baseline in
the same run: the `krippendorff` package's own ``alpha`` on the same matrix, once per bootstrap
resample (timed on 10 resamples and scaled to ``bootstrap``), which is what an interval costs without
the per-case sums; plus the package's point α alone.

``python bench/bench_agreement.py``. Last line: one JSON object.
"""

from __future__ import annotations

import json
import time

import krippendorff
import numpy as np

from audit_core.measure.interrater import agreement, reliability_matrix

N_CASES, N_ANNOTATORS, PER_CASE, N_BOOT = 20_000, 10, 5, 200


def data(seed: int = 0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, N_CASES)
    skill = rng.uniform(0.8, 0.95, N_ANNOTATORS)
    who = np.argsort(rng.random((N_CASES, N_ANNOTATORS)), axis=1)[:, :PER_CASE]
    right = rng.random((N_CASES, PER_CASE)) < skill[who]
    scores = np.where(right, truth[:, None], 1 - truth[:, None]).ravel().astype(float)
    cases = np.repeat(np.arange(N_CASES), PER_CASE).astype(str)
    annotators = np.char.add("a", who.ravel().astype(str))
    subgroups = (np.repeat(np.arange(N_CASES), PER_CASE) % 5).astype(str)
    return cases, annotators, scores, subgroups


def best(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    cases, annotators, scores, subgroups = data()
    assert len(scores) == 100_000
    ours = best(lambda: agreement(cases, annotators, scores, subgroups=subgroups, bootstrap=N_BOOT, seed=0))
    _, _, matrix = reliability_matrix(cases, annotators, scores)
    point = best(lambda: krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"))
    rng = np.random.default_rng(1)

    def package_resamples(k: int = 10) -> None:
        for _ in range(k):
            cols = rng.integers(0, matrix.shape[1], matrix.shape[1])
            krippendorff.alpha(reliability_data=matrix[:, cols], level_of_measurement="nominal")

    per_resample = best(package_resamples, repeat=2) / 10
    # the package's interval for the audit and each of the 5 subgroups: 2 × bootstrap resamples' worth of cases
    baseline = per_resample * N_BOOT * 2
    result = agreement(cases, annotators, scores, subgroups=subgroups, bootstrap=N_BOOT, seed=0)
    print(f"agreement (100,000 labels, 10 annotators, bootstrap {N_BOOT}, 5 subgroups): {ours * 1e3:.1f} ms "
          f"(goal < 200 ms); {result!r}")
    print(f"krippendorff.alpha point value alone: {point * 1e3:.1f} ms; its bootstrap by resampling: "
          f"{baseline:.2f} s → ratio {baseline / ours:.1f}x")
    print(json.dumps({"agreement_s": ours, "package_point_s": point, "package_bootstrap_s": baseline,
                      "ratio": baseline / ours, "goal_met": ours < 0.2}))


if __name__ == "__main__":
    main()
