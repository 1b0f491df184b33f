"""Solver-grounded items for paper 000's protocol: open-world signed-Horn theories.

:mod:`theory` (literals, rules, theories and their JSON form), :mod:`solver` (three-valued oracle
by linear-time forward chaining), :mod:`generator` (seeded clusters: base, target edit, sham edit),
:mod:`items` (one item per cell of the frozen 36-cell layout, JSONL and Inspect AI forms) and
:mod:`check` (re-deriving an items file).
"""

from audit_core._lazy import lazy_exports

# submodule -> the names it defines; each submodule is imported when one of its names is first used
_EXPORTS = {
    "check": ("CheckReport", "check_items"),
    "generator": (
        "DEFAULT_VOCABULARY", "DIRECTIONS", "Cluster", "Edit", "GeneratorParams", "direction_name",
        "generate_clusters", "parse_direction",
    ),
    "items": ("Item", "cluster_items", "inspect_sample", "items_from_text", "items_of", "read_items", "write_jsonl"),
    "solver": (
        "FALSE", "INCONSISTENT", "TRUE", "UNKNOWN", "Solution", "derived_literals", "naive_closure", "oracle_label",
        "solve",
    ),
    "theory": ("Rule", "Theory"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

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
    "items_from_text",
    "items_of",
    "naive_closure",
    "oracle_label",
    "parse_direction",
    "read_items",
    "solve",
    "write_jsonl",
]
