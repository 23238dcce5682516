#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""SIGTERM restores every knob; SIGKILL + restart restores from the journal;
SIGHUP reloads the configuration and survives a bad one."""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402

U = T.dbus.UInt32


class Lifecycle(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    def change_everything(self):
        """Changes every kind of knob on every CPU; returns the knob values."""
        self.call('SetGovernor', 'menu')
        self.call('SetStateDisabled', U(T.ALL_CPUS), '0', True)
        self.call('SetStateDisabled', U(3), self.state_names(3)[2], True)
        self.call('SetResumeLatency', U(T.ALL_CPUS), U(T.LATENCY_NA))
        self.call('SetResumeLatency', U(1), U(25))
        knobs = T.knob_values(self.tree)
        self.assertEqual(knobs[T.GOVERNOR_FILE], 'menu')
        self.assertEqual(knobs[T.latency_file(1)], '25')
        self.assertEqual(knobs[T.latency_file(2)], 'n/a')
        self.assertEqual(knobs[T.state_file(3, 2, 'disable')], '1')
        changed = [k for k in knobs if knobs[k] != self.original_knobs[k]]
        self.assertEqual(len(changed), 1 + 4 + 1 + 4)
        return knobs

    def expected_journal(self, knobs):
        return {k: self.original_knobs[k] for k in knobs if knobs[k] != self.original_knobs[k]}

    def test_sigterm_restores_everything(self):
        knobs = self.change_everything()
        self.assertEqual(self.journal_entries(), self.expected_journal(knobs))
        rc = self.stop_daemon(signal.SIGTERM)
        self.assertEqual(rc, 0, self.daemon.output())
        self.assert_tree_unchanged(msg='after SIGTERM')
        self.assertIsNone(self.journal_entries(), 'journal left behind after a clean exit')

    def test_sigint_restores_everything(self):
        self.call('SetResumeLatency', U(0), U(5))
        self.call('SetGovernor', 'ladder')
        rc = self.stop_daemon(signal.SIGINT)
        self.assertEqual(rc, 0)
        self.assert_tree_unchanged(msg='after SIGINT')

    def test_sigterm_without_changes_writes_nothing(self):
        self.assertIsNone(self.journal_entries())
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assert_tree_unchanged()

    def test_sigkill_then_restart_restores_from_journal(self):
        knobs = self.change_everything()
        self.assertEqual(self.journal_entries(), self.expected_journal(knobs))
        rc = self.stop_daemon(signal.SIGKILL)
        self.assertEqual(rc, -signal.SIGKILL)
        # The kernel keeps what was written: nothing was restored yet.
        self.assertEqual(T.knob_values(self.tree), knobs)
        self.assertEqual(self.journal_entries(), self.expected_journal(knobs))
        self.start_daemon()
        # Restored at start, before taking the bus name.
        self.assertEqual(T.knob_values(self.tree), self.original_knobs)
        self.assert_tree_unchanged(msg='after restart from the journal')
        self.assertIsNone(self.journal_entries(), 'journal still there after replaying it')
        self.assertEqual(list(self.manager_prop('Changed')), [])
        self.assertEqual(self.manager_prop('Governor'), 'haltpoll')
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_tree_unchanged(msg='after the final SIGTERM')

    def test_journal_for_another_root_is_left_alone(self):
        self.call('SetResumeLatency', U(2), U(12))
        self.stop_daemon(signal.SIGKILL)
        journal = self.journal_entries()
        self.assertEqual(journal, {T.latency_file(2): '0'})
        other = os.path.join(self.tmp, 'other-tree')
        self.make_tree(other, self.TREE_ARGS)
        T.write(other, T.latency_file(2), '77')
        other_before = T.snapshot_tree(other)
        proc = T.Process([self.daemon_exe, '--root', other, '--runtime-dir', self.runtime_dir,
                          '--tick-usec', str(T.TICK_USEC)], os.path.join(self.tmp, 'other.log'), self.env())
        self.addCleanup(self._stop_daemon_and_dump, proc)
        T.wait_for(lambda: self.bus.name_has_owner(T.BUS_NAME) or not proc.alive(), timeout=10,
                   what='the daemon on the other root to start or give up')
        proc.stop()
        T.wait_for(lambda: not self.bus.name_has_owner(T.BUS_NAME), what='the bus name to go away')
        self.assertEqual(T.diff_snapshots(other_before, T.snapshot_tree(other)), [],
                         'a journal of another root was replayed onto this one')
        self.assertEqual(self.journal_entries(), journal, 'a journal of another root was lost')
        self.assertEqual(self.read(T.latency_file(2)), '12')
        self.start_daemon()
        self.assert_tree_unchanged()

    def test_second_instance_on_the_same_journal_refused(self):
        self.call('SetGovernor', 'menu')
        before, journal = T.snapshot_tree(self.tree), self.journal_entries()
        r = T.subprocess.run(self.daemon_argv(), capture_output=True, text=True, env=self.env(),
                             timeout=10, check=False)
        self.assertNotEqual(r.returncode, 0, 'a second daemon ran on the same runtime dir')
        self.assert_tree_unchanged(before)
        self.assertEqual(self.journal_entries(), journal)
        self.assert_daemon_alive()
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_tree_unchanged()

    def test_sigkill_twice_keeps_first_originals(self):
        self.call('SetResumeLatency', U(0), U(10))
        self.stop_daemon(signal.SIGKILL)
        self.start_daemon()
        self.assertEqual(self.read(T.latency_file(0)), '0')
        self.call('SetResumeLatency', U(0), U(11))
        self.call('SetGovernor', 'menu')
        self.stop_daemon(signal.SIGKILL)
        self.assertEqual(self.read(T.latency_file(0)), '11')
        self.assertEqual(self.journal_entries(), {T.latency_file(0): '0', T.GOVERNOR_FILE: 'haltpoll'})
        self.start_daemon()
        self.assertEqual(T.knob_values(self.tree), self.original_knobs)
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_tree_unchanged()

    def test_sigkill_after_restore_has_nothing_to_replay(self):
        self.call('SetGovernor', 'menu')
        self.call('Restore')
        self.assert_tree_unchanged()
        self.assertIsNone(self.journal_entries())
        self.stop_daemon(signal.SIGKILL)
        # An external change after the crash must not be "restored" away.
        T.write(self.tree, T.GOVERNOR_FILE, 'ladder')
        self.start_daemon()
        time.sleep(0.5)
        self.assertEqual(self.read(T.GOVERNOR_FILE), 'ladder')
        self.assertEqual(self.manager_prop('Governor'), 'ladder')


class Reload(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '2', '--states', '2', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')
        self.write_config({'tick_usec': 100000, 'log_level': 'debug'})
        self.start_daemon(argv=[self.daemon_exe, '--root', self.tree, '--runtime-dir', self.runtime_dir,
                                '--config', self.config] + self.policy_args())

    def write_config(self, content):
        with open(self.config, 'w', encoding='utf-8') as f:
            f.write(content if isinstance(content, str) else json.dumps(content))

    def test_config_file_sets_the_tick(self):
        self.assertEqual(int(self.manager_prop('TickUSec')), 100000)

    def test_sighup_with_good_config_applies_it(self):
        self.write_config({'tick_usec': 250000})
        self.daemon.signal(signal.SIGHUP)
        T.wait_for(lambda: int(self.manager_prop('TickUSec')) == 250000, timeout=5,
                   what='TickUSec to follow the reloaded config')
        self.assert_daemon_alive()

    def test_sighup_with_bad_config_keeps_running(self):
        self.call('SetResumeLatency', U(1), U(40))
        for bad in ('{"tick_usec": "soon"}', '{not json', '{"tick_usec": 5}', '{"no_such_key": 1}', ''):
            with self.subTest(config=bad):
                self.write_config(bad)
                self.daemon.signal(signal.SIGHUP)
                time.sleep(0.3)
                self.assert_daemon_alive()
                self.assertEqual(int(self.manager_prop('TickUSec')), 100000)
                # The reload neither restored nor forgot the change.
                self.assertEqual(self.read(T.latency_file(1)), '40')
                self.assertEqual(len(self.manager_prop('Changed')), 1)
        os.unlink(self.config)
        self.daemon.signal(signal.SIGHUP)
        time.sleep(0.3)
        self.assert_daemon_alive()
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_tree_unchanged()

    def test_bad_config_at_start_fails(self):
        self.stop_daemon()
        self.write_config('{"tick_usec": "soon"}')
        argv = [self.daemon_exe, '--root', self.tree, '--runtime-dir', self.runtime_dir,
                '--config', self.config] + self.policy_args()
        r = T.subprocess.run(argv, capture_output=True, text=True, env=self.env(), timeout=10, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('tick_usec', r.stdout + r.stderr)


class BadStart(T.IdlePolicyTestCase):
    START_DAEMON = False

    def run_daemon(self, *args):
        return T.subprocess.run([self.daemon_exe] + list(args), capture_output=True, text=True,
                                env=self.env(), timeout=10, check=False)

    def test_missing_root_fails(self):
        r = self.run_daemon('--root', os.path.join(self.tmp, 'nope'), '--runtime-dir', self.runtime_dir)
        self.assertNotEqual(r.returncode, 0)
        self.assertFalse(self.bus.name_has_owner(T.BUS_NAME))

    def test_bad_tick_fails(self):
        for tick in ('0', 'abc', '-5'):
            with self.subTest(tick=tick):
                r = self.run_daemon('--root', self.tree, '--runtime-dir', self.runtime_dir,
                                    '--tick-usec', tick)
                self.assertNotEqual(r.returncode, 0)
        self.assert_tree_unchanged()

    def test_help(self):
        r = self.run_daemon('--help')
        self.assertEqual(r.returncode, 0)
        for opt in ('--root', '--runtime-dir', '--tick-usec', '--config'):
            self.assertIn(opt, r.stdout)


if __name__ == '__main__':
    T.main()
