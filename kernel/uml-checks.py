#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""uml-checks: run by uml-init inside the UML kernel that boot-uml boots
(the series with the test cpuidle driver, cpuidle.governor=wteo; see
kernel/README.md).  Everything here is the real thing: the kernel's idle
loop, its sysfs files, a private dbus-daemon and the idlepolicyd and
idlepolicyctl of the build dir.  What is read is printed (the transcript
boot-uml shows).

Kernel: wteo governs cpu0 through the driver's POLL and SLEEP states; the
states' usage counters move under a periodic wakeup program; cpu0's matrix,
started again at the prior by a switch to menu and back, changes under
another one, stays within 0..1024 with every row summing to 1024, and the
row of long timer-ended idle periods learns SLEEP; bad writes to the
parameters and the tolerance are refused with EINVAL and change nothing.

Daemon (the originals: learn_shift 5, age_shift 7, explore_shift 2,
tolerance 300, governor menu, so that every write and every restore shows):
it selects wteo and says "companion mode (wteo)", writes the profile's
parameters and tolerance, a latency pin changes cpu0's tolerance and
resume latency until the pinned process ends; SIGTERM, and SIGKILL then a
restart, put back every value; the governor switched away and back while
it runs loses nothing (the tolerance waits in the restore journal)."""

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

SRC = os.environ.get('IDLEPOLICY_SRC', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
BUILD = os.environ.get('IDLEPOLICY_BUILD', os.path.join(SRC, 'build'))
sys.path.insert(0, os.path.join(SRC, 'tests', 'integration'))

import idlepolicytest as T  # noqa: E402

CPU = '/sys/devices/system/cpu'
GOVERNOR = CPU + '/cpuidle/current_governor'
DRIVER = CPU + '/cpuidle/current_driver'
STATES = CPU + '/cpu0/cpuidle'
TOLERANCE = CPU + '/cpu0/wteo/tolerance'
MATRIX = CPU + '/cpu0/wteo/matrix'
RESUME_LATENCY = CPU + '/cpu0/power/pm_qos_resume_latency_us'
PARAMS = '/sys/module/wteo/parameters'
PARAM_NAMES = ('learn_shift', 'age_shift', 'explore_shift')

WTEO_ONE = 1024                 # a matrix row's sum (wteo-core.h)
PRIOR_SELF = 614                # the prior's diagonal
SLEEP = 1                       # the driver's host sleep state
ORIGINAL_PARAMS = {'learn_shift': '5', 'age_shift': '7', 'explore_shift': '2'}
PROFILE_PARAMS = {'learn_shift': '4', 'age_shift': '6', 'explore_shift': '0'}   # every profile's
ORIGINAL_TOLERANCE = '300'
ORIGINAL_GOVERNOR = 'menu'

RUN = '/run/idlepolicy-uml'     # tmpfs: the bus, the daemon's runtime and state
DAEMON_CONFIG = {'calibrate_on_first_start': False,
                 # the test switches the governor back itself
                 'governor_hold_usec': 600000000}
PR_SET_TIMERSLACK = 29

# A periodic wakeup program: COUNT sleeps of PERIOD_US, the timer slack at
# 1 ns so that the timer is where the period says.
PERIODIC = '''
import ctypes, sys, time
ctypes.CDLL(None).prctl(%d, 1, 0, 0, 0)
period, count = float(sys.argv[1]) / 1e6, int(sys.argv[2])
for _ in range(count):
    time.sleep(period)
''' % PR_SET_TIMERSLACK


def note(text):
    """One line of the transcript."""
    print(text, flush=True)


def read(path):
    with open(path, encoding='ascii') as f:
        return f.read().strip()


def write(path, value):
    """Writes value in one write(2); raises OSError as the kernel answers."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def params():
    return {p: read(f'{PARAMS}/{p}') for p in PARAM_NAMES}


def tolerance():
    return read(TOLERANCE) if os.path.exists(TOLERANCE) else None


