"""Shared set-up of the live-audit tests: a fresh workspace and a loop that labels from the truth."""

from __future__ import annotations

from audit_core.live import LiveAudit, connect


def workspace(db, name: str = "workspace.sqlite"):
    """A connection to ``db`` (the ``db`` fixture's file path or URL), or to ``name`` in a folder."""
    if isinstance(db, str) or str(db).endswith(".sqlite"):
        return connect(db)
    return connect(db / name)


def label_to_end(audit: LiveAudit, annotator: str = "ann", limit: int = 10_000) -> int:
    """next → label with the truth column, one case at a time, until the audit is done."""
    labelled = 0
    while labelled < limit:
        proposals = audit.next(annotator)
        if not proposals:
            break
        for p in proposals:
            audit.label(p.case_id, audit.truth(p.case_id), annotator)
            labelled += 1
    return labelled
