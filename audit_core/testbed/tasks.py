"""Runnable evaluation tasks from testbed items: an Inspect AI task file and an lm-eval task folder.

Both carry, per sample, what ``measure`` needs to read their logs without a hand-made CSV: the
cluster, the cell and its axes (world, mapping, readout), the oracle label of the world, the
correct letter, and the testbed they come from (:func:`testbed_tag`: the generator seed and a
fingerprint of the cluster's three theories and two edits, so logs of items of another seed are
refused instead of being measured as if they were the same problems). Options are always listed
in letter order under the cell's mapping (``options_of``), so the letter a model chooses means
what the cell says.

* Inspect AI (``inspect eval task.py --model ...``): ``task.py`` reads the samples file beside it
  (:func:`~audit_core.testbed.items.inspect_sample` records). Cells of the ``generated`` readout
  use Inspect's ``multiple_choice()`` solver (the model writes ``ANSWER: <letter>``); cells of
  the ``scoring`` readout ask for one token with log-probabilities and take the option letter
  with the highest one (the first letter of the completion when the provider gives none). One
  scorer, ``testbed``, records the letter as the score's ``answer`` (None when there is none).
* lm-eval (``lm_eval --tasks testbed --include_path DIR --log_samples``): tasks
  ``testbed_generated`` (``generate_until``; filter ``letter`` keeps the first option letter,
  ``[invalid]`` when there is none) and ``testbed_scoring`` (``multiple_choice`` over the
  continuations " A", " B", " C": lm-eval's log-likelihood scoring), under the tag ``testbed``.
  The data files are named by absolute path in the YAML (lm-eval resolves relative ones against
  the working directory), so the folder is run where it was written.

This module writes text only; it imports neither tool.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from audit_core.data.files import write_file
from audit_core.testbed.generator import Cluster
from audit_core.testbed.items import GENERATED, SCORING, Item, inspect_sample

TAG_KEY = "testbed"  # metadata / doc key of the testbed tag
LMEVAL_TAG = "testbed"
LMEVAL_TASKS = {GENERATED: "testbed_generated", SCORING: "testbed_scoring"}
LETTER_FILTER = "letter"


def cluster_fingerprint(cluster: Cluster) -> str:
    """12 hex digits of the SHA-256 of the cluster's JSON form (theories, edits, labels)."""
    text = json.dumps(cluster.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def testbed_tag(seed: int, clusters: Iterable[Cluster]) -> dict[str, dict[str, Any]]:
    """cluster name -> ``{"seed": seed, "cluster_key": fingerprint}`` (module docstring)."""
    return {c.name: {"seed": int(seed), "cluster_key": cluster_fingerprint(c)} for c in clusters}


def tagged_inspect_sample(item: Item, tag: Mapping[str, Any]) -> dict[str, Any]:
    """The Inspect sample of an item with the testbed tag in its metadata."""
    record = inspect_sample(item)
    record["metadata"][TAG_KEY] = dict(tag)
    return record


def lmeval_doc(item: Item, tag: Mapping[str, Any]) -> dict[str, Any]:
    """One lm-eval document: the item's prompt (options and readout instruction included), the
    option letters as choices, the index of the correct one, and the measure metadata."""
    letters = [x for x, _ in item.options]
    return {"id": item.id, "cluster": item.cluster, "cell": item.cell, "world": item.world,
            "mapping": item.mapping, "readout": item.readout, "direction": item.direction,
            "oracle": item.oracle, "oracles": item.world_oracles, "correct": item.correct, "choices": letters,
            "answer_index": letters.index(item.correct), "prompt": item.prompt, TAG_KEY: dict(tag)}


INSPECT_TASK_TEMPLATE = '''"""Testbed items as an Inspect AI task ({n_items} samples: {n_clusters} clusters x {n_cells} cells, seed {seed}).

Written by the Evaluation Audit Workbench (testbed generate). Run, then measure the log:

    inspect eval {task_file} --model <provider>/<model>
    python -m audit_core measure logs/<the log>.eval

The samples are read from {samples_file} beside this file. Each sample's metadata holds its
cluster, cell (world:mapping:readout), oracle and testbed tag; its choices are the labels in the
letter order of the cell's mapping. Readout "generated": Inspect's multiple_choice() solver.
Readout "scoring": one token with log-probabilities; the option letter with the highest
log-probability is the answer (the first letter written when the provider gives none).
"""

import re
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import json_dataset
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState, multiple_choice, solver

SAMPLES = Path(__file__).resolve().with_name({samples_file!r})
LETTER = re.compile(r"^\\s*(?:ANSWER\\s*:\\s*)?\\(?([A-Z])\\)?[.:)]?\\s*$", re.IGNORECASE)
STATED = re.compile(r"ANSWER\\s*:\\s*\\(?([A-Z])\\b", re.IGNORECASE)


def option_letters(state):
    return [chr(ord("A") + i) for i in range(len(state.choices))]


def scoring_prompt(state):
    options = "\\n".join(f"{{x}}. {{c.value}}" for x, c in zip(option_letters(state), state.choices))
    return f"{{state.input_text}}\\n{{options}}\\nAnswer:"


@solver
def testbed_readout():
    generated = multiple_choice()

    async def solve(state: TaskState, generate):
        if state.metadata["readout"] == "generated":
            return await generated(state, generate)
        state.user_prompt.text = scoring_prompt(state)
        return await generate(state, max_tokens=1, logprobs=True, top_logprobs=20)
    return solve


def answer_letter(state):
    """The option letter the model chose, or None."""
    letters = option_letters(state)
    choice = state.output.choices[0] if state.output and state.output.choices else None
    if state.metadata["readout"] == "scoring" and choice is not None and choice.logprobs:
        first = choice.logprobs.content[0]
        best = {{}}
        for entry in [first] + list(first.top_logprobs or []):
            token = entry.token.strip().upper()
            if token in letters and entry.logprob > best.get(token, float("-inf")):
                best[token] = entry.logprob
        if best:
            return max(best, key=best.get)
    text = state.output.completion if state.output else ""
    match = LETTER.match(text or "") or STATED.search(text or "")
    letter = match.group(1).upper() if match else None
    return letter if letter in letters else None


@scorer(metrics=[accuracy()])
def testbed():
    async def score(state: TaskState, target: Target):
        letter = answer_letter(state)
        return Score(value=CORRECT if letter == target.text else INCORRECT, answer=letter,
                     explanation=None if letter else "no option letter in the answer")
    return score


@task
def testbed_items():
    return Task(dataset=json_dataset(str(SAMPLES)), solver=testbed_readout(), scorer=testbed(),
                metadata={{"testbed_seed": {seed}, "testbed_support": {support!r}}})
'''


def inspect_task_files(items: Iterable[Item], tags: Mapping[str, Mapping[str, Any]], seed: int,
                       task_path: str | Path) -> dict[str, str]:
    """{file name: text}: the task file and its samples file (``<stem>.jsonl`` beside it); the
    task's metadata names the cells the items cover (``testbed_support``)."""
    task_path = Path(task_path)
    items = list(items)
    samples_file = f"{task_path.stem}.jsonl"
    samples = "".join(json.dumps(tagged_inspect_sample(i, tags[i.cluster]), ensure_ascii=False, sort_keys=True)
                      + "\n" for i in items)
    covered = {i.cell for i in items}
    support = [c for c in dict.fromkeys(i.cell for i in items) if c in covered]
    code = INSPECT_TASK_TEMPLATE.format(n_items=len(items), n_clusters=len({i.cluster for i in items}), seed=int(seed),
                                        task_file=task_path.name, samples_file=samples_file, support=support,
                                        n_cells=len(support))
    return {task_path.name: code, samples_file: samples}


def _yaml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid YAML double-quoted scalar


def lmeval_task_files(items: Iterable[Item], tags: Mapping[str, Mapping[str, Any]], folder: str | Path) -> dict[str, str]:
    """{file name: text} of the lm-eval task folder: per readout a data file and a task YAML."""
    folder = Path(folder).resolve()
    items = list(items)
    files: dict[str, str] = {}
    for readout, task in LMEVAL_TASKS.items():
        chosen = [i for i in items if i.readout == readout]
        data = f"{task}.jsonl"
        files[data] = "".join(json.dumps(lmeval_doc(i, tags[i.cluster]), ensure_ascii=False, sort_keys=True) + "\n"
                              for i in chosen)
        head = [f"task: {task}", f"tag: {LMEVAL_TAG}", "dataset_path: json", "dataset_kwargs:", "  data_files:",
                f"    test: {_yaml_string(str(folder / data))}", "test_split: test", 'doc_to_text: "{{prompt}}"']
        if readout == GENERATED:
            body = ["output_type: generate_until", "doc_to_target: correct", "generation_kwargs:",
                    '  until: ["\\n"]', "  max_gen_toks: 16", "  do_sample: false", "metric_list:",
                    "  - metric: exact_match", "    aggregation: mean", "    higher_is_better: true",
                    "filter_list:", f"  - name: {LETTER_FILTER}", "    filter:", "      - function: regex",
                    "        regex_pattern: " + _yaml_string(r"^\s*(?:ANSWER\s*:\s*)?\(?([A-Z])\b"),
                    "      - function: take_first"]
        else:
            body = ["output_type: multiple_choice", 'doc_to_choice: "{{choices}}"', "doc_to_target: answer_index",
                    "metric_list:", "  - metric: acc", "    aggregation: mean", "    higher_is_better: true"]
        files[f"{task}.yaml"] = "\n".join(head + body) + "\n"
    return files


def write_files(files: Mapping[str, str], folder: str | Path) -> list[Path]:
    """Write ``files`` into ``folder`` (created); returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        path = folder / name
        write_file(path, text.encode("utf-8"), "task file")  # whole or not at all, also on Ctrl-C
        written.append(path)
    return written
