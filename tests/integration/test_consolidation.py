#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Consolidation (issue 15) with the real daemon on a fake tree: the level
over busctl and idlepolicyctl, bad levels refused, a background cgroup (a
fake cgroup v2 tree) confined to the set and put back exactly after SIGTERM
and after SIGKILL, interrupts steered at level 2 and put back (refused
ones skipped, ones someone else rewrote left to them), a pinned CPU never
in the set, and consolidation turning itself off above the machine
utilisation threshold.  Utilisation is driven through the tree's
proc/stat."""

import json
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import consoltest as C  # noqa: E402
import policytest as P  # noqa: E402
import idlepolicytest as T  # noqa: E402

ORIGINAL = '2-3'            # the background's cpuset.cpus before: not "all CPUs"
IRQS = {'0': '0-3', '1': '0-3', '24': '1-2', '9': '0-3'}   # 9 refuses (immutable)


class Consolidation(C.ConsolidationMixin, T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    def daemon_start_argv(self):
        self.cgroup_root = os.path.join(self.tmp, 'cgroup')
        os.makedirs(os.path.join(self.cgroup_root, 'background'))
        os.makedirs(os.path.join(self.cgroup_root, 'pinned'))
        for rel, value in (('cgroup.controllers', 'cpuset cpu'),
                           ('cpuset.cpus.effective', '0-3'),
                           ('background/cpuset.cpus', ORIGINAL),
                           ('background/cpuset.cpus.effective', ORIGINAL),
                           ('pinned/cpuset.cpus', ''),
                           ('pinned/cpuset.cpus.effective', '0-3'),
                           ('pinned/cgroup.events', 'populated 1\nfrozen 0'),
                           ('pinned/cgroup.procs', '')):
            with open(os.path.join(self.cgroup_root, rel), 'w', encoding='ascii') as f:
                f.write(value + '\n')
        for irq, value in IRQS.items():
            os.makedirs(os.path.join(self.tree, f'proc/irq/{irq}'))
            T.write(self.tree, f'proc/irq/{irq}/smp_affinity_list', value)
        self.make_immutable('proc/irq/9/smp_affinity_list')
        self.write_config(['cgroup:/background', 'system.slice'])
        return self.argv()

    def argv(self, mode='enforce'):
        return self.daemon_argv(['--cgroup-root', self.cgroup_root, '--config', self.config], mode=mode)

    def cpuset(self, cg='background'):
        with open(os.path.join(self.cgroup_root, cg, 'cpuset.cpus'), encoding='ascii') as f:
            return f.read().strip()

    def irq(self, n):
        return self.read(f'proc/irq/{n}/smp_affinity_list').strip()

    def test_level_over_busctl_and_ctl(self):
        self.assertEqual(self.level(), 0)                       # balanced's
        self.assertEqual(self.status()['source'], 'profile balanced')
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'SetConsolidation', 'u', '1')
        self.assertEqual(self.level(), 1)
        self.assertEqual(self.status()['source'], 'SetConsolidation')
        r = self.ctl('consolidate', '2')
        self.assertIn('level 2 (was 1)', r.stdout)
        self.assertEqual(self.level(), 2)
        out = json.loads(self.ctl('--json', 'consolidate').stdout)
        self.assertEqual(out['level'], 2)
        self.assertEqual([b['name'] for b in out['background']], ['cgroup:/background', 'system.slice'])
        status = json.loads(self.ctl('--json', 'status').stdout)
        self.assertEqual(status['consolidation']['level'], 2)
        # persisted while set by hand
        with open(os.path.join(self.state_dir, 'state.json'), encoding='utf-8') as f:
            self.assertEqual(json.load(f)['consolidation'], 2)

    def test_bad_levels_change_nothing(self):
        self.call('SetConsolidation', T.dbus.UInt32(1))
        for bad in ('3', '4294967295'):
            r = self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'SetConsolidation', 'u', bad,
                            check=False)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn('level', r.stderr)
        self.assert_dbus_error('InvalidLevel', 'SetConsolidation', T.dbus.UInt32(7))
        for bad in ('3', '-1', 'x', '12'):
            r = self.ctl('consolidate', bad, check=False)
            self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(self.level(), 1)
        self.assert_daemon_alive()

    def test_profile_default_and_override_rule(self):
        self.call('SetProfile', 'power-saver')
        self.assertEqual(self.level(), 1)                       # power-saver's default
        self.call('SetConsolidation', T.dbus.UInt32(0))
        self.assertEqual(self.level(), 0)                       # the explicit level wins ...
        self.stop_daemon()
        self.start_daemon(argv=self.argv())
        self.assertEqual(self.level(), 0)                       # ... across a restart ...
        self.call('SetProfile', 'balanced')
        self.assertEqual(self.level(), 0)
        self.call('SetProfile', 'power-saver')
        self.assertEqual(self.level(), 1)                       # ... until the profile changes
        self.assertEqual(self.status()['source'], 'profile power-saver')

    def test_cgroup_confined_and_restored_exactly(self):
        with self.busy(1):                                      # 10%: 0.4 CPUs of background
            self.call('SetConsolidation', T.dbus.UInt32(1))
            T.wait_for(lambda: self.cpuset() == '0', what='the background on CPU 0')
            s = self.status()
            self.assertTrue(s['active'])
            self.assertEqual((s['set'], s['freed']), ('0', '1-3'))
            self.assertIn('1 CPU(s)', s['reason'])
            self.assertEqual(s['targets']['cgroup:/background'], 'confined to 0')
            self.assertIn('no systemd on the bus', s['targets']['system.slice'])
            self.assertEqual(T.wait_for(lambda: self.journal_entries(), what='the journal')
                             .get('cgroup:' + self.cgroup_root + '/background/cpuset.cpus'), ORIGINAL)
            # the freed CPUs at the deepest state
            T.wait_for(lambda: str(self.cpu_prop(2, 'FloorReason')) == 'consolidation', what='CPU 2 freed')
            self.assertIn('consolidation: freed', str(self.cpu_prop(2, 'Reason')))
            text = self.ctl('status').stdout
            self.assertIn('background on CPUs 0, freed 1-3', text)
            metrics = self.ctl('metrics').stdout
            self.assertIn('idlepolicy_consolidation_level 1', metrics)
            self.assertIn('idlepolicy_consolidation_set_cpus 1', metrics)
            self.assertIn('idlepolicy_cpu_consolidation_in_set{cpu="0"} 1', metrics)
            self.assertIn('idlepolicy_cpu_consolidation_in_set{cpu="2"} 0', metrics)
            self.assertRegex(metrics, r'idlepolicy_consolidation_background_cpus 0\.(39|40)')
        self.assertEqual(self.stop_daemon(), 0)
        self.assertEqual(self.cpuset(), ORIGINAL)               # exactly, not "all CPUs"

    def test_sigkill_then_restart_restores(self):
        with self.busy(1):
            self.call('SetConsolidation', T.dbus.UInt32(1))
            T.wait_for(lambda: self.cpuset() == '0', what='the background on CPU 0')
        self.stop_daemon(signal.SIGKILL)
        self.assertEqual(self.cpuset(), '0')
        self.start_daemon(argv=self.argv(mode='observe'))      # replays; observe confines nothing
        self.assertEqual(self.cpuset(), ORIGINAL)
        self.assertEqual(self.level(), 1)                       # persisted

    def test_irqs_at_level_2(self):
        with self.busy(1):
            self.call('SetConsolidation', T.dbus.UInt32(2))
            T.wait_for(lambda: all(self.irq(n) == '0' for n in ('0', '1', '24')), what='IRQs steered to CPU 0')
            T.wait_for(lambda: self.status()['irqs'] == (3, 1, 0), what='3 steered, 1 refused')
            self.assertEqual(self.irq('9'), IRQS['9'])
            # irqbalance rewrites one: the daemon leaves it alone
            T.write(self.tree, 'proc/irq/24/smp_affinity_list', '3')
            T.wait_for(lambda: self.status()['irqs'] == (2, 1, 1), what='IRQ 24 backed off')
            self.assertIn('IRQs: 2 steered, 1 refused by the kernel, 1 left to someone else',
                          self.ctl('consolidate').stdout)
            # back to level 1: the IRQs come back, the cgroup stays confined
            self.call('SetConsolidation', T.dbus.UInt32(1))
            T.wait_for(lambda: self.irq('0') == '0-3', what='IRQ 0 back')
            self.assertEqual(self.cpuset(), '0')
            self.call('SetConsolidation', T.dbus.UInt32(2))
            T.wait_for(lambda: self.irq('0') == '0', what='IRQ 0 steered again')
        self.assertEqual(self.stop_daemon(), 0)
        for n in ('0', '1', '9'):
            self.assertEqual(self.irq(n), IRQS[n], f'IRQ {n}')
        self.assertEqual(self.irq('24'), '3')                   # someone else's now
        self.assertEqual(self.cpuset(), ORIGINAL)

    def test_pinned_cpu_never_in_set(self):
        self.call('Pin', 'cgroup:pinned', '0', 'latency')
        with self.busy(1):
            self.call('SetConsolidation', T.dbus.UInt32(1))
            T.wait_for(lambda: self.cpuset() == '1', what='the background on CPU 1, not the pinned 0')
            s = self.status()
            self.assertEqual((s['set'], s['freed']), ('1', '2-3'))
        self.assertEqual(self.stop_daemon(), 0)
        self.assertEqual(self.cpuset(), ORIGINAL)

    def test_off_above_the_machine_threshold(self):
        with self.busy(1) as feeder:
            self.call('SetConsolidation', T.dbus.UInt32(1))
            T.wait_for(lambda: self.cpuset() == '0', what='consolidated at 10%')
            feeder.stat = (8, 2)                                # 80%: above 50%
            T.wait_for(lambda: not self.status()['active'], what='consolidation off at 80%')
            self.assertIn('off: the machine is', self.status()['reason'])
            self.assertEqual(self.cpuset(), ORIGINAL)
            T.wait_for(lambda: str(self.cpu_prop(2, 'FloorReason')) != 'consolidation', what='CPU 2 no longer freed')
            feeder.stat = (1, 9)
            T.wait_for(lambda: self.status()['active'] and self.cpuset() == '0', what='back on at 10%')

    def test_utilisation_from_the_idle_residency(self):
        """proc/stat's jiffies are sampled at the tick and alias a load that
        wakes with its period: where the CPUs enter idle often enough, the
        residency counters measure the background.  Here proc/stat says 90%
        busy and the residency (29 ms idle of every 30 ms step, 10 entries)
        says a few percent: consolidation follows the residency."""
        cpus = T.tree_present_cpus(self.tree)
        with P.Feeder(self, cpus, {1: (10, 29000, 0, 0)}, stat=(9, 1)):
            self.call('SetConsolidation', T.dbus.UInt32(1))
            T.wait_for(lambda: self.cpuset() == '0', what='consolidated by the residency\'s few percent')
            st = self.status()
            self.assertTrue(st['active'], st)
            self.assertLess(st['machine'], 0.5, st)

    def test_observe_confines_nothing(self):
        self.call('SetMode', 'observe')
        with self.busy(1):
            self.call('SetConsolidation', T.dbus.UInt32(1))
            T.wait_for(lambda: self.status()['active'], what='the set decided')
            self.assertEqual(self.cpuset(), ORIGINAL)
            self.assertEqual(self.status()['targets']['cgroup:/background'], 'not confined')


if __name__ == '__main__':
    T.main()
