#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pins and holds through the bus and idlepolicyctl: real child processes
pinned by PID (their affinity really changes and comes back), the profile
in force per CPU, pins ending with their workload, holds ending with their
client, a daemon stopped or killed with pins active, cgroup pins on a fake
cgroup v2 tree, and every bad input with its named error."""

import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

PIN_IFACE = T.BUS_NAME + '.Pin'
PIN_PREFIX = T.ROOT_PATH + '/pin/'
ACTION_PIN = T.BUS_NAME + '.pin'
ACTION_PIN_OWN = T.BUS_NAME + '.pin-own-process'
ACTION_HOLD = T.BUS_NAME + '.hold'
README = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'README.md')


affinity = T.affinity


def thread_affinities(pid):
    return {int(tid): affinity(pid, tid) for tid in os.listdir(f'/proc/{pid}/task')}


class PinTestCase(T.IdlePolicyTestCase):
    AFFINITY_CPUS = {0, 1}
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    def spawn(self, argv, user=None):
        """Starts a child (as uid user) that dies with us.  Returns the Popen."""
        if user is not None:
            argv = ['setpriv', f'--reuid={user}', f'--regid={user}', '--clear-groups'] + list(argv)
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                preexec_fn=T._die_with_parent)  # noqa: PLW1509 - the fixture's own
        self.addCleanup(self.reap, proc)
        if user is not None:            # setpriv execs: the same pid runs sleep as user
            T.wait_for(lambda: os.stat(f'/proc/{proc.pid}').st_uid == user, what='the child as user')
        return proc

    @staticmethod
    def reap(proc):
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stdin:
            proc.stdin.close()

    def sleeper(self, user=None):
        return self.spawn(['sleep', '600'], user=user)

    def pin(self, target, cpus, profile):
        return str(self.call('Pin', target, cpus, profile))

    def pins(self):
        return [str(p) for p in self.manager_prop('Pins')]

    def holds(self):
        return [tuple(h) for h in self.manager_prop('Holds')]

    def pin_props(self, path):
        return T.dbus.Interface(self.obj(path), T.PROPS_IFACE).GetAll(PIN_IFACE)

    def wait_unpinned(self, path):
        T.wait_for(lambda: path not in self.pins(), what=f'{path} to go')

    def assert_nothing_pinned(self, *procs, original=(0, 1)):
        self.assertEqual(self.pins(), [])
        for p in procs:
            self.assertEqual(affinity(p.pid), list(original))
        self.assert_daemon_alive()


class PidPins(PinTestCase):

    def test_pin_pid_busctl(self):
        child = self.sleeper()
        self.assertEqual(affinity(child.pid), [0, 1])
        before = time.time()
        r = self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Pin', 'sss', f'pid:{child.pid}', '1',
                        'latency')
        path = r.stdout.split()[1].strip('"')
        self.assertTrue(path.startswith(PIN_PREFIX), r.stdout)
        self.assertEqual(affinity(child.pid), [1])
        self.assertEqual(self.pins(), [path])
        p = self.pin_props(path)
        self.assertEqual(str(p['Target']), f'pid:{child.pid}')
        self.assertEqual(str(p['CPUs']), '1')
        self.assertEqual(str(p['Profile']), 'latency')
        self.assertEqual(str(p['State']), 'active')
        self.assertIn(child.pid, [int(x) for x in p['PIDs']])
        self.assertEqual(str(p['Reason']), '')
        self.assertEqual(int(p['OwnerUID']), 0)
        self.assertLessEqual(abs(int(p['Created']) / 1e6 - before), 30)
        # The ObjectManager lists it.
        objects = T.dbus.Interface(self.obj(), T.OBJMGR_IFACE).GetManagedObjects()
        self.assertIn(PIN_IFACE, objects[path])
        # Unpin: the affinity comes back, the object goes.
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Unpin', 'o', path)
        self.assertEqual(affinity(child.pid), [0, 1])
        self.wait_unpinned(path)
        r = self.busctl('get-property', T.BUS_NAME, path, PIN_IFACE, 'Target', check=False)
        self.assertNotEqual(r.returncode, 0)

    def test_one_manager_interface(self):
        """The pins' vtable joins the Manager's: one interface when introspected."""
        xml = str(T.dbus.Interface(self.obj(), 'org.freedesktop.DBus.Introspectable').Introspect())
        self.assertEqual(xml.count(f'<interface name="{T.MANAGER_IFACE}">'), 1, xml)
        manager = xml.split(f'<interface name="{T.MANAGER_IFACE}">')[1].split('</interface>')[0]
        for member in ('"Governor"', '"SetGovernor"', '"Pins"', '"Holds"', '"Pin"', '"PinWithOptions"', '"Unpin"',
                       '"Hold"', '"Release"', '"PinReleased"', '"HoldReleased"'):
            self.assertIn(member, manager)
        props = self.manager_props()
        self.assertIn('Governor', props)
        self.assertEqual(list(props['Pins']), [])

    def test_every_thread_is_pinned(self):
        child = self.spawn([self.python, '-c', 'import threading, time\n'
                            'for _ in range(3): threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n'
                            'time.sleep(600)'])
        T.wait_for(lambda: len(os.listdir(f'/proc/{child.pid}/task')) == 4, what='4 threads')
        path = self.pin(f'pid:{child.pid}', '0', 'latency')
        self.assertEqual(set(map(tuple, thread_affinities(child.pid).values())), {(0,)})
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assertEqual(set(map(tuple, thread_affinities(child.pid).values())), {(0, 1)})

    def test_pin_release_method(self):
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'latency')
        T.dbus.Interface(self.obj(path), PIN_IFACE).Release()
        self.assertEqual(affinity(child.pid), [0, 1])
        self.wait_unpinned(path)

    def test_empty_cpus_keep_the_workloads(self):
        child = self.sleeper()
        os.sched_setaffinity(child.pid, {1})
        path = self.pin(f'pid:{child.pid}', '', 'latency')
        self.assertEqual(affinity(child.pid), [1])
        T.wait_for(lambda: str(self.cpu_prop(1, 'Profile')) == 'latency', what='CPU 1 latency')
        self.assertEqual(str(self.pin_props(path)['CPUs']), '1')
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assertEqual(affinity(child.pid), [1])

    def test_profile_per_cpu(self):
        machine = str(self.manager_prop('ActiveProfile'))
        self.assertNotEqual(machine, 'latency')
        for cpu in (0, 1):
            self.assertEqual(str(self.cpu_prop(cpu, 'Profile')), machine)
            self.assertEqual(str(self.cpu_prop(cpu, 'ProfileSource')), 'machine')
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'latency')
        T.wait_for(lambda: str(self.cpu_prop(1, 'Profile')) == 'latency', what='CPU 1 latency')
        self.assertTrue(str(self.cpu_prop(1, 'ProfileSource')).startswith(f'pin {path} pid:{child.pid}'),
                        self.cpu_prop(1, 'ProfileSource'))
        self.assertEqual(str(self.cpu_prop(0, 'Profile')), machine)
        self.assertEqual(str(self.cpu_prop(0, 'ProfileSource')), 'machine')
        # idlepolicyctl status shows both.
        doc = T.json.loads(self.ctl('status', '--json').stdout)
        self.assertEqual([(c['profile'], c['profile_source'] == 'machine') for c in doc['cpus']],
                         [(machine, True), ('latency', False)])
        self.assertIn(f'pin {path} pid:{child.pid}', self.ctl('status').stdout)
        self.call('Unpin', T.dbus.ObjectPath(path))
        T.wait_for(lambda: str(self.cpu_prop(1, 'ProfileSource')) == 'machine', what='CPU 1 back to machine')

    def test_pin_ends_with_the_process(self):
        released = P.Signals(self, 'PinReleased')
        removed = P.Signals(self, 'InterfacesRemoved', interface=T.OBJMGR_IFACE)
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'latency')
        T.wait_for(lambda: str(self.cpu_prop(1, 'Profile')) == 'latency', what='CPU 1 latency')
        child.kill()
        child.wait()
        released.wait(lambda rx: any(str(a[0]) == path for a in rx), what='PinReleased')
        removed.wait(lambda rx: any(str(a[0]) == path and PIN_IFACE in a[1] for a in rx), what='InterfacesRemoved')
        self.wait_unpinned(path)
        T.wait_for(lambda: str(self.cpu_prop(1, 'ProfileSource')) == 'machine', what='CPU 1 back to machine')
        self.assert_daemon_alive()

    def test_exe_rule(self):
        """A rule pins each process that execs its executable, from then on."""
        exe = os.path.join(self.tmp, 'pinned-sleep')
        subprocess.run(['cp', '/bin/sleep', exe], check=True)
        before = self.sleeper()                     # /bin/sleep: not the rule's executable
        path = self.pin(f'exe:{exe}', '1', 'latency')
        self.assertEqual(str(self.pin_props(path)['State']), 'waiting')
        child = self.spawn([exe, '600'])
        T.wait_for(lambda: affinity(child.pid) == [1], what='the exec\'d child pinned')
        T.wait_for(lambda: [int(x) for x in self.pin_props(path)['PIDs']] == [child.pid], what='PIDs')
        self.assertEqual(str(self.pin_props(path)['State']), 'active')
        self.assertEqual(affinity(before.pid), [0, 1])
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assertEqual(affinity(child.pid), [0, 1])

    def test_stop_puts_affinity_back(self):
        child = self.sleeper()
        self.pin(f'pid:{child.pid}', '1', 'latency')
        self.assertEqual(self.stop_daemon(), 0)
        self.assertEqual(affinity(child.pid), [0, 1])

    def test_sigkill_then_restart(self):
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'latency')
        self.stop_daemon(signal.SIGKILL)
        self.assertEqual(affinity(child.pid), [1])     # nobody put it back yet
        self.start_daemon()
        # The journal put the original back, the persisted pin was taken
        # again (the same process still runs): pinned, under the same path.
        T.wait_for(lambda: path in self.pins(), what='the pin after the restart')
        self.assertEqual(affinity(child.pid), [1])
        self.assertEqual(str(self.pin_props(path)['State']), 'active')
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assertEqual(affinity(child.pid), [0, 1])
        # Killed again with nothing pinned: nothing comes back at the next start.
        self.stop_daemon(signal.SIGKILL)
        self.start_daemon()
        self.assert_nothing_pinned(child)

    def test_sigkill_workload_gone_meanwhile(self):
        child = self.sleeper()
        self.pin(f'pid:{child.pid}', '1', 'latency')
        self.stop_daemon(signal.SIGKILL)
        child.kill()
        child.wait()
        self.start_daemon()
        T.wait_for(lambda: self.pins() == [], what='the dead workload\'s pin to go')
        self.assert_daemon_alive()


class Holds(PinTestCase):

    def test_hold_and_release(self):
        released = P.Signals(self, 'HoldReleased')
        cookie = int(self.call('Hold', 'latency', '1', 'a benchmark', 'org.example.Bench'))
        self.assertEqual(len(self.holds()), 1)
        h = self.holds()[0]
        self.assertEqual((int(h[0]), str(h[1]), str(h[2]), str(h[3]), str(h[4])),
                         (cookie, 'latency', '1', 'a benchmark', 'org.example.Bench'))
        self.assertEqual(str(h[5]), self.bus.get_unique_name())
        T.wait_for(lambda: str(self.cpu_prop(1, 'Profile')) == 'latency', what='CPU 1 latency')
        self.assertTrue(str(self.cpu_prop(1, 'ProfileSource')).startswith(f'hold {cookie} by org.example.Bench'),
                        self.cpu_prop(1, 'ProfileSource'))
        self.call('Release', T.dbus.UInt32(cookie))
        self.assertEqual(self.holds(), [])
        released.wait(lambda rx: (cookie,) in [tuple(int(x) for x in a) for a in rx], what='HoldReleased')

    def test_pin_and_hold_meet(self):
        """Where a pin and a hold claim a CPU the stricter latency wins, and the source names both."""
        cookie = int(self.call('Hold', 'performance', '', '', 'org.example.Game'))
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'latency')
        T.wait_for(lambda: str(self.cpu_prop(1, 'Profile')) == 'latency', what='CPU 1 latency')
        source = str(self.cpu_prop(1, 'ProfileSource'))
        self.assertRegex(source, rf'^pin {path} pid:{child.pid} \(latency, \d+ us\) over hold {cookie} '
                                 r'by org\.example\.Game \(performance\)$')
        self.assertEqual(str(self.cpu_prop(0, 'Profile')), 'performance')
        self.assertEqual(str(self.cpu_prop(0, 'ProfileSource')), f'hold {cookie} by org.example.Game')

    def test_hold_released_when_the_client_leaves(self):
        released = P.Signals(self, 'HoldReleased')
        client = T.dbus.bus.BusConnection(self.bus_address)
        c1 = int(self.manager(bus=client).Hold('latency', '', '', ''))
        c2 = int(self.manager(bus=client).Hold('performance', '1', '', ''))
        self.assertEqual(sorted(int(h[0]) for h in self.holds()), sorted([c1, c2]))
        client.close()
        T.wait_for(lambda: self.holds() == [], what='the holds to go with their client')
        released.wait(lambda rx: {int(a[0]) for a in rx} == {c1, c2}, what='HoldReleased twice')
        self.assert_daemon_alive()

    def test_holds_per_client_are_bounded(self):
        client = T.dbus.bus.BusConnection(self.bus_address)
        self.addCleanup(client.close)
        for _ in range(64):
            self.manager(bus=client).Hold('latency', '', '', '')
        with self.assertRaises(T.dbus.exceptions.DBusException) as cm:
            self.manager(bus=client).Hold('latency', '', '', '')
        self.assertEqual(cm.exception.get_dbus_name(), T.ERROR_PREFIX + 'LimitReached')
        self.assertEqual(len(self.holds()), 64)
        # Another client still may.
        self.call('Hold', 'latency', '', '', '')

    def test_holds_do_not_survive_a_restart(self):
        self.call('Hold', 'latency', '', '', '')
        self.stop_daemon(signal.SIGKILL)
        self.start_daemon()
        self.assertEqual(self.holds(), [])

    def test_ctl_hold_until_sigterm(self):
        proc = subprocess.Popen([self.ctl_exe, 'hold', 'latency', '--cpus', '1', '--reason', 'game',
                                 '--app-id', 'org.example.Game', '--json'],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env(),
                                preexec_fn=T._die_with_parent)
        self.addCleanup(self.reap, proc)
        line = T.json.loads(proc.stdout.readline())
        self.assertEqual(line['profile'], 'latency')
        self.assertEqual([int(h[0]) for h in self.holds()], [line['cookie']])
        self.assertEqual(str(self.holds()[0][4]), 'org.example.Game')
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(proc.wait(10), 0, proc.stderr.read())
        self.assertEqual(self.holds(), [])

    def test_ctl_hold_killed(self):
        proc = subprocess.Popen([self.ctl_exe, 'hold', 'performance'], stdout=subprocess.PIPE, text=True,
                                env=self.env(), preexec_fn=T._die_with_parent)
        self.addCleanup(self.reap, proc)
        self.assertIn('Holding performance on all CPUs', proc.stdout.readline())
        self.assertEqual(len(self.holds()), 1)
        proc.kill()
        proc.wait()
        T.wait_for(lambda: self.holds() == [], what='the hold of a killed client to go')


class Ctl(PinTestCase):

    def test_pin_pins_unpin(self):
        child = self.sleeper()
        r = self.ctl('pin', f'pid:{child.pid}', '--cpus', '1', '--profile', 'latency', '--reason', 'db server')
        path = r.stdout.strip()
        self.assertTrue(path.startswith(PIN_PREFIX), r.stdout)
        self.assertEqual(affinity(child.pid), [1])
        self.assertEqual(str(self.pin_props(path)['Reason']), 'db server')
        out = self.ctl('pins').stdout
        self.assertRegex(out, rf'(?m)^{path[len(PIN_PREFIX):]}\s+pid:{child.pid}\s+1\s+latency\s+active\s+'
                              rf'{child.pid}\s+db server$')
        doc = T.json.loads(self.ctl('pins', '--json').stdout)
        self.assertEqual([(p['path'], p['target'], p['cpus'], p['state'], p['pids'], p['reason'])
                          for p in doc['pins']],
                         [(path, f'pid:{child.pid}', '1', 'active', [child.pid], 'db server')])
        self.assertEqual(doc['holds'], [])
        self.ctl('unpin', path[len(PIN_PREFIX):])
        self.assertEqual(affinity(child.pid), [0, 1])
        self.assertIn('No pins.', self.ctl('pins').stdout)
        r = self.ctl('unpin', path, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn('no such pin', r.stderr)
        self.assertIn(T.ERROR_PREFIX + 'NoSuchPin', r.stderr)

    def test_pin_errors_and_usage(self):
        child = self.sleeper()
        r = self.ctl('pin', f'pid:{child.pid}', '--cpus', '1', check=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("'pin' needs --profile", r.stderr)
        r = self.ctl('pin', f'pid:{child.pid}', '--cpus', '1', '--profile', 'nope', check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown profile 'nope'", r.stderr)
        r = self.ctl('pin', 'pid:x', '--profile', 'latency', check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn('invalid pin target', r.stderr)
        r = self.ctl('status', '--profile', 'latency', check=False)
        self.assertEqual(r.returncode, 2)
        r = self.ctl('unpin', 'seven', check=False)
        self.assertEqual(r.returncode, 2)
        self.assert_nothing_pinned(child)

    def test_launch(self):
        r = self.ctl('launch', '--cpus', '1', '--profile', 'latency', '--', 'sh', '-c',
                     'grep Cpus_allowed_list: /proc/self/status; '
                     'busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property ' + T.BUS_NAME + ' '
                     + T.ROOT_PATH + ' ' + T.MANAGER_IFACE + ' Holds; exit 3', check=False)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertRegex(r.stdout, r'Cpus_allowed_list:\s+1\n')
        self.assertIn('"latency" "1" "launch sh -c grep', r.stdout)     # the hold, while it ran
        self.assertIn('"sh"', r.stdout)                                   # its application id
        T.wait_for(lambda: self.pins() == [], what='the pin to end with the command')
        self.assertEqual(self.holds(), [])

    def test_launch_killed_by_signal_and_missing_command(self):
        r = self.ctl('launch', '--profile', 'latency', '--', 'sh', '-c', 'kill -TERM $$', check=False)
        self.assertEqual(r.returncode, 128 + signal.SIGTERM)
        r = self.ctl('launch', '--profile', 'latency', '--', '/nonexistent/command', check=False)
        self.assertEqual(r.returncode, 127)
        self.assertIn('cannot run /nonexistent/command', r.stderr)
        r = self.ctl('launch', '--profile', 'nope', '--', 'true', check=False)
        self.assertEqual(r.returncode, 1)
        T.wait_for(lambda: self.pins() == [] and self.holds() == [], what='nothing left')

    def test_readme_examples(self):
        with open(README, encoding='utf-8') as f:
            lines = [line.strip() for line in f]
        pin = next(line for line in lines if line.startswith('busctl call') and ' Pin sss ' in line)
        launch = next(line for line in lines if line.startswith('idlepolicyctl launch'))
        child = self.sleeper()
        argv = pin.split()
        argv[argv.index('pid:1234')] = f'pid:{child.pid}'
        self.busctl(*argv[1:])
        self.assertEqual(affinity(child.pid), [1])
        argv = launch.split('#')[0].split()
        self.assertEqual(argv[-2:], ['sleep', '5'])
        r = self.ctl(*(argv[1:-1] + ['0.2']))
        self.assertEqual(r.returncode, 0)


class Reports(PinTestCase):
    """Report(source, message): what a client acting for others (the NRI
    plugin) could not do, shown by status until it clears it."""

    def reports(self):
        return [(str(s), str(m)) for _, s, m in self.manager_prop('Reports')]

    def test_report_shown_then_cleared(self):
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Report', 'ss', 'k8s default/web/app',
                    'bad annotation idlepolicy.io/profile="fast": the daemon has no such profile')
        self.call('Report', 'k8s default/db/app', 'bad annotation idlepolicy.io/cpus="x"')
        # one per source, the latest kept
        self.call('Report', 'k8s default/db/app', 'bad annotation idlepolicy.io/cpus="y"')
        self.assertEqual(self.reports(), [
            ('k8s default/web/app', 'bad annotation idlepolicy.io/profile="fast": the daemon has no such profile'),
            ('k8s default/db/app', 'bad annotation idlepolicy.io/cpus="y"')])
        status = self.ctl('status').stdout
        self.assertIn('Reports:     k8s default/web/app: bad annotation idlepolicy.io/profile="fast"', status)
        self.assertIn('k8s default/db/app: bad annotation idlepolicy.io/cpus="y"', status)
        doc = json.loads(self.ctl('status', '--json').stdout)
        self.assertEqual([r['source'] for r in doc['reports']], ['k8s default/web/app', 'k8s default/db/app'])
        self.call('Report', 'k8s default/web/app', '')
        self.assertEqual(self.reports(), [('k8s default/db/app', 'bad annotation idlepolicy.io/cpus="y"')])
        self.assertIn('k8s default/web/app: bad annotation', self.daemon.output())   # logged too

    def test_bounded_and_checked(self):
        for i in range(70):
            self.call('Report', f'k8s ns/p{i}/c', 'bad')
        self.assertEqual([s for s, _ in self.reports()], [f'k8s ns/p{i}/c' for i in range(6, 70)])
        for bad in (('', 'x'), ('a\nb', 'x'), ('s', 'x' * 256), ('s' * 128, 'x')):
            with self.assertRaises(T.dbus.exceptions.DBusException) as cm:
                self.call('Report', *bad)
            self.assertEqual(cm.exception.get_dbus_name(), 'org.freedesktop.DBus.Error.InvalidArgs')
        self.assertEqual(len(self.reports()), 64)

    def test_unprivileged_caller_needs_pin_authorisation(self):
        r = self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Report', 'ss', 'me', 'hello',
                        user=T.NOBODY, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(self.reports(), [])
        self.set_allowed([T.BUS_NAME + '.pin'])
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Report', 'ss', 'me', 'hello', user=T.NOBODY)
        self.assertEqual(self.reports(), [('me', 'hello')])


class Authorisation(PinTestCase):

    def test_nobody_pins_own_process(self):
        self.set_allowed([ACTION_PIN_OWN])
        own = self.sleeper(user=T.NOBODY)
        r = self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Pin', 'sss', f'pid:{own.pid}', '1',
                        'latency', user=T.NOBODY)
        path = r.stdout.split()[1].strip('"')
        self.assertEqual(affinity(own.pid), [1])
        self.assertEqual(int(self.pin_props(path)['OwnerUID']), T.NOBODY)
        # Root's process is not nobody's: that needs the pin action.
        other = self.sleeper()
        r = self.dbus_send('Pin', f'string:pid:{other.pid}', 'string:1', 'string:latency', user=T.NOBODY)
        self.assertIn(T.ERROR_PREFIX + 'AccessDenied', r.stderr)
        self.assertEqual(affinity(other.pid), [0, 1])
        self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Unpin', 'o', path, user=T.NOBODY)
        self.assertEqual(affinity(own.pid), [0, 1])
        with open(self.polkit_log, encoding='utf-8') as f:
            log = f.read()
        self.assertIn(ACTION_PIN_OWN, log)
        self.assertIn(ACTION_PIN, log.replace(ACTION_PIN_OWN, ''))

    def test_denied_without_the_actions(self):
        own = self.sleeper(user=T.NOBODY)
        for method, args in (('Pin', [f'string:pid:{own.pid}', 'string:1', 'string:latency']),
                             ('Hold', ['string:latency', 'string:', 'string:', 'string:'])):
            with self.subTest(method=method):
                r = self.dbus_send(method, *args, user=T.NOBODY)
                self.assertIn(T.ERROR_PREFIX + 'AccessDenied', r.stderr)
        self.assertEqual(self.holds(), [])
        self.assert_nothing_pinned(own)

    def test_hold_action(self):
        self.set_allowed([ACTION_HOLD])
        r = self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Hold', 'ssss', 'latency', '', '', '',
                        user=T.NOBODY)
        self.assertRegex(r.stdout, r'^u \d+')
        # busctl has left: its hold went with it.
        T.wait_for(lambda: self.holds() == [], what='the hold of busctl to go')

    def test_others_holds_and_pins_need_pin(self):
        cookie = int(self.call('Hold', 'latency', '', '', ''))
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'latency')
        self.set_allowed([ACTION_HOLD, ACTION_PIN_OWN])
        r = self.dbus_send('Release', f'uint32:{cookie}', user=T.NOBODY)
        self.assertIn(T.ERROR_PREFIX + 'AccessDenied', r.stderr)
        r = self.dbus_send('Unpin', f'objpath:{path}', user=T.NOBODY)
        self.assertIn(T.ERROR_PREFIX + 'AccessDenied', r.stderr)
        self.assertEqual(len(self.holds()), 1)
        self.assertEqual(affinity(child.pid), [1])


class BadInput(PinTestCase):

    def assert_rejected(self, error, method, *args, procs=()):
        before = T.snapshot_tree(self.tree)
        self.assert_dbus_error(error, method, *args)
        self.assert_tree_unchanged(before, f'after the failed {method}{args}')
        self.assertEqual(self.holds(), [])
        self.assert_nothing_pinned(*procs)

    def test_bad_pins(self):
        child = self.sleeper()
        target = f'pid:{child.pid}'
        dead = subprocess.Popen(['true'])
        dead.wait()
        cases = [
            ('UnknownProfile', target, '1', 'nope'),
            ('InvalidCPUs', target, '1-x', 'latency'),
            ('InvalidCPUs', target, '0,,1', 'latency'),
            ('UnknownCPU', target, '64', 'latency'),         # not present: "CPU 64 is not present"
            ('InvalidTarget', 'pid:0', '1', 'latency'),
            ('InvalidTarget', 'pid:x', '1', 'latency'),
            ('InvalidTarget', 'pid:-5', '1', 'latency'),
            ('InvalidTarget', 'bogus', '1', 'latency'),
            ('InvalidTarget', '', '1', 'latency'),
            ('InvalidTarget', 'cgroup:a/../b', '1', 'latency'),
            ('InvalidTarget', 'cgroup:..', '1', 'latency'),
            ('NoSuchProcess', f'pid:{dead.pid}', '1', 'latency'),
        ]
        with open('/proc/2/stat', encoding='ascii') as f:
            if '(kthreadd)' in f.read():
                cases.append(('NotPinnable', 'pid:2', '1', 'latency'))
        for error, *args in cases:
            with self.subTest(error=error, args=args):
                self.assert_rejected(error, 'Pin', *args, procs=[child])

    def test_duplicate_target(self):
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'latency')
        self.assert_dbus_error('DuplicateTarget', 'Pin', f'pid:{child.pid}', '0', 'performance')
        self.assertEqual(self.pins(), [path])
        self.assertEqual(affinity(child.pid), [1])
        self.assertEqual(str(self.pin_props(path)['Profile']), 'latency')

    def test_bad_unpin_and_release(self):
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'latency')
        for bad in (PIN_PREFIX + '999', PIN_PREFIX + '0', PIN_PREFIX + '01', '/', T.ROOT_PATH, '/foo/pin/1'):
            with self.subTest(path=bad):
                self.assert_dbus_error('NoSuchPin', 'Unpin', T.dbus.ObjectPath(bad))
        for cookie in (0, 1, 4294967295):
            with self.subTest(cookie=cookie):
                self.assert_dbus_error('NoSuchHold', 'Release', T.dbus.UInt32(cookie))
        self.assertEqual(self.pins(), [path])
        self.assertEqual(affinity(child.pid), [1])
        self.assert_daemon_alive()

    def test_bad_options_and_texts(self):
        child = self.sleeper()
        target = f'pid:{child.pid}'
        opts = T.dbus.Dictionary
        for options in (opts({'colour': 'red'}, signature='sv'), opts({'reason': T.dbus.UInt32(1)}, signature='sv'),
                        opts({'reason': 'x' * 128}, signature='sv'), opts({'reason': 'a\nb'}, signature='sv')):
            with self.subTest(options=options):
                with self.assertRaises(T.dbus.exceptions.DBusException) as cm:
                    self.call('PinWithOptions', target, '1', 'latency', options)
                self.assertEqual(cm.exception.get_dbus_name(), 'org.freedesktop.DBus.Error.InvalidArgs')
                self.assert_nothing_pinned(child)
        for reason, app_id in (('x' * 128, ''), ('', 'y' * 128), ('\x1b[31m', '')):
            with self.assertRaises(T.dbus.exceptions.DBusException) as cm:
                self.call('Hold', 'latency', '', reason, app_id)
            self.assertEqual(cm.exception.get_dbus_name(), 'org.freedesktop.DBus.Error.InvalidArgs')
        self.assertEqual(self.holds(), [])
        path = str(self.call('PinWithOptions', target, '1', 'latency', opts({'reason': 'r' * 127}, signature='sv')))
        self.assertEqual(str(self.pin_props(path)['Reason']), 'r' * 127)

    def test_bad_holds(self):
        for error, profile, cpus in (('UnknownProfile', 'nope', ''), ('InvalidCPUs', 'latency', 'x'),
                                     ('UnknownCPU', 'latency', '64')):
            with self.subTest(error=error, cpus=cpus):
                self.assert_rejected(error, 'Hold', profile, cpus, '', '')


class OfflineCPU(PinTestCase):

    def test_offline_cpu(self):
        child = self.sleeper()
        self.make_tree(self.tree, ['--set-offline', '1'])
        T.wait_for(lambda: str(self.manager_prop('OnlineCPUs')) == '0', what='CPU 1 offline')
        self.assert_dbus_error('CPUOffline', 'Pin', f'pid:{child.pid}', '1', 'latency')
        self.assert_dbus_error('CPUOffline', 'Hold', 'latency', '0-1', '', '')
        self.assertEqual(self.holds(), [])
        self.assert_nothing_pinned(child)

    def test_cpu_not_present(self):
        child = self.sleeper()
        self.assert_dbus_error('UnknownCPU', 'Pin', f'pid:{child.pid}', '7', 'latency')
        self.assert_dbus_error('UnknownCPU', 'Hold', 'latency', '0,5', '', '')
        self.assertEqual(self.holds(), [])
        self.assert_nothing_pinned(child)

    def test_pinned_cpu_goes_offline_and_back(self):
        """The pin stays while its CPU is offline; when it is back, the
        affinity the kernel widened meanwhile is set to the pin's CPUs again
        and the CPU runs the pin's profile."""
        child = self.sleeper()
        path = self.pin(f'pid:{child.pid}', '1', 'latency')
        self.assertEqual(affinity(child.pid), [1])
        self.make_tree(self.tree, ['--set-offline', '1'])
        T.wait_for(lambda: str(self.manager_prop('OnlineCPUs')) == '0', what='CPU 1 offline')
        self.assertEqual(self.pins(), [path])
        self.assertEqual(str(self.pin_props(path)['State']), 'active')
        os.sched_setaffinity(child.pid, {0, 1})      # what the kernel does to a task whose CPUs all went
        self.make_tree(self.tree, ['--set-online', '1'])
        T.wait_for(lambda: str(self.manager_prop('OnlineCPUs')) == '0-1', what='CPU 1 online')
        T.wait_for(lambda: affinity(child.pid) == [1], what='the pin\'s affinity again')
        T.wait_for(lambda: str(self.cpu_prop(1, 'Profile')) == 'latency', what='CPU 1 latency again')
        self.assertEqual(str(self.cpu_prop(0, 'ProfileSource')), 'machine')
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assert_nothing_pinned(child)


