#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Consolidation (issue 15) of units through systemd: the background names
slices (system.slice, user.slice) and systemd is python3-dbusmock's mock of
org.freedesktop.systemd1 on the private bus (systemdmock.py).  At level 1
the daemon calls SetUnitProperties(unit, runtime=true, AllowedCPUs=<the
set's mask>) for each named unit; it puts back the exact original
AllowedCPUs (an empty array when it was not set) at level 0, at SIGTERM
and, after a SIGKILL, at the next start (the journal's replay).  A unit
that does not exist gets a named state in ConsolidationStatus, nothing
else changes and the daemon keeps running."""

import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import consoltest as C  # noqa: E402
import idlepolicytest as T  # noqa: E402
import systemdmock as SM  # noqa: E402

# The originals: system.slice without AllowedCPUs, user.slice with some
# (not "all CPUs": putting back all would not be a restore).
ORIGINAL = {'system.slice': [], 'user.slice': [1, 2, 3]}
SET = [0]                   # 10% of 4 CPUs: one CPU, the first core


class ConsolidationUnits(C.ConsolidationMixin, T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll']

    def daemon_start_argv(self):
        self.systemd = SM.Systemd(self)
        for unit, cpus in ORIGINAL.items():
            self.systemd.add_unit(unit, cpus)
        self.write_config(list(ORIGINAL) + ['unit:nope.slice'])
        return self.argv()

    def argv(self, mode='enforce'):
        return self.daemon_argv(['--config', self.config], mode=mode)

    def calls(self, unit=None):
        """The SetUnitProperties calls [(unit, AllowedCPUs bytes)], or of
        unit only its AllowedCPUs bytes."""
        calls = self.systemd.raw_calls()
        return calls if unit is None else [value for name, value in calls if name == unit]

    def confine(self):
        """Level 1 with a 10% load until both units are confined."""
        self.set_level(1)
        T.wait_for(lambda: all(self.calls(u) for u in ORIGINAL), what='both units confined')
        return self.status()

    def assert_confined_once(self):
        for unit in ORIGINAL:
            self.assertEqual(self.calls(unit), [SM.mask(SET)], unit)

    def assert_restored(self):
        """Each unit's last call put its exact original back (not set: an
        empty array, which systemd reads as "all CPUs" without a value)."""
        for unit, cpus in ORIGINAL.items():
            self.assertEqual(self.calls(unit), [SM.mask(SET), SM.mask(cpus)], unit)
        self.assertEqual(self.calls('system.slice')[-1], [])

    def test_level_1_sets_allowed_cpus_at_runtime(self):
        with self.busy(1):
            s = self.confine()
            self.assertEqual((s['set'], s['freed']), ('0', '1-3'))
            for unit in ORIGINAL:
                T.wait_for(lambda u=unit: self.status()['targets'][u] == 'confined to 0', what=f'{unit} confined')
            # ticks later nothing is written again: the value is already right
            self.wait_ticks()
            self.assert_confined_once()
            self.assertEqual(self.systemd.runtime_flags(), [True] * len(ORIGINAL))
            entries = self.journal_entries()
            self.assertEqual(entries.get('unit:system.slice'), '')
            self.assertEqual(entries.get('unit:user.slice'), '1-3')

    def test_level_0_restores_exactly(self):
        with self.busy(1):
            self.confine()
            self.set_level(0)
            T.wait_for(lambda: all(len(self.calls(u)) == 2 for u in ORIGINAL), what='both units put back')
        self.assert_restored()
        self.assertEqual(self.systemd.runtime_flags(), [True] * 4)
        self.assertEqual(self.status()['targets']['system.slice'], 'not confined')
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_restored()                                  # nothing more at exit

    def test_sigterm_restores_exactly(self):
        self.assertEqual(self.confine_then_stop(), 0)
        self.assert_restored()
        self.assertIsNone(self.journal_entries())

    def test_sigkill_then_restart_restores_exactly(self):
        self.confine_then_stop(signal.SIGKILL)
        self.assert_confined_once()
        self.assertEqual(self.journal_entries().get('unit:user.slice'), '1-3')
        # the replay puts both back through systemd; observe confines nothing
        self.start_daemon(argv=self.argv(mode='observe'))
        T.wait_for(lambda: all(len(self.calls(u)) == 2 for u in ORIGINAL), what='the replay through systemd')
        self.assert_restored()
        self.assertEqual(self.level(), 1)                       # persisted
        self.assertEqual(self.stop_daemon(), 0)
        self.assert_restored()

    def test_missing_unit_is_named_and_changes_nothing(self):
        with self.busy(1):
            s = self.confine()
            self.assertEqual(s['targets']['unit:nope.slice'], 'skipped: no such cgroup or unit')
            self.assert_confined_once()
            self.assertNotIn('unit:nope.slice', self.journal_entries())
            self.assert_daemon_alive()
            self.set_level(0)
            T.wait_for(lambda: all(len(self.calls(u)) == 2 for u in ORIGINAL), what='both units put back')
        self.assertEqual(sorted({name for name, _ in self.calls()}), sorted(ORIGINAL))
        self.assert_daemon_alive()


if __name__ == '__main__':
    T.main()
