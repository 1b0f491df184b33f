"""The dispatcher itself: usage errors and closed pipes end cleanly, never with a traceback."""

import subprocess
import sys

from audit_core.cli import main


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err


def test_unknown_command_is_one_line_exit_2(capsys):
    assert main(["no-such-command"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err and "no-such-command" in err


def test_every_command_is_registered():
    parser_help = subprocess.run([sys.executable, "-m", "audit_core", "--help"], capture_output=True, text=True)
    assert parser_help.returncode == 0
    for command in ("identify", "lattice", "synthesize", "replay", "simulate", "measure", "report"):
        assert command in parser_help.stdout


def test_reader_closing_the_pipe_is_not_a_traceback():
    proc = subprocess.Popen([sys.executable, "-m", "audit_core", "lattice", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(1)  # like `| head -c 1`
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err
