"""Estimand-separated results from model response logs (paper 000, "Key empirical results").

Load a long-format log (``model, cluster, cell, response`` + oracle) with
:func:`load_response_log`, then :func:`measure` gives base accuracy, target-follow and sham-stay
given base-correct, local response, τ_full (complete units), readout validity, Wilson and
cluster-bootstrap intervals, and the mutually exclusive behavioural composition;
:func:`measure_invariance` gives mapping/readout invariance, balanced transitions and the
oracle-transition asymmetry.
"""

import lazy_loader

# Each name is imported from its module on first use; the names and their modules are in
# __init__.pyi, which editors and type checkers read too (tests/architecture/test_import_cost.py).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
