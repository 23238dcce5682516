#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every file the daemon reads, made hostile -- a FIFO, a symlink to
/dev/zero, a huge (sparse) file, truncated JSON, a directory -- gives a
named error at once and never a hang: the configuration is refused (at
start; on SIGHUP the previous one is kept), state.json and calibration.json
are reported and the defaults used.  A knob replaced by a symlink or a FIFO
is not written through.  SIGTERM is honoured at every point of start-up."""

import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

# How long a start that meets a bad file may take, and a hang is declared
# after: a start takes well under a second here.
START_LIMIT = 5.0
HANG = 10.0

CONFIG_MAX = 64 * 1024
STATE_MAX = 64 * 1024
CALIBRATION_MAX = 64 * 1024 * 1024

TREE = ['--cpus', '2', '--states', '2', '--driver', 'haltpoll', '--governor', 'haltpoll']


def make_bad(path, kind):
    """Puts a hostile file of kind at path."""
    if kind == 'fifo':
        os.mkfifo(path)
    elif kind == 'zero':
        os.symlink('/dev/zero', path)
    elif kind == 'huge':
        with open(path, 'wb') as f:
            f.truncate(1 << 30)     # sparse: 1 GiB of NUL bytes by its size
    elif kind == 'truncated':
        with open(path, 'w', encoding='utf-8') as f:
            f.write('{"profile": "bal')
    elif kind == 'directory':
        os.mkdir(path)
    else:
        raise ValueError(kind)


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        os.rmdir(path)
    elif os.path.lexists(path):
        os.unlink(path)


class Config(T.IdlePolicyTestCase):
    TREE_ARGS = TREE
    START_DAEMON = False

    # kind -> what the log must say after the configuration file's path
    REASONS = {
        'fifo': ': not a regular file',
        'zero': ': not a regular file',         # a symlink is followed, to a device
        'huge': f': larger than the limit of {CONFIG_MAX} bytes',
        'truncated': ':1:16: parse error',
        'directory': ': not a regular file',
    }

    def setUp(self):
        super().setUp()
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')

    def argv(self):
        return [self.daemon_exe, '--root', self.tree, '--runtime-dir', self.runtime_dir,
                '--config', self.config] + self.policy_args()

    def test_bad_config_refused_at_start(self):
        for kind, reason in self.REASONS.items():
            with self.subTest(kind=kind):
                remove(self.config)
                make_bad(self.config, kind)
                start = time.monotonic()
                try:
                    r = subprocess.run(self.argv(), capture_output=True, text=True, env=self.env(),
                                       timeout=HANG, check=False)
                except subprocess.TimeoutExpired:
                    self.fail(f'idlepolicyd hung on a {kind} configuration')
                elapsed = time.monotonic() - start
                out = r.stdout + r.stderr
                self.assertNotEqual(r.returncode, 0, out)
                self.assertIn(self.config + reason, out)
                self.assertLess(elapsed, START_LIMIT, out)
                self.assertFalse(self.bus.name_has_owner(T.BUS_NAME))
                self.assert_tree_unchanged()

    def test_symlinked_config_is_followed(self):
        target = os.path.join(self.tmp, 'real.conf')
        with open(target, 'w', encoding='utf-8') as f:
            f.write('{"tick_usec": 200000}')
        os.symlink(target, self.config)
        self.start_daemon(argv=self.argv())
        self.assertEqual(int(self.manager_prop('TickUSec')), 200000)

    def test_sighup_with_bad_config_keeps_the_previous(self):
        with open(self.config, 'w', encoding='utf-8') as f:
            f.write('{"tick_usec": 200000}')
        self.start_daemon(argv=self.argv())
        for kind, reason in self.REASONS.items():
            with self.subTest(kind=kind):
                remove(self.config)
                make_bad(self.config, kind)
                seen = self.daemon.output().count('Keeping the previous configuration')
                self.daemon.signal(signal.SIGHUP)
                T.wait_for(lambda: self.daemon.output().count('Keeping the previous configuration') > seen,
                           timeout=3, what=f'the {kind} configuration to be refused')
                self.assertIn(self.config + reason, self.daemon.output())
                self.assert_daemon_alive()
                self.assertEqual(int(self.manager_prop('TickUSec')), 200000)
        self.assertEqual(self.stop_daemon(timeout=5), 0)
        self.assert_tree_unchanged()


class StateFiles(T.IdlePolicyTestCase):
    """state.json and calibration.json: the daemon writes them itself
    (atomically), so a symbolic link is refused like any other bad file."""
    TREE_ARGS = TREE
    START_DAEMON = False

    KINDS = ('fifo', 'zero', 'huge', 'truncated', 'directory', 'link')

    def reason(self, name, kind, limit):
        """What the log says about name made kind."""
        return {
            'fifo': f'{name}: not a regular file',
            'zero': f'{name}: a symbolic link',
            'link': f'{name}: a symbolic link',
            'huge': f'{name}: larger than the limit of {limit} bytes',
            'truncated': f'{name}: 1:' if name == 'state.json' else f'{name}:1:',
            'directory': f'{name}: not a regular file',
        }[kind]

    def make_file(self, name, kind, good):
        """Puts a hostile name in the state dir; 'link' links to a good file."""
        os.makedirs(self.state_dir, exist_ok=True)
        path = os.path.join(self.state_dir, name)
        remove(path)
        if kind == 'link':
            target = os.path.join(self.tmp, 'elsewhere-' + name)
            with open(target, 'w', encoding='utf-8') as f:
                f.write(good)
            os.symlink(target, path)
            return target
        make_bad(path, kind)
        return None

    def start_timed(self, **kw):
        start = time.monotonic()
        self.start_daemon(**kw)
        self.assertLess(time.monotonic() - start, START_LIMIT)

    def test_bad_state_means_defaults(self):
        good = '{"profile": "latency", "mode": "observe"}'
        for kind in self.KINDS:
            with self.subTest(kind=kind):
                target = self.make_file('state.json', kind, good)
                self.start_timed(mode=None)
                out = self.daemon.output()
                self.assertIn(self.reason('state.json', kind, STATE_MAX), out)
                self.assertIn('the state file is corrupt, using the defaults', out)
                self.assertEqual(self.manager_prop('ActiveProfile'), 'balanced')
                self.assertEqual(self.manager_prop('Mode'), 'enforce')
                if kind != 'directory':
                    # Replaced by the defaults (the link itself, not its target).
                    self.assertEqual(P.state_json(self), {'profile': 'balanced', 'mode': 'enforce'})
                if target:
                    with open(target, encoding='utf-8') as f:
                        self.assertEqual(f.read(), good)
                self.assertEqual(self.stop_daemon(), 0)

    def test_bad_calibration_is_ignored(self):
        for kind in self.KINDS:
            with self.subTest(kind=kind):
                self.make_file('calibration.json', kind, '{}')
                self.start_timed()
                out = self.daemon.output()
                self.assertIn(self.reason('calibration.json', kind, CALIBRATION_MAX), out)
                self.assertIn('the calibration is corrupt, ignoring it', out)
                self.assertEqual(self.manager_prop('CalibrationUSec'), 0)
                self.assertEqual(self.stop_daemon(), 0)
                self.assert_tree_unchanged()


class Knobs(T.IdlePolicyTestCase):
    """A knob replaced by a symbolic link (to another file inside the
    root) or by a FIFO is never written through, and nothing hangs."""
    TREE_ARGS = TREE

    def setUp(self):
        super().setUp()
        self.knob = os.path.join(self.tree, T.latency_file(1))
        self.victim = os.path.join(self.tree, 'victim')
        with open(self.victim, 'w', encoding='utf-8') as f:
            f.write('5\n')

    def assert_refused(self):
        self.assert_dbus_error('WriteFailed', 'SetResumeLatency', T.dbus.UInt32(1), T.dbus.UInt32(40))
        with open(self.victim, encoding='utf-8') as f:
            self.assertEqual(f.read(), '5\n')
        self.assertEqual(list(self.manager_prop('Changed')), [])
        self.assert_daemon_alive()

    def test_symlinked_knob_is_not_written_through(self):
        os.unlink(self.knob)
        os.symlink(self.victim, self.knob)
        self.assert_refused()

    def test_fifo_knob_does_not_hang(self):
        os.unlink(self.knob)
        os.mkfifo(self.knob)
        self.assert_refused()


def _pending_sigterm():
    """preexec_fn: the child execs with SIGTERM blocked and pending, as if
    it came before the daemon's first instruction (the mask and pending
    signals survive execve)."""
    T._die_with_parent()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    os.kill(os.getpid(), signal.SIGTERM)


class StartupSigterm(T.IdlePolicyTestCase):
    TREE_ARGS = TREE
    START_DAEMON = False

    def write_journal(self, n_offline):
        """A left-over restore journal: one real knob (changed in the tree)
        and n_offline lines of CPUs that are not there (each a lookup and a
        notice at replay: a slow start-up).  Returns the real knob."""
        knob = T.latency_file(1)
        root = os.path.realpath(self.tree)
        lines = [f'# idlepolicyd restore journal v1 root={root}', f'{knob} {self.original_knobs[knob]}']
        lines += [f'{T.CPU_DIR}/cpu{5000 + i}/cpuidle/state0/disable 0' for i in range(n_offline)]
        with open(os.path.join(self.runtime_dir, T.JOURNAL_FILE), 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines) + '\n')
        T.write(self.tree, knob, '33')
        return knob

    def assert_stopped_during_start(self, proc_output, rc):
        self.assertEqual(rc, 0, proc_output)
        self.assertIn('Received SIGTERM during start-up, stopping.', proc_output)
        self.assertNotIn('running on', proc_output)
        self.assertFalse(self.bus.name_has_owner(T.BUS_NAME))

    def test_sigterm_before_start(self):
        knob = self.write_journal(0)
        journal = self.journal_entries()
        log = os.path.join(self.tmp, 'idlepolicyd.log')
        with open(log, 'wb') as f:
            proc = subprocess.Popen(self.daemon_argv(), stdin=subprocess.DEVNULL, stdout=f,
                                    stderr=subprocess.STDOUT, env=self.env(), start_new_session=True,
                                    preexec_fn=_pending_sigterm)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        try:
            rc = proc.wait(timeout=HANG)
        except subprocess.TimeoutExpired:
            self.fail('a SIGTERM pending at start was not honoured')
        with open(log, encoding='utf-8', errors='replace') as f:
            out = f.read()
        self.assert_stopped_during_start(out, rc)
        # Stopped before anything: the journal waits for the next start.
        self.assertEqual(self.journal_entries(), journal)
        self.assertEqual(self.read(knob), '33')

    def test_sigterm_during_journal_replay(self):
        knob = self.write_journal(30000)
        # A state knob of an online CPU whose directory is missing is waited
        # for (a governor switch may be recreating it): the replay lasts 2 s,
        # so the SIGTERM lands in it whatever the machine's speed.
        with open(os.path.join(self.runtime_dir, T.JOURNAL_FILE), 'a', encoding='utf-8') as f:
            f.write(f'{T.CPU_DIR}/cpu0/cpuidle/state9/disable 0\n')
        proc = T.Process(self.daemon_argv(), os.path.join(self.tmp, 'idlepolicyd.log'), self.env())
        self.addCleanup(proc.stop)
        T.wait_for(lambda: 'Found restore journal' in proc.output() or not proc.alive(), timeout=HANG,
                   interval=0.01, what='the journal replay to begin')
        proc.signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=HANG)
        except subprocess.TimeoutExpired:
            self.fail('SIGTERM during the journal replay was not honoured')
        self.assert_stopped_during_start(proc.output(), rc)
        # Nothing lost: the real knob is back, or still in the journal.
        journal = self.journal_entries() or {}
        self.assertTrue(self.read(knob) == self.original_knobs[knob] or
                        journal.get(knob) == self.original_knobs[knob])


if __name__ == '__main__':
    T.main()
