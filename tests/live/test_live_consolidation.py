#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The live consolidation test (issue 15): the real idlepolicyd on this
machine's real cpuidle in enforce mode (machine profile balanced), with a
background named in its config: a cgroup the test creates in the real v1
cpuset hierarchy (/sys/fs/cgroup/cpuset), holding two programs of the
test's that wake every millisecond on both CPUs.  SetConsolidation(1)
through the bus (busctl, as a user would) packs them onto CPU 0: the
cgroup's cpuset.cpus becomes "0", the programs' affinity follows, and CPU
1's idle entries per second (its wakeups: the sum of its states' usage)
fall.  SIGTERM puts the cgroup's cpuset.cpus back to exactly what it was
("0-1") and every idle knob back; so does the next start after a SIGKILL.

Shares test_live.py's safety net (every knob recorded first, put back on
any exit and by a guardian after SIGKILL); the cgroup is removed at the
end whatever happened (its programs killed first).  Exits 77 (skip) when
not root, without a writable cpuidle governor, without a v1 cpuset
hierarchy or with fewer than two CPUs with cpuidle."""

import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_live as L  # noqa: E402  (records the knobs and arms the safety net)
import test_live_enforce as E  # noqa: E402
from test_live_pins import allowed_cpus  # noqa: E402
import cgroupv1 as V  # noqa: E402  (tests/integration, on test_live's path)

T = L.T
FREED = 1
ORIGINAL = '0-1'
WINDOW_S = 3.0
# The daemon's reasons for not packing that come from the machine's load
# (libidlepolicy/consolidate/consolidate-step.c).
BUSY_REASONS = ('off: the machine is', 'nothing freed')
# A program that wakes every millisecond (a timer-driven background load).
WAKER = 'import time\nwhile True: time.sleep(0.001)'


def idle_entries(cpu):
    """The sum of cpu's idle states' usage counters."""
    base = f'/sys/devices/system/cpu/cpu{cpu}/cpuidle'
    return sum(int(V.read(os.path.join(base, d, 'usage'))) for d in os.listdir(base) if d.startswith('state'))


def entries_per_s(cpu, seconds=WINDOW_S):
    a, t0 = idle_entries(cpu), time.monotonic()
    time.sleep(seconds)
    return (idle_entries(cpu) - a) / (time.monotonic() - t0)


class Consolidation(E.Enforce):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not V.cpuset_v1_mounted():
            L.skip(V.NO_V1)
        if FREED not in cls.cpus or 0 not in cls.cpus:
            L.skip('needs CPUs 0 and 1 with cpuidle')

    def setUp(self):
        super().setUp()
        self.cgroup = V.TestCgroup(self, ORIGINAL)
        self.programs = []
        for _ in range(2):
            # The program joins the cgroup itself before it starts waking.
            p = subprocess.Popen(['sh', '-c', f'echo $$ > {self.cgroup.file("cgroup.procs")} && '
                                  f'exec {sys.executable} -c "$0"', WAKER])
            self.addCleanup(lambda p=p: (p.kill(), p.wait()))
            self.programs.append(p)
        T.wait_for(lambda: len(V.read(self.cgroup.file('cgroup.procs')).split()) == 2,
                   what='the programs in the test cgroup')
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({'calibrate_on_first_start': False,
                       'consolidation_background': [f'cgroup:/cpuset/{self.cgroup.name}']}, f)

    def start(self):
        self.start_enforcing('balanced', extra=['--cgroup-root', V.CGROUP_ROOT])
        T.wait_for(lambda: self.status().get('consolidation', {}).get('level') == 0, what='level 0 at start')

    def consolidate(self, level):
        r = subprocess.run(['busctl', '--system', 'call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE,
                            'SetConsolidation', 'u', str(level)], capture_output=True, text=True, env=self.env(),
                           timeout=30, check=False)
        self.assertEqual(r.returncode, 0, f'SetConsolidation: {r.stderr}')

    def cpuset(self):
        return self.cgroup.cpus()

    def packed(self):
        """Level 1, measured, and the background packed onto CPU 0.  Skips
        when the daemon says why it does not consolidate here and now (by
        design it stays off above consolidation_exit_util, 50% of the
        machine busy: a busy loop or a compile beside the test); fails
        naming its last status when it neither packs nor says why."""
        self.consolidate(1)
        last = {}

        def decided():
            last.clear()
            last.update(self.status().get('consolidation', {}))
            if self.cpuset() == '0':
                return 'packed'
            reason = last.get('reason') or ''
            return 'off' if any(r in reason for r in BUSY_REASONS) else None
        try:
            how = T.wait_for(decided, timeout=20, interval=0.2,
                             what='the background packed onto CPU 0 (or the daemon saying why not)')
        except AssertionError:
            self.fail(f'the background was not packed onto CPU 0 in 20 s (cpuset.cpus {self.cpuset()}) and the '
                      f'daemon gave no reason it cannot; its consolidation status: {json.dumps(last)}')
        if how == 'off':
            util, bg = last.get('machine_util'), last.get('background_cpus')
            self.assertEqual(self.cpuset(), ORIGINAL, 'consolidation is off but the background was confined')
            self.skipTest(f'the daemon does not consolidate now: "{last.get("reason")}" (machine '
                          f'{"?" if util is None else f"{100 * util:.0f}%"} busy, background '
                          f'{"?" if bg is None else f"{bg:.2f}"} CPUs): the machine is too busy for this test')
        for p in self.programs:
            T.wait_for(lambda pid=p.pid: allowed_cpus(pid) == '0', what='the programs\' affinity CPU 0')
        st = self.status()['consolidation']
        self.assertEqual(st['set'], '0', st)
        self.assertIn(str(FREED), st['freed'], st)

    def test_background_packed_then_sigterm_restores(self):
        self.start()
        before = entries_per_s(FREED)
        self.packed()
        time.sleep(0.5)          # the programs migrate at their next wakeup
        after = entries_per_s(FREED)
        sys.stderr.write(f'CPU {FREED} idle entries/s: {before:.0f} at level 0, {after:.0f} at level 1\n')
        self.assertLess(after, before / 2, 'CPU 1 kept waking with the background packed away')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0, self.daemon.output())
        self.assertEqual(self.cpuset(), ORIGINAL, 'the exact original cpuset.cpus did not come back')
        for p in self.programs:
            self.assertEqual(allowed_cpus(p.pid), ORIGINAL)
        self.assertEqual(L.record_knobs(), L.RECORDED, 'SIGTERM did not put every knob back')
        self.assertIsNone(self.journal())

    def test_sigkill_then_restart_restores(self):
        self.start()
        self.packed()
        self.daemon.signal(signal.SIGKILL)
        self.daemon.wait(15)
        self.assertEqual(self.cpuset(), '0')
        self.assertIsNotNone(self.journal())
        # The next start (observe: it changes nothing after) replays the journal.
        self.start_enforcing('balanced', mode='observe', extra=['--cgroup-root', V.CGROUP_ROOT])
        T.wait_for(lambda: self.journal() is None, timeout=20, what='the journal replayed')
        self.assertEqual(self.cpuset(), ORIGINAL)
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0, self.daemon.output())
        self.assertEqual(L.record_knobs(), L.RECORDED, 'the restart did not put every knob back')


def load_tests(loader, _standard_tests, _pattern):
    """Only this file's tests (Enforce's run in live-enforce)."""
    return E.own_tests(loader, Consolidation)


if __name__ == '__main__':
    L.main()
