"""Auditing strategies and simulation studies (paper 001 section 4; docs/e-processes.md, Auditing strategies).

* :mod:`.pool`: the population an auditor samples from (:func:`load_pool`).
* :mod:`.model`: the online accuracy model of the adaptive auditor.
* :mod:`.strategies`: stratified, pre-learned, oracle, informed prior and adaptive sampling, in
  scenario (a) pool / (b) bank, one :class:`Sampler` per strategy (``select`` / ``observe``), and
  :func:`run_audit` (one audit: a sampler through the streaming DualTest).
* :mod:`.study`: :func:`run_study` (rows x replicates, seeded, parallel) and the sampling-frequency
  analysis of the SDoH study.
"""

import lazy_loader

# Each name is imported from its module on first use; the names and their modules are in
# __init__.pyi, which editors and type checkers read too (tests/architecture/test_import_cost.py).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
