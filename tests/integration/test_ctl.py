#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""idlepolicyctl against the real daemon: output, the changes it makes, its
errors and exit codes (0 ok, 1 call failed, 2 usage)."""

import json
import os
import pty
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import consoltest as C  # noqa: E402
import idlepolicytest as T  # noqa: E402
import policytest as P  # noqa: E402

EXIT_FAILURE = 1
EXIT_USAGE = 2


class Ctl(C.ConsolidationMixin, T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '3', '--states', '3', '--driver', 'haltpoll', '--governor', 'haltpoll',
                 '--offline', '2']

    def test_status_table(self):
        r = self.ctl('status')
        out = r.stdout
        self.assertIn('haltpoll', out)
        for name in self.state_names(0):
            self.assertIn(name, out)
        for cpu in (0, 1):
            self.assertRegex(out, rf'(?m)^\s*(cpu|CPU)?\s*{cpu}\b')
        self.assertRegex(out, r'(?i)offline')

    def test_status_json(self):
        with self.ticking():
            T.wait_for(lambda: sum(float(r[1]) for r in self.cpu_prop(0, 'Rates')) > 0, timeout=10,
                       what='rates')
            doc = json.loads(self.ctl('status', '--json').stdout)
        self.assertEqual(doc['governor'], 'haltpoll')
        self.assertEqual(doc['driver'], self.read(T.CPUIDLE_DIR + '/current_driver'))
        self.assertEqual(doc['available_governors'], self.read(T.CPUIDLE_DIR + '/available_governors').split())
        self.assertEqual(doc['online_cpus'], '0-1')
        self.assertEqual(doc['changed'], [])
        self.assertEqual(doc['haltpoll']['guest_halt_poll_ns'],
                         int(self.read(T.HALTPOLL_DIR + '/guest_halt_poll_ns')))
        cpus = doc['cpus']
        self.assertEqual([c['index'] for c in cpus], [0, 1, 2])
        self.assertFalse(cpus[2]['online'])
        for cpu in (0, 1):
            c = cpus[cpu]
            self.assertTrue(c['online'])
            self.assertEqual(c['resume_latency_us'], 0)
            self.assertEqual([s['name'] for s in c['states']], self.state_names(cpu))
            for s, k in zip(c['states'], T.state_dirs(self.tree, cpu)):
                self.assertEqual(s['index'], k)
                self.assertEqual(s['disabled'], self.read(T.state_file(cpu, k, 'disable')) == '1')
                self.assertEqual(s['latency_us'], int(self.read(T.state_file(cpu, k, 'latency'))))
                self.assertEqual(s['residency_us'], int(self.read(T.state_file(cpu, k, 'residency'))))
                # The status was read while the tree was ticking: never ahead of it.
                self.assertGreater(s['counters']['usage'], 0)
                self.assertLessEqual(s['counters']['usage'], int(self.read(T.state_file(cpu, k, 'usage'))))
            self.assertGreater(sum(s['rates']['entries_per_s'] for s in c['states']), 0)
            self.assertTrue(0 <= c['util'] <= 1, c['util'])
        # A change shows up in "changed" with the original value.
        self.ctl('resume-latency', '20', '--cpu', '1')
        doc = json.loads(self.ctl('status', '--json').stdout)
        self.assertEqual(doc['changed'], [{'path': T.latency_file(1), 'original': '0'}])
        self.assertEqual(doc['cpus'][1]['resume_latency_us'], 20)

    def test_governor(self):
        r = self.ctl('governor')
        self.assertIn('haltpoll', r.stdout)
        for g in self.read(T.CPUIDLE_DIR + '/available_governors').split():
            self.assertIn(g, r.stdout)
        self.ctl('governor', 'menu')
        self.assertEqual(self.read(T.GOVERNOR_FILE), 'menu')
        doc = json.loads(self.ctl('governor', '--json').stdout)
        self.assertIn('menu', json.dumps(doc))

    def test_state_disable_enable(self):
        name = self.state_names(1)[0]
        self.ctl('state', 'disable', name, '--cpu', '1')
        self.assertEqual(self.read(T.state_file(1, 0, 'disable')), '1')
        self.assertEqual(self.read(T.state_file(0, 0, 'disable')), '0')
        self.ctl('state', 'disable', '2', '--cpu', '0-1')
        self.assertEqual(self.read(T.state_file(0, 2, 'disable')), '1')
        self.assertEqual(self.read(T.state_file(1, 2, 'disable')), '1')
        self.ctl('state', 'enable', name, '--cpu', '0-1')
        self.assertEqual(self.read(T.state_file(1, 0, 'disable')), '0')
        self.ctl('state', 'enable', '2')   # no --cpu: all online CPUs
        self.assert_tree_unchanged()

    def test_resume_latency(self):
        self.ctl('resume-latency', '20', '--cpu', '0')
        self.assertEqual(self.read(T.latency_file(0)), '20')
        self.assertEqual(self.read(T.latency_file(1)), '0')
        self.ctl('resume-latency', 'n/a', '--cpu', '1')
        self.assertEqual(self.read(T.latency_file(1)), 'n/a')
        self.ctl('resume-latency', '0')
        self.assertEqual(self.read(T.latency_file(0)), '0')
        self.assertEqual(self.read(T.latency_file(1)), '0')

    def test_restore(self):
        self.ctl('governor', 'ladder')
        self.ctl('resume-latency', '7', '--cpu', '1')
        self.ctl('state', 'disable', '0')
        self.assertNotEqual(T.snapshot_tree(self.tree), self.original)
        self.ctl('restore')
        self.assert_tree_unchanged()

    def test_errors_exit_1_and_name_the_error(self):
        name = self.state_names(0)[0]
        cases = [
            (['governor', 'nosuch'], 'UnknownGovernor', 'nosuch'),
            (['state', 'disable', 'NOPE', '--cpu', '0'], 'UnknownState', 'NOPE'),
            (['state', 'disable', name, '--cpu', '9'], 'UnknownCPU', '9'),
            (['state', 'disable', name, '--cpu', '2'], 'CPUOffline', '2'),
            (['resume-latency', '5', '--cpu', '2'], 'CPUOffline', '2'),
            (['resume-latency', '3000000000', '--cpu', '0'], 'InvalidLatency', '3000000000'),
        ]
        for argv, error, mention in cases:
            with self.subTest(argv=argv):
                r = self.ctl(*argv, check=False)
                self.assertEqual(r.returncode, EXIT_FAILURE, r.stderr)
                self.assertIn(T.ERROR_PREFIX + error, r.stderr)
                self.assertIn(mention, r.stderr)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assert_tree_unchanged()
        self.assert_daemon_alive()

    def test_error_json(self):
        r = self.ctl('governor', 'nosuch', '--json', check=False)
        self.assertEqual(r.returncode, EXIT_FAILURE)
        doc = json.loads(r.stdout)
        self.assertIn('UnknownGovernor', json.dumps(doc['error']))

    def test_write_failed_exit_1(self):
        self.make_immutable(T.latency_file(1))
        r = self.ctl('resume-latency', '5', '--cpu', '1', check=False)
        self.assertEqual(r.returncode, EXIT_FAILURE)
        self.assertIn(T.ERROR_PREFIX + 'WriteFailed', r.stderr)
        self.assert_tree_unchanged()

    def test_usage_errors_exit_2(self):
        for argv in (['frobnicate'], ['state', 'toggle', 'POLL'], ['state'], ['resume-latency', 'soon'],
                     ['resume-latency', '-5'], ['state', 'disable', 'POLL', '--cpu', 'x-y'],
                     ['governor', 'menu', 'extra'], ['--no-such-option', 'status']):
            with self.subTest(argv=argv):
                r = self.ctl(*argv, check=False)
                self.assertEqual(r.returncode, EXIT_USAGE, f'{argv}: {r.stdout}{r.stderr}')
                self.assertTrue(r.stderr.strip())
        self.assert_tree_unchanged()

    def test_refused_names_say_what_there_is(self):
        """An unknown state lists the CPU's states (and the likeliest one),
        an unknown CPU the present ones, an offline CPU the online ones;
        still one line, still the error's name."""
        names = self.state_names(0)
        listed = ', '.join(f'"{n}"' if ' ' in n else n for n in names)
        child = subprocess.Popen(['sleep', '600'], preexec_fn=T._die_with_parent)  # noqa: PLW1509
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        cases = [
            (['state', 'disable', 'NOPE', '--cpu', '0'], 'UnknownState', f"unknown state 'NOPE' on CPU 0; its states: {listed}"),
            (['state', 'disable', names[0].lower()], 'UnknownState', f"the states: {listed}; did you mean '{names[0]}'?"),
            (['state', 'disable', names[0], '--cpu', '9'], 'UnknownCPU', 'there is no CPU 9; CPUs present: 0-2'),
            (['resume-latency', '5', '--cpu', '2'], 'CPUOffline', 'CPU 2 is offline; CPUs online: 0-1'),
            (['pin', f'pid:{child.pid}', '--cpus', '9', '--profile', 'latency'], 'UnknownCPU',
             'CPU 9 is not present (CPUs present: 0-2)'),
            (['pin', f'pid:{child.pid}', '--cpus', '1-2', '--profile', 'latency'], 'CPUOffline',
             'CPU 2 is offline (CPUs online: 0-1)'),
        ]
        for argv, error, message in cases:
            with self.subTest(argv=argv):
                r = self.ctl(*argv, check=False)
                self.assertEqual(r.returncode, EXIT_FAILURE, r.stderr)
                self.assertIn(message, r.stderr)
                self.assertIn(T.ERROR_PREFIX + error, r.stderr)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        r = self.ctl('weights', '--cpu', '9', check=False)
        self.assertEqual(r.returncode, EXIT_FAILURE)
        self.assertIn('there is no CPU 9 (CPUs present: 0-2)', r.stderr)
        self.assert_tree_unchanged()

    def test_idle_info_is_the_kernels_totals(self):
        self.tick_tree(3)
        for cpu in (0, 1):
            usage = [int(self.read(T.state_file(cpu, k, 'usage'))) for k in T.state_dirs(self.tree, cpu)]
            T.wait_for(lambda c=cpu, u=usage: [int(x[1]) for x in self.cpu_prop(c, 'Counters')] == u,
                       what=f'the daemon sampling CPU {cpu} after the tree moved')
        doc = json.loads(self.ctl('--json', 'idle-info').stdout)
        self.assertEqual([c['index'] for c in doc['cpus']], [0, 1])
        for c in doc['cpus']:
            self.assertEqual([s['name'] for s in c['states']], self.state_names(c['index']))
            for s, k in zip(c['states'], T.state_dirs(self.tree, c['index'])):
                for key, name in (('usage', 'usage'), ('time_us', 'time'), ('above', 'above'), ('below', 'below')):
                    self.assertEqual(s[key], int(self.read(T.state_file(c['index'], k, name))), (c['index'], k, key))
                if s['usage']:
                    self.assertAlmostEqual(s['too_deep_pct'], 100 * s['above'] / s['usage'])
                else:
                    self.assertIsNone(s['too_deep_pct'])
            self.assertEqual(c['idle_entries'], sum(s['usage'] for s in c['states']))
            self.assertAlmostEqual(sum(s['idle_time_share_pct'] for s in c['states']), 100)
        out = self.ctl('idle-info', '--cpu', '1-2').stdout
        self.assertIn('CPU 1: online', out)
        self.assertIn('CPU 2: offline', out)
        self.assertNotIn('CPU 0:', out)
        for name in self.state_names(1):
            self.assertIn(name, out)
        usage = int(self.read(T.state_file(1, 0, 'usage')))
        self.assertRegex(out, rf'(?m)^\s+0\s+{self.state_names(1)[0]}\s+\S+\s+{usage}\s')
        r = self.ctl('idle-info', '--cpu', '7', check=False)
        self.assertEqual(r.returncode, EXIT_FAILURE)
        self.assertIn('there is no CPU 7 (CPUs present: 0-2)', r.stderr)

    def test_status_interval_averages_over_the_window(self):
        """status --interval 2s: a burst of too-deep entries on C2 inside
        the window shows in the window's rates, although the daemon's last
        tick saw none of it."""
        master, slave = pty.openpty()
        p = subprocess.Popen([self.ctl_exe, '--json', 'status', '--interval', '2s'], stdout=subprocess.PIPE,
                             stderr=slave, env=self.env(COLUMNS='80'))
        os.close(slave)
        try:
            tty = os.read(master, 4096).decode()      # the countdown: the window's first read is done
            self.assertIn('Averaging over 2s', tty)
            for cpu in (0, 1):
                for k, (usage, time_us, above, below) in {0: (1000, 1000, 0, 100), 2: (1000, 20000, 900, 0)}.items():
                    for name, delta in zip(('usage', 'time', 'above', 'below'), (usage, time_us, above, below)):
                        P.bump_file(self.tree, T.state_file(cpu, k, name), delta)
            out, _ = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
            os.close(master)
        self.assertEqual(p.returncode, 0)
        doc = json.loads(out)
        usec = doc['window']['usec']
        self.assertGreaterEqual(usec, 2000000)
        self.assertGreaterEqual(doc['window']['ticks'], 1)
        for cpu in (0, 1):
            states = doc['cpus'][cpu]['states']
            self.assertAlmostEqual(states[2]['rates']['too_deep_pct'], 90)
            self.assertAlmostEqual(states[2]['rates']['usage_share_pct'], 50)
            self.assertAlmostEqual(states[0]['rates']['too_shallow_pct'], 10)
            self.assertAlmostEqual(states[2]['rates']['entries_per_s'], 1000 * 1e6 / usec)
            self.assertEqual(states[1]['rates']['entries_per_s'], 0)
        # The daemon's own rates are its last tick's: the burst is long gone.
        self.assertEqual([float(r[1]) for r in self.cpu_prop(0, 'Rates')], [0, 0, 0])
        self.assertIsNone(json.loads(self.ctl('--json', 'status').stdout)['window'])

    def test_consolidate_without_background_says_so_and_frees_nothing(self):
        """Level 1 with no consolidation_background configured: nothing to
        pack, so no CPU is freed (held in its deepest state while it runs
        all it ran), and the output does not claim a background on a set."""
        with P.Feeder(self, [0, 1], {}, stat=(1, 9)):
            out = self.ctl('consolidate', '1').stdout
            T.wait_for(lambda: float(self.manager_prop('ConsolidationStatus')[4]) >= 0, what='the utilisation measured')
            self.wait_ticks(3)
            status = self.manager_prop('ConsolidationStatus')
            out += self.ctl('consolidate').stdout + self.ctl('status').stdout
            doc = json.loads(self.ctl('--json', 'consolidate').stdout)
        self.assertFalse(bool(status[1]), status)
        self.assertEqual(str(status[3]), '')
        self.assertIn('no background configured', str(status[6]))
        self.assertNotIn('background on CPUs', out)
        self.assertNotIn('freed', out)
        self.assertEqual(doc['level'], 1)
        self.assertFalse(doc['active'])
        self.assertEqual(doc['background'], [])
        for cpu in (0, 1):
            self.assertNotEqual(self.cpu_prop(cpu, 'CapReason'), 'consolidation')

    def test_calibrate_says_what_p99_is(self):
        """The P99 column is the 99th percentile minus polling's: its
        header says so, and its cells are the daemon's wakeup_p99_us."""
        out = self.ctl('calibrate').stdout
        title = next(line for line in out.splitlines() if 'STATE' in line)
        self.assertEqual(title.split()[:7], ['CPU', 'STATE', 'ADVERTISED', 'MEASURED*', 'P99*', 'ENTRY', 'RESIDENCY'])
        self.assertIn("P99 its 99th percentile minus polling's 99th percentile, 0 when\nbelow it.", out)
        doc = json.loads(self.ctl('--json', 'status').stdout)
        c1 = doc['cpus'][0]['states'][1]
        row = next(line for line in out.splitlines() if line.split()[:2] == ['0', c1['name']])
        self.assertEqual(row.split()[4], f"{c1['calibrated']['wakeup_p99_us']}us")

    def test_monitor_at_80_columns_cuts_nothing(self):
        out = os.path.join(self.tmp, 'monitor.out')
        with open(out, 'w+b') as f:
            p = subprocess.Popen([self.ctl_exe, 'monitor'], stdout=f, stderr=subprocess.STDOUT,
                                 env=self.env(COLUMNS='80'))
            try:
                T.wait_for(lambda: b'Ctrl-C to quit.' in open(out, 'rb').read(), what='a monitor frame')
            finally:
                p.send_signal(T.signal.SIGINT)
            self.assertEqual(p.wait(timeout=10), 0)
        frame = open(out, encoding='utf-8').read().split('\x1b[H\x1b[2J')[1]
        for line in frame.splitlines():
            self.assertLessEqual(len(line), 80, line)
            self.assertNotIn('\u2026', line)
        for cpu in (0, 1):
            names = '|'.join(self.state_names(cpu))
            self.assertRegex(frame, rf'(?m)^ +{cpu}  .*  ({names}) \([a-z-]+\) / ({names}) \([a-z-]+\)$')
            for name in self.state_names(cpu):
                self.assertRegex(frame, rf'{name} (\d+\.\d%|-) \(')

    def test_help(self):
        r = self.ctl('--help')
        for cmd in ('status', 'governor', 'state', 'resume-latency', 'restore', '--json', '--cpu'):
            self.assertIn(cmd, r.stdout)


