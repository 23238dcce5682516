# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/daemon-cost --mode observe|tree: the daemon's own CPU, per profile,
from its exec through its first 10 s and after, without writing a knob of
the machine (see bench/daemon-cost's help and bench/README.md)."""
import glob
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scriptmod  # noqa: E402

live = scriptmod.load('live', os.path.join(HERE, 'live'))
SAMPLE_S = 0.1
MIRROR_S = 0.05
ROOT_PATH = '/org/idlepolicy/IdlePolicy1'
COUNTERS = ('usage', 'time', 'above', 'below', 'rejected')


def log(msg):
    print(f'daemon-cost: {msg}', file=sys.stderr, flush=True)


def cpu_ns_and_wakeups(pid):
    """(ns on a CPU of every thread, voluntary context switches of every
    thread), or None once the process is gone."""
    ns = vol = 0
    tasks = glob.glob(f'/proc/{pid}/task/*')
    if not tasks:
        return None
    for t in tasks:
        try:
            with open(f'{t}/schedstat') as f:
                ns += int(f.read().split()[0])
            with open(f'{t}/status') as f:
                vol += int(re.search(r'^voluntary_ctxt_switches:\s+(\d+)', f.read(), re.M).group(1))
        except (OSError, ValueError, AttributeError):
            pass
    return ns, vol


def loadavg():
    with open('/proc/loadavg') as f:
        return float(f.read().split()[0])


class FakeTree:
    """A fake tree of this VM's shape with the machine's knobs as they are
    at its creation, whose counters follow the real sysfs and /proc every
    MIRROR_S (knobs then untouched: those are the daemon's)."""

    def __init__(self, build, path):
        self.path = path
        ncpu = len(glob.glob('/sys/devices/system/cpu/cpu[0-9]*/cpuidle'))
        subprocess.run([os.path.join(build, 'tests', 'make-faketree'), path, '--cpus', str(ncpu)], check=True,
                       capture_output=True)
        # Its knobs as the machine's are now (the daemon's starting point).
        knobs = ['/sys/devices/system/cpu/cpuidle/current_governor']
        knobs += glob.glob('/sys/module/haltpoll/parameters/*')
        knobs += glob.glob('/sys/devices/system/cpu/cpu[0-9]*/power/pm_qos_resume_latency_us')
        knobs += glob.glob('/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/disable')
        self.pairs = [(k, os.path.join(path, k.lstrip('/'))) for k in knobs
                      if os.path.exists(os.path.join(path, k.lstrip('/')))]
        self.copy()
        self.pairs = []
        for src in sorted(glob.glob('/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*')):
            for name in COUNTERS:
                dst = os.path.join(path, src.lstrip('/'), name)
                if os.path.exists(dst) and os.path.exists(os.path.join(src, name)):
                    self.pairs.append((os.path.join(src, name), dst))
        self.pairs += [('/proc/stat', os.path.join(path, 'proc/stat')),
                       ('/proc/interrupts', os.path.join(path, 'proc/interrupts'))]
        self.stop_ev = threading.Event()
        self.copy()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def copy(self):
        for src, dst in self.pairs:
            try:
                with open(src) as f:
                    text = f.read()
                with open(dst, 'r+') as f:       # in place, as sysfs: the daemon's fds stay valid
                    f.write(text)
                    f.truncate()
            except OSError:
                pass

    def run(self):
        while not self.stop_ev.wait(MIRROR_S):
            self.copy()

    def close(self):
        self.stop_ev.set()
        self.thread.join()


class TreeKnobs(threading.Thread):
    """What the daemon does to the (fake) machine: the tree's knobs every
    MIRROR_S, summed per phase: governor switches, seconds with a halt-poll
    window in force (haltpoll governor, guest_halt_poll_ns > 0) and its
    CPU-seconds, CPU-seconds polling only (resume latency n/a or every
    state but POLL disabled)."""

    def __init__(self, root, t0):
        super().__init__(daemon=True)
        self.root, self.t0 = root, t0
        self.cpus = sorted(glob.glob(os.path.join(root, 'sys/devices/system/cpu/cpu[0-9]*/cpuidle')))
        self.stop_ev = threading.Event()
        self.points = []

    def read(self, rel):
        try:
            with open(os.path.join(self.root, rel)) as f:
                return f.read().strip()
        except OSError:
            return None

    def state(self):
        gov = self.read('sys/devices/system/cpu/cpuidle/current_governor')
        ns = int(self.read('sys/module/haltpoll/parameters/guest_halt_poll_ns') or 0)
        only = 0
        for d in self.cpus:
            lat = self.read(os.path.join(os.path.dirname(d), 'power/pm_qos_resume_latency_us'))
            bits = [self.read(os.path.join(x, 'disable')) for x in sorted(glob.glob(os.path.join(d, 'state[1-9]*')))]
            only += lat == 'n/a' or (bits and all(b == '1' for b in bits))
        return gov, ns if gov == 'haltpoll' else 0, only

    def run(self):
        while not self.stop_ev.wait(MIRROR_S):
            self.points.append((time.monotonic() - self.t0, *self.state()))

    def phase(self, a, b):
        out = {'governor_switches': 0, 'window_s': 0.0, 'window_cpu_s': 0.0, 'poll_only_cpu_s': 0.0,
               'windows_us': []}
        pts = [p for p in self.points if a <= p[0] < b]
        for p, q in zip(pts, pts[1:]):
            dt = q[0] - p[0]
            out['governor_switches'] += p[1] != q[1]
            if p[2] > 0:
                out['window_s'] += dt
                out['window_cpu_s'] += dt * (len(self.cpus) - p[3])
                if p[2] // 1000 not in out['windows_us']:
                    out['windows_us'].append(p[2] // 1000)
            out['poll_only_cpu_s'] += dt * p[3]
        for k in ('window_s', 'window_cpu_s', 'poll_only_cpu_s'):
            out[k] = round(out[k], 2)
        return out


class Run:
    """One daemon from its exec to its SIGTERM, its CPU sampled every
    SAMPLE_S and its log lines timed."""

    def __init__(self, args, tmp, bus_env, root, profile, cal_path):
        self.dir = tempfile.mkdtemp(prefix='run.', dir=tmp)
        state, runtime = os.path.join(self.dir, 'state'), os.path.join(self.dir, 'run')
        os.makedirs(state)
        shutil.copy(cal_path, os.path.join(state, 'calibration.json'))
        mode = 'observe' if args.mode == 'observe' else 'enforce'
        with open(os.path.join(state, 'state.json'), 'w') as f:
            json.dump({'profile': profile, 'mode': mode}, f)
        conf = os.path.join(self.dir, 'idlepolicyd.conf')
        with open(conf, 'w') as f:
            f.write('{"calibrate_on_first_start": false}\n')
        self.env = bus_env
        self.samples, self.lines = [], []
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [os.path.join(args.build, 'daemon', 'idlepolicyd'), '--root', root, '--runtime-dir', runtime,
             '--tick-usec', str(args.tick_usec), '--mode', mode, '--state-dir', state, '--config', conf,
             '--profile-dir', os.path.join(HERE, '..', 'conf', 'profiles'),
             '--calibrate-helper=' + os.path.join(args.build, 'calibrate', 'idlepolicy-calibrate')],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=bus_env, start_new_session=True)
        self.stop_ev = threading.Event()
        self.sampler = threading.Thread(target=self.sample, daemon=True)
        self.reader = threading.Thread(target=self.read_log, daemon=True)
        self.sampler.start()
        self.reader.start()
        self.knobs = TreeKnobs(root, self.t0) if root != '/' else None
        if self.knobs:
            self.knobs.start()

    def now(self):
        return time.monotonic() - self.t0

    def sample(self):
        while True:
            v = cpu_ns_and_wakeups(self.proc.pid)
            if v is None or self.stop_ev.is_set():
                return
            self.samples.append((self.now(), v[0], v[1]))
            time.sleep(SAMPLE_S)

    def read_log(self):
        for line in self.proc.stdout:
            self.lines.append((round(self.now(), 3), line.rstrip()))

    def on_bus(self):
        return subprocess.run(['busctl', '--system', 'status', live.BUS_NAME], capture_output=True,
                              env=self.env, check=False).returncode == 0

    def metrics(self):
        r = subprocess.run(['busctl', '--system', '--json=short', 'call', live.BUS_NAME, ROOT_PATH,
                            live.BUS_NAME + '.Manager', 'Metrics'], capture_output=True, text=True,
                           env=self.env, check=False, timeout=30)
        if r.returncode != 0:
            return {}
        text = json.loads(r.stdout)['data'][0]
        out = {}
        for name in ('idlepolicy_tick_duration_seconds_count', 'idlepolicy_tick_duration_seconds_sum'):
            m = re.search(rf'^{name} (\S+)$', text, re.M)
            if m:
                out[name] = float(m.group(1))
        return out

    def stop(self):
        self.stop_ev.set()
        self.sampler.join()
        if self.knobs:
            self.knobs.stop_ev.set()
            self.knobs.join()
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.reader.join(5)
        return rc


def cpu_at(samples, t):
    """The last sample at or before t: (t, ns, wakeups)."""
    best = samples[0]
    for s in samples:
        if s[0] > t:
            break
        best = s
    return best


def perf_top(data, n=25):
    """[(percent with callees, percent self, symbol)] of a perf.data file
    (DWARF call graphs: the daemon has no frame pointers), the daemon's
    own functions by time with their callees."""
    r = subprocess.run(['perf', 'report', '-i', data, '--children', '--sort', 'sym', '--stdio', '-g', 'none'],
                       capture_output=True, text=True, check=False)
    out = []
    for line in r.stdout.splitlines():
        m = re.match(r'\s*([\d.]+)%\s+([\d.]+)%\s+\[\.\]\s+(\w.*)$', line)
        if m and not m.group(3).startswith(('0x', '_start', '__libc_start', 'main', 'run ')):
            out.append((float(m.group(1)), float(m.group(2)), m.group(3).strip()))
    return out[:n]


def strace_counts(path):
    """{syscall: calls} of an strace -c summary."""
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] not in ('total',):
                try:
                    out[parts[-1]] = int(parts[3])
                except ValueError:
                    pass
    return out


