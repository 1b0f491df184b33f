"""The choices a page offers (estimands, processes, styles, bundled data, the paper's presets and
parameters), re-exported by :mod:`audit_core.analyses` so that pages import the use-case layer and
nothing below it; each from the lightest module that defines it."""

from __future__ import annotations

from audit_core.data.bundled import BUNDLED
from audit_core.identify.estimands import ESTIMANDS, available_estimands, estimand_unavailable
from audit_core.presets import (
    AUDITOR_PROCESSES,
    BUNDLED_POOLS,
    COMPARE_MARGIN,
    DEFAULT_AUDITOR_PROCESS,
    DEFAULT_MODEL_PROCESS,
    DEFAULT_RUN,
    FAMILY_FLAG,
    MODEL_PROCESSES,
    NULL_POOL,
    STRATEGY_NAMES,
    STYLES,
    SUBGROUP_FLAG,
    paper_rows,
    resolve_style,
)
from audit_core.sequential.params import AuditParams, audit_params, paper_params

__all__ = [
    "audit_params", "AUDITOR_PROCESSES", "AuditParams", "available_estimands", "BUNDLED", "BUNDLED_POOLS",
    "COMPARE_MARGIN", "DEFAULT_AUDITOR_PROCESS", "DEFAULT_MODEL_PROCESS", "DEFAULT_RUN",
    "estimand_unavailable", "ESTIMANDS", "MODEL_PROCESSES", "NULL_POOL", "paper_params", "paper_rows",
    "resolve_style", "STRATEGY_NAMES", "STYLES", "FAMILY_FLAG", "SUBGROUP_FLAG",
]
