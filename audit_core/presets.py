"""Presets and defaults, in one place for the pages, the command line and the engine.

* Parameter styles: ``gpqa`` and ``sdoh`` (the defaults of each live on
  :meth:`AuditParams.gpqa` / :meth:`AuditParams.sdoh`) and :func:`resolve_style`, which picks one;
  the parameters themselves are built by :func:`audit_core.sequential.params.audit_params` and
  :func:`~audit_core.sequential.params.paper_params` (what paper 001's studies used on top of a
  style, :data:`GPQA_STUDY_N_INIT`), beside :class:`AuditParams`: this module builds none.
* The dual test's default pair of processes (:data:`DEFAULT_MODEL_PROCESS`,
  :data:`DEFAULT_AUDITOR_PROCESS`) and each model process's auditor partner (:data:`AUDITOR_FOR`).
* The paper's seven method rows (:func:`paper_rows`).
* Bundled data: which keys are simulation pools, which pool has no failure mode, which recorded
  run the Replay page opens on (the datasets themselves: :data:`audit_core.data.bundled.BUNDLED`).
* The names the engine offers (styles, weight schemes, the six processes, the sampling
  strategies, the multiple-testing methods): defined here, imported by the engine modules that
  implement them, so that the command line builds its parsers (``--help``) without loading numpy.

This module imports nothing heavy at module level (tests/architecture/test_import_cost.py).
"""

from __future__ import annotations

from audit_core.errors import InputError

DEFAULT_STYLE = "gpqa"
STYLES = ("gpqa", "sdoh")  # parameter styles: AuditParams.gpqa() / AuditParams.sdoh()
WEIGHT_SCHEMES = ("uniform", "harmonic")  # changepoint weights of the SR processes

# The six e-processes (audit_core.sequential.processes.PROCESS_SPECS, same order): four for the
# model's null, two for the auditor's.
MODEL_PROCESSES = ("LR", "LR-UI", "SR-LR", "SR-LR-UI")
AUDITOR_PROCESSES = ("AUD-LR", "AUD-LR-UI")
PROCESS_NAMES = MODEL_PROCESSES + AUDITOR_PROCESSES
# The dual test's default pair: the most powerful of each side in paper 001's studies.
DEFAULT_MODEL_PROCESS = "SR-LR-UI"
DEFAULT_AUDITOR_PROCESS = "AUD-LR-UI"

# The dual test's decisions (audit_core.sequential.dual).
FAILURE_FOUND = "failure mode found"
AUDIT_PASSED = "audit passed"
INCONCLUSIVE = "inconclusive"
DECISIONS = (FAILURE_FOUND, AUDIT_PASSED, INCONCLUSIVE)

# Simulation modes (audit_core.analyses.simulate): compare methods, or the observed Type-I error
# on the pool with every subgroup below q lifted to q.
# The subgroup table's two flag columns (views.sequential.subgroup_view; the Replay page labels them).
FAMILY_FLAG = "below q (family-wise)"
SUBGROUP_FLAG = "below q (this subgroup alone)"
SIMULATION_MODES = ("power", "null")

# Sampling strategies (audit_core.auditing.strategies).
STRATEGY_NAMES = ("stratified", "pre-learned", "oracle", "informed", "adaptive")

# Multiple testing over several audits (audit_core.sequential.multiple): methods, null side, time.
E_BH = "e-BH"
E_BONFERRONI = "e-Bonferroni"
MULTIPLE_METHODS = (E_BH, E_BONFERRONI)
MULTIPLE_SIDES = ("model", "auditor")
MULTIPLE_TIMES = ("end", "stop")

# Comparing runs (audit_core.sequential.compare): the pre-registered margin delta of a paired
# difference B - A, the decisions it gives, and what makes ``compare --fail-on`` exit 1.
COMPARE_MARGIN = 0.02
B_BETTER = "B better"
A_BETTER = "A better"
EQUIVALENT = "equivalent within the margin"
NON_INFERIOR = "non-inferior"
CONTINUE = "continue"
INCONCLUSIVE_AT_BUDGET = "inconclusive at the budget"
COMPARE_DECISIONS = (B_BETTER, A_BETTER, EQUIVALENT, NON_INFERIOR, CONTINUE, INCONCLUSIVE_AT_BUDGET)
FAIL_ON = ("worse", "not-non-inferior")
# The column of a long CSV that names each row's run.
RUN_COLUMN = "run"
# The column naming each case's task (lm-eval runs spanning several tasks have it; so may a CSV):
# Compare runs then compares within each task and pooled.
TASK_COLUMN = "task"

# Who a live label is recorded for when no annotator is named.
DEFAULT_ANNOTATOR = "annotator"

