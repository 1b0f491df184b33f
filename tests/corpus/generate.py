"""Large hostile inputs, written at test time (too big to commit): each is small on disk, or
ordinary in shape, but once broke the workbench's time or memory (issue 13).

``python tests/corpus/generate.py DIR`` writes them all into DIR."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ORACLE = {"base": "TRUE", "target": "UNKNOWN", "sham": "TRUE"}


def own_cluster_log(n_models: int = 3000) -> bytes:
    """Every model on its own cluster (a dense models x clusters x cells array would be 2.6 GB)."""
    rows = [{"model": f"m{i}", "cluster": f"k{i}", "cell": f"{w}:ABC:generated", "response": "A", "oracle": o}
            for i in range(n_models) for w, o in ORACLE.items()]
    return pd.DataFrame(rows).to_csv(index=False).encode()


def many_subgroups_run(n_subgroups: int = 6000) -> bytes:
    """More subgroups than Altair's 5,000-row limit."""
    rng = np.random.default_rng(0)
    return pd.DataFrame({"score": (rng.random(2 * n_subgroups) < 0.9).astype(int),
                         "subgroup": [f"g{i}" for i in range(n_subgroups)] * 2}).to_csv(index=False).encode()


def long_run(n_rows: int = 100_000) -> bytes:
    """A long labelled run with a few subgroups and an order column."""
    rng = np.random.default_rng(1)
    return pd.DataFrame({"order": np.arange(n_rows), "score": (rng.random(n_rows) < 0.85).astype(int),
                         "group": rng.choice(list("abcdefgh"), n_rows)}).to_csv(index=False).encode()


def many_policies(n: int = 139) -> bytes:
    """139 policies on the frozen 36 cells: 5,004 heat-map rectangles."""
    from audit_core.identify import frozen_policy_class, policy_class_to_json
    document = policy_class_to_json(frozen_policy_class())
    template = document["policies"][0]
    rng = np.random.default_rng(2)
    letters = "ABC"
    document["policies"] = [dict(template, name=f"p{i}", tau=int(i % 2),
                                 responses={c: letters[int(rng.integers(3))] for c in template["responses"]})
                            for i in range(n)]
    return json.dumps(document).encode()


def many_components(k: int = 13) -> bytes:
    """13 components: the lattice would have 2^13 supports."""
    values = [f"v{i}" for i in range(k + 1)]
    document = {"axes": {"x": values}, "base": {"x": ["v0"]},
                "components": {f"c{i}": {"x": [values[i]]} for i in range(1, k + 1)},
                "policies": [{"name": "p", "tau": 0, "responses": {v: "A" for v in values}},
                             {"name": "q", "tau": 1, "responses": {v: ("B" if v == values[-1] else "A") for v in values}}]}
    return json.dumps(document).encode()


def many_columns_log(n_columns: int = 5000) -> bytes:
    """A response log with thousands of extra columns (the 'ignored columns' note)."""
    extra = {f"extra_column_{i}": ["x"] * 3 for i in range(n_columns)}
    frame = pd.DataFrame({"model": ["m"] * 3, "cluster": ["k"] * 3,
                          "cell": [f"{w}:ABC:generated" for w in ORACLE], "response": ["A"] * 3,
                          "oracle": list(ORACLE.values()), **extra})
    return frame.to_csv(index=False).encode()


LARGE = {
    "log_own_clusters.csv": own_cluster_log,
    "run_many_subgroups.csv": many_subgroups_run,
    "run_long.csv": long_run,
    "policy_139.json": many_policies,
    "policy_13_components.json": many_components,
    "log_many_columns.csv": many_columns_log,
}


def write_all(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, make in LARGE.items():
        path = folder / name
        path.write_bytes(make())
        out[name] = path
    return out


if __name__ == "__main__":
    for path in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "corpus_large")).values():
        print(f"{path}: {path.stat().st_size:,} bytes")
