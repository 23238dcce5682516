#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The error table: every error path of every method, each answered with
its own name.  idlepolicyd(8) lists under each method the names it answers
with ("Errors:"); every row below makes one of those happen for real (a bad
argument, or a fault planted in the tree, the cgroup mount, the helper, the
process table: an immutable knob, a missing helper, a thread's TID...) and
asserts the exact name, the tree as it was and the daemon alive.
TableCoverage checks that the rows cover every name the manual lists for
every method: a raw errno of a failed system call can no longer pass under
another name (the errnos of the named errors are ordinary ones, ENOENT is
UnknownState), since each method only answers with its own names and says
org.freedesktop.DBus.Error.Failed for anything else."""

import os
import re
import shutil
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

U = T.dbus.UInt32
MAN = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'man', 'idlepolicyd.8')
NAMES = ('UnknownCPU', 'CPUOffline', 'UnknownState', 'InvalidLatency', 'UnknownGovernor', 'WriteFailed',
         'AccessDenied', 'UnknownProfile', 'InvalidMode', 'Busy', 'InvalidTarget', 'InvalidCPUs', 'NoSuchProcess',
         'NotPinnable', 'DuplicateTarget', 'LimitReached', 'NoSuchPin', 'NoSuchHold', 'NoSystemd', 'InvalidLevel',
         'CalibrationFailed')
PIN_IFACE = T.BUS_NAME + '.Pin'
PIN_PREFIX = T.ROOT_PATH + '/pin/'
ACTION_PIN_OWN = T.BUS_NAME + '.pin-own-process'
ACTION_HOLD = T.BUS_NAME + '.hold'
# Methods documented "as" another: the other's rows cover them too.
SAME_AS = {'PinWithOptions': 'Pin'}


def kthreadd_is_pid_2():
    try:
        with open('/proc/2/stat', encoding='ascii') as f:
            return '(kthreadd)' in f.read()
    except OSError:
        return False


def documented_errors():
    """{method: {name, ...}} from the "Errors:" line of each method in
    idlepolicyd(8); the pin object's Release() is "Pin.Release"."""
    table, method, pin_object = {}, None, False
    with open(MAN, encoding='utf-8') as f:
        for line in f:
            if line.startswith(('.SS ', '.SH ')):
                pin_object = '/pin/N' in line
                method = None
            m = re.match(r'^\.BI? (\w+)\(', line)
            if m:
                method = ('Pin.' if pin_object else '') + m.group(1)
            m = re.search(r'Errors: (.*)', line)
            if m and method:
                words = set(re.findall(r'\b([A-Z]\w+)\b', m.group(1)))
                table[method] = words & set(NAMES)
                if 'as Pin()' in m.group(1):
                    table[method] |= table['Pin']
    return table


def proc_field(pid, name):
    """The value of a field of /proc/PID/status."""
    with open(f'/proc/{pid}/status', encoding='ascii') as f:
        return re.search(rf'^{name}:\s*(\S+)', f.read(), re.M).group(1)


def error_of(fn, *args):
    """Calls fn(*args); returns (error name, message), (None, None) when
    it succeeded."""
    try:
        fn(*args, timeout=30)
    except T.dbus.exceptions.DBusException as e:
        return e.get_dbus_name(), e.get_dbus_message()
    return None, None


class ErrorTable(T.IdlePolicyTestCase):
    """Runs ROWS: (method, name, how, args...), how an instance method that
    makes the error happen and returns (name, message).  Each row: the
    tree and Changed as before it (unless the row says the call changes
    them: "changes" in its how's name), the daemon alive."""

    ROWS = ()

    def run_rows(self):
        for method, name, how, *args in self.ROWS:
            with self.subTest(method=method, name=name, how=how, args=args):
                before = T.snapshot_tree(self.tree)
                changed = sorted(map(tuple, self.manager_prop('Changed')))
                got, message = getattr(self, how)(method, *args)
                self.assertEqual(got, T.ERROR_PREFIX + name, f'{method} via {how}{args}: {message}')
                self.assertTrue(message, f'{method}: no message')
                if 'changes' not in how:
                    self.assert_tree_unchanged(before, f'after {method} via {how}{args}')
                    self.assertEqual(sorted(map(tuple, self.manager_prop('Changed'))), changed)
                self.assert_daemon_alive()
        self.assertNotIn("is not one of this method's named errors", self.daemon.output())

    # -- ways to call --

    def root(self, method, *args):
        return error_of(getattr(self.manager(), method), *args)

    def as_nobody(self, method, *send_args, path=T.ROOT_PATH, iface=T.MANAGER_IFACE):
        argv = ['setpriv', f'--reuid={T.NOBODY}', f'--regid={T.NOBODY}', '--clear-groups', 'dbus-send',
                f'--bus={self.bus_address}', '--print-reply', f'--dest={T.BUS_NAME}', path,
                f'{iface}.{method.split(".")[-1]}'] + list(send_args)
        r = subprocess.run(argv, capture_output=True, text=True, env=self.env(), timeout=60, check=False)
        m = re.search(r'^Error (\S+): (.*)$', r.stderr, re.M)
        return (m.group(1), m.group(2)) if m else (None, r.stdout + r.stderr)

    def unchattr(self, rel):
        p = os.path.join(self.tree, rel)
        subprocess.run(['chattr', '-i', p], check=True)
        self.immutable.remove(p)

    def immutable_root(self, method, rel, *args):
        """rel made immutable (writes fail with EPERM) for one call."""
        self.make_immutable(rel)
        try:
            return self.root(method, *args)
        finally:
            self.unchattr(rel)


class ManagerErrors(ErrorTable):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll', '--offline', '2']

    ROWS = (
        ('SetGovernor', 'UnknownGovernor', 'root', 'nosuch'),
        ('SetGovernor', 'WriteFailed', 'immutable_root', T.GOVERNOR_FILE, 'menu'),
        ('SetGovernor', 'AccessDenied', 'as_nobody', 'string:menu'),
        ('SetStateDisabled', 'UnknownCPU', 'root', U(9), '1', True),
        ('SetStateDisabled', 'CPUOffline', 'root', U(2), '1', True),
        ('SetStateDisabled', 'UnknownState', 'root', U(0), 'NOPE', True),
        ('SetStateDisabled', 'UnknownState', 'root', U(T.ALL_CPUS), '7', True),
        ('SetStateDisabled', 'WriteFailed', 'immutable_root', T.state_file(1, 1, 'disable'), U(1), '1', True),
        ('SetStateDisabled', 'WriteFailed', 'replaced_root', T.state_file(1, 1, 'disable'), 'dir', U(1), '1', True),
        ('SetStateDisabled', 'WriteFailed', 'replaced_root', T.state_file(1, 1, 'disable'), 'fifo', U(1), '1', True),
        ('SetStateDisabled', 'AccessDenied', 'as_nobody', 'uint32:1', 'string:1', 'boolean:true'),
        ('SetResumeLatency', 'UnknownCPU', 'root', U(9), U(10)),
        ('SetResumeLatency', 'CPUOffline', 'root', U(2), U(10)),
        ('SetResumeLatency', 'InvalidLatency', 'root', U(0), U(3000000000)),
        ('SetResumeLatency', 'WriteFailed', 'immutable_root', T.latency_file(0), U(0), U(20)),
        ('SetResumeLatency', 'WriteFailed', 'replaced_root', T.latency_file(0), 'garbage', U(0), U(20)),
        ('SetResumeLatency', 'WriteFailed', 'replaced_root', T.latency_file(0), 'missing', U(0), U(20)),
        ('SetResumeLatency', 'WriteFailed', 'journal_unwritable', U(0), U(20)),
        ('SetResumeLatency', 'AccessDenied', 'as_nobody', 'uint32:0', 'uint32:20'),
        ('SetLatencyLimit', 'UnknownCPU', 'root', U(9), U(10)),
        ('SetLatencyLimit', 'CPUOffline', 'root', U(2), U(10)),
        ('SetLatencyLimit', 'WriteFailed', 'immutable_root', T.state_file(3, 2, 'disable'), U(T.ALL_CPUS), U(0)),
        ('SetLatencyLimit', 'AccessDenied', 'as_nobody', 'uint32:0', 'uint32:20'),
        ('Restore', 'WriteFailed', 'restore_immutable'),
        ('Restore', 'AccessDenied', 'as_nobody'),
        ('SetProfile', 'UnknownProfile', 'root', 'nope'),
        ('SetProfile', 'AccessDenied', 'as_nobody', 'string:latency'),
        ('PreviewProfile', 'UnknownProfile', 'root', 'nope'),
        ('SetMode', 'InvalidMode', 'root', 'bogus'),
        ('SetMode', 'AccessDenied', 'as_nobody', 'string:enforce'),
        ('SetConsolidation', 'InvalidLevel', 'root', U(3)),
        ('SetConsolidation', 'AccessDenied', 'as_nobody', 'uint32:1'),
        ('Calibrate', 'AccessDenied', 'as_nobody'),
    )

    def replaced_root(self, method, rel, how, *args):
        """rel replaced for one call by a directory, a FIFO, garbage, or
        nothing; put back after."""
        p = os.path.join(self.tree, rel)
        saved = p + '.saved'
        os.rename(p, saved)
        try:
            if how == 'dir':
                os.mkdir(p)
            elif how == 'fifo':
                os.mkfifo(p)
            elif how == 'garbage':
                with open(p, 'w', encoding='ascii') as f:
                    f.write('abc\n')
            return self.root(method, *args)
        finally:
            if os.path.isdir(p):
                os.rmdir(p)
            elif os.path.lexists(p):
                os.unlink(p)
            os.rename(saved, p)

    def journal_unwritable(self, method, *args):
        """The runtime directory immutable: the original cannot be
        journaled, so nothing is written."""
        subprocess.run(['chattr', '+i', self.runtime_dir], check=True)
        try:
            got = self.root(method, *args)
        finally:
            subprocess.run(['chattr', '-i', self.runtime_dir], check=True)
        self.assertIn('restore journal', got[1])
        return got

    def restore_immutable(self, method):
        """A knob set by hand, then immutable: Restore() cannot put it back."""
        self.call('SetResumeLatency', U(1), U(25))
        self.make_immutable(T.latency_file(1))
        try:
            return self.root(method)
        finally:
            self.unchattr(T.latency_file(1))
            self.call('Restore')

    def test_rows(self):
        self.run_rows()


class BusyErrors(ErrorTable):
    """A calibration runs (the mock helper takes 3 s a state): the knobs are
    its."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    ROWS = (
        ('SetGovernor', 'Busy', 'root', 'menu'),
        ('SetStateDisabled', 'Busy', 'root', U(0), '1', True),
        ('SetResumeLatency', 'Busy', 'root', U(0), U(10)),
        ('SetLatencyLimit', 'Busy', 'root', U(0), U(10)),
        ('SetMode', 'Busy', 'root', 'enforce'),
        ('Calibrate', 'Busy', 'root'),
        ('PreviewProfile', 'Busy', 'root', 'latency'),
    )

    def test_rows(self):
        self.start_daemon(env={'IDLEPOLICY_MOCK_DELAY': '3'})
        self.call('Calibrate')
        self.assertTrue(bool(self.manager_prop('Calibrating')))
        self.run_rows()
        self.assertTrue(bool(self.manager_prop('Calibrating')), 'the calibration ended before the last row')


class CalibrationErrors(ErrorTable):
    """The helper cannot be run: missing (ENOENT, was UnknownState), not
    executable (EACCES, was AccessDenied)."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    ROWS = (
        ('Calibrate', 'CalibrationFailed', 'helper_broken', 'missing'),
        ('Calibrate', 'CalibrationFailed', 'helper_broken', 'not executable'),
    )

    def policy_args(self, mode='observe'):
        self.helper = os.path.join(self.tmp, 'calibrate-helper')
        if not os.path.exists(self.helper):
            shutil.copy(T.MOCK_CALIBRATE, self.helper)
        args = super().policy_args(mode)
        args[args.index(T.MOCK_CALIBRATE)] = self.helper
        return args

    def helper_broken(self, method, how):
        mode = os.stat(self.helper).st_mode
        if how == 'missing':
            os.rename(self.helper, self.helper + '.away')
        else:
            os.chmod(self.helper, stat.S_IMODE(mode) & ~0o111)
        try:
            got = self.root(method)
        finally:
            if how == 'missing':
                os.rename(self.helper + '.away', self.helper)
            os.chmod(self.helper, stat.S_IMODE(mode))
        self.assertIn(self.helper, got[1])
        self.assertIn('No such file' if how == 'missing' else 'Permission denied', got[1])
        return got

    def test_rows(self):
        self.run_rows()
        # The helper back: the calibration starts.
        self.call('Calibrate')