# The paper's seven rows (Figure 2): LR with three fixed strategies, then the four model-null
# processes with the adaptive auditor. The SDoH study replaces the oracle by the informed prior.
PAPER_ROWS: tuple[tuple[str, str], ...] = (
    ("stratified", "LR"), ("pre-learned", "LR"), ("oracle", "LR"),
    ("adaptive", "LR"), ("adaptive", "LR-UI"), ("adaptive", "SR-LR"), ("adaptive", "SR-LR-UI"),
)
SDOH_PAPER_ROWS: tuple[tuple[str, str], ...] = tuple(
    ("informed", p) if s == "oracle" else (s, p) for s, p in PAPER_ROWS)

# Auditor's-null partner of each model process: fixed-alternative tests with AUD-LR, UI ones with
# AUD-LR-UI, so that a row compares like with like.
AUDITOR_FOR = {"LR": "AUD-LR", "SR-LR": "AUD-LR", "LR-UI": "AUD-LR-UI", "SR-LR-UI": "AUD-LR-UI"}

# Bundled keys that are simulation pools, in the order the pages list them.
BUNDLED_POOLS = ("gpqa:large", "gpqa:medium", "gpqa:small", "gpqa:none", "sdoh")
GPQA_STUDY_POOLS = ("gpqa:large", "gpqa:medium", "gpqa:small", "gpqa:none")
ALL_GPQA_POOLS = "gpqa:all"  # the four GPQA-style settings at once
NULL_POOL = "gpqa:none"      # every subgroup at or above q: the model's null is true
DEFAULT_RUN = "recorded_run"  # the recorded run the Replay page opens on
EXAMPLE_RESPONSE_LOG = "example"  # the bundled synthetic response log

# The paper's GPQA-style study starts the adaptive auditor with 2 random cases (appendix B.3);
# AuditParams.gpqa() keeps the engine's neutral default of 0.
GPQA_STUDY_N_INIT = 2


def paper_rows(style: str | None) -> tuple[tuple[str, str], ...]:
    """The seven paper rows for a pool style (``sdoh`` uses the informed prior)."""
    return SDOH_PAPER_ROWS if style == "sdoh" else PAPER_ROWS


def resolve_style(chosen: str | None, own: str | None = None) -> str:
    """The parameter style of an analysis, chosen in this one place for every command, call, page
    and report: the user's ``chosen`` style, else the data's ``own`` (a bundled run's or pool's,
    :data:`audit_core.data.bundled.BUNDLED`), else :data:`DEFAULT_STYLE` (docs/e-processes.md,
    Parameters and defaults)."""
    style = chosen or own or DEFAULT_STYLE
    if style not in STYLES:
        raise InputError(f"style: expected one of {', '.join(STYLES)}, got {style!r}")
    return style


def style_of(bundled_key: str | None) -> str:
    """The parameter style of a bundled dataset (the default style for anything else)."""
    from audit_core.data.bundled import BUNDLED  # numpy and pandas (the generators): loaded on use

    dataset = BUNDLED.get(bundled_key) if bundled_key else None
    return dataset.style if dataset else DEFAULT_STYLE


__all__ = [
    "ALL_GPQA_POOLS", "AUDITOR_FOR", "AUDITOR_PROCESSES", "BUNDLED_POOLS", "DEFAULT_ANNOTATOR", "DEFAULT_AUDITOR_PROCESS",
    "DEFAULT_MODEL_PROCESS", "DEFAULT_RUN", "DEFAULT_STYLE", "EXAMPLE_RESPONSE_LOG",
    "GPQA_STUDY_N_INIT", "GPQA_STUDY_POOLS", "NULL_POOL", "PAPER_ROWS", "SDOH_PAPER_ROWS", "STYLES",
    "MODEL_PROCESSES", "PROCESS_NAMES", "STRATEGY_NAMES", "WEIGHT_SCHEMES", "E_BH", "E_BONFERRONI",
    "MULTIPLE_METHODS", "MULTIPLE_SIDES", "MULTIPLE_TIMES", "FAILURE_FOUND", "AUDIT_PASSED", "INCONCLUSIVE",
    "DECISIONS", "COMPARE_MARGIN", "B_BETTER", "A_BETTER", "EQUIVALENT", "NON_INFERIOR", "CONTINUE",
    "INCONCLUSIVE_AT_BUDGET", "COMPARE_DECISIONS", "FAIL_ON", "RUN_COLUMN", "FAMILY_FLAG", "SUBGROUP_FLAG", "SIMULATION_MODES",
    "paper_rows", "resolve_style", "style_of",
]