class CtlPreviewKvm(C.ConsolidationMixin, T.IdlePolicyTestCase):
    """profile NAME --dry-run on the KVM tree (POLL, "haltpoll idle"),
    calibrated with a halt costing 500 us: latency's 10 us limit leaves
    polling only on every vCPU."""
    TREE_ARGS = ['--cpus', '2']
    START_DAEMON = False

    def setUp(self):
        super().setUp()
        self.start_daemon(mode='enforce', env={'IDLEPOLICY_MOCK_STEP_US': '500'})
        self.ctl('calibrate')
        # Every CPU planned under balanced (halting) from ticks that carry
        # the calibrated costs: a preview replans from each CPU's last tick.
        with self.ticking():
            self.wait_ticks(3)
            T.wait_for(lambda: all(str(self.cpu_prop(c, 'CapReason')) != 'none' for c in (0, 1)),
                       what='both CPUs planned')

    def preview(self, name):
        return json.loads(self.ctl('--json', 'profile', name, '--dry-run').stdout)

    def test_dry_run_says_every_vcpu_polls_and_changes_nothing(self):
        before = P.knobs(self)
        out = self.ctl('profile', 'latency', '--dry-run').stdout
        doc = self.preview('latency')
        self.assertEqual(P.knobs(self), before)
        self.assertEqual(str(self.manager_prop('ActiveProfile')), 'balanced')
        self.assertIn('Switching from balanced to latency (dry run: nothing changes)', out)
        self.assertIn('Warning: with latency every CPU polls while idle', out)
        self.assertTrue(doc['polls_every_cpu'])
        self.assertEqual(doc['active_profile'], 'balanced')
        for cpu in doc['cpus']:
            self.assertEqual((cpu['cap_state'], cpu['floor_state'], cpu['cap_reason']), ('POLL', 'POLL', 'misdescribed'))
            self.assertTrue(cpu['polls_only'])
            self.assertTrue(0 < cpu['burn_cpus'] <= 1, cpu['burn_cpus'])
            self.assertEqual(cpu['now']['cap'], 1)         # halting now
            self.assertRegex(out, rf"CPU {cpu['index']} \(latency\): cap POLL \(misdescribed\), floor POLL")
            self.assertIn(f'{T.latency_file(cpu["index"])}: 0 -> n/a', out)
        self.assertIn({'path': T.latency_file(0), 'now': '0', 'then': 'n/a'}, doc['knobs'])
        self.assertAlmostEqual(doc['burn_cpus'], sum(c['burn_cpus'] for c in doc['cpus']))

    def test_switch_warns_and_does_what_the_preview_said(self):
        wanted = {k['path']: k['then'] for k in self.preview('latency')['knobs']}
        self.assertTrue(wanted)
        r = self.ctl('profile', 'latency')
        self.assertIn('Profile: latency (was balanced)', r.stdout)
        self.assertIn('idlepolicyctl: warning: with latency every CPU polls while idle', r.stderr)
        with self.ticking():
            T.wait_for(lambda: all(self.read(k) == v for k, v in wanted.items()), what='the previewed knobs')
        # Back to balanced: halting again, nothing to warn about.
        doc = self.preview('balanced')
        self.assertFalse(doc['polls_every_cpu'])
        self.assertIsNone(doc['warning'])
        r = self.ctl('--json', 'profile', 'balanced')
        self.assertEqual(r.stderr, '')
        self.assertNotIn('warning', json.loads(r.stdout))
        self.assertEqual(self.stop_daemon(), 0)
        self.assertEqual(P.knobs(self), P.original_knobs(self))

    def test_preview_is_read_only_for_anyone_and_names_its_errors(self):
        r = self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'PreviewProfile', 's', 'latency',
                        user=T.NOBODY, json_out=True)
        cpus, knobs = r.json['data'][0], r.json['data'][1]
        self.assertEqual([c[0] for c in cpus], [0, 1])
        self.assertTrue(all(c[6] for c in cpus))            # polls only
        self.assertTrue(knobs)
        self.assertIn('Unknown profile "nope"', self.assert_dbus_error('UnknownProfile', 'PreviewProfile', 'nope'))
        r = self.ctl('profile', 'nope', '--dry-run', check=False)
        self.assertEqual(r.returncode, EXIT_FAILURE)
        self.assertIn('UnknownProfile', r.stderr)
        self.assertEqual(str(self.manager_prop('ActiveProfile')), 'balanced')
        self.assertEqual(self.polkit_checked_actions(), [])


