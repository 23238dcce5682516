#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The live suite: the real idlepolicyd on this machine's real cpuidle
(root "/"), on a private bus, driven by idlepolicyctl.

Before anything it records every knob (the cpuidle governor, every
cpuN/cpuidle/stateK/disable, every cpuN/power/pm_qos_resume_latency_us, the
haltpoll module parameters) and from then on, on any exit of this process —
normal, exception, SIGTERM/SIGINT/SIGHUP from the test runner — writes back
whatever differs.  The daemon children get SIGTERM if this process dies.
cpuN/online is recorded too and put back first (a CPU brought back
online gets its cpuidle directory again): the one test that takes a CPU
offline (test_live_pins.py) relies on it if it dies half-way.

Exits 77 (skip) when not root, without a writable cpuidle governor, or
without dbus-daemon."""

import atexit
import glob
import json
import os
import signal
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GOVERNOR = '/sys/devices/system/cpu/cpuidle/current_governor'
AVAILABLE = '/sys/devices/system/cpu/cpuidle/available_governors'


def guardian_main():
    """`test_live.py --guardian`: reads the recorded knobs (one JSON line)
    from stdin and waits for EOF.  "done" before EOF: the test put the knobs
    back itself.  Bare EOF: the test died without cleaning up (SIGKILL);
    give the daemon's own SIGTERM restore a moment, then write back
    whatever still differs."""
    recorded = json.loads(sys.stdin.readline())
    if sys.stdin.read().strip() == 'done':
        sys.exit(0)        # the test exited normally and put back the knobs itself
    time.sleep(2)
    for path in restore_order(recorded):
        try:
            with open(path, encoding='ascii') as f:
                have = f.read().strip()
            if recorded[path] is not None and have != recorded[path]:
                with open(path, 'w', encoding='ascii') as f:
                    f.write(recorded[path])
                print(f'live guardian: put back {path}: {have!r} -> {recorded[path]!r}', file=sys.stderr)
        except OSError as e:
            print(f'live guardian: {path}: {e}', file=sys.stderr)
    sys.exit(0)


if sys.argv[1:] == ['--guardian']:
    guardian_main()


def skip(why):
    print(f'live: {why}; skipping', file=sys.stderr)
    sys.exit(77)


if os.geteuid() != 0:
    skip('not root')
if not os.path.exists(GOVERNOR):
    skip(f'no {GOVERNOR}')
if not any(os.access(os.path.join(d, 'dbus-daemon'), os.X_OK) for d in os.environ.get('PATH', '').split(':')
           + ['/usr/bin']):
    skip('no dbus-daemon')
if not os.environ.get('IDLEPOLICYD') or not os.environ.get('IDLEPOLICYCTL'):
    skip('IDLEPOLICYD / IDLEPOLICYCTL not set')

sys.path.insert(0, os.path.join(HERE, '..', 'integration'))
import idlepolicytest as T  # noqa: E402  (exits 77 without python3-dbus)


# ---- the knobs, recorded before anything else ------------------------------

def online_paths():
    return sorted(glob.glob('/sys/devices/system/cpu/cpu[0-9]*/online'))


def restore_order(recorded):
    """The CPUs online first (their cpuidle directories come back with
    them), then the governor (a switch recreates the per-CPU
    directories), then the rest."""
    first = [p for p in recorded if p.endswith('/online')] + [GOVERNOR]
    return first + [p for p in recorded if p not in first]


def knob_paths():
    """Every knob the daemon could write, plus the haltpoll parameters and
    the CPUs' online files."""
    paths = online_paths() + [GOVERNOR]
    paths += sorted(glob.glob('/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/disable'))
    paths += sorted(glob.glob('/sys/devices/system/cpu/cpu[0-9]*/power/pm_qos_resume_latency_us'))
    paths += sorted(glob.glob('/sys/module/haltpoll/parameters/*'))
    return paths


from preflight import read as read_knob  # noqa: E402  (None when unreadable)


def record_knobs():
    return {p: read_knob(p) for p in knob_paths()}


# One user of the real idle knobs at a time (knobslock.py): taken before
# anything is recorded, or held for us by an ancestor (scripts/under-load).
# Then the preflight: a machine not at its defaults before we start is
# named knob by knob (exit 99), not found out by an assertion deep inside.
import knobslock  # noqa: E402
import preflight  # noqa: E402

_knobs_lock = knobslock.take()
if _knobs_lock is None:
    skip(knobslock.HELD_ELSEWHERE)
