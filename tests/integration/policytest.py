# SPDX-License-Identifier: LGPL-2.1-or-later
"""Helpers of the policy tests (profiles, modes, the plan, calibration) on
top of idlepolicytest: a counter feeder that makes the fake tree show a
chosen workload, and small accessors."""

import json
import os
import re

import idlepolicytest as T


def bump_file(tree, rel, delta):
    """Adds delta to the counter in tree/rel in place (one pwrite, no
    truncation: counters only grow, so a concurrent reader never sees an
    empty file)."""
    path = os.path.join(tree, rel)
    with open(path, encoding='ascii') as f:
        value = int(f.read())
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, f'{value + delta}\n'.encode(), 0)
    finally:
        os.close(fd)


def bump_interrupts(tree, row, cpus, delta):
    """Adds delta to row ("RES:") of proc/interrupts for the CPU columns
    in cpus, in place: each number keeps its right-aligned column, so the
    file keeps its length (a concurrent reader never sees it torn)."""
    path = os.path.join(tree, 'proc/interrupts')
    with open(path, encoding='ascii') as f:
        lines = f.read().split('\n')
    for i, line in enumerate(lines):
        if line.split()[:1] != [row]:
            continue
        fields = list(re.finditer(r' +(\d+)', line[len(line) - len(line.lstrip()) + len(row):]))
        offset = len(line) - len(line.lstrip()) + len(row)
        for cpu in cpus:
            m = fields[cpu]
            width = m.end() - m.start()
            value = str(int(m.group(1)) + delta).rjust(width)
            assert len(value) == width, 'proc/interrupts column overflow'
            line = line[:offset + m.start()] + value + line[offset + m.end():]
        lines[i] = line
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, '\n'.join(lines).encode(), 0)
    finally:
        os.close(fd)


def bump_stat(tree, cpus, busy, idle, ctxt=0):
    """Adds busy jiffies to the user column and idle ones to the idle column
    of proc/stat for the CPUs in cpus (and to the sum line), and ctxt to the
    context switch count, in place: the numbers only grow, so the file only
    grows."""
    path = os.path.join(tree, 'proc/stat')
    with open(path, encoding='ascii') as f:
        lines = f.read().split('\n')
    for i, line in enumerate(lines):
        fields = line.split()
        if fields[:1] == ['ctxt'] and ctxt:
            lines[i] = f'ctxt {int(fields[1]) + ctxt}'
        if not fields or not fields[0].startswith('cpu'):
            continue
        n = len(cpus) if fields[0] == 'cpu' else 1 if fields[0][3:].isdigit() and int(fields[0][3:]) in cpus else 0
        if n:
            fields[1] = str(int(fields[1]) + n * busy)
            fields[4] = str(int(fields[4]) + n * idle)
            lines[i] = (fields[0] + ' ' if fields[0] == 'cpu' else fields[0]) + ' ' + ' '.join(fields[1:])
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, '\n'.join(lines).encode(), 0)
    finally:
        os.close(fd)


class Feeder(T.Periodic):
    """Context manager: every period seconds adds, on every CPU in cpus,
    states[k] = (usage, time_us, above, below) to state k's counters and
    other_irqs to the RES row of proc/interrupts, so the daemon sees that
    workload (and nothing else: make-faketree --tick does not run)."""

    what = 'feeding the counters'

    def __init__(self, test, cpus, states, other_irqs=0, period=0.03, stat=None):
        super().__init__(test, period)
        self.cpus, self.states = list(cpus), dict(states)
        self.other_irqs = other_irqs
        self.stat = stat            # (busy, idle) jiffies per step, or None; may be changed while feeding

    def step(self):
        for cpu in self.cpus:
            for k, counters in self.states.items():
                for name, delta in zip(('usage', 'time', 'above', 'below'), counters):
                    if delta:
                        bump_file(self.test.tree, T.state_file(cpu, k, name), delta)
        if self.other_irqs:
            bump_interrupts(self.test.tree, 'RES:', self.cpus, self.other_irqs)
        if self.stat:
            bump_stat(self.test.tree, self.cpus, *self.stat)


# Per step (30 ms) on a 3-state tree (POLL, C1 4/12 us, C2 16/48 us): C2's
# entries are short (20 us, below its 48 us residency) and 90% of them too
# deep; C1 and POLL are about right.  The model caps at C1.
TOO_DEEP_C2 = {0: (50, 100, 0, 2), 1: (100, 3000, 5, 5), 2: (100, 2000, 90, 0)}

# Per step on the KVM tree (POLL, "haltpoll idle"): 2000 wakeups by IPI,
# each ended by a short poll (5 us); a few long halts.  With a calibrated
# halt cost, polling in a short window is cheapest for balanced.
POLL_PAYS = {0: (2010, 12000, 0, 0), 1: (10, 80000, 0, 0)}
POLL_PAYS_IRQS = 2000
# Per step: 80 halts of 300 us each, every one ended by an interrupt (a
# poll window would miss a quarter of them; polling only catches all).
HALT_LONG = {0: (1, 5, 0, 0), 1: (80, 24000, 0, 0)}
HALT_LONG_IRQS = 80


def write_profile(test, name, **keys):
    """Writes an override profile NAME.json into the test's profiles.d."""
    with open(os.path.join(test.profiles_d, name + '.json'), 'w', encoding='utf-8') as f:
        json.dump(dict(name=name, **keys), f)


def knobs(test):
    """The daemon-writable knobs of the tree plus guest_halt_poll_ns."""
    k = T.knob_values(test.tree)
    hp = os.path.join(test.tree, T.HALTPOLL_DIR, 'guest_halt_poll_ns')
    if os.path.exists(hp):
        k[T.HALTPOLL_DIR + '/guest_halt_poll_ns'] = test.read(T.HALTPOLL_DIR + '/guest_halt_poll_ns')
    return k


def original_knobs(test):
    """knobs() as the tree was when the test started."""
    return {k: test.original[k].decode().strip() for k in knobs(test)}


def plan(test, cpu):
    """(Cap, Floor, CapReason, FloorReason) of cpu."""
    p = test.cpu_props(cpu)
    return int(p['Cap']), int(p['Floor']), str(p['CapReason']), str(p['FloorReason'])


def state_json(test):
    with open(os.path.join(test.state_dir, 'state.json'), encoding='utf-8') as f:
        return json.load(f)


class Signals:
    """Collects a signal (the Manager's PlanChanged, CalibrationFinished,
    PinReleased by default; another interface and path on request) on a
    connection of its own with a GLib main loop; wait() dispatches."""

    def __init__(self, test, member, interface=T.MANAGER_IFACE, path=T.ROOT_PATH):
        from dbus.mainloop.glib import DBusGMainLoop  # noqa: PLC0415 - only these tests need GLib
        from gi.repository import GLib  # noqa: PLC0415

        self.glib = GLib
        self.bus = T.dbus.bus.BusConnection(test.bus_address, mainloop=DBusGMainLoop())
        test.addCleanup(self.bus.close)
        self.received = []
        self.bus.add_signal_receiver(lambda *args: self.received.append(tuple(args)), signal_name=member,
                                     dbus_interface=interface, path=path)

    def wait(self, predicate=lambda received: received, timeout=10.0, what='the signal'):
        """Dispatches until predicate(received) is true; returns received."""
        ctx = self.glib.MainContext.default()

        def check():
            while ctx.pending():
                ctx.iteration(False)
            return predicate(self.received)
        T.wait_for(check, timeout=timeout, interval=0.02, what=what)
        return self.received
