"""Stored chart specs of the explorer's views of the bundled class (issue 24).

A fresh server's first page is the protocol explorer on the bundled frozen class, full support,
estimand τ_full. Its two charts (the support lattice and the policy × cell heat map) cost more than
the rest of the page together: importing Altair (~0.3 s) and building them through it (~0.3 s).
Both are drawn from a chart of the class (:func:`audit_core.views.identify._class_template`) with
the support's rows set, so storing the class's two charts serves every support's view on τ_full.
Their Vega-Lite specs are stored in ``bundled_charts.json`` next to this module, each under the
SHA-256 of everything it is built from: the chart's kind, its input rows and texts, the source of
the chart modules (``charts.py``, ``identify.py`` of this package) and Altair's version. A chart
whose inputs or code differ in any way is built as before, so a stored spec is only ever served
for exactly the inputs and code that produced it; a test rebuilds every stored spec through
Altair and compares it. After changing a chart, rebuild the file (the test says so):

    python -m audit_core.views.first_view
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

STORE = Path(__file__).with_name("bundled_charts.json")
_CODE = ("charts.py", "identify.py")


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 of the chart modules' source and Altair's version (read without importing Altair)."""
    from importlib.metadata import PackageNotFoundError, version

    digest = hashlib.sha256()
    for name in _CODE:
        digest.update(Path(__file__).with_name(name).read_bytes())
    try:
        digest.update(version("altair").encode())
    except PackageNotFoundError:
        digest.update(b"no altair")
    return digest.hexdigest()


def spec_key(kind: str, inputs: dict) -> str:
    """The key of a chart: its kind, its inputs (rows as records, texts) and the code fingerprint."""
    text = json.dumps({"kind": kind, "inputs": inputs, "code": code_fingerprint()}, sort_keys=True,
                      separators=(",", ":"), default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def _store() -> dict:
    try:
        return json.loads(STORE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def stored_spec(kind: str, inputs: dict, build: Callable[[], dict]) -> dict:
    """The stored spec of this chart (a copy) when there is one, else ``build()``."""
    spec = _store().get(spec_key(kind, inputs))
    return copy.deepcopy(spec) if spec is not None else build()
