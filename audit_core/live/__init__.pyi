"""Names of :mod:`audit_core.live`, loaded on first use (``lazy_loader`` reads this stub)."""

from .export import ExportResult, export_csv, export_frame
from .records import LabelRecord, LiveProposal, LiveStatus, SkipRecord
from .session import LIVE_STRATEGIES, LiveAudit, check_reason, check_score, open_audit
from .store import SCHEMA_VERSION, audit_home, connect, default_db_path, list_audits

__all__ = [
    "audit_home", "check_reason", "check_score", "connect", "default_db_path", "export_csv", "export_frame",
    "ExportResult", "LabelRecord", "list_audits", "LIVE_STRATEGIES", "LiveAudit", "LiveProposal",
    "LiveStatus", "open_audit", "SCHEMA_VERSION", "SkipRecord",
]
