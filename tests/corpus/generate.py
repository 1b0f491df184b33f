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


# ----------------------------------------------------------------- hostile shapes (issue 18, item 2)

ROOT = Path(__file__).resolve().parents[2]
DEEP = "[" * 100_000 + "]" * 100_000  # 200 KB: nested far past Python's recursion limit


def _lmeval_rows() -> list[dict]:
    return [{"doc_id": i, "doc": {"subject": "ab"[i % 2]}, "acc": float(i % 3 != 0), "filter": "none",
             "metrics": ["acc"]} for i in range(12)]


def _jsonl(rows) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def lmeval_deep() -> bytes:
    """lm-eval samples whose first doc is nested 100,000 levels deep."""
    return _jsonl(_lmeval_rows()).replace(b'{"subject": "a"}', DEEP.encode(), 1)


def _inspect_log() -> dict:
    return json.loads((ROOT / "tests" / "fixtures" / "inspect" / "run.json").read_text())


def inspect_huge_epoch() -> bytes:
    """An Inspect JSON log whose first epoch is a 400-digit integer."""
    return json.dumps(_inspect_log()).replace('"epoch": 1', '"epoch": ' + "7" * 400, 1).encode()


def inspect_huge_score() -> bytes:
    """An Inspect JSON log whose first score value is a 5,000-digit integer."""
    return json.dumps(_inspect_log()).replace('"value": "C"', '"value": ' + "1" * 5000, 1).encode()


def policy_huge_tau() -> bytes:
    """The frozen class with a 5,001-digit τ."""
    text = (ROOT / "data" / "frozen_policies.json").read_text()
    return text.replace('"tau": 1', '"tau": 1' + "0" * 5000, 1).encode()


def replay_document() -> bytes:
    """A real ``replay --json`` document (of the bundled Inspect fixture)."""
    import contextlib
    import io

    from audit_core.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["replay", str(ROOT / "tests" / "fixtures" / "inspect" / "run.json"), "--score", "match",
                     "--json"]) == 0
    return out.getvalue().encode()


def combine_huge_number() -> bytes:
    """A replay document whose case count has more than 5,000 digits."""
    return replay_document().replace(b'"n": ', b'"n": 1' + b"0" * 5000, 1)


