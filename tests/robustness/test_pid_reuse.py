#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A pin raced against the reuse of its PID (issue 23, item 2): a process
is pinned by PID while, at a random moment, it is killed and its PID handed
at once to a new, unrelated process (pid-reuse: clone3 with set_tid).
Whatever the timing, the unrelated process must not stay changed: either
the daemon pinned it because it already held the PID when the call came
(then Unpin puts it back), or it refused or undid the pin of the dead one.
--races rounds (default 300); counts as JSON on stdout ("PIDREUSE {...}").

    IDLEPOLICYD=build/daemon/idlepolicyd IDLEPOLICYCTL=build/ctl/idlepolicyctl \\
    MAKE_FAKETREE=build/tests/make-faketree PID_REUSE=build/tests/robustness/pid-reuse \\
    tests/robustness/test_pid_reuse.py --races 3000
"""

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import robustnesstest as R  # noqa: E402

T = R.T
dbus = T.dbus

OPTS = argparse.Namespace(races=300, seed=1)


affinity = T.affinity


class Reuser:
    """The pid-reuse helper process."""

    def __init__(self, path):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if line != 'ready':
            self.proc.wait()
            if self.proc.returncode == 77:
                print('clone3 with set_tid is not allowed here; skipping', file=sys.stderr)
                sys.exit(77)
            raise AssertionError(f'pid-reuse did not start: {line!r}')

    def ask(self, command):
        self.proc.stdin.write(command + '\n')
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        if answer.startswith('error'):
            raise OSError(int(answer.split()[1]), f'pid-reuse: {command}')
        return answer

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(10)


class PidReuse(R.RobustTestCase):
    AFFINITY_CPUS = {0, 1}
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.reuser_exe = T.program('PID_REUSE')

    def test_reused_pid_never_stays_pinned(self):
        rng = random.Random(OPTS.seed)
        reuser = Reuser(self.reuser_exe)
        self.addCleanup(reuser.close)
        caller = dbus.bus.BusConnection(self.bus_address)
        counts = {'races': 0, 'pinned_new': 0, 'refused': 0, 'unrelated_left_changed': 0, 'problems': []}
        for i in range(OPTS.races):
            pid = int(reuser.ask('spawn'))
            original = affinity(pid)
            result = {}

            def pin():
                try:
                    result['path'] = str(caller.call_blocking(T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Pin', 'sss',
                                                              [f'pid:{pid}', '1', 'latency'], timeout=10))
                except dbus.exceptions.DBusException as e:
                    result['error'] = e.get_dbus_name()

            t = threading.Thread(target=pin)
            t.start()
            time.sleep(rng.uniform(0, 0.004))
            reuser.ask(f'reuse {pid}')              # the same PID, another process
            t.join(15)
            counts['races'] += 1
            if 'path' in result:
                counts['pinned_new'] += 1
                try:
                    caller.call_blocking(T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'Unpin', 'o', [result['path']],
                                         timeout=10)
                except dbus.exceptions.DBusException:
                    pass                        # ended already: the pinned one exited
            else:
                counts['refused'] += 1
            # the pin of the dead one ends with it (its watch); then nothing
            # of the new process may be left changed
            T.wait_for(lambda: not [p for p in self.manager_prop('Pins')], timeout=10, what='every pin to end')
            now = affinity(pid)
            if now != original:
                counts['unrelated_left_changed'] += 1
                counts['problems'].append(f'race {i}: process {pid} left at {now} ({result})')
            reuser.ask(f'kill {pid}')
        counts['problems'] = counts['problems'][:20]
        print('PIDREUSE ' + json.dumps(counts, sort_keys=True), flush=True)
        self.assert_daemon_alive()
        self.assertEqual(counts['unrelated_left_changed'], 0, counts['problems'])
        self.assertIsNone(self.journal_entries())


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--races', type=int, default=OPTS.races)
    p.add_argument('--seed', type=int, default=OPTS.seed)
    args, rest = p.parse_known_args()
    OPTS.races, OPTS.seed = args.races, args.seed
    import unittest
    prog = unittest.main(argv=[sys.argv[0], '-v'] + rest, exit=False)
    return R.exit_status(prog.result)


if __name__ == '__main__':
    sys.exit(main())