class CgroupPins(PinTestCase):
    """A fake cgroup v2 tree (--cgroup-root): the daemon writes cpuset.cpus
    and watches cgroup.events; nothing runs in it."""

    def daemon_start_argv(self):
        self.cgroup_root = os.path.join(self.tmp, 'cgroup')
        os.makedirs(os.path.join(self.cgroup_root, 'test'))
        os.makedirs(os.path.join(self.cgroup_root, 'nocpuset'))
        for rel, value in (('cgroup.controllers', 'cpuset cpu io memory pids'),
                           ('cgroup.subtree_control', 'cpuset cpu'),
                           ('cpuset.cpus.effective', '0-1'),
                           ('test/cgroup.controllers', 'cpuset cpu'),
                           ('test/cpuset.cpus', ''),
                           ('test/cpuset.cpus.effective', '0-1'),
                           ('test/cgroup.events', 'populated 1\nfrozen 0'),
                           ('test/cgroup.procs', ''),
                           ('nocpuset/cgroup.events', 'populated 1\nfrozen 0')):
            with open(os.path.join(self.cgroup_root, rel), 'w', encoding='ascii') as f:
                f.write(value + '\n')
        return self.daemon_argv(['--cgroup-root', self.cgroup_root])

    def cpuset(self):
        with open(os.path.join(self.cgroup_root, 'test', 'cpuset.cpus'), encoding='ascii') as f:
            return f.read().strip()

    def test_cgroup_pin(self):
        path = self.pin('cgroup:test', '1', 'latency')
        self.assertEqual(self.cpuset(), '1')
        self.assertEqual(str(self.pin_props(path)['Target']), 'cgroup:test')
        T.wait_for(lambda: str(self.cpu_prop(1, 'Profile')) == 'latency', what='CPU 1 latency')
        self.assert_dbus_error('DuplicateTarget', 'Pin', 'cgroup:/test/', '0', 'latency')
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assertEqual(self.cpuset(), '')

    def test_cgroup_pin_ends_when_it_empties(self):
        released = P.Signals(self, 'PinReleased')
        path = self.pin('cgroup:test', '1', 'latency')
        with open(os.path.join(self.cgroup_root, 'test', 'cgroup.events'), 'w', encoding='ascii') as f:
            f.write('populated 0\nfrozen 0\n')
        released.wait(lambda rx: any(str(a[0]) == path for a in rx), what='PinReleased')
        self.wait_unpinned(path)
        self.assertEqual(self.cpuset(), '')

    def test_cgroup_stop_and_sigkill(self):
        self.pin('cgroup:test', '1', 'latency')
        self.assertEqual(self.stop_daemon(), 0)
        self.assertEqual(self.cpuset(), '')
        # Taken again at the next start: the cgroup is still populated.
        self.start_daemon(['--cgroup-root', self.cgroup_root])
        path = T.wait_for(lambda: self.pins(), what='the cgroup pin after a clean restart')[0]
        self.assertEqual(self.cpuset(), '1')
        self.stop_daemon(signal.SIGKILL)
        self.assertEqual(self.cpuset(), '1')
        self.start_daemon(['--cgroup-root', self.cgroup_root])
        T.wait_for(lambda: path in self.pins(), what='the cgroup pin after the restart')
        self.assertEqual(self.cpuset(), '1')
        self.call('Unpin', T.dbus.ObjectPath(path))
        self.assertEqual(self.cpuset(), '')

    def test_bad_cgroups(self):
        for error, target in (('NoSuchProcess', 'cgroup:missing'), ('NotPinnable', 'cgroup:nocpuset'),
                              ('InvalidTarget', 'cgroup:test/..'), ('InvalidTarget', 'cgroup:/')):
            with self.subTest(target=target):
                self.assert_dbus_error(error, 'Pin', target, '1', 'latency')
                self.assertEqual(self.pins(), [])
                self.assertEqual(self.cpuset(), '')
        self.assert_daemon_alive()


