"""The bundled example datasets in ``data/``: what each file is and which columns mean what.

All of them are SYNTHETIC replicas of published marginals (see :mod:`audit_core.data.generators`
and ``data/README.md``), written by ``python data/generate_examples.py``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from audit_core.data.generators import N_FEATURES, SYNTHETIC_NOTE
from audit_core.project import project_path

DATA_DIR = project_path("data")  # the checkout's data/, or its installed copy (audit_core/project.py)

_FEATURES = tuple(f"f{j + 1:02d}" for j in range(N_FEATURES))


@dataclass(frozen=True)
class BundledDataset:
    """One bundled CSV and its column roles.

    ``style`` picks the default audit parameters (``AuditParams.gpqa()`` / ``.sdoh()``);
    ``truth`` names the true per-case accuracy column (GPQA-style pools only; simulations draw
    fresh labels from it and it must never be used as a feature); ``suspects`` are the subgroup
    values an "informed prior" auditor would name; ``pool``: for a recorded run, the bundled pool
    it was drawn from, whose subgroups are the run's declared family (the family-wise flags'
    K, fixed before the data).
    """

    key: str
    path: Path
    title: str
    description: str
    style: str
    score: str
    subgroups: tuple[str, ...]
    order: str | None = None
    id: str | None = None
    text: str | None = None
    features: tuple[str, ...] = _FEATURES
    truth: str | None = None
    suspects: tuple[str, ...] = ()
    pool: str | None = None

    def to_dict(self) -> dict:
        data = asdict(self)
        data["path"] = str(self.path)
        return data

    def __repr__(self) -> str:
        return f"BundledDataset({self.key!r}, {self.path.name}, style={self.style})"


def _gpqa(setting: str, chemistry: str) -> BundledDataset:
    return BundledDataset(
        key=f"gpqa:{setting}",
        path=DATA_DIR / f"gpqa_style_{setting}.csv",
        title=f"GPQA-style pool, {setting.capitalize()} degradation (synthetic)",
        description=(f"448 synthetic questions (Chemistry 187, Biology 142, Physics 119; four education "
                     f"levels); {chemistry}. True accuracy in p_correct, one seeded label draw in correct, "
                     f"f01-f16 stand in for text embeddings. {SYNTHETIC_NOTE}."),
        style="gpqa", score="correct", subgroups=("domain", "level"), id="question_id",
        truth="p_correct", suspects=("Chemistry",),
    )


BUNDLED: dict[str, BundledDataset] = {
    "sdoh": BundledDataset(
        key="sdoh",
        path=DATA_DIR / "sdoh_style.csv",
        title="SDoH-style extraction audit, 81 notes x 28 categories (synthetic)",
        description=("2,268 synthetic note x category comparisons with the published marginals: overall "
                     "agreement 0.88, 11 of 28 categories below 0.83 (worst: High Priority 0.58, Patient "
                     "Contacts 0.68, Reason for SW Consult 0.69). Category definitions from the paper's "
                     f"Table 2; f01-f16 stand in for text embeddings. {SYNTHETIC_NOTE}."),
        style="sdoh", score="correct", subgroups=("category",), id="case_id", text="definition",
        # An informed prior names the care-coordination prompts a clinician would distrust; it is
        # a guess, not the oracle's exact failure set.
        suspects=("High Priority", "Patient Contacts", "Reason for SW Consult", "Lack of Social Support"),
    ),
    "gpqa:large": _gpqa("large", "Chemistry accuracy 0.25-0.40 (failure mode, Large)"),
    "gpqa:medium": _gpqa("medium", "Chemistry accuracy 0.50-0.75 (failure mode, Medium)"),
    "gpqa:small": _gpqa("small", "Chemistry accuracy 0.60-0.77 (failure mode, Small)"),
    "gpqa:none": _gpqa("none", "every cell at or above 0.92 (no failure mode: the model's null is true)"),
    "recorded_run": BundledDataset(
        key="recorded_run",
        path=DATA_DIR / "recorded_run.csv",
        title="Recorded adaptive audit of the SDoH-style pool (synthetic)",
        description=("One seeded run of the adaptive auditor (SR-LR-UI / AUD-LR-UI, q 0.83) on the "
                     "SDoH-style pool, rows in annotation order (order column), with the auditor's "
                     f"prediction at selection time. {SYNTHETIC_NOTE}."),
        style="sdoh", score="correct", subgroups=("category",), order="order", id="case_id",
        text="definition", features=(), pool="sdoh",
    ),
}

# Several runs on the same cases in one long CSV (a ``run`` column names each row's run): the
# Compare runs page opens on it. Written by ``python data/generate_examples.py``
# (:func:`audit_core.data.generators.compare_runs_frame`).
BUNDLED_RUN_SETS: dict[str, BundledDataset] = {
    "compare:gpqa": BundledDataset(
        key="compare:gpqa",
        path=DATA_DIR / "compare_runs.csv",
        title="Four runs on the same 448 GPQA-style questions (synthetic)",
        description=("Four made-up models answer the same 448 synthetic GPQA-style questions (long format, one "
                     "row per question and run): model-b about 0.08 more accurate than the baseline model-a, "
                     "model-c equally accurate, model-d about 0.06 less; answers correlated across runs; true "
                     f"per-question accuracy in p_correct. {SYNTHETIC_NOTE}."),
        style="gpqa", score="correct", subgroups=("domain",), id="question_id", truth="p_correct",
        features=(),
    ),
}
