"""Where the project's top-level files are: the dashboard (``app.py``, ``pages/``, its
``.streamlit/config.toml``) and the bundled datasets (``data/``).

In a checkout they sit beside the ``audit_core`` folder. An installed wheel carries the same files
as ``audit_core/app/`` (pyproject.toml maps the repository's root to that package, with only these
files as its data), so ``pip install .`` used from any folder finds the bundled names, the example
log and the dashboard (``python -m audit_core app``). Imports nothing but ``pathlib``.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_INSTALLED = _PACKAGE / "app"


def project_root() -> Path:
    """The folder holding ``app.py``, ``pages/`` and ``data/``: the installed copy when there is
    one (a wheel), else the checkout's root (a clone, or an editable install of it)."""
    return _INSTALLED if (_INSTALLED / "app.py").is_file() else _PACKAGE.parent


def project_path(*parts: str) -> Path:
    """A path under :func:`project_root`, e.g. ``project_path("data", "sdoh_style.csv")``."""
    return project_root().joinpath(*parts)
