#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The machine-wide CPU latency request in view and the exit latency limit
per CPU, on the real daemon with a fake tree:

- dev/cpu_dma_latency's request and the processes holding it (proc/PID/fd)
  as the Manager's LatencyRequest* properties (signalled), in
  `idlepolicyctl status` and `--json`, and in the metrics; a holder that
  exits, a request that ends, a device that cannot be read;
- SetLatencyLimit (`idlepolicyctl latency-limit`): every state above the
  limit disabled, the others enabled, on the CPUs asked only, journaled,
  put back by Restore() and after a SIGKILL, refused with named errors."""

import json
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

U = T.dbus.UInt32
NONE = 2000000000
DEVICE = 'dev/cpu_dma_latency'


class LatencyRequest(T.IdlePolicyTestCase):

    def faketree(self, *args):
        r = T.subprocess.run([self.faketree_exe, self.tree] + [str(a) for a in args],
                             capture_output=True, text=True, check=False)
        self.assertEqual(r.returncode, 0, f'make-faketree {args}: {r.stderr}')

    def holders(self):
        return [(int(p), str(c)) for p, c in self.manager_prop('LatencyRequestHolders')]

    def wait_request(self, usec, holders):
        T.wait_for(lambda: self.manager_prop('LatencyRequestUSec') == usec and self.holders() == holders,
                   what=f'LatencyRequestUSec {usec} held by {holders} (now {self.manager_prop("LatencyRequestUSec")}, '
                        f'{self.holders()})')

    def metrics(self):
        return self.ctl('metrics', 'prometheus').stdout

    def test_no_request(self):
        self.wait_request(NONE, [])
        self.assertEqual(self.manager_prop('LatencyRequestError'), '')
        self.assertEqual(self.manager_prop('LatencyRequestHidden'), 0)
        self.assertIn('Latency QoS: no request (/dev/cpu_dma_latency)', self.ctl('status').stdout)
        got = json.loads(self.ctl('status', '--json').stdout)['latency_request']
        self.assertEqual(got, {'usec': NONE, 'in_force': False, 'error': '', 'holders': [], 'hidden': 0})
        text = self.metrics()
        self.assertRegex(text, r'\nidlepolicy_latency_request_seconds 2000(\.0+)?\n')
        self.assertIn('\nidlepolicy_latency_request_holders 0\n', text)
        self.assertNotIn('idlepolicy_latency_request_holder_info{', text)

    def test_request_and_holders_in_view(self):
        self.wait_request(NONE, [])
        signals = P.Signals(self, 'PropertiesChanged', interface=T.PROPS_IFACE)
        self.faketree('--latency-hold', '4242:cyclictest')
        self.faketree('--latency-hold', '77:tuned')
        self.faketree('--latency-request', 20)
        self.wait_request(20, [(77, 'tuned'), (4242, 'cyclictest')])

        def signalled(received):
            values = {str(k): v for args in received if args[0] == T.MANAGER_IFACE for k, v in args[1].items()}
            return values.get('LatencyRequestUSec') == 20 and len(values.get('LatencyRequestHolders', [])) == 2
        signals.wait(signalled, what='LatencyRequestUSec 20 and LatencyRequestHolders signalled')
        # anyone may read it
        r = self.busctl('get-property', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'LatencyRequestHolders',
                        user=T.NOBODY)
        self.assertEqual(r.stdout.strip(), 'a(us) 2 77 "tuned" 4242 "cyclictest"')
        status = self.ctl('status').stdout
        self.assertIn('Latency QoS: 20 us requested by 77 (tuned), 4242 (cyclictest)\n', status)
        self.assertIn('no CPU enters an idle state with an exit latency above 20 us', status)
        got = json.loads(self.ctl('status', '--json').stdout)['latency_request']
        self.assertEqual(got, {'usec': 20, 'in_force': True, 'error': '', 'hidden': 0,
                               'holders': [{'pid': 77, 'comm': 'tuned'}, {'pid': 4242, 'comm': 'cyclictest'}]})
        text = self.metrics()
        self.assertRegex(text, r'\nidlepolicy_latency_request_seconds 0\.00002\n')
        self.assertIn('\nidlepolicy_latency_request_holders 2\n', text)
        self.assertIn('\nidlepolicy_latency_request_holder_info{pid="4242",comm="cyclictest"} 1\n', text)
        # one holder exits, the other keeps the same request: seen at once
        self.faketree('--latency-release', 4242)
        self.wait_request(20, [(77, 'tuned')])
        # the request ends: no holder listed, nothing scanned
        self.faketree('--latency-request', NONE)
        self.wait_request(NONE, [])
        self.assertIn('Latency QoS: no request', self.ctl('status').stdout)
        log = self.daemon.output()
        self.assertIn('A process requests a CPU latency of at most 20 us (/dev/cpu_dma_latency, held by 77 (tuned), '
                      '4242 (cyclictest))', log)
        self.assertIn('No CPU latency request is in force any more (it was 20 us).', log)

    def test_request_without_process(self):
        """A request no process holds is a kernel driver's: said so."""
        self.faketree('--latency-request', 0)
        self.wait_request(0, [])
        self.assertIn('Latency QoS: 0 us requested (no process holds /dev/cpu_dma_latency: a kernel driver does)',
                      self.ctl('status').stdout)

    def test_unreadable_device(self):
        os.unlink(os.path.join(self.tree, DEVICE))
        error = 'cannot read /dev/cpu_dma_latency: No such file or directory'
        T.wait_for(lambda: self.manager_prop('LatencyRequestError') == error, what='LatencyRequestError')
        self.assertEqual(self.manager_prop('LatencyRequestUSec'), -1)
        self.assertIn('Latency QoS: unknown: ' + error, self.ctl('status').stdout)
        self.assertIsNone(json.loads(self.ctl('status', '--json').stdout)['latency_request']['usec'])
        self.assertNotIn('idlepolicy_latency_request_seconds', self.metrics())
        # a device with something else than 4 bytes
        with open(os.path.join(self.tree, DEVICE), 'wb') as f:
            f.write(b'20\n')
        T.wait_for(lambda: 'not a 4-byte latency' in str(self.manager_prop('LatencyRequestError')),
                   what='LatencyRequestError about the content')
        self.assert_daemon_alive()
        self.assertIn('The CPU latency request is unknown: cannot read /dev/cpu_dma_latency', self.daemon.output())


