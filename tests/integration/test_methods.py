#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every Manager method and the sysfs changes it causes (as root)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402


class Methods(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll',
                 '--offline', '3']

    def changed(self):
        return {str(p): str(v) for p, v in self.manager_prop('Changed')}

    def assert_only_knobs_changed(self, expected):
        """The tree equals the original except for the knobs in expected
        ({relpath: value}), which hold exactly those values."""
        now = T.snapshot_tree(self.tree)
        for rel, value in expected.items():
            self.assertEqual(now[rel].decode().strip(), value, rel)
        diff = [k for k in sorted(set(now) | set(self.original))
                if now.get(k) != self.original.get(k) and k not in expected]
        self.assertEqual(diff, [], 'unexpected changes in the tree')

    # -- governor --

    def test_set_governor(self):
        self.call('SetGovernor', 'menu')
        self.assert_only_knobs_changed({T.GOVERNOR_FILE: 'menu'})
        self.assertEqual(self.manager_prop('Governor'), 'menu')
        self.assertEqual(self.changed(), {T.GOVERNOR_FILE: 'haltpoll'})
        # A second switch keeps the first original.
        self.call('SetGovernor', 'ladder')
        self.assert_only_knobs_changed({T.GOVERNOR_FILE: 'ladder'})
        self.assertEqual(self.changed(), {T.GOVERNOR_FILE: 'haltpoll'})
        T.wait_for(lambda: self.manager_prop('Governor') == 'ladder', timeout=3,
                   what='Governor = ladder')
        # Switching back to the original is still a change that Restore knows about.
        self.call('SetGovernor', 'haltpoll')
        self.assertEqual(self.read(T.GOVERNOR_FILE), 'haltpoll')
        self.assert_tree_unchanged()

    def test_set_same_governor_writes_nothing(self):
        self.call('SetGovernor', 'haltpoll')
        self.assert_tree_unchanged()
        self.assertEqual(self.changed(), {})

    def test_governor_via_busctl(self):
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'SetGovernor', 's', 'menu')
        self.assertEqual(self.read(T.GOVERNOR_FILE), 'menu')
        self.assertEqual(self.busctl_get(T.ROOT_PATH, T.MANAGER_IFACE, 'Governor'), 'menu')

    # -- states --

    def test_disable_state_by_name(self):
        name = self.state_names(1)[0]
        rel = T.state_file(1, 0, 'disable')
        self.call('SetStateDisabled', T.dbus.UInt32(1), name, True)
        self.assert_only_knobs_changed({rel: '1'})
        self.assertEqual(self.changed(), {rel: '0'})
        states = self.cpu_prop(1, 'States')
        self.assertTrue(bool(states[0][5]), 'States[0].disabled is not true')
        self.assertFalse(bool(self.cpu_prop(0, 'States')[0][5]))
        self.call('SetStateDisabled', T.dbus.UInt32(1), name, False)
        self.assertEqual(self.read(rel), '0')
        self.assert_tree_unchanged()
        self.assertFalse(bool(self.cpu_prop(1, 'States')[0][5]))

    def test_disable_state_by_index(self):
        rel = T.state_file(2, 2, 'disable')
        self.call('SetStateDisabled', T.dbus.UInt32(2), '2', True)
        self.assert_only_knobs_changed({rel: '1'})
        self.assertEqual(self.changed(), {rel: '0'})

    def test_disable_state_on_all_online_cpus(self):
        name = self.state_names(0)[1]
        self.call('SetStateDisabled', T.dbus.UInt32(T.ALL_CPUS), name, True)
        expected = {T.state_file(c, 1, 'disable'): '1' for c in self.online_cpus()}
        self.assertEqual(sorted(self.online_cpus()), [0, 1, 2])
        self.assert_only_knobs_changed(expected)
        self.assertEqual(self.changed(), {k: '0' for k in expected})
        for c in self.online_cpus():
            self.assertTrue(bool(self.cpu_prop(c, 'States')[1][5]))

    def test_state_via_busctl(self):
        name = self.state_names(0)[0]
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'SetStateDisabled',
                    'usb', '0', name, 'true')
        self.assertEqual(self.read(T.state_file(0, 0, 'disable')), '1')

    # -- resume latency --

    def test_resume_latency_values(self):
        rel = T.latency_file(0)
        self.assertEqual(self.read(rel), '0')
        for usec, text in ((20, '20'), (T.LATENCY_NA, 'n/a'), (T.LATENCY_MAX, str(T.LATENCY_MAX)),
                           (1, '1'), (0, '0')):
            with self.subTest(usec=usec):
                self.call('SetResumeLatency', T.dbus.UInt32(0), T.dbus.UInt32(usec))
                self.assertEqual(self.read(rel), text)
                self.assertEqual(int(self.cpu_prop(0, 'ResumeLatencyUSec')), usec)
        self.assert_tree_unchanged()

    def test_resume_latency_all_cpus(self):
        self.call('SetResumeLatency', T.dbus.UInt32(T.ALL_CPUS), T.dbus.UInt32(50))
        expected = {T.latency_file(c): '50' for c in (0, 1, 2)}
        self.assert_only_knobs_changed(expected)
        self.assertEqual(self.changed(), {k: '0' for k in expected})
        self.call('SetResumeLatency', T.dbus.UInt32(T.ALL_CPUS), T.dbus.UInt32(T.LATENCY_NA))
        self.assert_only_knobs_changed({k: 'n/a' for k in expected})
        self.assertEqual(self.changed(), {k: '0' for k in expected})

    def test_resume_latency_via_busctl(self):
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'SetResumeLatency',
                    'uu', '1', '20')
        self.assertEqual(self.read(T.latency_file(1)), '20')
        self.assertEqual(self.busctl_get(self.cpu_path(1), T.CPU_IFACE, 'ResumeLatencyUSec'), 20)

    # -- restore --

    def test_restore_puts_everything_back(self):
        self.call('SetGovernor', 'menu')
        self.call('SetStateDisabled', T.dbus.UInt32(T.ALL_CPUS), '0', True)
        self.call('SetStateDisabled', T.dbus.UInt32(2), self.state_names(2)[2], True)
        self.call('SetResumeLatency', T.dbus.UInt32(T.ALL_CPUS), T.dbus.UInt32(T.LATENCY_NA))
        self.call('SetResumeLatency', T.dbus.UInt32(1), T.dbus.UInt32(7))
        self.assertEqual(len(self.changed()), 1 + 3 + 1 + 3)
        self.assertEqual(self.journal_entries(), self.changed())
        self.call('Restore')
        self.assert_tree_unchanged(msg='after Restore()')
        self.assertEqual(self.changed(), {})
        self.assertIsNone(self.journal_entries(), 'journal left behind by Restore()')
        self.assertEqual(self.manager_prop('Governor'), 'haltpoll')
        # Restore with nothing changed is a no-op that succeeds.
        self.call('Restore')
        self.assert_tree_unchanged(msg='after a second Restore()')
        self.assert_daemon_alive()

    def test_restore_via_busctl(self):
        self.call('SetResumeLatency', T.dbus.UInt32(0), T.dbus.UInt32(3))
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Restore')
        self.assert_tree_unchanged()

    def test_restore_keeps_external_values_it_did_not_change(self):
        # Someone else writes a knob the daemon never touched: Restore leaves it.
        T.write(self.tree, T.latency_file(2), '9')
        external = T.snapshot_tree(self.tree)
        self.call('SetGovernor', 'menu')
        self.call('Restore')
        self.assert_tree_unchanged(external)


if __name__ == '__main__':
    T.main()
