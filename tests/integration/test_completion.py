#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""idlepolicyctl's bash completion for real: bash sources
ctl/idlepolicyctl.bash-completion, COMP_WORDS and COMP_CWORD are set as bash
sets them, _idlepolicyctl runs and COMPREPLY is compared with what the
daemon on the fake tree has (profiles from conf/profiles, online CPUs,
state names, governors, pins), asked through idlepolicyctl __complete."""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402

COMPLETION = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'ctl',
                          'idlepolicyctl.bash-completion')
SCRIPT = '''
source "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$(( $# - 1 ))
COMP_LINE="$*"
_idlepolicyctl
printf '%s\\n' "${COMPREPLY[@]}"
'''


class Completion(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '4', '--offline', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_POLKIT = False

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if shutil.which('bash') is None:
            print('bash not found; skipping', file=sys.stderr)
            sys.exit(77)

    def complete(self, *words):
        """Completes the last of words (the word under the cursor; '' for a
        new one).  Returns COMPREPLY as a list."""
        r = subprocess.run(['bash', '--norc', '--noprofile', '-c', SCRIPT, 'bash', COMPLETION, self.ctl_exe]
                           + list(words), capture_output=True, text=True, env=self.env(), timeout=30, check=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, '', f'completing {words}')
        return [w for w in r.stdout.split('\n') if w]

    def test_commands_and_options(self):
        self.assertEqual(self.complete('pro'), ['profile'])
        self.assertEqual(sorted(self.complete('p')), ['pin', 'pins', 'profile'])
        self.assertIn('status', self.complete(''))
        self.assertIn('--json', self.complete('--'))
        self.assertIn('--cpu', self.complete('state', 'disable', 'POLL', '--'))
        self.assertNotIn('--cpu', self.complete('pin', 'pid:1', '--'))
        self.assertIn('--profile', self.complete('pin', 'pid:1', '--'))
        self.assertEqual(self.complete('mode', ''), ['observe', 'enforce'])
        self.assertEqual(self.complete('state', ''), ['enable', 'disable'])
        self.assertIn('sleep', self.complete('launch', '--profile', 'latency', '--', 'slee'))

    def test_every_command_of_help(self):
        """The commands complete are exactly those idlepolicyctl --help lists
        (a new command not added to the completion fails here)."""
        r = subprocess.run([self.ctl_exe, '--help'], capture_output=True, text=True, check=True)
        section = r.stdout.split('Commands:\n', 1)[1].split('\n\n', 1)[0]
        commands = sorted(line.split()[0] for line in section.splitlines() if line.startswith('  '))
        self.assertIn('metrics', commands)
        self.assertEqual(sorted(self.complete('')), commands)

    def test_profiles(self):
        profiles = sorted(str(p) for p in self.manager_prop('Profiles'))
        self.assertEqual(profiles, ['balanced', 'latency', 'performance', 'power-saver'])
        self.assertEqual(sorted(self.complete('profile', '')), profiles)
        self.assertEqual(self.complete('profile', 'la'), ['latency'])
        self.assertEqual(sorted(self.complete('hold', 'p')), ['performance', 'power-saver'])
        self.assertEqual(self.complete('pin', 'pid:1', '--cpus', '1', '--profile', 'lat'), ['latency'])

    def test_cpus_states_governors(self):
        online = [str(c) for c in self.online_cpus()]
        self.assertEqual(online, ['0', '1', '2'])
        self.assertEqual(self.complete('state', 'disable', 'POLL', '--cpu', ''), online + ['all'])
        self.assertEqual(self.complete('pin', 'pid:1', '--cpus', ''), online)
        self.assertEqual(self.complete('state', 'disable', ''), ['POLL', 'haltpoll\\ idle'])
        self.assertEqual(self.complete('state', 'enable', 'halt'), ['haltpoll\\ idle'])
        self.assertEqual(self.complete('--cpu', '1', 'state', 'enable', 'P'), ['POLL'])
        governors = self.read(T.CPUIDLE_DIR + '/available_governors').split()
        self.assertEqual(sorted(self.complete('governor', '')), sorted(governors))

    def test_weights_takes_one_cpu(self):
        """weights refuses --cpu all: its completion does not offer it."""
        self.assertEqual(self.complete('weights', '--cpu', ''), ['0', '1', '2'])
        self.assertEqual(self.complete('idle-info', '--cpu', ''), ['0', '1', '2', 'all'])
        r = self.ctl('weights', '--cpu', 'all', check=False)
        self.assertEqual(r.returncode, 2)

    def test_metrics_formats_and_new_options(self):
        self.assertEqual(self.complete('metrics', ''), ['openmetrics', 'prometheus'])
        self.assertEqual(self.complete('metrics', 'p'), ['prometheus'])
        self.assertIn('--interval', self.complete('status', '--'))
        self.assertEqual(self.complete('status', '--interval', ''), ['1s', '10s', '1min'])
        self.assertIn('--dry-run', self.complete('profile', 'latency', '--'))
        self.assertNotIn('--dry-run', self.complete('status', '--'))
        self.assertIn('--cpu', self.complete('idle-info', '--'))
        self.assertEqual(self.complete('simulate', '--cal'), ['--calibration'])
        self.assertEqual(sorted(self.complete('help', 's')), ['simulate', 'state', 'status'])

    def test_pin_pids(self):
        """pin pid: completes the PIDs of /proc, as one word (COMP_WORDS
        unsplit) and as bash splits it at ':' (pid, :, the number)."""
        child = subprocess.Popen(['sleep', '600'], preexec_fn=T._die_with_parent)  # noqa: PLW1509
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        whole = self.complete('pin', 'pid:')
        self.assertIn(f'pid:{child.pid}', whole)
        self.assertIn(f'pid:{os.getpid()}', whole)
        self.assertTrue(all(w.startswith('pid:') and w[4:].isdigit() for w in whole), whole[:5])
        self.assertIn(f'pid:{child.pid}', self.complete('pin', f'pid:{child.pid}'))
        self.assertIn(str(child.pid), self.complete('pin', 'pid', ':', str(child.pid)[:-1]))
        self.assertTrue(all(w.isdigit() for w in self.complete('pin', 'pid', ':', '')))
        self.assertIn(f':{child.pid}', self.complete('pin', 'pid', ':'))
        self.assertEqual(self.complete('pin', 'cg'), ['cgroup:'])

    def test_pins(self):
        child = subprocess.Popen(['sleep', '600'], preexec_fn=T._die_with_parent)  # noqa: PLW1509
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        self.assertEqual(self.complete('unpin', ''), [])
        path = str(self.call('Pin', f'pid:{child.pid}', '', 'latency'))
        self.assertEqual(self.complete('unpin', ''), [path.rsplit('/', 1)[1], path])
        self.assertEqual(self.complete('unpin', '/'), [path])

    def test_without_daemon(self):
        self.stop_daemon()
        self.assertEqual(self.complete('profile', ''), [])
        self.assertEqual(self.complete('pro'), ['profile'])
        r = self.ctl('__complete', 'nonsense', check=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown kind 'nonsense'", r.stderr)


if __name__ == '__main__':
    T.main()
