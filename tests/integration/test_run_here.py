#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The first run: the daemon started with exactly the options
scripts/run-here gives it (run-here --print-argv), on a fake tree and a
private bus instead of this machine's /sys, and every example of
README.md's Usage section run against it, as written there.

What is changed, and why: --root (the fake tree), --state-dir (the test's,
not /var/lib/idlepolicy), --cgroup-root (a fake cgroup v2 tree holding the
examples' system.slice/postgresql.service and containers) and --calibrate-helper (the
real helper measures this machine's CPUs, which the live suite does; the
one run-here names must exist and be executable); run-here's directory
($RUN_HERE_DIR) is the test's, and so is the state directory an example
names (/var/lib/idlepolicy/calibration.json).  "pid:1234" is a child of the test.  The
long-running examples (monitor, hold) get Ctrl-C once they showed what
they do.  The record example reads this machine's tracefs as root (the
live suite's test), and so does trace-cmd's; the simulate examples run
from the build tree as a user of it would run them, the trace they name
being a recorded one of bench/traces, and the import example converts a
trace-cmd report of a session recorded here (tests/cli/ftrace)."""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402

SOURCE_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
README = os.path.join(SOURCE_ROOT, 'README.md')
RUN_HERE = os.path.join(SOURCE_ROOT, 'scripts', 'run-here')
NO_DAEMON = ('record',)
STATE_DIR = '/var/lib/idlepolicy'
TRACE = os.path.join(SOURCE_ROOT, 'bench', 'traces', 'pgbench-ro.trace')
# What "trace-cmd report -l | gzip > session.txt.gz" makes, from a session
# recorded here (trace-cmd itself records in the live suite).
SESSION = os.path.join(SOURCE_ROOT, 'tests', 'cli', 'ftrace', 'trace-cmd-report-l.txt.gz')


def usage_examples():
    """Returns the commands of README.md's Usage section (its indented code
    blocks), each as an argv with the comment dropped."""
    with open(README, encoding='utf-8') as f:
        text = f.read()
    section = re.search(r'^## Usage\n(.*?)^## ', text, re.M | re.S).group(1)
    return [shlex.split(line, comments=True) for line in section.splitlines()
            if line.startswith('    ') and line.strip()]


def run_here_argv(build, here):
    """Returns the daemon's argv as run-here prints it for build."""
    r = subprocess.run(['sh', RUN_HERE, '--print-argv', build], capture_output=True, text=True,
                       env=dict(os.environ, RUN_HERE_DIR=here), check=True)
    return r.stdout.splitlines()


def run_here_path(build, here):
    """Returns PATH as run-here's env file sets it for build (run-here
    --print-env: its "export PATH=..." line)."""
    r = subprocess.run(['sh', RUN_HERE, '--print-env', build], capture_output=True, text=True,
                       env=dict(os.environ, RUN_HERE_DIR=here), check=True)
    line = next(x for x in r.stdout.splitlines() if x.startswith('export PATH='))
    return shlex.split(line[len('export PATH='):])[0].replace('$PATH', os.environ.get('PATH', ''))


