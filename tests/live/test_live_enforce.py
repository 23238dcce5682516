#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The live enforce suite: the real idlepolicyd on this machine's real
cpuidle (root "/") in `--mode enforce` with a real profile, until the plan
changes a real knob; then SIGTERM puts every knob back, and SIGKILL in the
middle of enforcing leaves them changed until the next start replays the
restore journal.

It shares test_live.py's safety net (imported from there, so it runs before
anything else): every knob — the cpuidle governor, every
cpuN/cpuidle/stateK/disable, every cpuN/power/pm_qos_resume_latency_us and
every /sys/module/haltpoll/parameters/* — is recorded at import and written
back on any exit of this process (normal, exception, SIGTERM/SIGINT/SIGHUP),
and by a guardian process when this one is SIGKILLed.  Each test starts and
ends with the knobs as recorded (a test that leaves one changed fails).

The daemon's state (profile, mode, calibration) lives in the test's temp
state directory; its restore journal in the test's temp runtime directory.

  performance   no calibration: the profile's governor "auto" asks for
                menu on a KVM guest that does not poll (haltpoll here).
  latency       a calibration.json written into the temp state directory
                (the halt state costs 40 µs, mis-described): nothing slower
                than 10 µs, so the halt state is capped (disable = 1) or the
                economics poll only (resume latency n/a).
  calibrate     the real calibration (`idlepolicyctl calibrate`, with the
                helper the build made: IDLEPOLICY_CALIBRATE), then latency.

Exits 77 (skip) when not root, without a writable cpuidle governor or
without dbus-daemon (see test_live.py)."""

import glob
import json
import os
import signal
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_live as L  # noqa: E402  (records the knobs and arms the safety net)

T = L.T
GOVERNOR = L.GOVERNOR
DRIVER = '/sys/devices/system/cpu/cpuidle/current_driver'
HALTPOLL_NS = '/sys/module/haltpoll/parameters/guest_halt_poll_ns'

# The halt state's calibrated wakeup cost written for the "latency" test:
# far above its advertised 1 µs and above the profile's 10 µs limit.
FAKE_HALT_US = 40
# How long test_real_calibration_then_latency_plan waits for the real
# calibration (live-enforce takes 23 s in all when the machine is quiet).
CALIBRATE_WAIT_S = 150


def changed_knobs():
    """{path: (recorded, now)} of every knob that differs from the recording."""
    now = L.record_knobs()
    return {p: (L.RECORDED[p], v) for p, v in now.items() if v != L.RECORDED[p]}


def states_of(cpu):
    """[(index, name, advertised latency µs)] of cpu's idle states."""
    out = []
    for d in sorted(glob.glob(f'/sys/devices/system/cpu/cpu{cpu}/cpuidle/state[0-9]*'),
                    key=lambda d: int(os.path.basename(d)[5:])):
        out.append((int(os.path.basename(d)[5:]), L.read_knob(os.path.join(d, 'name')),
                    int(L.read_knob(os.path.join(d, 'latency')) or 0)))
    return out


def fake_calibration(cpus, halt_us):
    """A calibration.json (libidlepolicy/model/calibration.c's format) for
    this machine's states: polling states cost nothing, every other state
    halt_us (mis-described when far above its advertised latency)."""
    n = max(cpus) + 1 if cpus else 0
    doc = {'version': 1, 'realtime_usec': int(time.time() * 1e6), 'driver': L.read_knob(DRIVER) or '',
           'cpus': []}
    for cpu in range(n):
        states = []
        for _, name, latency in (states_of(cpu) if cpu in cpus else []):
            polling = name == 'POLL' or latency == 0
            wakeup = 0 if polling else halt_us
            states.append({'name': name, 'measured': True, 'advertised_latency_us': latency,
                           'wakeup_us': wakeup, 'wakeup_p99_us': wakeup * 2 + 2, 'timer_late_us': wakeup + 5,
                           'misdescribed': wakeup > 4 * latency + 10})
        doc['cpus'].append({'cpu': cpu, 'states': states})
    return doc


class Enforce(L.Live):
    """The daemon in enforce mode; helpers from test_live.Live (the bus, the
    knob checks at setUp and cleanup, idlepolicyctl, the journal)."""

    def start_enforcing(self, profile, calibration=None, mode='enforce', helper=None, extra=()):
        """Starts the real daemon on "/" with the profile (and calibration)
        in its temp state directory, in mode; extra: more arguments."""
        state = os.path.join(self.tmp, 'state')
        os.makedirs(state, exist_ok=True)
        with open(os.path.join(state, 'state.json'), 'w', encoding='utf-8') as f:
            json.dump({'profile': profile, 'mode': mode}, f)
        if calibration is not None:
            with open(os.path.join(state, 'calibration.json'), 'w', encoding='utf-8') as f:
                json.dump(calibration, f)
        self.runs += 1
        args = [self.daemon_exe, '--root', '/', '--runtime-dir', self.runtime_dir, '--tick-usec', '100000',
                '--mode', mode, '--state-dir', state, '--config', self.config, '--profile-dir', T.PROFILE_DIR]
        if helper:
            args.append(f'--calibrate-helper={helper}')
        args += list(extra)
        self.daemon = T.Process(args, os.path.join(self.tmp, f'idlepolicyd-{self.runs}.log'), self.env())
        L._children.append(self.daemon)
        self.addCleanup(self._dump, self.daemon)
        T.wait_for(lambda: self.bus.name_has_owner(T.BUS_NAME) or not self.daemon.alive(), timeout=15,
                   what='idlepolicyd on the bus')
        self.assertTrue(self.daemon.alive(), 'idlepolicyd exited:\n' + self.daemon.output())

    def status(self):
        return json.loads(self.ctl('status', '--json'))

    def wait_for_change(self, expect, what, timeout=20):
        """Waits until expect(changed_knobs(), status) holds; returns both.
        On a timeout, says what the plan was."""
        seen = {}

        def check():
            ch = changed_knobs()
            st = self.status()
            seen.update(changed=ch, status=st)
            return (ch, st) if ch and expect(ch, st) else None
        try:
            return T.wait_for(check, timeout=timeout, interval=0.2, what=what)
        except AssertionError:
            st = seen.get('status') or {}
            sys.stderr.write(f'changed: {seen.get("changed")}\npoll_mode {st.get("poll_mode")}, '
                             f'governor {st.get("governor")}, plans: '
                             f'{[c.get("plan") for c in st.get("cpus", [])]}\n')
            raise

    def status_disagreement(self):
        """What status --json and sysfs disagree on ("" when nothing): the
        mode, the governor, and every knob changed (with its original)."""
        st = self.status()
        ch = changed_knobs()
        listed = {'/' + c['path']: c['original'] for c in st['changed']}
        problems = []
        if st['mode'] != 'enforce':
            problems.append(f'mode {st["mode"]}')
        if st['governor'] != L.read_knob(GOVERNOR):
            problems.append(f'governor {st["governor"]} in status, {L.read_knob(GOVERNOR)} in sysfs')
        for path, (recorded, _now) in ch.items():
            if path not in listed:
                problems.append(f'{path} changed in sysfs but status does not list it')
            elif listed[path] != recorded:
                problems.append(f'{path}: original {listed[path]!r} in status, recorded {recorded!r}')
        problems += [f'status lists {path} but sysfs has it as recorded' for path in listed if path not in ch]
        return '; '.join(problems)

    def assert_status_matches_sysfs(self):
        """status --json says what sysfs says (read again until they agree:
        the plan may move between the two reads)."""
        last = []

        def agree():
            last[:] = [self.status_disagreement()]
            return not last[0]
        try:
            T.wait_for(agree, timeout=5, interval=0.2, what='status --json to agree with sysfs')
        except AssertionError:
            self.fail(last[0])

    def halt_unreachable(self, cpu):
        """True when cpu cannot enter a non-polling state any more: every
        such state disabled, or its resume latency n/a."""
        if L.read_knob(f'/sys/devices/system/cpu/cpu{cpu}/power/pm_qos_resume_latency_us') == 'n/a':
            return True
        return all(L.read_knob(f'/sys/devices/system/cpu/cpu{cpu}/cpuidle/state{k}/disable') == '1'
                   for k, name, lat in states_of(cpu) if not (name == 'POLL' or lat == 0))

    def check_latency_plan(self, st):
        """The latency profile's plan on a machine whose halt state is too
        slow: every CPU capped at its polling state, for a reason that says
        so."""
        for c in st['cpus']:
            if c['index'] in self.cpus and c['online']:
                plan = c['plan']
                self.assertEqual(plan['cap'], self.poll_index, f'cpu{c["index"]}: {plan}')
                self.assertIn(plan['cap_reason'], ('misdescribed', 'profile-limit', 'poll-economics'),
                              f'cpu{c["index"]}: {plan}')

    # ---- the tests -------------------------------------------------------

    def test_performance_switches_governor_then_sigterm_restores(self):
        if L.read_knob(DRIVER) != 'haltpoll' or L.RECORDED[GOVERNOR] == 'menu':
            self.skipTest('the performance plan changes the governor only on a KVM guest not on menu')
        self.start_enforcing('performance')
        ch, st = self.wait_for_change(lambda ch, st: GOVERNOR in ch, 'the plan to switch the governor')
        self.assertEqual(L.read_knob(GOVERNOR), 'menu')
        self.assertEqual(st['active_profile'], 'performance')
        # without a calibration the daemon does not poll
        self.assertEqual(st['poll_mode'], 'none')
        self.assertNotIn(HALTPOLL_NS, ch)
        T.wait_for(lambda: self.status()['governor'] == 'menu', what='status to show menu')
        self.assert_status_matches_sysfs()
        self.assertIn(GOVERNOR[1:], self.journal() or [])
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0, self.daemon.output())
        self.assertEqual(L.record_knobs(), L.RECORDED, 'SIGTERM did not put every knob back')
        self.assertIsNone(self.journal())

    def test_latency_calibrated_sigkill_then_restart_restores(self):
        self.start_enforcing('latency', fake_calibration(self.cpus, FAKE_HALT_US))
        st = self.status()
        self.assertGreater(st['calibration_usec'], 0, 'the calibration.json was not taken')
        ch, st = self.wait_for_change(
            lambda ch, st: all(self.halt_unreachable(cpu) for cpu in self.cpus),
            'every CPU kept out of its halt state')
        self.assertEqual(st['active_profile'], 'latency')
        self.check_latency_plan(st)
        self.assert_status_matches_sysfs()
        changed = set(changed_knobs())
        self.assertEqual(set('/' + p for p in self.journal() or []) >= changed, True,
                         f'journal {self.journal()} lacks some of {changed}')

        # SIGKILL in the middle of enforcing: the knobs stay as the plan set them...
        self.assertEqual(self.stop_daemon(signal.SIGKILL), -signal.SIGKILL)
        after_kill = changed_knobs()
        self.assertTrue(after_kill, 'the changes did not survive SIGKILL')
        self.assertTrue(set(after_kill) <= set('/' + p for p in self.journal() or []),
                        f'knobs changed but not journaled: {after_kill}')
        # ...until the next start replays the journal (observe: it re-applies nothing).
        self.start_enforcing('latency', mode='observe')
        self.assertEqual(L.record_knobs(), L.RECORDED, 'the restart did not restore the journal')
        self.assertIsNone(self.journal())
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        self.assertEqual(L.record_knobs(), L.RECORDED)

    def test_latency_restart_in_enforce_restores_then_reapplies(self):
        cal = fake_calibration(self.cpus, FAKE_HALT_US)
        self.start_enforcing('latency', cal)
        self.wait_for_change(lambda ch, st: all(self.halt_unreachable(cpu) for cpu in self.cpus),
                             'every CPU kept out of its halt state')
        self.assertEqual(self.stop_daemon(signal.SIGKILL), -signal.SIGKILL)
        self.assertTrue(changed_knobs())
        # A restart in enforce mode: the journal is replayed first (its
        # originals are the recording, not what the killed daemon wrote),
        # then the plan applies again; SIGTERM puts back the true originals.
        self.start_enforcing('latency', cal)
        ch, st = self.wait_for_change(lambda ch, st: all(self.halt_unreachable(cpu) for cpu in self.cpus),
                                      'the plan applied again after the restart')
        listed = {'/' + c['path']: c['original'] for c in st['changed']}
        for path, (recorded, _now) in ch.items():
            self.assertEqual(listed.get(path), recorded, f'{path}: the restart journaled a changed value')
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0, self.daemon.output())
        self.assertEqual(L.record_knobs(), L.RECORDED, 'SIGTERM after the restart did not put every knob back')
        self.assertIsNone(self.journal())

    def test_real_calibration_then_latency_plan(self):
        helper = os.environ.get('IDLEPOLICY_CALIBRATE')
        if not helper or not os.access(helper, os.X_OK):
            self.skipTest('IDLEPOLICY_CALIBRATE (the calibration helper) is not built')
        self.start_enforcing('latency', helper=helper)
        # The plan is paused while the calibration runs; the calibration
        # puts back what it set.
        # Beside other work each wakeup it measures waits for a CPU: give it
        # CALIBRATE_WAIT_S, then skip naming the load it ran beside.
        try:
            r = T.subprocess.run([self.ctl_exe, 'calibrate', '--json'], capture_output=True, text=True,
                                 env=self.env(), timeout=CALIBRATE_WAIT_S, check=False)
        except T.subprocess.TimeoutExpired:
            st = self.status()
            utils = ', '.join(f'CPU {c["index"]} {100 * (c["util"] or 0):.0f}%' for c in st['cpus'] if c['online'])
            self.skipTest(f'the real calibration did not finish in {CALIBRATE_WAIT_S} s beside other work (load '
                          f'average {os.getloadavg()[0]:.1f}; busy: {utils}): it measures wakeups from idle and '
                          f'needs CPUs that idle')
        self.assertEqual(r.returncode, 0, f'idlepolicyctl calibrate: {r.stderr}')
        out = r.stdout
        T.wait_for(lambda: not self.status()['calibrating'], what='the calibration to end')
        st = self.status()
        self.assertGreater(st['calibration_usec'], 0, out)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, 'state', 'calibration.json')))
        measured = [s for c in st['cpus'] if c['online'] for s in c['states'] if s.get('calibrated')]
        if not measured:
            # The helper refuses runs during which the CPU hardly idled (a
            # busy shared machine); the daemon says so in its log.
            self.assertIn('not using the run', self.daemon.output())
            self.skipTest(f'the calibration measured no state (the machine was too busy to idle: load average '
                          f'{os.getloadavg()[0]:.1f}; the daemon: '
                          f'{[l for l in self.daemon.output().splitlines() if "not using the run" in l][:1]})')
        # Whatever the measured halt cost, the latency plan changes a real
        # knob here: the halt state capped, polling only, a poll window, or
        # (governor auto) the governor.
        self.wait_for_change(lambda ch, st: bool(ch), 'the plan to change a knob')
        self.assert_status_matches_sysfs()
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0, self.daemon.output())
        self.assertEqual(L.record_knobs(), L.RECORDED, 'SIGTERM did not put every knob back')
        self.assertIsNone(self.journal())


def own_tests(loader, cls):
    """Only cls's own tests (not those it inherits: their files run them)."""
    return unittest.TestSuite(cls(n) for n in loader.getTestCaseNames(cls) if n in cls.__dict__)


def load_tests(loader, _standard_tests, _pattern):
    """Only this file's tests (not test_live.Live's, run by live-cpuidle)."""
    return own_tests(loader, Enforce)


if __name__ == '__main__':
    L.main()
