"""Each page's first view, declared once (issue 30): the values a page's widgets start from, read
by the page and by the server's warm-up (``pages/_warm.py``), which computes the same view into the
shared caches before a visitor's first load of the page asks for it. Change a page's first view
here and both follow; ``tests/app/test_page_warm_up.py`` checks that a page's first run after the
warm-up computes nothing.

Replay's first view follows the bundled run's own roles and its style's parameters (the engine's
``RunTable.defaults`` and ``AuditParams.for_style``), so it needs no declaration here; every margin
and style default is the engine's (``analyses.COMPARE_MARGIN``, ``analyses.audit_params``).
Plain values only: importing this module loads no use case (app.py imports the warm-up on a fresh
server's first run).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TestbedView:
    """Testbed items: clusters, seed, derivation depth, distractor rules (every oracle direction)."""

    __test__ = False   # not a pytest test class, whatever imports it

    n_clusters: int = 24
    seed: int = 0
    depth: int = 3
    distractors: int = 6


@dataclass(frozen=True)
class MeasureView:
    """Measure logs on the bundled response log: bootstrap replicates, seed, confidence (the
    first error-bar choice)."""

    bootstrap: int = 2000
    seed: int = 0
    confidence: float = 0.95


@dataclass(frozen=True)
class CompareView:
    """Compare runs: the bundled set of runs (A and B its first two), confidence, budget (0: open-ended)."""

    run_set: str = "compare:gpqa"
    pair: tuple[int, int] = (0, 1)
    confidence: float = 0.95
    budget: int = 0


@dataclass(frozen=True)
class SupportsView:
    """Minimal supports on the bundled class: every cell costs the same (cost ratio 1 between the
    two values of the cost axis), nothing required or excluded, CP-SAT time limit in seconds."""

    ratio: float = 1.0
    time_limit: float = 10.0


TESTBED, MEASURE, COMPARE, SUPPORTS = TestbedView(), MeasureView(), CompareView(), SupportsView()