def read_text(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()


def option(argv, name):
    return argv[argv.index(name) + 1]


class RunHere(T.IdlePolicyTestCase):
    AFFINITY_CPUS = {0, 1}
    TREE_ARGS = ['--cpus', '4', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_POLKIT = False

    def make_cgroup_tree(self):
        root = os.path.join(self.tmp, 'cgroup')
        unit = 'system.slice/postgresql.service'
        os.makedirs(os.path.join(root, unit))
        files = {'cgroup.controllers': 'cpuset cpu io memory pids', 'cgroup.subtree_control': 'cpuset cpu',
                 'cpuset.cpus.effective': '0-3', 'system.slice/cgroup.controllers': 'cpuset cpu',
                 'system.slice/cgroup.subtree_control': 'cpuset cpu', 'system.slice/cpuset.cpus': '',
                 'system.slice/cpuset.cpus.effective': '0-3'}
        # the unit and the examples' containers: cgroupfs, and systemd's
        # form as the daemon expands it
        for leaf in (unit, 'kubepods/burstable/pod1/0a1b',
                     'kubepods.slice/kubepods-pod1.slice/cri-containerd-0a1b.scope'):
            os.makedirs(os.path.join(root, leaf), exist_ok=True)
            files.update({f'{leaf}/cgroup.controllers': 'cpuset cpu', f'{leaf}/cpuset.cpus': '',
                          f'{leaf}/cpuset.cpus.effective': '0-3', f'{leaf}/cgroup.events': 'populated 1\nfrozen 0',
                          f'{leaf}/cgroup.procs': ''})
        for rel, value in files.items():
            with open(os.path.join(root, rel), 'w', encoding='ascii') as f:
                f.write(value + '\n')
        return root

    def daemon_start_argv(self):
        self.build = os.path.dirname(os.path.dirname(os.path.realpath(self.daemon_exe)))
        self.here = os.path.join(self.tmp, 'here')
        self.argv = run_here_argv(self.build, self.here)
        for d in ('profiles.d', 'pins.d'):       # run-here makes them
            os.makedirs(os.path.join(self.here, d))
        return self.argv + ['--root', self.tree, '--state-dir', self.state_dir,
                            '--cgroup-root', self.make_cgroup_tree(),
                            '--calibrate-helper', T.MOCK_CALIBRATE]

    def test_argv_names_the_tree_and_build(self):
        a = self.argv
        self.assertEqual(os.path.realpath(a[0]), os.path.realpath(self.daemon_exe))
        self.assertEqual(os.path.realpath(option(a, '--profile-dir')),
                         os.path.realpath(os.path.join(SOURCE_ROOT, 'conf', 'profiles')))
        self.assertTrue(os.access(option(a, '--calibrate-helper'), os.X_OK), option(a, '--calibrate-helper'))
        self.assertTrue(os.path.isfile(option(a, '--config')), option(a, '--config'))
        for name in ('--runtime-dir', '--pins-dir', '--profile-override-dir'):
            self.assertTrue(option(a, name).startswith(self.here + '/'), f'{name} {option(a, name)}')
        self.assertNotIn('--root', a)
        self.assertNotIn('No profile found', self.daemon.output())
        self.assertEqual(sorted(str(p) for p in self.manager_prop('Profiles')),
                         sorted(f[:-5] for f in os.listdir(option(a, '--profile-dir')) if f.endswith('.json')))

    def example_env(self):
        """The environment of a shell that sourced run-here's env file: the
        examples find idlepolicyctl (this build's) on PATH."""
        return self.env(PATH=run_here_path(self.build, self.here))

    def sleeper(self):
        child = subprocess.Popen(['sleep', '600'], preexec_fn=T._die_with_parent)  # noqa: PLW1509
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        return child

    def run_until(self, argv, shown):
        """Runs a command that lasts until Ctrl-C: SIGINT once shown() is
        true.  Returns (exit status, stdout)."""
        out = os.path.join(self.tmp, 'long.out')
        with open(out, 'w+b') as f:
            p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=self.example_env())
            try:
                T.wait_for(lambda: shown(out) or p.poll() is not None, timeout=20, what=f'{argv} at work')
            finally:
                if p.poll() is None:
                    p.send_signal(signal.SIGINT)
            rc = p.wait(timeout=10)
        return rc, read_text(out)

    def test_env_puts_this_builds_ctl_first_on_path(self):
        """README's '. /run/idlepolicyd-here/env': run-here's env file has
        this build's idlepolicyctl first on PATH."""
        first = run_here_path(self.build, self.here).split(':')[0]
        self.assertEqual(os.path.realpath(shutil.which('idlepolicyctl', path=first)), os.path.realpath(self.ctl_exe))
        with open(README, encoding='utf-8') as f:
            self.assertIn('    . /run/idlepolicyd-here/env\n', f.read())

    def run_example(self, argv):
        if argv[0] == 'idlepolicy-record':
            shutil.copy(SESSION, os.path.join(self.tmp, 'session.txt.gz'))
            argv = [os.path.join(self.build, 'record', 'idlepolicy-record')] + argv[1:]
        verb = argv[1]
        if verb == 'monitor':
            rc, out = self.run_until(argv, lambda p: 'Ctrl-C to quit.' in read_text(p))
            self.assertIn('CPU', out)
        elif verb == 'hold':
            rc, out = self.run_until(argv, lambda _: len(self.manager_prop('Holds')) > 0)
        else:
            if verb == 'simulate':          # "--trace pgbench.trace": the one record made
                shutil.copy(TRACE, os.path.join(self.tmp, 'pgbench.trace'))
            r = subprocess.run(argv, capture_output=True, text=True, env=self.example_env(), timeout=300,
                               check=False, cwd=self.tmp)
            rc, out = r.returncode, r.stdout + r.stderr
            if verb == 'simulate':
                self.assertRegex(out, r'\| oracle \| \d+ \| 100\.0 \|')
            if verb == 'simulate' and '--trace' in argv:
                self.assertIn('calibrated: 2 of 2 states measured' if '--calibration' in argv else
                              "the trace's advertised costs, taken as real", out)
        self.assertEqual(rc, 0, f'README example {shlex.join(argv)} failed ({rc}):\n{out}')
        return out

    def test_readme_usage_examples(self):
        child = self.sleeper()
        examples = usage_examples()
        ran = 0
        for argv in examples:
            if argv[0] in ('sudo', 'trace-cmd') or argv[1] in NO_DAEMON:
                continue
            argv = [f'pid:{child.pid}' if a == 'pid:1234' else a for a in argv]
            # run-here's state directory is the test's
            argv = [self.state_dir + a[len(STATE_DIR):] if a.startswith(STATE_DIR + '/') else a for a in argv]
            with self.subTest(example=shlex.join(argv)):
                out = self.run_example(argv)
                ran += 1
                if argv[1:] == ['profile']:
                    for name in ('balanced', 'latency', 'performance', 'power-saver'):
                        self.assertIn(name, out)
        self.assertGreaterEqual(ran, 32, examples)
        self.assertEqual(str(self.manager_prop('ActiveProfile')), 'latency')
        self.assertTrue(self.daemon.alive(), self.daemon.output())


if __name__ == '__main__':
    T.main()
