"""Protocol-level identifiability audit (paper 000; docs/identification.md).

Cells and supports, finite policy classes (the frozen seven + mixture, JSON, long CSV),
estimands, equivalence classes and cross-estimand collisions, the component lattice with
leave-one-out witnesses, distinguishing-cell sets and minimum identifying supports (CP-SAT).
"""

import lazy_loader

# Each name is imported from its module on first use; the names and their modules are in
# __init__.pyi, which editors and type checkers read too (tests/architecture/test_import_cost.py).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
