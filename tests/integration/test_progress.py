#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""idlepolicyctl calibrate's progress: on a terminal (stderr is a pty) one
line rewritten with the CPU and state being measured, the share of states
done and the time left, from the daemon's CalibrationProgress; piped, not
one byte of it.  The daemon runs on a fake tree with mock-calibrate as the
helper, slowed so that the calibration outlasts a few progress lines."""

import os
import pty
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

STATES = 2                       # POLL and "haltpoll idle" on each CPU
CPUS = 3


def run_with_pty_stderr(argv, env, timeout=120):
    """Runs argv with stdout piped and stderr on a pseudo-terminal.
    Returns (exit status, stdout, what the terminal got)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=env)
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


class CalibrateProgress(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', str(CPUS)]
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        self.start_daemon(env={'IDLEPOLICY_MOCK_DELAY': '0.4'})

    def test_property_between_runs(self):
        self.assertEqual(tuple(self.manager_prop('CalibrationProgress')), (0, 0, 0xffffffff, ''))
        finished = P.Signals(self, 'CalibrationFinished')
        self.call('Calibrate')
        measured, total, cpu, state = self.manager_prop('CalibrationProgress')
        self.assertEqual(int(total), CPUS * STATES)
        self.assertLess(int(measured), int(total))
        self.assertIn(int(cpu), range(CPUS))
        self.assertIn(str(state), self.state_names())
        self.assertTrue(bool(finished.wait(what='CalibrationFinished')[0][0]))
        self.assertEqual(tuple(self.manager_prop('CalibrationProgress')), (0, 0, 0xffffffff, ''))

    def test_terminal(self):
        rc, out, tty = run_with_pty_stderr([self.ctl_exe, 'calibrate'], self.env(COLUMNS='80'))
        self.assertEqual(rc, 0, tty)
        self.assertIn('MEASURED', out)
        lines = [x for x in re.split(r'\r\x1b\[K', tty) if x]
        self.assertTrue(lines, repr(tty))
        self.assertTrue(tty.endswith('\r\x1b[K'), 'the line is cleared at the end: ' + repr(tty))
        names = '|'.join(re.escape(n) for n in self.state_names())
        pattern = re.compile(rf'^Calibrating CPU (\d+) "({names})": (\d+)% \((\d+)/{CPUS * STATES}\)'
                             r'(, about (\d+min )?\d+s left)?$')
        for line in lines:
            self.assertNotIn('\n', line)
            self.assertLessEqual(len(line), 79)
            m = pattern.match(line)
            self.assertIsNotNone(m, f'progress line {line!r}')
            done = int(m.group(4))
            self.assertEqual(int(m.group(3)), done * 100 // (CPUS * STATES))
            # the time left is estimated once a state is done
            self.assertEqual(m.group(5) is not None, done > 0, line)

    def test_piped(self):
        r = self.ctl('calibrate')
        self.assertIn('MEASURED', r.stdout)
        self.assertEqual(r.stderr, '')


if __name__ == '__main__':
    T.main()
