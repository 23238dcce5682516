#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cgroup: pins on this machine's real cgroup v1 cpuset hierarchy
(/sys/fs/cgroup/cpuset): the test creates its own cgroup there with a child
process of its own in it, the real daemon (--cgroup-root /sys/fs/cgroup,
idle knobs on a fake tree) pins it with Pin("cgroup:cpuset/NAME", "1",
"latency"): the cgroup's cpuset.cpus becomes 1 (and the child's affinity
with it), and comes back on Unpin, and when the cgroup empties (v1 has no
cgroup.events: the daemon polls cgroup.procs), and after a SIGKILL of the
daemon at its next start.  The cgroup is removed at the end, whatever
happened.  Exits 77 without a v1 cpuset hierarchy (cgroup v2 pins are
tested on a fake tree in test_pins.py)."""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import test_pins as TP  # noqa: E402

CGROUP_ROOT = '/sys/fs/cgroup'
CPUSET = os.path.join(CGROUP_ROOT, 'cpuset')


def read(path):
    with open(path, encoding='ascii') as f:
        return f.read().strip()


def write(path, value):
    with open(path, 'w', encoding='ascii') as f:
        f.write(value)


class CgroupV1(TP.PinTestCase):
    START_DAEMON = False

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not os.path.exists(os.path.join(CPUSET, 'cpuset.cpus')) or os.path.exists(
                os.path.join(CPUSET, 'cgroup.controllers')):
            print('no cgroup v1 cpuset hierarchy here; skipping', file=sys.stderr)
            sys.exit(77)

    def setUp(self):
        super().setUp()
        self.name = f'idlepolicy-test-{os.getpid()}-{self.id().rsplit(".", 1)[-1][:20]}'
        self.dir = os.path.join(CPUSET, self.name)
        os.mkdir(self.dir)
        self.addCleanup(self.remove_cgroup)
        write(os.path.join(self.dir, 'cpuset.mems'), read(os.path.join(CPUSET, 'cpuset.mems')))
        write(os.path.join(self.dir, 'cpuset.cpus'), '0-1')
        self.child = self.sleeper()
        write(os.path.join(self.dir, 'cgroup.procs'), str(self.child.pid))
        self.start_daemon(extra=['--cgroup-root', CGROUP_ROOT])

    def remove_cgroup(self):
        """Kills what is left in the test's cgroup and removes it."""
        for _ in range(100):
            try:
                procs = read(os.path.join(self.dir, 'cgroup.procs')).split()
            except FileNotFoundError:
                return
            for pid in procs:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                os.rmdir(self.dir)
                return
            except OSError:
                time.sleep(0.05)
        self.fail(f'could not remove {self.dir}')

    def cpus(self):
        return read(os.path.join(self.dir, 'cpuset.cpus'))

    def test_pin_and_unpin(self):
        path = self.pin(f'cgroup:cpuset/{self.name}', '1', 'latency')
        self.assertEqual(self.cpus(), '1')
        self.assertEqual(TP.affinity(self.child.pid), [1])
        self.assertIn(f'cgroup:cpuset/{self.name}', str(self.cpu_prop(1, 'ProfileSource')))
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assertEqual(self.cpus(), '0-1')
        self.assertEqual(TP.affinity(self.child.pid), [0, 1])

    def test_pin_ends_when_the_cgroup_empties(self):
        self.pin(f'cgroup:cpuset/{self.name}', '1', 'latency')
        self.reap(self.child)
        T.wait_for(lambda: self.pins() == [], timeout=10, what='the pin to end with its cgroup')
        self.assertEqual(self.cpus(), '0-1')

    def test_sigkill_then_restart(self):
        self.pin(f'cgroup:cpuset/{self.name}', '1', 'latency')
        self.stop_daemon(signal.SIGKILL)
        self.assertEqual(self.cpus(), '1')
        self.start_daemon(extra=['--cgroup-root', CGROUP_ROOT])
        # the journal put it back, the saved pin took it again
        self.assertEqual(len(self.pins()), 1)
        self.assertEqual(self.cpus(), '1')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(self.cpus(), '0-1')

    def test_no_cpuset_outside_the_mount(self):
        self.assert_dbus_error('InvalidTarget', 'Pin', 'cgroup:../etc', '1', 'latency')
        self.assert_dbus_error('NoSuchProcess', 'Pin', f'cgroup:cpuset/{self.name}-missing', '1', 'latency')
        self.assertEqual(self.cpus(), '0-1')
        self.assert_daemon_alive()


if __name__ == '__main__':
    T.main()
