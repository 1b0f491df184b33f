"""Issue 19 item 15: the CLI help and the code cite only documents the project ships."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_cited_document_exists():
    cited = set()
    for path in list((ROOT / "audit_core").rglob("*.py")) + list((ROOT / "data").glob("*.md")):
        text = path.read_text(encoding="utf-8").replace("report.md", "")  # the report's own file name
        cited |= {(path, name) for name in re.findall(r"\b((?:docs/)?[\w-]+\.md)\b", text)}
    missing = sorted(f"{p.relative_to(ROOT)}: {name}" for p, name in cited
                     if not (ROOT / name).exists() and not (ROOT / "docs" / name).exists())
    assert not missing, missing


def test_help_cites_no_design_document():
    for command in ("replay", "simulate", "identify"):
        shown = subprocess.run([sys.executable, "-m", "audit_core", command, "--help"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
        assert "DESIGN.md" not in shown and "usage" in shown
    replay_help = subprocess.run([sys.executable, "-m", "audit_core", "replay", "--help"], cwd=ROOT,
                                 capture_output=True, text=True, check=True).stdout
    assert "docs/e-processes.md" in replay_help
