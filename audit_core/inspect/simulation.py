"""Inspect's scheduling, simulated through a manager's own protocol methods (docs/inspect.md, Validity).

:func:`simulate_run` plays one evaluation: items with known success probabilities are scheduled in
dataset order (``schedule_sample``; a skipped one never runs), at most ``concurrency`` run at once,
and which running sample completes next (``complete_sample``) is chosen by ``order``:

* ``"random"``: any running sample, uniformly;
* ``"low-after-failure"``: after a failure, the running sample with the lowest success probability
  completes next (runs of failures for the model's null), else a random one;
* ``"high-after-success"``: after a success, the one with the highest (runs of successes for the
  auditor's null and the upper side of the intervals), else a random one.

The adversary sees the items' probabilities and every past score, never the score of the sample
it lets complete (drawn when it completes): the completion order depends on past scores, as when
a slow grader or a retry delays some samples. A sample whose own outcome delays it is a different
case, which the guarantee does not cover (docs/inspect.md): ``"successes-first"`` plays it, a
running sample that will be correct completes before any that will not (wrong answers that take
longer, or time out), the negative control of the validity simulation. The protocol's coroutines never wait, so
they are run without an event loop (:func:`run_now`).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from audit_core.errors import InputError

ORDERS = ("random", "low-after-failure", "high-after-success", "successes-first")


def run_now(coroutine):
    """The value of a coroutine that never suspends (the manager's methods), without an event loop."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the coroutine suspended; run it in an event loop")


def simulate_run(manager, probabilities, rng: np.random.Generator, metadata=None, epochs: int = 1,
                 concurrency: int = 8, order: str = "random", scorer: str = "match", outcomes=None) -> dict:
    """One simulated evaluation through ``manager``'s four protocol methods; returns its record.

    Args:
        manager: an early-stopping manager (:func:`audit_core.inspect.early_stopping`).
        probabilities: each item's probability of a correct answer (C), in dataset order.
        rng: the generator of the outcomes and of the random completion choices.
        metadata: each item's metadata (subgroups), or None.
        epochs: epochs per item (each (item, epoch) drawn afresh).
        concurrency: samples running at once (Inspect's ``max_samples``).
        order: which running sample completes next, one of :data:`ORDERS`.
        scorer: the scorer's name in the scores handed to the manager.
        outcomes: fixed 0/1 outcomes per (item, epoch) instead of draws (shape items x epochs).

    Returns:
        ``complete_task``'s record (the manager's ``summary()[METADATA_KEY]``).
    """
    from audit_core.inspect._manager import METADATA_KEY

    if order not in ORDERS:
        raise InputError(f"order: expected one of {', '.join(ORDERS)}, got {order!r}")
    p = np.asarray(probabilities, dtype=float)
    n = len(p)
    metadata = [{}] * n if metadata is None else list(metadata)
    task = SimpleNamespace(task="simulated", scorers=[SimpleNamespace(name=scorer)])
    samples = [SimpleNamespace(id=i + 1, metadata=metadata[i]) for i in range(n)]
    run_now(manager.start_task(task, samples, epochs))
    queue = [(i, e) for e in range(1, epochs + 1) for i in range(n)]
    draws = (rng.random((n, epochs)) < p[:, None]) if outcomes is None else np.asarray(outcomes, dtype=bool)
    running: list[tuple[int, int]] = []
    position, last = 0, None
    while position < len(queue) or running:
        while len(running) < concurrency and position < len(queue):
            i, e = queue[position]
            position += 1
            if run_now(manager.schedule_sample(i + 1, e)) is None:
                running.append((i, e))
        if not running:
            continue
        if order == "low-after-failure" and last == 0.0:
            pick = min(range(len(running)), key=lambda k: p[running[k][0]])
        elif order == "high-after-success" and last == 1.0:
            pick = max(range(len(running)), key=lambda k: p[running[k][0]])
        elif order == "successes-first":
            right = [k for k in range(len(running)) if draws[running[k][0], running[k][1] - 1]]
            pick = right[0] if right else 0
        else:
            pick = int(rng.integers(len(running)))
        i, e = running.pop(pick)
        last = 1.0 if draws[i, e - 1] else 0.0
        run_now(manager.complete_sample(i + 1, e, {scorer: "C" if last else "I"}))
    return run_now(manager.complete_task())[METADATA_KEY]


def simulate_runs(make_manager, probabilities, runs: int, seed: int = 0, metadata=None, concurrency: int = 8,
                  progress=None) -> list[dict]:
    """``runs`` simulated evaluations of the items (docs/inspect.md, planning a run), each through a
    fresh manager from ``make_manager()``: the items in a new random dataset order every run (the
    order a real run will have is not known in advance), outcomes drawn from ``probabilities``,
    ``concurrency`` samples at once, completing in random order. Seeded by ``seed``: run ``r`` uses
    the generator ``default_rng([seed, r])``, so a run's outcome does not depend on how many others
    are simulated. ``progress(done, total)`` after each run. Returns each run's record (as
    :func:`simulate_run`)."""
    p = np.asarray(probabilities, dtype=float)
    records = []
    for r in range(int(runs)):
        rng = np.random.default_rng([int(seed), r])
        order = rng.permutation(len(p))
        items = None if metadata is None else [metadata[i] for i in order]
        records.append(simulate_run(make_manager(), p[order], rng, metadata=items, concurrency=concurrency))
        if progress is not None:
            progress(r + 1, int(runs))
    return records
