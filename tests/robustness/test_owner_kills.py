#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""SIGKILL at random points with pins and consolidation (the change
layer's crash loop): a fake tree with interrupts, a fake cgroup v2 tree
(a background for consolidation, a cgroup to pin), a mocked systemd with a
unit, two real sleeping processes; the daemon in enforce mode while a
client pins and unpins the processes, the cgroup and the unit, sets
consolidation levels 0-2, disables states and switches modes.  Each
round the daemon is SIGKILLed at a random moment, started again (it
replays the journal and takes its pins back) and stopped with SIGTERM:
then every idle knob, affinity, cpuset, interrupt and AllowedCPUs must be
as found, and no journal left.  --kills rounds (default 100), counts as
JSON on stdout ("OWNERKILLS {...}").

    IDLEPOLICYD=build/daemon/idlepolicyd IDLEPOLICYCTL=build/ctl/idlepolicyctl \\
    MAKE_FAKETREE=build/tests/make-faketree tests/robustness/test_owner_kills.py --kills 300 --seed 3
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'integration'))

import policytest as P  # noqa: E402
import robustnesstest as R  # noqa: E402
import systemdmock as SM  # noqa: E402

T = R.T
dbus = T.dbus

OPTS = argparse.Namespace(kills=100, seed=1)
UNIT = 'postgresql.service'
CGROUP_FILES = {'cgroup.controllers': 'cpuset cpu', 'cpuset.cpus.effective': '0-3',
                'background/cpuset.cpus': '2-3', 'background/cpuset.cpus.effective': '2-3',
                'pinned/cpuset.cpus': '', 'pinned/cpuset.cpus.effective': '0-3',
                'pinned/cgroup.events': 'populated 1\nfrozen 0', 'pinned/cgroup.procs': ''}
IRQS = {'0': '0-3', '24': '1-2'}


affinity = T.affinity


class Client(threading.Thread):
    """Changes on its own bus connection until the daemon goes away."""

    def __init__(self, address, pids, seed):
        super().__init__(daemon=True)
        self.bus = dbus.bus.BusConnection(address)
        self.rng = random.Random(seed)
        self.pids = pids
        self.counts = {'calls': 0, 'ok': 0}
        self.stop = False

    def call(self, method, sig, args):
        self.counts['calls'] += 1
        try:
            reply = self.bus.call_blocking(T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, method, sig, args, timeout=5)
            self.counts['ok'] += 1
            return reply
        except dbus.exceptions.DBusException as e:
            if e.get_dbus_name() in ('org.freedesktop.DBus.Error.NoReply', 'org.freedesktop.DBus.Error.ServiceUnknown',
                                     'org.freedesktop.DBus.Error.NameHasNoOwner'):
                self.stop = True
            return None

    def run(self):
        targets = [f'pid:{p}' for p in self.pids] + ['cgroup:pinned', f'unit:{UNIT}']
        while not self.stop:
            r = self.rng.random()
            if r < 0.35:
                self.call('Pin', 'sss', [self.rng.choice(targets), self.rng.choice(['0', '1', '0-1']),
                                         self.rng.choice(['latency', 'power-saver'])])
            elif r < 0.55:
                pins = None
                try:
                    props = self.bus.call_blocking(T.BUS_NAME, T.ROOT_PATH, T.PROPS_IFACE, 'Get', 'ss',
                                                   [T.MANAGER_IFACE, 'Pins'], timeout=5)
                    pins = list(props)
                except dbus.exceptions.DBusException:
                    self.stop = True
                if pins:
                    self.call('Unpin', 'o', [self.rng.choice(pins)])
            elif r < 0.75:
                self.call('SetConsolidation', 'u', [self.rng.choice([0, 1, 2])])
            elif r < 0.9:
                self.call('SetStateDisabled', 'usb', [self.rng.choice([0, 1, T.ALL_CPUS]), '1', self.rng.random() < 0.7])
            else:
                self.call('SetMode', 's', [self.rng.choice(['enforce', 'observe'])])


