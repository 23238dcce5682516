#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""unit: pins through systemd's own D-Bus API, against a mocked
org.freedesktop.systemd1 (python3-dbusmock with
tests/unit/daemon/systemd_mock.py) on the private system bus: Pin reads the
unit's AllowedCPUs first and sets the pin's CPUs with SetUnitProperties
(runtime), Unpin and the unit's stop put the original back; a daemon
SIGKILLed with a unit pin active puts it back at the next start; without
systemd on the bus a unit pin is the named error NoSystemd, and an unknown
unit NoSuchProcess, a .target NotPinnable, with nothing changed."""

import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import systemdmock as SM  # noqa: E402
import test_pins as TP  # noqa: E402

UNIT = 'postgresql.service'


class UnitPins(TP.PinTestCase):
    START_DAEMON = False

    def start_systemd(self):
        self.systemd = SM.Systemd(self)
        self.mock = self.systemd.mock
        self.systemd.add_unit(UNIT, [0, 1])
        self.systemd.add_unit('multi-user.target', [])

    def calls(self):
        return self.systemd.calls()

    def test_pin_sets_allowed_cpus_and_unpin_restores(self):
        self.start_systemd()
        self.start_daemon()
        path = self.pin(f'unit:{UNIT}', '1', 'latency')
        self.assertEqual(self.calls(), [(UNIT, [1])])
        self.assertEqual(str(self.pin_props(path)['State']), 'active')
        self.assertIn(f'unit:{UNIT}', str(self.cpu_prop(1, 'ProfileSource')))
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assertEqual(self.calls(), [(UNIT, [1]), (UNIT, [0, 1])])
        self.assertEqual(self.pins(), [])

    def test_unit_stop_ends_the_pin(self):
        self.start_systemd()
        self.start_daemon()
        path = self.pin(f'unit:{UNIT}', '1', 'latency')
        self.mock.SetMockUnitState(UNIT, 'inactive')
        T.wait_for(lambda: self.pins() == [], what='the pin to end with its unit')
        self.assertEqual(self.calls()[-1], (UNIT, [0, 1]))
        self.assertEqual(str(self.cpu_prop(1, 'ProfileSource')), 'machine')
        self.assertTrue(path.startswith(TP.PIN_PREFIX))

    def test_sigkill_then_restart_restores_through_systemd(self):
        self.start_systemd()
        self.start_daemon()
        self.pin(f'unit:{UNIT}', '1', 'latency')
        self.stop_daemon(signal.SIGKILL)
        self.assertEqual(self.calls(), [(UNIT, [1])])
        self.start_daemon()
        # the replay puts the original back through systemd, then the saved
        # pin is taken again (the unit still runs)
        T.wait_for(lambda: len(self.calls()) >= 3, what='the restart to restore and re-pin')
        self.assertEqual(self.calls()[1:3], [(UNIT, [0, 1]), (UNIT, [1])])
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(self.calls()[-1], (UNIT, [0, 1]))

    def test_bad_units(self):
        self.start_systemd()
        self.start_daemon()
        self.assert_dbus_error('NoSuchProcess', 'Pin', 'unit:nope.service', '1', 'latency')
        self.assert_dbus_error('NotPinnable', 'Pin', 'unit:multi-user.target', '1', 'latency')
        self.assert_dbus_error('InvalidTarget', 'Pin', 'unit:foo@.service', '1', 'latency')
        self.assertEqual(self.calls(), [])
        self.assertEqual(self.pins(), [])
        self.assert_daemon_alive()

    def test_no_systemd(self):
        self.start_daemon()
        msg = self.assert_dbus_error('NoSystemd', 'Pin', f'unit:{UNIT}', '1', 'latency')
        self.assertTrue(msg)
        self.assertEqual(self.pins(), [])
        self.assert_daemon_alive()


if __name__ == '__main__':
    T.main()
