"""An ordinary Inspect AI task with subgroups and a scripted mock model, offline (tests/inspect).

``arith_task(n, ...)``: n questions "what is i + i?", metadata ``subject`` (three subjects) and
``level``; the model ``mockllm/model`` answers from :func:`scripted_answer`: right except where
the subject's error rate (fixed per question by a seeded draw) says wrong. Each output's token
usage is set: without it Inspect counts tokens with a tokenizer file it downloads.
"""

from __future__ import annotations

import random

SUBJECTS = ("algebra", "biology", "chemistry")


def wrong_questions(n: int, error_rates: dict[str, float], seed: int = 0) -> set[int]:
    rng = random.Random(seed)
    return {i for i in range(n) if rng.random() < error_rates[SUBJECTS[i % 3]]}


def arith_task(n: int, error_rates: dict[str, float], early_stopping=None, epochs: int = 1, seed: int = 0,
               fail: set[int] = frozenset(), score_on_error: bool = False):
    """(task, model) for ``inspect_ai.eval``; questions in ``fail`` raise inside the solver."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate, solver

    wrong = wrong_questions(n, error_rates, seed)
    samples = [Sample(id=f"q{i:03d}", input=f"Question {i}: what is {i} + {i}?", target=str(2 * i),
                      metadata={"subject": SUBJECTS[i % 3], "level": "hard" if i % 4 == 0 else "easy"})
               for i in range(n)]

    def answer(messages, tools, tool_choice, config):
        i = int(messages[-1].text.split()[1].rstrip(":"))
        output = ModelOutput.from_content(model="mockllm/model", content=str(2 * i + (7 if i in wrong else 0)))
        output.usage = ModelUsage(input_tokens=12, output_tokens=2, total_tokens=14)
        return output

    @solver
    def fail_on():
        async def solve(state, generate_):
            if int(str(state.sample_id)[1:]) in fail:
                raise RuntimeError("simulated failure of one sample")
            return state
        return solve

    task = Task(dataset=samples, solver=[fail_on(), generate()], scorer=match(), epochs=epochs, name="arith",
                early_stopping=early_stopping)
    return task, get_model("mockllm/model", custom_outputs=answer)
