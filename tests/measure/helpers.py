"""Tiny hand-built response logs for the measure tests."""

from __future__ import annotations

from audit_core.identify import frozen_policy_class

REFERENCE_ORACLE = {"base": "TRUE", "target": "UNKNOWN", "sham": "TRUE"}


def log_bytes(units, columns=("model", "cluster", "cell", "response", "oracle")) -> bytes:
    """``units``: iterable of (model, cluster, oracle dict world -> label, {cell: response})."""
    lines = [",".join(columns)]
    for model, cluster, oracle, answers in units:
        for cell, response in answers.items():
            lines.append(f"{model},{cluster},{cell},{response},{oracle[cell.split(':')[0]]}")
    return ("\n".join(lines) + "\n").encode()


def frozen_units(cluster="c1", oracle=REFERENCE_ORACLE):
    """One unit per frozen policy (the model is named after the policy), reference cluster."""
    pc = frozen_policy_class()
    return [(name, cluster, oracle, {c: pc.response(name, c) for c in pc.cells}) for name in pc.names]
