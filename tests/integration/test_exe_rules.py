#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""exe: rules and symbolic links: the kernel shows a process's executable
with every link resolved, so a rule naming a link (or a path through a
linked directory) is resolved when it is made, over the bus and in pins.d,
and matches the processes started through the link; the Target, the log
and idlepolicyctl say what it matches.  A rule that could never match
otherwise (a script, a directory, a link loop) is refused with
InvalidTarget."""

import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
from test_pins import PinTestCase, affinity  # noqa: E402


class ExeLinks(PinTestCase):
    """tmp/real/prog (a copy of sleep), tmp/prog-link -> real/prog,
    tmp/dir-link -> real, a script, a loop."""

    def setUp(self):
        super().setUp()
        self.real = os.path.join(os.path.realpath(self.tmp), 'real')
        os.mkdir(self.real)
        self.prog = os.path.join(self.real, 'prog')
        shutil.copy(shutil.which('sleep'), self.prog)
        self.link = os.path.join(self.tmp, 'prog-link')
        os.symlink('real/prog', self.link)
        self.dir_link = os.path.join(self.tmp, 'dir-link')
        os.symlink(self.real, self.dir_link)
        self.script = os.path.join(self.real, 'script')
        with open(self.script, 'w', encoding='ascii') as f:
            f.write('#!/bin/sh\nexec sleep 600\n')
        os.chmod(self.script, 0o755)
        os.symlink('loop-b', os.path.join(self.tmp, 'loop-a'))
        os.symlink('loop-a', os.path.join(self.tmp, 'loop-b'))

    def target(self, path):
        return str(self.pin_props(path)['Target'])

    def assert_pinned_through_the_link(self, path):
        """A process started through the link is pinned by the rule."""
        child = self.spawn([self.link, '600'])
        T.wait_for(lambda: affinity(child.pid) == [1], timeout=5,
                   what=f'the process started as {self.link} (its exe is {self.prog}) to be pinned by {path}')
        T.wait_for(lambda: [int(x) for x in self.pin_props(path)['PIDs']] == [child.pid], what='PIDs')

    def test_link_resolved_over_the_bus(self):
        path = self.pin(f'exe:{self.link}', '1', 'latency')
        self.assert_pinned_through_the_link(path)
        self.assertEqual(self.target(path), f'exe:{self.prog}')
        # Through the linked directory it is the same file: the same rule.
        self.assert_dbus_error('DuplicateTarget', 'Pin', f'exe:{self.dir_link}/prog', '0', 'latency')
        self.assertIn(f'exe:{self.link} names a symbolic link: the rule matches the file it resolves to, '
                      f'exe:{self.prog}', self.daemon.output())

    def test_ctl_says_what_it_matches(self):
        r = self.ctl('pin', f'exe:{self.dir_link}/prog', '--profile', 'latency', '--cpus', '1')
        path = r.stdout.strip()
        self.assertEqual(self.target(path), f'exe:{self.prog}')
        self.assertIn(f'the rule matches exe:{self.prog}: exe:{self.dir_link}/prog with its symbolic links resolved',
                      r.stderr)
        r = self.ctl('pin', f'exe:{os.path.realpath(shutil.which("sleep"))}', '--profile', 'latency', check=False)
        self.assertNotIn('symbolic links resolved', r.stderr)
        self.assert_pinned_through_the_link(path)

    def test_never_matching_rules_refused(self):
        before = T.snapshot_tree(self.tree)
        for target, words in ((f'exe:{self.script}', 'is a script: its processes run its interpreter /bin/sh'),
                              (f'exe:{self.real}', 'is a directory'),
                              (f'exe:{self.dir_link}', 'is a directory'),
                              (f'exe:{self.tmp}/loop-a', 'more than 40 symbolic links'),
                              (f'exe:{self.prog}/x', 'is not a directory')):
            with self.subTest(target=target):
                message = self.assert_dbus_error('InvalidTarget', 'Pin', target, '1', 'latency')
                self.assertIn(words, message)
        self.assert_tree_unchanged(before)
        self.assert_nothing_pinned()


class ExeLinksInRules(ExeLinks):
    """The same in a pins.d file, read at start."""

    START_DAEMON = False

    def test_rules_file(self):
        pins_d = os.path.join(self.tmp, 'pins.d')
        os.mkdir(pins_d)
        with open(os.path.join(pins_d, 'links.json'), 'w', encoding='utf-8') as f:
            json.dump([{'target': f'exe:{self.link}', 'cpus': '1', 'profile': 'latency'},
                       {'target': f'exe:{self.script}', 'cpus': '1', 'profile': 'latency'}], f)
        self.start_daemon(extra=['--pins-dir', pins_d])
        paths = self.pins()
        self.assertEqual(len(paths), 1, self.daemon.output())
        self.assertEqual(self.target(paths[0]), f'exe:{self.prog}')
        self.assert_pinned_through_the_link(paths[0])
        log = self.daemon.output()
        self.assertIn(f'rule 1 (exe:{self.script}): Cannot pin exe:{self.script}: {self.script} is a script', log)

    # The bus cases need the daemon the class does not start.
    test_link_resolved_over_the_bus = None
    test_ctl_says_what_it_matches = None
    test_never_matching_rules_refused = None


if __name__ == '__main__':
    T.main()
