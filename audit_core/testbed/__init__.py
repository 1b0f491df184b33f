"""Solver-grounded items for paper 000's protocol: open-world signed-Horn theories.

:mod:`theory` (literals, rules, theories and their JSON form), :mod:`solver` (three-valued oracle
by linear-time forward chaining), :mod:`generator` (seeded clusters: base, target edit, sham edit),
:mod:`items` (one item per cell of the frozen 36-cell layout, JSONL and Inspect AI forms) and
:mod:`check` (re-deriving an items file).
"""

from audit_core.testbed.check import CheckReport, check_items
from audit_core.testbed.generator import (
    DEFAULT_VOCABULARY,
    DIRECTIONS,
    Cluster,
    Edit,
    GeneratorParams,
    direction_name,
    generate_clusters,
    parse_direction,
)
from audit_core.testbed.items import (
    Item,
    cluster_items,
    inspect_sample,
    items_of,
    read_items,
    write_jsonl,
)
from audit_core.testbed.solver import (
    FALSE,
    INCONSISTENT,
    TRUE,
    UNKNOWN,
    Solution,
    derived_literals,
    naive_closure,
    oracle_label,
    solve,
)
from audit_core.testbed.theory import Rule, Theory

__all__ = [
    "DEFAULT_VOCABULARY",
    "DIRECTIONS",
    "FALSE",
    "INCONSISTENT",
    "TRUE",
    "UNKNOWN",
    "CheckReport",
    "Cluster",
    "Edit",
    "GeneratorParams",
    "Item",
    "Rule",
    "Solution",
    "Theory",
    "check_items",
    "cluster_items",
    "derived_literals",
    "direction_name",
    "generate_clusters",
    "inspect_sample",
    "items_of",
    "naive_closure",
    "oracle_label",
    "parse_direction",
    "read_items",
    "solve",
    "write_jsonl",
]
