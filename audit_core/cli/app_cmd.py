"""``app`` command: start the dashboard (Streamlit) on this package's ``app.py``.

``python -m audit_core app [--port N] [--address HOST] [-- STREAMLIT_OPTION ...]`` (or
``audit-workbench app``) becomes ``python -m streamlit run`` on the checkout's ``app.py`` or, for an installed
wheel, on its copy inside the package (:mod:`audit_core.project`), so the dashboard starts from any
folder. Streamlit reads the app's ``.streamlit/config.toml`` beside that ``app.py``; options after
``--`` go to ``streamlit run`` unchanged (e.g. ``-- --server.headless true``).
"""

from __future__ import annotations

import argparse
import os
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "app", help="start the dashboard (streamlit run on the packaged app.py)",
        description="Start the Streamlit dashboard from any folder; the same app as `streamlit run app.py` "
                    "in a checkout. Stop it with Ctrl+C.")
    p.add_argument("--port", type=int, metavar="N", help="port to listen on (Streamlit's default 8501)")
    p.add_argument("--address", metavar="HOST",
                   help="address to listen on (default: every interface; 127.0.0.1 for this machine only)")
    p.add_argument("streamlit_options", nargs=argparse.REMAINDER, metavar="-- OPTION",
                   help="further `streamlit run` options, after --")
    p.set_defaults(func=run)


def streamlit_argv(args) -> list[str]:
    """The ``streamlit`` command line this command runs (tested without starting a server)."""
    from audit_core.project import project_path

    options = list(args.streamlit_options)
    if options[:1] == ["--"]:
        options = options[1:]
    if args.port is not None:
        options += ["--server.port", str(args.port)]
    if args.address is not None:
        options += ["--server.address", args.address]
    return ["streamlit", "run", str(project_path("app.py")), *options]


def run(args) -> int:
    # This process becomes `python -m streamlit run ...` (the package imports no Streamlit itself):
    # Ctrl+C and a service manager's SIGTERM then reach the server directly, and its status is ours.
    argv = [sys.executable, "-m", *streamlit_argv(args)]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, argv)
    return 0  # not reached
