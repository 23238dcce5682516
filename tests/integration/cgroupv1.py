# SPDX-License-Identifier: LGPL-2.1-or-later
"""A test's own cgroup in this machine's real cgroup v1 cpuset hierarchy
(/sys/fs/cgroup/cpuset), shared by the cgroup pin and the consolidation
tests: created with cpuset.cpus 0-1 and the parent's cpuset.mems, removed
at the test's cleanup whatever happened (what is left in it killed
first)."""

import os
import signal
import time

CGROUP_ROOT = '/sys/fs/cgroup'
CPUSET = os.path.join(CGROUP_ROOT, 'cpuset')
NO_V1 = f'{CPUSET} is not a cgroup v1 cpuset mount'


def read(path):
    with open(path, encoding='ascii') as f:
        return f.read().strip()


def write(path, value):
    with open(path, 'w', encoding='ascii') as f:
        f.write(value)


def cpuset_v1_mounted():
    """True when CPUSET is a mount of the v1 hierarchy with the cpuset
    controller (not cgroup2, not a plain directory)."""
    try:
        with open('/proc/self/mounts', encoding='utf-8') as f:
            mounts = [line.split() for line in f]
    except OSError:
        return False
    return any(m[1] == CPUSET and m[2] == 'cgroup' and 'cpuset' in m[3].split(',') for m in mounts if len(m) >= 4)


class TestCgroup:
    """test's cgroup NAME under CPUSET with cpuset.cpus cpus; removed at
    test's cleanup (register it before the processes put in it, so that
    their own cleanups run first)."""

    def __init__(self, test, cpus='0-1', name=None):
        self.test = test
        self.name = name or f'idlepolicy-test-{os.getpid()}-{test.id().rsplit(".", 1)[-1][:20]}'
        self.dir = os.path.join(CPUSET, self.name)
        os.mkdir(self.dir)
        test.addCleanup(self.remove)
        write(self.file('cpuset.mems'), read(os.path.join(CPUSET, 'cpuset.mems')))
        write(self.file('cpuset.cpus'), cpus)

    def file(self, name):
        return os.path.join(self.dir, name)

    def cpus(self):
        return read(self.file('cpuset.cpus'))

    def add(self, pid):
        write(self.file('cgroup.procs'), str(pid))

    def remove(self):
        """Kills what is left in the cgroup and removes it."""
        for _ in range(100):
            try:
                procs = read(self.file('cgroup.procs')).split()
            except FileNotFoundError:
                return
            for pid in procs:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                os.rmdir(self.dir)
                return
            except OSError:
                time.sleep(0.05)
        self.test.fail(f'could not remove {self.dir}')


def nested(test, parts, cpus='0-1'):
    """The cgroup CPUSET/parts[0]/parts[1]/..., each level a TestCgroup
    (removed at test's cleanup, the deepest first).  Returns the deepest."""
    cg = None
    for i in range(len(parts)):
        cg = TestCgroup(test, cpus, name='/'.join(parts[:i + 1]))
    return cg
