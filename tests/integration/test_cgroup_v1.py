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
happened.  Skipped (exit 77) without a v1 cpuset hierarchy (cgroup v2
pins are tested on a fake tree in test_pins.py)."""

import os
import signal
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cgroupv1 as V1  # noqa: E402
import idlepolicytest as T  # noqa: E402
import test_pins as TP  # noqa: E402

CGROUP_ROOT = V1.CGROUP_ROOT


@unittest.skipUnless(V1.cpuset_v1_mounted(), V1.NO_V1)
class CgroupV1(TP.PinTestCase):
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        self.cgroup = V1.TestCgroup(self)
        self.name = self.cgroup.name
        self.child = self.sleeper()
        self.cgroup.add(self.child.pid)
        self.start_daemon(extra=['--cgroup-root', CGROUP_ROOT])

    def cpus(self):
        return self.cgroup.cpus()

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

    def test_the_cpuset_hierarchy_found_by_itself(self):
        # the path as a runtime gives it (cgroupfs driver): no "cpuset/"
        path = self.pin(f'cgroup:/{self.name}', '1', 'latency')
        self.assertEqual(self.cpus(), '1')
        self.assertEqual(TP.affinity(self.child.pid), [1])
        self.assertEqual(str(self.obj(path).Get(TP.PIN_IFACE, 'Target', dbus_interface=T.PROPS_IFACE)),
                         f'cgroup:{self.name}')
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assertEqual(self.cpus(), '0-1')

    def test_systemd_form_expanded_as_runc_does(self):
        # SLICE:PREFIX:NAME -> SLICE's parents/SLICE/PREFIX-NAME.scope,
        # made here in the cpuset hierarchy as runc's systemd driver does
        # on v1
        slice_ = f'ipt{os.getpid()}'
        scope = V1.nested(self, [f'{slice_}.slice', f'{slice_}-k8s.slice', 'cri-containerd-0a1b.scope'])
        proc = self.sleeper()
        scope.add(proc.pid)
        target = f'cgroup:{slice_}-k8s.slice:cri-containerd:0a1b'
        path = self.pin(target, '1', 'latency')
        self.assertEqual(scope.cpus(), '1')
        self.assertEqual(TP.affinity(proc.pid), [1])
        # status and pins show the whole target, the columns after it aligned
        self.assertIn(target, str(self.cpu_prop(1, 'ProfileSource')))
        table = self.ctl('pins').stdout.splitlines()
        header, row = table[0], [line for line in table if target in line][0]
        self.assertTrue(row.startswith(f'1     {target}  '), table)
        self.assertEqual(row[header.index('CPUS'):].split()[:2], ['1', 'latency'], table)
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assertEqual(scope.cpus(), '0-1')

    def test_no_cpuset_outside_the_mount(self):
        self.assert_dbus_error('InvalidTarget', 'Pin', 'cgroup:../etc', '1', 'latency')
        self.assert_dbus_error('NoSuchProcess', 'Pin', f'cgroup:cpuset/{self.name}-missing', '1', 'latency')
        self.assert_dbus_error('NoSuchProcess', 'Pin', f'cgroup:{self.name}-missing', '1', 'latency')
        self.assert_dbus_error('InvalidTarget', 'Pin', 'cgroup:a--b.slice:cri-containerd:1', '1', 'latency')
        self.assertEqual(self.cpus(), '0-1')
        self.assert_daemon_alive()


if __name__ == '__main__':
    T.main()
