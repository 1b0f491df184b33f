"""Distinguishing-cell sets of cross-estimand pairs, as bitmasks (paper 000, protocol synthesis).

For a pair (h, h') with τ(h) ≠ τ(h'), D(h, h') is the set of full-support cells where their
responses differ; a support identifies τ iff it meets every D (Theorem 1). Rows are deduplicated
within each τ group first (equal rows give equal sets), then each unique τ=1 row is compared with
each unique τ=0 row. Sets are packed into ``uint64`` words (one word up to 64 cells).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from audit_core.errors import InputError
from audit_core.identify.equivalence import row_classes
from audit_core.identify.estimands import estimand_values
from audit_core.identify.policies import PolicyClass

# Boolean pair x cell matrix kept in memory at once (about 400 MB).
MAX_PAIR_CELLS = 400_000_000


def pack_sets(member: np.ndarray) -> np.ndarray:
    """Pack a ``k x n_cells`` boolean matrix into ``k x ceil(n_cells/64)`` uint64 words."""
    k, n = member.shape
    words = max(1, -(-n // 64))
    packed = np.packbits(member, axis=1, bitorder="little")
    padded = np.zeros((k, words * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view(np.uint64)


def unpack_sets(words: np.ndarray, n_cells: int) -> np.ndarray:
    """Inverse of :func:`pack_sets`."""
    bits = np.unpackbits(np.ascontiguousarray(words).view(np.uint8), axis=1, bitorder="little")
    return bits[:, :n_cells].astype(bool)


@dataclass(frozen=True, eq=False)
class PairSets:
    """Distinguishing sets between unique τ=1 rows and unique τ=0 rows.

    ``ones[i]`` / ``zeros[j]``: policy indices sharing unique row i / j; ``differ[i, j]`` is the
    boolean cell mask where those rows differ (``m1 x m0 x n_cells``).
    """

    ones: tuple[np.ndarray, ...]
    zeros: tuple[np.ndarray, ...]
    differ: np.ndarray

    def __repr__(self) -> str:
        return f"PairSets({len(self.ones)} x {len(self.zeros)} unique rows)"


def _groups(codes: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """Unique rows among ``codes[idx]``: representative rows and the policy indices of each."""
    if idx.size == 0:
        return codes[:0], ()
    labels, k = row_classes(codes[idx])
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    members = tuple(idx[g] for g in np.split(order, bounds))
    return codes[[m[0] for m in members]], members


def pair_sets(pc: PolicyClass, tau: np.ndarray) -> PairSets:
    """Distinguishing masks over the full support for every (unique τ=1 row, unique τ=0 row)."""
    rows1, ones = _groups(pc.responses, np.flatnonzero(tau == 1))
    rows0, zeros = _groups(pc.responses, np.flatnonzero(tau == 0))
    size = len(ones) * len(zeros) * len(pc.cells)
    if size > MAX_PAIR_CELLS:
        raise InputError(
            f"{pc.source}: {len(ones)} x {len(zeros)} distinct τ=1/τ=0 response rows over {len(pc.cells)} cells "
            f"is too large for pairwise distinguishing sets (limit {MAX_PAIR_CELLS:,} pair-cells)"
        )
    differ = rows1[:, None, :] != rows0[None, :, :]
    return PairSets(ones, zeros, differ)


def distinguishing_cells(pc: PolicyClass, estimand: str = "tau_full") -> dict[tuple[str, str], tuple[str, ...]]:
    """D(a, b) for every cross-estimand pair (a with τ=1, b with τ=0), cells in canonical order.

    An empty tuple marks a pair that no support can separate.
    """
    sets = pair_sets(pc, estimand_values(pc, estimand))
    cells = np.asarray(pc.cells, dtype=object)
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    for i, ones in enumerate(sets.ones):
        for j, zeros in enumerate(sets.zeros):
            d = tuple(cells[sets.differ[i, j]])
            for a in ones:
                for b in zeros:
                    out[(pc.names[a], pc.names[b])] = d
    index = pc.policy_index
    return dict(sorted(out.items(), key=lambda kv: (index[kv[0][0]], index[kv[0][1]])))
