#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Authorisation: root always; others through polkit (mocked), one action per
method; denied without polkit on the bus."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402

# (method, busctl signature and args, dbus-send args, tree file it would change)
CALLS = [
    ('SetGovernor', ['s', 'menu'], ['string:menu'], T.GOVERNOR_FILE),
    ('SetStateDisabled', ['usb', '1', '0', 'true'], ['uint32:1', 'string:0', 'boolean:true'],
     T.state_file(1, 0, 'disable')),
    ('SetResumeLatency', ['uu', '0', '20'], ['uint32:0', 'uint32:20'], T.latency_file(0)),
    ('SetProfile', ['s', 'performance'], ['string:performance'], None),
    ('SetMode', ['s', 'observe'], ['string:observe'], None),
    ('SetConsolidation', ['u', '1'], ['uint32:1'], None),
    ('Calibrate', [], [], None),
    ('Restore', [], [], None),
]


class Authorisation(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '2', '--states', '2', '--driver', 'haltpoll', '--governor', 'haltpoll']

    def busctl_as_nobody(self, method, args, check=False):
        return self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, method, *args,
                           user=T.NOBODY, check=check)

    def assert_denied(self, method, busctl_args, send_args):
        before = T.snapshot_tree(self.tree)
        r = self.busctl_as_nobody(method, busctl_args)
        self.assertNotEqual(r.returncode, 0, f'{method} as uid {T.NOBODY} was allowed')
        self.assertIn('Call failed', r.stderr)
        r = self.dbus_send(method, *send_args, user=T.NOBODY)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(T.ERROR_PREFIX + 'AccessDenied', r.stderr, f'{method}: {r.stderr}')
        self.assert_tree_unchanged(before, f'after the denied {method}')
        self.assert_daemon_alive()

    def test_denied_when_polkit_says_no(self):
        for method, busctl_args, send_args, _ in CALLS:
            with self.subTest(method=method):
                self.assert_denied(method, busctl_args, send_args)
        # The daemon asked polkit, with the action of each method.
        self.assertEqual(sorted(self.polkit_checked_actions()), sorted(T.ACTIONS.values()))

    def test_allowed_when_polkit_says_yes(self):
        self.set_allowed(list(T.ACTIONS.values()))
        for method, busctl_args, _, rel in CALLS:
            with self.subTest(method=method):
                self.busctl_as_nobody(method, busctl_args, check=True)
                if rel:
                    self.assertNotEqual(self.read(rel), self.original[rel].decode().strip(), rel)
        # Restore (last) put everything back.
        self.assert_tree_unchanged()

    def test_one_action_per_method(self):
        self.set_allowed([T.ACTIONS['SetResumeLatency']])
        self.busctl_as_nobody('SetResumeLatency', ['uu', '1', '15'], check=True)
        self.assertEqual(self.read(T.latency_file(1)), '15')
        for method, busctl_args, send_args, _ in CALLS:
            if method != 'SetResumeLatency':
                with self.subTest(method=method):
                    self.assert_denied(method, busctl_args, send_args)
        self.assertEqual(self.read(T.latency_file(1)), '15')

    def test_root_allowed_although_polkit_says_no(self):
        self.call('SetGovernor', 'menu')
        self.assertEqual(self.read(T.GOVERNOR_FILE), 'menu')
        self.assertEqual(self.polkit_checked_actions(), [], 'root callers should not need polkit')

    def test_nobody_can_read_properties(self):
        r = self.busctl('get-property', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Governor',
                        user=T.NOBODY)
        self.assertEqual(r.stdout.strip(), 's "haltpoll"')
        r = self.ctl('status', '--json', user=T.NOBODY)
        self.assertTrue(r.stdout.strip().startswith('{'))

    def test_ctl_as_nobody_denied(self):
        r = self.ctl('governor', 'menu', '--no-ask-password', user=T.NOBODY, check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn('AccessDenied', r.stderr)
        self.assert_tree_unchanged()


class NoPolkit(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '2', '--states', '2', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_POLKIT = False

    def test_denied_without_polkit(self):
        self.assertFalse(self.bus.name_has_owner(T.POLKIT_NAME))
        for method, busctl_args, send_args, _ in CALLS:
            with self.subTest(method=method):
                r = self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, method, *busctl_args,
                                user=T.NOBODY, check=False)
                self.assertNotEqual(r.returncode, 0)
                r = self.dbus_send(method, *send_args, user=T.NOBODY)
                self.assertIn(T.ERROR_PREFIX + 'AccessDenied', r.stderr, f'{method}: {r.stderr}')
        self.assert_tree_unchanged()
        self.assert_daemon_alive()
        # Root still may.
        self.call('SetResumeLatency', T.dbus.UInt32(1), T.dbus.UInt32(5))
        self.assertEqual(self.read(T.latency_file(1)), '5')

    def test_polkit_appearing_later_is_used(self):
        self.start_polkit()
        self.set_allowed([T.ACTIONS['SetGovernor']])
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'SetGovernor', 's', 'ladder',
                    user=T.NOBODY)
        self.assertEqual(self.read(T.GOVERNOR_FILE), 'ladder')


if __name__ == '__main__':
    T.main()
