"""Simulation studies: rows (strategy x model e-process) x replicates, as in paper 001 section 4.

Seeds: replicate ``r`` of a study seeded ``s`` draws its labels from
``SeedSequence(s, spawn_key=(r, 0))`` (shared by every row, so rows are compared on the same label
realisation) and the row (strategy, process) runs its strategy with
``SeedSequence(s, spawn_key=(r, 1, crc32("strategy|process")))``. Each audit depends on nothing
else, neither on the other rows of the study nor on execution order: a row gives the same result
alone as inside the paper's seven rows, and a parallel run (``jobs`` worker processes) gives
exactly the serial result. The stopping time of an audit is the number of annotations it used: the step of its
decision, or the budget (or pool size) when inconclusive, as in the paper's boxplots.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from audit_core.auditing.backends import BACKENDS, run_units_dask
from audit_core.auditing.pool import Pool
from audit_core.auditing.strategies import (
    AUDITOR_FOR,
    AuditorConfig,
    check_row,
    paper_rows,
)
from audit_core.auditing.units import replicate_seeds, row_seed_key, run_unit  # noqa: F401 (re-exported)
from audit_core.errors import InputError
from audit_core.presets import GPQA_STUDY_N_INIT, GPQA_STUDY_POOLS  # noqa: F401 (re-exported)
from audit_core.sequential import (
    DEFAULT_MODEL_PROCESS,
    AuditParams,
    wilson_interval,
)
from audit_core.sequential.params import audit_params, paper_params  # noqa: F401 (paper_params re-exported)

Progress = Callable[[int, int], None]

# Worker-process state: the pool and settings are sent once per worker, not once per audit.
_WORKER: dict = {}


def _init_worker(pool, rows, params, config, seed) -> None:
    _WORKER.update(pool=pool, rows=rows, params=params, config=config, seed=seed)


def _work(units: list[tuple[int, int]]) -> list[dict]:
    w = _WORKER
    return [run_unit(w["pool"], w["rows"], w["params"], w["config"], w["seed"], r, j) for r, j in units]


# A study's audits: about 16 ms each on a GPQA-style pool, so 10^6 replicates of seven rows would
# run 31 hours (issue 27 item 8); the limit is checked before the first audit.
MAX_STUDY_AUDITS = 100_000

SUMMARY_COLUMNS = ("strategy", "process", "auditor_process", "failure_found", "failure_found_low",
                   "failure_found_high", "passed", "passed_low", "passed_high", "inconclusive",
                   "inconclusive_low", "inconclusive_high", "stop_median", "stop_q25", "stop_q75",
                   "replicates", "seconds_per_audit")


def summarise(results: pd.DataFrame, rows: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """Per row: decision rates with 95% Wilson intervals and stopping-time quartiles."""
    records = []
    for j, (strategy, process) in enumerate(rows):
        part = results[results["row"] == j]
        n = len(part)
        rec = {"strategy": strategy, "process": process, "auditor_process": AUDITOR_FOR[process]}
        for outcome in ("failure_found", "passed", "inconclusive"):
            k = int(part[outcome].sum())
            low, high = wilson_interval(k, n)
            rec[outcome], rec[f"{outcome}_low"], rec[f"{outcome}_high"] = (k / n if n else math.nan), low, high
        stops = part["n_annotated"].to_numpy(float)
        q25, q50, q75 = np.percentile(stops, [25, 50, 75]) if n else (math.nan,) * 3
        rec.update(stop_median=float(q50), stop_q25=float(q25), stop_q75=float(q75), replicates=n,
                   seconds_per_audit=float(part["seconds"].mean()) if n else math.nan)
        records.append(rec)
    return pd.DataFrame.from_records(records, columns=list(SUMMARY_COLUMNS))


@dataclass(frozen=True, repr=False)
class Study:
    """Results of :func:`run_study`: ``results`` (one row per replicate x row, with the annotated
    cases), ``summary`` (one row per strategy x process) and the settings that produced them."""

    pool_name: str
    rows: tuple[tuple[str, str], ...]
    replicates: int
    seed: int
    params: AuditParams
    config: AuditorConfig
    results: pd.DataFrame
    summary: pd.DataFrame
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """CLI JSON: ``{"rows": [{strategy, process, failure_found, passed, inconclusive,
        stop_median, stop_q25, stop_q75, replicates, ...intervals}], ...}``."""
        rows = []
        for rec in self.summary.to_dict(orient="records"):
            rows.append({k: (None if isinstance(v, float) and not math.isfinite(v) else
                             (round(v, 6) if isinstance(v, float) else v)) for k, v in rec.items()})
        return {"pool": self.pool_name, "replicates": self.replicates, "seed": self.seed,
                "params": self.params.to_dict(), "config": self.config.to_dict(), "rows": rows,
                "seconds": round(self.seconds, 3)}

    def __repr__(self) -> str:
        return f"Study({self.pool_name!r}, rows={len(self.rows)}, replicates={self.replicates})"


def run_study(pool: Pool, rows=None, replicates: int = 100, params: AuditParams | None = None, seed: int = 0,
              progress: Progress | None = None, jobs: int = 2, config: AuditorConfig | None = None,
              backend: str = "local", address: str | None = None, client=None) -> Study:
    """Run every (strategy, process) row ``replicates`` times; see the module doc for seeding.

    ``rows`` default to the paper's seven for the pool's style; ``params`` to the style's defaults
    (``AuditParams.gpqa()`` / ``.sdoh()``); ``jobs`` > 1 runs in that many worker processes.
    ``backend="dask"`` runs on Dask instead (:mod:`audit_core.auditing.backends`: a LocalCluster of
    ``jobs`` workers, the scheduler at ``address``, or the ``client`` given); the records are the
    same whatever the backend. ``progress(done, total)`` is called as audits finish.
    """
    import time

    rows = tuple(tuple(r) for r in (rows or paper_rows(pool.style)))
    if not rows:
        raise InputError("study: no (strategy, process) rows given")
    for strategy, process in rows:
        check_row(strategy, process)
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < 1:
        raise InputError(f"replicates: expected a whole number >= 1, got {replicates!r}")
    if replicates * len(rows) > MAX_STUDY_AUDITS:
        raise InputError(f"replicates: {replicates:,} x {len(rows)} row(s) = {replicates * len(rows):,} audits, more "
                         f"than the limit of {MAX_STUDY_AUDITS:,} audits per study (about 30 min on one worker); "
                         f"use at most {max(1, MAX_STUDY_AUDITS // len(rows)):,} replicates, or run several "
                         "studies with different seeds (docs/limits.md)")
    params = params or audit_params(pool.style)
    config = config or AuditorConfig()
    if any(s == "informed" for s, _ in rows):
        pool.suspect_mask(config.suspects)  # fail early, in the caller's process, on bad suspects
    units = [(r, j) for r in range(replicates) for j in range(len(rows))]
    total = len(units)
    started = time.perf_counter()
    records: list[dict] = []
    if backend not in BACKENDS:
        raise InputError(f"backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "dask":
        records = run_units_dask(units, pool, rows, params, config, seed, progress, address,
                                 max(1, int(jobs)), client)
        return _study(pool, rows, replicates, seed, params, config, records, started)
    jobs = max(1, min(int(jobs), os.cpu_count() or 1, total))
    if jobs == 1:
        for done, (r, j) in enumerate(units, start=1):
            records.append(run_unit(pool, rows, params, config, seed, r, j))
            if progress:
                progress(done, total)
    else:
        # Small chunks keep both workers busy to the end and the progress bar moving.
        chunk = max(1, min(8, total // (jobs * 8) or 1))
        chunks = [units[i:i + chunk] for i in range(0, total, chunk)]
        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker,
                                 initargs=(pool, rows, params, config, seed)) as executor:
            futures = [executor.submit(_work, c) for c in chunks]
            done = 0
            for future in as_completed(futures):
                part = future.result()
                records.extend(part)
                done += len(part)
                if progress:
                    progress(done, total)
    return _study(pool, rows, replicates, seed, params, config, records, started)


def _study(pool, rows, replicates, seed, params, config, records, started) -> Study:
    """The :class:`Study` of finished records (any completion order; sorted by row, replicate)."""
    import time

    results = pd.DataFrame.from_records(records).sort_values(["row", "replicate"], kind="stable")
    results = results.reset_index(drop=True)
    return Study(pool_name=pool.name, rows=rows, replicates=int(replicates), seed=int(seed), params=params,
                 config=config, results=results, summary=summarise(results, rows),
                 seconds=time.perf_counter() - started)


def sampling_frequency_vs_accuracy(study_or_runs, pool: Pool, strategy: str = "adaptive",
                                   process: str = DEFAULT_MODEL_PROCESS) -> tuple[pd.DataFrame, float]:
    """How often each stratum was annotated versus its accuracy (paper 001 Figure 3, top left).

    ``study_or_runs``: a :class:`Study` (its ``strategy`` / ``process`` row is used) or a list of
    :class:`AuditRun`. ``frequency`` is the stratum's share of all annotations divided by its
    share of the pool (1 = sampled in proportion); the Spearman correlation is between frequency
    and the stratum's true accuracy (the paper reports rho = -0.84 on SDoH).
    """
    if isinstance(study_or_runs, Study):
        part = study_or_runs.results
        part = part[(part["strategy"] == strategy) & (part["process"] == process)]
        if part.empty:
            raise InputError(f"study has no row {strategy} / {process}")
        case_lists = list(part["cases"])
    else:
        case_lists = [run.cases for run in study_or_runs]
    cases = np.concatenate([np.asarray(c, dtype=int) for c in case_lists]) if case_lists else np.zeros(0, int)
    if cases.size == 0:
        raise InputError("sampling frequency: no annotated cases")
    k = len(pool.stratum_names)
    counts = np.bincount(pool.strata[cases], minlength=k)
    sizes = pool.stratum_sizes()
    share = counts / counts.sum()
    frequency = share / (sizes / sizes.sum())
    accuracy = pool.stratum_accuracy()
    table = pd.DataFrame({"subgroup": pool.stratum_names, "size": sizes, "annotated": counts,
                          "share": share, "frequency": frequency, "accuracy": accuracy})
    table = table.sort_values("accuracy", kind="stable").reset_index(drop=True)
    rho = float(spearmanr(frequency, accuracy).statistic) if k > 2 else math.nan
    return table, rho


def run_paper_studies(keys=GPQA_STUDY_POOLS, replicates: int = 100, seed: int = 0, progress: Progress | None = None,
                      jobs: int = 2, config: AuditorConfig | None = None, **overrides) -> dict[str, Study]:
    """The paper's seven rows on several bundled pools (default: the four GPQA-style settings),
    each with :func:`paper_params` of its style; ``progress(done, total)`` counts audits over all."""
    from audit_core.auditing.pool import load_pool

    pools = {key: load_pool(key) for key in keys}
    total = sum(len(paper_rows(p.style)) * replicates for p in pools.values())
    studies: dict[str, Study] = {}
    offset = 0
    for key, pool in pools.items():
        rows = paper_rows(pool.style)
        report = None if progress is None else (lambda d, _t, base=offset: progress(base + d, total))
        studies[key] = run_study(pool, rows, replicates, paper_params(pool.style, **overrides), seed=seed,
                                 progress=report, jobs=jobs, config=config)
        offset += len(rows) * replicates
    return studies
