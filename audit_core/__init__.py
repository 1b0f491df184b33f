"""Evaluation Audit Workbench engine.

In a notebook or a script, one call per thing a user does (the command line's vocabulary; see
:mod:`audit_core.api` and docs/python.md)::

    import audit_core
    audit_core.replay("logs/run.eval", score="match", subgroup="subject")
    audit_core.plan(subgroups=[120, 160, 168], failing_accuracy=0.6)
    audit_core.identify_support("target,sham")

Underneath, importable without Streamlit:

* :mod:`audit_core.identify` -- protocol-level identifiability audit (paper 000).
* :mod:`audit_core.sequential` -- anytime-valid dual e-processes (paper 001).

plus :mod:`audit_core.auditing` (sampling strategies, simulation studies), :mod:`audit_core.data`
(the readers of CSVs, Inspect AI and lm-eval logs, bundled example data), :mod:`audit_core.analyses`
(the use cases shared by the dashboard, the command line and this API) and :mod:`audit_core.report`
(HTML / Markdown / PDF / JSON reports).

The public calls are loaded on first use, so ``import audit_core`` imports no numerical library.
"""

from audit_core.errors import InputError

__version__ = "0.3.0"

# The calls of audit_core.api, reachable as audit_core.<name>; the module loads on first access.
API_NAMES = (
    "identify_support", "support_lattice", "synthesize", "generate_testbed", "check_testbed", "measure_log",
    "replay", "confidence_sequence", "simulate", "plan", "plan_early_stopping", "compare", "combine", "audit_new", "audit_next", "audit_label", "audit_skip",
    "audit_undo", "audit_status", "audit_list", "audit_export", "audit_copy", "audit_agreement", "audit_adjudicate",
    "audit_trail", "write_report",
)

__all__ = ["InputError", "__version__", *API_NAMES]


def __getattr__(name: str):
    if name in API_NAMES:
        from audit_core import api
        return getattr(api, name)
    raise AttributeError(f"module 'audit_core' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(API_NAMES))
