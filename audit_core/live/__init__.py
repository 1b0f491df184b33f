"""Live adaptive audits (paper 001 run for real; issue 10).

* :mod:`.store`: the SQLite workspace (WAL, append-only event log, schema migrations).
* :mod:`.pool`: the pool a live strategy sees, rebuilt from the stored CSV and fixed roles.
* :mod:`.session`: :class:`LiveAudit` (create, next, label, skip, undo, status), state rebuilt from events.
* :mod:`.export`: the labelled CSV in the recorded-run format, whose replay equals the live run.
"""

import lazy_loader

# Each name is imported from its module on first use; the names and their modules are in
# __init__.pyi, which editors and type checkers read too (tests/architecture/test_import_cost.py).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
