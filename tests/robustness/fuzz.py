#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The fuzz harness of issue 10: the real idlepolicyd on a fake tree and a
private bus (the integration fixture) under

  BadInput    every Manager method, the CPU objects and the properties with
              wrong types, wrong arities, unknown and offline CPUs,
              non-canonical state indexes ("01", "1\\n", " 1", ...), names
              with control characters, 64 KiB strings, strings that are not
              UTF-8 (sent on a raw socket: the bus must drop the sender),
              unknown governors and profiles, latencies at and beyond the
              limits.  Each bad
              call must get its named error (org.idlepolicy.IdlePolicy1.
              Error.*, or the standard org.freedesktop.DBus.Error.* of a
              type, method or property the bus API itself refuses), change
              no knob, and the daemon keeps running; no control character
              of the input reaches the daemon's log.
  Concurrent  --clients processes, each on its own bus connection,
              hammering valid and invalid calls for --seconds; then
              SIGTERM: exit status 0, every knob as found, the daemon's fd
              count bounded.
  FdLeak      one disable knob made immutable after the daemon changed it,
              then 200 SetStateDisabled + Restore cycles on another knob
              (each Restore fails with WriteFailed and keeps the immutable
              one): the fd count must not grow with the cycles.
  KillLoop    --kills times: a client changes knobs (SetStateDisabled,
              SetResumeLatency, SetGovernor, SetMode enforce), the daemon is
              SIGKILLed at a random moment, restarted (the restart replays
              the journal: every knob as found before it takes the bus
              name); finally SIGTERM: every knob as found.

Each phase prints its counts as one JSON line ("FUZZ {...}") and the run
ends with all of them in one JSON object on stdout (and in --json FILE).
The meson suite runs each phase in its bounded form (meson test --suite
robustness); long runs by hand, as root, e.g.

    IDLEPOLICYD=build/daemon/idlepolicyd IDLEPOLICYCTL=build/ctl/idlepolicyctl \\
    MAKE_FAKETREE=build/tests/make-faketree \\
    tests/robustness/fuzz.py --seconds 600 --clients 8 --kills 300 --seed 7

