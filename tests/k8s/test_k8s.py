#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The k8s suite: pods on a real containerd (k8stest.py: built with go
install, NRI on, the machine's real v1 cgroups) with the NRI plugin
(nri/) pinning their containers through the real idlepolicyd on a private
bus (idle knobs on a fake tree, cgroups real: --cgroup-root
/sys/fs/cgroup).  Each test asserts what a user sees: the container's
cpuset and affinity, its CPUs' ProfileSource, status and metrics, the pins
and the plugin's log.  Holds /run/idlepolicy-knobs.lock for the whole run;
skips (77) when containerd cannot be built or run, or without 2 CPUs."""

import json
import os
import signal
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'integration'))

import k8stest as K  # noqa: E402
import idlepolicytest as T  # noqa: E402
from test_pins import affinity  # noqa: E402  (the CPUs a process may run on, a list)

PIN_IFACE = T.BUS_NAME + '.Pin'
_LOCK = None


class K8sTestCase(T.IdlePolicyTestCase):
    """containerd for the class; bus, daemon and plugin per test."""
    AFFINITY_CPUS = {0, 1}
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    @classmethod
    def setUpClass(cls):
        global _LOCK
        super().setUpClass()
        if not os.path.isdir(os.path.join(K.CGROUP_ROOT, 'cpuset')):
            raise unittest.SkipTest('no cgroup v1 cpuset hierarchy at /sys/fs/cgroup/cpuset')
        cls.plugin_exe = T.program('NRI_PLUGIN')
        _LOCK = _LOCK or K.knobs_lock()
        bindir = K.binaries()
        images = K.build_images(os.path.join(K.CACHE, 'images'))
        cls.containerd = K.Containerd(bindir, images)

    @classmethod
    def tearDownClass(cls):
        left = cls.containerd.stop()
        super().tearDownClass()
        if left:
            raise AssertionError(f'cgroups left behind: {left}')

    def setUp(self):
        super().setUp()
        self.start_daemon(extra=['--cgroup-root', K.CGROUP_ROOT])
        self.plugin = None
        self.plugin_runs = 0
        self.start_plugin()
        self.addCleanup(self.remove_all_pods)

    def remove_all_pods(self):
        self.containerd.crictl('rmp', '-fa', check=False, timeout=120)

    # -- the plugin --

    def start_plugin(self):
        self.plugin_runs += 1
        self.plugin_log = os.path.join(self.tmp, f'nri-plugin-{self.plugin_runs}.log')
        self.plugin = T.Process([self.plugin_exe, '-socket', self.containerd.nri_socket, '-v'],
                                self.plugin_log, self.env())
        self.addCleanup(self._stop_daemon_and_dump, self.plugin)
        T.wait_for(lambda: 'connected' in self.plugin.output() or not self.plugin.alive(), timeout=15,
                   what='the plugin to register with containerd')
        self.assertTrue(self.plugin.alive(), self.plugin.output())
        T.wait_for(lambda: 'reconciled' in self.plugin.output(), timeout=15,
                   what='the plugin\'s first reconciliation')

    # -- what a user sees --

    def pins(self):
        """{target: properties} of every pin."""
        out = {}
        for path in self.manager_prop('Pins'):
            props = T.dbus.Interface(self.obj(path), T.PROPS_IFACE).GetAll(PIN_IFACE)
            out[str(props['Target'])] = {k: str(v) if isinstance(v, T.dbus.String) else v for k, v in props.items()}
            out[str(props['Target'])]['path'] = str(path)
        return out

    def target(self, cid):
        return 'cgroup:' + self.containerd.cgroups_path(cid).strip('/')

    def cpuset_dir(self, cid):
        return os.path.join(K.CGROUP_ROOT, 'cpuset', self.containerd.cgroups_path(cid).strip('/'))

    def cpuset(self, cid):
        with open(os.path.join(self.cpuset_dir(cid), 'cpuset.cpus'), encoding='ascii') as f:
            return f.read().strip()

    def status_cpu(self, cpu):
        doc = json.loads(self.ctl('status', '--json').stdout)
        return [c for c in doc['cpus'] if c['index'] == cpu][0]

    def metric_lines(self, name):
        text = self.ctl('metrics').stdout
        return [line for line in text.splitlines() if line.startswith(name + '{')]

    def wait_pinned(self, cid, profile):
        target = self.target(cid)
        T.wait_for(lambda: self.pins().get(target, {}).get('Profile') == profile, timeout=10,
                   what=f'{target} pinned with {profile}')
        return self.pins()[target]

    def run_pod(self, name, annotations, **kw):
        pod_id, ids, _ = self.containerd.run_pod(name, annotations, **kw)
        return pod_id, ids


class Pods(K8sTestCase):

    def test_annotated_pod_pinned_then_released(self):
        pod, ids = self.run_pod('web', {'idlepolicy.io/profile': 'latency'}, containers=[('app', '1')])
        cid = ids['app']
        pin = self.wait_pinned(cid, 'latency')
        target = self.target(cid)
        self.assertEqual(pin['Reason'], 'k8s default/web/app')
        self.assertEqual(pin['CPUs'], '1')            # the container's own cpuset, as the runtime gave it
        self.assertEqual(affinity(self.containerd.container_pid(cid)), [1])
        # CPU 1 runs latency for the pin, CPU 0 the machine's profile
        self.assertEqual(str(self.cpu_prop(1, 'Profile')), 'latency')
        self.assertIn(f'{pin["path"]} {target}', str(self.cpu_prop(1, 'ProfileSource')))
        self.assertEqual(str(self.cpu_prop(0, 'ProfileSource')), 'machine')
        self.assertEqual(self.status_cpu(1)['profile'], 'latency')
        self.assertTrue(any('cpu="1"' in line and 'profile="latency"' in line and 'source="pin"' in line
                            for line in self.metric_lines('idlepolicy_cpu_profile_info')),
                        self.metric_lines('idlepolicy_cpu_profile_info'))
        self.assertIn(target, self.ctl('pins').stdout)
        # the pod deleted: the pin ends at StopContainer, CPU 1 back to the machine's
        self.containerd.remove_pod(pod)
        T.wait_for(lambda: self.pins() == {}, timeout=10, what='the pin to end with the pod')
        self.assertEqual(str(self.cpu_prop(1, 'ProfileSource')), 'machine')
        self.assertIn('msg=unpinned', self.plugin.output())

    def test_cpus_annotation_sets_the_container_cpuset(self):
        pod, ids = self.run_pod('batch', {'idlepolicy.io/profile': 'power-saver', 'idlepolicy.io/cpus': '1'},
                                containers=[('app', '0-1')])
        cid = ids['app']
        pid = self.containerd.container_pid(cid)
        pin = self.wait_pinned(cid, 'power-saver')
        self.assertEqual(pin['CPUs'], '1')
        self.assertEqual(self.cpuset(cid), '1')
        self.assertEqual(affinity(pid), [1])
        self.call('Unpin', T.dbus.ObjectPath(pin['path']))    # an admin ends it: the cpuset comes back
        self.assertEqual(self.cpuset(cid), '0-1')
        self.assertEqual(affinity(pid), [0, 1])
        self.containerd.remove_pod(pod)

    def test_per_container_profiles(self):
        pod, ids = self.run_pod('mixed', {'idlepolicy.io/profile': 'latency',
                                          'idlepolicy.io/profile.container.batch': 'power-saver',
                                          'idlepolicy.io/profile.container.side': 'none'},
                                containers=[('app', '1'), ('batch', '0'), ('side', '0-1')])
        self.wait_pinned(ids['app'], 'latency')
        self.wait_pinned(ids['batch'], 'power-saver')
        self.assertNotIn(self.target(ids['side']), self.pins())
        self.assertEqual(len(self.pins()), 2)
        self.containerd.remove_pod(pod)
        T.wait_for(lambda: self.pins() == {}, timeout=10, what='the pins to end with the pod')

    def test_crio_annotation(self):
        """Each form; max_latency:N is balanced with a latency limit of
        exactly N (no profile file for it): the container's CPU runs it."""
        for value, profile in (('disable', 'latency'), ('enable', 'balanced'), ('max_latency:0', 'balanced'),
                               ('max_latency:20', 'balanced:latency_limit_us=20'),
                               ('max_latency:5', 'balanced:latency_limit_us=5')):
            pod, ids = self.run_pod('crio', {'cpu-c-states.crio.io': value}, containers=[('app', '1')])
            self.wait_pinned(ids['app'], profile)
            T.wait_for(lambda p=profile: str(self.cpu_prop(1, 'Profile')) == p, what=f'CPU 1 under {profile}')
            self.containerd.remove_pod(pod)
            T.wait_for(lambda: self.pins() == {}, timeout=10, what='the pin to end')

    def test_bad_annotations_start_the_container(self):
        bad = [{'idlepolicy.io/profile': 'no-such-profile'}, {'idlepolicy.io/profile': 'latency', 'idlepolicy.io/cpus': 'x'},
               {'cpu-c-states.crio.io': 'sometimes'}, {'idlepolicy.io/profile': 'latency', 'idlepolicy.io/cpus': '7'}]
        pods = []
        for i, anns in enumerate(bad):
            pod, ids = self.run_pod(f'bad{i}', anns, containers=[('app', '1')])
            pods.append(pod)
            state = json.loads(self.containerd.crictl('inspect', ids['app']))['status']['state']
            self.assertEqual(state, 'CONTAINER_RUNNING', anns)
        self.assertEqual(self.pins(), {})
        log = self.plugin.output()
        for needle in ('no-such-profile', 'idlepolicy.io/cpus', 'cpu-c-states.crio.io', 'CPU 7'):
            self.assertIn(needle, log)
        self.assertEqual(log.count('container starts without a pin') + log.count('container not pinned'), 4, log)
        # the daemon's status shows each under its container
        reports = {r['source']: r['message'] for r in json.loads(self.ctl('status', '--json').stdout)['reports']}
        self.assertEqual(set(reports), {f'k8s default/bad{i}/app' for i in range(4)}, reports)
        self.assertIn('no-such-profile', reports['k8s default/bad0/app'])
        self.assertIn('CPU 7', reports['k8s default/bad3/app'])
        status = self.ctl('status').stdout
        self.assertIn('Reports:     k8s default/bad0/app: bad annotation idlepolicy.io/profile="no-such-profile"',
                      status)
        self.assertIn('k8s default/bad2/app: bad annotation cpu-c-states.crio.io="sometimes"', status)
        self.assert_daemon_alive()
        for pod in pods:
            self.containerd.remove_pod(pod)
        # the pods gone, their reports go with them
        self.assertEqual(list(self.manager_prop('Reports')), [])


