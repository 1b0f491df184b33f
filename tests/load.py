"""Time caps that guard against runaway work (a hang, a quadratic path), not benchmarks: they scale
with how busy the machine is, so a shared or loaded machine does not fail them while a runaway
still does. Speed itself is measured in bench/, against a baseline in the same run."""

from __future__ import annotations

import os


def busy_factor() -> float:
    """The 1-minute load average over the cores, at least 1 (a quiet machine: 1)."""
    try:
        load = os.getloadavg()[0]
    except OSError:   # not available on this platform: take the machine as quiet
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))
