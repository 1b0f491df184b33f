"""Anytime-valid dual e-processes (paper 001 section 3.2; docs/e-processes.md, Parameters and defaults).

Streaming (``make_process``, ``DualTest``) and vectorised (``log_evalues`` and the six single
functions) interfaces share one likelihood-ratio function and one forecaster. All values are
log e-values; a process rejects its null when log E_t >= ``params.log_threshold`` = -log(alpha)
(computed as -log(alpha), finite even for alpha = 1e-320).

Every public function raises :class:`audit_core.errors.InputError` naming the bad argument.
Numbers are Python or numpy bools, ints and floats; strings are refused everywhere, numeric ones
such as ``"0.5"`` included (the loaders in ``audit_core.data`` convert file text). Scores must lie
in [0, 1] (NaN refused); q must lie strictly between 1e-6 and 1 - 1e-6 so that neither clipped
alternative interval, [1e-6, q] or [q, 1 - 1e-6], is empty. Alternatives given per step must be
predictable: chosen before that step's score is seen.
"""

import lazy_loader

# Each name is imported from its module on first use; the names and their modules are in
# __init__.pyi, which editors and type checkers read too (tests/architecture/test_import_cost.py).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
