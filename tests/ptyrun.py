# SPDX-License-Identifier: LGPL-2.1-or-later
"""Running a tool with its standard error on a pseudo-terminal, for the
tests of the progress lines (tests/cli/test-sim-progress.py,
tests/integration/test_progress.py, tests/cli/test-record-import.py)."""

import os
import pty
import re
import subprocess

# What starts each rewrite of a progress line: carriage return, erase line.
REWRITE = '\r\x1b[K'


def run_with_pty_stderr(argv, env, timeout=300, stdin=subprocess.DEVNULL):
    """Runs argv with stdout piped and stderr on a pseudo-terminal (stdin:
    as subprocess takes it).  Returns (exit status, stdout, what the
    terminal got)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    tty = b''
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:           # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        tty += chunk
    os.close(master)
    out, _ = p.communicate(timeout=timeout)
    return p.returncode, out.decode(), tty.decode('utf-8', 'replace')


def progress_lines(tty):
    """The lines a terminal output showed one after the other (split at
    each rewrite), empty ones left out."""
    return [x for x in re.split(re.escape(REWRITE), tty) if x]