class PinsBetweenTicks(PinTestCase):
    """On the KVM tree with a dear halt, latency polls only (resume latency
    "n/a").  The tick is then made an hour long: whatever the knobs do
    afterwards is done by the pin's start and end, not by a tick.  A pin
    that ends right after it began must put its CPU back although no sample
    has read the knobs it wrote."""
    TREE_ARGS = ['--cpus', '2']
    START_DAEMON = False
    HOUR_USEC = 3600000000

    def write_config(self, tick_usec):
        with open(self.config, 'w', encoding='utf-8') as f:
            T.json.dump({'tick_usec': tick_usec, 'calibrate_on_first_start': False}, f)

    def setUp(self):
        super().setUp()
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')
        self.write_config(T.TICK_USEC)
        argv = self.daemon_argv(['--config', self.config], mode='enforce')
        i = argv.index('--tick-usec')
        del argv[i:i + 2]
        self.start_daemon(argv=argv, env={'IDLEPOLICY_MOCK_STEP_US': '500'})
        self.ctl('calibrate')
        with self.ticking():
            # The policy learns the calibration at the next tick (its Rates move).
            rates = self.cpu_prop(1, 'Rates')
            T.wait_for(lambda: self.cpu_prop(1, 'Rates') != rates, what='a tick after the calibration')
            T.wait_for(lambda: P.plan(self, 1)[2] != '', what='CPU 1 planned')
        self.write_config(self.HOUR_USEC)
        self.daemon.signal(signal.SIGHUP)
        T.wait_for(lambda: int(self.manager_prop('TickUSec')) == self.HOUR_USEC, what='the hour-long tick')

    @staticmethod
    def without_governor(knobs):
        """The knobs but the governor: the plan prefers menu when no CPU
        wants a poll window and switches back only once per hold."""
        return {k: v for k, v in knobs.items() if not k.endswith('current_governor')}

    def test_pin_and_its_end_move_the_knobs_without_a_tick(self):
        before = self.without_governor(P.knobs(self))
        self.assertEqual(self.read(T.latency_file(1)), '0')
        for _ in range(3):
            child = self.sleeper()
            self.pin(f'pid:{child.pid}', '1', 'latency')
            T.wait_for(lambda: self.read(T.latency_file(1)) == 'n/a', what='CPU 1 polling only')
            self.assertEqual(self.read(T.latency_file(0)), '0')
            child.kill()
            child.wait()
            T.wait_for(lambda: self.without_governor(P.knobs(self)) == before, what='the knobs as before the pin')
            T.wait_for(lambda: self.pins() == [], what='the pin to go')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(P.knobs(self), P.original_knobs(self))


if __name__ == '__main__':
    T.main()
