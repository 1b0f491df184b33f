"""Solver-grounded items for paper 000's protocol: open-world signed-Horn theories.

:mod:`theory` (literals, rules, theories and their JSON form), :mod:`solver` (three-valued oracle
by linear-time forward chaining), :mod:`generator` (seeded clusters: base, target edit, sham edit),
:mod:`items` (one item per cell of the frozen 36-cell layout, JSONL and Inspect AI forms) and
:mod:`check` (re-deriving an items file).
"""

import lazy_loader

# Each name is imported from its module on first use; the names and their modules are in
# __init__.pyi, which editors and type checkers read too (tests/architecture/test_import_cost.py).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
