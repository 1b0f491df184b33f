"""Simulation use case (paper 001 section 4): repeat whole audits on a pool.

Each row pairs a sampling strategy with an e-process; ``run_study`` repeats each row with fresh
seeded label draws and returns decision rates (with Wilson intervals) and stopping times. On a
pool without a failure mode (``mode="null"``) every "failure mode found" is a Type-I error of the
model's null, shown with its interval next to α.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from audit_core.analyses.common import Verdict
from audit_core.analyses.display import Displayed
from audit_core.analyses.sources import Source
from audit_core.auditing import AuditorConfig, Study, run_study, sampling_frequency_vs_accuracy
from audit_core.errors import InputError
from audit_core.presets import DEFAULT_MODEL_PROCESS, SIMULATION_MODES
from audit_core.report.document import ReportChart, ReportSection, ReportTable
from audit_core.sequential import AuditParams
from audit_core.views import auditing as views


@dataclass(frozen=True)
class SamplingFrequency:
    """How often the adaptive auditor sampled each subgroup against its accuracy (paper 001 Fig. 3)."""

    process: str
    table: pd.DataFrame = field(repr=False)
    spearman_rho: float


@dataclass(frozen=True, repr=False)
class StudySimulation(Displayed):
    """A simulation study.

    Attributes
    ----------
    study : the engine's :class:`~audit_core.auditing.Study`.
    lifted_subgroups : null mode: the subgroups that were below q, lifted to q before the audits.
    summary_table : one row per method; type_one_table : observed Type-I error per row (null mode).
    sampling : sampling frequency vs accuracy of an adaptive row (None without one, or with fewer
        than three subgroups).
    outcome_chart, stop_chart, frequency_chart : Vega-Lite specs; section; verdict.
    """

    source: Source
    mode: str
    params: AuditParams
    replicates: int
    seed: int
    study: Study = field(repr=False)
    lifted_subgroups: tuple[str, ...] = field(repr=False)
    summary_table: pd.DataFrame = field(repr=False)
    type_one_table: pd.DataFrame | None = field(repr=False)
    sampling: SamplingFrequency | None = field(repr=False)
    outcome_chart: dict = field(repr=False)
    stop_chart: dict = field(repr=False)
    frequency_chart: dict | None = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict

    _key_table = "summary_table"
    _key_chart = "outcome_chart"

    def to_dict(self) -> dict:
        """The document ``simulate --json`` prints: the study's records, wall-clock fields moved under
        one ``timing`` key (total seconds, seconds per audit per row in row order) so that everything
        else is identical across runs with the same seed, and the sampling frequency of an adaptive row."""
        payload = self.study.to_dict()
        payload["mode"] = self.mode
        if self.mode == "null":
            payload["lifted_subgroups"] = list(self.lifted_subgroups)
        per_row = [row.pop("seconds_per_audit", None) for row in payload["rows"]]
        payload["timing"] = {"seconds": payload.pop("seconds"), "seconds_per_audit": per_row}
        if self.sampling is not None:
            payload["sampling_frequency"] = {
                "strategy": "adaptive", "process": self.sampling.process,
                "spearman_rho": round(self.sampling.spearman_rho, 4),
                "subgroups": [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in rec.items()}
                              for rec in self.sampling.table.to_dict(orient="records")]}
        return payload


def _sampling(study: Study, pool) -> SamplingFrequency | None:
    adaptive = [p for s, p in study.rows if s == "adaptive"]
    if not adaptive or len(pool.stratum_names) < 3:
        return None
    process = DEFAULT_MODEL_PROCESS if DEFAULT_MODEL_PROCESS in adaptive else adaptive[0]
    table, rho = sampling_frequency_vs_accuracy(study, pool, "adaptive", process)
    return SamplingFrequency(process, table, float(rho))


def _verdict(mode: str, summary: pd.DataFrame, type_one: pd.DataFrame | None, alpha: float,
             lifted: tuple[str, ...] = ()) -> Verdict:
    if mode == "null" and type_one is not None:
        worst = type_one.sort_values("observed Type-I error", kind="stable").iloc[-1]
        above = type_one[type_one["observed Type-I error"] > alpha]
        tone = "good" if above.empty else "bad"
        return Verdict(tone, f"Highest observed Type-I error {worst['observed Type-I error']:.3f} "
                             f"(95% CI {worst['95% CI low']:.3f}–{worst['95% CI high']:.3f}, {worst['method']}) "
                             f"against α = {alpha:g}.",
                       "Anytime validity promises a rate of at most α; with few replicates a row can exceed it by "
                       "chance, so read the interval."
                       + (f" {len(lifted)} subgroup(s) below q were lifted to q first, so the model's null holds."
                          if lifted else ""))
    best = summary.sort_values(["failure_found", "stop_median"], ascending=[False, True], kind="stable").iloc[0]
    return Verdict("neutral", f"Most powerful row: {best['method']}, failure mode found in "
                              f"{best['failure_found']:.0%} of replicates (median stop {best['stop_median']:g}).")


def simulate_study(pool: Source, rows: Sequence[tuple[str, str]], replicates: int, params: AuditParams,
                   seed: int = 0, mode: str = "power", progress: Callable[[int, int], None] | None = None,
                   jobs: int | None = None, config: AuditorConfig | None = None, backend: str = "local",
                   address: str | None = None) -> StudySimulation:
    """``run_study`` of the rows on the pool, with tables, charts, report section and verdict.

    ``mode="null"``: every subgroup below q is first lifted to q (:meth:`Pool.lifted_to
    <audit_core.auditing.pool.Pool.lifted_to>`), so the model's null holds and every "failure mode
    found" is a Type-I error; ``lifted_subgroups`` names them.
    ``backend``: "local" (a process pool on this machine) or "dask" (a LocalCluster, or the
    cluster at ``address``); the results are the same whatever the backend.
    """
    if mode not in SIMULATION_MODES:
        raise InputError(f"mode: expected one of {', '.join(SIMULATION_MODES)}, got {mode!r}")
    lifted: tuple[str, ...] = ()
    if mode == "null":  # the model's null made true: every subgroup below q lifted to q
        lifted_pool, lifted = pool.value.lifted_to(params.q)
        pool = replace(pool, value=lifted_pool)
    kwargs = {"backend": backend, "address": address}
    if jobs is not None:
        kwargs["jobs"] = jobs
    if config is not None:
        kwargs["config"] = config
    study = run_study(pool.value, list(rows), replicates, params, seed, progress=progress, **kwargs)
    summary, _ = views.study_tables(study)
    type_one = views.type_one_error_table(study, params.alpha) if mode == "null" else None
    outcome_chart, stop_chart = views.study_specs(study)
    sampling = _sampling(study, pool.value)
    charts = [ReportChart("Audit outcomes per method", outcome_chart), ReportChart("Stopping times", stop_chart)]
    frequency_chart = None
    if sampling is not None:
        frequency_chart = views.sampling_frequency_spec(sampling.table, sampling.spearman_rho, sampling.process)
        charts.append(ReportChart(f"Sampling frequency vs accuracy (adaptive · {sampling.process})", frequency_chart))
    verdict = _verdict(mode, summary, type_one, params.alpha, lifted)
    title = ("Simulation study" if mode == "power" else "Null validity (Type-I error)") + f" on {pool.name}"
    section = views.study_section(
        study, title, source=pool.description,
        parameters={**params.to_dict(), "replicates": replicates, "seed": seed}, charts=charts,
        key="simulate" if mode == "power" else "null_validity",
        extra_tables=(ReportTable("Observed Type-I error per row", type_one),) if type_one is not None else (),
        verdict=verdict.text)
    return StudySimulation(source=pool, mode=mode, params=params, replicates=replicates, seed=seed, study=study,
                           lifted_subgroups=lifted,
                           summary_table=summary, type_one_table=type_one, sampling=sampling,
                           outcome_chart=outcome_chart, stop_chart=stop_chart, frequency_chart=frequency_chart,
                           section=section, verdict=verdict)