class OwnerKills(R.RobustTestCase):
    AFFINITY_CPUS = {0, 1}
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        self.cgroup_root = os.path.join(self.tmp, 'cgroup')
        for rel, value in CGROUP_FILES.items():
            os.makedirs(os.path.dirname(os.path.join(self.cgroup_root, rel)), exist_ok=True)
            with open(os.path.join(self.cgroup_root, rel), 'w', encoding='ascii') as f:
                f.write(value + '\n')
        for irq, value in IRQS.items():
            os.makedirs(os.path.join(self.tree, f'proc/irq/{irq}'))
            T.write(self.tree, f'proc/irq/{irq}/smp_affinity_list', value)
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({'consolidation_background': ['cgroup:/background', UNIT]}, f)
        self.systemd = SM.Systemd(self)
        self.systemd.add_unit(UNIT, [0, 1, 2, 3])
        self.set_allowed(list(T.ACTIONS.values()) + [T.BUS_NAME + '.pin'])
        self.sleepers = [subprocess.Popen(['sleep', '3600'], preexec_fn=T._die_with_parent) for _ in range(2)]
        for p in self.sleepers:
            self.addCleanup(p.wait)
            self.addCleanup(p.kill)

    def argv(self):
        return self.daemon_argv(['--cgroup-root', self.cgroup_root, '--config', self.config], mode='enforce')

    def wrong(self):
        """What is not as found: [description]."""
        out = [f'{k}={v}' for k, v in sorted(T.knob_values(self.tree).items()) if self.original_knobs[k] != v]
        for p in self.sleepers:
            if affinity(p.pid) != [0, 1]:
                out.append(f'pid {p.pid} affinity {affinity(p.pid)}')
        for rel, value in CGROUP_FILES.items():
            if rel.endswith('cpuset.cpus'):
                with open(os.path.join(self.cgroup_root, rel), encoding='ascii') as f:
                    now = f.read().strip()
                if now != value:
                    out.append(f'{rel}={now}')
        for irq, value in IRQS.items():
            now = self.read(f'proc/irq/{irq}/smp_affinity_list').strip()
            if now != value:
                out.append(f'irq {irq}={now}')
        calls = self.systemd.calls()
        if calls and calls[-1] != (UNIT, [0, 1, 2, 3]):
            out.append(f'{UNIT} AllowedCPUs {calls[-1][1]}')
        if self.journal_entries() is not None:
            out.append(f'journal left: {sorted(self.journal_entries())}')
        return out

    def test_sigkill_loop_with_pins_and_consolidation(self):
        rng = random.Random(OPTS.seed)
        counts = {'kills': 0, 'wrong_after_stop': 0, 'calls': 0, 'ok': 0, 'problems': []}
        start = time.monotonic()
        with P.Feeder(self, T.tree_present_cpus(self.tree), {}, stat=(1, 9)):
            for i in range(OPTS.kills):
                self.start_daemon(argv=self.argv())
                client = Client(self.bus_address, [p.pid for p in self.sleepers], OPTS.seed * 1000 + i)
                client.start()
                time.sleep(rng.uniform(0, 0.3))
                if not self.daemon.alive():
                    counts['problems'].append(f'round {i}: died by itself ({self.daemon.proc.returncode})')
                    break
                self.daemon.signal(signal.SIGKILL)
                self.daemon.wait(10)
                counts['kills'] += 1
                client.stop = True
                client.join(10)
                counts['calls'] += client.counts['calls']
                counts['ok'] += client.counts['ok']
                T.wait_for(lambda: not self.bus.name_has_owner(T.BUS_NAME), what='the bus name to go away')
                self.start_daemon(argv=self.argv())
                rc = self.stop_daemon(signal.SIGTERM)
                wrong = self.wrong()
                if rc != 0 or wrong:
                    counts['wrong_after_stop'] += 1
                    counts['problems'].append(f'round {i}: exit {rc}: ' + ', '.join(wrong))
        counts['seconds'] = round(time.monotonic() - start, 1)
        counts['problems'] = counts['problems'][:20]
        print('OWNERKILLS ' + json.dumps(counts, sort_keys=True), flush=True)
        self.assertEqual(counts['problems'], [])
        self.assertEqual(counts['kills'], OPTS.kills)
        self.assertGreater(counts['ok'], 0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--kills', type=int, default=OPTS.kills)
    p.add_argument('--seed', type=int, default=OPTS.seed)
    args, rest = p.parse_known_args()
    OPTS.kills, OPTS.seed = args.kills, args.seed
    import unittest
    prog = unittest.main(argv=[sys.argv[0], '-v'] + rest, exit=False)
    return R.exit_status(prog.result)


if __name__ == '__main__':
    sys.exit(main())
