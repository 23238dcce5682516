#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Planted files in the metrics textfile's directory (issue 23, items 3 and
4): a FIFO, a symbolic link or a hard link at the temporary file's name or
at the textfile's own, planted before the start or between two writes; a
directory writable by others; a directory swapped for a symbolic link
before a SIGHUP that moves the textfile.

The attacker is uid 65534 owning the textfile's directory (node_exporter's
user may own it: the daemon writes there all the same) or, for the swap,
able to write to its parent.  Expected: the daemon stays on the bus and
answers (a property read within 5 s) and a SIGTERM ends it within 5 s;
nothing outside its own files is written or removed (a
victim file's content, inode and existence, the planted entries
themselves); a directory writable by others is refused with a named error
in the log and in MetricsTextfileError (idlepolicyctl status), and the
daemon keeps running.

The family test plants every kind at both names and counts hangs and
writes outside the daemon's own files; bench/hostile-files --metrics is its
long form."""

import json
import os
import signal
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import robustnesstest as R  # noqa: E402

T = R.T

HINT = ' (blocked in a textfile write?)'
WRITES = 3              # textfile writes watched after each attack
VICTIM_TEXT = 'VICTIM-CONTENT-9876\n'
KINDS = ('fifo', 'symlink', 'hardlink', 'dangling', 'directory', 'zero')


def entry_id(path):
    """What identifies an entry without following it: (type, inode,
    content of a regular file or a link's target); None if there is none."""
    if not os.path.lexists(path):
        return None
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return ('link', st.st_ino, os.readlink(path))
    if stat.S_ISREG(st.st_mode):
        with open(path, 'rb') as f:
            return ('file', st.st_ino, f.read())
    return (stat.S_IFMT(st.st_mode), st.st_ino, None)


class MetricsDirTestCase(R.RobustTestCase):
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        self.prom_dir = os.path.join(self.tmp, 'node-exporter')
        self.make_dir(self.prom_dir, 0o755, T.NOBODY)
        self.prom = os.path.join(self.prom_dir, 'idlepolicy.prom')
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')
        self.configure(self.prom)

    @staticmethod
    def make_dir(path, mode, owner=0):
        os.mkdir(path)
        os.chmod(path, mode)
        os.chown(path, owner, owner)

    def configure(self, textfile):
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({'metrics_textfile': textfile, 'metrics_every_ticks': 1}, f)

    def victim(self, name='victim.txt'):
        """A file of uid 65534 outside the textfile's directory.  Returns
        its path."""
        path = os.path.join(self.tmp, name)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(VICTIM_TEXT)
        os.chown(path, T.NOBODY, T.NOBODY)
        return path

    def plant(self, path, kind, victim):
        """Plants kind at path as uid 65534 would."""
        if kind == 'fifo':
            os.mkfifo(path, 0o666)
        elif kind == 'symlink':
            os.symlink(victim, path)
        elif kind == 'hardlink':
            os.link(victim, path)
        elif kind == 'dangling':
            os.symlink(os.path.join(self.tmp, 'nowhere', 'x'), path)
        elif kind == 'directory':
            os.mkdir(path)
        elif kind == 'zero':
            os.symlink('/dev/zero', path)
        if kind != 'hardlink':
            os.lchown(path, T.NOBODY, T.NOBODY)

    def start(self):
        self.spawn_daemon(extra=['--config', self.config])
        self.wait_on_bus(10)

    def answers(self, hint=HINT):
        super().answers(hint)

    def writes(self):
        """The textfile's tick count (the writes it saw), or -1."""
        try:
            if not stat.S_ISREG(os.lstat(self.prom).st_mode):
                return -1               # never opened: it may be a planted FIFO
            with open(self.prom, encoding='utf-8') as f:
                text = f.read()
        except FileNotFoundError:
            return -1
        for line in text.splitlines():
            if line.startswith('idlepolicy_tick_duration_seconds_count '):
                return int(line.split()[1])
        return -1

    def wait_writes(self, n=WRITES):
        """Waits until the textfile was written n more times (answering all
        along)."""
        start = self.writes()
        T.wait_for(lambda: self.writes() >= start + n, timeout=10,
                   what=f'{n} more textfile writes (now {self.writes()}, log: {self.daemon.output()[-600:]!r})')
        self.answers()

    def assert_stops(self, hint=HINT):
        super().assert_stops(hint)

    def assert_victim(self, path, msg=''):
        self.assertTrue(os.path.lexists(path), f'{path} was removed {msg}')
        with open(path, encoding='utf-8') as f:
            self.assertEqual(f.read(), VICTIM_TEXT, f'{path} was written {msg}')


class FifoAtTheTemporaryName(MetricsDirTestCase):
    """Item 3: today the temporary file is opened O_WRONLY|O_CREAT without
    O_NONBLOCK or O_EXCL, and a FIFO there blocks the daemon for good."""

    def test_planted_before_the_start(self):
        self.plant(self.prom + '.tmp', 'fifo', None)
        self.start()
        self.answers()
        T.wait_for(lambda: self.writes() >= 0, what='the textfile')
        self.wait_writes()
        self.assertEqual(entry_id(self.prom + '.tmp')[0], stat.S_IFIFO, 'the planted FIFO was touched')
        self.assert_stops()

    def test_planted_between_two_writes(self):
        self.start()
        T.wait_for(lambda: self.writes() >= 0, what='the textfile')
        self.plant(self.prom + '.tmp', 'fifo', None)
        self.wait_writes()
        self.assert_stops()


class LinkAtTheTemporaryName(MetricsDirTestCase):
    """Item 4: a hard link at the temporary name is written through today
    (O_TRUNC), a symbolic link stops every write (O_NOFOLLOW fails)."""

    def test_hard_link_is_not_written_through(self):
        victim = self.victim()
        self.plant(self.prom + '.tmp', 'hardlink', victim)
        self.start()
        T.wait_for(lambda: self.writes() >= 0, what='the textfile')
        self.wait_writes()
        self.assert_victim(victim)
        self.assert_stops()
        self.assert_victim(victim, 'at the stop')

    def test_symbolic_link_neither_followed_nor_blocking(self):
        victim = self.victim()
        self.plant(self.prom + '.tmp', 'symlink', victim)
        self.start()
        T.wait_for(lambda: self.writes() >= 0, what='the textfile despite the planted symlink')
        self.wait_writes()
        self.assert_victim(victim)
        self.assertEqual(entry_id(self.prom + '.tmp'), ('link', os.lstat(self.prom + '.tmp').st_ino, victim))
        self.assert_stops()


class DirectoryWritableByOthers(MetricsDirTestCase):
    """Item 4: a directory anyone may write to is refused, by name, in the
    log and in MetricsTextfileError; the daemon keeps running and writes
    once the directory is fixed."""

    def test_refused_then_taken_once_fixed(self):
        os.chmod(self.prom_dir, 0o1777)
        self.start()
        T.wait_for(lambda: 'writable by others' in self.daemon.output(),
                   what='the refusal in the log')
        self.answers()
        self.assertFalse(os.path.lexists(self.prom), 'written into a directory writable by others')
        self.assertIn('writable by others', str(self.manager_prop('MetricsTextfileError')))
        status = self.ctl('status').stdout
        self.assertIn('writable by others', status)
        self.assertIn(self.prom_dir, status)
        log = self.daemon.output()
        self.assertEqual(log.count('writable by others'), 1, 'the refusal is logged once, not per write')
        os.chmod(self.prom_dir, 0o755)
        T.wait_for(lambda: self.writes() >= 0, what='the textfile once the directory is fixed')
        self.assertEqual(str(self.manager_prop('MetricsTextfileError')), '')
        self.assert_stops()


class SwappedDirectory(MetricsDirTestCase):
    """Item 4: the textfile's directory lies in one others may write to;
    one of them swaps it for a symbolic link to another directory holding
    a file of the same name, then the administrator moves the textfile
    (SIGHUP).  Today the old file is unlink()ed by path, through the link."""

    def test_sighup_removes_nothing_through_the_link(self):
        public = os.path.join(self.tmp, 'public')
        self.make_dir(public, 0o777)
        metrics = os.path.join(public, 'metrics')
        self.make_dir(metrics, 0o755)
        elsewhere = os.path.join(self.tmp, 'elsewhere')
        self.make_dir(elsewhere, 0o755)
        victim = os.path.join(elsewhere, 'idlepolicy.prom')
        with open(victim, 'w', encoding='utf-8') as f:
            f.write(VICTIM_TEXT)
        self.configure(os.path.join(metrics, 'idlepolicy.prom'))
        self.start()
        self.answers()
        # the swap, between two writes
        os.rename(metrics, metrics + '.old')
        os.symlink(elsewhere, metrics)
        self.configure(self.prom)
        self.daemon.signal(signal.SIGHUP)
        T.wait_for(lambda: self.writes() >= 0, what='the textfile at its new place after SIGHUP')
        self.assert_victim(victim, 'through the swapped directory')
        self.answers()
        self.assert_stops()
        self.assert_victim(victim, 'at the stop')


class PlantedFiles(MetricsDirTestCase):
    """The bounded family: each kind planted at the temporary name and at
    the textfile's own name (two victims), before the start; then each
    kind planted again at the temporary name between two writes.  Counts
    hangs and writes outside the daemon's own files; both must be 0."""

    def settle(self, what):
        """Waits for WRITES more writes.  Returns 1 if the daemon stopped
        answering meanwhile (a hang), else 0."""
        try:
            T.wait_for(lambda: self.writes() >= 0, what=f'the textfile ({what})')
            self.wait_writes()
        except AssertionError as e:
            sys.stderr.write(f'{what}: {e}\n')
            try:
                self.answers()
            except AssertionError:
                return 1
        return 0

    def remove(self, path):
        if os.path.isdir(path) and not os.path.islink(path):
            os.rmdir(path)
        elif os.path.lexists(path):
            os.unlink(path)

    def one_kind(self, kind):
        """Returns (hangs, outside writes) for kind."""
        tmp = self.prom + '.tmp'
        at_tmp, at_prom = self.victim(f'victim-{kind}-tmp'), self.victim(f'victim-{kind}-prom')
        self.plant(tmp, kind, at_tmp)
        if kind != 'directory':             # a directory cannot be replaced: no textfile, no harm
            self.plant(self.prom, kind, at_prom)
        planted = entry_id(tmp)
        self.start()
        hangs = self.settle(f'{kind} planted before the start')
        # Whatever was at the textfile's name was replaced, never written
        # through; the entry at the temporary name was not touched.
        outside = entry_id(tmp) != planted
        if not hangs:
            self.remove(tmp)
            self.plant(tmp, kind, at_tmp)
            planted = entry_id(tmp)
            hangs = self.settle(f'{kind} planted between two writes')
            outside += entry_id(tmp) != planted
        self.daemon.signal(signal.SIGTERM)
        try:
            self.daemon.wait(R.SIGTERM_EXIT_S)
        except T.subprocess.TimeoutExpired:
            hangs += 1
            self.daemon.stop()
        for victim in (at_tmp, at_prom):
            outside += entry_id(victim) is None or entry_id(victim)[2] != VICTIM_TEXT.encode()
        self.remove(tmp)
        self.remove(self.prom)
        return hangs, outside

    def test_every_kind(self):
        results = {kind: self.one_kind(kind) for kind in KINDS}
        sys.stderr.write(f'planted files (hangs, outside writes): {results}\n')
        self.assertEqual({k: v for k, v in results.items() if v != (0, 0)}, {},
                         'hangs or writes outside the daemon\'s own files')


if __name__ == '__main__':
    T.main()
