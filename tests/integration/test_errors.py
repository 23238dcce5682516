#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every bad input gets its named error, changes nothing in the tree, and the
daemon keeps running."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402

U = T.dbus.UInt32


class BadInput(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll',
                 '--offline', '2']

    def assert_rejected(self, error, method, *args):
        before = T.snapshot_tree(self.tree)
        changed = list(self.manager_prop('Changed'))
        self.assert_dbus_error(error, method, *args)
        self.assert_tree_unchanged(before, f'after the failed {method}{args}')
        self.assertEqual(list(self.manager_prop('Changed')), changed)
        self.assert_daemon_alive()

    def test_unknown_cpu(self):
        name = self.state_names(0)[0]
        for cpu in (4, 99, 4294967294):
            with self.subTest(cpu=cpu):
                self.assert_rejected('UnknownCPU', 'SetStateDisabled', U(cpu), name, True)
                self.assert_rejected('UnknownCPU', 'SetResumeLatency', U(cpu), U(10))

    def test_cpu_offline(self):
        self.assertNotIn(2, self.online_cpus())
        self.assert_rejected('CPUOffline', 'SetStateDisabled', U(2), self.state_names(0)[0], True)
        self.assert_rejected('CPUOffline', 'SetStateDisabled', U(2), '0', False)
        self.assert_rejected('CPUOffline', 'SetResumeLatency', U(2), U(10))

    def test_unknown_state(self):
        for state in ('NOPE', '3', '10', '-1', '', 'poll ', '0x1', '1.0'):
            with self.subTest(state=state):
                self.assert_rejected('UnknownState', 'SetStateDisabled', U(0), state, True)
        self.assert_rejected('UnknownState', 'SetStateDisabled', U(T.ALL_CPUS), 'NOPE', True)

    def test_invalid_latency(self):
        for usec in (T.LATENCY_MAX + 1, 4294967294, 3000000000):
            with self.subTest(usec=usec):
                self.assert_rejected('InvalidLatency', 'SetResumeLatency', U(0), U(usec))
                self.assert_rejected('InvalidLatency', 'SetResumeLatency', U(T.ALL_CPUS), U(usec))

    def test_unknown_governor(self):
        for gov in ('nosuch', '', 'menu\n', 'teo', '../menu', 'x' * 200):
            with self.subTest(gov=gov):
                self.assert_rejected('UnknownGovernor', 'SetGovernor', gov)

    def test_errors_through_busctl_and_dbus_send(self):
        r = self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'SetGovernor', 's', 'nosuch',
                        check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('Call failed', r.stderr)
        r = self.dbus_send('SetStateDisabled', 'uint32:0', 'string:NOPE', 'boolean:true')
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(T.ERROR_PREFIX + 'UnknownState', r.stderr)
        r = self.dbus_send('SetResumeLatency', 'uint32:7', 'uint32:5')
        self.assertIn(T.ERROR_PREFIX + 'UnknownCPU', r.stderr)
        self.assert_tree_unchanged()
        self.assert_daemon_alive()


class WriteFailures(T.IdlePolicyTestCase):
    """Knob files made immutable (chattr +i): even root's writes fail with
    EPERM, while reads still work."""
    TREE_ARGS = ['--cpus', '3', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    def assert_write_failed(self, method, *args):
        before = T.snapshot_tree(self.tree)
        self.assert_dbus_error('WriteFailed', method, *args)
        self.assert_tree_unchanged(before, f'after the failed {method}{args}')
        self.assertEqual(list(self.manager_prop('Changed')), [])
        self.assert_daemon_alive()

    def test_governor_write_failed(self):
        self.make_immutable(T.GOVERNOR_FILE)
        self.assert_write_failed('SetGovernor', 'menu')
        self.assertEqual(self.manager_prop('Governor'), 'haltpoll')

    def test_state_write_failed(self):
        self.make_immutable(T.state_file(1, 1, 'disable'))
        self.assert_write_failed('SetStateDisabled', U(1), '1', True)

    def test_latency_write_failed(self):
        self.make_immutable(T.latency_file(0))
        self.assert_write_failed('SetResumeLatency', U(0), U(20))

    def test_all_cpus_rolled_back_half_way(self):
        # cpu0 (and maybe cpu1) are written before cpu2 fails: all rolled back.
        self.make_immutable(T.state_file(2, 0, 'disable'))
        self.assert_write_failed('SetStateDisabled', U(T.ALL_CPUS), '0', True)
        self.make_immutable(T.latency_file(2))
        self.assert_write_failed('SetResumeLatency', U(T.ALL_CPUS), U(30))
        self.assert_tree_unchanged()
        # ...and the daemon did not forget how to work.
        self.call('SetResumeLatency', U(0), U(30))
        self.assertEqual(self.read(T.latency_file(0)), '30')

    def test_write_failure_after_earlier_change(self):
        # A failed call must not undo or forget an earlier successful change.
        self.call('SetStateDisabled', U(0), '2', True)
        self.make_immutable(T.state_file(1, 2, 'disable'))
        before = T.snapshot_tree(self.tree)
        self.assert_dbus_error('WriteFailed', 'SetStateDisabled', U(T.ALL_CPUS), '2', True)
        self.assert_tree_unchanged(before)
        self.assertEqual(self.read(T.state_file(0, 2, 'disable')), '1')
        self.assertEqual([(str(p), str(v)) for p, v in self.manager_prop('Changed')],
                         [(T.state_file(0, 2, 'disable'), '0')])
        self.call('Restore')
        self.assertEqual(self.read(T.state_file(0, 2, 'disable')), '0')


if __name__ == '__main__':
    T.main()
