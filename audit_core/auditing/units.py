"""One audit of a study, a pure function of its unit (replicate, row), run by every backend.

Seeds (see :mod:`audit_core.auditing.study`): replicate ``r`` of a study seeded ``s`` draws its
labels from ``SeedSequence(s, spawn_key=(r, 0))`` and the row (strategy, process) runs its strategy
with ``SeedSequence(s, spawn_key=(r, 1, crc32("strategy|process")))``.
"""

from __future__ import annotations

import zlib

import numpy as np

from audit_core.auditing.pool import Pool
from audit_core.auditing.strategies import AuditorConfig, AuditRun, draw_labels, run_audit
from audit_core.sequential import AUDIT_PASSED, FAILURE_FOUND, INCONCLUSIVE, AuditParams


def row_seed_key(strategy: str, process: str) -> int:
    """A stable integer for a row, so its strategy seed does not depend on the row's position."""
    return zlib.crc32(f"{strategy}|{process}".encode())


def replicate_seeds(seed: int, replicate: int, row: tuple[str, str]) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """(label seed, strategy seed) of one audit; independent of execution order and other rows."""
    return (np.random.SeedSequence(seed, spawn_key=(replicate, 0)),
            np.random.SeedSequence(seed, spawn_key=(replicate, 1, row_seed_key(*row))))


def run_unit(pool: Pool, rows, params: AuditParams, config: AuditorConfig, seed: int,
             replicate: int, row: int) -> dict:
    """Audit ``row`` of replicate ``replicate``: its labels and its strategy seeded as the module says."""
    strategy, process = rows[row]
    label_seed, run_seed = replicate_seeds(seed, replicate, rows[row])
    labels = draw_labels(pool, np.random.default_rng(label_seed))
    run = run_audit(pool, strategy, process, params, seed=run_seed, config=config, labels=labels)
    return _record(run, replicate, row)


def _record(run: AuditRun, replicate: int, row: int) -> dict:
    return {"row": row, "strategy": run.strategy, "process": run.process,
            "auditor_process": run.auditor_process, "replicate": replicate, "decision": run.decision,
            "failure_found": run.decision == FAILURE_FOUND, "passed": run.decision == AUDIT_PASSED,
            "inconclusive": run.decision == INCONCLUSIVE, "stop": run.stop, "n_annotated": run.n,
            "seconds": run.seconds, "cases": run.cases.astype(np.int32)}
