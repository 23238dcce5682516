#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Long ticks while quiet (libidlepolicy/model/quiet-tick.h, QuietTickPace)
on the real machine: the real idlepolicyd on "/" in observe mode (the 100 ms
test tick, quiet_tick_usec 1 s), whose exec wake is the kernel's proc
connector (daemon/manager/exec-wake.h) -- which a fake tree cannot have, so
this is the live suite's.

On a quiet machine the daemon takes long ticks (idlepolicy_long_ticks_total
rises); a process the test starts while one is armed cuts it short
(idlepolicy_exec_wakes_total rises by one, and the tick is no longer long
until the machine was found quiet again); with quiet_tick_usec 0 it takes
none; light ticks double the long tick up to four times quiet_tick_usec
(idlepolicy_quiet_tick_seconds), an exec whose check finds the machine
quiet keeps it, and the wake, paused when it fired, wakes the daemon at
the next exec again.  In enforce mode under balanced, where the poll search holds no
polling on a quiet machine, an exec of a program that exits at once
starts no follow of a program's start, and one of a program that keeps a
CPU busy for 1.5 s does (idlepolicy_follows_total).  The metrics are read through python3-dbus, which starts no process:
busctl would itself be an exec.  Nothing is asserted on time.  A machine
that never goes quiet (another program busy: a compile, a benchmark)
cannot show a long tick: the test skips, naming the load.

