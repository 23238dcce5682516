#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Symbolic links inside the cgroup mount (issue 23, item 8): a fake cgroup
v2 mount (--cgroup-root) with links planted in it to a directory outside
that looks like a cgroup (cgrouptree.py), and every way a cgroup path
reaches the daemon:

  Pin() over the bus        a link as the cgroup, as a directory on the way
                            (relative, absolute, one level down), as its
                            cpuset.cpus, cgroup.events or cgroup.procs; a
                            FIFO or a directory where cpuset.cpus should be
  pins.json at a start      a cgroup pinned, the daemon SIGKILLed, its
  and the restore journal   directory swapped for a link: the next start
                            replays the journal line and takes the pin again
  a hand-written journal    lines through links, valid otherwise
  consolidation             a background entry through a link
  a race                    race/ swapped with a link to the victim
                            (renameat2 RENAME_EXCHANGE, as fast as it
                            goes) while a client pins and unpins
                            cgroup:race/child, and the daemon is SIGKILLed
                            and started again (pins.json, the journal)

The same tests run again with the daemon under no-openat2 (NO_OPENAT2 from
meson): openat2 answers ENOSYS there, as on a kernel before 5.6, and
fileio_open_beneath() walks the path one component at a time instead.

Expected: InvalidTarget for a path through a link, NotPinnable for a
cgroup whose own files are links, FIFOs or directories; nothing changed in
the mount either; the daemon alive (a FIFO never blocks it); a journal
line through a link not acted on and dropped (logged); and 0 writes under
the victim directory (inotify counts every write, creation, removal and
attribute change there) in every case."""

import collections
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cgrouptree as G  # noqa: E402
import robustnesstest as R  # noqa: E402
import consoltest as C  # noqa: E402  (../integration, put on the path by robustnesstest)

T = R.T

RACE_SECONDS = 3            # the bounded race here; bench/cgroup-symlinks runs it long
RACE_RESTARTS = 2


def race_run(case, seconds, restarts):
    """The race on case's tree (case: a CgroupSymlinks, daemon running):
    for seconds, a thread exchanges race/ and race-link while the client
    pins cgroup:race/child to CPU 1 and unpins it; then restarts times, a
    pin, SIGKILL and a start during the swapping (the replay and pins.json
    meet the link half of the time).  Returns the counts: exchanges, pins
    accepted, refusals by error name (and the first message of each), restarts, writes outside (inotify
    events) and files opened for writing outside."""
    root = case.cgroup_root
    G.make_race(root)
    stop = threading.Event()
    swaps = [0]

    def swapper():
        while not stop.is_set():
            G.exchange(root)
            swaps[0] += 1
    before, before_opens = case.watch.writes(), case.watch.write_opens()
    errors, messages = collections.Counter(), {}
    accepted = calls = 0
    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            calls += 1
            try:
                path = case.call('Pin', 'cgroup:race/child', '1', 'latency')
                accepted += 1
                case.call('Unpin', path)
            except T.dbus.exceptions.DBusException as e:
                errors[e.get_dbus_name().rsplit('.', 1)[-1]] += 1
                messages.setdefault(e.get_dbus_name().rsplit('.', 1)[-1], e.get_dbus_message())
        for _ in range(restarts):
            for p in case.manager_prop('Pins'):
                case.call('Unpin', p)
            try:
                case.call('Pin', 'cgroup:race/child', '1', 'latency')
            except T.dbus.exceptions.DBusException as e:
                errors[e.get_dbus_name().rsplit('.', 1)[-1]] += 1
            case.stop_daemon(signal.SIGKILL)
            case.start_daemon(argv=case.argv())
            T.wait_for(lambda: 'running on' in case.daemon.output(), what='the restarted daemon running')
    finally:
        stop.set()
        thread.join()
        G.race_settle(root)
    return {'seconds': seconds, 'exchanges': swaps[0], 'calls': calls, 'accepted': accepted,
            'errors': dict(errors), 'messages': messages, 'restarts': restarts, 'writes_outside': case.watch.writes() - before,
            'write_opens_outside': case.watch.write_opens() - before_opens}


class CgroupSymlinks(C.ConsolidationMixin, R.RobustTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        self.cgroup_root, self.outside = G.make(self.tmp)
        self.watch = G.WriteWatch([self.outside, os.path.join(self.outside, 'child')])
        self.addCleanup(self.watch.close)

    def argv(self, extra=(), mode='observe'):
        return self.daemon_argv(['--cgroup-root', self.cgroup_root] + list(extra), mode=mode)

    def assert_no_write_outside(self):
        events = self.watch.drain()
        self.assertEqual(len(events), 0, f'{len(events)} write(s) outside the cgroup mount: {events[:10]}')
        for d in (self.outside, os.path.join(self.outside, 'child')):
            self.assertEqual(G.read_cpus(d), G.VICTIM_CPUS)

    def mount_cpus(self, rel):
        """The cpuset.cpus of the cgroup rel, or None when the path does
        not lead to a regular file inside the mount."""
        path = os.path.join(self.cgroup_root, rel, 'cpuset.cpus')
        root = os.path.realpath(self.cgroup_root) + '/'
        if not os.path.realpath(path).startswith(root) or os.path.islink(path) or not os.path.isfile(path):
            return None
        return G.read_cpus(os.path.dirname(path))

    def test_pin_through_links_refused(self):
        self.start_daemon(argv=self.argv())
        for target, error in G.REFUSED_TARGETS.items():
            with self.subTest(target=target):
                before = self.watch.writes()
                try:
                    msg = self.assert_dbus_error(error, 'Pin', target, '1', 'latency')
                finally:
                    for p in self.manager_prop('Pins'):
                        self.call('Unpin', p)       # one accepted by mistake ends before the next
                    self.assertEqual(self.watch.writes() - before, 0, f'Pin({target}) wrote outside the mount')
                if error == 'InvalidTarget':
                    self.assertIn('symbolic link', msg)
                rel = target[len('cgroup:'):]
                self.assertIn(rel.split('/')[0], msg)
                self.assertIn(self.mount_cpus(rel), (None, ''))
        # a pin of a real cgroup still works, and a client names the error too
        path = str(self.call('Pin', 'cgroup:real', '1', 'latency'))
        self.assertEqual(G.read_cpus(os.path.join(self.cgroup_root, 'real')), '1')
        self.call('Unpin', T.dbus.ObjectPath(path))
        r = self.ctl('pin', 'cgroup:par/child', '--cpus', '1', '--profile', 'latency', check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('symbolic link', r.stderr)
        self.assert_daemon_alive()
        self.assert_no_write_outside()

    def test_swapped_for_a_link_before_a_restart(self):
        """pins.json and the restore journal of a killed run name
        swap/child; at the next start swap is a link to the victim."""
        self.start_daemon(argv=self.argv())
        self.call('Pin', 'cgroup:swap/child', '1', 'latency')
        self.assertEqual(G.read_cpus(os.path.join(self.cgroup_root, 'swap', 'child')), '1')
        key = 'cgroup:' + os.path.realpath(self.cgroup_root) + '/swap/child/cpuset.cpus'
        self.assertEqual(self.journal_entries().get(key), '')
        self.stop_daemon(signal.SIGKILL)
        G.swap_for_link(self.cgroup_root, 'swap')
        self.start_daemon(argv=self.argv())
        T.wait_for(lambda: 'Re-established' in self.daemon.output(), what='the pins of pins.json taken up')
        self.assert_no_write_outside()
        self.assertEqual([str(p) for p in self.manager_prop('Pins')], [])
        self.assertEqual(self.stop_daemon(), 0)
        self.assertNotIn(key, self.journal_entries() or {})
        log = self.all_daemon_output()
        self.assertIn('symbolic link', log)
        self.assert_no_write_outside()

    def test_hand_written_journal_through_links(self):
        root = os.path.realpath(self.cgroup_root)
        keys = [f'cgroup:{root}/{rel}/cpuset.cpus' for rel in ('evil', 'evil-abs', 'par/child', 'deep/a/child', 'leaf')]
        self.write_journal([k + ' 1' for k in keys] + [f'cgroup:{root}/real/cpuset.cpus 2'])
        self.start_daemon(argv=self.argv())
        self.assert_no_write_outside()
        self.assertEqual(G.read_cpus(os.path.join(self.cgroup_root, 'real')), '2')   # a real one still is
        self.assertEqual(self.stop_daemon(), 0)
        self.assertFalse(os.path.exists(self.journal_path()), 'the journal outlived a clean exit')
        log = self.all_daemon_output()
        for k in keys:
            self.assertIn(k, log)
        self.assert_no_write_outside()

    def test_consolidation_background_through_a_link(self):
        self.write_config(['cgroup:/evil', 'cgroup:/par/child', 'cgroup:/real'])
        self.start_daemon(argv=self.argv(['--config', self.config], mode='enforce'))
        with self.busy(1):
            self.set_level(1)
            t = T.wait_for(lambda: (lambda x: x if x.get('cgroup:/real', '').startswith('confined') else None)(
                self.status()['targets']), what='consolidation confining cgroup:/real')
            self.assert_no_write_outside()
        for name in ('cgroup:/evil', 'cgroup:/par/child'):
            self.assertIn('symbolic link', t[name])
        self.assertEqual(self.stop_daemon(), 0)
        self.assertEqual(G.read_cpus(os.path.join(self.cgroup_root, 'real')), '')
        self.assert_no_write_outside()

    def test_race_swapping_a_directory_for_a_link(self):
        self.start_daemon(argv=self.argv())
        c = race_run(self, RACE_SECONDS, RACE_RESTARTS)
        sys.stderr.write(f'race: {c}\n')
        self.assertGreater(c['exchanges'], 100)
        self.assertEqual(c['writes_outside'], 0, f'writes outside the cgroup mount during the race: {c}')
        self.assert_daemon_alive()
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_no_write_outside()


class CgroupSymlinksWithoutOpenat2(CgroupSymlinks):
    """The daemon under no-openat2 ENOSYS: the fallback walk."""

    def setUp(self):
        self.no_openat2 = os.environ.get('NO_OPENAT2')
        if not self.no_openat2:
            self.skipTest('NO_OPENAT2 (tests/robustness/no-openat2, built by meson) is not set')
        super().setUp()

    def argv(self, extra=(), mode='observe'):
        return [self.no_openat2, 'ENOSYS'] + super().argv(extra, mode)

    def test_the_daemon_has_no_openat2(self):
        self.start_daemon(argv=self.argv())
        with open(f'/proc/{self.daemon.proc.pid}/status', encoding='ascii') as f:
            status = dict(line.split(':', 1) for line in f if ':' in line)
        self.assertEqual(status['Seccomp'].strip(), '2')        # a filter is in force


if __name__ == '__main__':
    T.main()
