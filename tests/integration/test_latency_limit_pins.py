#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pins and holds with an exact latency limit, the derived profile
"BASE:latency_limit_us=N" (idlepolicyd(8), PROFILES): through busctl and
idlepolicyctl, in enforce mode on a tree of POLL, C1 (4 us), C2 (16 us),
C3 (64 us), the claimed CPU's states above N are disabled and the others
not; the name is shown as given (the pin's Profile, Holds, the CPU's
Profile and ProfileSource, status, pins, metrics), the stricter of two
derived limits wins, pins.json keeps it over a SIGKILL, and every bad N or
BASE is refused with its name and changes nothing."""

import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402
import test_pins as TP  # noqa: E402

C1, C2, C3 = 1, 2, 3


class LatencyLimitPins(TP.PinTestCase):
    TREE_ARGS = ['--cpus', '2', '--states', '4', '--driver', 'acpi_idle', '--no-haltpoll', '--governor', 'menu']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        # The limit alone moves the cap: the model never does (every share
        # of too deep tolerated, no exploration, the util rule off).
        steady = dict(too_deep_tolerance=100, too_shallow_tolerance=100, explore_shift=0, util_threshold=100,
                      util_hysteresis=0, hold_ticks=0)
        P.write_profile(self, 'steady', **steady)
        P.write_profile(self, 'steady-10', latency_limit_us=10, **steady)
        self.start_daemon(mode='enforce')
        self.call('SetProfile', 'steady')

    def disabled(self, cpu):
        """The disable bits of C1..C3 of cpu, as '0'/'1' strings."""
        return [self.read(T.state_file(cpu, s, 'disable')) for s in (C1, C2, C3)]

    def wait_disabled(self, cpu, want, what):
        with self.ticking():
            T.wait_for(lambda: self.disabled(cpu) == want, timeout=15, what=f'CPU {cpu}: {what}')

    def wait_cpu_profile(self, cpu, name):
        T.wait_for(lambda: str(self.cpu_prop(cpu, 'Profile')) == name, what=f'CPU {cpu} under {name}')

    def test_busctl_pin_disables_the_states_above_n_and_unpin_puts_them_back(self):
        child = self.sleeper()
        before = self.disabled(1)
        self.assertEqual(before, ['0', '0', '0'])
        r = self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Pin', 'sss', f'pid:{child.pid}', '1',
                        'steady:latency_limit_us=20')
        path = r.stdout.split('"')[1]
        self.wait_cpu_profile(1, 'steady:latency_limit_us=20')
        self.wait_disabled(1, ['0', '0', '1'], 'C3 (64 us) disabled, C2 (16 us) not')
        self.assertEqual(str(self.pin_props(path)['Profile']), 'steady:latency_limit_us=20')
        self.assertEqual(str(self.cpu_prop(1, 'ProfileSource')), f'pin {path} pid:{child.pid}')
        self.assertIn('steady:latency_limit_us=20', str(self.cpu_prop(1, 'Reason')))
        self.assertEqual(str(self.cpu_prop(0, 'Profile')), 'steady')
        metrics = self.ctl('metrics').stdout
        self.assertRegex(metrics, r'idlepolicy_cpu_profile_info\{cpu="1",profile="steady:latency_limit_us=20",'
                                  r'source="pin",origin="pin [^"]+"\} 1')
        status = self.ctl('status').stdout
        self.assertIn('steady:latency_limit_us=20', status)
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Unpin', 'o', path)
        self.wait_cpu_profile(1, 'steady')
        self.wait_disabled(1, ['0', '0', '0'], 'every state enabled again')

    def test_ctl_pin_stricter_derived_limit_wins(self):
        """Two pins on CPU 1: N = 20 then N = 5; 5 wins (C2 goes too), and
        when it ends 20 is in force again."""
        a, b = self.sleeper(), self.sleeper()
        r = self.ctl('pin', f'pid:{a.pid}', '--cpus', '1', '--profile', 'steady:latency_limit_us=20',
                     '--reason', 'twenty')
        path_a = r.stdout.strip()
        self.wait_disabled(1, ['0', '0', '1'], 'C3 disabled under N = 20')
        r = self.ctl('pin', f'pid:{b.pid}', '--cpus', '1', '--profile', 'steady:latency_limit_us=5')
        path_b = r.stdout.strip()
        self.wait_cpu_profile(1, 'steady:latency_limit_us=5')
        self.wait_disabled(1, ['0', '1', '1'], 'C2 and C3 disabled under N = 5')
        self.assertEqual(str(self.cpu_prop(1, 'ProfileSource')),
                         f'pin {path_b} pid:{b.pid} (steady:latency_limit_us=5, 5 us) over '
                         f'pin {path_a} pid:{a.pid} (steady:latency_limit_us=20)')
        out = self.ctl('pins').stdout
        self.assertRegex(out, rf'(?m)^{path_a[len(TP.PIN_PREFIX):]}\s+pid:{a.pid}\s+1\s+'
                              r'steady:latency_limit_us=20\s+active\s+.*twenty$')
        doc = json.loads(self.ctl('pins', '--json').stdout)
        self.assertEqual(sorted(p['profile'] for p in doc['pins']),
                         ['steady:latency_limit_us=20', 'steady:latency_limit_us=5'])
        self.ctl('unpin', path_b)
        self.wait_cpu_profile(1, 'steady:latency_limit_us=20')
        self.wait_disabled(1, ['0', '0', '1'], 'C2 enabled again under N = 20')

    def test_hold_replaces_the_base_limit(self):
        """steady-10 stops at 10 us (C2 disabled); steady-10:latency_limit_us=50
        is latency with 50: C2 allowed, C3 not."""
        cookie = int(self.call('Hold', 'steady-10:latency_limit_us=50', '0', 'exact', 'org.example.Limit'))
        self.assertEqual(tuple(self.holds()[0]),
                         (cookie, 'steady-10:latency_limit_us=50', '0', 'exact', 'org.example.Limit', self.holds()[0][5]))
        self.wait_cpu_profile(0, 'steady-10:latency_limit_us=50')
        self.wait_disabled(0, ['0', '0', '1'], 'C3 disabled, C2 not')
        self.assertEqual(str(self.cpu_prop(0, 'ProfileSource')), f'hold {cookie} by org.example.Limit')
        self.call('Release', T.dbus.UInt32(cookie))
        cookie = int(self.call('Hold', 'steady-10', '0', '', ''))
        self.wait_disabled(0, ['0', '1', '1'], 'C2 disabled under steady-10 itself')
        self.call('Release', T.dbus.UInt32(cookie))

    def test_ctl_launch_with_a_derived_profile(self):
        r = self.ctl('launch', '--cpus', '1', '--profile', 'steady:latency_limit_us=16', '--', 'sh', '-c',
                     f'{self.ctl_exe} pins --json')
        doc = json.loads(r.stdout)
        self.assertIn('steady:latency_limit_us=16', [h['profile'] for h in doc['holds']])

    def test_persisted_over_sigkill(self):
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'steady:latency_limit_us=4')
        self.wait_disabled(1, ['0', '1', '1'], 'C2, C3 disabled under N = 4 (C1 at 4 stays)')
        with open(os.path.join(self.state_dir, 'pins.json'), encoding='utf-8') as f:
            self.assertEqual([p['profile'] for p in json.load(f)['pins']], ['steady:latency_limit_us=4'])
        self.assertEqual(self.stop_daemon(signal.SIGKILL), -signal.SIGKILL)
        self.start_daemon(mode='enforce')
        T.wait_for(lambda: path in self.pins(), what='the pin after the restart')
        self.assertEqual(str(self.pin_props(path)['Profile']), 'steady:latency_limit_us=4')
        self.wait_cpu_profile(1, 'steady:latency_limit_us=4')
        self.wait_disabled(1, ['0', '1', '1'], 'C2, C3 disabled again')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(self.disabled(1), ['0', '0', '0'])

    def test_reload_removes_and_brings_back_the_base(self):
        """BASE gone at a SIGHUP: the pin's CPU runs the machine profile (as
        for a pin of a profile no longer loaded); BASE back: the derived
        profile is in force again, derived anew."""
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'steady-10:latency_limit_us=20')
        self.wait_disabled(1, ['0', '0', '1'], 'C3 disabled under N = 20')
        base = os.path.join(self.profiles_d, 'steady-10.json')
        os.rename(base, base + '.off')
        self.daemon.signal(signal.SIGHUP)
        self.wait_cpu_profile(1, 'steady')
        self.wait_disabled(1, ['0', '0', '0'], 'every state enabled without BASE')
        self.assertEqual(str(self.pin_props(path)['Profile']), 'steady-10:latency_limit_us=20')
        os.rename(base + '.off', base)
        self.daemon.signal(signal.SIGHUP)
        self.wait_cpu_profile(1, 'steady-10:latency_limit_us=20')
        self.wait_disabled(1, ['0', '0', '1'], 'C3 disabled again')

    def test_bad_names_are_refused_and_change_nothing(self):
        child = self.sleeper()
        before = T.snapshot_tree(self.tree)
        for name, profile in (('UnknownProfile', 'nosuch:latency_limit_us=20'),
                              ('UnknownProfile', 'balanced:resume_latency_us=20'),
                              ('UnknownProfile', 'balanced:'),
                              ('InvalidLatency', 'steady:latency_limit_us=10000001'),
                              ('InvalidLatency', 'steady:latency_limit_us=020'),
                              ('InvalidLatency', 'steady:latency_limit_us=-1'),
                              ('InvalidLatency', 'steady:latency_limit_us=')):
            with self.subTest(profile=profile):
                message = self.assert_dbus_error(name, 'Pin', f'pid:{child.pid}', '1', profile)
                self.assertIn(profile, message)
                self.assert_dbus_error(name, 'Hold', profile, '1', '', '')
        r = self.ctl('pin', f'pid:{child.pid}', '--cpus', '1', '--profile', 'steady:latency_limit_us=99999999',
                     check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("invalid latency limit in profile 'steady:latency_limit_us=99999999'", r.stderr)
        self.assertIn('InvalidLatency', r.stderr)
        r = self.ctl('hold', 'nosuch:latency_limit_us=5', check=False)
        self.assertIn("unknown profile 'nosuch:latency_limit_us=5'", r.stderr)
        self.assertEqual((self.pins(), self.holds()), ([], []))
        self.assert_tree_unchanged(before)
        self.assert_daemon_alive()


if __name__ == '__main__':
    T.main()
