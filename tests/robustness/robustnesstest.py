# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared helpers of the robustness suite, on top of the integration
fixture (../integration/idlepolicytest.py): the same fake tree, private bus,
mocked polkit and real daemon, plus what attacks need — the daemon's open
fd count, its whole log across restarts, hand-written restore journals, a
log dump that stays short when an attack makes the daemon log a lot.

Run with Debian's /usr/bin/python3; IDLEPOLICYD, IDLEPOLICYCTL and
MAKE_FAKETREE come from the environment (meson sets them); without them,
or without root, a test exits 77 (skip)."""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'integration'))

import idlepolicytest as T  # noqa: E402

U = T.dbus.UInt32

JOURNAL_HEADER = '# idlepolicyd restore journal v1 root='
ANSWER_S = 5                 # a call the daemon must answer within this
SIGTERM_EXIT_S = 5           # and the time it has to go after SIGTERM
LOG_DUMP_LINES = 60          # head and tail of a daemon log dumped on cleanup


def fd_count(pid):
    """Returns the number of open fds of pid (/proc/PID/fd)."""
    return len(os.listdir(f'/proc/{pid}/fd'))


def settled_fd_count(pid, timeout=5.0):
    """Returns the fd count of pid once it stopped moving (the same over
    three samples 0.2 s apart; the daemon opens the system-wide cpuidle
    files at its first ticks), or the last count after timeout s."""
    samples = [fd_count(pid)]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (len(samples) < 3 or len(set(samples[-3:])) > 1):
        time.sleep(0.2)
        samples.append(fd_count(pid))
    return samples[-1]


def exit_is_clean(rc):
    """True for an exit status that is not a crash: a normal exit, or death
    by the SIGTERM/SIGKILL the test itself sent."""
    return rc is not None and (rc >= 0 or rc in (-signal.SIGTERM, -signal.SIGKILL))


def control_chars(text):
    """Returns the control characters (other than newline and tab) in text."""
    return sorted({c for c in text if (ord(c) < 0x20 and c not in '\n\t') or ord(c) == 0x7f})


def exit_status(result):
    """The exit status of a run: 77 (meson's skip) when every test was
    skipped, 0 when all passed, 1 otherwise."""
    if result.testsRun and len(result.skipped) == result.testsRun and result.wasSuccessful():
        return 77
    return 0 if result.wasSuccessful() else 1


class RobustTestCase(T.IdlePolicyTestCase):
    """The integration base class with a bounded log dump and the helpers
    above."""

    def _stop_daemon_and_dump(self, proc):
        proc.stop()
        lines = proc.output().splitlines(keepends=True)
        if not lines:
            return
        if len(lines) > 2 * LOG_DUMP_LINES:
            skipped = len(lines) - 2 * LOG_DUMP_LINES
            lines = lines[:LOG_DUMP_LINES] + [f'[... {skipped} lines ...]\n'] + lines[-LOG_DUMP_LINES:]
        sys.stderr.write(f'---- {proc.argv[0]} log ({proc.log_path}) ----\n{"".join(lines)}'
                         '---- end of log ----\n')

    def all_daemon_output(self):
        """Returns every daemon log of this test (all restarts), in order."""
        out = []
        for i in range(1, self.daemon_runs + 1):
            p = os.path.join(self.tmp, f'idlepolicyd-{i}.log')
            if os.path.exists(p):
                with open(p, 'rb') as f:
                    out.append(f.read().decode('utf-8', 'replace'))
        return ''.join(out)

    def bounded_call(self, method, *args, hint=''):
        """Calls a Manager method as root; fails the test when it is not
        answered within ANSWER_S (hint: what may block the daemon)."""
        try:
            return getattr(self.manager(), method)(*args, timeout=ANSWER_S)
        except T.dbus.exceptions.DBusException as e:
            if e.get_dbus_name() == 'org.freedesktop.DBus.Error.NoReply':
                self.fail(f'{method} not answered within {ANSWER_S} s{hint}')
            raise

    def answers(self, hint=''):
        """Asserts a property read is answered within ANSWER_S."""
        try:
            T.dbus.Interface(self.obj(), T.PROPS_IFACE).Get(T.MANAGER_IFACE, 'Version', timeout=ANSWER_S)
        except T.dbus.exceptions.DBusException as e:
            self.fail(f'idlepolicyd does not answer a property read within {ANSWER_S} s{hint}: '
                      f'{e.get_dbus_name()}')

    def assert_stops(self, hint=''):
        """SIGTERM: the daemon must be gone within SIGTERM_EXIT_S, cleanly."""
        self.daemon.signal(signal.SIGTERM)
        try:
            rc = self.daemon.wait(SIGTERM_EXIT_S)
        except T.subprocess.TimeoutExpired:
            self.fail(f'idlepolicyd still running {SIGTERM_EXIT_S} s after SIGTERM{hint}')
        self.assertTrue(exit_is_clean(rc), f'idlepolicyd crashed: status {rc}')

    def journal_path(self):
        return os.path.join(self.runtime_dir, T.JOURNAL_FILE)

    def journal_header(self):
        return JOURNAL_HEADER + os.path.realpath(self.tree)

    def write_journal(self, lines, path=None, header=True):
        """Writes a restore journal (header plus lines) to path (default:
        the runtime dir's restore.journal)."""
        path = path or self.journal_path()
        with open(path, 'w', encoding='utf-8', newline='') as f:
            if header:
                f.write(self.journal_header() + '\n')
            for line in lines:
                f.write(line + '\n')
        return path

    def spawn_daemon(self, extra=(), mode='observe'):
        """Starts idlepolicyd without waiting for the bus (for attacks on
        its start).  Returns the Process."""
        self.daemon_runs += 1
        log = os.path.join(self.tmp, f'idlepolicyd-{self.daemon_runs}.log')
        self.daemon = T.Process(self.daemon_argv(extra, mode), log, self.env(IDLEPOLICY_MOCK_TREE=self.tree))
        self.addCleanup(self._stop_daemon_and_dump, self.daemon)
        return self.daemon

    def wait_on_bus(self, timeout):
        """Waits up to timeout s for the daemon to own its name (it must not
        exit meanwhile)."""
        T.wait_for(lambda: self.bus.name_has_owner(T.BUS_NAME) or not self.daemon.alive(),
                   timeout=timeout, what=f'idlepolicyd on the bus within {timeout} s')
        self.assertTrue(self.daemon.alive(),
                        f'idlepolicyd exited with {self.daemon.proc.returncode}:\n{self.daemon.output()[-4000:]}')
