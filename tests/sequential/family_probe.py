"""The adaptive family-wise probe of issue 28 item 1, exact and by seeded Monte Carlo.

A pool of ``k`` subgroups, every one at accuracy ``q`` (so every flag "below q" is false). The
auditor visits them one at a time: subgroup j gets up to ``n_max`` labels, and the audit stops at
the first family-wise flag (the subgroup's upper bound at its level below q). A rule gives the
level of the j-th subgroup visited while it is being labelled:

* ``"seen"``: α/j, the j subgroups seen so far (the rule before issue 28; K chosen by the auditor);
* ``"declared"``: α/k, the pool's k subgroups declared before the data;
* ``"spending"``: α 2^-(2 floor(log2 j) + 1), by order of first appearance.

Earlier subgroups cannot flag later: their level only falls (``"seen"``) or stays. The upper
bound is the running minimum of the per-step hedged-mixture bound, so subgroup j flags iff its
path (t, S_t) enters {S <= s*(t)} for some t <= n_max, s*(t) the largest S whose bound is below q
(the bound rises with S; :func:`thresholds` checks it at every S it tests). The exact rate is
1 - prod_j (1 - r_j), r_j the first-passage probability of a Bernoulli(q) walk, by dynamic
programming over S. Used by tests/sequential/test_family_probe.py and bench/bench_family_probe.py.
"""

from __future__ import annotations

import numpy as np

from audit_core.sequential.confseq import hedged_mixture_counts
from audit_core.sequential.replay import spending_share

RULES = ("seen", "declared", "spending")


def level_of(rule: str, j: int, k: int, alpha: float) -> float:
    """The family-wise level of the j-th subgroup visited (1-based) under ``rule``."""
    if rule == "seen":
        return alpha / j
    if rule == "declared":
        return alpha / k
    return alpha * spending_share(j)


def thresholds(level: float, q: float, n_max: int) -> np.ndarray:
    """s*(t) for t = 1..n_max: the largest S whose per-step upper bound at ``level`` is below q
    (-1: none), by bisection over S for all t at once, with the monotonicity it relies on checked."""
    t = np.arange(1, n_max + 1, dtype=float)
    low = np.full(n_max, -1.0)          # bound(low) < q holds (S = -1 stands for "none")
    high = t.copy()                     # bound(high) < q unknown; test it first
    _, top = hedged_mixture_counts(high, t - high, level)
    done = top < q
    low[done] = high[done]
    while True:
        active = (~done) & (high - low > 1)
        if not active.any():
            break
        mid = np.floor((low + high) / 2.0)
        _, bound = hedged_mixture_counts(mid[active], (t - mid)[active], level)
        below = bound < q
        idx = np.flatnonzero(active)
        low[idx[below]] = mid[idx[below]]
        high[idx[~below]] = mid[idx[~below]]
    # monotone in S around the threshold: S* itself below q, S* + 1 not
    inside = low >= 0
    if inside.any():
        _, at = hedged_mixture_counts(low[inside], (t - low)[inside], level)
        assert np.all(at < q)
    nxt = (low + 1 <= t)
    _, above = hedged_mixture_counts((low + 1)[nxt], (t - low - 1)[nxt], level)
    assert np.all(above >= q)
    return low.astype(int)


def first_passage(s_star: np.ndarray, q: float) -> float:
    """P(a Bernoulli(q) walk has S_t <= s*(t) for some t <= len(s_star)), exactly (in floats)."""
    mass = np.array([1.0])
    total = 0.0
    for t, cut in enumerate(s_star, start=1):
        new = np.zeros(t + 1)
        new[1:] += mass * q
        new[:-1] += mass * (1.0 - q)
        if cut >= 0:
            total += new[:cut + 1].sum()
            new[:cut + 1] = 0.0
        mass = new
    return float(total)


def exact_rate(rule: str, k: int, q: float, alpha: float, n_max: int) -> float:
    """P(some false family-wise flag) of the probe under ``rule``, exactly."""
    cache: dict[float, float] = {}
    keep = 1.0
    for j in range(1, k + 1):
        level = level_of(rule, j, k, alpha)
        if level not in cache:
            cache[level] = first_passage(thresholds(level, q, n_max), q)
        keep *= 1.0 - cache[level]
    return 1.0 - keep


def simulate(rule: str, k: int, q: float, alpha: float, n_max: int, reps: int, seed: int):
    """Seeded Monte Carlo of the probe: returns (number of runs with a false flag, the runs that
    flagged as (subgroup visited, stop within it, its scores), a few that did not)."""
    rng = np.random.default_rng(seed)
    active = np.arange(reps)
    flagged_runs: list[tuple[int, int, np.ndarray]] = []
    cut = {}
    for j in range(1, k + 1):
        level = level_of(rule, j, k, alpha)
        if level not in cut:
            cut[level] = thresholds(level, q, n_max)
        draws = rng.random((active.size, n_max), dtype=np.float32) < q
        hit = np.cumsum(draws, axis=1, dtype=np.int16) <= cut[level][None, :]
        any_hit = hit.any(axis=1)
        first = np.argmax(hit, axis=1)
        for row in np.flatnonzero(any_hit)[:20]:
            flagged_runs.append((j, int(first[row]) + 1, draws[row, :first[row] + 1].astype(float)))
        active = active[~any_hit]
    return reps - active.size, flagged_runs


def probe_run(j: int, stop: int, scores: np.ndarray, q: float, n_max: int, seed: int):
    """The whole run of a probe that flagged subgroup j at its case ``stop``: subgroups 1..j-1
    with n_max unflagged labels each (fresh seeded Bernoulli(q) draws; their content does not
    change subgroup j's flag), then subgroup j's scores. Returns (scores, subgroup labels)."""
    rng = np.random.default_rng(seed)
    parts, labels = [], []
    for i in range(1, j):
        parts.append((rng.random(n_max) < q).astype(float))
        labels += [f"s{i:02d}"] * n_max
    parts.append(scores[:stop])
    labels += [f"s{j:02d}"] * stop
    return np.concatenate(parts), np.asarray(labels)
