# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared helpers of the bench/workloads runners.

Every runner runs one real program for --seconds N and prints ONE JSON line:
the program's own score plus what the whole machine burned meanwhile.

  cpu_s_precise  the same from the cpuidle time counters (µs, each CPU's
           read on that CPU): per CPU, the time of the measured phase less
           the time in non-polling idle states
  cpu_s    busy CPU seconds of the whole machine from /proc/stat deltas:
           (user + nice + system + irq + softirq) jiffies / USER_HZ
           (guest time is already inside user; steal is reported apart)
  poll_s   seconds the CPUs spent in a polling idle state (cpuidle states
           named POLL, from their `time` counters).  The kernel accounts
           polling as idle in /proc/stat, so cpu_s alone does not show the
           CPU burned by polling; cpu_s + poll_s does (cpu_s_with_poll).
  steal_s  steal jiffies / USER_HZ (time the hypervisor ran something else)
  seconds  wall time of the measured phase; t_start_mono, t_end_mono: its
           start and end on CLOCK_MONOTONIC (the clock of idle traces)

The runners only read /proc and sysfs: they never write a cpuidle, PM QoS or
haltpoll knob, and they install nothing (see bench/workloads/install).
Children run in their own process group and are killed, and temporary
directories removed, on normal exit, on an error and on SIGINT, SIGTERM and
SIGHUP.
"""
import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

USER_HZ = os.sysconf("SC_CLK_TCK")


# ---- CPU accounting --------------------------------------------------------

def _proc_stat():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu "):
                v = [int(x) for x in line.split()[1:]]
                v += [0] * (10 - len(v))
                user, nice, system, idle, iowait, irq, softirq, steal = v[:8]
                return {"busy": user + nice + system + irq + softirq,
                        "idle": idle + iowait, "steal": steal}
    raise RuntimeError("no cpu line in /proc/stat")


def _poll_time_us():
    """Sum over CPUs of the time (µs) spent in polling idle states."""
    total = 0
    for d in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*"):
        try:
            with open(os.path.join(d, "name")) as f:
                if f.read().strip() != "POLL":
                    continue
            with open(os.path.join(d, "time")) as f:
                total += int(f.read())
        except (OSError, ValueError):
            pass
    return total


def _idle_states():
    """{cpu: [(time file, polling)]} of every online CPU with cpuidle."""
    out = {}
    for d in sorted(glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*")):
        cpu = int(d.split("/")[5][3:])
        try:
            with open(os.path.join(d, "name")) as f:
                polling = f.read().strip() == "POLL"
        except OSError:
            continue
        out.setdefault(cpu, []).append((os.path.join(d, "time"), polling))
    return out


def _idle_read(states):
    """{cpu: (monotonic s, µs in non-polling states)}, each CPU's counters
    read from that CPU itself: a CPU idle at the moment of the read has not
    yet been credited with its current idle period (the kernel adds it at
    the exit), so running the read there makes its counters complete.
    Falls back to reading from anywhere when the affinity cannot be set."""
    out = {}
    try:
        mask = os.sched_getaffinity(0)
    except OSError:
        mask = None
    for cpu, files in states.items():
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError:
            pass
        t = time.monotonic()
        halted = 0
        for path, polling in files:
            if polling:
                continue
            try:
                with open(path) as f:
                    halted += int(f.read())
            except (OSError, ValueError):
                pass
        out[cpu] = (t, halted)
    if mask is not None:
        try:
            os.sched_setaffinity(0, mask)
        except OSError:
            pass
    return out


def cpu_s_between(i0, i1):
    """CPU seconds not spent in a non-polling idle state between two
    _idle_read()s, per CPU from the cpuidle time counters (µs) over the
    CPU's own read times: busy + polling + the idle loop's own work,
    without the 10 ms sampling of /proc/stat's busy time.  None without
    cpuidle, or when the CPUs read differ (a hotplug in between)."""
    if not i0 or set(i0) != set(i1):
        return None
    return sum((i1[c][0] - i0[c][0]) - (i1[c][1] - i0[c][1]) / 1e6 for c in i0)


def task_cpu_ns(pid):
    """CPU ns used so far by pid, all its threads (/proc/PID/schedstat's
    first field), None if gone or unreadable."""
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class CpuMeter:
    """Whole-machine CPU use between start() and stop().  With WL_WATCH_PID
    in the environment (bench/live: the daemon's pid), that process's own
    CPU over the same window too, "watched_cpu_s": the share of the
    measured CPU that is its own, without the runner's start-up and exit,
    which no configuration's CPU counts."""

    def start(self):
        pid = os.environ.get("WL_WATCH_PID", "")
        self.watch = int(pid) if pid.isdigit() else None
        self.w0 = task_cpu_ns(self.watch) if self.watch else None
        self.states = _idle_states()
        self.i0 = _idle_read(self.states)
        self.t0 = time.monotonic()
        self.s0 = _proc_stat()
        self.p0 = _poll_time_us()

    def stop(self):
        self.t1 = time.monotonic()
        self.s1 = _proc_stat()
        self.p1 = _poll_time_us()
        self.i1 = _idle_read(self.states)
        self.w1 = task_cpu_ns(self.watch) if self.watch else None

    def precise_cpu_s(self):
        """cpu_s_between() the start and the stop."""
        return cpu_s_between(self.i0, self.i1)

    def fields(self):
        busy = (self.s1["busy"] - self.s0["busy"]) / USER_HZ
        poll = (self.p1 - self.p0) / 1e6
        return {
            "cpu_s": round(busy, 3),
            "poll_s": round(poll, 3),
            "cpu_s_with_poll": round(busy + poll, 3),
            "cpu_s_precise": None if self.precise_cpu_s() is None else round(self.precise_cpu_s(), 4),
            "steal_s": round((self.s1["steal"] - self.s0["steal"]) / USER_HZ, 3),
            "seconds": round(self.t1 - self.t0, 3),
            "ncpus": os.cpu_count(),
            # the measured phase on CLOCK_MONOTONIC, the clock of idle traces
            "t_start_mono": round(self.t0, 6),
            "t_end_mono": round(self.t1, 6),
            **({"watched_cpu_s": None if self.w0 is None or self.w1 is None else round((self.w1 - self.w0) / 1e9, 6)}
               if self.watch else {}),
        }


# ---- cleanup ---------------------------------------------------------------

class Interrupted(Exception):
    pass


class Session:
    """Owns the children and temporary directories of one run.

    Use as a context manager; on exit (normal, exception, or one of the
    signals, which are turned into Interrupted) every child's process group
    is sent SIGTERM, then SIGKILL after a grace period, then the registered
    cleanup callbacks run newest first and the temporary directories go."""

    def __init__(self, name):
        self.name = name
        self.children = []
        self.callbacks = []
        self.tmpdirs = []
        self._old = {}

    def _on_signal(self, signum, frame):
        raise Interrupted(signal.Signals(signum).name)

    def __enter__(self):
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self._old[s] = signal.signal(s, self._on_signal)
        return self

    def __exit__(self, et, ev, tb):
        # no second signal may cut the cleanup short
        for s in self._old:
            signal.signal(s, signal.SIG_IGN)
        try:
            self.kill_children()
            for cb in reversed(self.callbacks):
                try:
                    cb()
                except Exception as e:  # keep cleaning up
                    print("%s: cleanup: %s" % (self.name, e), file=sys.stderr)
            for d in reversed(self.tmpdirs):
                shutil.rmtree(d, ignore_errors=True)
        finally:
            for s, h in self._old.items():
                signal.signal(s, h)
        if et is Interrupted:
            print("%s: interrupted (%s), cleaned up" % (self.name, ev), file=sys.stderr)
            sys.exit(130)
        return False

    def tmpdir(self, mode=0o700):
        d = tempfile.mkdtemp(prefix="idlepolicy-wl-%s." % self.name)
        os.chmod(d, mode)
        self.tmpdirs.append(d)
        return d

    def at_exit(self, fn):
        self.callbacks.append(fn)

    def popen(self, cmd, **kw):
        """Start a child in a process group of its own."""
        kw.setdefault("start_new_session", True)
        p = subprocess.Popen(cmd, **kw)
        self.children.append(p)
        return p

    def run(self, cmd, timeout=None, check=True, **kw):
        """Run a child to completion; returns (returncode, stdout, stderr)."""
        kw.setdefault("stdout", subprocess.PIPE)
        kw.setdefault("stderr", subprocess.PIPE)
        kw.setdefault("text", True)
        p = self.popen(cmd, **kw)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._kill(p)
            out, err = p.communicate()
            raise RuntimeError("%s: timed out after %s s" % (" ".join(cmd), timeout))
        finally:
            if p.returncode is not None and p in self.children:
                self.children.remove(p)
        if check and p.returncode != 0:
            raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), p.returncode,
                                                     ((err or "") + (out or "")).strip()[-2000:]))
        return p.returncode, out, err

    @staticmethod
    def _kill(p, grace=3.0):
        if p.poll() is not None:
            return
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            p.wait(grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()

    def kill_children(self):
        for p in reversed(self.children):
            self._kill(p)
        # the group may outlive its leader (stray grandchildren)
        for p in self.children:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.children = []


# ---- arguments and output --------------------------------------------------

def arg_parser(name, doc, default_seconds=5):
    p = argparse.ArgumentParser(prog=name, description=doc)
    p.add_argument("--seconds", type=float, default=default_seconds,
                   help="how long to run the program (default %(default)s)")
    p.add_argument("--started-file", metavar="PATH",
                   help="create PATH when the measured phase begins (used by "
                        "bench/record-traces to start recording then)")
    return p


def mark_started(args):
    if args.started_file:
        with open(args.started_file, "w") as f:
            f.write("%d\n" % os.getpid())


def need(*progs):
    """Exit with a clear message when a program is missing."""
    missing = [p for p in progs if shutil.which(p) is None]
    if missing:
        sys.exit("missing %s: run bench/workloads/install (as root)" % ", ".join(missing))


def percentile_from_hist(hist, q):
    """hist: list of (value, count) sorted by value; nearest-rank percentile."""
    total = sum(c for _, c in hist)
    if total == 0:
        return None
    rank = max(1, int(-(-q * total // 100)))  # ceil(q% of total)
    seen = 0
    for v, c in hist:
        seen += c
        if seen >= rank:
            return v
    return hist[-1][0]


def emit(result):
    print(json.dumps(result, separators=(",", ":")), flush=True)
