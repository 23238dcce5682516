#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Calibration through the daemon on a fake tree, with mock-calibrate as
the measuring helper: Calibrate() and CalibrationFinished, the Calibrated
property and idlepolicyctl calibrate's table, Busy while one runs, a
failed run, the result kept across restarts, a corrupt calibration.json,
the first-start calibration."""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

U = T.dbus.UInt32

# The mock's curve of "haltpoll idle" (see mock-calibrate).
SWEEP_CURVE = [(d, 70 if d < 100 else 50) for d in (2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)]


class Calibration(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '2']          # POLL and "haltpoll idle" (advertised 1 us)
    START_DAEMON = False

    def test_calibrate_signal_property_and_persistence(self):
        signals = P.Signals(self, 'CalibrationFinished')
        self.start_daemon()
        self.assertEqual(self.manager_prop('CalibrationUSec'), 0)
        self.assertEqual(list(self.cpu_prop(0, 'Calibrated')), [])
        self.call('Calibrate')
        got = signals.wait(what='CalibrationFinished')
        self.assertEqual((bool(got[0][0]), str(got[0][1])), (True, ''))
        self.assertFalse(self.manager_prop('Calibrating'))
        when = int(self.manager_prop('CalibrationUSec'))
        self.assertGreater(when, 0)
        rows = [tuple(map(int, r)) for r in self.cpu_prop(1, 'Calibrated')]
        # index, advertised, measured (over POLL's baseline), p99, mis-described
        self.assertEqual(rows, [(0, 0, 0, 0, 0), (1, 1, 50, 100, 1)])
        # index, entry cost, measured residency, curve (idle us, us over POLL):
        # the mock's halt costs 20 us more below 100 us of idleness
        entry = [(int(i), int(e), int(res), [(int(d), int(p)) for d, p in curve])
                 for i, e, res, curve in self.cpu_prop(1, 'CalibratedEntry')]
        self.assertEqual(entry, [(0, 0, 0, []), (1, 20, 100, SWEEP_CURVE)])
        self.assert_tree_unchanged(msg='after the calibration')
        self.assertIsNone(self.journal_entries())
        self.assertTrue(os.path.exists(os.path.join(self.state_dir, 'calibration.json')))
        self.assertEqual(self.stop_daemon(), 0)
        self.start_daemon()
        self.assertEqual(int(self.manager_prop('CalibrationUSec')), when)
        self.assertEqual([tuple(map(int, r)) for r in self.cpu_prop(1, 'Calibrated')], rows)
        self.assertEqual(int(self.cpu_prop(1, 'CalibratedEntry')[1][2]), 100)

    def test_ctl_calibrate_prints_the_table(self):
        self.start_daemon()
        r = self.ctl('calibrate')
        self.assertRegex(r.stdout, r'\n +1 +haltpoll idle +1us +50us +100us +20us +100us +MIS-DESCRIBED\n'
                                   r' +after idle 2us \+70, 5us \+70, .*, 100us \+50, .*, 2ms \+50 \(us over polling\)\n')
        self.assertRegex(r.stdout, r'\n +0 +POLL +0us +0us +0us +0us +- +ok\n')
        doc = json.loads(self.ctl('--json', 'calibrate').stdout)
        state = doc['cpus'][0]['states'][1]
        self.assertEqual(state['name'], 'haltpoll idle')
        self.assertEqual(state['calibrated'], {'advertised_latency_us': 1, 'wakeup_us': 50,
                                               'wakeup_p99_us': 100, 'misdescribed': True,
                                               'entry_us': 20, 'residency_us': 100,
                                               'curve': [{'idle_us': d, 'penalty_us': p} for d, p in SWEEP_CURVE]})
        status = self.ctl('status').stdout
        self.assertRegex(status, r'haltpoll idle +1us +50us! +20us +1us ')
        self.assertIn('mis-described', status)

    def test_busy_while_calibrating(self):
        self.start_daemon(env={'IDLEPOLICY_MOCK_DELAY': '0.5'})
        signals = P.Signals(self, 'CalibrationFinished')
        self.call('Calibrate')
        self.assertTrue(self.manager_prop('Calibrating'))
        self.assertIn('running', self.assert_dbus_error('Busy', 'Calibrate'))
        self.assert_dbus_error('Busy', 'SetMode', 'enforce')
        self.assert_dbus_error('Busy', 'SetStateDisabled', U(0), 'POLL', True)
        self.assert_dbus_error('Busy', 'SetResumeLatency', U(0), U(5))
        self.assert_dbus_error('Busy', 'SetGovernor', 'menu')
        r = self.ctl('calibrate', check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn('(org.idlepolicy.IdlePolicy1.Error.Busy)', r.stderr)
        signals.wait(timeout=20, what='the end of the calibration')
        self.assertEqual(self.manager_prop('Mode'), 'observe')
        self.assert_tree_unchanged()

    def test_restore_cancels_a_calibration(self):
        self.start_daemon(env={'IDLEPOLICY_MOCK_DELAY': '2'})
        signals = P.Signals(self, 'CalibrationFinished')
        self.call('Calibrate')
        T.wait_for(lambda: self.journal_entries(), what='the calibration to change a knob')
        self.call('Restore')
        got = signals.wait(what='CalibrationFinished after Restore()')
        self.assertFalse(got[0][0])
        self.assertIn('cancelled', str(got[0][1]))
        self.assert_tree_unchanged()
        self.assertEqual(self.manager_prop('CalibrationUSec'), 0)

    def test_failed_calibration_changes_nothing(self):
        self.start_daemon(env={'IDLEPOLICY_MOCK_FAIL': '1'})
        r = self.ctl('calibrate', check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn('calibration failed', r.stderr)
        self.assertEqual(self.manager_prop('CalibrationUSec'), 0)
        self.assertFalse(os.path.exists(os.path.join(self.state_dir, 'calibration.json')))
        self.assert_tree_unchanged()
        self.assert_daemon_alive()

    def test_missing_helper_fails_the_call(self):
        self.start_daemon(extra=['--calibrate-helper', os.path.join(self.tmp, 'nope')])
        with self.assertRaises(T.dbus.exceptions.DBusException) as cm:
            self.call('Calibrate')
        self.assertIn('nope', cm.exception.get_dbus_message())
        self.assertFalse(self.manager_prop('Calibrating'))
        self.assert_tree_unchanged()
        self.assert_daemon_alive()

    def test_corrupt_calibration_is_ignored(self):
        os.makedirs(self.state_dir)
        with open(os.path.join(self.state_dir, 'calibration.json'), 'w', encoding='utf-8') as f:
            f.write('{"cpus": 7')
        self.start_daemon()
        self.assertEqual(self.manager_prop('CalibrationUSec'), 0)
        self.assertIn('calibration is corrupt', self.daemon.output())

    def test_first_start_calibrates_only_when_asked(self):
        """On a test tree only with calibrate_on_first_start, and never in
        observe mode (it writes nothing by itself; the tree stays as is)."""
        config = os.path.join(self.tmp, 'idlepolicyd.conf')
        for value, mode, expect in ((None, 'enforce', False), (False, 'enforce', False), (True, 'observe', False),
                                    (True, 'enforce', True)):
            with self.subTest(calibrate_on_first_start=value, mode=mode):
                with open(config, 'w', encoding='utf-8') as f:
                    json.dump({} if value is None else {'calibrate_on_first_start': value}, f)
                before = T.knob_values(self.tree)
                self.start_daemon(extra=['--config', config], mode=mode)
                if mode == 'observe':
                    time.sleep(1)
                    self.assertEqual(T.knob_values(self.tree), before)
                if expect:
                    T.wait_for(lambda: self.manager_prop('CalibrationUSec') > 0, what='the first calibration')
                else:
                    self.assertFalse(self.manager_prop('Calibrating'))
                    self.assertEqual(self.manager_prop('CalibrationUSec'), 0)
                self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        # Calibrated now: the next start does not calibrate again.
        self.start_daemon(extra=['--config', config])
        self.assertFalse(self.manager_prop('Calibrating'))


if __name__ == '__main__':
    T.main()
