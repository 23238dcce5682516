#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A consolidation background whose cpuset.cpus is not a regular file
(issue 23, smaller items): a FIFO, a directory, a symbolic link to a device,
a socket, a symbolic link to a regular file outside the cgroup mount.  The
status said "File descriptor in bad state" (the errno's text) for the
first four until the change layer's restructuring named them where the
file is read; a file that reads but cannot be written (the symbolic link:
reads follow it, writes do not) still shows the errno's text ("Too many
levels of symbolic links"), and so would one swapped between the read and
the write ("File descriptor in bad state").

Expected: the background's status names the problem (what its
cpuset.cpus is instead of a regular file), nothing is written through, the
daemon keeps answering."""

import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import robustnesstest as R  # noqa: E402
import consoltest as C  # noqa: E402

T = R.T
# kind -> what the status may say (a link to a device is not a regular
# file once followed; where cgroup paths are walked without following
# links, both links are named as links)
KINDS = {'fifo': ('not a regular file',), 'directory': ('not a regular file',),
         'device': ('not a regular file', 'a symbolic link'), 'socket': ('not a regular file',),
         'symlink': ('a symbolic link',)}
ERRNO_TEXTS = ('bad state', 'Too many levels', 'Is a directory', 'No such device')


class BackgroundCpuset(C.ConsolidationMixin, R.RobustTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_DAEMON = False

    def make_cgroups(self, kind):
        self.cgroup_root = os.path.join(self.tmp, 'cgroup')
        os.makedirs(os.path.join(self.cgroup_root, 'background'))
        for rel, value in (('cgroup.controllers', 'cpuset cpu'),
                           ('cpuset.cpus.effective', '0-3'),
                           ('background/cpuset.cpus.effective', '2-3')):
            with open(os.path.join(self.cgroup_root, rel), 'w', encoding='ascii') as f:
                f.write(value + '\n')
        knob = os.path.join(self.cgroup_root, 'background', 'cpuset.cpus')
        if kind == 'fifo':
            os.mkfifo(knob)
        elif kind == 'directory':
            os.mkdir(knob)
        elif kind == 'device':
            os.symlink('/dev/null', knob)
        elif kind == 'symlink':
            self.outside = os.path.join(self.tmp, 'outside-cpuset.cpus')
            with open(self.outside, 'w', encoding='ascii') as f:
                f.write('2-3\n')
            os.symlink(self.outside, knob)
        elif kind == 'socket':
            s = socket.socket(socket.AF_UNIX)
            s.bind(knob)
            self.addCleanup(s.close)
        self.write_config(['cgroup:/background'])

    def one_kind(self, kind):
        self.make_cgroups(kind)
        self.spawn_daemon(extra=['--cgroup-root', self.cgroup_root, '--config', self.config], mode='enforce')
        self.wait_on_bus(10)
        with self.busy(1):
            self.set_level(1)
            state = T.wait_for(lambda: (lambda s: s if 'skipped' in s or 'failed' in s else None)(
                self.status()['targets'].get('cgroup:/background', '')), what=f'the background\'s status ({kind})')
        self.assert_daemon_alive()
        self.stop_daemon()
        T.subprocess.run(['rm', '-rf', self.cgroup_root], check=True)
        return state

    def test_not_a_regular_file_is_named(self):
        states = {kind: self.one_kind(kind) for kind in KINDS}
        sys.stderr.write(f'states: {states}\n')
        for kind, state in states.items():
            for text in ERRNO_TEXTS:
                self.assertNotIn(text, state, f'{kind}: an errno\'s text')
            self.assertTrue([why for why in KINDS[kind] if why in state], f'{kind}: the problem is not named: {state}')
        with open(self.outside, encoding='ascii') as f:
            self.assertEqual(f.read(), '2-3\n', 'written through the symbolic link')


if __name__ == '__main__':
    T.main()