Any unittest arguments after the options select phases (e.g. "KillLoop").
"""

import argparse
import json
import os
import random
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rawbus  # noqa: E402
import robustnesstest as R  # noqa: E402

T = R.T
U = R.U
dbus = T.dbus

STD = 'org.freedesktop.DBus.Error.'
INVALID_ARGS = STD + 'InvalidArgs'
# Standard errors a bad call may rightly get from sd-bus itself.
STD_REFUSALS = {INVALID_ARGS, STD + 'UnknownMethod', STD + 'UnknownProperty', STD + 'UnknownInterface',
                STD + 'UnknownObject', STD + 'PropertyReadOnly'}
# Errors that mean the daemon did not answer: a hang or a crash.
DEAD = {STD + 'NoReply', STD + 'ServiceUnknown', STD + 'NameHasNoOwner', STD + 'Disconnected',
        STD + 'Timeout', STD + 'TimedOut'}
CALL_TIMEOUT_S = 5                 # "answers within 5 s"
FD_GROWTH_MAX = 4                  # fds a run may leave open beyond its settled start (not one per call)
FD_LEAK_CYCLES = 200
HUGE = 'x' * 65536
NON_CANONICAL = ['01', '00', '0000001', '1\n', ' 1', '+1', '1 ']

OPTS = argparse.Namespace(seconds=8.0, clients=4, kills=30, seed=1, json=None)
RESULTS = {}


def short(name):
    return name[len(T.ERROR_PREFIX):] if name and name.startswith(T.ERROR_PREFIX) else name


def bump(d, key, n=1):
    d[key] = d.get(key, 0) + n


def report(phase, counts):
    RESULTS[phase] = counts
    print('FUZZ ' + json.dumps({phase: counts}, sort_keys=True), flush=True)


def raw_call(bus, path, iface, method, sig, args):
    """Calls method with an explicit signature (any types, any arity).
    Returns (None, reply) or (error name, message)."""
    try:
        return None, bus.call_blocking(T.BUS_NAME, path, iface, method, sig, args, timeout=CALL_TIMEOUT_S)
    except dbus.exceptions.DBusException as e:
        return e.get_dbus_name() or 'unnamed', e.get_dbus_message()


# ---- bad input ---------------------------------------------------------------

def bad_cases(n_states):
    """Returns [(label, path, iface, method, signature, args, expected)]:
    expected is an error name or a set of acceptable ones."""
    M, C, P = T.MANAGER_IFACE, T.CPU_IFACE, T.PROPS_IFACE
    root, cpu0 = T.ROOT_PATH, T.ROOT_PATH + '/cpu/0'
    E = T.ERROR_PREFIX
    cases = []

    def add(label, method, sig, args, expected, path=root, iface=M):
        cases.append((label, path, iface, method, sig, list(args), expected))

    ctrl = ['a\x01b', 'menu\x1b[31m', 'C1\x07', '\t', '\r\nInjected: line', 'x\x7f']
    # SetGovernor
    for gov in ['', 'nosuch', '../../../etc/passwd', '/etc/passwd', 'menu\n', ' menu', 'menu ', 'MENU',
                'teo', 'menu menu', HUGE] + ctrl:
        add(f'SetGovernor({gov[:20]!r})', 'SetGovernor', 's', [gov], E + 'UnknownGovernor')
    # SetStateDisabled: CPUs
    for cpu in (4, 99, 1 << 20, 0xfffffffe):
        add(f'SetStateDisabled(cpu={cpu})', 'SetStateDisabled', 'usb', [cpu, '0', True], E + 'UnknownCPU')
    add('SetStateDisabled(offline cpu 2)', 'SetStateDisabled', 'usb', [2, '0', True], E + 'CPUOffline')
    add('SetStateDisabled(offline cpu 2, off)', 'SetStateDisabled', 'usb', [2, '1', False], E + 'CPUOffline')
    # ...states: non-canonical indexes (item 7), out of range, names.
    states = NON_CANONICAL + ['', 'NOPE', '-1', str(n_states), '10', '4294967296', '99999999999999999999',
                              '0x1', '1.0', '1e0', 'poll', 'POLL\n', 'POLL ', HUGE] + ctrl
    for state in states:
        for cpu in (0, T.ALL_CPUS):
            for disabled in (True, False):
                add(f'SetStateDisabled({cpu}, {state[:20]!r}, {disabled})', 'SetStateDisabled', 'usb',
                    [cpu, state, disabled], E + 'UnknownState')
    # SetResumeLatency
    for cpu in (4, 99, 0xfffffffe):
        add(f'SetResumeLatency(cpu={cpu})', 'SetResumeLatency', 'uu', [cpu, 10], E + 'UnknownCPU')
    add('SetResumeLatency(offline cpu 2)', 'SetResumeLatency', 'uu', [2, 10], E + 'CPUOffline')
    for usec in (T.LATENCY_MAX + 1, T.LATENCY_MAX + 2, 3000000000, 0xfffffffe):
        for cpu in (0, T.ALL_CPUS):
            add(f'SetResumeLatency({cpu}, {usec})', 'SetResumeLatency', 'uu', [cpu, usec], E + 'InvalidLatency')
    # SetProfile, PreviewProfile / SetMode
    for name in ['', 'nosuch', '../../../etc/passwd', 'balanced\n', 'balanced ', 'Balanced', HUGE] + ctrl:
        add(f'SetProfile({name[:20]!r})', 'SetProfile', 's', [name], E + 'UnknownProfile')
        add(f'PreviewProfile({name[:20]!r})', 'PreviewProfile', 's', [name], E + 'UnknownProfile')
    for mode in ['', 'Enforce', 'observe\n', ' observe', 'enforce ', 'both', HUGE] + ctrl:
        add(f'SetMode({mode[:20]!r})', 'SetMode', 's', [mode], E + 'InvalidMode')
    # Wrong types and arities: refused by sd-bus before the handler.
    wrong = {
        'SetGovernor': [('u', [5]), ('as', [['menu']]), ('', []), ('ss', ['menu', 'menu']), ('v', [dbus.String('menu', variant_level=1)])],
        'SetStateDisabled': [('ssb', ['0', '0', True]), ('usu', [0, '0', 1]), ('u', [0]), ('', []),
                             ('usbs', [0, '0', True, 'x']), ('isb', [-1, '0', True]), ('tsb', [0, '0', True]),
                             ('uub', [0, 1, True])],
        'SetResumeLatency': [('ii', [-1, -1]), ('ut', [0, 5]), ('uuu', [0, 5, 5]), ('su', ['0', 5]), ('u', [0]),
                             ('', []), ('ud', [0, 1.5])],
        'Restore': [('s', ['now']), ('u', [1])],
        'SetProfile': [('u', [1]), ('', []), ('ss', ['balanced', 'x'])],
        'PreviewProfile': [('u', [1]), ('', []), ('ss', ['balanced', 'x'])],
        'SetMode': [('b', [True]), ('', []), ('as', [['enforce']])],
        'Calibrate': [('u', [1]), ('s', ['now'])],
    }
    for method, variants in wrong.items():
        for sig, args in variants:
            add(f'{method} with signature {sig!r}', method, sig, args, INVALID_ARGS)
    # Unknown methods, objects, interfaces, properties.
    add('Manager.SetGovernors', 'SetGovernors', 's', ['menu'], STD + 'UnknownMethod')
    add('CPU.SetStateDisabled', 'SetStateDisabled', 'usb', [0, '0', True], STD + 'UnknownMethod',
        path=cpu0, iface=C)
    add('CPU.Restore', 'Restore', '', [], STD + 'UnknownMethod', path=cpu0, iface=C)
    for path in (root + '/cpu/99', root + '/cpu/4', root + '/cpu/01', root + '/cpu/abc', root + '/cpu/_1',
                 root + '/cpu/0/x'):
        add(f'GetAll on {path}', 'GetAll', 's', [C], {STD + 'UnknownObject', STD + 'UnknownMethod',
                                                     STD + 'UnknownInterface'}, path=path, iface=P)
    for iface in ('org.idlepolicy.IdlePolicy1.Nope', M + 'X'):
        add(f'GetAll({iface})', 'GetAll', 's', [iface], {STD + 'UnknownInterface', INVALID_ARGS}, iface=P)
    for prop in ('Nope', 'governor', 'Governor\n', HUGE[:255]):
        add(f'Get(Manager, {prop[:20]!r})', 'Get', 'ss', [M, prop], {STD + 'UnknownProperty', INVALID_ARGS},
            iface=P)
    add('Get(CPU, Nope)', 'Get', 'ss', [C, 'Nope'], {STD + 'UnknownProperty', INVALID_ARGS}, path=cpu0, iface=P)
    for prop, value in (('Governor', dbus.String('menu', variant_level=1)),
                        ('Mode', dbus.String('enforce', variant_level=1)),
                        ('ActiveProfile', dbus.String('latency', variant_level=1)),
                        ('TickUSec', dbus.UInt64(1, variant_level=1)),
                        ('Changed', dbus.Array([], signature='(ss)', variant_level=1)),
                        ('Governor', dbus.UInt32(5, variant_level=1))):
        add(f'Set(Manager.{prop})', 'Set', 'ssv', [M, prop, value], {STD + 'PropertyReadOnly', INVALID_ARGS},
            iface=P)
    for prop, value in (('ResumeLatencyUSec', dbus.UInt32(5, variant_level=1)),
                        ('Online', dbus.Boolean(False, variant_level=1)),
                        ('Cap', dbus.UInt32(0, variant_level=1))):
        add(f'Set(CPU.{prop})', 'Set', 'ssv', [C, prop, value], {STD + 'PropertyReadOnly', INVALID_ARGS},
            path=cpu0, iface=P)
    add('Get with signature s', 'Get', 's', [M], INVALID_ARGS, iface=P)
    return cases


BAD_UTF8 = [b'\xff\xfe', b'menu\xc0\xaf', b'\xed\xa0\x80', b'C1\x80']


def bad_utf8_calls(raws=BAD_UTF8):
    """Returns [(label, member, signature, body)]: string arguments that
    are not UTF-8, which dbus-python will not send."""
    calls = []
    for raw in raws:
        for member in (b'SetGovernor', b'SetProfile', b'SetMode'):
            calls.append((f'{member.decode()}({raw!r})', member, b's', rawbus.string(raw)))
        body = struct.pack('<I', 0) + rawbus.string(raw, 4)
        body += b'\0' * (-len(body) % 4) + struct.pack('<I', 1)
        calls.append((f'SetStateDisabled(0, {raw!r}, true)', b'SetStateDisabled', b'usb', body))
    return calls


# Valid calls at the limits: they may succeed; Restore() must then put
# every knob back.
EDGE_CALLS = [('SetResumeLatency', 'uu', [0, 0]), ('SetResumeLatency', 'uu', [0, 1]),
              ('SetResumeLatency', 'uu', [0, T.LATENCY_MAX]), ('SetResumeLatency', 'uu', [1, T.LATENCY_NA]),
              ('SetResumeLatency', 'uu', [T.ALL_CPUS, T.LATENCY_MAX]),
              ('SetStateDisabled', 'usb', [T.ALL_CPUS, '0', True]), ('SetStateDisabled', 'usb', [0, '2', True]),
              ('SetStateDisabled', 'usb', [3, 'POLL', True]), ('SetGovernor', 's', ['ladder'])]


class FuzzCase(R.RobustTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll',
                 '--governors', 'ladder menu haltpoll', '--offline', '2']


class BadInput(FuzzCase):

    def test_bad_input(self):
        rng = random.Random(OPTS.seed)
        cases = bad_cases(len(self.state_names(0)))
        rng.shuffle(cases)
        counts = {'calls': 0, 'errors': {}, 'unexpected_successes': 0, 'wrong_errors': 0,
                  'knobs_changed': 0, 'no_reply': 0, 'crashes': 0, 'refused_client_side': 0,
                  'edge_calls': 0, 'edge_successes': 0, 'edge_not_restored': 0,
                  'log_lines_broken': 0, 'log_control_chars': 0,
                  'invalid_utf8_sent': 0, 'invalid_utf8_refused_by_bus': 0, 'raw_controls_answered': 0}
        problems = []
        for label, path, iface, method, sig, args, expected in cases:
            counts['calls'] += 1
            try:
                name, msg = raw_call(self.bus, path, iface, method, sig, args)
            except (TypeError, ValueError, UnicodeError) as e:
                counts['refused_client_side'] += 1
                problems.append(f'{label}: refused by dbus-python: {e}')
                continue
            ok = {expected} if isinstance(expected, str) else expected
            if name is None:
                counts['unexpected_successes'] += 1
                problems.append(f'{label}: succeeded')
            else:
                bump(counts['errors'], short(name))
                if name in DEAD:
                    counts['no_reply'] += 1
                    problems.append(f'{label}: {name}')
                elif name not in ok:
                    counts['wrong_errors'] += 1
                    problems.append(f'{label}: {name} ({msg}), expected {sorted(ok)}')
            if not self.daemon.alive():
                counts['crashes'] += 1
                problems.append(f'{label}: the daemon died ({self.daemon.proc.returncode})')
                break
            now = T.knob_values(self.tree)
            if now != self.original_knobs:
                counts['knobs_changed'] += 1
                problems.append(f'{label}: changed ' + ', '.join(
                    f'{k}={v}' for k, v in sorted(now.items()) if self.original_knobs.get(k) != v))
                raw_call(self.bus, T.ROOT_PATH, T.MANAGER_IFACE, 'Restore', '', [])
        # Not UTF-8: the bus must drop the sender, the daemon never sees it.
        # The same calls with valid UTF-8 first: the bus keeps those (the
        # raw marshalling is right, a drop is for the UTF-8 alone).
        socket_path = self.bus_address[len('unix:path='):]
        for label, member, sig, body in bad_utf8_calls([b'NOPE']):
            r = rawbus.send_call(socket_path, T.ROOT_PATH.encode(), T.MANAGER_IFACE.encode(), member,
                                 T.BUS_NAME.encode(), sig, body, timeout=0.5)
            counts['raw_controls_answered'] += r == 'answered'
        for label, member, sig, body in bad_utf8_calls() if self.daemon.alive() else []:
            counts['invalid_utf8_sent'] += 1
            r = rawbus.send_call(socket_path, T.ROOT_PATH.encode(), T.MANAGER_IFACE.encode(), member,
                                 T.BUS_NAME.encode(), sig, body)
            if r == 'disconnected':
                counts['invalid_utf8_refused_by_bus'] += 1
            else:
                problems.append(f'{label} (not UTF-8): the bus did not refuse it ({r})')
            if T.knob_values(self.tree) != self.original_knobs or not self.daemon.alive():
                counts['knobs_changed' if self.daemon.alive() else 'crashes'] += 1
                problems.append(f'{label} (not UTF-8): reached the daemon')
        # Valid calls at the limits, each followed by Restore().
        for method, sig, args in EDGE_CALLS if self.daemon.alive() else []:
            counts['edge_calls'] += 1
            name, _ = raw_call(self.bus, T.ROOT_PATH, T.MANAGER_IFACE, method, sig, args)
            counts['edge_successes'] += name is None
            if name in DEAD:
                counts['no_reply'] += 1
                problems.append(f'{method}{args}: {name}')
            raw_call(self.bus, T.ROOT_PATH, T.MANAGER_IFACE, 'Restore', '', [])
            if T.knob_values(self.tree) != self.original_knobs:
                counts['edge_not_restored'] += 1
                problems.append(f'{method}{args}: Restore() left knobs changed')
        alive = self.daemon.alive()
        out = self.daemon.output()
        lines = out.splitlines()
        broken = [line for line in lines if not (len(line) > 2 and line[0] == '<' and line[2] == '>')]
        counts['log_lines_broken'] = len(broken)
        counts['log_control_chars'] = len(R.control_chars(out))
        problems += [f'log line not from the daemon\'s logger (input split it?): {line[:80]!r}'
                     for line in broken[:5]]
        counts['problems'] = problems[:40]
        report('bad_input', counts)
        self.assertTrue(alive, 'idlepolicyd died')
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_tree_unchanged(msg='after the bad input and SIGTERM')
        self.assertEqual(counts['raw_controls_answered'], 4, 'the raw socket client does not work')
        self.assertEqual(counts['invalid_utf8_refused_by_bus'], counts['invalid_utf8_sent'],
                         'a call with a string that is not UTF-8 was not refused by the bus')
        for key in ('unexpected_successes', 'wrong_errors', 'knobs_changed', 'no_reply', 'crashes',
                    'refused_client_side', 'edge_not_restored', 'log_lines_broken', 'log_control_chars'):
            with self.subTest(count=key):
                self.assertEqual(counts[key], 0, f'{key}:\n' + '\n'.join(problems))

    def test_non_canonical_state_index_is_unknown(self):
        """Item 7, on its own: "01", "00", "0000001", "1\\n" name no state."""
        for state in ('01', '00', '0000001', '1\n'):
            for cpu in (0, T.ALL_CPUS):
                with self.subTest(state=state, cpu=cpu):
                    before = T.knob_values(self.tree)
                    self.assert_dbus_error('UnknownState', 'SetStateDisabled', U(cpu), state, True)
                    self.assertEqual(T.knob_values(self.tree), before)
        self.assertNotIn('"1\n', self.daemon.output(), 'a newline of the input reached the log')
        self.assert_daemon_alive()


# ---- concurrent clients ------------------------------------------------------

def client_main(kind, address, seconds, seed):
    """A client process (--client): its own bus connection, calls until
    --seconds pass (hammer) or the daemon goes away (changes).  Prints a
    "ready" line once connected, then one JSON line of counts."""
    rng = random.Random(seed)
    bus = dbus.bus.BusConnection(address)
    counts = {'calls': 0, 'ok': 0, 'errors': {}, 'no_reply': 0}
    print('ready', flush=True)
    deadline = time.monotonic() + seconds
    states = ['0', '1', '2', 'POLL', 'C1', 'C2', 'NOPE', '01', '3']
    cpus = [0, 1, 3, T.ALL_CPUS, T.ALL_CPUS, 2, 7]
    while time.monotonic() < deadline:
        r = rng.random()
        if kind == 'changes':
            if r < 0.45:
                call = ('SetStateDisabled', 'usb', [rng.choice([0, 1, 3, T.ALL_CPUS]), rng.choice(['0', '1', '2']),
                                                    rng.random() < 0.8])
            elif r < 0.8:
                call = ('SetResumeLatency', 'uu', [rng.choice([0, 1, 3, T.ALL_CPUS]),
                                                   rng.choice([1, 20, 300, T.LATENCY_NA, T.LATENCY_MAX])])
            elif r < 0.95:
                call = ('SetGovernor', 's', [rng.choice(['menu', 'ladder', 'haltpoll'])])
            else:
                call = ('SetMode', 's', ['enforce'])
        elif r < 0.3:
            call = ('SetStateDisabled', 'usb', [rng.choice(cpus), rng.choice(states), rng.random() < 0.7])
        elif r < 0.5:
            call = ('SetResumeLatency', 'uu', [rng.choice(cpus), rng.choice([0, 5, 100, T.LATENCY_MAX,
                                                                           T.LATENCY_MAX + 1, T.LATENCY_NA])])
        elif r < 0.6:
            call = ('Restore', '', [])
        elif r < 0.65:
            call = ('SetGovernor', 's', [rng.choice(['menu', 'ladder', 'haltpoll', 'nosuch'])])
        elif r < 0.8:
            call = ('GetAll', 's', [T.MANAGER_IFACE])
        else:
            call = ('GetAll', 's', [T.CPU_IFACE])
        method, sig, args = call
        path, iface = T.ROOT_PATH, T.MANAGER_IFACE
        if method == 'GetAll':
            iface = T.PROPS_IFACE
            if args[0] == T.CPU_IFACE:
                path = f'{T.ROOT_PATH}/cpu/{rng.choice([0, 1, 2, 3])}'
        counts['calls'] += 1
        name, _ = raw_call(bus, path, iface, method, sig, args)
        if name is None:
            counts['ok'] += 1
            continue
        bump(counts['errors'], short(name))
        if name in DEAD:
            counts['no_reply'] += 1
            if kind == 'changes':
                break
    print(json.dumps(counts), flush=True)
    return 0


def spawn_client(case, kind, seconds, seed):
    argv = [case.python, os.path.abspath(__file__), '--client', kind, '--address', case.bus_address,
            '--seconds', str(seconds), '--seed', str(seed)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=case.env(), start_new_session=True)


def wait_ready(proc):
    line = proc.stdout.readline()
    if line.strip() != 'ready':
        raise AssertionError(f'client did not start: {line!r} {proc.stderr.read()}')


def collect(proc, timeout):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return {'calls': 0, 'ok': 0, 'errors': {}, 'no_reply': 0, 'hung': 1, 'stderr': err[-400:]}
    lines = [line for line in out.splitlines() if line.startswith('{')]
    if not lines:
        return {'calls': 0, 'ok': 0, 'errors': {}, 'no_reply': 0, 'failed': 1, 'stderr': err[-400:]}
    return json.loads(lines[-1])


def merge(total, c):
    for k, v in c.items():
        if isinstance(v, dict):
            for kk, vv in v.items():
                bump(total.setdefault(k, {}), kk, vv)
        elif isinstance(v, int):
            bump(total, k, v)


class Concurrent(FuzzCase):

    def test_concurrent_clients(self):
        pid = self.daemon.pid
        fds_start = R.settled_fd_count(pid)
        clients = [spawn_client(self, 'hammer', OPTS.seconds, OPTS.seed * 1000 + i) for i in range(OPTS.clients)]
        for c in clients:
            wait_ready(c)
        fds_max, deadline = fds_start, time.monotonic() + OPTS.seconds
        while time.monotonic() < deadline and self.daemon.alive():
            fds_max = max(fds_max, R.fd_count(pid))
            time.sleep(0.25)
        counts = {'clients': OPTS.clients, 'seconds': OPTS.seconds}
        for c in clients:
            merge(counts, collect(c, OPTS.seconds + 60))
        alive = self.daemon.alive()
        fds_end = R.fd_count(pid) if alive else -1
        rc = self.stop_daemon() if alive else self.daemon.proc.returncode
        now = T.knob_values(self.tree)
        counts.update({'fds_start': fds_start, 'fds_max': fds_max, 'fds_end': fds_end, 'exit_status': rc,
                       'crashes': int(not alive),
                       'knobs_left_changed': sum(now[k] != v for k, v in self.original_knobs.items())})
        report('concurrent', counts)
        self.assertTrue(alive, 'idlepolicyd died under concurrent clients')
        self.assertEqual(counts['no_reply'], 0, 'calls not answered within 5 s')
        self.assertEqual(counts.get('hung', 0) + counts.get('failed', 0), 0, 'a client hung or failed')
        self.assertEqual(rc, 0, 'SIGTERM did not end idlepolicyd with status 0')
        self.assertEqual(now, self.original_knobs, 'knobs not as found after SIGTERM')
        self.assert_tree_unchanged(msg='after the concurrent clients and SIGTERM')
        self.assertLessEqual(fds_end - fds_start, FD_GROWTH_MAX, 'the daemon\'s fd count grew')


class FdLeak(FuzzCase):
    """Item 6: journal_rewrite() leaked one fd per rewrite that keeps
    entries (94 -> 294 fds after 200 cycles)."""

    def test_restore_keeping_a_knob_does_not_leak_fds(self):
        stuck = T.state_file(0, 1, 'disable')
        self.call('SetStateDisabled', U(0), '1', True)
        self.make_immutable(stuck)
        pid = self.daemon.pid
        fds_start = R.settled_fd_count(pid)
        counts = {'cycles': 0, 'restore_write_failed': 0, 'other_errors': {}}
        for _ in range(FD_LEAK_CYCLES):
            self.call('SetStateDisabled', U(1), '2', True)
            try:
                self.call('Restore')
            except dbus.exceptions.DBusException as e:
                if e.get_dbus_name() == T.ERROR_PREFIX + 'WriteFailed':
                    counts['restore_write_failed'] += 1
                else:
                    bump(counts['other_errors'], e.get_dbus_name())
            counts['cycles'] += 1
        fds_end = R.fd_count(pid)
        counts.update({'fds_start': fds_start, 'fds_end': fds_end})
        report('fd_leak', counts)
        self.assertEqual(counts['restore_write_failed'], FD_LEAK_CYCLES)
        self.assertEqual(self.read(T.state_file(1, 2, 'disable')), '0')
        self.assertEqual(self.journal_entries(), {stuck: '0'}, 'the knob that cannot be put back was dropped')
        self.assertLessEqual(fds_end - fds_start, FD_GROWTH_MAX,
                             f'{fds_end - fds_start} fds more after {FD_LEAK_CYCLES} Restore() cycles')
        self.assert_daemon_alive()


# ---- SIGKILL loop ------------------------------------------------------------

class KillLoop(FuzzCase):
    START_DAEMON = False

    def test_sigkill_loop(self):
        rng = random.Random(OPTS.seed)
        counts = {'kills': 0, 'restarts': 0, 'not_restored_at_restart': 0, 'client': {}, 'problems': []}
        self.start_daemon()
        for i in range(OPTS.kills):
            client = spawn_client(self, 'changes', 30, OPTS.seed * 1000 + i)
            wait_ready(client)
            time.sleep(rng.uniform(0, 0.25))
            if not self.daemon.alive():
                counts['problems'].append(f'kill {i}: died by itself ({self.daemon.proc.returncode})')
                break
            self.daemon.signal(signal.SIGKILL)
            self.daemon.wait(10)
            counts['kills'] += 1
            c = collect(client, 30)
            merge(counts['client'], c)
            T.wait_for(lambda: not self.bus.name_has_owner(T.BUS_NAME), what='the bus name to go away')
            self.start_daemon()
            counts['restarts'] += 1
            # The journal is replayed before the bus name is taken.
            now = T.knob_values(self.tree)
            if now != self.original_knobs:
                counts['not_restored_at_restart'] += 1
                counts['problems'].append(f'restart {i}: ' + ', '.join(
                    f'{k}={v}' for k, v in sorted(now.items()) if self.original_knobs[k] != v))
        # A last round of changes, then a clean stop.
        client = spawn_client(self, 'changes', 0.5, OPTS.seed)
        wait_ready(client)
        merge(counts['client'], collect(client, 30))
        alive = self.daemon.alive()
        rc = self.stop_daemon() if alive else self.daemon.proc.returncode
        now = T.knob_values(self.tree)
        counts.update({'exit_status': rc, 'crashes': int(not alive),
                       'knobs_left_changed': sum(now[k] != v for k, v in self.original_knobs.items())})
        counts['problems'] = counts['problems'][:20]
        report('sigkill', counts)
        self.assertEqual(counts['problems'], [])
        self.assertEqual(rc, 0)
        self.assertEqual(now, self.original_knobs, 'knobs not as found after the SIGKILL loop')
        self.assertIsNone(self.journal_entries(), 'journal left behind after a clean exit')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0], add_help=True)
    p.add_argument('--seconds', type=float, default=OPTS.seconds, help='concurrent phase length (s)')
    p.add_argument('--clients', type=int, default=OPTS.clients, help='concurrent client processes')
    p.add_argument('--kills', type=int, default=OPTS.kills, help='SIGKILLs in the kill loop')
    p.add_argument('--seed', type=int, default=OPTS.seed)
    p.add_argument('--json', help='also write the counts to this file')
    p.add_argument('--client', choices=('hammer', 'changes'), help=argparse.SUPPRESS)
    p.add_argument('--address', help=argparse.SUPPRESS)
    args, rest = p.parse_known_args()
    if args.client:
        return client_main(args.client, args.address, args.seconds, args.seed)
    for k in ('seconds', 'clients', 'kills', 'seed', 'json'):
        setattr(OPTS, k, getattr(args, k))
    import unittest
    prog = unittest.main(argv=[sys.argv[0], '-v'] + rest, exit=False)
    summary = {'options': {k: getattr(OPTS, k) for k in ('seconds', 'clients', 'kills', 'seed')}, **RESULTS}
    print(json.dumps(summary, indent=1, sort_keys=True), flush=True)
    if OPTS.json:
        with open(OPTS.json, 'w', encoding='utf-8') as f:
            json.dump(summary, f, indent=1, sort_keys=True)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main())
