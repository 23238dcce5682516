#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Consolidation (issue 15) of a cgroup in this machine's real cgroup v1
cpuset hierarchy (/sys/fs/cgroup/cpuset), as test_cgroup_v1.py does for
pins: the test creates its own cgroup there (cpuset.cpus 0-1, the
parent's cpuset.mems) with a sleeping child of its own in it, and names
it as the background (cgroup:/NAME with --cgroup-root
/sys/fs/cgroup/cpuset).  The real daemon runs in enforce mode with its
idle knobs on a fake tree (--root), whose proc/stat shows a 10% load.
SetConsolidation(1): the cgroup's cpuset.cpus becomes the set ("0" on 2
CPUs) and the child's Cpus_allowed_list follows; level 0, SIGTERM, and a
SIGKILL followed by a restart put back exactly "0-1".  The cgroup is
removed at the end, whatever happened (the child killed first); the real
idle knobs are read before and after, never written.  Skipped (exit 77)
without a v1 cpuset hierarchy."""

import glob
import os
import signal
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cgroupv1 as V1  # noqa: E402
import consoltest as C  # noqa: E402
import idlepolicytest as T  # noqa: E402
import test_pins as TP  # noqa: E402

ORIGINAL = '0-1'


def real_idle_knobs():
    """The real cpuidle knobs' values (read only): the test must leave them
    as they are."""
    paths = glob.glob('/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state*/disable') + \
        glob.glob('/sys/devices/system/cpu/cpu[0-9]*/power/pm_qos_resume_latency_us') + \
        ['/sys/devices/system/cpu/cpuidle/current_governor']
    return {p: V1.read(p) for p in paths if os.path.exists(p)}


@unittest.skipUnless(V1.cpuset_v1_mounted(), V1.NO_V1)
class ConsolidationCgroupV1(C.ConsolidationMixin, TP.PinTestCase):
    START_DAEMON = False

    def setUp(self):
        knobs = real_idle_knobs()
        self.addCleanup(lambda: self.assertEqual(real_idle_knobs(), knobs, 'the real idle knobs changed'))
        super().setUp()
        self.cgroup = V1.TestCgroup(self, cpus=ORIGINAL)
        self.child = self.sleeper()
        self.cgroup.add(self.child.pid)
        self.assertEqual(TP.affinity(self.child.pid), [0, 1])
        self.write_config([f'cgroup:/{self.cgroup.name}'])
        self.start_daemon(argv=self.argv())

    def argv(self, mode='enforce'):
        return self.daemon_argv(['--cgroup-root', V1.CPUSET, '--config', self.config], mode=mode)

    def confine(self):
        """Level 1 until the cgroup is confined to CPU 0."""
        self.set_level(1)
        T.wait_for(lambda: self.cgroup.cpus() == '0', what='the cgroup confined to CPU 0')
        self.assertEqual(TP.affinity(self.child.pid), [0])

    def assert_restored(self):
        self.assertEqual(self.cgroup.cpus(), ORIGINAL)
        self.assertEqual(TP.affinity(self.child.pid), [0, 1])

    def test_level_1_confines_and_level_0_restores(self):
        with self.busy(1):
            self.confine()
            s = self.status()
            self.assertTrue(s['active'])
            self.assertEqual((s['set'], s['freed']), ('0', '1'))
            self.assertEqual(s['targets'][f'cgroup:/{self.cgroup.name}'], 'confined to 0')
            self.assertEqual(self.journal_entries().get(f'cgroup:{self.cgroup.file("cpuset.cpus")}'), ORIGINAL)
            self.set_level(0)
            T.wait_for(lambda: self.cgroup.cpus() == ORIGINAL, what='the cgroup put back')
            self.assert_restored()
            self.assertEqual(self.status()['targets'][f'cgroup:/{self.cgroup.name}'], 'not confined')
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_restored()

    def test_sigterm_restores(self):
        self.assertEqual(self.confine_then_stop(), 0)
        self.assert_restored()
        self.assertIsNone(self.journal_entries())

    def test_sigkill_then_restart_restores(self):
        self.confine_then_stop(signal.SIGKILL)
        self.assertEqual(self.cgroup.cpus(), '0')
        self.assertEqual(TP.affinity(self.child.pid), [0])
        # the start replays the journal before it owns its name; observe
        # mode confines nothing after it
        self.start_daemon(argv=self.argv(mode='observe'))
        self.assert_restored()
        self.assertEqual(self.level(), 1)                       # persisted
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_restored()


if __name__ == '__main__':
    T.main()