def one_run(args, tmp, bus_env, root, profile, cal_path, phase_s, tool=None):
    """A daemon for args.seconds; tool: None, 'perf' or 'syscalls'.  The
    daemon is stopped (SIGTERM: it puts its knobs back) whatever happens."""
    run = Run(args, tmp, bus_env, root, profile, cal_path)
    try:
        return measure(run, args, phase_s, tool)
    finally:
        if run.proc.poll() is None:
            run.stop()


def measure(run, args, phase_s, tool):
    live.wait_for(lambda: run.proc.poll() is not None or run.on_bus(), 30, 'idlepolicyd on the bus')
    if run.proc.poll() is not None:
        raise RuntimeError(f'idlepolicyd exited {run.proc.returncode}: {run.lines[-10:]}')
    t_bus = run.now()
    at_bus = cpu_ns_and_wakeups(run.proc.pid) or (0, 0)
    extra = {}
    if tool == 'perf':
        files = [os.path.join(run.dir, f'perf-{i}.data') for i in (0, 1)]
        for f, dur in zip(files, (phase_s - run.now(), args.seconds - phase_s)):
            subprocess.run(['perf', 'record', '-e', 'cpu-clock', '-c', '20000', '--call-graph', 'dwarf,16384',
                            '-p', str(run.proc.pid),
                            '-o', f, '--', 'sleep', str(max(0.1, dur))], capture_output=True, check=False)
        extra = {'perf_first_10s': perf_top(files[0]), 'perf_after': perf_top(files[1])}
    elif tool == 'syscalls':
        time.sleep(max(0.0, phase_s - run.now()))
        path = os.path.join(run.dir, 'strace')
        subprocess.run(['timeout', '-s', 'INT', str(args.seconds - phase_s), 'strace', '-c', '-f', '-o', path,
                        '-p', str(run.proc.pid)], capture_output=True, check=False)
        extra = {'syscalls_after': strace_counts(path)}
    else:
        time.sleep(max(0.0, args.seconds - run.now()))
    load = loadavg()
    metrics = run.metrics()
    rc = run.stop()
    s = run.samples
    end, t10 = s[-1], cpu_at(s, phase_s)
    ticks = metrics.get('idlepolicy_tick_duration_seconds_count', 0)
    # The tick re-arms itself tick_usec after each: ticks spread evenly over the run.
    ticks_after = ticks * (end[0] - t10[0]) / end[0] if end[0] > 0 else 0
    res = {
        'exit': rc, 'loadavg_1min': load, 'seconds': round(end[0], 2), 'on_bus_s': round(t_bus, 3),
        'startup_ms': round(at_bus[0] / 1e6, 3),
        'first_10s_ms': round(t10[1] / 1e6, 3),
        'after_ms': round((end[1] - t10[1]) / 1e6, 3), 'after_s': round(end[0] - t10[0], 2),
        'ticks': ticks, 'tick_wall_ms_mean': round(1000 * metrics.get('idlepolicy_tick_duration_seconds_sum', 0)
                                                   / ticks, 3) if ticks else None,
        'after_wakeups': end[2] - t10[2],
        'cpu_ms_by_second': [round((cpu_at(s, k + 1)[1] - (cpu_at(s, k)[1] if k else 0)) / 1e6, 3)
                             for k in range(int(end[0]))],
        'log': run.lines[-30:], **extra,
    }
    if run.knobs:
        res['knobs_first_10s'] = run.knobs.phase(0, phase_s)
        res['knobs_after'] = run.knobs.phase(phase_s, end[0] + 1)
    res['after_ms_per_tick'] = round(res['after_ms'] / ticks_after, 4) if ticks_after else None
    res['after_ms_per_10s'] = round(10 * res['after_ms'] / res['after_s'], 3)
    res['after_wakeups_per_tick'] = round(res['after_wakeups'] / ticks_after, 2) if ticks_after else None
    return res


