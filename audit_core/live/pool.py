"""The pool of a live audit: built from the CSV bytes stored in the workspace and fixed roles.

Column roles are resolved once, when the audit is created (auto-detection by the labelled-audit
loader, or the bundled dataset's roles), and stored with the audit, so reopening it rebuilds
exactly the same pool. The pool's own score column is never given to a strategy: the live pool's
labels are NaN, unless a ``truth`` column is named (for a test of live against simulation, or for
the oracle, which by definition knows the truth); then they are that column's values.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from audit_core.auditing.pool import Pool, build_pool
from audit_core.data.bundled import BUNDLED
from audit_core.data.csvio import read_csv_frame
from audit_core.data.files import read_file
from audit_core.data.loader import AuditData, load_audit_frame
from audit_core.data.sources import read_pool_table
from audit_core.errors import InputError
from audit_core.live.store import sha256  # noqa: F401 (re-exported)

# The loader needs a score role; a pool without labels gets this constant placeholder column.
PLACEHOLDER_SCORE = "_live_unlabelled"
# True per-case accuracy in the bundled pools: never a feature, even when not used as the truth.
TRUTH_NAMES = ("p_correct",)
# Quotas of a shared workspace (issue 18), checked before anything is parsed or stored: every
# `next` rebuilds the pool and the auditor's model (~3 KB per case: 8 members x 49 design columns
# x 8 bytes), so cases bound memory and time; bytes bound what one upload and all audits store.
# Listed in docs/limits.md.
MAX_POOL_BYTES = 20 * 2**20
MAX_POOL_CASES = 20_000
MAX_WORKSPACE_POOL_BYTES = 200 * 2**20


def check_pool_bytes(name: str, size: int) -> None:
    """InputError naming the limit when a pool file of ``size`` bytes is above :data:`MAX_POOL_BYTES`."""
    if size > MAX_POOL_BYTES:
        raise InputError(f"pool {name}: {size / 2**20:.1f} MB; a live audit's pool is at most "
                         f"{MAX_POOL_BYTES // 2**20} MB (its table of cases, not a log)")


def check_pool_cases(name: str, n: int) -> None:
    """InputError naming the limit when a pool has more than :data:`MAX_POOL_CASES` cases."""
    if n > MAX_POOL_CASES:
        raise InputError(f"pool {name}: {n:,} cases; a live audit's pool holds at most {MAX_POOL_CASES:,} cases "
                         f"(an audit labels a few hundred: sample the pool first)")


def pool_source(spec: str, content: bytes | None = None) -> tuple[str, bytes, dict]:
    """(display name, CSV bytes, roles) of a bundled key, or a CSV / Inspect AI log path (or
    given ``content``). An Inspect log is stored as the CSV of its model outputs
    (:func:`~audit_core.data.sources.read_pool_table`), so the audit never needs the log again."""
    if content is not None:
        check_pool_bytes(Path(spec).name or "uploaded pool", len(content))
        return _pool_file(Path(spec).name or "uploaded pool", bytes(content))
    if spec in BUNDLED and spec != "recorded_run":
        info = BUNDLED[spec]
        roles = {"score": info.score, "subgroups": list(info.subgroups), "id": info.id, "text": info.text,
                 "features": list(info.features), "style": info.style, "suspects": list(info.suspects)}
        return info.path.name, info.path.read_bytes(), roles
    path = Path(spec)
    if not path.exists():
        keys = ", ".join(k for k in BUNDLED if k != "recorded_run")
        raise InputError(f"pool {spec!r}: not a bundled pool ({keys}) and not a file")
    check_pool_bytes(path.name, path.stat().st_size)
    return _pool_file(path.name, read_file(path))  # a regular file only (no FIFO, device, /proc)


def _pool_file(name: str, raw: bytes) -> tuple[str, bytes, dict]:
    table = read_pool_table(raw, name)
    return name, table.content, table.roles


def _load(content: bytes, name: str, roles: dict) -> AuditData:
    frame = read_csv_frame(content, name=name)
    score = roles.get("score")
    if score is None and not roles.get("resolved"):
        try:
            return load_audit_frame(frame, name=name, subgroups=roles.get("subgroups"), id=roles.get("id"),
                                    text=roles.get("text"), features=roles.get("features"))
        except InputError as exc:
            if "no score column" not in str(exc):
                raise
    if score is None:
        frame = frame.assign(**{PLACEHOLDER_SCORE: "0"})
        score = PLACEHOLDER_SCORE
    return load_audit_frame(frame, name=name, score=score, subgroups=roles.get("subgroups"), id=roles.get("id"),
                            text=roles.get("text"), features=roles.get("features"))


def resolve_roles(content: bytes, name: str, roles: dict, truth: str | None) -> dict:
    """The roles to store: every role explicit (features without the truth column)."""
    data = _load(content, name, roles)
    excluded = set(TRUTH_NAMES) | ({truth} if truth else set())
    if truth is not None and truth not in data.frame.columns:
        raise InputError(f"pool {name}: truth column {truth!r} not found")
    return {"score": None if data.score == PLACEHOLDER_SCORE else data.score, "subgroups": list(data.subgroups),
            "id": data.id, "text": data.text, "features": [c for c in data.features if c not in excluded],
            "truth": truth, "style": roles.get("style"), "suspects": list(roles.get("suspects") or ()),
            "hidden": [c for c in roles.get("hidden") or () if c != truth], "resolved": True}


def build_live_pool(content: bytes, name: str, roles: dict) -> tuple[Pool, AuditData]:
    """The :class:`Pool` a live strategy sees (labels NaN unless ``roles['truth']``) and the table."""
    data = _load(content, name, roles)
    frame = data.frame
    truth = roles.get("truth")
    labels = np.zeros(len(frame))
    if truth is not None:
        try:
            labels = frame[truth].astype(float).to_numpy()
        except (TypeError, ValueError):
            raise InputError(f"pool {name}: truth column {truth!r} must hold numbers in [0, 1]") from None
    features = roles.get("features") or []
    pool = build_pool(name, labels, frame[features].to_numpy(float) if features else None,
                      frame[list(data.subgroups)].to_numpy(object) if data.subgroups else None,
                      case_ids=frame[data.id].to_numpy() if data.id else None, subgroup_columns=data.subgroups,
                      style=roles.get("style"), suspects=tuple(roles.get("suspects") or ()))
    if truth is None:
        pool = replace(pool, labels=np.full(pool.n, np.nan))   # nothing for a strategy to read
    ids = pool.case_ids
    if len(set(ids.tolist())) != len(ids):
        raise InputError(f"pool {name}: case ids must be unique to label cases by id "
                         f"(column {data.id!r} repeats values)" if data.id else f"pool {name}: duplicate case ids")
    return pool, data