Shares test_live.py's safety net; observe mode writes no knob, and every
knob is compared with the recording at the end."""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_live as L  # noqa: E402  (records the knobs and arms the safety net)
import test_live_enforce as E  # noqa: E402

T = L.T
QUIET_WAIT_S = 30
ATTEMPTS = 10


# A program busy for BUSY_S without switching: a start-up (loading,
# warming up) before the work it serves.
BUSY_S = 1.5
BUSY = [sys.executable, '-c', f'import time\nt = time.monotonic() + {BUSY_S}\nwhile time.monotonic() < t:\n    pass']


class LongTicks(E.Enforce):

    def write_config(self, quiet_tick_usec, **more):
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({'calibrate_on_first_start': False, 'quiet_tick_usec': quiet_tick_usec, **more}, f)

    def counters(self):
        text = str(self.bus.call_blocking(T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Metrics', '', [], timeout=10))

        def one(name):
            m = re.search(rf'^{name} (\d+)$', text, re.M)
            self.assertIsNotNone(m, f'no {name} in Metrics()')
            return int(m.group(1))
        return {k: one(f'idlepolicy_{k}') for k in ('long_ticks_total', 'exec_wakes_total', 'tick_long',
                                                     'light_ticks_total', 'tick_duration_seconds_count',
                                                     'follows_total')}

    def wait_long(self, what):
        """Waits until the next tick is a long one; skips when the machine
        does not go quiet in QUIET_WAIT_S."""
        try:
            return T.wait_for(lambda: (c := self.counters())['tick_long'] == 1 and c, timeout=QUIET_WAIT_S,
                              what=what)
        except AssertionError:
            with open('/proc/loadavg', encoding='ascii') as f:
                load = f.read().split()[0]
            self.skipTest(f'the machine was never quiet for {QUIET_WAIT_S} s ({what}): load average {load}, '
                          f'counters {self.counters()}')

    def wait_light(self, n):
        """Waits for n light ticks; skips when the machine is not quiet
        enough for them in QUIET_WAIT_S."""
        try:
            T.wait_for(lambda: self.counters()['light_ticks_total'] >= n, timeout=QUIET_WAIT_S,
                       what=f'{n} light ticks')
        except AssertionError:
            self.skipTest(f'the machine was never quiet for {QUIET_WAIT_S} s: counters {self.counters()}')

    def exec_wakes(self, before):
        """After an exec: the counters once the wake came or three more
        ticks did."""
        def done():
            c = self.counters()
            moved = c['exec_wakes_total'] > before['exec_wakes_total'] or \
                c['tick_duration_seconds_count'] > before['tick_duration_seconds_count'] + 2
            return moved and c
        return T.wait_for(done, timeout=15, what='the exec wake or three ticks')

    def test_quiet_long_ticks_and_exec_wake(self):
        self.write_config(1000000)
        self.start_daemon()
        self.wait_long('a long tick on a quiet machine')
        for _ in range(ATTEMPTS):
            before = self.wait_long('a long tick again')
            subprocess.run(['/bin/true'], check=True)
            after = self.exec_wakes(before)
            if after['exec_wakes_total'] == before['exec_wakes_total'] + 1:
                break
            # Ticks came without the wake: the long tick was over before
            # /bin/true ran (another process's exec cut it, or the machine
            # got busy).  Try again.
        else:
            self.fail(f'no exec wake in {ATTEMPTS} attempts: {after}')
        c = self.counters()
        self.assertGreaterEqual(c['long_ticks_total'], 1)
        self.assertTrue(self.daemon.alive())

    def woken_by(self, argv):
        """Runs argv once a long tick is armed, until its exec was the one
        that cut it short (ATTEMPTS tries: another process's exec, or the
        machine busy, can end the long tick first); the counters before."""
        for _ in range(ATTEMPTS):
            before = self.wait_long('a long tick')
            subprocess.run(argv, check=True)
            after = self.exec_wakes(before)
            if after['exec_wakes_total'] == before['exec_wakes_total'] + 1:
                return before
        self.fail(f'no exec wake of {argv[0]} in {ATTEMPTS} attempts: {after}')

    def test_follow_program_start(self):
        self.write_config(1000000, log_level='debug')
        self.start_enforcing('balanced', E.fake_calibration(self.cpus, E.FAKE_HALT_US))
        # A long tick: the state is settled, the poll search holds no
        # polling.
        self.wait_long('a long tick on a quiet machine')
        # A program that exits at once: the check tick finds the machine
        # quiet (or too short to tell) and follows nothing -- unless
        # something else switched or computed then: tried again.
        for _ in range(ATTEMPTS):
            before = self.woken_by(['/bin/true'])
            after = self.wait_long('a long tick after /bin/true')
            if after['follows_total'] == before['follows_total']:
                break
        else:
            self.fail(f'every exec of /bin/true on a quiet machine started a follow: {after}')
        # A program busy without switching: a tick within
        # QUIET_TICK_FOLLOW_USEC of the wake finds the machine busy.
        before = self.woken_by(BUSY)
        c = self.counters()
        self.assertGreater(c['follows_total'], before['follows_total'],
                           f'no follow of a program busy for {BUSY_S} s after its exec woke the tick: {c}')
        self.assertIn('A program starts (busy)', self.daemon.output())
        self.assertTrue(self.daemon.alive())

    def quiet_tick_s(self):
        """idlepolicy_quiet_tick_seconds: the long tick now."""
        text = str(self.bus.call_blocking(T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Metrics', '', [], timeout=10))
        m = re.search(r'^idlepolicy_quiet_tick_seconds (\S+)$', text, re.M)
        self.assertIsNotNone(m, 'no idlepolicy_quiet_tick_seconds in Metrics()')
        return float(m.group(1))

    def test_long_tick_backoff(self):
        # quiet_tick_usec 0.5 s: light ticks double it up to 4 times, 2 s.
        self.write_config(500000, log_level='debug')
        self.start_daemon()
        try:
            T.wait_for(lambda: self.quiet_tick_s() >= 2.0, timeout=QUIET_WAIT_S, what='the long tick at 2 s')
        except AssertionError:
            with open('/proc/loadavg', encoding='ascii') as f:
                load = f.read().split()[0]
            self.skipTest(f'the machine was never quiet long enough for the long tick to back off in '
                          f'{QUIET_WAIT_S} s: load average {load}, long tick {self.quiet_tick_s()} s')
        self.assertIn('Quiet: long ticks of 2000 ms.', self.daemon.output())
        # An exec whose check finds the machine quiet keeps the long tick
        # (unless something else made the machine busy meanwhile: tried
        # again) ...
        for _ in range(ATTEMPTS):
            self.woken_by(['/bin/true'])
            self.wait_long('a long tick after /bin/true')
            if self.quiet_tick_s() >= 2.0:
                break
        else:
            self.fail(f'every exec of /bin/true brought the long tick back: {self.quiet_tick_s()} s')
        # ... and the wake, paused when it fired and resumed since, cuts
        # the next long tick short again.
        self.woken_by(['/bin/true'])
        self.assertTrue(self.daemon.alive())

    def test_off(self):
        self.write_config(0)
        self.start_daemon()
        self.wait_light(10)
        c = self.counters()
        self.assertEqual(c['long_ticks_total'], 0)
        self.assertEqual(c['tick_long'], 0)
        self.assertEqual(c['exec_wakes_total'], 0)


def load_tests(loader, _standard_tests, _pattern):
    """Only this file's tests (Live's run in live-cpuidle)."""
    return E.own_tests(loader, LongTicks)


if __name__ == '__main__':
    L.main()
