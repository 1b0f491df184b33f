"""Seeded SYNTHETIC response log: ``data/example_response_log.csv`` (no real model was run).

Two made-up models answer 24 clusters on all 36 cells of the frozen layout. Each (model, cluster)
unit behaves as one of the seven frozen policies of paper 000, drawn with model-specific
probabilities; afterwards each generated-choice cell is replaced by ``INVALID`` with a
model-specific probability (candidate scoring always yields a valid letter). Clusters cycle
through the six transition directions base label -> target label (the sham keeps the base label).
The frozen policies are written for the reference oracle (TRUE, UNKNOWN, TRUE); here they are the
same behaviours relative to each cluster's oracle, and with the reference oracle they give exactly
the frozen class's responses (tested). ``python -m audit_core.measure.example`` rewrites the file.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from audit_core.identify.cells import support_cells_of
from audit_core.identify.policies import (
    CANONICAL_MAPPING,
    FROZEN_AXES,
    FROZEN_BASE,
    FROZEN_COMPONENTS,
    FROZEN_POLICIES,
    LABELS,
    letter,
)
from audit_core.project import project_path

EXAMPLE_PATH = project_path("data", "example_response_log.csv")  # checkout or install (audit_core/project.py)
EXAMPLE_SEED = 20260430
N_CLUSTERS = 24
# Made-up behaviour mixes (weights per frozen policy, in FROZEN_POLICIES order) and INVALID rates.
MODELS = {
    "synthetic-model-A": {"weights": (0.10, 0.40, 0.05, 0.15, 0.10, 0.10, 0.10), "invalid_generated": 0.35},
    "synthetic-model-B": {"weights": (0.25, 0.20, 0.15, 0.05, 0.15, 0.10, 0.10), "invalid_generated": 0.15},
}
DIRECTIONS = tuple((a, b) for a in LABELS for b in LABELS if a != b)


def policy_response(policy: str, oracle: dict[str, str], world: str, mapping: str, readout: str) -> str:
    """The letter a frozen policy answers in a cell, relative to a cluster's oracle labels.

    Same behaviours as docs/identification.md: ideal = the world's oracle label; inertia = base label;
    reactor = base label on base, target label on target and sham; fixed label = the letter the
    canonical mapping gives the base label; mapping shortcut = ideal under the canonical mapping,
    inertia otherwise; generated-only failure = in scoring on edited worlds the label that is
    neither the base nor the target label; scoring-only success = ideal in scoring, inertia in
    generated choice.
    """
    base, target = oracle["base"], oracle["target"]
    ideal = letter(mapping, oracle[world])
    inert = letter(mapping, base)
    if policy == "ideal":
        return ideal
    if policy == "target_inertia":
        return inert
    if policy == "any_edit_reactor":
        return inert if world == "base" else letter(mapping, target)
    if policy == "fixed_label":
        return letter(CANONICAL_MAPPING, base)
    if policy == "mapping_shortcut":
        return ideal if mapping == CANONICAL_MAPPING else inert
    if policy == "generated_only_failure":
        if readout == "generated" or world == "base":
            return ideal
        return letter(mapping, next(label for label in LABELS if label not in (base, target)))
    if policy == "scoring_only_success":
        return ideal if readout == "scoring" else inert
    raise ValueError(f"unknown frozen policy {policy!r}")


def example_log_csv(seed: int = EXAMPLE_SEED, n_clusters: int = N_CLUSTERS) -> str:
    """The CSV text: model, cluster, cell, response, oracle, generating_policy (for reference)."""
    rng = np.random.default_rng(seed)
    cells = support_cells_of(FROZEN_AXES, FROZEN_BASE, FROZEN_COMPONENTS, list(FROZEN_COMPONENTS))
    names = [name for name, _, _ in FROZEN_POLICIES]
    out = io.StringIO()
    out.write("model,cluster,cell,response,oracle,generating_policy\n")
    for model, spec in MODELS.items():
        chosen = rng.choice(len(names), size=n_clusters, p=np.asarray(spec["weights"]))
        invalid = rng.random((n_clusters, len(cells))) < spec["invalid_generated"]
        for k in range(n_clusters):
            base, target = DIRECTIONS[k % len(DIRECTIONS)]
            oracle = {"base": base, "target": target, "sham": base}
            policy = names[int(chosen[k])]
            for c, cell in enumerate(cells):
                world, mapping, readout = cell.split(":")
                response = policy_response(policy, oracle, world, mapping, readout)
                if readout == "generated" and invalid[k, c]:
                    response = "INVALID"
                out.write(f"{model},cluster-{k + 1:02d},{cell},{response},{oracle[world]},{policy}\n")
    return out.getvalue()


def write_example_log(path: Path = EXAMPLE_PATH) -> Path:
    path.write_bytes(example_log_csv().encode("utf-8"))
    return path


if __name__ == "__main__":
    print(f"wrote {write_example_log()}")
