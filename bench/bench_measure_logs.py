"""Measuring a 100,000-sample Inspect AI ``.eval`` log straight from the log (issue 20).

The log is made at bench time with the member layout of the committed fixture
(tests/fixtures/testbed/inspect_mixture.eval, written by inspect-ai): the same ``header.json``,
``summaries.json``, ``reductions.json`` and ``_journal/`` members, and ``samples/<id>_epoch_1.json``
members, each Zstandard-compressed (zip method 93) in a ZIP64 archive (more than 65,535 members,
as inspect-ai writes it). The fixture's 864 samples are repeated under new cluster names
(each copy keeps its testbed tag, with a cluster fingerprint of its own) up to ``--samples``.

Each reader runs in a fresh process (time after the imports; peak resident memory, and what
reading added to the imported interpreter):

* measure: ``analyses.response_log_source(path)`` + ``measure`` (no bootstrap): the rows read
  one sample at a time, then the response-log checks and the estimates;
* baseline: the project's replay reader on the same file, ``load_audit_source(path,
  score="testbed")`` (it keeps every parsed sample in memory).

Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import io
import json
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FIXTURE = ROOT / "tests" / "fixtures" / "testbed" / "inspect_mixture.eval"
ZSTD = 93


def fixture_members() -> list[tuple[str, bytes]]:
    """(name, uncompressed bytes) of every member of the fixture log, in archive order."""
    from audit_core.data.inspect_log import _zip_member
    raw = FIXTURE.read_bytes()
    archive = zipfile.ZipFile(io.BytesIO(raw))
    return [(info.filename, _zip_member(archive, raw, info)) for info in archive.infolist()]


def write_zstd_zip(path: Path, members) -> None:
    """A ZIP64 archive whose members are Zstandard frames (method 93), as inspect-ai writes them."""
    import zstandard
    compressor = zstandard.ZstdCompressor(level=3)
    central = []
    with open(path, "wb") as out:
        for name, data in members:
            packed = compressor.compress(data)
            crc, encoded, offset = zlib.crc32(data), name.encode("utf-8"), out.tell()
            out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 63, 0, ZSTD, 0, 0x21, crc, len(packed), len(data),
                                  len(encoded), 0) + encoded + packed)
            central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, 0, ZSTD, 0, 0x21, crc, len(packed),
                                       len(data), len(encoded), 0, 0, 0, 0, 0, offset) + encoded)
        start = out.tell()
        for entry in central:
            out.write(entry)
        size, count, end64 = out.tell() - start, len(central), out.tell()
        out.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, size, start))
        out.write(struct.pack("<IIQI", 0x07064B50, 0, end64, 1))
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, size, start, 0))


def synthetic_log(path: Path, n_samples: int) -> int:
    members = fixture_members()
    samples = [(n, json.loads(d)) for n, d in members if n.startswith("samples/")]
    rest = [(n, d) for n, d in members if not n.startswith("samples/")]

    def generated():
        written = 0
        copy = 0
        while written < n_samples:
            for _, sample in samples:
                if written == n_samples:
                    return
                meta = sample["metadata"]
                cluster = f"c{copy:04d}{meta['cluster']}"
                body = dict(sample, id=f"{cluster}:{meta['cell']}",
                            metadata=dict(meta, cluster=cluster,
                                          testbed=dict(meta["testbed"], cluster_key=f"{copy:04d}{meta['testbed']['cluster_key'][4:]}")))
                yield f"samples/{body['id']}_epoch_1.json", json.dumps(body).encode("utf-8")
                written += 1
            copy += 1

    write_zstd_zip(path, [*((n, d) for n, d in rest if n == "header.json" or n.startswith("_journal")),
                          *generated(), *((n, d) for n, d in rest if n != "header.json" and not n.startswith("_journal"))])
    return len(samples)


CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from audit_core import analyses
from audit_core.data.sources import load_audit_source
from audit_core.measure import measure
path, which = {path!r}, {which!r}
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
if which == "measure":
    log = analyses.response_log_source(path).value
    result = measure(log, bootstrap=0)
    tau = result.pooled.estimate("tau_full")
    detail = {{"observed": int(log.observed.sum()), "units": log.n_units, "tau": [tau.successes, tau.n]}}
else:
    data = load_audit_source(path, score="testbed", subgroups=())
    detail = {{"observed": len(data.scores)}}
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": seconds, "peak_mb": peak / 1024, "baseline_mb": before / 1024, **detail}}))
"""


def timed(path: Path, which: str) -> dict:
    """Time and peak resident memory of one reader in a fresh process (imports excluded from the
    time; ``peak_mb - baseline_mb`` is what the reading added to the imported interpreter)."""
    code = CHILD.format(root=str(ROOT), path=str(path), which=which)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.eval"
        start = time.perf_counter()
        per_copy = synthetic_log(path, args.samples)
        made = time.perf_counter() - start
        size_mb = path.stat().st_size / 2**20

        m = timed(path, "measure")
        r = timed(path, "replay")
    assert m["observed"] == args.samples and r["observed"] == args.samples
    m_add, r_add = m["peak_mb"] - m["baseline_mb"], r["peak_mb"] - r["baseline_mb"]
    print(f"synthetic .eval log: {args.samples} samples ({per_copy} per copy of the fixture), {size_mb:.1f} MB, "
          f"written in {made:.1f} s")
    print(f"measure (read + checks + estimates): {m['seconds']:.2f} s, peak RSS {m['peak_mb']:.0f} MB "
          f"(+{m_add:.0f} MB over the imports); {m['units']} units, τ_full {m['tau'][0]}/{m['tau'][1]}")
    print(f"replay reader on the same log:       {r['seconds']:.2f} s, peak RSS {r['peak_mb']:.0f} MB "
          f"(+{r_add:.0f} MB over the imports)")
    print(f"ratio measure / replay reader: time {m['seconds'] / r['seconds']:.2f}, "
          f"added memory {m_add / max(r_add, 1e-9):.2f}")
    print(json.dumps({"samples": args.samples, "file_mb": round(size_mb, 1), "measure_s": round(m["seconds"], 3),
                      "measure_peak_mb": round(m["peak_mb"], 1), "measure_added_mb": round(m_add, 1),
                      "replay_reader_s": round(r["seconds"], 3), "replay_reader_peak_mb": round(r["peak_mb"], 1),
                      "replay_reader_added_mb": round(r_add, 1), "time_ratio": round(m["seconds"] / r["seconds"], 3),
                      "added_memory_ratio": round(m_add / max(r_add, 1e-9), 3)}))


if __name__ == "__main__":
    main()
