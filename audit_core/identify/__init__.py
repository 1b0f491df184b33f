"""Protocol-level identifiability audit (paper 000; docs/identification.md).

Cells and supports, finite policy classes (the frozen seven + mixture, JSON, long CSV),
estimands, equivalence classes and cross-estimand collisions, the component lattice with
leave-one-out witnesses, distinguishing-cell sets and minimum identifying supports (CP-SAT).
"""

from audit_core._lazy import lazy_exports

# submodule -> the names it defines; each submodule is imported when one of its names is first used
_EXPORTS = {
    "cells": ("cell_id", "parse_cell_id", "split_cell_id"),
    "distinguish": ("distinguishing_cells",),
    "equivalence": ("Identification", "MixtureReport", "collision_count", "identify", "row_classes"),
    "estimands": ("ESTIMANDS", "available_estimands", "estimand_unavailable", "estimand_values"),
    "io": ("load_policy_class", "policy_class_from_json", "policy_class_to_json"),
    "lattice": ("MAX_LATTICE_COMPONENTS", "MAX_LATTICE_WORK", "Lattice", "LatticeNode", "LatticeTooLarge", "LeaveOneOut", "lattice"),
    "policies": ("PolicyClass", "build_policy_class", "frozen_policy_class", "support_cells"),
    "synthesis": ("Synthesis", "cell_costs", "minimum_supports"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "ESTIMANDS",
    "Identification",
    "Lattice",
    "LatticeNode",
    "LeaveOneOut",
    "Synthesis",
    "cell_costs",
    "distinguishing_cells",
    "lattice", "LatticeTooLarge", "MAX_LATTICE_COMPONENTS", "MAX_LATTICE_WORK",
    "minimum_supports",
    "MixtureReport",
    "PolicyClass",
    "build_policy_class",
    "collision_count",
    "estimand_values",
    "available_estimands",
    "estimand_unavailable",
    "frozen_policy_class",
    "identify",
    "load_policy_class",
    "parse_cell_id",
    "split_cell_id",
    "cell_id",
    "policy_class_from_json",
    "policy_class_to_json",
    "row_classes",
    "support_cells",
]