def summary(runs):
    keys = ('startup_ms', 'first_10s_ms', 'after_ms_per_tick', 'after_ms_per_10s', 'after_wakeups_per_tick',
            'tick_wall_ms_mean', 'loadavg_1min')
    out = {}
    if runs and 'knobs_first_10s' in runs[0]:
        for r in runs:
            r['knobs_after_per_10s'] = {k: round(10 * v / r['after_s'], 2) for k, v in r['knobs_after'].items()
                                        if k != 'windows_us'}
        for phase in ('knobs_first_10s', 'knobs_after_per_10s'):
            out[phase] = {k: statistics.median(r[phase][k] for r in runs)
                          for k in ('governor_switches', 'window_s', 'window_cpu_s', 'poll_only_cpu_s')}
    for k in keys:
        vals = [r[k] for r in runs if r.get(k) is not None]
        out[k] = round(statistics.median(vals), 4) if vals else None
        out[k + '_range'] = [min(vals), max(vals)] if vals else None
    return out


def default_calibration():
    path = os.path.join(HERE, 'results', 'live.json')
    with open(path) as f:
        return json.load(f)['calibration']


def markdown(doc):
    lines = [f"`{doc['command']}` — mode {doc['mode']}, tick {doc['tick_usec'] // 1000} ms, "
             f"{doc['seconds']:g} s runs, load average {doc['loadavg_range'][0]}–{doc['loadavg_range'][1]}", '',
             '| profile | startup (exec → on the bus) | first 10 s | after: per tick | after: per 10 s | '
             'wake-ups per tick | tick wall time |',
             '|---|---|---|---|---|---|---|']
    for prof, v in doc['profiles'].items():
        s = v['summary']

        def cell(k, unit='ms', digits=2):
            if s[k] is None:
                return 'n/a'
            lo, hi = s[k + '_range']
            return f'{s[k]:.{digits}f} {unit} [{lo:.{digits}f}–{hi:.{digits}f}]'
        lines.append(f"| {prof} | {cell('startup_ms')} | {cell('first_10s_ms')} | {cell('after_ms_per_tick', digits=3)}"
                     f" | {cell('after_ms_per_10s')} | {cell('after_wakeups_per_tick', '', 1)} "
                     f"| {cell('tick_wall_ms_mean', digits=3)} |")
    if any('knobs_first_10s' in v['summary'] for v in doc['profiles'].values()):
        lines += ['', 'What it did to the (fake) machine, medians: governor switches, seconds with a halt-poll '
                  'window in force (CPU-seconds under it), CPU-seconds polling only', '',
                  '| profile | first 10 s | after, per 10 s |', '|---|---|---|']
        for prof, v in doc['profiles'].items():
            s = v['summary']
            cells = [f"{k['governor_switches']:g} switches, window {k['window_s']:g} s ({k['window_cpu_s']:g} "
                     f"CPU-s), poll-only {k['poll_only_cpu_s']:g} CPU-s"
                     for k in (s['knobs_first_10s'], s['knobs_after_per_10s'])]
            lines.append(f'| {prof} | {cells[0]} | {cells[1]} |')
    return '\n'.join(lines) + '\n'


