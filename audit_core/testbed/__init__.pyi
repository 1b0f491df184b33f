"""Names of :mod:`audit_core.testbed`, loaded on first use (``lazy_loader`` reads this stub)."""

from .check import CheckReport, check_items
from .generator import (
    DEFAULT_VOCABULARY,
    DIRECTIONS,
    Cluster,
    Edit,
    GeneratorParams,
    direction_name,
    generate_clusters,
    parse_direction,
)
from .items import Item, cluster_items, inspect_sample, items_from_text, items_of, read_items, write_jsonl
from .solver import FALSE, INCONSISTENT, TRUE, UNKNOWN, Solution, derived_literals, naive_closure, oracle_label, solve
from .theory import Rule, Theory

__all__ = [
    "check_items", "CheckReport", "Cluster", "cluster_items", "DEFAULT_VOCABULARY", "derived_literals",
    "direction_name", "DIRECTIONS", "Edit", "FALSE", "generate_clusters", "GeneratorParams", "INCONSISTENT",
    "inspect_sample", "Item", "items_from_text", "items_of", "naive_closure", "oracle_label",
    "parse_direction", "read_items", "Rule", "Solution", "solve", "Theory", "TRUE", "UNKNOWN", "write_jsonl",
]
