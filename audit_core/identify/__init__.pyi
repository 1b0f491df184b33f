"""Names of :mod:`audit_core.identify`, loaded on first use (``lazy_loader`` reads this stub)."""

from .cells import cell_id, parse_cell_id, split_cell_id
from .distinguish import distinguishing_cells
from .equivalence import Identification, MixtureReport, collision_count, identify, row_classes
from .estimands import ESTIMANDS, available_estimands, estimand_unavailable, estimand_values
from .io import load_policy_class, policy_class_from_json, policy_class_to_json
from .lattice import (
    MAX_LATTICE_COMPONENTS,
    MAX_LATTICE_WORK,
    Lattice,
    LatticeNode,
    LatticeTooLarge,
    LeaveOneOut,
    lattice,
)
from .policies import PolicyClass, build_policy_class, frozen_policy_class, support_cells
from .synthesis import Synthesis, cell_costs, minimum_supports

__all__ = [
    "available_estimands", "build_policy_class", "cell_costs", "cell_id", "collision_count",
    "distinguishing_cells", "estimand_unavailable", "estimand_values", "ESTIMANDS", "frozen_policy_class",
    "Identification", "identify", "Lattice", "lattice", "LatticeNode", "LatticeTooLarge", "LeaveOneOut",
    "load_policy_class", "MAX_LATTICE_COMPONENTS", "MAX_LATTICE_WORK", "minimum_supports", "MixtureReport",
    "parse_cell_id", "policy_class_from_json", "policy_class_to_json", "PolicyClass", "row_classes",
    "split_cell_id", "support_cells", "Synthesis",
]
