#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""idlepolicyctl calibrate's progress: on a terminal (stderr is a pty) one
line rewritten with the CPU and state being measured, the share of states
done and the time left, from the daemon's CalibrationProgress; piped, not
one byte of it.  The daemon runs on a fake tree with mock-calibrate as the
helper, slowed so that the calibration outlasts a few progress lines."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402
import ptyrun  # noqa: E402

STATES = 2                       # POLL and "haltpoll idle" on each CPU
CPUS = 3


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
        rc, out, tty = ptyrun.run_with_pty_stderr([self.ctl_exe, 'calibrate'], self.env(COLUMNS='80'))
        self.assertEqual(rc, 0, tty)
        self.assertIn('MEASURED', out)
        lines = ptyrun.progress_lines(tty)
        self.assertTrue(lines, repr(tty))
        self.assertTrue(tty.endswith(ptyrun.REWRITE), 'the line is cleared at the end: ' + repr(tty))
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
