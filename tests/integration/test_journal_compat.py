#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A restore journal written by an earlier idlepolicyd replays under this
one.  fixtures/restore-v1.journal was written by the daemon of commit
2d4f549 (the last one before the change layer), SIGKILLed in enforce mode
with every kind of knob it changes: the governor, wteo tolerances, resume
latencies, a state's disable bit set by hand, a pid pin's thread affinity,
a cgroup pin's and consolidation's cpuset.cpus, a unit pin's AllowedCPUs
(through systemd) and level 2's interrupt affinities.  fixtures/
restore-v1.json names the root, the cgroup mount and the pinned process of
that run; the test moves the journal onto a tree of its own (header, cgroup
paths, the thread key of a process of its own), leaves every knob as the
killed daemon had left it, starts today's daemon and expects every
original back, the journal gone, and nothing else touched."""

import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import systemdmock as SM  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')
UNIT = 'postgresql.service'
# What the killed daemon had left in force (see the fixture's run).
LEFT = {
    T.GOVERNOR_FILE: 'wteo',
    'sys/devices/system/cpu/cpu3/cpuidle/state1/disable': '1',
    'sys/devices/system/cpu/cpu3/power/pm_qos_resume_latency_us': '20',
}
LEFT.update({f'sys/devices/system/cpu/cpu{c}/power/pm_qos_resume_latency_us': '10' for c in range(3)})
LEFT.update({f'sys/devices/system/cpu/cpu{c}/wteo/tolerance': '51' for c in range(4)})
LEFT_CGROUPS = {'pinned': '1', 'background': '2'}
LEFT_IRQS = {'0': '2', '24': '2'}


def start_time(pid):
    with open(f'/proc/{pid}/stat', encoding='ascii') as f:
        return int(f.read().rsplit(')', 1)[1].split()[19])


class OldJournal(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'wteo', '--wteo']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        with open(os.path.join(FIXTURES, 'restore-v1.json'), encoding='utf-8') as f:
            self.meta = json.load(f)
        with open(os.path.join(FIXTURES, 'restore-v1.journal'), encoding='ascii') as f:
            self.fixture = f.read()
        self.cgroup_root = os.path.join(self.tmp, 'cgroup')
        for cg, value in LEFT_CGROUPS.items():
            os.makedirs(os.path.join(self.cgroup_root, cg))
            for name in ('cpuset.cpus', 'cpuset.cpus.effective'):
                self.write_cg(f'{cg}/{name}', value)
        for irq, value in LEFT_IRQS.items():
            os.makedirs(os.path.join(self.tree, f'proc/irq/{irq}'))
            T.write(self.tree, f'proc/irq/{irq}/smp_affinity_list', value)
        for rel, value in LEFT.items():
            T.write(self.tree, rel, value)
        self.follow = T.Process([self.faketree_exe, self.tree, '--follow-governor'],
                                os.path.join(self.tmp, 'follow.log'), dict(os.environ))
        self.addCleanup(self.follow.stop)
        self.sleeper = subprocess.Popen(['sleep', '1000'])
        self.addCleanup(self.sleeper.wait)
        self.addCleanup(self.sleeper.kill)
        os.sched_setaffinity(self.sleeper.pid, {1})
        self.systemd = SM.Systemd(self)
        self.systemd.add_unit(UNIT, [0])

    def write_cg(self, rel, value):
        T.write(self.cgroup_root, rel, value)

    def read_cg(self, rel):
        return T.read(self.cgroup_root, rel)

    def moved_journal(self):
        """The fixture with its root, cgroup mount and process made ours."""
        text = self.fixture.replace(self.meta['cgroup_root'] + '/', self.cgroup_root + '/')
        text = text.replace('root=' + self.meta['root'] + '\n', 'root=' + self.tree + '\n')
        old_task = f"task:{self.meta['pid']}:{self.meta['start_time']} "
        self.assertIn(old_task, text)
        return text.replace(old_task, f'task:{self.sleeper.pid}:{start_time(self.sleeper.pid)} ')

    def test_every_original_comes_back(self):
        with open(os.path.join(self.runtime_dir, T.JOURNAL_FILE), 'w', encoding='ascii') as f:
            f.write(self.moved_journal())
        self.start_daemon(['--cgroup-root', self.cgroup_root])
        T.wait_for(lambda: self.systemd.calls() == [(UNIT, [0, 1, 2, 3])], what='the unit put back through systemd')
        originals = dict(line.split(' ', 1) for line in self.fixture.splitlines()[1:])
        self.assertEqual(self.read(T.GOVERNOR_FILE).strip(), 'haltpoll')
        for rel in LEFT:
            if '/wteo/' in rel:
                continue        # gone with wteo: --follow-governor removed them after they were put back
            self.assertEqual(self.read(rel).strip(), originals[rel], rel)
        self.assertEqual(self.read_cg('pinned/cpuset.cpus'), '')
        self.assertEqual(self.read_cg('background/cpuset.cpus'), '2-3')
        self.assertEqual(os.sched_getaffinity(self.sleeper.pid), {0, 1})
        self.assertEqual(self.read('proc/irq/0/smp_affinity_list').strip(), '0-3')
        self.assertEqual(self.read('proc/irq/24/smp_affinity_list').strip(), '1-2')
        self.assertIsNone(self.journal_entries())
        log = self.daemon.output()
        self.assertIn('Found restore journal', log)
        self.assertNotIn('corrupt', log)
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)

    def test_the_wteo_tolerances_come_back_before_the_governor(self):
        """Newest first: the tolerances (journaled after the governor) are
        written while their files still exist."""
        with open(os.path.join(self.runtime_dir, T.JOURNAL_FILE), 'w', encoding='ascii') as f:
            f.write(self.moved_journal())
        self.follow.stop()      # keep the wteo files to read them
        self.start_daemon(['--cgroup-root', self.cgroup_root])
        for c in range(4):
            self.assertEqual(self.read(f'sys/devices/system/cpu/cpu{c}/wteo/tolerance').strip(), '102')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)


if __name__ == '__main__':
    T.main()