class Interrupted(Exception):
    pass


def _on_signal(signum, _frame):
    raise Interrupted(signum)


def main(args, phase_s):
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    if shutil.which('dbus-daemon') is None or shutil.which('busctl') is None:
        log('no dbus-daemon or busctl; skipping')
        return 77
    tmp = tempfile.mkdtemp(prefix='idlepolicy-daemon-cost.')
    socket = os.path.join(tmp, 'bus')
    with open(os.path.join(tmp, 'bus.conf'), 'w') as f:
        f.write(live.BUS_CONFIG.format(socket=socket))
    bus = subprocess.Popen(['dbus-daemon', '--nofork', '--nopidfile', f'--config-file={tmp}/bus.conf'],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f'unix:path={socket}', LC_ALL='C.UTF-8')
    env.pop('DBUS_SESSION_BUS_ADDRESS', None)
    cal_path = os.path.join(tmp, 'calibration.json')
    if args.calibration:
        shutil.copy(args.calibration, cal_path)
    else:
        with open(cal_path, 'w') as f:
            json.dump(default_calibration(), f)
    tree = None
    doc = {'command': 'bench/daemon-cost ' + ' '.join(sys.argv[1:]), 'mode': args.mode, 'seconds': args.seconds,
           'tick_usec': args.tick_usec, 'repeats': args.repeats, 'profiles': {}}
    try:
        live.wait_for(lambda: os.path.exists(socket), 10, 'the private bus')
        root = '/'
        if args.mode == 'tree':
            tree = FakeTree(args.build, os.path.join(tmp, 'tree'))
            root = tree.path
        tools = [None] + (['syscalls'] if args.syscalls else []) + (['perf'] if args.perf else [])
        for rep in range(args.repeats):
            for prof in args.profiles:
                v = doc['profiles'].setdefault(prof, {'runs': []})
                for tool in tools if rep == 0 else [None]:
                    r = one_run(args, tmp, env, root, prof, cal_path, phase_s, tool)
                    if tool:
                        v[tool] = {k: r[k] for k in r if k.startswith(('perf_', 'syscalls_'))}
                        if tool == 'syscalls' and r['ticks']:
                            n = r['ticks'] * r['after_s'] / r['seconds']
                            v[tool]['per_tick'] = {k: round(c / n, 2) for k, c in
                                                   sorted(r['syscalls_after'].items(), key=lambda x: -x[1])}
                        continue
                    v['runs'].append(r)
                    log(f"{prof} {rep + 1}/{args.repeats}: startup {r['startup_ms']} ms, first 10 s "
                        f"{r['first_10s_ms']} ms, after {r['after_ms_per_tick']} ms/tick "
                        f"({r['after_ms_per_10s']} ms/10 s), load {r['loadavg_1min']}")
        for v in doc['profiles'].values():
            v['summary'] = summary(v['runs'])
        loads = [r['loadavg_1min'] for v in doc['profiles'].values() for r in v['runs']]
        doc['loadavg_range'] = [min(loads), max(loads)]
    except Interrupted:
        log('interrupted: the daemon stopped, the bus and the tree removed')
        return 130
    finally:
        if tree:
            tree.close()
        bus.send_signal(signal.SIGTERM)
        bus.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    text = json.dumps(doc, indent=1)
    if args.out:
        with open(args.out, 'w', encoding='utf-8') as f:
            f.write(text + '\n')
    if args.md:
        with open(args.md, 'w', encoding='utf-8') as f:
            f.write(markdown(doc))
    print(markdown(doc))
    return 0