class CtlPreviewBeforeAPlan(C.ConsolidationMixin, T.IdlePolicyTestCase):
    """PreviewProfile and profile NAME --dry-run before a tick has planned
    with the calibration in use: Busy, saying why and when to try again
    (it answered no CPU and no knob at all after the first calibration,
    and the plans of the old costs after a later one).  The tick comes
    from the configuration, and an hour-long one keeps the next tick away;
    mock-calibrate's gate holds a calibration while the daemon samples."""
    TREE_ARGS = ['--cpus', '2']
    START_DAEMON = False
    HOUR_USEC = 3600000000

    def write_tick(self, tick_usec):
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({'tick_usec': tick_usec, 'calibrate_on_first_start': True}, f)

    def set_tick(self, tick_usec):
        self.write_tick(tick_usec)
        self.daemon.signal(T.signal.SIGHUP)
        T.wait_for(lambda: int(self.manager_prop('TickUSec')) == tick_usec, what=f'a tick of {tick_usec} us')

    def setUp(self):
        super().setUp()
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')
        self.gate = os.path.join(self.tmp, 'calibration-gate')
        self.write_tick(T.TICK_USEC)
        argv = self.daemon_argv(['--config', self.config], mode='enforce')
        i = argv.index('--tick-usec')
        del argv[i:i + 2]
        self.start_daemon(argv=argv, env={'IDLEPOLICY_MOCK_GATE': self.gate})
        T.wait_for(lambda: bool(self.manager_prop('Calibrating')), what='the first-start calibration')

    def finish_calibration(self):
        open(self.gate, 'w', encoding='ascii').close()
        T.wait_for(lambda: not self.manager_prop('Calibrating'), what='the end of the calibration')
        self.assertGreater(int(self.manager_prop('CalibrationUSec')), 0)

    def assert_no_plan_yet(self, why):
        msg = self.assert_dbus_error('Busy', 'PreviewProfile', 'latency')
        self.assertIn(why, msg)
        self.assertIn('try again after the next tick', msg)
        r = self.busctl('call', T.BUS_NAME, T.ROOT_PATH, T.MANAGER_IFACE, 'PreviewProfile', 's', 'latency',
                        user=T.NOBODY, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(msg, r.stderr)
        for argv in (['profile', 'latency', '--dry-run'], ['--json', 'profile', 'latency', '--dry-run']):
            r = self.ctl(*argv, check=False)
            self.assertEqual(r.returncode, EXIT_FAILURE, r.stdout)
            self.assertIn(f'cannot preview the profile now: {msg} ({T.ERROR_PREFIX}Busy)', r.stderr)
            self.assertNotIn('Knobs the switch writes', r.stdout)

    def assert_preview_after_the_next_tick(self):
        self.set_tick(T.TICK_USEC)
        with self.ticking():
            T.wait_for(lambda: self.ctl('profile', 'latency', '--dry-run', check=False).returncode == 0,
                       what='a preview after the next tick')
        doc = json.loads(self.ctl('--json', 'profile', 'latency', '--dry-run').stdout)
        self.assertEqual([c['index'] for c in doc['cpus']], [0, 1])

    def test_first_calibration_leaves_no_plan_until_the_next_tick(self):
        self.wait_ticks(2)          # sampled twice while the calibration holds the policy
        self.set_tick(self.HOUR_USEC)
        self.assertTrue(bool(self.manager_prop('Calibrating')), 'the calibration ended before the long tick')
        self.finish_calibration()
        self.assert_no_plan_yet('No plan yet: no tick has planned a CPU since the start')
        self.assert_preview_after_the_next_tick()

    def test_a_later_calibration_leaves_no_plan_until_the_next_tick(self):
        self.finish_calibration()
        self.assert_preview_after_the_next_tick()
        self.set_tick(self.HOUR_USEC)
        self.ctl('calibrate')
        self.assert_no_plan_yet('No plan yet with the new calibration')
        self.assert_preview_after_the_next_tick()


class CtlNoDaemon(T.IdlePolicyTestCase):
    START_DAEMON = False

    def test_no_daemon_exit_1(self):
        for argv in (['status'], ['status', '--json'], ['governor', 'menu'], ['restore']):
            with self.subTest(argv=argv):
                r = self.ctl(*argv, check=False)
                self.assertEqual(r.returncode, EXIT_FAILURE, r.stderr)
                self.assertIn('not running', r.stderr)
        self.assert_tree_unchanged()


if __name__ == '__main__':
    T.main()
