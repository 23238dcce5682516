#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pins taken from files (issue 23, smaller items): a pins.json PID entry
without a start time re-pins whatever process has that PID today; a pins.d
rule file is taken whoever owns it and whoever may write to it; so is a
profiles.d file, which decides what root writes to every CPU's idle knobs.

Expected: the PID entry is refused, named in the log (its place in the
file and the key), and no process is pinned; a rule file not owned by root
(or the daemon's user), or writable by others, or by a group other than
root's, is refused as sudo refuses such a sudoers file: the log names the
file and why (its owner, its mode), and its rules are not taken."""

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import robustnesstest as R  # noqa: E402

T = R.T


affinity = T.affinity


class PinFilesTestCase(R.RobustTestCase):
    AFFINITY_CPUS = {0, 1}
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        os.mkdir(self.state_dir, 0o755)
        self.pins_d = os.path.join(self.tmp, 'pins.d')
        os.mkdir(self.pins_d, 0o755)

    def sleeper(self, exe='sleep'):
        child = subprocess.Popen([exe, '600'], preexec_fn=T._die_with_parent)  # noqa: PLW1509
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        T.wait_for(lambda: os.readlink(f'/proc/{child.pid}/exe') != os.readlink('/proc/self/exe'),
                   what='the child exec\'d')
        return child

    def start(self):
        self.spawn_daemon(extra=['--pins-dir', self.pins_d])
        self.wait_on_bus(10)
        T.wait_for(lambda: 'running on' in self.daemon.output(), what='the start done (the pins loaded)')

    def pins(self):
        return [str(p) for p in self.manager_prop('Pins')]


class PinsJsonWithoutStartTime(PinFilesTestCase):

    def test_pid_entry_without_start_time_is_refused(self):
        child = self.sleeper()
        entry = {'id': 1, 'target': f'pid:{child.pid}', 'cpus': '1', 'profile': 'latency',
                 'created_usec': 0, 'reason': '', 'owner_uid': 0}
        with open(os.path.join(self.state_dir, 'pins.json'), 'w', encoding='utf-8') as f:
            json.dump({'version': 1, 'next_id': 2, 'pins': [entry]}, f)
        self.start()
        self.assertEqual(affinity(child.pid), [0, 1], 'a PID entry without a start time pinned the process')
        self.assertEqual(self.pins(), [])
        out = self.daemon.output()
        self.assertTrue([line for line in out.splitlines()
                         if 'pins.json' in line and 'pins[0] (id 1)' in line and 'start_time' in line],
                        f'the refused entry is not named:\n{out}')
        self.assert_daemon_alive()

    def test_start_time_zero_is_refused(self):
        child = self.sleeper()
        entry = {'id': 1, 'target': f'pid:{child.pid}', 'start_time': 0, 'cpus': '1', 'profile': 'latency'}
        with open(os.path.join(self.state_dir, 'pins.json'), 'w', encoding='utf-8') as f:
            json.dump({'version': 1, 'next_id': 2, 'pins': [entry]}, f)
        self.start()
        self.assertEqual(affinity(child.pid), [0, 1], 'a PID entry with start time 0 pinned the process')
        self.assertIn('start_time', self.daemon.output())


class PinsDirOwner(PinFilesTestCase):
    """A comm: rule on a copy of sleep with a name of its own: taken, the
    process is pinned; refused, it is not."""

    def setUp(self):
        super().setUp()
        self.exe = os.path.join(self.tmp, 'hostilepin')
        shutil.copy('/bin/sleep', self.exe)
        self.rule = os.path.join(self.pins_d, 'rule.json')
        with open(self.rule, 'w', encoding='utf-8') as f:
            json.dump({'target': 'comm:hostilepin', 'cpus': '1', 'profile': 'latency'}, f)
        os.chmod(self.rule, 0o644)

    def assert_refused(self, why):
        child = self.sleeper(self.exe)
        self.start()
        out = self.daemon.output()
        self.assertTrue([line for line in out.splitlines() if self.rule in line and why in line],
                        f'no log line names {self.rule} and "{why}":\n{out}')
        self.assertEqual(self.pins(), [], 'the refused file\'s rule was taken')
        self.assertEqual(affinity(child.pid), [0, 1], 'the refused file\'s rule pinned a process')
        self.assert_daemon_alive()

    def test_root_owned_file_is_taken(self):
        child = self.sleeper(self.exe)
        self.start()
        T.wait_for(lambda: affinity(child.pid) == [1], what='the rule\'s process pinned')
        self.assertEqual(len(self.pins()), 1)

    def test_not_owned_by_root(self):
        os.chown(self.rule, T.NOBODY, 0)
        self.assert_refused(f'owned by uid {T.NOBODY}')

    def test_writable_by_others(self):
        os.chmod(self.rule, 0o646)
        self.assert_refused('writable by others')

    def test_writable_by_a_group_other_than_roots(self):
        os.chown(self.rule, 0, T.NOBODY)
        os.chmod(self.rule, 0o664)
        self.assert_refused(f'writable by group {T.NOBODY}')

    def test_symlink_to_a_file_of_another_user(self):
        target = os.path.join(self.tmp, 'elsewhere.json')
        os.rename(self.rule, target)
        os.chown(target, T.NOBODY, T.NOBODY)
        os.symlink(target, self.rule)
        self.assert_refused(f'owned by uid {T.NOBODY}')

    def test_directory_writable_by_others(self):
        os.chmod(self.pins_d, 0o777)
        child = self.sleeper(self.exe)
        self.start()
        out = self.daemon.output()
        self.assertTrue([line for line in out.splitlines() if self.pins_d in line and 'writable by others' in line],
                        f'the directory\'s refusal is not named:\n{out}')
        self.assertEqual(self.pins(), [])
        self.assertEqual(affinity(child.pid), [0, 1])


class ProfilesDirOwner(PinFilesTestCase):
    """A profile in the administrator's profiles.d (the fixture's
    --profile-override-dir): loaded when root's, refused as pins.d is
    otherwise."""

    def setUp(self):
        super().setUp()
        with open(os.path.join(T.PROFILE_DIR, 'latency.json'), encoding='utf-8') as f:
            profile = json.load(f)
        profile['name'] = 'hostile'
        self.file = os.path.join(self.profiles_d, 'hostile.json')
        with open(self.file, 'w', encoding='utf-8') as f:
            json.dump(profile, f)
        os.chmod(self.file, 0o644)

    def profiles(self):
        return sorted(str(p) for p in self.manager_prop('Profiles'))

    def assert_refused(self, path, why):
        self.start()
        out = self.daemon.output()
        self.assertTrue([line for line in out.splitlines() if path in line and why in line],
                        f'no log line names {path} and "{why}":\n{out}')
        self.assertNotIn('hostile', self.profiles(), 'the refused file\'s profile was loaded')
        self.assert_daemon_alive()

    def test_root_owned_file_is_loaded(self):
        self.start()
        self.assertIn('hostile', self.profiles())

    def test_not_owned_by_root(self):
        os.chown(self.file, T.NOBODY, 0)
        self.assert_refused(self.file, f'owned by uid {T.NOBODY}')

    def test_writable_by_others(self):
        os.chmod(self.file, 0o646)
        self.assert_refused(self.file, 'writable by others')

    def test_directory_writable_by_others(self):
        os.chmod(self.profiles_d, 0o777)
        self.assert_refused(self.profiles_d, 'writable by others')


if __name__ == '__main__':
    T.main()
