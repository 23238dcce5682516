#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every knob has an owner (idlepolicyd(8), CHANGES AND OWNERS): pins (a
process, a cgroup, a unit through a mocked systemd), consolidation's
background and the plan, together on a fake tree in enforce mode.

Observe mode puts back what the policy decides (the plan's knobs and what
consolidation confined) and leaves the pins alone: a pin is a request in
force, its workload stays where the pin put it, and Pins says so; back in
enforce every pin is still in force and consolidation confines again.
(Before the change layer, observe mode put the pins' knobs back too while
Pins still said "active", and enforce never applied them again.)
Restore() likewise leaves the pins.  A SIGKILL in either mode with all of
it active, then a restart: the pins as they say, the rest as found, and a
SIGTERM then puts back everything."""

import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import consoltest as C  # noqa: E402
import idlepolicytest as T  # noqa: E402
import systemdmock as SM  # noqa: E402
import test_pins as TP  # noqa: E402

UNIT = 'postgresql.service'
BACKGROUND_ORIGINAL = '2-3'


class Owners(C.ConsolidationMixin, TP.PinTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        self.cgroup_root = os.path.join(self.tmp, 'cgroup')
        for rel, value in (('cgroup.controllers', 'cpuset cpu'),
                           ('cpuset.cpus.effective', '0-3'),
                           ('background/cpuset.cpus', BACKGROUND_ORIGINAL),
                           ('background/cpuset.cpus.effective', BACKGROUND_ORIGINAL),
                           ('pinned/cpuset.cpus', ''),
                           ('pinned/cpuset.cpus.effective', '0-3'),
                           ('pinned/cgroup.events', 'populated 1\nfrozen 0'),
                           ('pinned/cgroup.procs', '')):
            os.makedirs(os.path.dirname(os.path.join(self.cgroup_root, rel)), exist_ok=True)
            self.write_cg(rel, value)
        self.write_config(['cgroup:/background'])
        self.systemd = SM.Systemd(self)
        self.systemd.add_unit(UNIT, [0, 1, 2, 3])
        self.set_allowed(list(T.ACTIONS.values()) + [TP.ACTION_PIN])
        self.child = self.sleeper()

    def write_cg(self, rel, value):
        T.write(self.cgroup_root, rel, value)

    def read_cg(self, rel):
        return T.read(self.cgroup_root, rel)

    def argv(self, mode='enforce'):
        return self.daemon_argv(['--cgroup-root', self.cgroup_root, '--config', self.config], mode=mode)

    def unit_cpus(self):
        calls = self.systemd.calls()
        return calls[-1][1] if calls else [0, 1, 2, 3]

    def pin_everything(self):
        """A process, a cgroup and a unit pinned to CPU 1; the background
        confined to CPU 0 (level 1 at 10% utilisation)."""
        paths = [self.pin(f'pid:{self.child.pid}', '1', 'latency'), self.pin('cgroup:pinned', '1', 'latency'),
                 self.pin(f'unit:{UNIT}', '1', 'latency')]
        self.call('SetConsolidation', T.dbus.UInt32(1))
        T.wait_for(lambda: self.read_cg('background/cpuset.cpus') == '0', what='the background confined to CPU 0')
        self.assert_pinned(paths)
        return paths

    def assert_pinned(self, paths):
        """Every pin active, and its workload where it put it."""
        self.assertEqual(sorted(self.pins()), sorted(paths))
        for path in paths:
            self.assertEqual(str(self.pin_props(path)['State']), 'active', path)
        self.assertEqual(TP.affinity(self.child.pid), [1])
        self.assertEqual(self.read_cg('pinned/cpuset.cpus'), '1')
        self.assertEqual(self.unit_cpus(), [1])

    def assert_as_found(self):
        self.assertEqual(TP.affinity(self.child.pid), [0, 1])
        self.assertEqual(self.read_cg('pinned/cpuset.cpus'), '')
        self.assertEqual(self.read_cg('background/cpuset.cpus'), BACKGROUND_ORIGINAL)
        self.assertEqual(self.unit_cpus(), [0, 1, 2, 3])
        self.assertEqual(T.knob_values(self.tree), self.original_knobs)
        self.assertIsNone(self.journal_entries())

    def test_observe_keeps_the_pins_and_enforce_keeps_them_in_force(self):
        self.start_daemon(argv=self.argv())
        with self.busy(1):
            paths = self.pin_everything()
            self.ctl('mode', 'observe')
            self.assert_pinned(paths)
            self.assertEqual(self.read_cg('background/cpuset.cpus'), BACKGROUND_ORIGINAL)
            self.wait_ticks(3)
            self.assertEqual(self.read_cg('background/cpuset.cpus'), BACKGROUND_ORIGINAL)
            # what stays changed is the pins' alone: the idle knobs are as found
            self.assertEqual([k for k in self.journal_entries() if k.startswith('sys/')], [])
            self.assertEqual(T.knob_values(self.tree), self.original_knobs)
            self.ctl('mode', 'enforce')
            self.assert_pinned(paths)
            T.wait_for(lambda: self.read_cg('background/cpuset.cpus') == '0', what='the background confined again')
            self.assertTrue(str(self.cpu_prop(1, 'ProfileSource')).startswith('pin '))
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assert_as_found()

    def test_restore_leaves_the_pins(self):
        self.start_daemon(argv=self.argv())
        with self.busy(1):
            paths = self.pin_everything()
            self.ctl('restore')
            self.assert_pinned(paths)
            T.wait_for(lambda: self.read_cg('background/cpuset.cpus') == '0', what='the background confined again')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assert_as_found()

    def sigkill_and_restart(self, mode):
        self.start_daemon(argv=self.argv(mode='enforce'))
        with self.busy(1):
            paths = self.pin_everything()
            if mode == 'observe':
                self.ctl('mode', 'observe')
            self.stop_daemon(signal.SIGKILL)
            self.start_daemon(argv=self.argv(mode=mode))
            # the pins come back from pins.json (the process by its start
            # time), as they say; the rest is as found or the mode decides
            restored = sorted(self.pins())
            self.assertEqual(len(restored), 3)
            self.assert_pinned(restored)
            if mode == 'enforce':
                T.wait_for(lambda: self.read_cg('background/cpuset.cpus') == '0', what='the background confined')
            else:
                self.wait_ticks(3)
                self.assertEqual(self.read_cg('background/cpuset.cpus'), BACKGROUND_ORIGINAL)
                self.assertEqual(T.knob_values(self.tree), self.original_knobs)
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assert_as_found()

    def test_sigkill_in_enforce_mode(self):
        self.sigkill_and_restart('enforce')

    def test_sigkill_in_observe_mode(self):
        self.sigkill_and_restart('observe')


if __name__ == '__main__':
    T.main()
