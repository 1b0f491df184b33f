"""Generated policy classes for synthesis at scale (issue 12): random dense and behaviour-composed.

``random_dense_class``: every response drawn uniformly from three codes, τ ~ Bernoulli(p) given in
the file (estimand ``file``). Distinguishing sets cover about two thirds of the cells, so the LP
bound is small and proving optimality is hard for every solver: the honest-bound case.

``behaviour_class``: the frozen policies' behaviour vocabulary over a larger protocol (paper 000,
section 3 generalised): worlds ``base``, ``target_k`` and ``sham_k`` with solver labels, six
mappings and several readouts. A policy answers each (world, readout) block with one behaviour:
ideal, inertia (the base answer), any-edit (the edited label on every non-base world),
fixed-label (the letter ABC gives the base answer, whatever the mapping), mapping-conditional
(ideal under ABC only) or a readout-specific failure (the FALSE letter). Policies are the ideal one
plus distinct random compositions of a default behaviour and a few per-world / per-readout
exceptions; τ is τ_full from the oracle.
"""

from __future__ import annotations

import numpy as np

from audit_core.errors import InputError
from audit_core.identify.cells import split_cell_id, support_cells_of
from audit_core.identify.policies import MAPPINGS, PolicyClass, build_policy_class, letter

BEHAVIOURS = ("ideal", "inertia", "any_edit", "fixed_label", "mapping_conditional", "false_letter")


def random_dense_class(rng: np.random.Generator, n: int = 300, m: int = 200, p_tau: float = 0.3) -> PolicyClass:
    """``n`` policies x ``m`` cells of uniform responses over three codes; τ = 1 with probability ``p_tau``."""
    rows = rng.integers(0, 3, size=(n, m))
    tau = (rng.random(n) < p_tau).astype(int)
    cells = [f"c{j:03d}" for j in range(m)]
    names = [f"h{i:04d}" for i in range(n)]
    return build_policy_class(
        {"cell": cells}, {"cell": [cells[0]]}, {"rest": {"cell": cells[1:]}},
        {name: dict(zip(cells, map(str, row), strict=True)) for name, row in zip(names, rows, strict=True)},
        tau=dict(zip(names, tau.tolist(), strict=True)), source=f"random {n}x{m}",
    )


def _oracle_labels(n_targets: int, n_shams: int) -> dict[str, str]:
    """Base TRUE; targets cycle through the edited labels FALSE, UNKNOWN; shams keep TRUE."""
    labels = {"base": "TRUE"}
    labels.update({f"target{k}": ("UNKNOWN", "FALSE")[k % 2] for k in range(n_targets)})
    labels.update({f"sham{k}": "TRUE" for k in range(n_shams)})
    return labels


def _answer(behaviour: str, label: str, base_label: str, world: str, mapping: str) -> str:
    if behaviour == "ideal":
        return letter(mapping, label)
    if behaviour == "inertia":
        return letter(mapping, base_label)
    if behaviour == "any_edit":
        return letter(mapping, base_label if world == "base" else "UNKNOWN")
    if behaviour == "fixed_label":
        return letter("ABC", base_label)
    if behaviour == "mapping_conditional":
        return letter(mapping, label if mapping == "ABC" else base_label)
    return letter(mapping, "FALSE")


def behaviour_class(rng: np.random.Generator, n: int = 1000, n_targets: int = 6, n_shams: int = 5,
                    n_readouts: int = 4, max_exceptions: int = 3, tau: str = "full") -> PolicyClass:
    """``n`` distinct policies over (1 + targets + shams) worlds x 6 mappings x ``n_readouts`` readouts.

    Defaults give 12 x 6 x 4 = 288 cells. Each non-ideal policy has a default behaviour and 1 to
    ``max_exceptions`` exceptions, each on one world (all readouts) or one (world, readout) block.
    ``tau="full"``: τ_full (only the ideal policy has τ = 1); ``tau="targets"``: τ = 1 for a policy
    answering every target-world cell as the oracle does (many τ = 1 policies, estimand ``file``).
    """
    oracle_of = _oracle_labels(n_targets, n_shams)
    worlds = tuple(oracle_of)
    readouts = ("generated",) + tuple(f"scoring{k}" for k in range(1, n_readouts))
    axes = {"world": worlds, "mapping": MAPPINGS, "readout": readouts}
    base = {"world": ("base",), "mapping": ("ABC",), "readout": ("generated",)}
    components = {"target": {"world": tuple(w for w in worlds if w.startswith("target"))},
                  "sham": {"world": tuple(w for w in worlds if w.startswith("sham"))},
                  "readout": {"readout": readouts[1:]}, "mapping": {"mapping": MAPPINGS[1:]}}
    cells = support_cells_of(axes, base, components, list(components))
    parts = [split_cell_id(c) for c in cells]
    block = {(w, r): [i for i, (w2, _, r2) in enumerate(parts) if w2 == w and r2 == r] for w in worlds for r in readouts}
    answers = {b: [_answer(b, oracle_of[w], "TRUE", w, m) for w, m, _ in parts] for b in BEHAVIOURS}
    codes = {b: np.asarray(["ABC".index(x) for x in answers[b]]) for b in BEHAVIOURS}
    rows = {tuple(codes["ideal"].tolist()): "ideal"}
    while len(rows) < n:
        row = codes[rng.choice(BEHAVIOURS)].copy()
        for _ in range(rng.integers(1, max_exceptions + 1)):
            b = BEHAVIOURS[rng.integers(len(BEHAVIOURS))]
            w = worlds[rng.integers(len(worlds))]
            rs = readouts if rng.random() < 0.5 else (readouts[rng.integers(len(readouts))],)
            for r in rs:
                row[block[(w, r)]] = codes[b][block[(w, r)]]
        rows.setdefault(tuple(row.tolist()), f"h{len(rows):04d}")
    policies = {name: {c: "ABC"[v] for c, v in zip(cells, row, strict=True)} for row, name in rows.items()}
    oracle = dict(zip(cells, answers["ideal"], strict=True))
    if tau not in ("full", "targets"):
        raise InputError(f"behaviour class: tau must be 'full' or 'targets', got {tau!r}")
    scope = [c for c, (w, _, _) in zip(cells, parts, strict=True) if tau == "full" or w.startswith("target")]
    tau_of = {name: int(all(policies[name][c] == oracle[c] for c in scope)) for name in policies}
    return build_policy_class(axes, base, components, policies, tau=tau_of, oracle=oracle,
                              source=f"behaviour class {n}x{len(cells)}")
