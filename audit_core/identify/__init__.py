"""Protocol-level identifiability audit (paper 000; docs/identification.md).

Cells and supports, finite policy classes (the frozen seven + mixture, JSON, long CSV),
estimands, equivalence classes and cross-estimand collisions, the component lattice with
leave-one-out witnesses, distinguishing-cell sets and minimum identifying supports (CP-SAT).
"""

from audit_core.identify.cells import cell_id, parse_cell_id, split_cell_id
from audit_core.identify.distinguish import distinguishing_cells
from audit_core.identify.equivalence import (
    Identification,
    MixtureReport,
    collision_count,
    identify,
    row_classes,
)
from audit_core.identify.estimands import ESTIMANDS, estimand_values
from audit_core.identify.io import load_policy_class, policy_class_from_json, policy_class_to_json
from audit_core.identify.lattice import (
    MAX_LATTICE_COMPONENTS,
    Lattice,
    LatticeNode,
    LatticeTooLarge,
    LeaveOneOut,
    lattice,
)
from audit_core.identify.policies import (
    PolicyClass,
    build_policy_class,
    frozen_policy_class,
    support_cells,
)
from audit_core.identify.synthesis import Synthesis, cell_costs, minimum_supports

__all__ = [
    "ESTIMANDS",
    "Identification",
    "Lattice",
    "LatticeNode",
    "LeaveOneOut",
    "Synthesis",
    "cell_costs",
    "distinguishing_cells",
    "lattice", "LatticeTooLarge", "MAX_LATTICE_COMPONENTS",
    "minimum_supports",
    "MixtureReport",
    "PolicyClass",
    "build_policy_class",
    "collision_count",
    "estimand_values",
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
