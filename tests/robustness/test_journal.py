#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Attacks on the restore journal and on the knob files (issue 10, items 4,
5 and 8): a journal too long to replay quickly, a journal that is a symbolic
link to another file, one not owned by the daemon's user, one that is a
FIFO, a line of garbage, a governor the kernel does not offer, a resume
latency knob that is a symbolic link.

Expected: the daemon reaches the bus in bounded time and honours SIGTERM
while it replays; a refused journal is named in the log with the reason,
moved aside to restore.journal.rejected, never replayed, and its content
never appears in the daemon's output; a corrupt line is reported by number,
not by content; a governor not in available_governors is never written; a
knob that is a symbolic link is not written through (WriteFailed)."""

import os
import signal
import stat
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import robustnesstest as R  # noqa: E402

T = R.T
U = R.U

SECRET = 'SECRET-TOKEN-1234'
GARBAGE = 'GARBAGE-CONTENT-5678'
BIG_JOURNAL_LINES = 200000
BIG_JOURNAL_START_S = 10       # the bus within this, with 200 000 lines
SIGTERM_EXIT_S = 5             # SIGTERM during the replay: gone within this
# A knob the tree holds at 0 and a valid journal line claiming its original
# was 1: replaying such a journal writes 1 (a visible effect).
VICTIM_KNOB = T.state_file(0, 1, 'disable')
VICTIM_LINE = VICTIM_KNOB + ' 1'


def big_journal_lines(n):
    """n distinct valid-syntax lines for CPUs the tree does not have (1000
    and up, 10 states each): nothing is written when they are replayed."""
    return [T.state_file(1000 + i // 10, i % 10, 'disable') + ' 0' for i in range(n)]


class HugeJournal(R.RobustTestCase):
    """Item 4: 200 000 lines.  Today the replay is quadratic (more than
    16 s for 100 000) and runs before the event loop, with SIGTERM
    blocked."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        self.write_journal(big_journal_lines(BIG_JOURNAL_LINES))

    def test_reaches_the_bus_in_bounded_time(self):
        start = time.monotonic()
        self.spawn_daemon()
        self.wait_on_bus(BIG_JOURNAL_START_S)
        sys.stderr.write(f'on the bus after {time.monotonic() - start:.1f} s\n')
        self.assert_daemon_alive()
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_tree_unchanged()

    def test_sigterm_during_the_replay_is_honoured(self):
        self.spawn_daemon()
        # Past main()'s signal setup, inside the replay (today it lasts far
        # longer; a daemon that is quicker just gets SIGTERM while running).
        time.sleep(0.2)
        self.daemon.signal(signal.SIGTERM)
        start = time.monotonic()
        try:
            rc = self.daemon.wait(SIGTERM_EXIT_S)
        except T.subprocess.TimeoutExpired:
            self.fail(f'idlepolicyd still running {SIGTERM_EXIT_S} s after SIGTERM during its start')
        sys.stderr.write(f'exited {time.monotonic() - start:.2f} s after SIGTERM (status {rc})\n')
        self.assertTrue(R.exit_is_clean(rc), f'idlepolicyd crashed: status {rc}')
        self.assert_tree_unchanged()


