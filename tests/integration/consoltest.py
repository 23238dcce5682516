# SPDX-License-Identifier: LGPL-2.1-or-later
"""Helpers of the consolidation tests (issue 15) on top of idlepolicytest:
the background configuration, the level and status over the bus, and a
feeder that makes the fake tree's proc/stat show a chosen utilisation."""

import json
import os
import re
import signal

import idlepolicytest as T
import policytest as P


class ConsolidationMixin:
    """For an IdlePolicyTestCase."""

    def write_config(self, background):
        """Writes a configuration naming background (a list of entries) as
        consolidation's; returns its path (self.config)."""
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({'consolidation_background': list(background)}, f)
        return self.config

    def status(self):
        """ConsolidationStatus as a dict."""
        s = self.manager_prop('ConsolidationStatus')
        return {'source': str(s[0]), 'active': bool(s[1]), 'set': str(s[2]), 'freed': str(s[3]),
                'machine': float(s[4]), 'background': float(s[5]), 'reason': str(s[6]),
                'targets': {str(n): str(v) for n, v in s[7]}, 'irqs': tuple(int(x) for x in s[8])}

    def level(self):
        return int(self.manager_prop('Consolidation'))

    def set_level(self, level):
        self.call('SetConsolidation', T.dbus.UInt32(level))

    def ticks(self):
        """The ticks done so far (idlepolicyctl metrics' tick histogram)."""
        m = re.search(r'^idlepolicy_tick_duration_seconds_count (\d+)$', self.ctl('metrics').stdout, re.M)
        return int(m.group(1))

    def wait_ticks(self, n=2):
        """Waits until n more ticks are done."""
        start = self.ticks()
        T.wait_for(lambda: self.ticks() >= start + n, what=f'{n} more ticks')

    def busy(self, busy, idle=None):
        """Feeds proc/stat: busy of every 10 jiffies on every CPU of the
        tree."""
        return P.Feeder(self, T.tree_present_cpus(self.tree), {}, stat=(busy, 10 - busy if idle is None else idle))

    def confine_then_stop(self, sig=signal.SIGTERM):
        """Under a 10% load, the test's confine() (level 1 until its
        background is confined), then the daemon stopped with sig.  Returns
        the exit status."""
        with self.busy(1):
            self.confine()
        return self.stop_daemon(sig)
