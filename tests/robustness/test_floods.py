#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Unprivileged floods of holds and pins (the bounded form of
bench/hostile-floods): uid 65534, allowed what the shipped polkit defaults
allow an active local session (pin-own-process and hold, through the polkit
mock), floods the daemon from many bus connections and with many of its own
processes.  It gets its 64 holds and 64 pins (the limits per user, over all
its connections) and no more, and root can still pin and hold after it."""

import json
import os
import pwd
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import robustnesstest as R  # noqa: E402

T = R.T
LIMIT = T.ERROR_PREFIX + 'LimitReached'
ACTION_PIN_OWN = T.BUS_NAME + '.pin-own-process'
ACTION_HOLD = T.BUS_NAME + '.hold'
FLOOD_CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'flood_client.py')
PER_USER = 64                   # pins and holds of a user other than root


def other_user():
    """A second unprivileged uid the bus knows (it looks uids up in the
    user database), or None."""
    for name in ('www-data', 'daemon', 'bin'):
        try:
            return pwd.getpwnam(name).pw_uid
        except KeyError:
            continue
    return None


class Flood:
    """flood_client.py as uid user; its result (the JSON line) in .result.
    Its connections and processes stay until stop()."""

    def __init__(self, case, user, *args):
        argv = ['setpriv', f'--reuid={user}', f'--regid={user}', '--clear-groups',
                case.python, FLOOD_CLIENT] + [str(a) for a in args]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=case.env(), preexec_fn=T._die_with_parent)  # noqa: PLW1509
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=10)
            raise AssertionError(f'flood_client {args} as uid {user} exited with {self.proc.returncode} '
                                 'before its result')
        self.result = json.loads(line)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()


class Floods(R.RobustTestCase):
    AFFINITY_CPUS = {0, 1}
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    def setUp(self):
        super().setUp()
        self.set_allowed([ACTION_PIN_OWN, ACTION_HOLD])

    def flood(self, user, *args):
        f = Flood(self, user, *args)
        self.addCleanup(f.stop)
        return f

    def sleeper(self):
        proc = subprocess.Popen(['sleep', '600'], preexec_fn=T._die_with_parent)  # noqa: PLW1509
        self.addCleanup(lambda: (proc.kill(), proc.wait()))
        return proc

    def holds(self):
        return [tuple(h) for h in self.manager_prop('Holds')]

    def pins(self):
        return [str(p) for p in self.manager_prop('Pins')]

    def assert_limited(self, result, what):
        self.assertEqual(result['accepted'], PER_USER, result)
        self.assertEqual(result['first_refusal'][0], LIMIT, result)
        self.assertIn(f'User {T.NOBODY} has {PER_USER} {what} already', result['first_refusal'][1])

    def assert_root_pins_and_holds(self):
        """Root can still hold, and pin a process of its own."""
        cookie = int(self.call('Hold', 'latency', '', 'root', ''))
        child = self.sleeper()
        path = str(self.call('Pin', f'pid:{child.pid}', '1', 'performance'))
        self.assertIn(path, self.pins())
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.call('Release', T.dbus.UInt32(cookie))

    def test_hold_flood_from_many_connections(self):
        """65 connections x 64 holds: 64 in all (before per-user limits: 4096, then
        root's Hold is refused)."""
        flood = self.flood(T.NOBODY, 'holds', 65, 64)
        self.assert_limited(flood.result, 'holds')
        self.assertEqual(len(self.holds()), PER_USER)
        self.assert_root_pins_and_holds()
        flood.stop()
        T.wait_for(lambda: self.holds() == [], what="the flood's holds to go with its connections")
        self.assert_daemon_alive()

    def test_pin_flood_of_own_processes(self):
        """80 processes of uid 65534 pinned by it: 64."""
        flood = self.flood(T.NOBODY, 'pins', 80, '1')
        self.assert_limited(flood.result, 'pins')
        self.assertEqual(len(self.pins()), PER_USER)
        self.assert_root_pins_and_holds()
        flood.stop()
        T.wait_for(lambda: self.pins() == [], what="the flood's pins to end with its processes")
        self.assert_daemon_alive()

    def test_both_floods_then_another_user(self):
        """The limits are per user: after uid 65534's floods another user
        still gets its own 64."""
        uid = other_user()
        if uid is None:
            self.skipTest('no second unprivileged user in the user database')
        self.flood(T.NOBODY, 'holds', 3, 64)
        self.flood(T.NOBODY, 'pins', 70, '')
        other = self.flood(uid, 'holds', 2, 64)
        self.assertEqual(other.result['accepted'], PER_USER, other.result)
        self.assertEqual(len(self.holds()), 2 * PER_USER)
        self.assertEqual(len(self.pins()), PER_USER)
        self.assert_root_pins_and_holds()


if __name__ == '__main__':
    T.main()
