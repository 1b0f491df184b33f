"""Audit planner: before any label, how likely is each decision by n labels, and how many labels?

Built on the simulation engine (:func:`audit_core.auditing.study.run_study`): ``replicates``
seeded audits of one (strategy, process) row on

* the **failure scenario**: the pool as given (a bundled pool, a labelled CSV) or an assumed
  subgroup structure (:func:`assumed_pool`: number and sizes of subgroups, the accuracy of the
  failing ones and of the rest);
* the **no-failure scenario**: the same cases with every subgroup below q lifted to
  ``no_failure_accuracy`` (default q + delta_aud, the auditor's alternative), i.e. what happens
  when nothing fails.

From the replicates' decisions and stopping times (annotations used):

* P(decision by n) for n = 1..budget: the share of replicates that reached it within n labels,
  with a 95% Wilson interval (the Monte Carlo error of a binomial proportion over R replicates);
* labels needed: the median and 90th percentile of the stopping time of decided audits, counting
  an inconclusive audit as never deciding (so the quantile is "more than the budget" when fewer
  than that share decide), each with a distribution-free 95% interval from order statistics
  (ranks from Binomial(R, p) quantiles);
* P(pass) in the no-failure scenario and the budget table (every decision's probability at a
  list of budgets, both scenarios).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import binom

from audit_core.auditing.pool import Pool, build_pool
from audit_core.auditing.study import Progress, run_study
from audit_core.errors import InputError
from audit_core.sequential import AUDIT_PASSED, FAILURE_FOUND, INCONCLUSIVE, AuditParams, wilson_interval
from audit_core.sequential.params import audit_params

SCENARIOS = ("failure", "no failure")
OUTCOMES = (FAILURE_FOUND, AUDIT_PASSED)

# Bounds on the work one plan may ask for, checked before any array is built (issue 18): every
# simulated audit scores the whole pool at each step, so time and memory grow with the pool's size,
# and the plan runs 2 x replicates audits. 20,000 cases is about ten times the largest bundled pool
# (sdoh, 2,268) and keeps one worker near 100 MB; 5,000,000 case-audits (cases x replicates) lets
# every bundled pool run the page's 2,000 replicates. Listed in docs/limits.md.
MAX_PLAN_CASES = 20_000
MAX_PLAN_WORK = 5_000_000


def check_plan_size(n_cases: int, replicates: int | None = None) -> None:
    """InputError naming the limit when a pool of ``n_cases`` (or it times ``replicates``) is
    beyond :data:`MAX_PLAN_CASES` (:data:`MAX_PLAN_WORK`)."""
    if n_cases > MAX_PLAN_CASES:
        raise InputError(f"pool of {n_cases:,} cases: a plan simulates audits on at most {MAX_PLAN_CASES:,} "
                         f"cases (the sum of the subgroup sizes); use smaller subgroups, the proportions matter")
    if replicates is not None and n_cases * replicates > MAX_PLAN_WORK:
        raise InputError(f"{n_cases:,} cases x {replicates:,} simulated audits = {n_cases * replicates:,}: a plan "
                         f"runs at most {MAX_PLAN_WORK:,} (cases x audits); use at most "
                         f"{max(1, MAX_PLAN_WORK // n_cases):,} audits for this pool")


def assumed_pool(sizes, failing_accuracy: float, base_accuracy: float = 0.92, n_failing: int = 1,
                 n_features: int = 8, separation: float = 2.0, seed: int = 0, style: str = "gpqa") -> Pool:
    """A synthetic pool with ``len(sizes)`` subgroups of the given sizes; the first ``n_failing``
    have true accuracy ``failing_accuracy``, the others ``base_accuracy``. Features: each subgroup
    has a random direction of length ``separation`` in ``n_features`` dimensions, plus standard
    normal noise per case, so a learning auditor can find the subgroup but not for free."""
    sizes = [int(s) for s in np.atleast_1d(sizes)]
    if not sizes or any(s < 1 for s in sizes):
        raise InputError(f"subgroup sizes: expected one or more whole numbers >= 1, got {sizes}")
    check_plan_size(sum(sizes))
    if not 0 <= n_failing <= len(sizes):
        raise InputError(f"failing subgroups: expected 0 to {len(sizes)}, got {n_failing}")
    for role, value in (("failing accuracy", failing_accuracy), ("base accuracy", base_accuracy)):
        if not 0.0 <= value <= 1.0:
            raise InputError(f"{role}: must lie in [0, 1], got {value}")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(7,)))
    directions = rng.standard_normal((len(sizes), max(1, n_features)))
    directions *= separation / np.linalg.norm(directions, axis=1, keepdims=True)
    group = np.repeat(np.arange(len(sizes)), sizes)
    features = directions[group] + rng.standard_normal((group.size, directions.shape[1]))
    truth = np.where(group < n_failing, failing_accuracy, base_accuracy).astype(float)
    names = np.array([f"subgroup {g + 1}{' (failing)' if g < n_failing else ''}" for g in group], dtype=object)
    labels = (rng.random(group.size) < truth).astype(float)
    return build_pool(f"assumed: {len(sizes)} subgroups, {n_failing} at {failing_accuracy:g}", labels, features,
                      names.reshape(-1, 1), truth=truth, subgroup_columns=("subgroup",), style=style)


def no_failure_pool(pool: Pool, q: float, accuracy: float) -> Pool:
    """The same cases with every case of a stratum whose mean accuracy is below q given true
    accuracy ``accuracy`` (other cases keep theirs; labels are then drawn per replicate)."""
    failing = pool.stratum_accuracy() < q - 1e-9
    truth = np.array(pool.accuracy, dtype=float)
    truth[failing[pool.strata]] = accuracy
    return dataclasses.replace(pool, name=f"{pool.name} (no failure)", truth=truth)


def quantile_with_interval(stops: np.ndarray, p: float, confidence: float = 0.95) -> tuple[float, float, float]:
    """(estimate, low, high) of the p-quantile of stopping times (inf = never decided).

    Order-statistic interval: with R values sorted, [x_(j), x_(k)] where j, k are the
    Binomial(R, p) quantiles at (1 -/+ confidence)/2; inf means "beyond the budget"."""
    x = np.sort(np.asarray(stops, dtype=float))
    r = x.size
    estimate = float(x[min(r - 1, max(0, math.ceil(p * r) - 1))])
    j = int(binom.ppf((1 - confidence) / 2, r, p))
    k = int(binom.ppf((1 + confidence) / 2, r, p)) + 1
    low = float(x[max(0, min(r - 1, j - 1))])
    high = float(x[min(r - 1, k - 1)]) if k <= r else math.inf
    return estimate, low, high


@dataclass(frozen=True, repr=False)
class AuditPlan:
    """Result of :func:`plan_audit`.

    ``curves``: one row per (scenario, outcome, n) with ``probability`` of that decision within n
    labels and its 95% Wilson ``low`` / ``high``; ``budget_table``: the same at ``budgets`` with
    every outcome in columns; ``labels_needed``: per scenario the median and 90th percentile of
    the labels to a decision (inf: beyond the budget) with order-statistic intervals;
    ``p_pass_no_failure`` (estimate, low, high) at the full budget; ``replicates`` per scenario;
    ``mc_error``: the largest Wilson half-width of the curves (Monte Carlo error statement).
    """

    pool_name: str
    strategy: str
    process: str
    params: AuditParams
    replicates: int
    seed: int
    curves: pd.DataFrame
    budget_table: pd.DataFrame
    labels_needed: pd.DataFrame
    p_pass_no_failure: tuple[float, float, float]
    mc_error: float
    seconds: float = 0.0

    def to_dict(self) -> dict:
        clean = lambda v: None if isinstance(v, float) and not math.isfinite(v) else v  # noqa: E731
        records = lambda f: [{k: clean(v) for k, v in r.items()} for r in f.to_dict(orient="records")]  # noqa: E731
        return {"pool": self.pool_name, "strategy": self.strategy, "process": self.process,
                "params": self.params.to_dict(), "replicates": self.replicates, "seed": self.seed,
                "p_pass_no_failure": dict(zip(("estimate", "low", "high"), self.p_pass_no_failure, strict=True)),
                "labels_needed": records(self.labels_needed), "budget_table": records(self.budget_table),
                "curves": records(self.curves), "mc_error": self.mc_error,
                "mc_note": f"rates are shares of {self.replicates} seeded audits with 95% Wilson intervals "
                           f"(largest half-width {self.mc_error:.3f}); quantiles with order-statistic intervals",
                "seconds": round(self.seconds, 3)}

    def __repr__(self) -> str:
        p = self.p_pass_no_failure[0]
        return f"AuditPlan({self.pool_name!r}, {self.strategy}/{self.process}, R={self.replicates}, P(pass | no failure)={p:.2f})"


def decision_curves(decisions: np.ndarray, stops: np.ndarray, budget: int, scenario: str) -> pd.DataFrame:
    """P(outcome within n labels) for n = 1..budget with Wilson intervals."""
    r = decisions.size
    n_grid = np.arange(1, budget + 1)
    frames = []
    for outcome in OUTCOMES:
        times = np.sort(stops[decisions == outcome])
        hits = np.searchsorted(times, n_grid, side="right")
        low, high = wilson_interval(hits, np.full(n_grid.size, r))
        frames.append(pd.DataFrame({"scenario": scenario, "outcome": outcome, "n": n_grid,
                                    "probability": hits / r, "low": low, "high": high}))
    return pd.concat(frames, ignore_index=True)


def _budget_rows(decisions, stops, budgets, scenario) -> list[dict]:
    r = decisions.size
    rows = []
    for b in budgets:
        row = {"scenario": scenario, "budget": int(b)}
        for outcome in OUTCOMES:
            k = int(np.sum((decisions == outcome) & (stops <= b)))
            row[outcome], (row[f"{outcome} low"], row[f"{outcome} high"]) = k / r, wilson_interval(k, r)
        k = int(np.sum(~np.isin(decisions, OUTCOMES) | (stops > b)))
        row[INCONCLUSIVE], (row[f"{INCONCLUSIVE} low"], row[f"{INCONCLUSIVE} high"]) = k / r, wilson_interval(k, r)
        rows.append(row)
    return rows


def default_budgets(budget: int, count: int = 5) -> tuple[int, ...]:
    """``count`` evenly spaced budgets up to the full one (rounded to tens when large enough)."""
    steps = np.linspace(budget / count, budget, count)
    return tuple(sorted({int(round(s / 10) * 10) if budget >= 10 * count else max(1, int(round(s))) for s in steps}))


def plan_audit(pool: Pool, strategy: str = "adaptive", process: str = "SR-LR-UI", params: AuditParams | None = None,
               replicates: int = 200, seed: int = 0, budgets=None, no_failure_accuracy: float | None = None,
               progress: Progress | None = None, jobs: int = 2, config=None, backend: str = "local",
               address: str | None = None, client=None) -> AuditPlan:
    """Simulate the audit in both scenarios and summarise (module doc). The two scenarios use the
    same seeds; ``progress(done, total)`` counts audits over both."""
    check_plan_size(pool.n, replicates)
    params = params or audit_params(pool.style)
    for field in ("budget", "m"):
        # The curves and the budget table hold one row per label: 10^11 labels asked for 745 GiB.
        if getattr(params, field) > MAX_PLAN_CASES:
            raise InputError(f"parameter {field}: a plan's audits label at most {MAX_PLAN_CASES:,} cases (its largest "
                             f"pool), got {getattr(params, field):,}")
    lifted = no_failure_accuracy if no_failure_accuracy is not None else params.q_aud
    if not params.q <= lifted <= 1.0:
        raise InputError(f"no-failure accuracy: must lie in [q={params.q}, 1], got {lifted}")
    budgets = tuple(sorted(set(int(b) for b in (budgets or default_budgets(params.budget)))))
    if budgets[0] < 1 or budgets[-1] > params.budget:
        raise InputError(f"budgets: each must lie in 1..{params.budget} (the audit budget), got {list(budgets)}")
    pools = {"failure": pool, "no failure": no_failure_pool(pool, params.q, lifted)}
    total = 2 * replicates
    curves, table, needed, seconds = [], [], [], 0.0
    pass_rate = (math.nan,) * 3
    for offset, (scenario, p) in enumerate(pools.items()):
        report = None if progress is None else (lambda d, _t, base=offset * replicates: progress(base + d, total))
        study = run_study(p, [(strategy, process)], replicates, params, seed=seed, progress=report, jobs=jobs,
                          config=config, backend=backend, address=address, client=client)
        seconds += study.seconds
        decisions = study.results["decision"].to_numpy(object)
        stops = study.results["n_annotated"].to_numpy(float)
        curves.append(decision_curves(decisions, stops, params.budget, scenario))
        table.extend(_budget_rows(decisions, stops, budgets, scenario))
        decided_at = np.where(np.isin(decisions, OUTCOMES), stops, math.inf)
        for label, q in (("median", 0.5), ("90th percentile", 0.9)):
            est, low, high = quantile_with_interval(decided_at, q)
            needed.append({"scenario": scenario, "quantile": label, "labels": est, "low": low, "high": high})
        if scenario == "no failure":
            k = int(np.sum(decisions == AUDIT_PASSED))
            pass_rate = (k / replicates, *wilson_interval(k, replicates))
    curves_frame = pd.concat(curves, ignore_index=True)
    return AuditPlan(pool.name, strategy, process, params, int(replicates), int(seed), curves_frame,
                     pd.DataFrame(table), pd.DataFrame(needed), tuple(float(v) for v in pass_rate),
                     float(((curves_frame["high"] - curves_frame["low"]) / 2).max()), seconds)
