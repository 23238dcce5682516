# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared fixture for the integration suite.

Every test gets its own world: a fake sysfs/procfs tree made by
make-faketree, a private system bus (our own dbus-daemon config, listening on
a socket in the test's temp dir), optionally a polkit mock
(python3-dbusmock's polkitd template) and the real idlepolicyd with
--root TREE --runtime-dir RT --tick-usec 100000, in observe mode (the
policy learns but writes nothing unless a test asks for enforce) with its
state directory and profile overrides in the test's temp dir.  Tests drive it with the
real clients (busctl, idlepolicyctl) and with dbus-python, and compare what
they see with the files in the tree.

Run with Debian's /usr/bin/python3 (python3-dbus, python3-dbusmock).  The
programs come from the environment: IDLEPOLICYD, IDLEPOLICYCTL, MAKE_FAKETREE
(meson sets them); without them the test exits 77 (skip).
"""

import ctypes
import json
import re
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

try:
    import dbus
except ImportError:  # pragma: no cover - depends on the interpreter
    print('python3-dbus is missing (run with /usr/bin/python3); skipping', file=sys.stderr)
    sys.exit(77)

BUS_NAME = 'org.idlepolicy.IdlePolicy1'
ROOT_PATH = '/org/idlepolicy/IdlePolicy1'
MANAGER_IFACE = BUS_NAME + '.Manager'
CPU_IFACE = BUS_NAME + '.CPU'
ERROR_PREFIX = BUS_NAME + '.Error.'
PROPS_IFACE = 'org.freedesktop.DBus.Properties'
OBJMGR_IFACE = 'org.freedesktop.DBus.ObjectManager'
POLKIT_NAME = 'org.freedesktop.PolicyKit1'
POLKIT_PATH = '/org/freedesktop/PolicyKit1/Authority'
MOCK_IFACE = 'org.freedesktop.DBus.Mock'
ALL_CPUS = 0xffffffff
LATENCY_NA = 0xffffffff
LATENCY_MAX = 2147483646
TICK_USEC = 100000
NOBODY = 65534

CPU_DIR = 'sys/devices/system/cpu'
CPUIDLE_DIR = CPU_DIR + '/cpuidle'
HALTPOLL_DIR = 'sys/module/haltpoll/parameters'
GOVERNOR_FILE = CPUIDLE_DIR + '/current_governor'
JOURNAL_FILE = 'restore.journal'

ACTIONS = {
    'SetGovernor': BUS_NAME + '.set-governor',
    'SetStateDisabled': BUS_NAME + '.set-state',
    'SetResumeLatency': BUS_NAME + '.set-resume-latency',
    'Restore': BUS_NAME + '.restore',
    'SetProfile': BUS_NAME + '.set-profile',
    'SetMode': BUS_NAME + '.set-mode',
    'Calibrate': BUS_NAME + '.calibrate',
    'SetConsolidation': BUS_NAME + '.consolidate',
}

# The calibration helper's stand-in (see mock-calibrate).
MOCK_CALIBRATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'mock-calibrate')

# The built-in profiles (conf/profiles in the source tree).
PROFILE_DIR = os.environ.get('IDLEPOLICY_PROFILES') or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', 'conf', 'profiles')

BUS_CONFIG = '''<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
'''


def program(var):
    """Returns the path of a program named by an environment variable, or
    exits 77 (skip) when it is not set or not executable."""
    path = os.environ.get(var)
    if not path or not os.access(path, os.X_OK):
        print(f'{var} is not set to an executable ({path!r}); skipping', file=sys.stderr)
        sys.exit(77)
    return path


def skip_unless_runnable():
    """Exits 77 when this machine cannot run the suite."""
    for tool in ('dbus-daemon', 'busctl', 'setpriv', 'chattr'):
        if shutil.which(tool) is None:
            print(f'{tool} not found; skipping', file=sys.stderr)
            sys.exit(77)
    if os.geteuid() != 0:
        # Root is needed for setpriv (unprivileged callers) and chattr
        # (write failures); the daemon itself only writes to the temp tree.
        print('not root; skipping', file=sys.stderr)
        sys.exit(77)


def skip_unless_cpus_usable(cpus):
    """Exits 77 when this process may not run on every CPU of cpus (a pid
    pin changes a real process's affinity)."""
    if not set(cpus) <= os.sched_getaffinity(0):
        print(f'CPUs {sorted(cpus)} are not all usable here; skipping', file=sys.stderr)
        sys.exit(77)


def wait_for(predicate, timeout=10.0, interval=0.05, what='condition'):
    """Polls predicate() until it returns a true value (returned) or raises
    AssertionError after timeout seconds."""
    deadline = time.monotonic() + timeout
    last_exc = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except Exception as e:  # noqa: BLE001 - retried until the deadline
            last_exc = e
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out after {timeout}s waiting for {what}'
                                 + (f' (last error: {last_exc!r})' if last_exc else ''))
        time.sleep(interval)


# ---- the tree ---------------------------------------------------------------

def journal_live(text):
    """{key: original} of a restore journal's text (idlepolicyd(8),
    RESTORE JOURNAL): "KEY VALUE" records, the first of a key wins, "-KEY"
    forgets it (a later record is a new original)."""
    entries = {}
    for line in text.split('\n'):
        if not line or line.startswith('#'):
            continue
        if line.startswith('-'):
            entries.pop(line[1:], None)
            continue
        key, _, value = line.partition(' ')
        entries.setdefault(key, value)
    return entries


def read(tree, rel):
    """Returns the stripped content of tree/rel."""
    with open(os.path.join(tree, rel), encoding='utf-8', errors='replace') as f:
        return f.read().strip()


def write(tree, rel, value):
    with open(os.path.join(tree, rel), 'w', encoding='utf-8') as f:
        f.write(value + '\n')


def snapshot_tree(tree):
    """Returns {relpath: content bytes or '<dir>' or '<symlink:target>'} for
    everything under tree, so two snapshots compare the whole tree."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(tree):
        rel_dir = os.path.relpath(dirpath, tree)
        for d in dirnames:
            p = os.path.join(dirpath, d)
            rel = os.path.normpath(os.path.join(rel_dir, d))
            snap[rel] = f'<symlink:{os.readlink(p)}>' if os.path.islink(p) else '<dir>'
        for fn in filenames:
            p = os.path.join(dirpath, fn)
            rel = os.path.normpath(os.path.join(rel_dir, fn))
            if os.path.islink(p):
                snap[rel] = f'<symlink:{os.readlink(p)}>'
            else:
                with open(p, 'rb') as f:
                    snap[rel] = f.read()
    return snap


def diff_snapshots(a, b):
    """Returns a readable list of the differences between two snapshots."""
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            out.append(f'{k}: {a.get(k)!r} -> {b.get(k)!r}')
    return out


def parse_cpu_list(text):
    """Parses the kernel's list syntax ("0-2,5") into a sorted list."""
    cpus = []
    text = text.strip()
    if not text:
        return cpus
    for part in text.split(','):
        if '-' in part:
            lo, hi = part.split('-')
            cpus.extend(range(int(lo), int(hi) + 1))
        else:
            cpus.append(int(part))
    return sorted(cpus)


def affinity(pid, tid=None):
    """The Cpus_allowed_list of a process (or one of its threads) as a
    sorted list of CPUs."""
    path = f'/proc/{pid}/task/{tid}/status' if tid else f'/proc/{pid}/status'
    with open(path, encoding='ascii') as f:
        return parse_cpu_list(re.search(r'^Cpus_allowed_list:\s*(\S+)', f.read(), re.M).group(1))


def state_dirs(tree, cpu):
    """Returns the sorted state indexes present under cpuN/cpuidle."""
    d = os.path.join(tree, CPU_DIR, f'cpu{cpu}', 'cpuidle')
    if not os.path.isdir(d):
        return []
    return sorted(int(n[5:]) for n in os.listdir(d) if n.startswith('state') and n[5:].isdigit())


def state_file(cpu, state, name):
    return f'{CPU_DIR}/cpu{cpu}/cpuidle/state{state}/{name}'


def latency_file(cpu):
    return f'{CPU_DIR}/cpu{cpu}/power/pm_qos_resume_latency_us'


def tree_present_cpus(tree):
    return parse_cpu_list(read(tree, CPU_DIR + '/present'))


def tree_online_cpus(tree):
    if os.path.exists(os.path.join(tree, CPU_DIR, 'online')):
        return parse_cpu_list(read(tree, CPU_DIR + '/online'))
    return tree_present_cpus(tree)


def tree_state_names(tree, cpu):
    return [read(tree, state_file(cpu, k, 'name')) for k in state_dirs(tree, cpu)]


def tree_latency(tree, cpu):
    v = read(tree, latency_file(cpu))
    return LATENCY_NA if v == 'n/a' else int(v)


def knob_values(tree):
    """Returns {relpath: value} for every knob the daemon may write."""
    knobs = {GOVERNOR_FILE: read(tree, GOVERNOR_FILE)}
    for cpu in tree_present_cpus(tree):
        for k in state_dirs(tree, cpu):
            rel = state_file(cpu, k, 'disable')
            knobs[rel] = read(tree, rel)
        if os.path.exists(os.path.join(tree, latency_file(cpu))):
            knobs[latency_file(cpu)] = read(tree, latency_file(cpu))
    return knobs


# Temp dirs of the tests in progress, removed by _on_signal when the test
# runner stops us (meson's timeout sends SIGTERM): unittest's cleanups do
# not run then.  The children get SIGTERM from the kernel (_die_with_parent).
_LIVE_TMP = {}


def _remove_tmp(path):
    """Removes a test's temp dir (made mutable again first)."""
    for p in _LIVE_TMP.pop(path, []):
        subprocess.run(['chattr', '-i', p], check=False)
    shutil.rmtree(path, ignore_errors=True)


def _on_signal(signum, _frame):
    for path in list(_LIVE_TMP):
        _remove_tmp(path)
    os._exit(128 + signum)


for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_sig, _on_signal)


def _die_with_parent():
    """preexec_fn: SIGTERM this child when the test process dies, however it
    dies (a SIGTERM'ed idlepolicyd restores its knobs)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


class Process:
    """A child process with a log file, in its own process group (so that a
    signal meant for the test does not reach it first); it gets SIGTERM when
    the test process dies."""

    def __init__(self, argv, log_path, env):
        self.argv = argv
        self.log_path = log_path
        with open(log_path, 'ab') as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                         preexec_fn=_die_with_parent)
        self.pid = self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def signal(self, sig):
        if self.alive():
            os.kill(self.pid, sig)

    def wait(self, timeout=10.0):
        """Returns the exit status (negative = killed by that signal)."""
        return self.proc.wait(timeout=timeout)

    def stop(self, timeout=5.0):
        """SIGTERM, then SIGKILL after timeout.  Returns the exit status."""
        if self.alive():
            try:
                os.kill(self.pid, signal.SIGTERM)
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.pid, signal.SIGKILL)
                self.proc.wait()
            except ProcessLookupError:
                pass
        return self.proc.returncode

    def output(self):
        with open(self.log_path, 'rb') as f:
            return f.read().decode('utf-8', 'replace')


class IdlePolicyTestCase(unittest.TestCase):
    """Base class: one fake tree, one bus, (optionally) a polkit mock and the
    daemon per test.  Subclasses tune TREE_ARGS, START_POLKIT and
    START_DAEMON."""

    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll',
                 '--governor', 'haltpoll']
    START_POLKIT = True
    START_DAEMON = True

    # CPUs a test changes real processes' affinity to (pid pins): the
    # class skips (77) where they are not all usable.
    AFFINITY_CPUS = ()

    @classmethod
    def setUpClass(cls):
        skip_unless_runnable()
        if cls.AFFINITY_CPUS:
            skip_unless_cpus_usable(cls.AFFINITY_CPUS)
        cls.daemon_exe = program('IDLEPOLICYD')
        cls.ctl_exe = program('IDLEPOLICYCTL')
        cls.faketree_exe = program('MAKE_FAKETREE')
        cls.python = os.environ.get('PYTHON3', '/usr/bin/python3')

    # Where the test's temp dir goes (None: $TMPDIR), and whether the whole
    # tree is snapshotted for assert_tree_unchanged() (a huge tree skips it).
    TMP_PARENT = None
    SNAPSHOT_TREE = True

    def daemon_start_argv(self):
        """The argv the base setUp starts the daemon with (None: the default)."""
        return None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='idlepolicy-it-', dir=self.TMP_PARENT)
        # uid 65534 must reach the bus socket in here.
        os.chmod(self.tmp, 0o755)
        self.immutable = []
        _LIVE_TMP[self.tmp] = self.immutable
        self.addCleanup(_remove_tmp, self.tmp)
        self.tree = os.path.join(self.tmp, 'tree')
        self.runtime_dir = os.path.join(self.tmp, 'run')
        os.mkdir(self.runtime_dir)
        self.state_dir = os.path.join(self.tmp, 'state')
        self.profiles_d = os.path.join(self.tmp, 'profiles.d')
        os.mkdir(self.profiles_d)
        self.make_tree(self.tree, self.TREE_ARGS)
        if self.SNAPSHOT_TREE:
            self.original = snapshot_tree(self.tree)
            self.original_knobs = knob_values(self.tree)
        self.start_bus()
        self.polkit = None
        if self.START_POLKIT:
            self.start_polkit()
        self.daemon = None
        self.daemon_runs = 0
        if self.START_DAEMON:
            argv = self.daemon_start_argv()
            if argv is None:
                self.start_daemon()
            else:
                self.start_daemon(argv=argv)

    # -- infrastructure --

    def make_tree(self, path, args):
        r = subprocess.run([self.faketree_exe, path] + list(args),
                           capture_output=True, text=True, check=False)
        self.assertEqual(r.returncode, 0, f'make-faketree {args} failed: {r.stderr}')

    def tick_tree(self, n=1):
        """Advances the tree's counters n times with make-faketree --tick."""
        for _ in range(n):
            r = subprocess.run([self.faketree_exe, self.tree, '--tick'],
                               capture_output=True, text=True, check=False)
            self.assertEqual(r.returncode, 0, f'make-faketree --tick failed: {r.stderr}')

    def env(self, **extra):
        env = dict(os.environ)
        env['DBUS_SYSTEM_BUS_ADDRESS'] = self.bus_address
        env.pop('DBUS_SESSION_BUS_ADDRESS', None)
        env['SYSTEMD_COLORS'] = '0'
        env['SYSTEMD_PAGER'] = ''
        env['LC_ALL'] = 'C.UTF-8'
        env.update(extra)
        return env

    def start_bus(self):
        socket = os.path.join(self.tmp, 'system_bus_socket')
        conf = os.path.join(self.tmp, 'bus.conf')
        with open(conf, 'w', encoding='utf-8') as f:
            f.write(BUS_CONFIG.format(socket=socket))
        self.bus_address = f'unix:path={socket}'
        self.bus_proc = Process(['dbus-daemon', '--nofork', '--nopidfile', f'--config-file={conf}'],
                                os.path.join(self.tmp, 'dbus-daemon.log'), dict(os.environ))
        self.addCleanup(self.bus_proc.stop)
        wait_for(lambda: os.path.exists(socket), what='the bus socket')
        self.bus = wait_for(lambda: dbus.bus.BusConnection(self.bus_address), what='a bus connection')
        self.addCleanup(self.bus.close)

    def start_polkit(self):
        """Starts the polkitd mock (denies everything until set_allowed)."""
        self.polkit_log = os.path.join(self.tmp, 'polkit-calls.log')
        self.polkit = Process([self.python, '-m', 'dbusmock', '--system', '-t', 'polkitd',
                               '-l', self.polkit_log],
                              os.path.join(self.tmp, 'polkit.log'), self.env())
        self.addCleanup(self.stop_polkit)
        wait_for(lambda: self.bus.name_has_owner(POLKIT_NAME) or not self.polkit.alive(),
                 what='the polkit mock')
        self.assertTrue(self.polkit.alive(), 'polkit mock died: ' + self.polkit.output())

    def stop_polkit(self):
        if self.polkit:
            self.polkit.stop()
            self.polkit = None

    def polkit_mock(self):
        return dbus.Interface(self.bus.get_object(POLKIT_NAME, POLKIT_PATH), MOCK_IFACE)

    def set_allowed(self, actions):
        self.polkit_mock().SetAllowed(dbus.Array(actions, signature='s'))

    def polkit_checked_actions(self):
        """Returns the action ids the daemon asked the polkit mock about."""
        if not os.path.exists(self.polkit_log):
            return []
        with open(self.polkit_log, encoding='utf-8', errors='replace') as f:
            text = f.read()
        return [a for a in ACTIONS.values() if a in text]

    def policy_args(self, mode='observe'):
        """The daemon options that keep the policy inside the test: the mode
        (None: the persisted one), the state dir and the profile dirs."""
        args = ['--state-dir', self.state_dir, '--profile-dir', PROFILE_DIR,
                '--profile-override-dir', self.profiles_d, '--calibrate-helper', MOCK_CALIBRATE]
        return args + (['--mode', mode] if mode else [])

    def daemon_argv(self, extra=(), mode='observe'):
        return [self.daemon_exe, '--root', self.tree, '--runtime-dir', self.runtime_dir,
                '--tick-usec', str(TICK_USEC)] + self.policy_args(mode) + list(extra)

    def start_daemon(self, extra=(), argv=None, env=None, mode='observe'):
        """Starts idlepolicyd and waits until it owns its bus name.  env:
        extra environment (for mock-calibrate); mode: --mode (None: the
        persisted one)."""
        self.daemon_runs += 1
        log = os.path.join(self.tmp, f'idlepolicyd-{self.daemon_runs}.log')
        self.daemon = Process(argv or self.daemon_argv(extra, mode), log,
                              self.env(IDLEPOLICY_MOCK_TREE=self.tree, **(env or {})))
        self.addCleanup(self._stop_daemon_and_dump, self.daemon)
        wait_for(lambda: self.bus.name_has_owner(BUS_NAME) or not self.daemon.alive(),
                 timeout=15, what='idlepolicyd on the bus')
        self.assertTrue(self.daemon.alive(),
                        f'idlepolicyd exited with {self.daemon.proc.returncode}:\n{self.daemon.output()}')
        return self.daemon

    def _stop_daemon_and_dump(self, proc):
        proc.stop()
        out = proc.output()
        if out:
            sys.stderr.write(f'---- {" ".join(proc.argv[:1])} log ({proc.log_path}) ----\n{out}'
                             '---- end of log ----\n')

    def stop_daemon(self, sig=signal.SIGTERM, timeout=10):
        """Sends sig and waits for the exit.  Returns the exit status."""
        self.daemon.signal(sig)
        rc = self.daemon.wait(timeout)
        wait_for(lambda: not self.bus.name_has_owner(BUS_NAME), what='the bus name to go away')
        return rc

    def assert_daemon_alive(self):
        self.assertTrue(self.daemon.alive(), 'idlepolicyd died:\n' + self.daemon.output())
        # ...and still answers.
        self.assertTrue(self.manager_props()['Version'])

    # -- D-Bus access --

    def obj(self, path=ROOT_PATH, bus=None):
        return (bus or self.bus).get_object(BUS_NAME, path, introspect=False)

    def manager(self, bus=None):
        return dbus.Interface(self.obj(bus=bus), MANAGER_IFACE)

    def manager_props(self):
        return dbus.Interface(self.obj(), PROPS_IFACE).GetAll(MANAGER_IFACE)

    def manager_prop(self, name):
        return dbus.Interface(self.obj(), PROPS_IFACE).Get(MANAGER_IFACE, name)

    def cpu_path(self, cpu):
        return f'{ROOT_PATH}/cpu/{cpu}'

    def cpu_props(self, cpu):
        return dbus.Interface(self.obj(self.cpu_path(cpu)), PROPS_IFACE).GetAll(CPU_IFACE)

    def cpu_prop(self, cpu, name):
        return dbus.Interface(self.obj(self.cpu_path(cpu)), PROPS_IFACE).Get(CPU_IFACE, name)

    def call(self, method, *args):
        """Calls a Manager method as root (through dbus-python)."""
        return getattr(self.manager(), method)(*args, timeout=30)

    def assert_dbus_error(self, name, method, *args):
        """Calls method and asserts it fails with ERROR_PREFIX + name.
        Returns the error message."""
        with self.assertRaises(dbus.exceptions.DBusException) as cm:
            self.call(method, *args)
        self.assertEqual(cm.exception.get_dbus_name(), ERROR_PREFIX + name,
                         f'{method}{args}: {cm.exception}')
        return cm.exception.get_dbus_message()

    def busctl(self, *args, user=None, check=True, json_out=False):
        """Runs busctl on the private bus (as root, or as uid user through
        setpriv).  Returns the CompletedProcess (stdout parsed as JSON with
        json_out)."""
        argv = ['busctl', f'--address={self.bus_address}', '--no-pager']
        if json_out:
            argv.append('--json=short')
        argv += [str(a) for a in args]
        if user is not None:
            argv = ['setpriv', f'--reuid={user}', f'--regid={user}', '--clear-groups'] + argv
        r = subprocess.run(argv, capture_output=True, text=True, env=self.env(), timeout=60, check=False)
        if check:
            self.assertEqual(r.returncode, 0, f'{argv} failed: {r.stderr}')
        if json_out and r.returncode == 0:
            r.json = json.loads(r.stdout)
        return r

    def busctl_get(self, path, iface, prop):
        """Returns the 'data' of busctl --json=short get-property."""
        return self.busctl('get-property', BUS_NAME, path, iface, prop, json_out=True).json['data']

    def dbus_send(self, method, *typed_args, user=None):
        """Calls a Manager method with dbus-send (prints the error name).
        Returns the CompletedProcess."""
        argv = ['dbus-send', f'--bus={self.bus_address}', '--print-reply', f'--dest={BUS_NAME}',
                ROOT_PATH, f'{MANAGER_IFACE}.{method}'] + list(typed_args)
        if user is not None:
            argv = ['setpriv', f'--reuid={user}', f'--regid={user}', '--clear-groups'] + argv
        return subprocess.run(argv, capture_output=True, text=True, env=self.env(), timeout=60, check=False)

    def ctl(self, *args, check=True, user=None):
        """Runs idlepolicyctl.  Returns the CompletedProcess."""
        argv = [self.ctl_exe] + [str(a) for a in args]
        if user is not None:
            argv = ['setpriv', f'--reuid={user}', f'--regid={user}', '--clear-groups'] + argv
        r = subprocess.run(argv, capture_output=True, text=True, env=self.env(), timeout=60, check=False)
        if check:
            self.assertEqual(r.returncode, 0, f'idlepolicyctl {args} failed ({r.returncode}): {r.stderr}')
        return r

    # -- tree helpers --

    def online_cpus(self):
        return tree_online_cpus(self.tree)

    def present_cpus(self):
        return tree_present_cpus(self.tree)

    def state_names(self, cpu=0):
        return tree_state_names(self.tree, cpu)

    def read(self, rel):
        return read(self.tree, rel)

    def assert_tree_unchanged(self, reference=None, msg=''):
        diff = diff_snapshots(reference if reference is not None else self.original,
                              snapshot_tree(self.tree))
        self.assertEqual(diff, [], f'the tree changed {msg}:\n' + '\n'.join(diff))

    def make_immutable(self, rel):
        """chattr +i on a tree file: root's writes fail with EPERM, reads work."""
        p = os.path.join(self.tree, rel)
        subprocess.run(['chattr', '+i', p], check=True)
        self.immutable.append(p)

    def ticking(self, period=0.03):
        """Context manager: advances the tree's counters every period seconds
        in a background thread (the daemon sees a delta every tick)."""
        return _Ticker(self, period)

    def journal_entries(self):
        """Returns {key: original} of the knobs the restore journal in the
        runtime dir holds, or None when there is no journal."""
        p = os.path.join(self.runtime_dir, JOURNAL_FILE)
        if not os.path.exists(p):
            return None
        with open(p, encoding='utf-8') as f:
            return journal_live(f.read())


class Periodic:
    """Context manager: calls step() every period seconds in a thread until
    the block ends; a step that fails stops the thread, and the failure is
    raised at the end of the block."""

    what = 'a periodic step'

    def __init__(self, test, period):
        self.test = test
        self.period = period
        self.stop = threading.Event()
        self.errors = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def step(self):
        raise NotImplementedError

    def _run(self):
        while not self.stop.is_set():
            try:
                self.step()
            except (OSError, RuntimeError) as e:  # noqa: PERF203 - reported at exit
                self.errors.append(str(e))
                return
            self.stop.wait(self.period)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        if self.errors and exc[0] is None:
            raise AssertionError(self.what + ' failed: ' + self.errors[0])
        return False


class _Ticker(Periodic):
    what = 'make-faketree --tick'

    def step(self):
        r = subprocess.run([self.test.faketree_exe, self.test.tree, '--tick'],
                           capture_output=True, text=True, check=False)
        if r.returncode != 0:
            raise RuntimeError(r.stderr)


def main():
    """Runs the module's tests; exits 77 (meson's skip) when every test was
    skipped (the reasons are in the verbose output)."""
    result = unittest.main(verbosity=2, exit=False).result
    if result.testsRun and len(result.skipped) == result.testsRun and result.wasSuccessful():
        sys.exit(77)
    sys.exit(not result.wasSuccessful())