class RefusedJournal(R.RobustTestCase):
    """Item 5: a journal the daemon did not write itself is refused: not
    replayed, not echoed, moved aside."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def rejected_path(self):
        return self.journal_path() + '.rejected'

    def assert_refused(self, reason, started=False):
        """Starts the daemon on the prepared journal (unless started) and
        checks it was refused for reason (a stable substring of the log
        line)."""
        if not started:
            self.start_daemon()
        self.assert_daemon_alive()
        out = self.daemon.output()
        self.assertEqual(self.read(VICTIM_KNOB), '0', 'the refused journal was replayed')
        self.assert_tree_unchanged(msg='by a refused journal')
        self.assertEqual(list(self.manager_prop('Changed')), [], 'a refused journal shows in Changed')
        refusal = [line for line in out.splitlines() if 'restore.journal' in line and reason in line]
        self.assertTrue(refusal, f'no log line names restore.journal and "{reason}":\n{out}')
        self.assertTrue(os.path.lexists(self.rejected_path()), 'the refused journal was not moved aside')
        self.assertFalse(os.path.lexists(self.journal_path()) and
                         not stat.S_ISREG(os.lstat(self.journal_path()).st_mode),
                         'the refused journal is still in place')
        # The daemon works with an empty journal, and the next start does
        # not meet the refused file again.
        self.call('SetResumeLatency', U(1), U(7))
        self.assertEqual(self.journal_entries(), {T.latency_file(1): '0'})
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_tree_unchanged(msg='after SIGTERM')
        return out

    def test_symlink_to_a_secret_is_refused_and_never_echoed(self):
        secret_file = os.path.join(self.tmp, 'secret.txt')
        secret_text = f'{SECRET}\n{VICTIM_LINE}\n'
        with open(secret_file, 'w', encoding='utf-8') as f:
            f.write(secret_text)
        os.symlink(secret_file, self.journal_path())
        out = self.assert_refused('symbolic link')
        self.assertNotIn(SECRET, out, 'the content of the symlink\'s target reached the log')
        with open(secret_file, encoding='utf-8') as f:
            self.assertEqual(f.read(), secret_text, 'the symlink\'s target was changed')

    def test_symlink_to_dev_zero_is_refused(self):
        os.symlink('/dev/zero', self.journal_path())
        self.assert_refused('symbolic link')

    def test_not_owned_by_the_daemon_user_is_refused(self):
        self.write_journal([VICTIM_LINE])
        os.chown(self.journal_path(), T.NOBODY, T.NOBODY)
        self.assert_refused('not owned by')

    def test_fifo_is_refused_without_hanging(self):
        # Today the daemon opens it for reading and waits for a writer forever.
        os.mkfifo(self.journal_path(), 0o600)
        self.spawn_daemon()
        self.wait_on_bus(5)
        self.assert_refused('not a regular file', started=True)


class CorruptLine(R.RobustTestCase):
    """Item 5: a garbage line is reported by its number and the reason,
    never by its content; the valid lines around it are still replayed."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def test_garbage_line_logged_by_number_not_content(self):
        self.write_journal([T.latency_file(1) + ' 0',
                            f'{GARBAGE} \x1b[31mred\x07 \x01',
                            VICTIM_LINE])
        T.write(self.tree, T.latency_file(1), '55')
        self.start_daemon()
        out = self.daemon.output()
        # Line 3 of the file (the header is line 1).
        self.assertIn('restore.journal:3:', out, 'the corrupt line is not reported by its number')
        self.assertNotIn(GARBAGE, out, 'the corrupt line\'s content reached the log')
        self.assertEqual(R.control_chars(out), [], 'control characters reached the log')
        # The valid lines were replayed.
        self.assertEqual(self.read(T.latency_file(1)), '0')
        self.assertEqual(self.read(VICTIM_KNOB), '1')
        self.assertEqual(self.stop_daemon(), 0)


class JournalGovernor(R.RobustTestCase):
    """Item 8: a journal's governor the kernel does not offer is never
    written to current_governor."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll',
                 '--governors', 'ladder menu haltpoll']
    START_DAEMON = False

    def check_not_written(self, governor):
        self.write_journal([T.GOVERNOR_FILE + ' ' + governor])
        self.start_daemon()
        self.assertEqual(self.read(T.GOVERNOR_FILE), 'haltpoll',
                         f'the journal\'s governor {governor!r} was written')
        self.assertEqual(str(self.manager_prop('Governor')), 'haltpoll')
        out = self.daemon.output()
        self.assertTrue([line for line in out.splitlines() if 'current_governor' in line],
                        f'the refused governor is not reported with the knob\'s path:\n{out}')
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_tree_unchanged()

    def test_path_as_governor(self):
        self.check_not_written('../../../etc/passwd')

    def test_governor_not_offered(self):
        self.check_not_written('teo')


class SymlinkKnob(R.RobustTestCase):
    """Item 8: a pm_qos_resume_latency_us that is a symbolic link to another
    file in the tree is not written through."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    def setUp(self):
        super().setUp()
        self.target = os.path.join(self.tree, 'victim')
        with open(self.target, 'w', encoding='utf-8') as f:
            f.write('0\n')
        knob = os.path.join(self.tree, T.latency_file(1))
        os.unlink(knob)
        os.symlink(os.path.relpath(self.target, os.path.dirname(knob)), knob)
        self.before = T.snapshot_tree(self.tree)

    def assert_target_unchanged(self):
        with open(self.target, encoding='utf-8') as f:
            self.assertEqual(f.read(), '0\n', 'written through the symbolic link')

    def test_set_resume_latency_through_symlink_fails(self):
        self.assert_dbus_error('WriteFailed', 'SetResumeLatency', U(1), U(50))
        self.assert_target_unchanged()
        self.assert_tree_unchanged(self.before)
        self.assertEqual(list(self.manager_prop('Changed')), [])
        self.assert_daemon_alive()

    def test_all_cpus_rolled_back(self):
        self.assert_dbus_error('WriteFailed', 'SetResumeLatency', U(T.ALL_CPUS), U(50))
        self.assert_target_unchanged()
        self.assert_tree_unchanged(self.before)
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_target_unchanged()
        self.assert_tree_unchanged(self.before)


if __name__ == '__main__':
    T.main()