preflight.check_or_exit()
RECORDED = record_knobs()
ONLINE = read_knob('/sys/devices/system/cpu/online')   # compared after each test
_children = []

# A second line of defence for when this process is SIGKILLed while no
# daemon runs (between a kill -9 and the restart): a guardian in its own
# session that restores the knobs when our end of its stdin closes.
_guardian = T.subprocess.Popen([sys.executable, os.path.abspath(__file__), '--guardian'],
                               stdin=T.subprocess.PIPE, start_new_session=True, text=True)
_guardian.stdin.write(json.dumps(RECORDED) + '\n')
_guardian.stdin.flush()


def put_back(recorded=None):
    """Writes back every knob that differs from the recording (in
    restore_order()).  Returns the list of knobs it had to write."""
    recorded = recorded or RECORDED
    fixed = []
    for path in restore_order(recorded):
        want = recorded[path]
        if want is None:
            continue
        have = read_knob(path)
        if have == want:
            continue
        try:
            with open(path, 'w', encoding='ascii') as f:
                f.write(want)
            fixed.append(f'{path}: {have!r} -> {want!r}')
        except OSError as e:
            print(f'live: could not put back {path} ({have!r} -> {want!r}): {e}', file=sys.stderr)
    return fixed


def emergency_cleanup():
    """Stops our children (SIGKILL: we restore ourselves) and puts back every
    knob.  Runs at exit and from the signal handler."""
    for proc in list(_children):
        if proc.alive():
            try:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.proc.wait(5)
            except (OSError, T.subprocess.TimeoutExpired):
                pass
    fixed = put_back()
    if fixed:
        print('live: put back:\n  ' + '\n  '.join(fixed), file=sys.stderr)
    if _guardian.poll() is None:
        try:
            _guardian.stdin.write('done\n')
            _guardian.stdin.close()
            _guardian.wait(5)
        except (OSError, ValueError, T.subprocess.TimeoutExpired):
            pass


def _on_signal(signum, _frame):
    emergency_cleanup()
    os._exit(128 + signum)


atexit.register(emergency_cleanup)
for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_sig, _on_signal)


def sysfs_knobs():
    """The daemon's knobs only (no haltpoll parameters)."""
    return {p: v for p, v in record_knobs().items() if not p.startswith('/sys/module/')}


def cpus_with_cpuidle():
    return sorted(int(os.path.basename(os.path.dirname(d))[3:])
                  for d in glob.glob('/sys/devices/system/cpu/cpu[0-9]*/cpuidle'))


def state_index(cpu, name):
    for d in sorted(glob.glob(f'/sys/devices/system/cpu/cpu{cpu}/cpuidle/state[0-9]*')):
        if read_knob(os.path.join(d, 'name')) == name:
            return int(os.path.basename(d)[5:])
    return None


# Below this many idle entries a second (the kernel's count, all CPUs), the
# daemon's per-tick rates may miss them all: the machine is kept busy.
RARE_IDLE_PER_S = 10


