# SPDX-License-Identifier: LGPL-2.1-or-later
"""systemd on the test's private system bus: python3-dbusmock with the
template tests/unit/daemon/systemd_mock.py (units with AllowedCPUs,
SetUnitProperties recorded), shared by the unit pin and the consolidation
tests."""

import os

import idlepolicytest as T

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'unit', 'daemon', 'systemd_mock.py')
BUS_NAME = 'org.freedesktop.systemd1'
PATH = '/org/freedesktop/systemd1'


def mask(cpus):
    """systemd's AllowedCPUs bytes (little-endian bitmask) of a CPU list;
    [] (AllowedCPUs not set) for no CPUs."""
    n = max(cpus) // 8 + 1 if cpus else 0
    out = [0] * n
    for c in cpus:
        out[c // 8] |= 1 << (c % 8)
    return out


def cpus(value):
    """The CPU list of an AllowedCPUs bitmask."""
    return [8 * i + b for i, byte in enumerate(value) for b in range(8) if int(byte) >> b & 1]


class Systemd:
    """The mock, started for test (stopped at its cleanup)."""

    def __init__(self, test):
        self.proc = T.Process([test.python, '-m', 'dbusmock', '--system', '-t', TEMPLATE],
                              os.path.join(test.tmp, 'systemd.log'), test.env())
        test.addCleanup(self.proc.stop)
        T.wait_for(lambda: test.bus.name_has_owner(BUS_NAME) or not self.proc.alive(), what='the systemd mock')
        test.assertTrue(self.proc.alive(), self.proc.output())
        self.mock = T.dbus.Interface(test.bus.get_object(BUS_NAME, PATH), T.MOCK_IFACE)

    def add_unit(self, name, allowed_cpus, active_state='active', load_state='loaded'):
        """A unit with AllowedCPUs allowed_cpus (a CPU list; []: not set)."""
        self.mock.AddMockUnit(name, load_state, active_state, T.dbus.Array(mask(allowed_cpus), signature='y'))

    def calls(self):
        """[(unit, AllowedCPUs as a CPU list)] of every SetUnitProperties."""
        return [(str(name), cpus(value)) for name, value in self.mock.GetSetUnitPropertiesCalls()]

    def raw_calls(self):
        """[(unit, AllowedCPUs bytes)] of every SetUnitProperties: [] is an
        empty array (not set)."""
        return [(str(name), [int(b) for b in value]) for name, value in self.mock.GetSetUnitPropertiesCalls()]

    def runtime_flags(self):
        """The runtime argument of every SetUnitProperties, in order."""
        return [bool(r) for r in self.mock.GetSetUnitPropertiesRuntime()]
