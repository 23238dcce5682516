#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""preflight.py on fake sysfs roots (no root needed, nothing real touched):
a machine at its defaults passes quietly; each kind of knob off its default
(a state disabled, a resume latency of 20 or "n/a", a CPU offline, the
governor not the boot one, a haltpoll parameter not its boot value) is
named with its file, its value and its default, and fails the run as a
hard error (99) or skips it (77) with IDLEPOLICY_LIVE_PREFLIGHT=skip.  The
boot values come from the kernel command line where it sets them."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import preflight  # noqa: E402

CMDLINE = 'console=ttyS0 cpuidle_haltpoll.force=1 haltpoll.guest_halt_poll_ns=0 -- --init-arg=1'


def write(root, rel, value):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='ascii') as f:
        f.write(value + '\n')


def make_machine(root, cmdline=CMDLINE):
    """Two CPUs with POLL and "haltpoll idle", the haltpoll driver and
    governor, the haltpoll parameters at their boot values."""
    cpu = 'sys/devices/system/cpu'
    write(root, f'{cpu}/cpuidle/current_driver', 'haltpoll')
    write(root, f'{cpu}/cpuidle/current_governor', 'haltpoll')
    for n in (0, 1):
        if n:
            write(root, f'{cpu}/cpu{n}/online', '1')
        write(root, f'{cpu}/cpu{n}/power/pm_qos_resume_latency_us', '0')
        for k, name in enumerate(('POLL', 'haltpoll idle')):
            write(root, f'{cpu}/cpu{n}/cpuidle/state{k}/name', name)
            write(root, f'{cpu}/cpu{n}/cpuidle/state{k}/disable', '0')
    for name, value in preflight.HALTPOLL_DEFAULTS.items():
        write(root, f'sys/module/haltpoll/parameters/{name}', value)
    write(root, 'sys/module/haltpoll/parameters/guest_halt_poll_ns', '0')
    write(root, 'proc/cmdline', cmdline)


class Preflight(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix='idlepolicy-preflight-')
        self.addCleanup(subprocess.run, ['rm', '-rf', self.root], check=False)
        make_machine(self.root)
        for var in ('IDLEPOLICY_LIVE_PREFLIGHT', 'IDLEPOLICY_BOOT_GOVERNOR'):
            os.environ.pop(var, None)

    def run_cli(self, **env):
        return subprocess.run([sys.executable, os.path.join(HERE, 'preflight.py'), '--root', self.root],
                              capture_output=True, text=True, env=dict(os.environ, **env), check=False)

    def found(self):
        return {path: (value, default) for path, value, default, _ in preflight.deviations(self.root)}

    def test_defaults_pass_quietly(self):
        self.assertEqual(preflight.deviations(self.root), [])
        r = self.run_cli()
        self.assertEqual((r.returncode, r.stderr), (0, ''))

    def test_the_ci_incident_is_named_knob_by_knob(self):
        # What a killed process left on CPU 1 (the CI run at the last stop).
        write(self.root, 'sys/devices/system/cpu/cpu1/cpuidle/state1/disable', '1')
        write(self.root, 'sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us', 'n/a')
        self.assertEqual(self.found(), {
            '/sys/devices/system/cpu/cpu1/cpuidle/state1/disable': ('1', '0'),
            '/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us': ('n/a', '0')})
        r = self.run_cli()
        self.assertEqual(r.returncode, 99, r.stderr)
        self.assertIn('before the test started', r.stderr)
        self.assertIn('/sys/devices/system/cpu/cpu1/cpuidle/state1/disable = 1, default 0: '
                      "the state 'haltpoll idle' is disabled", r.stderr)
        self.assertIn('pm_qos_resume_latency_us = n/a, default 0: "n/a" accepts no wakeup latency', r.stderr)
        r = self.run_cli(IDLEPOLICY_LIVE_PREFLIGHT='skip')
        self.assertEqual(r.returncode, 77, r.stderr)
        self.assertIn('Skipping', r.stderr)
        self.assertEqual(self.run_cli(IDLEPOLICY_LIVE_PREFLIGHT='off').returncode, 0)

    def test_resume_latency_and_offline_cpu(self):
        write(self.root, 'sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us', '20')
        write(self.root, 'sys/devices/system/cpu/cpu1/online', '0')
        self.assertEqual(self.found(), {
            '/sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us': ('20', '0'),
            '/sys/devices/system/cpu/cpu1/online': ('0', '1')})

    def test_governor_against_the_boot_one(self):
        gov = '/sys/devices/system/cpu/cpuidle/current_governor'
        write(self.root, gov[1:], 'menu')
        self.assertEqual(self.found(), {gov: ('menu', 'haltpoll')})
        # The command line's choice wins over the driver's.
        write(self.root, 'proc/cmdline', CMDLINE.replace('console', 'cpuidle.governor=menu console'))
        self.assertEqual(self.found(), {})
        os.environ['IDLEPOLICY_BOOT_GOVERNOR'] = 'teo'
        self.addCleanup(os.environ.pop, 'IDLEPOLICY_BOOT_GOVERNOR', None)
        self.assertEqual(self.found(), {gov: ('menu', 'teo')})

    def test_haltpoll_parameters_against_their_boot_values(self):
        ns = '/sys/module/haltpoll/parameters/guest_halt_poll_ns'
        write(self.root, ns[1:], '200000')       # the kernel default, but the command line set 0
        write(self.root, 'sys/module/haltpoll/parameters/guest_halt_poll_grow', '4')
        self.assertEqual(self.found(), {ns: ('200000', '0'),
                                        '/sys/module/haltpoll/parameters/guest_halt_poll_grow': ('4', '2')})
        write(self.root, 'proc/cmdline', 'console=ttyS0')
        write(self.root, 'sys/module/haltpoll/parameters/guest_halt_poll_grow', '2')
        self.assertEqual(self.found(), {})       # 200000 is the default without haltpoll.guest_halt_poll_ns=

    def test_arguments_after_the_double_dash_are_not_the_kernel_s(self):
        write(self.root, 'proc/cmdline', 'haltpoll.guest_halt_poll_ns=0 -- haltpoll.guest_halt_poll_ns=5')
        self.assertEqual(self.found(), {})


if __name__ == '__main__':
    unittest.main(verbosity=2)
