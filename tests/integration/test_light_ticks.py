#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Light ticks (libidlepolicy/model/quiet-tick.h) end to end: the real
daemon on a fake tree whose proc/stat a feeder moves like a quiet machine's
(idle time passing, a few context switches, nothing busy) while the cpuidle
counters stand still.  The daemon takes light ticks (the
idlepolicy_light_ticks_total counter rises, the full ticks stop) and does
not re-read the cpuidle counters then (a state's usage moved in the tree is
not in its metrics); a jump of the context switches makes the ticks full at
once (no light tick counted after it, the usage seen); busy time does too;
quiet_full_tick_usec 0 turns them off, and a SIGHUP with another value on;
a CPU that goes or comes is seen from proc/stat, without the online file;
no tick is long on a fake tree (no exec wake for it);
in enforce mode, once the poll search holds no polling, they come too.
Nothing here asserts on time: the counters the daemon exposes say which
ticks were light."""

import json
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

CPUS = (0, 1)
# Light ticks for as long as the machine stays quiet: no full tick comes
# by the clock while a test watches (quiet_full_tick_usec's maximum, 1 h).
NEVER_DUE = 3600000000
USAGE_FILE = T.state_file(0, 1, 'usage')


class Feeder(T.Periodic):
    """Moves proc/stat like a machine: per step, idle jiffies on every CPU
    (busy ones too when busy is set) and ctxt switches; the cpuidle
    counters are left alone."""
    what = 'the proc/stat feeder'

    def __init__(self, test, ctxt=2, busy=0, period=0.02):
        super().__init__(test, period)
        self.ctxt = ctxt
        self.busy = busy

    def step(self):
        P.bump_stat(self.test.tree, CPUS, self.busy, 10 - self.busy, self.ctxt)


class LightTicks(T.IdlePolicyTestCase):
    """Two CPUs of the KVM tree, observe mode, the 100 ms test tick."""
    TREE_ARGS = ['--cpus', '2']
    START_DAEMON = False

    def start(self, quiet_full_tick_usec):
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')
        self.write_config(quiet_full_tick_usec)
        self.start_daemon(extra=['--config', self.config])

    def write_config(self, quiet_full_tick_usec):
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({'quiet_full_tick_usec': quiet_full_tick_usec}, f)

    def metrics(self):
        return str(self.call('Metrics'))

    def counts(self):
        """(light ticks, full ticks) so far: every tick is in the duration
        histogram's count, the light ones also in their counter."""
        text = self.metrics()
        light = int(re.search(r'^idlepolicy_light_ticks_total (\d+)$', text, re.M).group(1))
        ticks = int(re.search(r'^idlepolicy_tick_duration_seconds_count (\d+)$', text, re.M).group(1))
        return light, ticks - light

    def usage_seen(self):
        """CPU 0's state 1 usage as the daemon last sampled it."""
        name = re.escape(self.state_names(0)[1])
        m = re.search(r'^idlepolicy_cpuidle_state_usage_total\{cpu="0",state="' + name + r'"\} (\d+)$',
                      self.metrics(), re.M)
        self.assertIsNotNone(m, 'no usage metric of CPU 0 state 1')
        return int(m.group(1))

    def wait_light(self, n, what):
        """Waits until n more light ticks were counted; returns the counts."""
        light0, _ = self.counts()
        return T.wait_for(lambda: (c := self.counts())[0] >= light0 + n and c, timeout=30,
                          what=f'{n} light ticks ({what})')

    def test_quiet_then_activity(self):
        self.start(NEVER_DUE)
        with Feeder(self):
            self.wait_light(5, 'a quiet machine settles into them')
            usage = self.usage_seen()
            light, full = self.counts()
            P.bump_file(self.tree, USAGE_FILE, 1000)
            light2, full2 = self.wait_light(10, 'the machine stays quiet')
            # Light ticks only since: the counters were not read again.
            self.assertEqual(full2, full, 'a full tick while the machine was quiet')
            self.assertEqual(self.usage_seen(), usage, 'a light tick read the cpuidle counters')
        # The context switches jump, and keep moving (a program started):
        # the tick that reads them is full, and so is every one after.
        P.bump_stat(self.tree, CPUS, 0, 10, 100000)
        with Feeder(self, ctxt=1000):
            light3, full3 = self.counts()      # ticks that read proc/stat before the jump are in
            T.wait_for(lambda: self.usage_seen() == usage + 1000, timeout=30, what='the usage seen by a full tick')
            light4, full4 = T.wait_for(lambda: (c := self.counts())[1] >= full3 + 5 and c, timeout=30,
                                       what='five full ticks of an active machine')
            self.assertEqual(light4, light3, 'a light tick after the context switches jumped')
        # Quiet again: light ticks again.
        with Feeder(self):
            self.wait_light(3, 'quiet again')
        # Never a long one: the tree's proc/ is not the machine's procfs,
        # whose processes the exec wake would watch (exec-wake.h; the live
        # suite's live-long-ticks has them).
        self.assertRegex(self.metrics(), r'(?m)^idlepolicy_long_ticks_total 0$')
        self.assertRegex(self.metrics(), r'(?m)^idlepolicy_tick_long 0$')
        self.assertTrue(self.daemon.alive())

    def test_hotplug_while_light(self):
        """A light tick does not read devices/system/cpu/online: the
        proc/stat it reads lists the online CPUs (the kernel's
        show_stat()), and a tick whose list is not the CPUs known online is
        full (QUIET_TICK_HOTPLUG) and reads the file.  A garbled online file
        goes unread while the ticks are light; a CPU taken offline
        (make-faketree --set-offline: the file, proc/stat's line and the
        cpuidle directories go, as in the kernel) is seen at the next tick,
        and back online likewise."""
        self.start(NEVER_DUE)
        online = os.path.join(self.tree, T.CPU_DIR, 'online')
        with open(online, encoding='ascii') as f:
            saved = f.read()
        with Feeder(self):
            self.wait_light(5, 'a quiet machine settles into them')
            offset = len(self.daemon.output())
            with open(online, 'w', encoding='ascii') as f:
                f.write('garbage\n')
            self.wait_light(5, 'the online file garbled')
            with open(online, 'w', encoding='ascii') as f:
                f.write(saved)
            self.assertNotIn('Failed to read the online CPUs', self.daemon.output()[offset:],
                             'a light tick read the online file')
        # No feeder while the tree changes (it rewrites proc/stat in place).
        _, full = self.counts()
        self.make_tree(self.tree, ['--set-offline', '1'])
        T.wait_for(lambda: not self.cpu_prop(1, 'Online'), timeout=30, what='cpu1 offline, seen from light ticks')
        self.assertGreater(self.counts()[1], full, 'no full tick for the hotplug')
        self.assertIn('Online CPUs changed, now 0.', self.daemon.output())
        with Feeder(self):
            self.wait_light(3, 'quiet again, one CPU')
        self.make_tree(self.tree, ['--set-online', '1'])
        T.wait_for(lambda: bool(self.cpu_prop(1, 'Online')), timeout=30, what='cpu1 back online')
        self.assertIn('Online CPUs changed, now 0-1.', self.daemon.output())
        self.assertTrue(self.daemon.alive())

    def test_enforce(self):
        """Enforcing, the poll search climbs from no polling, finds the
        machine quiet and holds no polling (menu, POLL disabled: knobs
        written); then the ticks are light, and the knobs stay as the
        plan wrote them."""
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')
        self.write_config(NEVER_DUE)
        with Feeder(self):
            self.start_daemon(extra=['--config', self.config], mode='enforce')
            self.wait_light(5, 'enforcing on a quiet machine')
            knobs = T.knob_values(self.tree)
            _, full0 = self.counts()
            _, full = self.wait_light(5, 'still quiet')
            self.assertEqual(full, full0, 'a full tick while quiet and settled')
            self.assertEqual(T.knob_values(self.tree), knobs, 'a knob written during light ticks')
        self.assertEqual(self.read(T.GOVERNOR_FILE), 'menu')
        self.stop_daemon()
        self.assertEqual(T.knob_values(self.tree), self.original_knobs, 'knobs not put back at the stop')

    def test_busy_is_not_quiet(self):
        """30% of every CPU busy, few switches: no light tick."""
        self.start(NEVER_DUE)
        with Feeder(self, busy=3):
            _, full = self.counts()
            T.wait_for(lambda: self.counts()[1] >= full + 15, timeout=30, what='15 full ticks')
            light, _ = self.counts()
            # The first ticks of the run (before the busy readings) may be
            # light: none may come once busy readings were compared.
            _, full = self.counts()
            T.wait_for(lambda: self.counts()[1] >= full + 10, timeout=30, what='10 more full ticks')
            self.assertEqual(self.counts()[0], light, 'a light tick on a busy machine')

    def test_off_and_reload(self):
        self.start(0)
        with Feeder(self):
            _, full = self.counts()
            T.wait_for(lambda: self.counts()[1] >= full + 15, timeout=30, what='15 full ticks')
            self.assertEqual(self.counts()[0], 0, 'a light tick with quiet_full_tick_usec 0')
            self.assertIn('idlepolicy_tick_light 0', self.metrics())
            # On again at a reload.
            self.write_config(NEVER_DUE)
            self.daemon.signal(signal.SIGHUP)
            self.wait_light(5, 'after SIGHUP turned them on')
        self.assertIn('Light ticks while the machine is quiet', self.daemon.output())


if __name__ == '__main__':
    T.main()
