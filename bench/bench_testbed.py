"""Testbed solver: label a signed-Horn theory of 10^5 rules (issue 12 target: < 1 s).

The theory is a layered DAG (:func:`layered_theory`) of 40, then 400 layers: one rule per atom, so
the theory is consistent and derivations are as deep as the layers; rules are listed from the last
layer to the first. The counter-based solver (:func:`solve`, interning included) is timed against the
naive fixpoint loop S_{i+1} = T(S_i) (:func:`naive_closure`) on the same theory in the same run;
both must give the same derivable set. Last line: one JSON object.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from audit_core.testbed import Rule, Theory, naive_closure, solve  # noqa: E402 (after the sys.path line: this checkout's package)

N_RULES = 100_000
LAYERS = 40
SHAPES = (LAYERS, 400)  # 2,500 and 250 atoms per layer
SEED = 12


def layered_theory(n_rules: int = N_RULES, layers: int = LAYERS, seed: int = SEED) -> Theory:
    """Layer 0: facts. Each atom of layer l >= 1 is the head (random sign) of one rule with two body
    literals of layer l - 1: with probability 0.9 both are derivable (so the head is), otherwise one
    has the sign nothing derives (so the head is not). Derivations are ``layers`` rules deep."""
    rng = np.random.default_rng(seed)
    width = n_rules // layers
    live = [f"x0_{i}" for i in range(width)]  # derivable literals of the previous layer
    dead = ["-" + x for x in live]            # their complements: never derivable
    facts = tuple(live)
    rules = []
    for layer in range(1, layers + 1):
        negative = rng.random(width) < 0.3
        fires = rng.random(width) < 0.9
        next_live, next_dead = [], []
        for i in range(width):
            head = ("-" if negative[i] else "") + f"x{layer}_{i}"
            first = live[int(rng.integers(len(live)))]
            second = (live if fires[i] else dead)[int(rng.integers(len(live)))]
            rules.append(Rule((first, second), head))
            (next_live if fires[i] else next_dead).append(head)
            if fires[i]:
                next_dead.append(head[1:] if head.startswith("-") else "-" + head)
        live, dead = next_live, next_dead
    rules.reverse()  # last layer first: the order least favourable to a single sweep
    query = live[0].lstrip("-")
    return Theory(facts, tuple(rules), query)


def best_of(fn, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def run_shape(layers: int) -> dict:
    theory = layered_theory(layers=layers)
    fast_s, solution = best_of(lambda: solve(theory), 5)
    naive_s, naive = best_of(lambda: naive_closure(theory), 1)
    assert solution.derived == naive, "solver and naive fixpoint disagree"
    assert solution.consistent
    print(f"{len(theory.rules)} rules in {layers} layers: solver (counter-based, best of 5) {fast_s:.3f} s, "
          f"naive fixpoint loop {naive_s:.3f} s -> {naive_s / fast_s:.1f}x "
          f"({len(solution.derived)} derived literals, label {solution.label})")
    return {"rules": len(theory.rules), "size": theory.size, "layers": layers,
            "derived_literals": len(solution.derived), "label": solution.label,
            "solver_s": round(fast_s, 4), "naive_fixpoint_s": round(naive_s, 4),
            "ratio": round(naive_s / fast_s, 1), "target_met": fast_s < 1.0}


def main() -> None:
    # The naive loop costs one pass per layer, so its ratio grows with the derivation depth.
    results = [run_shape(layers) for layers in SHAPES]
    print(json.dumps({"target_s": 1.0, "shapes": results}))


if __name__ == "__main__":
    main()
