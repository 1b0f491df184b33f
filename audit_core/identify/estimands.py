"""Estimands: which 0/1 property τ(h) of a policy the audit asks the support to identify.

The built-in estimands compare a policy with the class's oracle (correct response per cell):
τ_full on every full-support cell, static correctness on the base cells, local response on the
cells that vary only the first axis (the world) around the base. ``file`` is τ as given per policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit_core.errors import InputError
from audit_core.identify.cells import product_cells

if TYPE_CHECKING:
    import numpy as np

    from audit_core.identify.policies import PolicyClass

ESTIMANDS: dict[str, str] = {
    "tau_full": "full-support selective response: agrees with the oracle in every cell (base-correct, "
    "follows the target, stays on sham, both readouts, all mappings); τ from the file if no oracle",
    "static_correctness": "static correctness: agrees with the oracle on the base support "
    "(the canonical base cell)",
    "local_response": "local response: base-correct, follows the target and stays on sham on the "
    "canonical cells (first axis varied, all other axes at their base values)",
    "file": "τ exactly as given per policy in the policy file",
}


def estimand_cells(pc: PolicyClass, estimand: str) -> tuple[str, ...]:
    """Cells on which an oracle-based estimand requires agreement with the oracle."""
    if estimand == "tau_full":
        return pc.cells
    if estimand == "static_correctness":
        return product_cells(pc.base)
    if estimand == "local_response":
        first = next(iter(pc.axes))
        values = {a: (pc.axes[a] if a == first else pc.base[a]) for a in pc.axes}
        return product_cells(values)
    raise InputError(f"estimand {estimand!r} is not oracle-based")


def estimand_unavailable(pc: PolicyClass, estimand: str) -> str | None:
    """Why ``pc`` cannot evaluate ``estimand`` (None when it can): the oracle-based estimands need
    the class's oracle (``tau_full`` falls back to τ per policy), ``file`` needs τ per policy."""
    if estimand not in ESTIMANDS:
        return f"unknown estimand {estimand!r} (choose from {', '.join(ESTIMANDS)})"
    if estimand == "file" or (estimand == "tau_full" and pc.oracle is None):
        return None if pc.tau is not None else f"estimand {estimand!r} needs τ per policy in the file (or an oracle)"
    if pc.oracle is None:
        return f"estimand {estimand!r} needs an 'oracle' (correct response per cell) in the file"
    return None


def available_estimands(pc: PolicyClass) -> tuple[str, ...]:
    """The estimands ``pc`` can evaluate, in the order of :data:`ESTIMANDS`."""
    return tuple(e for e in ESTIMANDS if estimand_unavailable(pc, e) is None)


def estimand_values(pc: PolicyClass, estimand: str = "tau_full") -> np.ndarray:
    """τ(h) in {0, 1} for every deterministic policy of ``pc`` (int8 array in ``pc.names`` order)."""
    import numpy as np  # here, not at module level: ESTIMANDS is the CLI's choices, read without numpy

    why = estimand_unavailable(pc, estimand)
    if why is not None:
        raise InputError(why if estimand not in ESTIMANDS else f"{pc.source}: {why}")
    if estimand == "file" or (estimand == "tau_full" and pc.oracle is None):
        return pc.tau.astype(np.int8, copy=True)
    cols = pc.columns(estimand_cells(pc, estimand))
    codes = {s: i for i, s in enumerate(pc.codebook)}
    # An oracle response that no policy ever gives cannot be matched: code -1.
    oracle = np.array([codes.get(pc.oracle[c], -1) for c in cols], dtype=np.int64)
    return np.all(pc.responses[:, cols].astype(np.int64) == oracle[None, :], axis=1).astype(np.int8)
