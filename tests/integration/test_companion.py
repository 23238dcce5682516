#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Companion mode (daemon/companion.h): the real daemon on a fake tree whose
kernel offers the wteo governor (make-faketree --wteo).  A plain directory
cannot make cpuN/wteo appear when someone writes current_governor, as the
kernel's enable() does: "make-faketree DIR --follow-governor" runs beside
the daemon and does it within milliseconds (and keeps a CPU's tolerance
across a switch, as the kernel does).

Covered: "auto" selects wteo; the machine profile's parameters and each
CPU's tolerance are written (a pinned latency CPU gets 51, the others
keep the machine's); no disable bit is written while the plan still
shows its cap; status and weights say companion mode and show the
kernel's tolerance and matrix (a bad matrix is ignored with its reason);
SIGTERM and SIGKILL-then-restart put back every parameter, tolerance and
the governor; a tolerance whose file went away stays journaled and is put
back once its file is there again; the profile's latency limit, which no
disable bit carries in companion mode, goes to the CPU's resume latency
(and back); a CPU consolidation freed gets the lowest price of latency
(tolerance 1024); without wteo the cap is written as before."""

import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402

PARAMS = 'sys/module/wteo/parameters'
PARAM_FILES = [f'{PARAMS}/{p}' for p in ('learn_shift', 'age_shift', 'explore_shift')]
# What the tree holds before the daemon: not the defaults, so that every
# write and every restore is visible.
ORIGINAL_PARAMS = {f'{PARAMS}/learn_shift': '5', f'{PARAMS}/age_shift': '7', f'{PARAMS}/explore_shift': '2'}
ORIGINAL_TOLERANCE = '300'
PUSHED_PARAMS = {f'{PARAMS}/learn_shift': '4', f'{PARAMS}/age_shift': '6', f'{PARAMS}/explore_shift': '0'}
CPUS = (0, 1)
STATE_C2 = 2            # 16 us to leave: above latency's 10 us limit


def tolerance_file(cpu):
    return f'{T.CPU_DIR}/cpu{cpu}/wteo/tolerance'


def matrix_file(cpu):
    return f'{T.CPU_DIR}/cpu{cpu}/wteo/matrix'


def write_raw(tree, rel, text):
    """Writes text to tree/rel as it is (no newline added)."""
    with open(os.path.join(tree, rel), 'w', encoding='utf-8') as f:
        f.write(text)


def disable_files(tree, cpu):
    return [T.state_file(cpu, k, 'disable') for k in T.state_dirs(tree, cpu)]


class CompanionTestCase(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'intel_idle', '--governor', 'menu',
                 '--governors', 'ladder menu teo', '--no-haltpoll', '--wteo']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        for path, value in ORIGINAL_PARAMS.items():
            T.write(self.tree, path, value)
        os.mkdir(os.path.join(self.tree, '.faketree-wteo'))
        for cpu in CPUS:       # the tolerance the kernel kept from an earlier wteo period
            T.write(self.tree, f'.faketree-wteo/cpu{cpu}', ORIGINAL_TOLERANCE)
        self.follower = T.Process([self.faketree_exe, self.tree, '--follow-governor'],
                                  os.path.join(self.tmp, 'follow-governor.log'), dict(os.environ))
        self.addCleanup(self.follower.stop)

    def governor(self):
        return self.read(T.GOVERNOR_FILE)

    def tolerance(self, cpu):
        p = os.path.join(self.tree, tolerance_file(cpu))
        return self.read(tolerance_file(cpu)) if os.path.exists(p) else None

    def params(self):
        return {p: self.read(p) for p in PARAM_FILES}

    def wait_companion(self, tolerances):
        """Waits until wteo governs with the machine's parameters and the
        given tolerance per CPU."""
        T.wait_for(lambda: self.governor() == 'wteo', what='the governor wteo')
        T.wait_for(lambda: self.params() == PUSHED_PARAMS, what='the wteo parameters')
        for cpu, value in tolerances.items():
            T.wait_for(lambda c=cpu, v=value: self.tolerance(c) == v, what=f'CPU {cpu} tolerance {value}')
            # what the daemon shows: read back at a tick after the write
            T.wait_for(lambda c=cpu, v=value: int(self.cpu_prop(c, 'WteoTolerance')) == int(v),
                       what=f'CPU {cpu} WteoTolerance {value}')
        T.wait_for(lambda: bool(self.manager_prop('CompanionMode')), what='CompanionMode')

    def assert_no_disable_bit(self):
        for cpu in CPUS:
            for f in disable_files(self.tree, cpu):
                self.assertEqual(self.read(f), '0', f)
        for path in self.journal_entries() or {}:
            self.assertFalse(path.endswith('/disable'), path)

    def resume_latency(self, cpu):
        return self.read(T.latency_file(cpu))

    def assert_all_back(self):
        self.assertEqual(self.governor(), 'menu')
        self.assertEqual([self.resume_latency(c) for c in CPUS], ['0', '0'])
        self.assertEqual(self.params(), ORIGINAL_PARAMS)
        self.assertEqual(self.journal_entries(), None)
        self.assert_no_disable_bit()
        # The kernel keeps the tolerance across the switch away: it must be
        # the original again, not the daemon's.
        T.write(self.tree, T.GOVERNOR_FILE, 'wteo')
        for cpu in CPUS:
            T.wait_for(lambda c=cpu: self.tolerance(c) is not None, what=f'CPU {cpu} wteo dir')
            self.assertEqual(self.tolerance(cpu), ORIGINAL_TOLERANCE)

    def start_companion(self, profile):
        """The daemon in enforce mode under profile; returns the ticker."""
        self.start_daemon(mode='enforce')
        if profile != 'balanced':
            self.call('SetProfile', profile)


class Companion(CompanionTestCase):

    def test_auto_selects_wteo_and_pushes(self):
        with self.ticking():
            self.start_companion('performance')
            self.wait_companion({0: '77', 1: '77'})
            journal = self.journal_entries()
            self.assertEqual(journal[T.GOVERNOR_FILE], 'menu')
            for path, value in ORIGINAL_PARAMS.items():
                self.assertEqual(journal[path], value)
            for cpu in CPUS:
                self.assertEqual(journal[tolerance_file(cpu)], ORIGINAL_TOLERANCE)
            # Written before the wteo knobs, put back after them.
            order = list(journal)
            self.assertLess(order.index(T.GOVERNOR_FILE), order.index(tolerance_file(0)))
            self.assert_no_disable_bit()
            # status says so, with the tolerance per CPU.
            out = self.ctl('status').stdout
            self.assertIn('companion mode (wteo)', out)
            self.assertIn('wteo tolerance 77/1024', out)
            doc = json.loads(self.ctl('status', '--json').stdout)
            self.assertTrue(doc['companion_mode'])
            self.assertEqual([c['wteo_tolerance'] for c in doc['cpus']], [77, 77])
        self.stop_daemon()
        self.assert_all_back()

    def test_latency_pin_only_its_cpu_no_disable_bit(self):
        with self.ticking():
            self.start_companion('balanced')
            self.wait_companion({0: '102', 1: '102'})
            child = subprocess.Popen(['sleep', '600'], preexec_fn=T._die_with_parent)  # noqa: PLW1509
            self.addCleanup(lambda: (child.kill(), child.wait()))
            self.call('Pin', f'pid:{child.pid}', '1', 'latency')
            T.wait_for(lambda: self.tolerance(1) == '51', what='CPU 1 tolerance 51')
            self.assertEqual(self.tolerance(0), '102')
            # The plan still caps CPU 1 below C2 (16 us > 10 us) and shows it,
            # but writes no disable bit: wteo decides per entry.
            T.wait_for(lambda: int(self.cpu_prop(1, 'Cap')) < STATE_C2, what='CPU 1 capped by the plan')
            for _ in range(3):
                self.tick_tree()
            self.assert_no_disable_bit()
            # The limit goes to the CPU's resume latency instead (wteo
            # honours it as teo does); CPU 0 is not limited.
            T.wait_for(lambda: self.resume_latency(1) == '10', what='CPU 1 resume latency 10')
            self.assertEqual(self.resume_latency(0), '0')
            self.assertEqual(self.journal_entries()[T.latency_file(1)], '0')
            # The pin ends: CPU 1's limit goes back.
            child.kill()
            child.wait()
            T.wait_for(lambda: self.resume_latency(1) == '0', what='CPU 1 resume latency back')
            T.wait_for(lambda: self.tolerance(1) == '102', what='CPU 1 tolerance back to the machine\'s')
        self.stop_daemon()
        self.assert_all_back()

    def test_sigkill_then_restart_puts_back(self):
        with self.ticking():
            self.start_companion('latency')
            self.wait_companion({0: '51', 1: '51'})
        self.daemon.signal(signal.SIGKILL)
        self.daemon.wait()
        self.assertEqual(self.tolerance(0), '51')
        self.assertIsNotNone(self.journal_entries())
        # The next start replays the journal; observe mode writes nothing after.
        self.start_daemon(mode='observe')
        T.wait_for(lambda: self.journal_entries() is None, what='the journal replayed')
        self.stop_daemon()
        self.assert_all_back()

    def test_weights_show_the_kernel_matrix(self):
        with self.ticking():
            self.start_companion('balanced')
            self.wait_companion({})
            write_raw(self.tree, matrix_file(1), '1000 20 4\n0 1024 0\n12 12 1000\n')
            T.wait_for(lambda: [list(r) for r in self.cpu_prop(1, 'KernelWeights')] ==
                       [[1000, 20, 4], [0, 1024, 0], [12, 12, 1000]], what='the kernel matrix')
            out = self.ctl('weights', '--cpu', '1').stdout
            self.assertIn("the wteo governor's own matrix", out)
            self.assertIn('97.7%', out)      # 1000/1024
            doc = json.loads(self.ctl('weights', '--cpu', '1', '--json').stdout)
            self.assertEqual(doc['source'], 'kernel')
            self.assertEqual(doc['weights'], [[1000, 20, 4], [0, 1024, 0], [12, 12, 1000]])
            # Bad matrices: ignored with a named reason, the daemon runs on.
            for text, reason in (('1000 24\n0 1024\n', 'line 1: 2 numbers, expected 3'),
                                 ('1000 20 4\n0 1024 0\n12 12 999\n', 'line 3: sums to 1023, not 1024'),
                                 ('a b c\n', 'not a list of numbers'),
                                 ('1' * 5000, 'larger than the limit')):
                write_raw(self.tree, matrix_file(1), text)
                T.wait_for(lambda r=reason: r in str(self.cpu_prop(1, 'KernelWeightsError')), what=reason)
                self.assertEqual(list(self.cpu_prop(1, 'KernelWeights')), [])
                out = self.ctl('weights', '--cpu', '1').stdout
                self.assertIn(reason, out)
                self.assert_daemon_alive()
            os.unlink(os.path.join(self.tree, matrix_file(1)))
            os.mkfifo(os.path.join(self.tree, matrix_file(1)))
            T.wait_for(lambda: 'not a regular file' in str(self.cpu_prop(1, 'KernelWeightsError')), what='FIFO')
            self.assert_daemon_alive()
            self.assertIn('Ignoring CPU 1', self.daemon.output())

    def test_tolerance_gone_with_the_governor_stays_journaled(self):
        with self.ticking():
            self.start_companion('latency')
            self.wait_companion({0: '51', 1: '51'})
            # Someone else switches the governor away: the files go, the kernel
            # keeps 51 for when wteo comes back (the follower acts for it).
            T.write(self.tree, T.GOVERNOR_FILE, 'teo')
            T.wait_for(lambda: not self.manager_prop('CompanionMode'), what='companion mode off')
        self.stop_daemon()
        journal = self.journal_entries()
        self.assertEqual({p: v for p, v in journal.items() if 'tolerance' in p},
                         {tolerance_file(0): ORIGINAL_TOLERANCE, tolerance_file(1): ORIGINAL_TOLERANCE})
        self.assertIn('Keeping 2 wteo tolerance(s) in the restore journal', self.daemon.output())
        self.assertEqual(self.params(), ORIGINAL_PARAMS)
        # wteo back: the next start puts the originals back.
        T.write(self.tree, T.GOVERNOR_FILE, 'wteo')
        T.wait_for(lambda: self.tolerance(0) == '51', what='the kept 51')
        self.start_daemon(mode='observe')
        T.wait_for(lambda: self.journal_entries() is None, what='the journal replayed')
        self.assertEqual([self.tolerance(c) for c in CPUS], [ORIGINAL_TOLERANCE] * 2)


class FreedByConsolidation(CompanionTestCase):
    """A CPU consolidation freed sleeps as deep as the governor will: in
    companion mode its tolerance is 1024 (the plan's floor outside it)."""

    def start_companion(self, profile):
        cgroups = os.path.join(self.tmp, 'cgroup')
        os.makedirs(os.path.join(cgroups, 'background'))
        for rel, value in (('cgroup.controllers', 'cpuset cpu'), ('cpuset.cpus.effective', '0-1'),
                           ('background/cpuset.cpus', '0-1'), ('background/cpuset.cpus.effective', '0-1')):
            T.write(cgroups, rel, value)
        config = os.path.join(self.tmp, 'idlepolicyd.conf')
        with open(config, 'w', encoding='utf-8') as f:
            json.dump({'consolidation_background': ['cgroup:/background']}, f)
        self.start_daemon(extra=['--cgroup-root', cgroups, '--config', config], mode='enforce')
        if profile != 'balanced':
            self.call('SetProfile', profile)
        return cgroups

    def test_freed_cpu_tolerance(self):
        with self.ticking():
            cgroups = self.start_companion('balanced')
            self.wait_companion({0: '102', 1: '102'})
            self.call('SetConsolidation', T.dbus.UInt32(1))
            T.wait_for(lambda: str(self.manager_prop('ConsolidationStatus')[3]) == '1', what='CPU 1 freed')
            T.wait_for(lambda: self.tolerance(1) == '1024', what='CPU 1 tolerance 1024')
            self.assertEqual(self.tolerance(0), '102')
            with open(os.path.join(cgroups, 'background/cpuset.cpus'), encoding='ascii') as f:
                self.assertEqual(f.read().strip(), '0')
            self.call('SetConsolidation', T.dbus.UInt32(0))
            T.wait_for(lambda: self.tolerance(1) == '102', what='CPU 1 tolerance back')
        self.stop_daemon()
        self.assert_all_back()


class WithoutWteo(T.IdlePolicyTestCase):
    """The same machine without the governor: the cap is a disable bit."""
    TREE_ARGS = ['--cpus', '2', '--states', '3', '--driver', 'intel_idle', '--governor', 'menu',
                 '--governors', 'ladder menu teo', '--no-haltpoll']
    START_DAEMON = False

    def test_cap_written_as_before(self):
        with self.ticking():
            self.start_daemon(mode='enforce')
            self.call('SetProfile', 'latency')
            T.wait_for(lambda: self.read(f'{T.CPU_DIR}/cpu1/cpuidle/state{STATE_C2}/disable') == '1',
                       what='C2 disabled by the plan')
            self.assertFalse(self.manager_prop('CompanionMode'))
            self.assertEqual(self.read(T.GOVERNOR_FILE), 'menu')
            self.assertFalse(os.path.exists(os.path.join(self.tree, PARAMS)))
            self.assertNotIn('companion', self.ctl('status').stdout)
        self.stop_daemon()


if __name__ == '__main__':
    T.main()