def states():
    """[(name, usage)] of cpu0's idle states."""
    out = []
    for k in range(10):
        d = f'{STATES}/state{k}'
        if not os.path.isdir(d):
            break
        out.append((read(d + '/name'), int(read(d + '/usage'))))
    return out


def matrix():
    return [[int(x) for x in line.split()] for line in read(MATRIX).split('\n')]


def periodic(period_us, count):
    """Runs the periodic wakeup program; returns its wall time in s."""
    t = time.monotonic()
    subprocess.run(['/usr/bin/python3', '-c', PERIODIC, str(period_us), str(count)], check=True, timeout=120)
    return time.monotonic() - t


def switch_governor(name):
    write(GOVERNOR, name)
    T.wait_for(lambda: read(GOVERNOR) == name, what=f'the governor {name}')


class Kernel(unittest.TestCase):
    """The kernel alone: the governor in the idle loop, its files.  Run
    first, on the kernel as it booted; each test leaves wteo governing."""

    def test_1_governor_and_driver(self):
        note(f'current_governor: {read(GOVERNOR)}, current_driver: {read(DRIVER)}')
        note(f'available_governors: {read(CPU + "/cpuidle/available_governors")}')
        self.assertEqual(read(GOVERNOR), 'wteo')
        self.assertEqual(read(DRIVER), 'um_idle')
        names = [n for n, _ in states()]
        for k, n in enumerate(names):
            d = f'{STATES}/state{k}'
            note(f'state{k}: {n}, latency {read(d + "/latency")} us, residency {read(d + "/residency")} us')
        self.assertEqual(names, ['POLL', 'SLEEP'])
        self.assertEqual(sorted(os.listdir(CPU + '/cpu0/wteo')), ['matrix', 'tolerance'])

    def test_2_usage_counters_move(self):
        before = states()
        seconds = periodic(2000, 200)
        after = states()
        note(f'200 sleeps of 2 ms ({seconds:.2f} s): ' +
             ', '.join(f'{n} usage {u0} -> {u1}' for (n, u0), (_, u1) in zip(before, after)))
        # Every timer-ended 2 ms sleep is an idle entry far beyond SLEEP's
        # target residency.
        self.assertGreaterEqual(after[SLEEP][1] - before[SLEEP][1], 200)
        # A resume latency below SLEEP's exit latency leaves the governor
        # POLL only.
        write(RESUME_LATENCY, '10')
        try:
            before = states()
            seconds = periodic(2000, 200)
            after = states()
        finally:
            write(RESUME_LATENCY, '0')
        note(f'the same with cpu0 resume latency 10 us ({seconds:.2f} s): ' +
             ', '.join(f'{n} usage {u0} -> {u1}' for (n, u0), (_, u1) in zip(before, after)))
        self.assertGreaterEqual(after[0][1] - before[0][1], 200)
        self.assertEqual(after[SLEEP][1], before[SLEEP][1])

    def assert_matrix_valid(self, m):
        n = len(states())
        self.assertEqual(len(m), n, m)
        for row in m:
            self.assertEqual(len(row), n, m)
            self.assertTrue(all(0 <= w <= WTEO_ONE for w in row), m)
            self.assertEqual(sum(row), WTEO_ONE, m)

    def test_3_matrix_learns_under_periodic_wakeups(self):
        # enable() starts the tables again at the prior.
        switch_governor('menu')
        self.assertFalse(os.path.exists(MATRIX))
        switch_governor('wteo')
        before = matrix()
        note(f'matrix after menu -> wteo: {before}')
        self.assert_matrix_valid(before)
        seconds = periodic(1000, 500)
        after = matrix()
        note(f'matrix after 500 sleeps of 1 ms ({seconds:.2f} s): {after}')
        self.assert_matrix_valid(after)
        self.assertNotEqual(before, after)
        # Entries the timer ends 1 ms later are in SLEEP's row, and SLEEP was
        # right for them: its weight there grew beyond the prior.
        self.assertGreater(after[SLEEP][SLEEP], PRIOR_SELF, after)

    def test_4_bad_writes_refused(self):
        bad = [(f'{PARAMS}/learn_shift', ['0', '16', '-1', 'abc', '4x']),
               (f'{PARAMS}/age_shift', ['0', '16', 'x']),
               (f'{PARAMS}/explore_shift', ['16', '-2', '0.5']),
               (TOLERANCE, ['1025', '-1', 'abc', '1.5'])]
        for path, values in bad:
            before = read(path)
            for v in values:
                with self.assertRaises(OSError, msg=f'{v!r} > {path}') as cm:
                    write(path, v)
                self.assertEqual(cm.exception.errno, errno.EINVAL, f'{v!r} > {path}: {cm.exception}')
                self.assertEqual(read(path), before, f'{v!r} > {path} changed it')
            note(f'{os.path.basename(path)}: {", ".join(repr(v) for v in values)} refused (EINVAL), '
                 f'still {before}')
        # The bounds themselves are taken.
        for path, good in ((f'{PARAMS}/learn_shift', ['15', '1']), (TOLERANCE, ['1024', '0'])):
            before = read(path)
            for v in good:
                write(path, v)
                self.assertEqual(read(path), v)
            write(path, before)


