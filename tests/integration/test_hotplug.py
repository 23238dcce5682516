#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""CPU hotplug in the tree while the daemon runs: make-faketree
--set-offline/--set-online do what this machine's kernel does (the cpuidle
and topology directories go, the CPU leaves "online", proc/stat and the
proc/interrupts columns)."""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402


class Hotplug(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    def go_offline(self):
        self.make_tree(self.tree, ['--set-offline', '1'])
        self.assertEqual(self.online_cpus(), [0, 2, 3])
        self.assertFalse(os.path.exists(os.path.join(self.tree, T.CPU_DIR, 'cpu1', 'cpuidle')))

    def go_online(self):
        self.make_tree(self.tree, ['--set-online', '1'])
        self.assertEqual(self.online_cpus(), [0, 1, 2, 3])

    def test_offline_then_online(self):
        self.go_offline()
        T.wait_for(lambda: str(self.manager_prop('OnlineCPUs')) == '0,2-3', timeout=5,
                   what='OnlineCPUs = 0,2-3')
        T.wait_for(lambda: not bool(self.cpu_prop(1, 'Online')), timeout=5, what='cpu1 Online=false')
        self.assert_daemon_alive()
        self.assertEqual(len(self.manager_prop('CPUs')), 4)
        self.assertTrue(bool(self.cpu_prop(0, 'Online')))
        before = T.snapshot_tree(self.tree)
        self.assert_dbus_error('CPUOffline', 'SetStateDisabled', T.dbus.UInt32(1), '0', True)
        self.assert_dbus_error('CPUOffline', 'SetResumeLatency', T.dbus.UInt32(1), T.dbus.UInt32(3))
        # "all" means the online ones now.
        self.call('SetResumeLatency', T.dbus.UInt32(T.ALL_CPUS), T.dbus.UInt32(3))
        now = T.snapshot_tree(self.tree)
        changed = sorted(k for k in now if now[k] != before.get(k))
        self.assertEqual(changed, sorted(T.latency_file(c) for c in (0, 2, 3)))
        self.call('Restore')
        self.assert_tree_unchanged(before)

        self.go_online()
        T.wait_for(lambda: bool(self.cpu_prop(1, 'Online')), timeout=5, what='cpu1 back online')
        self.assertEqual(str(self.manager_prop('OnlineCPUs')), '0-3')
        self.assertEqual([str(s[1]) for s in self.cpu_prop(1, 'States')], self.state_names(1))
        self.call('SetStateDisabled', T.dbus.UInt32(1), '0', True)
        self.assertEqual(self.read(T.state_file(1, 0, 'disable')), '1')
        with self.ticking():
            T.wait_for(lambda: sum(float(r[1]) for r in self.cpu_prop(1, 'Rates')) > 0, timeout=10,
                       what='Rates on the re-onlined cpu1')
        self.assertEqual(self.stop_daemon(), 0)
        self.assertEqual(self.read(T.state_file(1, 0, 'disable')), '0')

    def test_offline_with_changed_knob_then_sigterm(self):
        # cpu1's knob is changed, then cpu1 goes away: the daemon must not
        # crash, restores what it can and exits.
        self.call('SetResumeLatency', T.dbus.UInt32(T.ALL_CPUS), T.dbus.UInt32(8))
        self.go_offline()
        T.wait_for(lambda: not bool(self.cpu_prop(1, 'Online')), timeout=5, what='cpu1 Online=false')
        self.assert_daemon_alive()
        self.daemon.signal(signal.SIGTERM)
        self.daemon.wait(10)
        self.assertGreaterEqual(self.daemon.proc.returncode, 0, 'idlepolicyd crashed on exit')
        for c in (0, 2, 3):
            self.assertEqual(self.read(T.latency_file(c)), '0', f'cpu{c} latency not restored')

    def test_flapping_does_not_crash(self):
        for _ in range(5):
            self.go_offline()
            time.sleep(0.15)
            self.go_online()
            time.sleep(0.15)
        self.assert_daemon_alive()
        T.wait_for(lambda: str(self.manager_prop('OnlineCPUs')) == '0-3', timeout=5, what='OnlineCPUs = 0-3')
        T.wait_for(lambda: bool(self.cpu_prop(1, 'Online')), timeout=5, what='cpu1 online')


class ExternalGovernorSwitch(T.IdlePolicyTestCase):
    """Someone else switches the governor: the per-CPU directories are
    recreated (the daemon's open fds go stale) and counters are kept."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    def test_switch_under_the_daemon(self):
        self.tick_tree()
        self.make_tree(self.tree, ['--switch-governor', 'menu'])
        T.wait_for(lambda: str(self.manager_prop('Governor')) == 'menu', timeout=5, what='Governor = menu')
        self.tick_tree(2)
        for cpu in (0, 1):
            want = [int(self.read(T.state_file(cpu, k, 'usage'))) for k in T.state_dirs(self.tree, cpu)]
            T.wait_for(lambda cpu=cpu, want=want: [int(c[1]) for c in self.cpu_prop(cpu, 'Counters')] == want,
                       timeout=5, what=f'cpu{cpu} Counters from the recreated directories')
        # Changes go to the new files, and the original is what the switch left.
        self.call('SetStateDisabled', T.dbus.UInt32(0), '1', True)
        self.assertEqual(self.read(T.state_file(0, 1, 'disable')), '1')
        self.assertEqual(self.stop_daemon(), 0)
        self.assertEqual(self.read(T.state_file(0, 1, 'disable')), '0')
        self.assertEqual(self.read(T.GOVERNOR_FILE), 'menu')


if __name__ == '__main__':
    T.main()
