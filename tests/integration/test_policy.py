#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The plan: learnt from the counters in both modes; observe writes nothing,
enforce writes the disable bits (and on KVM guests the halt-poll knobs)
only on change, journaled and restored like every knob (SIGTERM, SIGKILL +
restart, leaving enforce mode); manual settings are respected until
Restore(); PlanChanged, Weights, the mode's errors."""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

U = T.dbus.UInt32
C2 = 2
C2_DISABLE = [T.state_file(cpu, C2, 'disable') for cpu in (0, 1)]


class Plan(T.IdlePolicyTestCase):
    """A 3-state tree (POLL, C1, C2) whose C2 entries are mostly too deep."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'acpi_idle', '--no-haltpoll',
                 '--governor', 'menu']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        # Deterministic: no exploration, move after one tick.
        P.write_profile(self, 'steady', explore_shift=0, hold_ticks=1)

    def start(self, mode='enforce', extra=()):
        self.start_daemon(mode=mode, extra=extra)
        self.call('SetProfile', 'steady')

    def wait_capped(self, cpus=(0, 1)):
        T.wait_for(lambda: all(P.plan(self, c)[0] == 1 for c in cpus), timeout=15,
                   what='the cap to move to C1')

    def test_observe_learns_and_writes_nothing(self):
        self.start(mode='observe')
        with P.Feeder(self, [0, 1], P.TOO_DEEP_C2):
            self.wait_capped()
            time.sleep(0.5)
        cap, floor, cap_reason, _ = P.plan(self, 0)
        self.assertEqual((cap, floor, cap_reason), (1, 0, 'model'))
        self.assertIn('C2 was too deep', str(self.cpu_prop(0, 'Reason')))
        self.assertEqual(P.knobs(self), P.original_knobs(self), 'observe mode wrote a knob')
        self.assertEqual(list(self.manager_prop('Changed')), [])
        self.assertIsNone(self.journal_entries())

    def test_enforce_writes_the_plan_and_sigterm_restores(self):
        self.start()
        with P.Feeder(self, [0, 1], P.TOO_DEEP_C2):
            self.wait_capped()
            T.wait_for(lambda: all(self.read(k) == '1' for k in C2_DISABLE), what='C2 disabled')
        self.assertEqual(self.journal_entries(), {k: '0' for k in C2_DISABLE})
        changed = {k: v for k, v in P.knobs(self).items() if v != P.original_knobs(self)[k]}
        self.assertEqual(changed, {k: '1' for k in C2_DISABLE}, 'the plan changed more than C2')
        states = self.cpu_prop(0, 'States')
        self.assertTrue(bool(states[C2][5]), 'States does not show C2 disabled')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(P.knobs(self), P.original_knobs(self))
        self.assertIsNone(self.journal_entries())

    def test_sigkill_then_restart_restores_the_plan(self):
        self.start()
        with P.Feeder(self, [0, 1], P.TOO_DEEP_C2):
            self.wait_capped()
            T.wait_for(lambda: all(self.read(k) == '1' for k in C2_DISABLE), what='C2 disabled')
        self.assertEqual(self.stop_daemon(signal.SIGKILL), -signal.SIGKILL)
        self.assertEqual(self.read(C2_DISABLE[0]), '1')
        self.start_daemon()            # observe: replays the journal, writes nothing
        self.assertEqual(P.knobs(self), P.original_knobs(self))
        self.assertIsNone(self.journal_entries())

    def test_leaving_enforce_puts_back_what_the_plan_changed(self):
        self.start()
        with P.Feeder(self, [0, 1], P.TOO_DEEP_C2):
            self.wait_capped()
            T.wait_for(lambda: all(self.read(k) == '1' for k in C2_DISABLE), what='C2 disabled')
            self.call('SetResumeLatency', U(1), U(30))        # manual: stays
            r = self.ctl('mode', 'observe')
            self.assertIn('Mode: observe (was enforce)', r.stdout)
            self.assertEqual([self.read(k) for k in C2_DISABLE], ['0', '0'])
            time.sleep(0.5)                                   # and nothing comes back
            self.assertEqual([self.read(k) for k in C2_DISABLE], ['0', '0'])
        self.assertEqual(self.read(T.latency_file(1)), '30')
        self.assertEqual({str(k): str(v) for k, v in self.manager_prop('Changed')}, {T.latency_file(1): '0'})
        self.assertEqual(P.state_json(self)['mode'], 'observe')
        # Back to enforce: the plan applies again at once.
        self.call('SetMode', 'enforce')
        T.wait_for(lambda: all(self.read(k) == '1' for k in C2_DISABLE), what='C2 disabled again')

    def test_manual_settings_are_respected_until_restore(self):
        self.start()
        self.call('SetStateDisabled', U(0), 'C2', False)       # the administrator wants C2 on CPU 0
        with P.Feeder(self, [0, 1], P.TOO_DEEP_C2):
            T.wait_for(lambda: self.read(C2_DISABLE[1]) == '1', what='C2 disabled on CPU 1')
            time.sleep(0.5)
            self.assertEqual(self.read(C2_DISABLE[0]), '0', 'the plan overrode a manual setting')
            cap, _, cap_reason, _ = P.plan(self, 0)
            self.assertEqual((cap, cap_reason), (2, 'manual'))
            self.assertEqual(P.plan(self, 1)[:3], (1, 0, 'model'))
            self.call('Restore')
            self.assertEqual(self.read(C2_DISABLE[0]), '0')
            # Forgotten: the plan now applies on CPU 0 too.
            T.wait_for(lambda: self.read(C2_DISABLE[0]) == '1', what='the plan on CPU 0 after Restore()')

    def test_manual_disable_is_kept_and_shown(self):
        self.start()
        self.call('SetStateDisabled', U(1), 'POLL', True)
        with P.Feeder(self, [0, 1], P.TOO_DEEP_C2):
            T.wait_for(lambda: P.plan(self, 1)[1] == 1, what="CPU 1's floor at C1")
        self.assertEqual(P.plan(self, 1)[3], 'manual')
        self.assertEqual(self.read(T.state_file(1, 0, 'disable')), '1')

    def test_plan_changed_signal(self):
        signals = P.Signals(self, 'PlanChanged')
        self.start(mode='observe')
        with P.Feeder(self, [0, 1], P.TOO_DEEP_C2):
            got = signals.wait(lambda s: any(x[0] == 1 and x[1] == 1 for x in s), what='PlanChanged for CPU 1')
        cpu, cap, floor, cap_reason, floor_reason = next(x for x in got if x[0] == 1 and x[1] == 1)
        self.assertEqual((int(floor), str(cap_reason), str(floor_reason)), (0, 'model', 'none'))
        self.assertEqual(len(got[0]), 5)

    def test_weights_shape(self):
        # A 1 s tick: the first read below must come before the daemon's
        # second sample, which at the suite's 100 ms tick a loaded machine
        # delayed past once (CI, 2026-11-28).
        self.start(mode='observe', extra=['--tick-usec', '1000000'])
        self.assertEqual(list(self.cpu_prop(0, 'Weights')), [])      # no model before two samples
        with self.ticking():
            T.wait_for(lambda: len(self.cpu_prop(0, 'Weights')) == 3, what='the weights of CPU 0')
        for cpu in (0, 1):
            weights = [list(map(int, row)) for row in self.cpu_prop(cpu, 'Weights')]
            self.assertEqual([len(row) for row in weights], [3, 3, 3])
            self.assertEqual([sum(row) for row in weights], [1024, 1024, 1024])
            self.assertTrue(all(w > 0 for row in weights for w in row), 'a weight reached 0')
        doc = json.loads(self.ctl('--json', 'weights', '--cpu', '1').stdout)
        self.assertEqual(doc['states'], ['POLL', 'C1', 'C2'])
        self.assertEqual([sum(r) for r in doc['weights']], [1024] * 3)
        self.assertIn('ENTERED', self.ctl('weights', '--cpu', '0').stdout)
        self.assertEqual(self.ctl('weights', check=False).returncode, 2)

    def test_invalid_mode_changes_nothing(self):
        self.start(mode='observe')
        for mode in ('Enforce', '', 'auto'):
            with self.subTest(mode=mode):
                self.assertIn('Invalid mode', self.assert_dbus_error('InvalidMode', 'SetMode', mode))
        self.assertEqual(self.manager_prop('Mode'), 'observe')
        self.assertEqual(self.ctl('mode', 'auto', check=False).returncode, 2)
        self.assert_daemon_alive()

    def test_status_and_monitor_show_the_plan(self):
        self.start(mode='observe')
        with P.Feeder(self, [0, 1], P.TOO_DEEP_C2):
            self.wait_capped()
            status = self.ctl('status').stdout
            doc = json.loads(self.ctl('--json', 'status').stdout)
            lines = self.monitor_lines(2)
        self.assertIn('plan: cap C1 (model), floor POLL (none)', status)
        self.assertIn('Profile:     steady', status)
        self.assertEqual(doc['cpus'][0]['plan']['cap'], 1)
        self.assertEqual(doc['cpus'][0]['plan']['cap_reason'], 'model')
        self.assertEqual(doc['mode'], 'observe')
        self.assertEqual(len(doc['cpus'][0]['weights']), 3)
        self.assertEqual([json.loads(line)['active_profile'] for line in lines], ['steady', 'steady'])

    def monitor_lines(self, n):
        """Runs monitor --json, reads n lines, stops it with SIGINT (exit 0)."""
        proc = T.subprocess.Popen([self.ctl_exe, '--json', 'monitor'], stdout=T.subprocess.PIPE,
                                  env=self.env(), text=True)
        try:
            lines = [proc.stdout.readline() for _ in range(n)]
            proc.send_signal(signal.SIGINT)
            self.assertEqual(proc.wait(timeout=10), 0)
        finally:
            proc.stdout.close()
            if proc.poll() is None:
                proc.kill()
        return lines


class Kvm(T.IdlePolicyTestCase):
    """The KVM tree (POLL, "haltpoll idle", governor haltpoll, polling 200 us)."""
    TREE_ARGS = ['--cpus', '2']
    START_DAEMON = False
    HALTPOLL_NS = T.HALTPOLL_DIR + '/guest_halt_poll_ns'

    def calibrated(self, step_us):
        """Starts enforcing with a halt that costs step_us (mock) and calibrates."""
        self.start_daemon(mode='enforce', env={'IDLEPOLICY_MOCK_STEP_US': str(step_us)})
        self.ctl('calibrate')
        self.assertTrue(self.manager_prop('CalibrationUSec') > 0)

    def test_uncalibrated_does_not_poll(self):
        self.start_daemon(mode='enforce')
        with P.Feeder(self, [0, 1], P.POLL_PAYS, P.POLL_PAYS_IRQS):
            T.wait_for(lambda: self.manager_prop('PollMode') == 'none', what='PollMode none')
            time.sleep(0.5)
        self.assertEqual(self.read(self.HALTPOLL_NS), '200000')
        self.assertEqual(self.manager_prop('PollWindowNSec'), 0)

    def window_in_force(self):
        m = self.manager_props()
        return m['PollMode'] == 'window' and self.read(self.HALTPOLL_NS) == str(int(m['PollWindowNSec']))

    def test_poll_window_is_written_and_restored_after_sigkill(self):
        self.calibrated(500)
        with P.Feeder(self, [0, 1], P.POLL_PAYS, P.POLL_PAYS_IRQS):
            try:
                T.wait_for(self.window_in_force, timeout=20, what='the halt-poll window in force')
            except AssertionError:
                sys.stderr.write(f'PollMode {self.manager_prop("PollMode")}, '
                                 f'guest_halt_poll_ns {self.read(self.HALTPOLL_NS)}, '
                                 f'CPU 0: {self.cpu_prop(0, "Reason")}\n')
                raise
            self.assertGreater(float(self.cpu_prop(0, 'PollSuccess')), 0.5)
        self.assertIn(self.HALTPOLL_NS, self.journal_entries())
        self.assertEqual(self.journal_entries()[self.HALTPOLL_NS], '200000')
        self.assertEqual(self.stop_daemon(signal.SIGKILL), -signal.SIGKILL)
        self.assertNotEqual(self.read(self.HALTPOLL_NS), '200000')
        self.start_daemon()
        self.assertEqual(P.knobs(self), P.original_knobs(self))

    def test_latency_limit_polls_only_through_resume_latency_and_sigterm_restores(self):
        """A halt slower than the profile's limit: polling only, set through
        the resume latency (the haltpoll governor ignores disable bits)."""
        self.calibrated(500)
        self.call('SetProfile', 'latency')
        self.call('SetResumeLatency', U(1), U(0))          # CPU 1's latency is the administrator's
        with self.ticking():
            T.wait_for(lambda: self.read(T.latency_file(0)) == 'n/a', what='CPU 0 polling only')
            self.assertEqual(P.plan(self, 0)[:3], (0, 0, 'misdescribed'))
        self.assertEqual(self.read(T.latency_file(1)), '0')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(P.knobs(self), P.original_knobs(self))

    def test_poll_economics_polls_only_per_cpu_and_sigterm_restores(self):
        """Long non-timer idle periods and a dear halt: polling only pays on
        the CPUs that see them; the others keep halting."""
        P.write_profile(self, 'eager', burn_price=0.0625, explore_shift=0)
        self.calibrated(500)
        self.call('SetProfile', 'eager')
        with P.Feeder(self, [0], P.HALT_LONG, P.HALT_LONG_IRQS):
            T.wait_for(lambda: self.read(T.latency_file(0)) == 'n/a', timeout=20, what='CPU 0 polling only')
            self.assertEqual(P.plan(self, 0), (0, 0, 'poll-economics', 'poll-economics'))
            self.assertIn('polling only is cheaper', self.cpu_prop(0, 'Reason'))
            self.assertEqual(self.read(T.latency_file(1)), '0')
            self.assertEqual(P.plan(self, 1)[0], 1)
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(P.knobs(self), P.original_knobs(self))

    def test_machine_knob_is_none_or_window_never_polling_only(self):
        """Both CPUs see the same round trips: each polls only on its own,
        and the machine-wide decision, which has no polling only, stays
        none or window (a machine "polling only" once set no window and left
        a CPU that wanted one halting at once)."""
        P.write_profile(self, 'eager', burn_price=0.0625, explore_shift=0)
        self.calibrated(500)
        self.call('SetProfile', 'eager')
        modes = set()

        def both_polling_only():
            modes.add(self.manager_prop('PollMode'))
            return all(self.read(T.latency_file(c)) == 'n/a' for c in (0, 1))
        with P.Feeder(self, [0, 1], P.HALT_LONG, P.HALT_LONG_IRQS):
            T.wait_for(both_polling_only, timeout=20, what='CPUs 0 and 1 polling only')
            for _ in range(8):
                modes.add(self.manager_prop('PollMode'))
                time.sleep(0.25)
        modes.discard('')   # before the first decision
        self.assertTrue(modes and modes <= {'none', 'window'}, modes)
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(P.knobs(self), P.original_knobs(self))

    def test_polling_only_is_re_measured_by_exploration(self):
        """While a CPU polls only its counters measure nothing: now and then
        the halt is let back for a tick (reason exploration, resume latency
        back to its original) and the decision, re-measured, stands."""
        P.write_profile(self, 'curious', burn_price=0.0625, explore_shift=1, hold_ticks=1)
        self.calibrated(500)
        self.call('SetProfile', 'curious')
        seen, why = [], []

        def explored_and_back():
            cap, _, reason, _ = P.plan(self, 0)
            seen.append((cap, reason, self.read(T.latency_file(0))))
            if reason == 'exploration':
                why.append(self.cpu_prop(0, 'Reason'))
            explored = (1, 'exploration', '0')
            return explored in seen and (0, 'poll-economics', 'n/a') in seen[seen.index(explored):]
        with P.Feeder(self, [0], P.HALT_LONG, P.HALT_LONG_IRQS):
            T.wait_for(explored_and_back, timeout=30, what=f'exploration and back (seen {sorted(set(seen))})')
        self.assertIn('exploring: haltpoll idle allowed for one tick', why[0])
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(P.knobs(self), P.original_knobs(self))

    def test_polling_only_is_let_go_when_the_load_stops(self):
        """Random exploration off: a CPU polling only keeps polling while it
        is busy, also when its busy share swings, and is re-measured at once
        when it goes idle."""
        P.write_profile(self, 'still', burn_price=0.0625, explore_shift=0, hold_ticks=1)
        self.calibrated(500)
        self.call('SetProfile', 'still')
        with P.Feeder(self, [0], P.HALT_LONG, P.HALT_LONG_IRQS, stat=(2, 2)) as feeder:
            T.wait_for(lambda: P.plan(self, 0)[:3] == (0, 0, 'poll-economics'), timeout=20, what='CPU 0 polling only')
            for busy in (2, 1, 3, 2, 1, 3, 2, 1):   # busy 25-75%, swinging: no exploration
                feeder.stat = (busy, 4 - busy)
                self.assertEqual(P.plan(self, 0)[2], 'poll-economics')
                time.sleep(0.25)
            feeder.stat = (0, 4)    # the load stops
            T.wait_for(lambda: P.plan(self, 0)[2] == 'exploration', timeout=10, what='CPU 0 re-measured')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(P.knobs(self), P.original_knobs(self))


if __name__ == '__main__':
    T.main()
