"""Anytime-valid early stopping inside Inspect AI (docs/inspect.md).

``Task(..., early_stopping=audit_core.inspect.early_stopping())`` stops an evaluation when the
dual test of paper 001 has decided, or when the chosen anytime-valid rules (precision, threshold,
budget; per subgroup) are met, and writes every decision into the log, where ``replay`` reads it.
This package is for users who run Inspect AI; nothing else in the workbench imports it.
"""

from audit_core.inspect._manager import (
    CASES,
    CLUSTERS,
    METADATA_KEY,
    AnytimeStopping,
    StoppingRules,
    early_stopping,
)

__all__ = ["CASES", "CLUSTERS", "METADATA_KEY", "AnytimeStopping", "StoppingRules", "early_stopping"]