class ModeErrors(ErrorTable):
    """Leaving enforce mode cannot put back a knob the plan changed."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'acpi_idle', '--no-haltpoll', '--governor', 'menu']
    START_DAEMON = False
    C2 = T.state_file(0, 2, 'disable')

    ROWS = (('SetMode', 'WriteFailed', 'observe_changes_what_it_can'),)

    def observe_changes_what_it_can(self, method):
        """CPU 0's C2 cannot be put back: WriteFailed, the mode stays
        (CPU 1's is put back: this call changes what it can)."""
        self.make_immutable(self.C2)
        try:
            got = self.root(method, 'observe')
        finally:
            self.unchattr(self.C2)
        self.assertEqual(str(self.manager_prop('Mode')), 'enforce')
        return got

    def test_rows(self):
        P.write_profile(self, 'steady', explore_shift=0, hold_ticks=1)
        self.start_daemon(mode='enforce')
        self.call('SetProfile', 'steady')
        with P.Feeder(self, [0, 1], P.TOO_DEEP_C2):
            T.wait_for(lambda: self.read(self.C2) == '1', timeout=15, what='the plan to disable C2')
            self.run_rows()
            self.call('SetMode', 'observe')
        self.assertEqual(self.read(self.C2), '0')


class PinErrors(ErrorTable):
    """Pins and holds: real processes (a thread's TID among them), a fake
    cgroup v2 mount, no systemd on the bus, uid 65534 through the polkit
    mock."""
    AFFINITY_CPUS = {0, 1}
    TREE_ARGS = ['--cpus', '3', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll', '--offline', '2']
    CGROUPS = ('test', 'test-unpin', 'test-release')

    ROWS = (
        ('Pin', 'InvalidTarget', 'pin_root', 'bogus', '1'),
        ('Pin', 'InvalidTarget', 'pin_root', 'cgroup:a/../b', '1'),
        ('Pin', 'InvalidCPUs', 'pin_root', 'SLEEPER', '1-x'),
        ('Pin', 'UnknownCPU', 'pin_root', 'SLEEPER', '7'),
        ('Pin', 'CPUOffline', 'pin_root', 'SLEEPER', '2'),
        ('Pin', 'UnknownProfile', 'pin_root', 'SLEEPER', '1', 'nope'),
        ('Pin', 'UnknownProfile', 'pin_root', 'SLEEPER', '1', 'nope:latency_limit_us=20'),
        ('Pin', 'UnknownProfile', 'pin_root', 'SLEEPER', '1', 'latency:exit_latency=20'),
        ('Pin', 'InvalidLatency', 'pin_root', 'SLEEPER', '1', 'latency:latency_limit_us=10000001'),
        ('Pin', 'InvalidLatency', 'pin_root', 'SLEEPER', '1', 'latency:latency_limit_us=020'),
        ('Pin', 'NoSuchProcess', 'pin_root', 'DEAD', '1'),
        ('Pin', 'NoSuchProcess', 'pin_root', 'cgroup:missing', '1'),
        ('Pin', 'NoSuchProcess', 'pin_root', 'ZOMBIE', '1'),
        ('Pin', 'NotPinnable', 'pin_root', 'THREAD', '1'),
        ('Pin', 'NotPinnable', 'pin_root', 'THREAD', ''),
        ('Pin', 'NotPinnable', 'pin_root', 'cgroup:nocpuset', '1'),
        ('Pin', 'NoSystemd', 'pin_root', 'unit:foo.service', '1'),
        ('Pin', 'DuplicateTarget', 'pin_twice'),
        ('Pin', 'LimitReached', 'pin_over_the_limit'),
        ('Pin', 'WriteFailed', 'pin_immutable_cgroup'),
        ('Pin', 'WriteFailed', 'pin_journal_unwritable'),
        ('Pin', 'AccessDenied', 'as_nobody_pin'),
        ('PinWithOptions', 'NoSuchProcess', 'pin_with_options', 'DEAD'),
        ('PinWithOptions', 'NotPinnable', 'pin_with_options', 'THREAD'),
        ('Unpin', 'NoSuchPin', 'root', T.dbus.ObjectPath(PIN_PREFIX + '999')),
        ('Unpin', 'WriteFailed', 'unpin_changes_cgroup', 'test-unpin', 'Unpin'),
        ('Unpin', 'AccessDenied', 'as_nobody_on_roots_pin'),
        ('Pin.Release', 'WriteFailed', 'unpin_changes_cgroup', 'test-release', 'Pin.Release'),
        ('Pin.Release', 'AccessDenied', 'as_nobody_on_roots_pin'),
        ('Hold', 'UnknownProfile', 'root', 'nope', '', '', ''),
        ('Hold', 'InvalidLatency', 'root', 'balanced:latency_limit_us=-5', '', '', ''),
        ('Hold', 'InvalidCPUs', 'root', 'latency', 'x', '', ''),
        ('Hold', 'UnknownCPU', 'root', 'latency', '0,7', '', ''),
        ('Hold', 'CPUOffline', 'root', 'latency', '2', '', ''),
        ('Hold', 'LimitReached', 'hold_over_the_limit'),
        ('Hold', 'AccessDenied', 'as_nobody', 'string:latency', 'string:', 'string:', 'string:'),
        ('Release', 'NoSuchHold', 'root', U(999)),
        ('Release', 'AccessDenied', 'as_nobody_on_roots_hold'),
    ) + ((('Pin', 'NotPinnable', 'pin_root', 'pid:2', '1'),) if kthreadd_is_pid_2() else ())

    def daemon_start_argv(self):
        self.cgroup_root = os.path.join(self.tmp, 'cgroup')
        files = {'cgroup.controllers': 'cpuset cpu', 'cgroup.subtree_control': 'cpuset',
                 'cpuset.cpus.effective': '0-1', 'nocpuset/cgroup.events': 'populated 1\nfrozen 0'}
        for cg in self.CGROUPS:
            files.update({f'{cg}/cgroup.controllers': 'cpuset', f'{cg}/cpuset.cpus': '',
                          f'{cg}/cpuset.cpus.effective': '0-1', f'{cg}/cgroup.events': 'populated 1\nfrozen 0',
                          f'{cg}/cgroup.procs': ''})
        for rel, value in files.items():
            os.makedirs(os.path.dirname(os.path.join(self.cgroup_root, rel)), exist_ok=True)
            with open(os.path.join(self.cgroup_root, rel), 'w', encoding='ascii') as f:
                f.write(value + '\n')
        return self.daemon_argv(['--cgroup-root', self.cgroup_root])

    def spawn(self, argv, user=None):
        if user is not None:
            argv = ['setpriv', f'--reuid={user}', f'--regid={user}', '--clear-groups'] + list(argv)
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                preexec_fn=T._die_with_parent)  # noqa: PLW1509 - the fixture's own
        self.addCleanup(lambda: (proc.poll() is None and proc.kill(), proc.wait(), proc.stdout.close()))
        return proc

    def setUp(self):
        super().setUp()
        self.sleeper = self.spawn(['sleep', '600'])
        dead = subprocess.Popen(['true'])
        dead.wait()
        zombie = subprocess.Popen(['true'])                # not waited for until the cleanup
        self.addCleanup(zombie.wait)
        T.wait_for(lambda: proc_field(zombie.pid, 'State') == 'Z', what='the zombie')
        self.threaded = self.spawn([self.python, '-c', 'import threading, time\n'
                                    'threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n'
                                    'print(flush=True)\ntime.sleep(600)'])
        self.threaded.stdout.readline()
        tids = [int(t) for t in os.listdir(f'/proc/{self.threaded.pid}/task') if int(t) != self.threaded.pid]
        self.assertEqual(len(tids), 1)
        self.words = {'SLEEPER': f'pid:{self.sleeper.pid}', 'DEAD': f'pid:{dead.pid}', 'THREAD': f'pid:{tids[0]}',
                      'ZOMBIE': f'pid:{zombie.pid}'}

    def target(self, word):
        return self.words.get(word, word)

    def pins(self):
        return [str(p) for p in self.manager_prop('Pins')]

    # -- ways to fail --

    def pin_root(self, method, target, cpus, profile='latency'):
        return self.root(method, self.target(target), cpus, profile)

    def pin_with_options(self, method, target):
        return self.root(method, self.target(target), '1', 'latency',
                         T.dbus.Dictionary({'reason': 'table'}, signature='sv'))

    def pin_twice(self, method):
        path = str(self.call('Pin', self.target('SLEEPER'), '1', 'latency'))
        try:
            before = T.snapshot_tree(self.tree)
            got = self.root(method, self.target('SLEEPER'), '0', 'performance')
            self.assert_tree_unchanged(before)
            return got
        finally:
            self.call('Unpin', T.dbus.ObjectPath(path))

    def pin_over_the_limit(self, method):
        """uid 65534, allowed to pin its own processes, pins 64 of them;
        its 65th is over its limit."""
        self.set_allowed([ACTION_PIN_OWN])
        own = [self.spawn(['sleep', '600'], user=T.NOBODY) for _ in range(65)]
        try:
            for p in own:
                T.wait_for(lambda p=p: os.stat(f'/proc/{p.pid}').st_uid == T.NOBODY, what='sleep as nobody')
            for p in own[:64]:
                got = self.as_nobody(method, f'string:pid:{p.pid}', 'string:', 'string:latency')
                self.assertIsNone(got[0], got)
            return self.as_nobody(method, f'string:pid:{own[64].pid}', 'string:', 'string:latency')
        finally:
            self.set_allowed([])
            for p in own:
                p.kill()
            T.wait_for(lambda: self.pins() == [], what="nobody's pins to end with its processes")

    def pin_immutable_cgroup(self, method):
        rel = os.path.join(self.cgroup_root, 'test', 'cpuset.cpus')
        subprocess.run(['chattr', '+i', rel], check=True)
        try:
            got = self.root(method, 'cgroup:test', '1', 'latency')
        finally:
            subprocess.run(['chattr', '-i', rel], check=True)
        self.assertEqual(self.pins(), [])
        return got

    def pin_journal_unwritable(self, method):
        subprocess.run(['chattr', '+i', self.runtime_dir], check=True)
        try:
            got = self.root(method, self.target('SLEEPER'), '1', 'latency')
        finally:
            subprocess.run(['chattr', '-i', self.runtime_dir], check=True)
        self.assertEqual(T.parse_cpu_list(proc_field(self.sleeper.pid, 'Cpus_allowed_list')), [0, 1])
        return got

    def as_nobody_pin(self, method):
        return self.as_nobody(method, f'string:{self.target("SLEEPER")}', 'string:1', 'string:latency')

    def unpin_changes_cgroup(self, method, cgroup, how):
        """A cgroup pin whose cpuset.cpus cannot be put back: the pin ends
        all the same, the knob stays changed (in Changed and the restore
        journal) for the next restore."""
        path = str(self.call('Pin', f'cgroup:{cgroup}', '1', 'latency'))
        rel = os.path.join(self.cgroup_root, cgroup, 'cpuset.cpus')
        subprocess.run(['chattr', '+i', rel], check=True)
        try:
            if how == 'Unpin':
                got = self.root(method, T.dbus.ObjectPath(path))
            else:
                got = error_of(T.dbus.Interface(self.obj(path), PIN_IFACE).Release)
        finally:
            subprocess.run(['chattr', '-i', rel], check=True)
        self.assertNotIn(path, self.pins())
        return got

    def as_nobody_on_roots_pin(self, method):
        path = str(self.call('Pin', self.target('SLEEPER'), '1', 'latency'))
        self.set_allowed([ACTION_PIN_OWN])
        try:
            if method == 'Unpin':
                return self.as_nobody(method, f'objpath:{path}')
            return self.as_nobody(method, path=path, iface=PIN_IFACE)
        finally:
            self.set_allowed([])
            self.call('Unpin', T.dbus.ObjectPath(path))

    def hold_over_the_limit(self, method):
        client = T.dbus.bus.BusConnection(self.bus_address)
        try:
            m = self.manager(bus=client)
            for _ in range(64):
                m.Hold('latency', '', '', '')
            return error_of(m.Hold, 'latency', '', '', '')
        finally:
            client.close()
            T.wait_for(lambda: list(self.manager_prop('Holds')) == [], what='the holds to go with their client')

    def as_nobody_on_roots_hold(self, method):
        cookie = int(self.call('Hold', 'latency', '', '', ''))
        self.set_allowed([ACTION_HOLD])
        try:
            return self.as_nobody(method, f'uint32:{cookie}')
        finally:
            self.set_allowed([])
            self.call('Release', U(cookie))

    def test_rows(self):
        self.run_rows()
        self.assertEqual(self.pins(), [])


class TableCoverage(unittest.TestCase):
    """Every name the manual lists for a method has a row, and every row's
    name is one the manual lists for its method."""

    def test_every_documented_name_has_a_row(self):
        documented = documented_errors()
        rows = {(r[0], r[1]) for cls in (ManagerErrors, BusyErrors, CalibrationErrors, ModeErrors, PinErrors)
                for r in cls.ROWS}
        self.assertEqual(len(documented), 16, sorted(documented))
        missing = sorted((m, n) for m, names in documented.items() for n in names
                         if (m, n) not in rows and (SAME_AS.get(m), n) not in rows)
        self.assertEqual(missing, [], 'documented errors without a row')
        undocumented = sorted((m, n) for m, n in rows if n not in documented.get(m, ()))
        self.assertEqual(undocumented, [], 'rows whose name the manual does not list for the method')


if __name__ == '__main__':
    T.main()
