"""Seeded generators of the bundled example data: SYNTHETIC replicas of published marginals.

Nothing here is real data. The generators reproduce only the marginal figures that paper 001
(``../shared/seeds/001_9a8f067f92bab889.txt``, sections 4.1-4.2, appendix B.3 and D, Table 2)
publishes, so that the workbench and its simulation studies can run without the original
(non-public) GPQA embeddings or clinical notes:

* GPQA-style pools (:func:`gpqa_style_pool`): 448 questions, Chemistry 187 / Biology 142 /
  Physics 119, four education levels, the true accuracy of every (domain, level) cell for the four
  degradation settings of docs/e-processes.md, Auditing strategies (:data:`GPQA_ACCURACY`), one seeded 0/1 label draw
  per question, and numeric feature columns that stand in for the text embeddings.
* SDoH-style comparisons (:func:`sdoh_style_pool`): 81 notes x 28 categories = 2,268 rows, the
  category names and definitions of the paper's Table 2, and exactly the published per-category
  marginals (overall agreement 0.88, 11 of 28 categories below 0.83, worst High Priority 0.58,
  Patient Contacts 0.68, Reason for SW Consult 0.69, Lack of Social Support 0.77, Mental Health
  0.79; Substance Use - Date of Last Use 1.00, Immigration Interventions 0.99).

Feature columns (``f01`` ...) never contain the strata: each is a noisy mixture of latent
directions (domain, ordinal level, shared cross-domain "topics" for GPQA; category family,
category, a per-note direction and an "interventions" direction for SDoH), passed through a
random rotation and standardised. Strata overlap in feature space, so an accuracy model has to
learn where the failures are, as with real embeddings. Every function takes a ``seed`` and is a
pure function of it (numpy ``default_rng``), so ``data/generate_examples.py`` rewrites the bundled
files byte for byte.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SYNTHETIC_NOTE = (
    "SYNTHETIC replica of the marginals published in paper 001 (Adaptive auditing of AI systems "
    "with anytime-valid guarantees); not real GPQA questions or clinical notes"
)

DEFAULT_SEED = 20240501

# ---------------------------------------------------------------------------------------------
# GPQA-style pools
# ---------------------------------------------------------------------------------------------

GPQA_DOMAINS = ("Chemistry", "Biology", "Physics")
GPQA_DOMAIN_SIZES = {"Chemistry": 187, "Biology": 142, "Physics": 119}
GPQA_LEVELS = ("easy undergraduate", "hard undergraduate", "hard graduate", "post-graduate")
# Share of each education level within a domain (the paper gives no counts; a plausible spread).
GPQA_LEVEL_SHARES = (0.20, 0.35, 0.30, 0.15)
GPQA_SETTINGS = ("large", "medium", "small", "none")

# True accuracy per (domain, level), levels in GPQA_LEVELS order (docs/e-processes.md, Auditing strategies).
GPQA_ACCURACY: dict[str, dict[str, tuple[float, float, float, float]]] = {
    "large": {"Chemistry": (0.40, 0.40, 0.35, 0.25), "Biology": (0.88, 0.88, 0.86, 0.85),
              "Physics": (0.92, 0.92, 0.90, 0.88)},
    "medium": {"Chemistry": (0.75, 0.75, 0.70, 0.50), "Biology": (0.91, 0.91, 0.89, 0.88),
               "Physics": (0.98, 0.98, 0.95, 0.92)},
    "small": {"Chemistry": (0.77, 0.77, 0.72, 0.60), "Biology": (0.91, 0.91, 0.89, 0.88),
              "Physics": (0.97, 0.97, 0.94, 0.91)},
    "none": {"Chemistry": (0.96, 0.96, 0.94, 0.92), "Biology": (0.98, 0.98, 0.96, 0.95),
             "Physics": (0.98, 0.98, 0.97, 0.96)},
}

N_FEATURES = 16


def largest_remainder(total: int, shares) -> np.ndarray:
    """Integer counts summing to ``total`` proportional to ``shares`` (Hamilton's method)."""
    shares = np.asarray(shares, dtype=float)
    raw = total * shares / shares.sum()
    counts = np.floor(raw).astype(int)
    order = np.argsort(-(raw - counts), kind="stable")
    counts[order[: total - counts.sum()]] += 1
    return counts


def _rotate_and_standardise(latent: np.ndarray, rng: np.random.Generator, decimals: int) -> np.ndarray:
    """Random orthogonal rotation (QR of a Gaussian matrix), then column z-scores, rounded."""
    q_mat, r_mat = np.linalg.qr(rng.standard_normal((latent.shape[1], latent.shape[1])))
    q_mat = q_mat * np.sign(np.diag(r_mat))  # Haar-distributed rotation
    x = latent @ q_mat
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    return np.round(x, decimals)


def _directions(rng: np.random.Generator, count: int, dim: int, norm: float) -> np.ndarray:
    vecs = rng.standard_normal((count, dim))
    return norm * vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def gpqa_style_questions(seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """The 448 synthetic questions shared by all four settings: id, domain, level, features.

    Latent embedding = domain direction (norm 1.5) + level index x a difficulty direction
    (0.35 per level) + one of 24 cross-domain topic directions (norm 1.0; 30% of questions take a topic of any domain, so topics are shared
    between domains, which blurs the domain boundary as physical chemistry or biochemistry
    questions do) + isotropic noise (sd 0.55); rotated at random and standardised.
    """
    rng = np.random.default_rng(seed)
    dim = N_FEATURES
    domain_dirs = _directions(rng, len(GPQA_DOMAINS), dim, 1.5)
    level_dir = _directions(rng, 1, dim, 0.35)[0]
    topic_dirs = _directions(rng, 24, dim, 1.0)
    rows = []
    latent = []
    for d_index, domain in enumerate(GPQA_DOMAINS):
        counts = largest_remainder(GPQA_DOMAIN_SIZES[domain], GPQA_LEVEL_SHARES)
        for l_index, level in enumerate(GPQA_LEVELS):
            for _ in range(counts[l_index]):
                own = rng.random() < 0.7
                topic = 8 * d_index + rng.integers(8) if own else rng.integers(24)
                vec = (domain_dirs[d_index] + l_index * level_dir + topic_dirs[topic]
                       + 0.55 * rng.standard_normal(dim))
                latent.append(vec)
                rows.append((domain, level))
    order = rng.permutation(len(rows))  # questions are not stored grouped by stratum
    latent = np.asarray(latent)[order]
    frame = pd.DataFrame([rows[i] for i in order], columns=["domain", "level"])
    frame.insert(0, "question_id", [f"Q{i + 1:03d}" for i in range(len(frame))])
    features = _rotate_and_standardise(latent, rng, 4)
    for j in range(dim):
        frame[f"f{j + 1:02d}"] = features[:, j]
    return frame


def gpqa_accuracy(setting: str, domains, levels) -> np.ndarray:
    """True accuracy of each question for ``setting`` from :data:`GPQA_ACCURACY`."""
    table = GPQA_ACCURACY[setting]
    level_index = {lv: i for i, lv in enumerate(GPQA_LEVELS)}
    return np.array([table[d][level_index[lv]] for d, lv in zip(domains, levels, strict=True)], dtype=float)


def gpqa_style_pool(setting: str, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """One GPQA-style pool: questions + ``p_correct`` (true per-question accuracy) + ``correct``
    (one seeded Bernoulli(p_correct) draw). The simulation studies redraw labels from
    ``p_correct`` in every replicate, as the paper's semi-synthetic experiment does."""
    if setting not in GPQA_SETTINGS:
        raise ValueError(f"setting must be one of {GPQA_SETTINGS}, got {setting!r}")
    frame = gpqa_style_questions(seed)
    p = gpqa_accuracy(setting, frame["domain"], frame["level"])
    label_rng = np.random.default_rng([seed, GPQA_SETTINGS.index(setting)])
    correct = (label_rng.random(len(p)) < p).astype(int)
    frame.insert(3, "p_correct", p)
    frame.insert(4, "correct", correct)
    return frame


# ---------------------------------------------------------------------------------------------
# SDoH-style comparisons
# ---------------------------------------------------------------------------------------------

SDOH_N_NOTES = 81

# (category, definition from the paper's Table 2, family, number correct out of 81 notes).
# Table 2 lists 29 definitions while the text counts 28 categories (81 x 28 = 2,268): "Reason for
# Admission" (context for the note, named in no published marginal) is left out.
# Counts reproduce the published marginals: 1996 / 2268 = 0.880 overall; the 11 categories
# below q = 0.83 are the first 11; 47/81 = .58, 55/81 = .68, 56/81 = .69, 62/81 = .77,
# 64/81 = .79, 81/81 = 1.00, 80/81 = .99.
SDOH_CATEGORIES: tuple[tuple[str, str, str, int], ...] = (
    ("High Priority", "Identify if patient is high priority: homeless and discharge ready, Jane/John Doe, "
     "abuse/neglect/safety, need family located, death/dying, major life-changing event.", "coordination", 47),
    ("Patient Contacts", "Identify references to patient's contacts: friends, family, case workers. Include "
     "name, phone number, and relation.", "coordination", 55),
    ("Reason for SW Consult", "For social worker consult note types only, identify the reason for the social "
     "work consult.", "coordination", 56),
    ("Lack of Social Support", "Identify missing/minimal contacts or social isolation: widowed, lives alone, "
     "no family involved, no emergency contact.", "coordination", 62),
    ("Mental Health", "Identify any mention of mental health needs: depression, anxiety, suicidal thoughts, "
     "or psychiatric symptoms impacting functioning.", "mental", 64),
    ("Patient Independence", "Identify inability to perform ADLs (bathing, dressing, toileting, eating) or "
     "IADLs (medications, transportation, cooking, finances).", "function", 65),
    ("Outpatient Therapies", "Identify home health services or SNF: PT/OT/SLP/RN/SW that come to patient's "
     "home, or IHSS caregivers.", "function", 65),
    ("Safety Interventions", "Extract actions/interventions for safety needs, categorized as previous, "
     "current, or planned actions.", "safety", 66),
    ("DME: Mobility Devices", "Identify durable medical equipment the patient uses: wheelchairs, walkers, "
     "hospital beds, oxygen, CPAP/BiPAP, etc.", "function", 66),
    ("Mental Health Interventions", "Extract actions/interventions for mental health needs, categorized as "
     "previous, current, or planned actions.", "mental", 67),
    ("Housing Interventions", "Extract actions/interventions for housing needs. Look for: home health, "
     "shelters, navigation centers, Medical Respite, SNF referrals, supportive housing.", "housing", 67),
    ("Safety", "Identify any mention of safety needs: abuse, domestic violence, assault, interpersonal "
     "violence, recurrent falls, or self-neglect/caregiver neglect.", "safety", 69),
    ("Housing", "Identify any mention of housing needs: homelessness, housing instability, unsafe living "
     "conditions, or inability to afford housing.", "housing", 70),
    ("Substance Use Interventions", "Extract actions/interventions for substance use needs. Look for: detox "
     "referrals, residential/outpatient SUD programs, Addiction Care Team.", "substance", 75),
    ("Alcohol Use Interventions", "Extract actions/interventions for alcohol use needs.", "alcohol_tobacco", 76),
    ("Tobacco Use Interventions", "Extract actions/interventions for tobacco use needs.", "alcohol_tobacco", 77),
    ("Food Insecurity Interventions", "Extract actions/interventions for food insecurity. Look for: Meals on "
     "Wheels, Great Plates, Project Open Hand.", "food", 77),
    ("Substance Use", "Identify any mention of substance use needs: illegal drugs, prescription drug misuse, "
     "or problematic controlled substance use.", "substance", 78),
    ("Alcohol Use", "Identify any mention of alcohol use needs: excessive drinking, binge drinking, or "
     "alcohol-related problems.", "alcohol_tobacco", 78),
    ("Immigration", "Identify any mention of immigration needs: documentation concerns, deportation fears, "
     "language barriers.", "immigration", 78),
    ("Substance Use - StUD", "Stimulant Use Disorder: Identify if the patient has problematic stimulant use "
     "(amphetamines, cocaine, methamphetamine).", "substance", 79),
    ("Tobacco Use", "Identify any mention of tobacco use: cigarettes, vaping, chewing tobacco, or other "
     "nicotine products.", "alcohol_tobacco", 79),
    ("Food Insecurity", "Identify any mention of food insecurity: inability to access adequate food due to "
     "financial constraints.", "food", 79),
    ("Substance Use - OUD", "Opioid Use Disorder: Identify if the patient has problematic opioid use "
     "(including fentanyl or heroin).", "substance", 80),
    ("Substance Use - PSUD", "Polysubstance Use Disorder: Identify if the note explicitly mentions PSUD.",
     "substance", 80),
    ("Substance Use - MOUD", "Medication for OUD: Identify if the patient is on methadone or buprenorphine.",
     "substance", 80),
    ("Immigration Interventions", "Extract actions/interventions for immigration needs.", "immigration", 80),
    ("Substance Use - Date of Last Use", "If the patient has substance use history, identify the date of "
     "last use.", "substance", 81),
)

SDOH_FAMILIES = ("coordination", "mental", "function", "safety", "housing", "substance",
                 "alcohol_tobacco", "food", "immigration")


def sdoh_style_pool(seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """2,268 note x category comparisons with exactly the published per-category agreement.

    Within a category, which notes are scored wrong is a seeded draw tilted towards "hard" notes
    (a latent per-note difficulty that also moves the note's embedding), so errors cluster in
    notes as they do in real extraction. Latent embedding = family direction (norm 1.2) +
    category direction (norm 0.9) + "interventions" direction (norm 0.6, for the Extract-actions
    prompts) + note direction (norm 0.6) + 0.5 x difficulty x a difficulty direction + noise
    (sd 0.4); rotated at random and standardised. Columns: case_id, note_id, category,
    definition, correct, f01..f16.
    """
    rng = np.random.default_rng([seed, 28])
    dim = N_FEATURES
    n_notes = SDOH_N_NOTES
    family_dirs = dict(zip(SDOH_FAMILIES, _directions(rng, len(SDOH_FAMILIES), dim, 1.2), strict=True))
    category_dirs = _directions(rng, len(SDOH_CATEGORIES), dim, 0.9)
    intervention_dir = _directions(rng, 1, dim, 0.6)[0]
    note_dirs = _directions(rng, n_notes, dim, 0.6)
    difficulty_dir = _directions(rng, 1, dim, 1.0)[0]
    difficulty = rng.standard_normal(n_notes)

    records = []
    latent = []
    for c_index, (name, definition, family, n_correct) in enumerate(SDOH_CATEGORIES):
        # Gumbel top-k: the (81 - n_correct) wrong notes, more likely among difficult notes.
        keys = 0.8 * difficulty + rng.gumbel(size=n_notes)
        wrong = np.argsort(-keys, kind="stable")[: n_notes - n_correct]
        correct = np.ones(n_notes, dtype=int)
        correct[wrong] = 0
        base = family_dirs[family] + category_dirs[c_index]
        if name.endswith("Interventions"):
            base = base + intervention_dir
        for note in range(n_notes):
            vec = (base + note_dirs[note] + 0.5 * difficulty[note] * difficulty_dir
                   + 0.4 * rng.standard_normal(dim))
            latent.append(vec)
            records.append((f"N{note + 1:02d}", name, definition, int(correct[note])))
    frame = pd.DataFrame(records, columns=["note_id", "category", "definition", "correct"])
    frame.insert(0, "case_id", [f"{r.note_id}-{c + 1:02d}" for c, r in
                                zip(np.repeat(np.arange(len(SDOH_CATEGORIES)), n_notes), frame.itertuples(), strict=True)])
    features = _rotate_and_standardise(np.asarray(latent), rng, 3)
    for j in range(dim):
        frame[f"f{j + 1:02d}"] = features[:, j]
    return frame


def feature_columns(frame: pd.DataFrame) -> tuple[str, ...]:
    """The embedding stand-in columns ``f01`` ... of a generated frame."""
    return tuple(c for c in frame.columns if len(c) == 3 and c[0] == "f" and c[1:].isdigit())


# ---------------------------------------------------------------------------------------------
# Several runs on the same cases (the Compare runs page's bundled example)
# ---------------------------------------------------------------------------------------------

# Run name -> shift of every question's true accuracy (added, then clipped to [0.02, 0.98]).
# model-a is the baseline; model-b is better by about 0.08, model-c equal to model-a, model-d
# worse by about 0.06 (the realised true mean differences are in the file's p_correct column).
COMPARE_RUN_SHIFTS = {"model-a": 0.0, "model-b": 0.08, "model-c": 0.0, "model-d": -0.06}


def compare_runs_frame(seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Four runs on the 448 GPQA-style questions, one row per (question, run), long format.

    Each question's true accuracy p_i under the baseline is its (domain, level) cell's accuracy of
    the Small setting (:data:`GPQA_ACCURACY`) minus a per-question difficulty d_i ~ U(0, 0.3);
    run r's is clip(p_i + shift_r, 0.02, 0.98) (:data:`COMPARE_RUN_SHIFTS`) and its label is
    1[u_ir < p_ir], where u_ir is a per-question uniform shared by the runs, or with probability
    0.15 the run's own: the runs' labels are positively correlated (about 0.55-0.7), as two models'
    answers to the same questions are.
    """
    rng = np.random.default_rng(seed + 32)
    questions = gpqa_style_questions(seed)[["question_id", "domain", "level"]]
    base = gpqa_accuracy("small", questions["domain"], questions["level"]) - rng.uniform(0.0, 0.3, len(questions))
    shared = rng.random(len(questions))
    frames = []
    for run, shift in COMPARE_RUN_SHIFTS.items():
        p = np.clip(base + shift, 0.02, 0.98)
        own = rng.random(len(questions))
        u = np.where(rng.random(len(questions)) < 0.15, own, shared)
        frame = questions.copy()
        frame.insert(1, "run", run)
        frame["p_correct"] = np.round(p, 4)
        frame["correct"] = (u < p).astype(int)
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    out["provenance"] = "synthetic"
    return out
