"""Live adaptive audits (paper 001 run for real; issue 10).

* :mod:`.store`: the SQLite workspace (WAL, append-only event log, schema migrations).
* :mod:`.pool`: the pool a live strategy sees, rebuilt from the stored CSV and fixed roles.
* :mod:`.session`: :class:`LiveAudit` (create, next, label, skip, undo, status), state rebuilt from events.
* :mod:`.export`: the labelled CSV in the recorded-run format, whose replay equals the live run.
"""

from audit_core._lazy import lazy_exports

# submodule -> the names it defines; each submodule is imported when one of its names is first used
_EXPORTS = {
    "export": ("ExportResult", "export_csv", "export_frame"),
    "records": ("LabelRecord", "LiveProposal", "LiveStatus", "SkipRecord"),
    "session": ("LIVE_STRATEGIES", "LiveAudit", "check_reason", "check_score", "open_audit"),
    "store": ("SCHEMA_VERSION", "audit_home", "connect", "default_db_path", "list_audits"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "LIVE_STRATEGIES", "SCHEMA_VERSION", "ExportResult", "LabelRecord", "LiveAudit", "LiveProposal", "LiveStatus",
    "SkipRecord", "check_reason",
    "audit_home", "check_score", "connect", "default_db_path", "export_csv", "export_frame", "list_audits",
    "open_audit",
]
