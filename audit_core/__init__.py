"""Evaluation Audit Workbench engine.

Two engines, importable without Streamlit:

* :mod:`audit_core.identify` -- protocol-level identifiability audit (paper 000).
* :mod:`audit_core.sequential` -- anytime-valid dual e-processes (paper 001).

plus :mod:`audit_core.auditing` (sampling strategies, simulation studies),
:mod:`audit_core.data` (the one CSV loader, bundled example data) and
:mod:`audit_core.report` (HTML / Markdown / JSON reports).
"""

__version__ = "0.1.0"
