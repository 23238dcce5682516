#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/live-compare on a hand-made live.json: medians and rounds of the
score, the machine's CPU and the daemon's own CPU, the Mann-Whitney p of
each configuration against the first, and a clear error (exit 2) for a
configuration the run does not have."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = sys.argv.pop(1)
TOOL = os.path.join(BENCH, 'live-compare')


def run(cfg, scores, cpus, own=None, wl='w'):
    return [{'config': cfg, 'workload': wl, 'round': i + 1, 'score': s, 'cpu_s_precise': c,
             'daemon_cpu_s': None if own is None else own[i] / 1000.0}
            for i, (s, c) in enumerate(zip(scores, cpus))]


def doc():
    runs = run('daemon-a', [10, 11, 12, 13], [1.0, 1.0, 1.1, 1.0], own=[0.5, 0.6, 0.7, 0.8]) + \
        run('fixed', [20, 21, 22, 23], [2.0, 2.1, 2.0, 2.0]) + \
        run('fixed', [0.259, 0.261, 0.25, 0.3], [8.0, 8.0, 8.0, 8.0], wl='seconds')
    summary = {}
    for r in runs:
        c = summary.setdefault(r['config'], {}).setdefault(r['workload'], {'n': 0, 'scores': [], 'cpus': []})
        c['n'] += 1
        c['scores'].append(r['score'])
        c['cpus'].append(r['cpu_s_precise'])
    return {'runs': runs, 'summary': summary}


class LiveCompare(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, 'live.json')
        with open(self.path, 'w') as f:
            json.dump(doc(), f)

    def tearDown(self):
        self.dir.cleanup()

    def call(self, *args):
        return subprocess.run([sys.executable, TOOL, self.path, *args], capture_output=True, text=True)

    def test_table(self):
        r = self.call('w', 'daemon-a', 'fixed')
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], '| w | score | p | CPU s | p | own ms | p |')
        # the reference: medians of its rounds, no p; its own CPU in ms
        self.assertEqual(lines[2], '| daemon-a | 11.5 [10.0, 11.0, 12.0, 13.0] | - | 1.00 [1.00, 1.00, 1.10, 1.00] | - '
                                   '| 0.65 [0.50, 0.60, 0.70, 0.80] | - |')
        # every score and CPU of fixed above every one of daemon-a: U = 16 of 16, z = 2.309, p = 0.021;
        # a fixed configuration has no own CPU
        self.assertEqual(lines[3], '| fixed | 21.5 [20.0, 21.0, 22.0, 23.0] | 0.021 | 2.00 [2.00, 2.10, 2.00, 2.00] '
                                   '| 0.021 | - | - |')

    def test_scores_below_ten_keep_three_digits(self):
        r = self.call('seconds', 'fixed')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[2], '| fixed | 0.260 [0.259, 0.261, 0.250, 0.300] | - '
                                                   '| 8.00 [8.00, 8.00, 8.00, 8.00] | - | - | - |')

    def test_unknown_configuration(self):
        r = self.call('w', 'daemon-a', 'nope')
        self.assertEqual(r.returncode, 2)
        self.assertIn('live-compare: the run has no nope on w', r.stderr)
        self.assertEqual(r.stdout, '')


if __name__ == '__main__':
    unittest.main()