class Live(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon_exe = T.program('IDLEPOLICYD')
        cls.ctl_exe = T.program('IDLEPOLICYCTL')
        cls.governors = read_knob(AVAILABLE).split()
        cls.cpus = cpus_with_cpuidle()
        if 'menu' not in cls.governors or not cls.cpus:
            skip('no "menu" governor or no CPU with cpuidle')
        # The machine the suite was written for: POLL on the last CPU.
        cls.poll_cpu = cls.cpus[-1] if len(cls.cpus) > 1 else cls.cpus[0]
        cls.poll_index = state_index(cls.poll_cpu, 'POLL')
        if cls.poll_index is None:
            skip(f'no POLL state on cpu{cls.poll_cpu}')

    def setUp(self):
        self.assertEqual(put_back(), [], 'a knob differed from the recording before the test')
        self.tmp = tempfile.mkdtemp(prefix='idlepolicy-live-')
        self.addCleanup(T.shutil.rmtree, self.tmp, True)
        self.addCleanup(self._put_back_and_report)
        self.runtime_dir = os.path.join(self.tmp, 'run')
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')
        with open(self.config, 'w', encoding='utf-8') as f:
            f.write('{"calibrate_on_first_start": false}\n')
        socket = os.path.join(self.tmp, 'bus')
        conf = os.path.join(self.tmp, 'bus.conf')
        with open(conf, 'w', encoding='utf-8') as f:
            f.write(T.BUS_CONFIG.format(socket=socket))
        self.bus_address = f'unix:path={socket}'
        bus = T.Process(['dbus-daemon', '--nofork', '--nopidfile', f'--config-file={conf}'],
                        os.path.join(self.tmp, 'bus.log'), dict(os.environ))
        _children.append(bus)
        self.addCleanup(bus.stop)
        T.wait_for(lambda: os.path.exists(socket), what='the bus socket')
        self.bus = T.wait_for(lambda: T.dbus.bus.BusConnection(self.bus_address), what='the bus')
        self.addCleanup(self.bus.close)
        self.daemon = None
        self.runs = 0

    def _put_back_and_report(self):
        if self.daemon:
            self.daemon.stop()
        self.assertEqual(read_knob('/sys/devices/system/cpu/online'), ONLINE, 'the online CPUs changed')
        fixed = put_back()
        if fixed:
            # Reaching here with differences is itself a failure of the daemon.
            self.fail('knobs were left changed (now put back):\n' + '\n'.join(fixed))

    def env(self):
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus_address, SYSTEMD_COLORS='0',
                   LC_ALL='C.UTF-8')
        env.pop('DBUS_SESSION_BUS_ADDRESS', None)
        return env

    def start_daemon(self):
        self.runs += 1
        # Observe mode, the state in the test's temp dir, no first-start
        # calibration: the daemon changes only what the test asks for.
        self.daemon = T.Process([self.daemon_exe, '--root', '/', '--runtime-dir', self.runtime_dir,
                                 '--tick-usec', '100000', '--mode', 'observe',
                                 '--state-dir', os.path.join(self.tmp, 'state'), '--config', self.config,
                                 '--profile-dir', T.PROFILE_DIR],
                                os.path.join(self.tmp, f'idlepolicyd-{self.runs}.log'), self.env())
        _children.append(self.daemon)
        self.addCleanup(self._dump, self.daemon)
        T.wait_for(lambda: self.bus.name_has_owner(T.BUS_NAME) or not self.daemon.alive(), timeout=15,
                   what='idlepolicyd on the bus')
        self.assertTrue(self.daemon.alive(), 'idlepolicyd exited:\n' + self.daemon.output())

    def _dump(self, proc):
        proc.stop()
        sys.stderr.write(f'---- {proc.log_path} ----\n{proc.output()}---- end ----\n')

    def stop_daemon(self, sig):
        self.daemon.signal(sig)
        rc = self.daemon.wait(15)
        T.wait_for(lambda: not self.bus.name_has_owner(T.BUS_NAME), what='the bus name to go away')
        return rc

    def ctl(self, *args):
        r = T.subprocess.run([self.ctl_exe] + [str(a) for a in args], capture_output=True, text=True,
                             env=self.env(), timeout=60, check=False)
        self.assertEqual(r.returncode, 0, f'idlepolicyctl {args}: {r.stderr}')
        return r.stdout

    def journal(self):
        p = os.path.join(self.runtime_dir, T.JOURNAL_FILE)
        if not os.path.exists(p):
            return None
        with open(p, encoding='utf-8') as f:
            return [line.split(' ', 1)[0] for line in f if line.strip() and not line.startswith('#')]

    def make_changes(self):
        """Governor menu, POLL off on the last CPU, resume latency 20 on
        cpu0, through idlepolicyctl; checks each in sysfs.  Returns the three
        sysfs paths."""
        poll = f'/sys/devices/system/cpu/cpu{self.poll_cpu}/cpuidle/state{self.poll_index}/disable'
        latency = f'/sys/devices/system/cpu/cpu{self.cpus[0]}/power/pm_qos_resume_latency_us'
        self.ctl('governor', 'menu')
        self.assertEqual(read_knob(GOVERNOR), 'menu')
        self.ctl('state', 'disable', 'POLL', '--cpu', self.poll_cpu)
        self.assertEqual(read_knob(poll), '1')
        self.ctl('resume-latency', '20', '--cpu', self.cpus[0])
        self.assertEqual(read_knob(latency), '20')
        changed = {p for p, v in sysfs_knobs().items() if v != RECORDED[p]}
        expected = {p for p in (GOVERNOR, poll, latency) if RECORDED[p] != read_knob(p)}
        self.assertEqual(changed, expected, 'something else changed too')
        return [GOVERNOR, poll, latency]

    def test_changes_and_sigterm_restores(self):
        self.start_daemon()
        paths = self.make_changes()
        status = json.loads(self.ctl('status', '--json'))
        self.assertEqual(status['governor'], 'menu')
        changed = {c['path'] for c in status['changed']}
        self.assertEqual(changed, {p[1:] for p in paths if RECORDED[p] != read_knob(p)})
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0, self.daemon.output())
        self.assertEqual(record_knobs(), RECORDED, 'SIGTERM did not put every knob back')
        self.assertIsNone(self.journal())

    def test_sigkill_then_restart_restores_from_journal(self):
        self.start_daemon()
        paths = self.make_changes()
        self.assertEqual(set(self.journal() or []), {p[1:] for p in paths if RECORDED[p] != read_knob(p)})
        self.assertEqual(self.stop_daemon(signal.SIGKILL), -signal.SIGKILL)
        after_kill = sysfs_knobs()
        self.assertEqual(after_kill[GOVERNOR], 'menu', 'the change did not survive SIGKILL')
        self.assertEqual(after_kill[paths[1]], '1')
        self.assertEqual(after_kill[paths[2]], '20')
        self.start_daemon()
        # Replayed at start, before the daemon took its bus name.
        self.assertEqual(record_knobs(), RECORDED, 'the restart did not restore the journal')
        self.assertIsNone(self.journal())
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(record_knobs(), RECORDED)

    def test_status_shows_real_counters_rising(self):
        self.start_daemon()

        def total_usage(doc):
            return sum(s['counters']['usage'] for c in doc['cpus'] if c['online'] for s in c['states']
                       if s.get('counters'))

        first = json.loads(self.ctl('status', '--json'))
        self.assertEqual(first['governor'], RECORDED[GOVERNOR])
        self.assertEqual(first['driver'], read_knob('/sys/devices/system/cpu/cpuidle/current_driver'))
        self.assertEqual(first['available_governors'], self.governors)
        for c in first['cpus']:
            if c['index'] in self.cpus:
                names = [read_knob(f'/sys/devices/system/cpu/cpu{c["index"]}/cpuidle/state{s["index"]}/name')
                         for s in c['states']]
                self.assertEqual([s['name'] for s in c['states']], names)
        sysfs_usage = sum(int(read_knob(p)) for p in glob.glob(
            '/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/usage'))
        self.assertLessEqual(total_usage(first), sysfs_usage)

        # On an idle machine the counters rise within a tick; on one kept
        # busy by other work, idle entries are rare: give it up to 60 s.
        def entries_per_s(doc):
            return sum(s['rates']['entries_per_s'] or 0 for c in doc['cpus'] if c['online']
                       for s in c['states'] if s.get('rates'))

        seen_rate = 0.0
        t0, deadline = time.monotonic(), time.monotonic() + 60
        while True:
            second = json.loads(self.ctl('status', '--json'))
            seen_rate = max(seen_rate, entries_per_s(second))
            if (total_usage(second) > total_usage(first) and seen_rate > 0) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertGreater(total_usage(second), total_usage(first), 'idle counters did not rise in 60 s')
        if seen_rate == 0:
            # The rates cover one tick (0.1 s) and status is read every
            # few tenths: idle entries rarer than ~10/s can all fall
            # between.  The kernel's own counters say how rare they were.
            kernel = sum(int(read_knob(p)) for p in glob.glob(
                '/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/usage')) - sysfs_usage
            per_s = kernel / (time.monotonic() - t0)
            if per_s < RARE_IDLE_PER_S:
                self.skipTest(f'the CPUs idled {per_s:.1f} times a second in {time.monotonic() - t0:.0f} s (the '
                              f'kernel\'s usage counters, load average {os.getloadavg()[0]:.1f}): too rarely for a '
                              f'per-tick rate to show them')
        self.assertGreater(seen_rate, 0, 'no idle entries per second seen in 60 s')
        sysfs_usage = sum(int(read_knob(p)) for p in glob.glob(
            '/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/usage'))
        self.assertLessEqual(total_usage(second), sysfs_usage, 'the daemon is ahead of the kernel')
        utils = [c['util'] for c in second['cpus'] if c['online']]
        self.assertTrue(all(u is not None and 0 <= u <= 1 for u in utils), utils)
        table = self.ctl('status')
        for name in ('POLL',):
            self.assertIn(name, table)
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(record_knobs(), RECORDED)


def main():
    """unittest.main() for the live files: exits 77 (meson: SKIP) when
    every test was skipped, repeating their reasons last."""
    prog = unittest.main(verbosity=2, exit=False)
    r = prog.result
    if not r.wasSuccessful():
        sys.exit(1)
    if r.testsRun and len(r.skipped) == r.testsRun:
        for test, why in r.skipped:
            print(f'live: {test.id()} skipped: {why}', file=sys.stderr)
        sys.exit(77)
    sys.exit(0)


if __name__ == '__main__':
    main()
