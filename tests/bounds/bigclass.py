"""A policy class of k components on one axis (k + 1 cells) and n seeded random policies: the shape
of the issue's 12-component x 512-policy link."""

import base64
import json
import random
import zlib


def big_class(k: int, n_policies: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    values = [f"w{i}" for i in range(k + 1)]
    policies = [{"name": f"p{p}", "tau": rng.randrange(2), "responses": {v: rng.choice("ABC") for v in values}}
                for p in range(n_policies)]
    return {"axes": {"w": values}, "base": {"w": ["w0"]},
            "components": {f"c{i}": {"w": [f"w{i + 1}"]} for i in range(k)}, "policies": policies}


def link_text(document: dict) -> str:
    """The ``?class=`` text of a document, however long (the app's own encoder stops at short ones)."""
    packed = zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 9)
    return base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")
