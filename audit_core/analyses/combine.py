"""Many audits at once: e-BH for the false discovery rate, e-Bonferroni for the family-wise error.

Each audit contributes one e-value (its model process: rejecting means "failure mode found"; or
its auditor process: "audit passed"), after its last case or at its dual stop. e-BH rejects the
largest set R with e_i ≥ K/(α|R|) for every i in R (FDR ≤ α under any dependence, Wang & Ramdas
2022); e-Bonferroni rejects e_i ≥ K/α (FWER ≤ α).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from audit_core.analyses.common import Verdict, plural
from audit_core.analyses.display import Displayed
from audit_core.analyses.replay import typed_run
from audit_core.analyses.sources import run_source
from audit_core.data import jsonio
from audit_core.data.bundled import BUNDLED
from audit_core.data.csvio import decode_utf8
from audit_core.data.files import read_file
from audit_core.errors import InputError
from audit_core.presets import DEFAULT_AUDITOR_PROCESS, DEFAULT_MODEL_PROCESS, resolve_style
from audit_core.report.document import ReportSection
from audit_core.sequential import replay
from audit_core.sequential.multiple import METHODS, MultipleTestResult, audit_e_value, combine
from audit_core.sequential.params import audit_params
from audit_core.views import sequential as views


@dataclass(frozen=True, repr=False)
class CombinedAudits(Displayed):
    """Several audits combined: ``results`` (method → engine result), ``table``, section, verdict."""

    names: tuple[str, ...]
    level: float
    side: str
    at: str
    results: dict = field(repr=False)
    table: pd.DataFrame = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict

    _key_table = "table"

    def to_dict(self) -> dict:
        """The document ``combine --json`` prints: each run's log e-value (None when not finite), its own
        decision and whether each method rejects it, and each method's result."""
        log_e = list(next(iter(self.results.values())).log_e)
        decisions = list(self.table["own decision"])
        return {"level": self.level, "side": self.side, "at": self.at,
                "runs": [{"name": n, "log_e": (e if math.isfinite(e) else None), "own_decision": d,
                          **{m: r.rejected[i] for m, r in self.results.items()}}
                         for i, (n, e, d) in enumerate(zip(self.names, log_e, decisions, strict=True))],
                "methods": {m: r.to_dict() for m, r in self.results.items()}}


def _decision_of(run: Any) -> str | None:
    """The audit's own dual-test decision, from a replay result or its JSON."""
    if isinstance(run, dict):
        decision = run.get("decision")
        return decision.get("decision") if isinstance(decision, dict) else decision
    return run.decision


def combine_audits(runs: Sequence[tuple[str, Any]], level: float = 0.05, side: str = "model", at: str = "end",
                   methods: Sequence[str] = METHODS) -> CombinedAudits:
    """e-BH and/or e-Bonferroni over ``runs`` = (name, replay result or its ``to_dict()``) pairs."""
    names = tuple(name for name, _ in runs)
    log_e = []
    for name, run in runs:
        try:
            log_e.append(audit_e_value(run.to_dict() if hasattr(run, "to_dict") else run, side, at))
        except InputError as exc:
            raise InputError(f"{name}: {exc}") from None
    results: dict[str, MultipleTestResult] = combine(log_e, level, names, methods)
    decisions = [_decision_of(run) for _, run in runs]
    what = "failure modes" if side == "model" else "passed audits"
    verdict = Verdict("neutral", "; ".join(f"{m}: {plural(sum(r.rejected), 'audit')} of {len(names)} rejected"
                                           for m, r in results.items()) + f" ({what}, level {level:g}).",
                      caveat=" ".join(r.guarantee for r in results.values()))
    section = views.combination_section(results, names, decisions, level, f"{len(names)} replayed audits",
                                        verdict=verdict.text)
    return CombinedAudits(names=names, level=level, side=side, at=at, results=results,
                          table=views.combination_table(results, names, decisions), section=section, verdict=verdict)


def _repeated(raws: Sequence[tuple[str, bytes]]) -> None:
    """A run given twice (the same file under two spellings, or a copy) is refused before any run
    is read or replayed: it would count one audit's evidence twice."""
    seen: dict[str, str] = {}
    for name, raw in raws:
        key = hashlib.sha256(raw).hexdigest()  # a folder counts by its resolved path
        if key in seen:
            raise InputError(f"combine: {seen[key]} and {name} are the same run (the same bytes); give each run once")
        seen[key] = name


def _run_document(raw: bytes, name: str) -> Any:
    """A ``replay --json`` document: JSON parsed with the hostile-input bounds."""
    try:
        return jsonio.loads(decode_utf8(raw, f"run {name}", kind="JSON"), f"run {name}")
    except json.JSONDecodeError as exc:
        raise InputError(f"run {name}: not a JSON document (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None


def combine_files(paths: Sequence[str], level: float = 0.05, side: str = "model", at: str = "end",
                  methods: Sequence[str] = METHODS, *, style: str | None = None, q: float | None = None,
                  alpha: float | None = None, m: int | None = None, score: str | None = None,
                  model_process: str = DEFAULT_MODEL_PROCESS,
                  auditor_process: str = DEFAULT_AUDITOR_PROCESS) -> CombinedAudits:
    """:func:`combine_audits` over files: ``replay --json`` documents (``.json``) and labelled runs
    (CSV, logs or bundled runs, each replayed with the parameters of ``style``, else of its own
    style (:func:`audit_core.presets.resolve_style`), overridden by ``q``/``alpha``/``m``).

    Every file is read and checked for repeats first; a labelled run is replayed without building
    its charts (only its e-value trajectories are combined), so 300 runs take seconds."""
    if len(paths) < 2:
        raise InputError("combine: give at least two runs")
    if not 0.0 < level < 1.0:
        raise InputError(f"level: must lie strictly between 0 and 1, got {level}")
    # An lm-eval output folder is read as a folder; every file is read once, here.
    raws = [(str(path), b"" if str(path) in BUNDLED or Path(path).is_dir() else read_file(path)) for path in paths]
    _repeated([(name, raw or str(Path(name).resolve()).encode()) for name, raw in raws])
    runs = []
    for name, raw in raws:
        if Path(name).suffix.lower() == ".json":
            runs.append((name, _run_document(raw, name)))
            continue
        source = run_source(raw or name, name, check=False)
        params = audit_params(resolve_style(style, source.value.style), q=q, alpha=alpha, m=m)
        data = typed_run(source, score=score, subgroups=())
        result = replay(data.scores, params, subgroups=data.subgroup_frame, model_process=model_process,
                        auditor_process=auditor_process)
        runs.append((name, result.to_dict()))
    try:
        return combine_audits(runs, level, side, at, methods)
    except InputError as exc:
        raise InputError(f"combine: {exc}") from None
