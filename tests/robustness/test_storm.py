#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Governor-switch and hotplug storm (issue 10, item 1).

While a client keeps changing knobs (SetStateDisabled on every state of
every CPU, SetResumeLatency) and putting them back (Restore), "the kernel"
— one storm thread, so that the tree's own changes never race each other —
switches the governor with make-faketree --switch-governor (every per-CPU
cpuidle directory is recreated: for a moment the state files do not exist)
and now and then takes a CPU offline and back (--set-offline/--set-online).
The storm ends with every CPU online and the original governor; then
SIGTERM.

"As found", precisely: every knob of the tree — the governor, every
present CPU's resume latency, every state's disable bit of every CPU — holds
the value of the tree's snapshot taken before the daemon started.  The tree
starts with every state enabled and every latency 0, which is also what a
CPU that went offline and came back shows (the kernel recreates its states
with their defaults; README: such a knob is not written back and is
forgotten), so the one snapshot is the right answer for every CPU.  The
client never calls SetGovernor: an original the daemon recorded after an
external switch would rightly be put back, and would differ from the
snapshot.  Also, the daemon must not log "forgetting its original value"
for a CPU that never went offline: that knob only vanished for the length
of a governor switch.

The fake tree's switch is not atomic the way the kernel's is (in the
kernel a knob is one variable and the files are views of it): a write that
lands in the old directory after its file was copied, or in a new file
between its creation and its content, is lost, and the daemon, which saw
its write succeed, rightly believes the knob restored.  So after every
round the client pauses the storm and looks: a disable knob that is not at
its original, not in the daemon's Changed, and for which the daemon logged
no "forgetting its original value" since the last look, is such a lost
write of the tree's making: it is put back by hand and counted
(tree_lost_writes), so that it cannot turn into a wrong original later.  A
knob the daemon ever said it forgot is left alone (until its CPU goes
offline and back): that is the bug, and it shows as a knob left changed
after SIGTERM.