class Failures(K8sTestCase):

    def test_plugin_sigkill_then_restart_reconciles(self):
        pod1, ids1 = self.run_pod('before', {'idlepolicy.io/profile': 'latency'}, containers=[('app', '1')])
        self.wait_pinned(ids1['app'], 'latency')
        # a pin of the plugin's whose container is gone (its cgroup lives on)
        ghost = K.TestCgroup(self.containerd, 'ghost')
        self.addCleanup(ghost.remove)
        ghost_path = str(self.call('PinWithOptions', f'cgroup:{ghost.rel}', '', 'latency',
                                   T.dbus.Dictionary({'reason': 'k8s default/gone/app'}, signature='sv')))
        self.plugin.signal(signal.SIGKILL)
        self.plugin.wait()
        # without the plugin: a new pod runs unpinned
        pod2, ids2 = self.run_pod('during', {'idlepolicy.io/profile': 'power-saver'}, containers=[('app', '0')])
        self.assertNotIn(self.target(ids2['app']), self.pins())
        self.start_plugin()
        self.wait_pinned(ids2['app'], 'power-saver')
        pins = self.pins()
        self.assertNotIn(f'cgroup:{ghost.rel}', pins, f'{ghost_path} survived the reconciliation')
        self.assertEqual(set(pins), {self.target(ids1['app']), self.target(ids2['app'])})
        self.assertIn('adopted=1 unpinned=1 pinned=1', self.plugin.output())
        # the adopted pin is the plugin's again: it ends with its pod
        adopted = self.target(ids1['app'])
        self.containerd.remove_pod(pod1)
        T.wait_for(lambda: adopted not in self.pins(), timeout=10, what='the adopted pin to end')
        self.containerd.remove_pod(pod2)
        T.wait_for(lambda: self.pins() == {}, timeout=10, what='the pins to end')

    def test_daemon_sigkill_then_restart_pins_back(self):
        pod, ids = self.run_pod('kept', {'idlepolicy.io/profile': 'power-saver', 'idlepolicy.io/cpus': '1'},
                                containers=[('app', '0-1')])
        cid = ids['app']
        before = self.wait_pinned(cid, 'power-saver')
        self.stop_daemon(signal.SIGKILL)
        self.assertEqual(self.cpuset(cid), '1')
        self.start_daemon(extra=['--cgroup-root', K.CGROUP_ROOT])
        pin = self.wait_pinned(cid, 'power-saver')   # pins.json: the pin is back
        self.assertEqual(pin['path'], before['path'])  # the same object: the plugin's path still names it
        self.assertEqual(self.cpuset(cid), '1')
        self.assertEqual(str(self.cpu_prop(1, 'Profile')), 'power-saver')
        # the plugin knows it by its old path: the stop ends it through the
        # daemon's new object (same id, pins.json keeps ids)
        self.containerd.remove_pod(pod)
        T.wait_for(lambda: self.pins() == {}, timeout=10, what=f'{pin["path"]} to end with its pod')

    def test_churn_100_pods(self):
        """100 pods running at once, the plugin SIGKILLed and restarted
        among them (its Synchronize adopts the 100 pins), then all deleted:
        no pin, no knob, no error left."""
        n = int(os.environ.get('K8S_CHURN_PODS', '100'))
        pods = []
        for i in range(n):
            anns = {'idlepolicy.io/profile': 'latency' if i % 2 else 'power-saver'}
            if i % 4 < 2:
                anns['idlepolicy.io/cpus'] = str(i % 2)
            pods.append(self.run_pod(f'churn{i}', anns, containers=[('app', '0-1')])[0])
        T.wait_for(lambda: len(self.pins()) == n, timeout=30, what=f'{n} pins')
        self.plugin.signal(signal.SIGKILL)
        self.plugin.wait()
        self.start_plugin()
        self.assertIn(f'adopted={n} unpinned=0 pinned=0', self.plugin.output())
        for pod in pods:
            self.containerd.remove_pod(pod)
        T.wait_for(lambda: self.pins() == {}, timeout=30, what='every churned pin to end')
        self.assertEqual(list(self.manager_prop('Changed')), [])
        log = self.plugin.output()
        self.assertEqual(log.count('msg=unpinned'), n)
        self.assertNotIn('level=ERROR', log)
        self.assert_daemon_alive()

if __name__ == '__main__':
    T.main()
