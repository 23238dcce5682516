#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A big machine: 1024 CPUs x 10 states (62 464 counter files) under an fd
limit of 20 000 (prlimit, soft and hard), the size of real big machines and
a common container limit.  Without the sampler's fd budget the daemon
failed to start ("Too many open files").  The default read budget
(sample_files_per_tick) reads the CPUs in turns: every CPU must still be
read and planned within a bounded number of ticks.  About 90 s here: the
tree takes 4 s to build in /dev/shm, the daemon 1.5 s to start, the first
turn of every CPU 32 ticks of 1 s, a later one 7-22."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402

CPUS = 1024
STATES = 10
NOFILE = 20000
# Ticks (of 1 s) for two turns of every CPU with the default budget: the
# first turn reads every file of every CPU (61 a CPU, 2000 a tick: 32
# ticks), later ones only what moved (12-42 files a CPU: 7-22 ticks).
TURN_TICKS = 70


class Scale(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', str(CPUS), '--states', str(STATES)]
    START_POLKIT = False

    # The tree (125 000 files) is made in 4 s in /dev/shm, 7-25 s on this
    # machine's ext4, and is not snapshotted.
    TMP_PARENT = '/dev/shm' if os.access('/dev/shm', os.W_OK) else None
    SNAPSHOT_TREE = False

    def setUp(self):
        if not T.shutil.which('prlimit'):
            self.skipTest('prlimit not found')
        super().setUp()

    def daemon_start_argv(self):
        # A 1 s tick: a tick of this tree costs far more than the suite's 100 ms.
        return ['prlimit', f'--nofile={NOFILE}:{NOFILE}', '--'] + self.daemon_argv(['--tick-usec', '1000000'])

    def fds(self):
        return len(os.listdir(f'/proc/{self.daemon.proc.pid}/fd'))

    def test_starts_and_reads_every_file(self):
        """It answers, and the files the budget left without an fd (the
        last CPUs' time, above and below, every slow-tier file) are read
        like the others."""
        self.assert_daemon_alive()
        self.assertEqual(len(self.manager_prop('CPUs')), CPUS)
        last = CPUS - 1
        self.assertEqual(len(self.cpu_prop(last, 'States')), STATES)
        self.tick_tree()
        want = [(k, int(T.read(self.tree, T.state_file(last, k, 'usage'))),
                 int(T.read(self.tree, T.state_file(last, k, 'time'))),
                 int(T.read(self.tree, T.state_file(last, k, 'above'))),
                 int(T.read(self.tree, T.state_file(last, k, 'below'))),
                 int(T.read(self.tree, T.state_file(last, k, 'rejected')))) for k in range(STATES)]
        T.wait_for(lambda: [tuple(int(x) for x in row) for row in self.cpu_prop(last, 'Counters')] == want,
                   timeout=TURN_TICKS, what=f'cpu{last} Counters = the tree')
        self.assertLessEqual(self.fds(), NOFILE)
        self.assert_daemon_alive()

    def test_every_cpu_planned(self):
        """With the CPUs read in turns, every CPU has a plan within two
        turns."""
        self.tick_tree()
        probes = [0, CPUS // 3, 2 * CPUS // 3, CPUS - 1]
        T.wait_for(lambda: all(not str(self.cpu_prop(c, 'Reason')).startswith('no plan yet') for c in probes),
                   timeout=TURN_TICKS, what='a plan for CPUs ' + ', '.join(map(str, probes)))
        unplanned = [c for c in range(CPUS) if str(self.cpu_prop(c, 'Reason')).startswith('no plan yet')]
        self.assertEqual(unplanned, [])
        self.assert_daemon_alive()


if __name__ == '__main__':
    T.unittest.main()
