"""Command-line interface (docs/cli.md).

Each command lives in its own module that defines ``register(subparsers)``; the parser built there
sets ``func`` to a callable ``(args) -> int``. Exit status: 0 success, 1 ``identify`` found τ not
identified or a ``--fail-on`` condition was met (``replay``, ``audit status``, ``combine``), 2 bad
input (one line on stderr naming the problem).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from audit_core.errors import InputError

# Modules that contribute sub-commands, in help order.
COMMAND_MODULES = (
    "audit_core.cli.identify_cmd",
    "audit_core.cli.replay_cmd",
    "audit_core.cli.simulate_cmd",
    "audit_core.cli.measure_cmd",
    "audit_core.cli.report_cmd",
    "audit_core.cli.testbed_cmd",
    "audit_core.cli.combine_cmd",
    "audit_core.cli.compare_cmd",
    "audit_core.cli.plan_cmd",
    "audit_core.cli.audit_cmd",
    "audit_core.cli.app_cmd",
)


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit status 2."""

    def error(self, message: str) -> None:  # pragma: no cover - exercised via main()
        raise InputError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m audit_core", description="Evaluation Audit Workbench command line.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # command not built yet; the others still work
                continue
            raise
        module.register(subparsers)
    return parser


@contextlib.contextmanager
def flag(name: str):
    """Name the command-line flag in an engine message: ``--policies: data.csv: ...``."""
    try:
        yield
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None


# --fail-on: the outcomes a pipeline can stop on (docs/cli.md, Exit status). The dual test's
# decisions, and for replay a subgroup flagged below q.
FAIL_ON_DECISIONS = {"failure mode found": "failure", "audit passed": "passed", "inconclusive": "inconclusive"}
ANY_FLAG = "any-flag"


def add_dual_test_flags(parser: argparse.ArgumentParser, style_default: str, *, scope: str = "",
                        processes: bool = True) -> None:
    """``--style``, ``--q``, ``--alpha``, ``--m`` (and ``--model-process``, ``--auditor-process``):
    the dual test's parameters, declared once for every command that runs one (``scope`` says to
    what they apply, e.g. "for CSV runs"; ``style_default`` what the style defaults to)."""
    from audit_core.presets import (
        AUDITOR_PROCESSES,
        DEFAULT_AUDITOR_PROCESS,
        DEFAULT_MODEL_PROCESS,
        MODEL_PROCESSES,
        STYLES,
    )
    to = f" {scope}" if scope else ""
    parser.add_argument("--style", choices=STYLES,
                        help=f"default parameters{to} (docs/e-processes.md, Parameters and defaults; default: "
                             f"{style_default})")
    parser.add_argument("--q", type=float, help=f"performance threshold q{to}")
    parser.add_argument("--alpha", type=float, help=f"level alpha{to}: a test stops when its E >= 1/alpha")
    parser.add_argument("--m", type=int, help=f"auditor's budget m{to} (its null is tested from step m)")
    if processes:
        parser.add_argument("--model-process", choices=MODEL_PROCESSES, default=DEFAULT_MODEL_PROCESS,
                            help=f"the model's e-process (default {DEFAULT_MODEL_PROCESS})")
        parser.add_argument("--auditor-process", choices=AUDITOR_PROCESSES, default=DEFAULT_AUDITOR_PROCESS,
                            help=f"the auditor's e-process (default {DEFAULT_AUDITOR_PROCESS})")


def add_fail_on(parser: argparse.ArgumentParser, conditions: Sequence[str], meaning: str) -> None:
    """``--fail-on COND[,COND]``: exit 1 when one of the conditions is met (the output is unchanged)."""
    def parse(text: str) -> tuple[str, ...]:
        names = tuple(c.strip() for c in text.split(",") if c.strip())
        bad = [c for c in names if c not in conditions]
        if bad or not names:
            raise argparse.ArgumentTypeError(f"expected one or more of {', '.join(conditions)}, got {text!r}")
        return names
    parser.add_argument("--fail-on", type=parse, metavar="COND[,COND]", default=(),
                        help=f"exit 1 when one of {', '.join(conditions)} holds ({meaning}); the output is the "
                             "same (repeatable as a comma-separated list)")


def fail_on_status(args: argparse.Namespace, met: set[str]) -> int:
    """1 when a ``--fail-on`` condition holds (named on stderr), else 0."""
    hit = [c for c in getattr(args, "fail_on", ()) if c in met]
    if hit:
        print(f"exit 1: --fail-on {','.join(hit)}", file=sys.stderr)
        return 1
    return 0


def emit(payload: Any, as_json: bool, render_text: Callable[[Any], str]) -> None:
    """Print ``payload`` as one JSON document (``--json``) or as readable text."""
    if as_json:
        json.dump(payload, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(payload).rstrip("\n") + "\n")


PROGRESS_EVERY = 10.0  # seconds between progress lines when stderr is not a terminal


def stderr_progress(what: str, as_json: bool = False) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` callback for long work, on stderr: on a terminal (and without
    ``--json``) one line updated in place; otherwise (a pipe, a log, ``--json``) a line every
    :data:`PROGRESS_EVERY` seconds, the first after that long, so short work prints nothing."""
    import time
    started = time.monotonic()
    last = [started]
    live = sys.stderr.isatty() and not as_json

    def progress(done: int, total: int) -> None:
        if live:
            sys.stderr.write(f"\r{done}/{total} {what}")
            if done == total:
                sys.stderr.write("\n")
            return
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY and done < total:
            last[0] = now
            sys.stderr.write(f"progress: {done:,} of {total:,} {what} ({done / max(total, 1):.0%}, "
                             f"{now - started:.0f} s)\n")
            sys.stderr.flush()
    return progress


def _named_flag(message: str, args: argparse.Namespace | None) -> str:
    """The Python API names its arguments (``replicates: must be at least 1``); the command line
    names the matching flag (``--replicates: ...``)."""
    head, sep, rest = message.partition(": ")
    options = vars(args) if args is not None else {}
    if sep and head.isidentifier() and head in options and head not in ("command", "func"):
        return f"--{head.replace('_', '-')}: {rest}"
    return message


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.func(args))
    except InputError as exc:
        print(f"error: {_named_flag(str(exc), locals().get('args'))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Ctrl-C: every output file is written to a temporary name and renamed when whole
        # (audit_core.data.files.write_file), so nothing half-written is left behind.
        print("error: interrupted; no output file was left half-written", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head`) closed the pipe: not an error of ours. Point stdout at devnull
        # so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
