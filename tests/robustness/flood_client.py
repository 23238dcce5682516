#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An unprivileged flood of holds or pins, run as another user (setpriv
--reuid): test_floods.py and bench/hostile-floods start it as uid 65534 (or
other uids) against the daemon on $DBUS_SYSTEM_BUS_ADDRESS.

  holds N M   opens N bus connections and calls Hold() up to M times on
              each, stopping at the first connection whose first Hold()
              is refused;
  pins N CPUS starts N `sleep` processes of its own and calls Pin() on
              each (pid:PID, CPUS, latency) from one connection, stopping
              at the second refusal in a row.

Prints one JSON line: {"accepted", "attempts", "errors": {name: count},
"first_refusal": [name, message] or null, "seconds"}, then keeps its
connections (holds live as long as their client) and its processes until
stdin closes; then it kills its processes and exits 0."""

import json
import os
import subprocess
import sys
import time

import dbus

BUS_NAME = 'org.idlepolicy.IdlePolicy1'
ROOT_PATH = '/org/idlepolicy/IdlePolicy1'
MANAGER_IFACE = BUS_NAME + '.Manager'


class Tally:
    def __init__(self):
        self.accepted = 0
        self.attempts = 0
        self.errors = {}
        self.first_refusal = None

    def call(self, fn, *args):
        """Calls fn(*args).  Returns True if it was accepted."""
        self.attempts += 1
        try:
            fn(*args, timeout=60)
        except dbus.exceptions.DBusException as e:
            name = e.get_dbus_name()
            self.errors[name] = self.errors.get(name, 0) + 1
            if self.first_refusal is None:
                self.first_refusal = [name, e.get_dbus_message()]
            return False
        self.accepted += 1
        return True


def manager(bus):
    return dbus.Interface(bus.get_object(BUS_NAME, ROOT_PATH, introspect=False), MANAGER_IFACE)


def flood_holds(n_connections, per_connection, keep):
    tally = Tally()
    address = os.environ['DBUS_SYSTEM_BUS_ADDRESS']
    for _ in range(n_connections):
        bus = dbus.bus.BusConnection(address)
        keep.append(bus)
        m = manager(bus)
        for i in range(per_connection):
            if not tally.call(m.Hold, 'latency', '', 'flood', 'org.example.Flood'):
                break
        else:
            continue
        if i == 0:
            break
    return tally


def flood_pins(n_processes, cpus, keep):
    tally = Tally()
    m = manager(dbus.bus.BusConnection(os.environ['DBUS_SYSTEM_BUS_ADDRESS']))
    refused_in_a_row = 0
    for _ in range(n_processes):
        proc = subprocess.Popen(['sleep', '600'], stdin=subprocess.DEVNULL)
        keep.append(proc)
        if tally.call(m.Pin, f'pid:{proc.pid}', cpus, 'latency'):
            refused_in_a_row = 0
            continue
        refused_in_a_row += 1
        if refused_in_a_row == 2:
            break
    return tally


def main():
    keep = []
    start = time.monotonic()
    if sys.argv[1] == 'holds':
        tally = flood_holds(int(sys.argv[2]), int(sys.argv[3]), keep)
    else:
        tally = flood_pins(int(sys.argv[2]), sys.argv[3], keep)
    print(json.dumps({'accepted': tally.accepted, 'attempts': tally.attempts, 'errors': tally.errors,
                      'first_refusal': tally.first_refusal, 'seconds': round(time.monotonic() - start, 3)}),
          flush=True)
    sys.stdin.read()
    for k in keep:
        if isinstance(k, subprocess.Popen):
            k.kill()
            k.wait()
    return 0


if __name__ == '__main__':
    sys.exit(main())
