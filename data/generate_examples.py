"""Write the bundled example CSVs of ``data/``: SYNTHETIC replicas of published marginals.

    python data/generate_examples.py [OUT_DIR]

Deterministic: the same seed rewrites every file byte for byte (``tests/data/test_generators.py``
checks that the committed files are exactly what this script produces). See ``data/README.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from audit_core.data.generators import (  # noqa: E402
    DEFAULT_SEED,
    GPQA_SETTINGS,
    compare_runs_frame,
    feature_columns,
    gpqa_style_pool,
    sdoh_style_pool,
)

RECORDED_RUN_SEED = 7


def recorded_run_frame(sdoh: pd.DataFrame, seed: int = RECORDED_RUN_SEED) -> pd.DataFrame:
    """One adaptive SR-LR-UI audit of the SDoH-style pool (q = 0.83), rows in annotation order."""
    from audit_core.auditing import build_pool, run_audit
    from audit_core.sequential import AuditParams

    features = list(feature_columns(sdoh))
    pool = build_pool("sdoh", sdoh["correct"].to_numpy(float), sdoh[features].to_numpy(float),
                      sdoh[["category"]].to_numpy(object), case_ids=sdoh["case_id"].to_numpy(),
                      subgroup_columns=("category",), style="sdoh")
    run = run_audit(pool, "adaptive", "SR-LR-UI", AuditParams.sdoh(), seed=seed)
    rows = sdoh.iloc[run.cases][["case_id", "note_id", "category", "definition", "correct"]].reset_index(drop=True)
    rows.insert(0, "order", np.arange(1, run.n + 1))
    rows["auditor_phase"] = run.phases
    rows["auditor_prediction"] = np.round(run.predicted, 4)
    rows["provenance"] = "synthetic"
    return rows


def example_frames(seed: int = DEFAULT_SEED) -> dict[str, pd.DataFrame]:
    """File name -> frame of every bundled example."""
    frames = {}
    for setting in GPQA_SETTINGS:
        frame = gpqa_style_pool(setting, seed)
        frame["provenance"] = "synthetic"
        frames[f"gpqa_style_{setting}.csv"] = frame
    sdoh = sdoh_style_pool(seed)
    frames["recorded_run.csv"] = recorded_run_frame(sdoh)
    sdoh["provenance"] = "synthetic"
    frames["sdoh_style.csv"] = sdoh
    frames["compare_runs.csv"] = compare_runs_frame(seed)
    return frames


def write_examples(out_dir: Path, seed: int = DEFAULT_SEED) -> list[Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, frame in example_frames(seed).items():
        path = out_dir / name
        frame.to_csv(path, index=False, lineterminator="\n")
        paths.append(path)
    return paths


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for written in write_examples(target):
        print(f"{written}  {written.stat().st_size / 1024:.0f} KB")
