#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The live pin test (issue 12): the real idlepolicyd on this machine's
real cpuidle in enforce mode with the machine profile balanced, a real
program pinned with latency on CPU 1 through the bus (busctl, as a user
would); the real knobs show latency's plan on CPU 1 only (CPU 0 keeps
balanced's), the program's affinity is CPU 1; when the program exits,
CPU 1 goes back to the machine's plan and the pin is gone; SIGTERM leaves
the machine as found.  Then real hotplug: CPU 1 taken offline under a
pinned program (the kernel widens its affinity) and brought back (the pin
sets it again and CPU 1 runs latency again).

On a busy machine balanced itself may keep a CPU out of its halt state
(it polls where its calibration says the halt is too slow for the CPU's
short idle periods): so "the pin did not leak" and "back to the machine's
plan" are checked on the daemon's per-CPU profile (status --json: CPU 0
balanced, CPU 1 latency while pinned, balanced after), not on whether a
CPU can halt.

The halt state is given a calibrated wakeup cost of 40 µs (mis-described,
above latency's 10 µs limit: latency keeps CPU 1 out of it) by a
calibration.json in the test's state directory, as test_live_enforce.py
does.  Shares test_live.py's safety net (every knob recorded first, put
back on any exit and by a guardian after SIGKILL).  Exits 77 (skip) when
not root, without a writable cpuidle governor, without dbus-daemon or with
fewer than two CPUs with cpuidle."""

import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_live as L  # noqa: E402  (records the knobs and arms the safety net)
import test_live_enforce as E  # noqa: E402

T = L.T
PINNED = 1
OTHER = 0


def allowed_cpus(pid):
    with open(f'/proc/{pid}/status', encoding='ascii') as f:
        for line in f:
            if line.startswith('Cpus_allowed_list:'):
                return line.split(':', 1)[1].strip()
    return None


class Pins(E.Enforce):

    def busctl_pin(self, target, cpus, profile):
        r = subprocess.run(['busctl', '--system', 'call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Pin', 'sss',
                            target, cpus, profile], capture_output=True, text=True, env=self.env(), timeout=30,
                           check=False)
        self.assertEqual(r.returncode, 0, f'Pin: {r.stderr}')
        return r.stdout.split('"')[1]

    def pins(self):
        return self.bus.get_object(T.BUS_NAME, T.ROOT_PATH).Get(T.MANAGER_IFACE, 'Pins',
                                                                dbus_interface=T.PROPS_IFACE)

    def test_pinned_program_gets_latency_on_its_cpu_only(self):
        if PINNED not in self.cpus or OTHER not in self.cpus:
            self.skipTest('needs CPUs 0 and 1 with cpuidle')
        self.start_enforcing('balanced', E.fake_calibration(self.cpus, E.FAKE_HALT_US))
        prog = subprocess.Popen(['sleep', '300'])
        self.addCleanup(lambda: (prog.kill(), prog.wait()))
        path = self.busctl_pin(f'pid:{prog.pid}', str(PINNED), 'latency')
        self.assertTrue(path.startswith(T.ROOT_PATH + '/pin/'), path)
        self.assertEqual(allowed_cpus(prog.pid), str(PINNED))
        T.wait_for(lambda: self.halt_unreachable(PINNED), timeout=20, interval=0.1,
                   what=f'CPU {PINNED} kept out of its halt state (latency)')
        self.assert_pin_did_not_leak()
        st = self.status()
        cpu1 = [c for c in st['cpus'] if c['index'] == PINNED][0]
        self.assertIn('latency', str(cpu1.get('profile', '')) + str(cpu1.get('profile_source', '')), cpu1)
        self.assertEqual([str(p) for p in self.pins()], [path])

        t0 = time.monotonic()
        prog.kill()
        prog.wait()
        self.wait_machine_plan(PINNED, 'after the program exited', interval=0.005)
        sys.stderr.write(f'CPU {PINNED} back {1000 * (time.monotonic() - t0):.1f} ms after the kill\n')
        T.wait_for(lambda: len(self.pins()) == 0, timeout=5, what='the pin to go away')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0, self.daemon.output())
        self.assertEqual(L.record_knobs(), L.RECORDED, 'SIGTERM did not put every knob back')
        self.assertIsNone(self.journal())

    def cpu_status(self, cpu):
        return [c for c in self.status()['cpus'] if c['index'] == cpu][0]

    def assert_pin_did_not_leak(self):
        """CPU 0 runs the machine's profile (balanced), whatever its plan
        does with its halt state (on a busy CPU balanced may poll)."""
        c = self.cpu_status(OTHER)
        self.assertEqual((c.get('profile'), c['online']), ('balanced', True),
                         f'CPU {OTHER} runs {c.get("profile")} ({c.get("profile_source")}), not the machine\'s '
                         f'balanced: the pin leaked; its plan: {c.get("plan")}')
        if self.halt_unreachable(OTHER):
            sys.stderr.write(f'CPU {OTHER} is out of its halt state under balanced (util {c.get("util")}): '
                             f'plan {c.get("plan")}\n')

    def wait_machine_plan(self, cpu, when, interval=0.1):
        """Waits until cpu runs the machine's profile again (the pin's
        latency gone from it)."""
        last = {}

        def back():
            last.update(self.cpu_status(cpu))
            return last.get('profile') == 'balanced'
        try:
            T.wait_for(back, timeout=10, interval=interval, what=f'CPU {cpu} back to the machine plan {when}')
        except AssertionError:
            self.fail(f'CPU {cpu} not back to the machine\'s balanced {when} in 10 s: it runs '
                      f'{last.get("profile")} ({last.get("profile_source")}), plan {last.get("plan")}')

    def pin_waker_to_cpu1(self):
        """Enforces balanced, pins a program that wakes every 5 ms to CPU 1
        with latency and waits for latency's plan there; CPU 1's online file
        is put back whatever happens.  Returns (the program, its pin's path,
        a function that writes CPU 1's online file)."""
        online = f'/sys/devices/system/cpu/cpu{PINNED}/online'
        if PINNED not in self.cpus or OTHER not in self.cpus or not os.path.exists(online):
            self.skipTest(f'needs CPUs 0 and 1 with cpuidle and {online}')
        self.start_enforcing('balanced', E.fake_calibration(self.cpus, E.FAKE_HALT_US))
        # Wakes every 5 ms: the kernel moves a task off an offline CPU (and
        # widens its affinity) when it runs, not while it sleeps.
        prog = subprocess.Popen([sys.executable, '-c', 'import time\nwhile True: time.sleep(0.005)'])
        self.addCleanup(lambda: (prog.kill(), prog.wait()))
        path = self.busctl_pin(f'pid:{prog.pid}', str(PINNED), 'latency')
        T.wait_for(lambda: self.halt_unreachable(PINNED), timeout=20, interval=0.1,
                   what=f'CPU {PINNED} kept out of its halt state (latency)')

        def set_online(value):
            with open(online, 'w', encoding='ascii') as f:
                f.write(value)
        self.addCleanup(lambda: L.read_knob(online) == '1' or set_online('1'))
        return prog, path, set_online

    def wait_pinned_again(self, prog):
        """After CPU 1 came back: the pin sets the program's affinity again
        and CPU 1 runs latency again."""
        T.wait_for(lambda: allowed_cpus(prog.pid) == str(PINNED), timeout=20,
                   what='the pin to set the program\'s affinity again')
        T.wait_for(lambda: [(c['online'], c.get('profile')) for c in self.status()['cpus'] if c['index'] == PINNED]
                   == [(True, 'latency')], timeout=20, what=f'CPU {PINNED} online under latency again')

    def end_program_and_stop(self, prog):
        """Kills the program: CPU 1 goes back to the machine's plan; then
        SIGTERM puts every knob back."""
        prog.kill()
        prog.wait()
        self.wait_machine_plan(PINNED, 'after the program exited', interval=0.005)
        self.assertTrue(self.daemon.alive(), self.daemon.output())
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0, self.daemon.output())
        self.assertEqual(L.record_knobs(), L.RECORDED, 'SIGTERM did not put every knob back')
        self.assertIsNone(self.journal())

    def test_pinned_cpu_offline_and_back(self):
        prog, path, set_online = self.pin_waker_to_cpu1()
        set_online('0')
        T.wait_for(lambda: allowed_cpus(prog.pid) != str(PINNED), timeout=10,
                   what='the kernel to widen the affinity of the pinned program')
        T.wait_for(lambda: [c['online'] for c in self.status()['cpus'] if c['index'] == PINNED] == [False],
                   timeout=20, what=f'the daemon to see CPU {PINNED} offline')
        self.assertEqual([str(p) for p in self.pins()], [path])
        set_online('1')
        self.wait_pinned_again(prog)
        T.wait_for(lambda: self.halt_unreachable(PINNED), timeout=20, interval=0.1,
                   what=f'CPU {PINNED} kept out of its halt state again')
        self.assert_pin_did_not_leak()
        self.end_program_and_stop(prog)

    def test_pinned_cpu_flaps_within_a_tick(self):
        """CPU 1 offline and back at once, well within a tick: the online
        mask the daemon reads is as before, but the cpuidle files went from
        under its sampler; it must still see the hotplug (the pin sets the
        program's affinity again, CPU 1 is planned again) and not crash
        when the pin then ends (it did: a re-plan of a CPU without states)."""
        prog, _, set_online = self.pin_waker_to_cpu1()
        set_online('0')
        T.wait_for(lambda: allowed_cpus(prog.pid) != str(PINNED), timeout=10, interval=0.001,
                   what='the kernel to widen the affinity of the pinned program')
        set_online('1')
        self.wait_pinned_again(prog)
        self.end_program_and_stop(prog)


def load_tests(loader, _standard_tests, _pattern):
    """Only this file's tests (Enforce's run in live-enforce)."""
    return E.own_tests(loader, Pins)


if __name__ == '__main__':
    L.main()