def eval_zstd_bomb(expanded: int = 2**30) -> bytes:
    """A .eval archive (about 40 KB) whose one sample member is a Zstandard frame expanding to
    ``expanded`` bytes of blanks, its zip header claiming 2 KB (a lying bomb)."""
    import io
    import struct
    import zipfile

    import zstandard
    compressor = zstandard.ZstdCompressor(level=3).compressobj()
    chunk = b" " * 2**20
    frame = b"".join(compressor.compress(chunk) for _ in range(expanded // len(chunk))) + compressor.flush()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("header.json", json.dumps({"eval": {"task": "bomb"}, "status": "success"}))
        archive.writestr("samples/1_epoch_1.json", frame)
    raw = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as archive:
        info = archive.getinfo("samples/1_epoch_1.json")
    central = raw.rindex(b"PK\x01\x02")  # the last central-directory entry is the sample's
    for at, method_offset, size_offset in ((info.header_offset, 8, 22), (central, 10, 24)):
        struct.pack_into("<H", raw, at + method_offset, 93)  # Zstandard
        struct.pack_into("<I", raw, at + size_offset, 2048)  # the lie: 2 KB uncompressed
    return bytes(raw)


HOSTILE = {
    "run_lmeval_deep.jsonl": lmeval_deep,
    "run_inspect_400_digit_epoch.json": inspect_huge_epoch,
    "run_inspect_5000_digit_score.json": inspect_huge_score,
    "run_eval_zstd_bomb.eval": eval_zstd_bomb,
    "policy_5001_digit_tau.json": policy_huge_tau,
    "combine_deep.json": lambda: DEEP.encode(),
    "combine_5001_digits.json": combine_huge_number,
    "testbed_deep.jsonl": lambda: (DEEP + "\n").encode(),
}


def many_runs(folder: Path, n: int = 300, rows: int = 200) -> list[Path]:
    """``n`` small labelled runs, distinct (for ``combine``)."""
    rng = np.random.default_rng(3)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        frame = pd.DataFrame({"id": np.arange(rows), "correct": (rng.random(rows) < 0.8).astype(int)})
        paths.append(folder / f"run{i:03d}.csv")
        paths[-1].write_bytes(frame.to_csv(index=False).encode())
    return paths


LARGE = {
    "log_own_clusters.csv": own_cluster_log,
    "run_many_subgroups.csv": many_subgroups_run,
    "run_long.csv": long_run,
    "policy_139.json": many_policies,
    "policy_13_components.json": many_components,
    "log_many_columns.csv": many_columns_log,
}


# ------------------------------------------------------------ bounds on every input (issue 27, 6-7)

def million_columns_run(n_columns: int = 10**6) -> bytes:
    """A 6.9 MB header of 10^6 columns and one row (took the Replay page past 100 s and 2.9 GB)."""
    return (",".join(f"c{i}" for i in range(n_columns)) + "\n" + ",".join("1" * n_columns) + "\n").encode()


def distinct_subgroups_run(n_rows: int = 4_450_000) -> bytes:
    """49 MB of rows whose subgroups are all distinct (60.6 s and 1.94 GB on the Replay page):
    ``score,g0000000`` ... written as one fixed-width byte matrix (fast to make)."""
    rng = np.random.default_rng(4)
    width = 11                                            # "1,g0000000\n"
    rows = np.empty((n_rows, width), dtype=np.uint8)
    rows[:, 0] = (rng.random(n_rows) < 0.9) + ord("0")
    rows[:, 1:3] = np.frombuffer(b",g", dtype=np.uint8)
    number = np.arange(n_rows)
    for place in range(7):                                # seven digits, least significant last
        rows[:, 9 - place] = number // 10**place % 10 + ord("0")
    rows[:, 10] = ord("\n")
    return b"score,subgroup\n" + rows.tobytes()


def many_subgroups_small_run(n_subgroups: int = 25_000) -> bytes:
    """25,000 distinct subgroups in 0.5 MB: within the cell limit, beyond the subgroup limit."""
    return many_subgroups_run(n_subgroups)


def long_first_line_run(chars: int = 200_000) -> bytes:
    """A first line of 200 KB without a delimiter (the csv module's field limit is 128 KB)."""
    return ("s" * chars + "\n1\n0\n").encode()


def long_quoted_cell_run(chars: int = 200_000) -> bytes:
    """A quoted free-text cell of 200 KB: long texts are legitimate and are read."""
    return ('score,grp,text\n1,a,"' + "t" * chars + '"\n0,b,short\n1,a,x\n').encode()


def lone_surrogate_lmeval() -> bytes:
    """lm-eval samples whose subject is a lone surrogate escape (\\udc80), which no UTF-8 writer can
    encode: the report's chart failed far from the file."""
    return _jsonl(_lmeval_rows()).replace(b'"subject": "a"', b'"subject": "\\udc80a"')


def emoji_subgroup_run(n_emoji: int = 45) -> bytes:
    """A subgroup named with 45 emoji: Vega cut a surrogate pair when shortening the axis label and
    `report --replay` failed in vl-convert."""
    name = "\U0001F600" * n_emoji
    rows = "".join(f"c{i},{name if i % 2 else 'plain'},{int(i % 5 != 0)}\n" for i in range(40))
    return ("case,subgroup,correct\n" + rows).encode()


def distinct_subgroups_pool(n_subgroups: int = 50_000) -> bytes:
    """A pool of 50,000 one-case subgroups for `simulate --pool`."""
    return distinct_subgroups_run(n_subgroups)


BOUNDS = {
    "run_million_columns.csv": million_columns_run,
    "run_49mb_distinct_subgroups.csv": distinct_subgroups_run,
    "run_25000_subgroups.csv": many_subgroups_small_run,
    "run_200kb_first_line.csv": long_first_line_run,
    "run_200kb_quoted_cell.csv": long_quoted_cell_run,
    "run_lone_surrogate.jsonl": lone_surrogate_lmeval,
    "run_emoji_subgroup.csv": emoji_subgroup_run,
    "pool_50000_subgroups.csv": distinct_subgroups_pool,
    "testbed_100000_items.jsonl": lambda: b"{}\n" * 100_000,   # counted before a line is parsed
}


def write_all(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, make in {**LARGE, **HOSTILE, **BOUNDS}.items():
        path = folder / name
        path.write_bytes(make())
        out[name] = path
    return out


if __name__ == "__main__":
    for path in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "corpus_large")).values():
        print(f"{path}: {path.stat().st_size:,} bytes")