class LatencyLimit(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '4', '--driver', 'intel_idle', '--governor', 'menu',
                 '--offline', '3']

    def disabled(self, cpu):
        return [self.read(T.state_file(cpu, k, 'disable')) == '1' for k in T.state_dirs(self.tree, cpu)]

    def test_limit_on_one_cpu(self):
        latencies = [int(self.read(T.state_file(0, k, 'latency'))) for k in T.state_dirs(self.tree, 0)]
        self.assertEqual(latencies, [0, 4, 16, 64])
        self.call('SetLatencyLimit', U(0), U(4))          # C1's exit latency: allowed, as the kernel does
        self.assertEqual(self.disabled(0), [False, False, True, True])
        for cpu in (1, 2):
            self.assertEqual(self.disabled(cpu), [False] * 4)
        self.assertEqual({str(p): str(v) for p, v in self.manager_prop('Changed')},
                         {T.state_file(0, 2, 'disable'): '0', T.state_file(0, 3, 'disable'): '0'})
        # a state disabled by hand above the new limit comes back
        self.call('SetStateDisabled', U(1), 'C1', True)
        self.call('SetLatencyLimit', U(1), U(16))
        self.assertEqual(self.disabled(1), [False, False, False, True])
        self.call('Restore')
        self.assert_tree_unchanged()

    def test_limit_every_cpu_and_crash(self):
        self.call('SetLatencyLimit', U(T.ALL_CPUS), U(0))
        for cpu in (0, 1, 2):
            self.assertEqual(self.disabled(cpu), [False, True, True, True])
        self.daemon.signal(signal.SIGKILL)
        self.daemon.wait()
        T.wait_for(lambda: not self.bus.name_has_owner(T.BUS_NAME), what='the bus name to go away')
        self.start_daemon()
        self.assert_tree_unchanged(msg='after the restart replayed the journal')

    def test_ctl(self):
        r = self.ctl('latency-limit', '16', '--cpu', '0-1')
        self.assertEqual(r.stdout,
                         "Idle states with an exit latency above 16 us disabled on CPUs 0-1, the others enabled "
                         "('idlepolicyctl restore' puts them back):\n"
                         "  CPU 0: enabled POLL (0us), C1 (4us), C2 (16us); disabled C3 (64us)\n"
                         "  CPU 1: enabled POLL (0us), C1 (4us), C2 (16us); disabled C3 (64us)\n")
        self.assertEqual(self.disabled(2), [False] * 4)
        got = json.loads(self.ctl('latency-limit', '4', '--json').stdout)
        self.assertEqual(got['latency_limit_us'], 4)
        self.assertEqual(got['cpus'], 'all')
        self.assertEqual([s['cpu'] for s in got['states']], [0, 1, 2])
        self.assertEqual(got['states'][2], {'cpu': 2, 'enabled': ['POLL', 'C1'], 'disabled': ['C2', 'C3']})
        self.ctl('restore')
        self.assert_tree_unchanged()

    def test_refused(self):
        self.assert_dbus_error('UnknownCPU', 'SetLatencyLimit', U(9), U(10))
        self.assert_dbus_error('CPUOffline', 'SetLatencyLimit', U(3), U(10))
        r = self.ctl('latency-limit', 'n/a', check=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("invalid exit latency 'n/a'", r.stderr)
        r = self.ctl('latency-limit', '10', '--cpu', '9', check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn('9', r.stderr)
        # as nobody without polkit's yes: the state action is asked and denied
        r = self.ctl('--no-ask-password', 'latency-limit', '10', check=False, user=T.NOBODY)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(T.BUS_NAME + '.set-state', self.polkit_checked_actions())
        self.assert_tree_unchanged()
        self.set_allowed([T.BUS_NAME + '.set-state'])
        self.ctl('--no-ask-password', 'latency-limit', '10', user=T.NOBODY)
        self.assertEqual(self.disabled(0), [False, False, True, True])

    def ticks(self):
        """The daemon's ticks so far, from Metrics()."""
        m = re.search(r'^idlepolicy_tick_duration_seconds_count (\d+)$', str(self.call('Metrics')), re.M)
        return int(m.group(1))

    def test_plan_leaves_the_limit_alone(self):
        """The limit is the administrator's: enforce mode's plan does not
        undo it, until Restore()."""
        self.call('SetMode', 'enforce')
        self.call('SetLatencyLimit', U(0), U(0))
        with self.ticking():
            T.wait_for(lambda: self.cpu_prop(0, 'CapReason') != 'none', what='a plan on CPU 0')
            start = self.ticks()
            T.wait_for(lambda: self.ticks() >= start + 3, what='3 more ticks')
        self.assertEqual(self.disabled(0), [False, True, True, True])
        self.assertEqual(self.cpu_prop(0, 'Cap'), 0)
        self.call('Restore')
        with self.ticking():
            T.wait_for(lambda: self.cpu_prop(0, 'Cap') > 0, what='the plan to allow more than POLL after Restore()')


if __name__ == '__main__':
    T.main()
