#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The daemon's own files in its state and runtime directories (issue 23,
item 4, "every other place the daemon writes a file of its own"):
state.json, pins.json and the restore journal are written the way the
metrics textfile was, so a FIFO planted at a temporary name (or at
restore.journal while there is none) blocks the daemon for good, and a hard
link there is written through.  Only root can plant there on a machine as
shipped (the directories are root's, 0755): these are a second line of
defence, and a directory writable by others is refused outright (the state
directory: nothing persists, named; the runtime directory: the daemon does
not start, named).

Expected: the call that writes the file is answered within 5 s, the
daemon stops on SIGTERM, a victim hard-linked at the name keeps its
content."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import robustnesstest as R  # noqa: E402

T = R.T
U = R.U

HINT = ' (blocked writing a file?)'
VICTIM_TEXT = 'VICTIM-CONTENT-4321\n'


class StateFilesTestCase(R.RobustTestCase):
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        os.mkdir(self.state_dir, 0o755)

    def victim(self):
        path = os.path.join(self.tmp, 'victim.txt')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(VICTIM_TEXT)
        return path

    def assert_victim(self, path):
        with open(path, encoding='utf-8') as f:
            self.assertEqual(f.read(), VICTIM_TEXT, f'{path} was written through a hard link')

    def start(self):
        self.spawn_daemon()
        self.wait_on_bus(10)

    def bounded_call(self, method, *args, hint=HINT):
        return super().bounded_call(method, *args, hint=hint)

    def sleeper(self):
        child = T.subprocess.Popen(['sleep', '600'], preexec_fn=T._die_with_parent)  # noqa: PLW1509
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        return child


class StateDirectory(StateFilesTestCase):

    def test_fifo_at_state_json_tmp(self):
        os.mkfifo(os.path.join(self.state_dir, 'state.json.tmp'))
        self.start()
        self.bounded_call('SetProfile', 'power-saver')
        with open(os.path.join(self.state_dir, 'state.json'), encoding='utf-8') as f:
            self.assertIn('power-saver', f.read())
        self.assert_stops()

    def test_hard_link_at_pins_json_tmp(self):
        victim = self.victim()
        os.link(victim, os.path.join(self.state_dir, 'pins.json.tmp'))
        self.start()
        child = self.sleeper()
        self.bounded_call('Pin', f'pid:{child.pid}', '1', 'latency')
        self.assert_victim(victim)
        with open(os.path.join(self.state_dir, 'pins.json'), encoding='utf-8') as f:
            self.assertIn(f'pid:{child.pid}', f.read())
        self.assert_stops()
        self.assert_victim(victim)

    def test_writable_by_others_is_refused(self):
        os.chmod(self.state_dir, 0o777)
        self.start()
        self.bounded_call('SetProfile', 'power-saver')
        self.assertEqual(os.listdir(self.state_dir), [], 'written into a state directory writable by others')
        out = self.daemon.output()
        self.assertTrue([line for line in out.splitlines()
                         if self.state_dir in line and 'writable by others' in line and 'nothing will persist' in line],
                        f'the refusal is not named:\n{out}')
        self.assert_stops()


class RuntimeDirectory(StateFilesTestCase):

    def journal(self):
        return os.path.join(self.runtime_dir, T.JOURNAL_FILE)

    def test_fifo_at_the_journal_while_there_is_none(self):
        self.start()
        self.assertFalse(os.path.lexists(self.journal()))
        os.mkfifo(self.journal())
        self.bounded_call('SetResumeLatency', U(1), U(7))
        self.assertEqual(self.journal_entries(), {T.latency_file(1): '0'})
        self.assert_stops()
        self.assert_tree_unchanged()

    def test_hard_link_at_the_journal_while_there_is_none(self):
        victim = self.victim()
        self.start()
        os.link(victim, self.journal())
        self.bounded_call('SetResumeLatency', U(1), U(7))
        self.assert_victim(victim)
        self.assertEqual(self.journal_entries(), {T.latency_file(1): '0'})
        self.assert_stops()
        self.assert_victim(victim)
        self.assert_tree_unchanged()

    def test_writable_by_others_is_refused(self):
        os.chmod(self.runtime_dir, 0o777)
        self.spawn_daemon()
        try:
            rc = self.daemon.wait(10)
        except T.subprocess.TimeoutExpired:
            self.fail('idlepolicyd started with a runtime directory writable by others')
        self.assertNotEqual(rc, 0)
        out = self.daemon.output()
        self.assertTrue([line for line in out.splitlines()
                         if self.runtime_dir in line and 'writable by others' in line],
                        f'the refusal is not named:\n{out}')
        self.assertEqual(os.listdir(self.runtime_dir), [])


if __name__ == '__main__':
    T.main()
