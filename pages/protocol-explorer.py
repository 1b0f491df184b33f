"""Deep link /protocol-explorer as a fresh server's first request: run the router (see the note in app.py)."""

import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[1] / "app.py"), run_name="__main__")
