#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Profiles and what persists: the built-ins and the overrides, switching,
a bad file rejected with the file and key named (the last good set stays,
on SIGHUP too), the profile and the mode kept across restarts, a corrupt
state file replaced by the defaults."""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

BUILTINS = ['balanced', 'latency', 'performance', 'power-saver']


class Profiles(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '2']

    def profiles(self):
        return sorted(str(p) for p in self.manager_prop('Profiles'))

    def test_builtins_and_default(self):
        self.assertEqual(self.profiles(), BUILTINS)
        self.assertEqual(self.manager_prop('ActiveProfile'), 'balanced')
        self.assertEqual(self.manager_prop('Mode'), 'observe')

    def test_switch_and_persist_across_restart(self):
        self.call('SetProfile', 'latency')
        self.assertEqual(self.manager_prop('ActiveProfile'), 'latency')
        self.assertEqual(P.state_json(self)['profile'], 'latency')
        self.call('SetProfile', 'latency')     # the same again: fine
        self.assertEqual(self.stop_daemon(), 0)
        self.start_daemon()
        self.assertEqual(self.manager_prop('ActiveProfile'), 'latency')
        self.assert_tree_unchanged()

    def test_unknown_profile(self):
        message = self.assert_dbus_error('UnknownProfile', 'SetProfile', 'turbo')
        self.assertIn('turbo', message)
        self.assertEqual(self.manager_prop('ActiveProfile'), 'balanced')
        r = self.ctl('profile', 'turbo', check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown profile 'turbo'", r.stderr)
        self.assert_daemon_alive()

    def test_profile_switch_emits_properties_changed(self):
        r = self.ctl('--json', 'profile', 'power-saver')
        doc = json.loads(r.stdout)
        self.assertEqual(doc['active_profile'], 'power-saver')
        self.assertEqual(doc['previous'], 'balanced')


class Overrides(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '2']
    START_DAEMON = False

    def test_override_adds_and_replaces(self):
        P.write_profile(self, 'quiet', description='mine', explore_shift=0)
        P.write_profile(self, 'balanced', description='replaced', hold_ticks=7)
        self.start_daemon()
        self.assertIn('quiet', [str(p) for p in self.manager_prop('Profiles')])
        self.assertEqual(len(self.manager_prop('Profiles')), len(BUILTINS) + 1)
        self.call('SetProfile', 'quiet')

    def test_bad_file_at_start_is_rejected_by_name_and_key(self):
        P.write_profile(self, 'good', hold_ticks=3)
        P.write_profile(self, 'bad', hold_ticks='three')
        with open(os.path.join(self.profiles_d, 'broken.json'), 'w', encoding='utf-8') as f:
            f.write('{"name": "broken", ')
        self.start_daemon()
        profiles = [str(p) for p in self.manager_prop('Profiles')]
        self.assertIn('good', profiles)
        self.assertNotIn('bad', profiles)
        self.assertNotIn('broken', profiles)
        time.sleep(0.2)
        log = self.daemon.output()
        self.assertIn(os.path.join(self.profiles_d, 'bad.json') + ': key "hold_ticks"', log)
        self.assertIn(os.path.join(self.profiles_d, 'broken.json'), log)
        self.assert_daemon_alive()

    def test_sighup_with_a_bad_file_keeps_the_last_good_set(self):
        P.write_profile(self, 'mine', hold_ticks=3)
        self.start_daemon()
        self.call('SetProfile', 'mine')
        before = self.profiles_now()
        P.write_profile(self, 'extra')                          # good, but in a bad reload
        P.write_profile(self, 'mine', too_deep_tolerance=150)   # out of range
        self.daemon.signal(signal.SIGHUP)
        T.wait_for(lambda: 'Keeping the previous' in self.daemon.output(), what='the rejected reload')
        self.assertIn('mine.json: key "too_deep_tolerance"', self.daemon.output())
        self.assertEqual(self.profiles_now(), before)
        self.assertEqual(self.manager_prop('ActiveProfile'), 'mine')
        # Fixed: the next reload takes the new set.
        P.write_profile(self, 'mine', too_deep_tolerance=15)
        self.daemon.signal(signal.SIGHUP)
        T.wait_for(lambda: 'extra' in self.profiles_now(), what='the good reload')
        self.assert_daemon_alive()

    def test_sighup_dropping_the_active_profile_falls_back(self):
        P.write_profile(self, 'mine')
        self.start_daemon()
        self.call('SetProfile', 'mine')
        os.unlink(os.path.join(self.profiles_d, 'mine.json'))
        self.daemon.signal(signal.SIGHUP)
        T.wait_for(lambda: self.manager_prop('ActiveProfile') == 'balanced', what='the fallback to balanced')
        self.assertEqual(P.state_json(self)['profile'], 'balanced')

    def profiles_now(self):
        return sorted(str(p) for p in self.manager_prop('Profiles'))


class State(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '2']
    START_DAEMON = False

    def write_state(self, text):
        os.makedirs(self.state_dir, exist_ok=True)
        with open(os.path.join(self.state_dir, 'state.json'), 'w', encoding='utf-8') as f:
            f.write(text)

    def test_corrupt_state_file_means_defaults(self):
        for text in ('{"profile": ', '[]', '{"mode": "turbo"}', '{"profile": 5}', '\0\0\0'):
            with self.subTest(text=text):
                self.write_state(text)
                self.start_daemon(mode=None)
                self.assertEqual(self.manager_prop('ActiveProfile'), 'balanced')
                self.assertEqual(self.manager_prop('Mode'), 'enforce')
                self.assertIn('state file is corrupt', self.daemon.output())
                # Replaced by the defaults.
                self.assertEqual(P.state_json(self), {'profile': 'balanced', 'mode': 'enforce'})
                self.assertEqual(self.stop_daemon(), 0)

    def test_unknown_saved_profile_means_the_default(self):
        self.write_state('{"profile": "gone", "mode": "observe"}')
        self.start_daemon(mode=None)
        self.assertEqual(self.manager_prop('ActiveProfile'), 'balanced')
        self.assertEqual(self.manager_prop('Mode'), 'observe')
        self.assertIn('"gone" is not loaded', self.daemon.output())

    def test_mode_persists_and_option_overrides(self):
        self.start_daemon(mode=None)
        self.assertEqual(self.manager_prop('Mode'), 'enforce')     # the installed default
        self.call('SetMode', 'observe')
        self.assertEqual(P.state_json(self)['mode'], 'observe')
        self.assertEqual(self.stop_daemon(), 0)
        self.start_daemon(mode=None)
        self.assertEqual(self.manager_prop('Mode'), 'observe')
        self.assertEqual(self.stop_daemon(), 0)
        self.start_daemon(mode='enforce')                           # --mode wins
        self.assertEqual(self.manager_prop('Mode'), 'enforce')

    def test_config_sets_the_default_mode(self):
        config = os.path.join(self.tmp, 'idlepolicyd.conf')
        with open(config, 'w', encoding='utf-8') as f:
            json.dump({'mode': 'observe'}, f)
        self.start_daemon(extra=['--config', config], mode=None)
        self.assertEqual(self.manager_prop('Mode'), 'observe')

    def test_unwritable_state_dir_is_not_fatal(self):
        with open(self.state_dir, 'w', encoding='utf-8') as f:
            f.write('a file, not a directory\n')
        self.start_daemon()
        self.call('SetProfile', 'latency')
        self.assertEqual(self.manager_prop('ActiveProfile'), 'latency')
        self.assertIn('nothing will persist', self.daemon.output())


if __name__ == '__main__':
    T.main()