The bug this catches (today's code): a Restore or the exit that runs into a
state file during the switch's window treats it as gone for good and forgets
it; the switch brings the file back holding the daemon's value, and after
SIGTERM the state stays disabled.

Bounded here (STORM_SECONDS, default 20 s); bench/robustness-storm runs
the long form (60 s × 5 runs) with storm_run()."""

import os
import random
import re
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import robustnesstest as R  # noqa: E402

T = R.T
U = R.U

STORM_SECONDS = float(os.environ.get('STORM_SECONDS', '20'))
GOVERNORS = ('menu', 'ladder')          # switched to, alternately; the tree starts on haltpoll
HOTPLUG_CPUS = (3,)                     # the CPUs the storm takes offline and back
HOTPLUG_EVERY = 4                       # one hotplug event per this many switches, on average
STORM_PAUSE_S = 0.01                    # between two events of the storm
FORGET_RE = re.compile(r'cpu(\d+)/\S*\s+no longer exists, forgetting its original value')
# Errors a client may meet while the tree moves under the daemon.
EXPECTED_ERRORS = {'UnknownCPU', 'CPUOffline', 'UnknownState', 'WriteFailed'}


class _Storm(threading.Thread):
    """The kernel's side: governor switches and hotplug, one at a time."""

    def __init__(self, case, rng):
        super().__init__(daemon=True)
        self.case = case
        self.rng = rng
        self.stop = threading.Event()
        self.lock = threading.Lock()        # held for each event; the client takes it to look
        self.switches = 0
        self.hotplugs = 0
        self.offline = set()
        self.onlined = set()                # CPUs brought back since the client's last look
        self.errors = []

    def tree(self, *args):
        r = T.subprocess.run([self.case.faketree_exe, self.case.tree] + list(args),
                             capture_output=True, text=True, check=False)
        if r.returncode != 0:
            raise RuntimeError(f'make-faketree {args}: {r.stderr.strip()}')

    def hotplug(self, cpu):
        if cpu in self.offline:
            self.tree('--set-online', str(cpu))
            self.offline.discard(cpu)
            self.onlined.add(cpu)
        else:
            self.tree('--set-offline', str(cpu))
            self.offline.add(cpu)
        self.hotplugs += 1

    def run(self):
        try:
            while not self.stop.is_set():
                with self.lock:
                    self.tree('--switch-governor', GOVERNORS[self.switches % len(GOVERNORS)])
                    self.switches += 1
                    if self.rng.randrange(HOTPLUG_EVERY) == 0:
                        self.hotplug(self.rng.choice(HOTPLUG_CPUS))
                time.sleep(STORM_PAUSE_S * self.rng.random())
        except (OSError, RuntimeError) as e:
            self.errors.append(str(e))

    def finish(self, governor):
        """Stops the storm and leaves every CPU online with governor."""
        self.stop.set()
        self.join()
        for cpu in sorted(self.offline):
            self.hotplug(cpu)
        self.tree('--switch-governor', governor)


def _client_round(case, rng, counts):
    """One round of the client: disable states, set latencies, Restore."""
    # The tree's state count, taken before the storm: listing it now could
    # land in a switch's window, where the directory is gone.
    n_states = case.n_states
    calls = [('SetStateDisabled', U(T.ALL_CPUS), str(k), True) for k in range(n_states)]
    calls.append(('SetResumeLatency', U(T.ALL_CPUS), U(rng.randrange(1, 500))))
    calls.append(('SetStateDisabled', U(rng.randrange(3)), str(rng.randrange(n_states)), True))
    calls.append(('Restore',))
    for method, *args in calls:
        counts['calls'] += 1
        try:
            case.call(method, *args)
        except T.dbus.exceptions.DBusException as e:
            name = e.get_dbus_name() or ''
            short = name[len(T.ERROR_PREFIX):] if name.startswith(T.ERROR_PREFIX) else name
            counts['errors'][short] = counts['errors'].get(short, 0) + 1
            if short not in EXPECTED_ERRORS:
                counts['unexpected_errors'] += 1


class _LogCursor:
    """Reads the daemon's log from where the last read stopped."""

    def __init__(self, path):
        self.path = path
        self.offset = 0

    def forgotten_since(self):
        """Returns the knob paths of the "forgetting" lines since the last
        call."""
        with open(self.path, 'rb') as f:
            f.seek(self.offset)
            data = f.read()
        end = data.rfind(b'\n') + 1
        self.offset += end
        paths = set()
        for line in data[:end].decode('utf-8', 'replace').splitlines():
            m = re.search(r'(sys/\S+) no longer exists, forgetting', line)
            if m:
                paths.add(m.group(1))
        return paths


def _look(case, storm, cursor, forgotten, counts):
    """With the storm paused: puts back by hand the knobs the tree lost a
    write of (see the module's doc).  forgotten: the knobs the daemon ever
    said it forgot (updated; a CPU that came back online starts afresh, the
    kernel made its states anew).  Returns nothing; counts them."""
    with storm.lock:
        forgotten |= cursor.forgotten_since()
        for cpu in storm.onlined:
            forgotten -= {p for p in forgotten if p.startswith(f'{T.CPU_DIR}/cpu{cpu}/')}
        storm.onlined.clear()
        try:
            held = {str(p) for p, _ in case.manager_prop('Changed')}
        except T.dbus.exceptions.DBusException:
            return
        for rel, value in T.knob_values(case.tree).items():
            if (rel.endswith('/disable') and value != case.original_knobs.get(rel, '0')
                    and rel not in held and rel not in forgotten):
                T.write(case.tree, rel, case.original_knobs.get(rel, '0'))
                counts['tree_lost_writes'] += 1


def storm_run(case, seconds, seed):
    """Runs one storm against case's daemon (started, observe mode), then
    SIGTERM.  Returns the counts: switches, hotplugs, client calls and
    errors, the exit status, the knobs left changed and the log lines that
    forgot a knob of a CPU that never went offline."""
    rng = random.Random(seed)
    counts = {'seed': seed, 'seconds': seconds, 'calls': 0, 'errors': {}, 'unexpected_errors': 0,
              'tree_lost_writes': 0}
    cursor, forgotten = _LogCursor(case.daemon.log_path), set()
    governor = T.read(case.tree, T.GOVERNOR_FILE)
    case.n_states = len(T.state_dirs(case.tree, 0)) or 3
    storm = _Storm(case, random.Random(rng.random()))
    storm.start()
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline and case.daemon.alive() and storm.is_alive():
            _client_round(case, rng, counts)
            _look(case, storm, cursor, forgotten, counts)
    finally:
        storm.finish(governor)
    # Let the daemon see the settled tree (its tick is 0.1 s).
    time.sleep(0.5)
    alive = case.daemon.alive()
    case.daemon.signal(signal.SIGTERM)
    try:
        rc = case.daemon.wait(30)
    except T.subprocess.TimeoutExpired:
        rc = 'hung'
    now = T.knob_values(case.tree)
    hotplugged = {str(c) for c in HOTPLUG_CPUS}
    out = case.all_daemon_output()
    counts.update({
        'switches': storm.switches,
        'hotplugs': storm.hotplugs,
        'storm_errors': storm.errors,
        'alive_at_end': alive,
        'exit_status': rc,
        'knobs_left_changed': {k: [case.original_knobs.get(k), v] for k, v in sorted(now.items())
                               if case.original_knobs.get(k) != v},
        'forgotten_online': [line.strip() for line in out.splitlines()
                             if (m := FORGET_RE.search(line)) and m.group(1) not in hotplugged][:20],
    })
    return counts


class Storm(R.RobustTestCase):
    TREE_ARGS = ['--cpus', '4', '--states', '4', '--driver', 'haltpoll', '--governor', 'haltpoll',
                 '--governors', 'ladder menu haltpoll']

    def test_storm_puts_everything_back(self):
        counts = storm_run(self, STORM_SECONDS, int(os.environ.get('STORM_SEED', '1')))
        sys.stderr.write(T.json.dumps(counts, indent=1) + '\n')
        self.assertEqual(counts['storm_errors'], [], 'the storm itself failed')
        self.assertTrue(counts['alive_at_end'], 'idlepolicyd died during the storm')
        self.assertEqual(counts['exit_status'], 0, 'idlepolicyd did not exit cleanly on SIGTERM')
        self.assertEqual(counts['unexpected_errors'], 0, f'unexpected errors: {counts["errors"]}')
        self.assertGreater(counts['switches'], 0)
        self.assertEqual(counts['knobs_left_changed'], {}, 'knobs not as found after SIGTERM')
        self.assertEqual(counts['forgotten_online'], [],
                         'a knob of a CPU that never went offline was forgotten')
        self.assertIsNone(self.journal_entries(), 'journal left behind after a clean exit')


if __name__ == '__main__':
    T.main()