class Daemon(unittest.TestCase):
    """The real daemon on this kernel, a private bus per test."""

    def setUp(self):
        shutil.rmtree(RUN, ignore_errors=True)
        os.makedirs(RUN + '/runtime')
        for d in ('state', 'profiles.d', 'pins.d'):
            os.makedirs(f'{RUN}/{d}')
        with open(RUN + '/idlepolicyd.conf', 'w', encoding='ascii') as f:
            json.dump(DAEMON_CONFIG, f)
        # The originals: the tolerance is set while wteo governs; the kernel
        # keeps it across the switch to menu.
        if read(GOVERNOR) != 'wteo':
            switch_governor('wteo')
        for p, v in ORIGINAL_PARAMS.items():
            write(f'{PARAMS}/{p}', v)
        write(TOLERANCE, ORIGINAL_TOLERANCE)
        write(RESUME_LATENCY, '0')
        switch_governor(ORIGINAL_GOVERNOR)
        self.start_bus()
        self.daemon = None
        self.runs = 0

    def start_bus(self):
        socket = RUN + '/system_bus_socket'
        with open(RUN + '/bus.conf', 'w', encoding='ascii') as f:
            f.write(T.BUS_CONFIG.format(socket=socket))
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS='unix:path=' + socket, SYSTEMD_COLORS='0')
        self.bus_proc = T.Process(['dbus-daemon', '--nofork', '--nopidfile', f'--config-file={RUN}/bus.conf'],
                                  RUN + '/dbus-daemon.log', self.env)
        self.addCleanup(self.bus_proc.stop)
        T.wait_for(lambda: os.path.exists(socket), what='the bus socket')
        self.bus = T.wait_for(lambda: T.dbus.bus.BusConnection('unix:path=' + socket), what='a bus connection')
        self.addCleanup(self.bus.close)

    def start_daemon(self, mode):
        self.runs += 1
        argv = [BUILD + '/daemon/idlepolicyd', '--config', RUN + '/idlepolicyd.conf',
                '--runtime-dir', RUN + '/runtime', '--state-dir', RUN + '/state',
                '--profile-dir', SRC + '/conf/profiles', '--profile-override-dir', RUN + '/profiles.d',
                '--pins-dir', RUN + '/pins.d', '--calibrate-helper', BUILD + '/calibrate/idlepolicy-calibrate',
                '--tick-usec', '100000', '--mode', mode]
        self.daemon = T.Process(argv, f'{RUN}/idlepolicyd-{self.runs}.log', self.env)
        self.addCleanup(self.stop_and_dump, self.daemon)
        T.wait_for(lambda: self.bus.name_has_owner(T.BUS_NAME) or not self.daemon.alive(),
                   timeout=30, what='idlepolicyd on the bus')
        self.assertTrue(self.daemon.alive(), 'idlepolicyd exited:\n' + self.daemon.output())

    def stop_and_dump(self, proc):
        """Stops proc; shows its log if it did not exit cleanly (a SIGKILL
        the test sent aside)."""
        if proc.stop() not in (0, -signal.SIGKILL) and proc.output():
            sys.stderr.write(f'---- idlepolicyd log ----\n{proc.output()}---- end of log ----\n')

    def stop_daemon(self, sig=signal.SIGTERM):
        self.daemon.signal(sig)
        rc = self.daemon.wait(30)
        T.wait_for(lambda: not self.bus.name_has_owner(T.BUS_NAME), what='the bus name to go away')
        return rc

    def manager(self):
        return T.dbus.Interface(self.bus.get_object(T.BUS_NAME, T.ROOT_PATH, introspect=False), T.MANAGER_IFACE)

    def manager_prop(self, name):
        obj = self.bus.get_object(T.BUS_NAME, T.ROOT_PATH, introspect=False)
        return T.dbus.Interface(obj, T.PROPS_IFACE).Get(T.MANAGER_IFACE, name)

    def ctl(self, *args):
        r = subprocess.run([BUILD + '/ctl/idlepolicyctl'] + list(args), capture_output=True, text=True,
                           env=self.env, timeout=60, check=False)
        self.assertEqual(r.returncode, 0, f'idlepolicyctl {args}: {r.stderr}')
        return r.stdout

    def journal(self):
        p = RUN + '/runtime/' + T.JOURNAL_FILE
        if not os.path.exists(p):
            return None
        with open(p, encoding='utf-8') as f:
            return T.journal_live(f.read())

    def wait_companion(self, tol):
        T.wait_for(lambda: read(GOVERNOR) == 'wteo', what='the governor wteo')
        T.wait_for(lambda: params() == PROFILE_PARAMS, what="the profile's wteo parameters")
        T.wait_for(lambda: tolerance() == tol, what=f'cpu0 tolerance {tol}')
        T.wait_for(lambda: bool(self.manager_prop('CompanionMode')), what='CompanionMode')

    def assert_all_back(self):
        self.assertEqual(read(GOVERNOR), ORIGINAL_GOVERNOR)
        self.assertEqual(params(), ORIGINAL_PARAMS)
        self.assertEqual(read(RESUME_LATENCY), '0')
        self.assertIsNone(self.journal())
        # The kernel kept cpu0's tolerance across the switch: it must be the
        # original again.
        switch_governor('wteo')
        self.assertEqual(tolerance(), ORIGINAL_TOLERANCE)
        note(f'all back: governor {ORIGINAL_GOVERNOR}, {params()}, resume latency 0, '
             f'tolerance {tolerance()} (read under wteo), no restore journal')

    def test_1_companion_pushes_pin_and_sigterm(self):
        self.start_daemon('enforce')
        self.wait_companion('102')
        journal = self.journal()
        self.assertEqual(journal['sys/devices/system/cpu/cpuidle/current_governor'], ORIGINAL_GOVERNOR)
        self.assertEqual(journal['sys/devices/system/cpu/cpu0/wteo/tolerance'], ORIGINAL_TOLERANCE)
        for p, v in ORIGINAL_PARAMS.items():
            self.assertEqual(journal[f'sys/module/wteo/parameters/{p}'], v)
        time.sleep(0.3)        # two ticks: the rates in status are filled in
        status = self.ctl('status')
        note('idlepolicyctl status:\n' + status.rstrip())
        self.assertIn('companion mode (wteo)', status)
        self.assertIn('wteo tolerance 102/1024', status)
        note(f'pushed: {params()}, tolerance {tolerance()}')
        # A latency pin on cpu0: the latency profile's tolerance, and its
        # 10 us limit as the resume latency (no disable bit in companion mode).
        child = subprocess.Popen(['sleep', '600'])
        self.addCleanup(lambda: (child.kill(), child.wait()))
        self.manager().Pin(f'pid:{child.pid}', '0', 'latency', timeout=30)
        T.wait_for(lambda: tolerance() == '51', what='cpu0 tolerance 51 under the pin')
        # Only POLL is within the latency profile's 10 us: the plan polls
        # only, which goes to the resume latency as "n/a".
        T.wait_for(lambda: read(RESUME_LATENCY) == 'n/a', what='cpu0 resume latency n/a under the pin')
        self.assertEqual([read(f'{STATES}/state{k}/disable') for k in range(len(states()))], ['0', '0'])
        note(f'latency pin on cpu0: tolerance {tolerance()}, resume latency {read(RESUME_LATENCY)}, no disable bit')
        child.kill()
        child.wait()
        T.wait_for(lambda: tolerance() == '102', what='cpu0 tolerance back to 102')
        T.wait_for(lambda: read(RESUME_LATENCY) == '0', what='cpu0 resume latency back to 0')
        note(f'pinned process ended: tolerance {tolerance()}, resume latency {read(RESUME_LATENCY)}')
        self.assertEqual(self.stop_daemon(), 0)
        note('SIGTERM:')
        self.assert_all_back()

    def test_2_sigkill_then_restart(self):
        self.start_daemon('enforce')
        self.wait_companion('102')
        self.manager().SetProfile('performance', timeout=30)
        T.wait_for(lambda: tolerance() == '77', what='cpu0 tolerance 77 (performance)')
        self.daemon.signal(signal.SIGKILL)
        self.daemon.wait()
        note(f'SIGKILL: governor {read(GOVERNOR)}, {params()}, tolerance {tolerance()}, '
             f'restore journal {sorted(self.journal() or {})}')
        self.assertEqual(tolerance(), '77')
        self.assertIsNotNone(self.journal())
        # The next start replays the journal; observe mode writes nothing after.
        self.start_daemon('observe')
        T.wait_for(lambda: self.journal() is None, what='the restore journal replayed')
        self.assertEqual(self.stop_daemon(), 0)
        note('restart (observe) and SIGTERM:')
        self.assert_all_back()

    def test_3_governor_away_and_back(self):
        self.start_daemon('enforce')
        self.wait_companion('102')
        switch_governor('menu')
        T.wait_for(lambda: not self.manager_prop('CompanionMode'), what='companion mode off')
        T.wait_for(lambda: params() == ORIGINAL_PARAMS, what='the parameters put back')
        self.assertIsNone(tolerance())
        self.assertEqual(self.journal()['sys/devices/system/cpu/cpu0/wteo/tolerance'], ORIGINAL_TOLERANCE)
        note(f'governor switched to menu: companion mode off, {params()}, no tolerance file, '
             f'its original {ORIGINAL_TOLERANCE} in the restore journal')
        switch_governor('wteo')
        self.assertEqual(tolerance(), '102')     # the kernel kept the daemon's
        self.wait_companion('102')
        note(f'and back to wteo: companion mode, {params()}, tolerance {tolerance()}')
        self.assertTrue(self.daemon.alive())
        self.assertEqual(self.stop_daemon(), 0)
        note('SIGTERM:')
        self.assert_all_back()


def main():
    """The kernel's checks, then the daemon's (or the tests named in argv);
    exits 0 if all passed."""
    loader = unittest.TestLoader()
    if len(sys.argv) > 1:
        suite = loader.loadTestsFromNames(sys.argv[1:], sys.modules[__name__])
    else:
        suite = unittest.TestSuite([loader.loadTestsFromTestCase(Kernel), loader.loadTestsFromTestCase(Daemon)])
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() and result.testsRun else 1)


if __name__ == '__main__':
    main()
