#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/frontier.py on hand-made points: the upper hull of the stock
settings (mixes of two), the reach at a CPU, the distance in % of
polling's gain, and the verdicts (dominated only when below in the
medians by more than the rounds' noise and in every round; the noise
raised by an A/A pair, stock run twice a round; the CPU criterion where
nothing is to gain, with the CPU's own noise and the daemon's own CPU)."""
import os
import sys
import unittest

sys.path.insert(0, sys.argv.pop(1))
import frontier  # noqa: E402


def cell(scores, cpus, hib=True):
    return {'n': len(scores), 'score': sorted(scores)[len(scores) // 2], 'cpu_s': sorted(cpus)[len(cpus) // 2],
            'scores': scores, 'cpus': cpus, 'rounds': list(range(1, len(scores) + 1)), 'higher_is_better': hib}


class Frontier(unittest.TestCase):
    def test_hull_drops_points_below_the_chord(self):
        pts = [(1, 10), (2, 12), (3, 30), (5, 31), (5, 20)]
        self.assertEqual(frontier.upper_hull(pts), [(1, 10), (3, 30), (5, 31)])

    def test_reach_is_the_best_at_no_more_cpu(self):
        pts = [(1, 10), (3, 30), (5, 31)]
        self.assertIsNone(frontier.reach(pts, 0.5))
        self.assertEqual(frontier.reach(pts, 2), 20)        # halfway along the mix of the first two
        self.assertEqual(frontier.reach(pts, 9), 31)        # beyond the last: its score
        self.assertEqual(frontier.distance_pct(pts, 2, 25, 21), 100.0 * 5 / 21)

    def test_verdicts(self):
        cells = {'stock': cell([100, 102], [1.0, 1.0]), 'poll-only': cell([200, 202], [9.0, 9.0]),
                 'haltpoll-50us': cell([190, 192], [5.0, 5.0]),
                 'below': cell([120, 121], [5.0, 5.0]), 'noisy': cell([150, 195], [5.0, 5.0]),
                 'above': cell([195, 196], [5.0, 5.0]), 'cheap': cell([90, 90], [0.5, 0.5]),
                 'hair': cell([189.5, 191.5], [5.0, 5.0])}
        p = frontier.program(cells, ['stock', 'haltpoll-50us', 'poll-only'],
                             ['below', 'noisy', 'above', 'cheap', 'hair'])
        self.assertTrue(p['has_gain'])
        self.assertEqual(p['noise'], 1.0)                                   # each stock setting's rounds: ±1
        self.assertEqual(p['profiles']['below']['verdict'], 'dominated')
        self.assertEqual(p['profiles']['below']['shortfall'], 192 - 121)   # cell(): the upper of two is the median
        # below the hull in both rounds (190, 192 at 5 CPU s), by 0.5 on the medians: within the noise
        self.assertEqual(p['profiles']['hair']['verdict'], 'below, within the noise')
        self.assertEqual(p['profiles']['noisy']['verdict'], 'undominated')   # one round reaches the hull
        self.assertEqual(p['profiles']['above']['verdict'], 'undominated')
        self.assertGreater(p['profiles']['above']['distance_pct'], 0)
        self.assertEqual(p['profiles']['cheap']['verdict'], 'cheaper than any stock setting')

    def test_twin_sets_the_noise(self):
        # stock-again repeats stock's knobs: its median 8 from stock's is
        # the noise when larger than the rounds' half-range (1), so a
        # shortfall of 5 is within it; without the twin it is not.
        base = {'stock': cell([100, 102], [1.0, 1.0]), 'poll-only': cell([200, 202], [9.0, 9.0]),
                'haltpoll-50us': cell([190, 192], [5.0, 5.0]), 'short': cell([186, 187], [5.0, 5.0])}
        stock = ['stock', 'haltpoll-50us', 'poll-only']
        p = frontier.program(base, stock, ['short'])
        self.assertEqual((p['noise'], p['noise_aa']), (1.0, 0.0))
        self.assertEqual(p['profiles']['short']['verdict'], 'dominated')
        cells = dict(base, **{'stock-again': cell([93, 94], [1.0, 1.0])})
        p = frontier.program(cells, stock, ['short'], twins={'stock-again': 'stock'})
        self.assertEqual((p['noise_stock'], p['noise_aa'], p['noise']), (1.0, 8.0, 8.0))
        self.assertEqual(p['profiles']['short']['verdict'], 'below, within the noise')
        self.assertNotIn((1.0, 94), p['hull'])                              # a twin is no stock point
        # a twin that agrees leaves the rounds' noise
        cells['stock-again'] = cell([101, 102], [1.0, 1.0])
        p = frontier.program(cells, stock, ['short'], twins={'stock-again': 'stock'})
        self.assertEqual(p['noise'], 1.0)
        self.assertEqual(p['profiles']['short']['verdict'], 'dominated')

    def test_nothing_to_gain_judges_cpu(self):
        cells = {'stock': cell([1, 1], [0.10, 0.10]), 'poll-only': cell([1, 1], [2.0, 2.0]),
                 'menu': cell([1, 1], [0.08, 0.08]),
                 'close': cell([1, 1], [0.0815, 0.0815]), 'costly': cell([1, 1], [0.12, 0.12])}
        p = frontier.program(cells, ['stock', 'menu', 'poll-only'], ['close', 'costly'])
        self.assertFalse(p['has_gain'])
        self.assertEqual(p['best_stock_cpu'], 0.08)
        self.assertTrue(p['profiles']['close']['verdict'].startswith('within 2%'))
        self.assertIn('above the best stock CPU', p['profiles']['costly']['verdict'])

    def test_nothing_to_gain_within_the_cpu_noise(self):
        # identical knobs land 20% apart (stock's and menu's rounds: 0.08 to
        # 0.12, a half-range of 20% of their median; polling only's spread
        # is not the CPU's noise): 10% above the best stock CPU
        # is within the noise, and passes where the daemon's own CPU is
        # within 2% of it; not with 3% of its own, nor with none measured
        # (a fixed setting), nor beyond the noise
        cells = {'stock': cell([1, 1, 1], [0.08, 0.10, 0.12]), 'poll-only': cell([1, 1, 1], [2.0, 2.0, 2.0]),
                 'menu': cell([1, 1, 1], [0.08, 0.10, 0.12]),
                 'light': dict(cell([1, 1, 1], [0.11, 0.11, 0.11]), daemon_cpu_s=0.0015),
                 'heavy': dict(cell([1, 1, 1], [0.11, 0.11, 0.11]), daemon_cpu_s=0.003),
                 'fixed': cell([1, 1, 1], [0.11, 0.11, 0.11]),
                 'far': dict(cell([1, 1, 1], [0.13, 0.13, 0.13]), daemon_cpu_s=0.0015)}
        p = frontier.program(cells, ['stock', 'menu', 'poll-only'], ['light', 'heavy', 'fixed', 'far'])
        self.assertFalse(p['has_gain'])
        self.assertEqual(p['best_stock_cpu'], 0.10)
        self.assertAlmostEqual(p['cpu_noise_pct'], 20.0)
        self.assertAlmostEqual(p['profiles']['light']['own_pct'], 1.5)
        self.assertTrue(p['profiles']['light']['verdict'].startswith('within 2% as measured'))
        self.assertIn('above the best stock CPU', p['profiles']['heavy']['verdict'])
        self.assertIn('above the best stock CPU', p['profiles']['fixed']['verdict'])
        self.assertIn('above the best stock CPU', p['profiles']['far']['verdict'])
        # an A/A pair further apart than the rounds raises the CPU noise
        cells['menu'] = cells['stock'] = cell([1, 1, 1], [0.10, 0.10, 0.10])
        p = frontier.program(cells, ['stock', 'menu', 'poll-only'], ['light'])
        self.assertIn('above the best stock CPU', p['profiles']['light']['verdict'])
        cells['stock-again'] = cell([1, 1, 1], [0.115, 0.115, 0.115])
        p = frontier.program(cells, ['stock', 'menu', 'poll-only'], ['light'], twins={'stock-again': 'stock'})
        self.assertAlmostEqual(p['cpu_noise_aa_pct'], 15.0)
        self.assertTrue(p['profiles']['light']['verdict'].startswith('within 2% as measured'))

    def test_nothing_to_gain_is_no_licence_to_lose(self):
        # hackbench-like: polling gains nothing (poll-only no faster than
        # stock), every setting burns ~8 CPU s; a profile 25% slower than
        # what the stock settings reach at its CPU, in every round, is
        # dominated although its CPU is within 2% of the best; one slower
        # in one round only is not
        cells = {'stock': cell([0.25, 0.26], [8.0, 8.1], False), 'poll-only': cell([0.25, 0.26], [8.2, 8.2], False),
                 'menu': cell([0.25, 0.255], [7.9, 7.9], False),
                 'slow': dict(cell([0.31, 0.32], [8.0, 8.0], False), daemon_cpu_s=0.008),
                 'once': dict(cell([0.24, 0.33], [8.0, 8.0], False), daemon_cpu_s=0.008)}
        p = frontier.program(cells, ['stock', 'menu', 'poll-only'], ['slow', 'once'])
        self.assertFalse(p['has_gain'])
        self.assertEqual(p['profiles']['slow']['verdict'], 'dominated (score, nothing to gain)')
        self.assertTrue(p['profiles']['once']['verdict'].startswith('within 2%'))

    def test_a_round_cheaper_than_every_stock_setting_is_not_below(self):
        # sleeper-like, nothing to gain: the profile is below the stock
        # settings at its CPU in two rounds, but in the third it burned less
        # CPU than every stock setting of that round; no stock setting was
        # within reach there, so it was not below in every round
        cells = {'stock': cell([189, 189, 191], [0.39, 0.40, 0.33]),
                 'haltpoll-200us': cell([190, 191, 191], [0.36, 0.32, 0.33]),
                 'poll-only': cell([192, 191, 192], [8.1, 8.1, 8.1]),
                 'cheap-once': dict(cell([187, 189, 191], [0.41, 0.40, 0.32]), daemon_cpu_s=0.003),
                 'never': dict(cell([187, 189, 189], [0.41, 0.40, 0.34]), daemon_cpu_s=0.003)}
        p = frontier.program(cells, ['stock', 'haltpoll-200us', 'poll-only'], ['cheap-once', 'never'])
        self.assertFalse(p['has_gain'])
        once, never = p['profiles']['cheap-once'], p['profiles']['never']
        self.assertIsNone(once['rounds_shortfall'][2])
        self.assertFalse(once['below_every_round'])
        self.assertNotIn('dominated', once['verdict'])
        self.assertTrue(never['below_every_round'])
        self.assertEqual(never['verdict'], 'dominated (score, nothing to gain)')
        # where polling gains, the same: a round cheaper than every stock
        # setting keeps a profile below the hull on the medians undominated
        cells = {'stock': cell([100, 102, 101], [1.0, 1.0, 1.0]), 'poll-only': cell([200, 202, 201], [9.0, 9.0, 9.0]),
                 'haltpoll-50us': cell([190, 192, 191], [5.0, 5.0, 5.0]),
                 'cheap-once': cell([150, 151, 95], [5.0, 5.0, 0.9]), 'never': cell([150, 151, 152], [5.0, 5.0, 5.0])}
        p = frontier.program(cells, ['stock', 'haltpoll-50us', 'poll-only'], ['cheap-once', 'never'])
        self.assertEqual(p['profiles']['cheap-once']['verdict'], 'undominated')
        self.assertEqual(p['profiles']['never']['verdict'], 'dominated')

    def test_lower_is_better(self):
        cells = {'stock': cell([80, 80], [0.05, 0.05], False), 'poll-only': cell([40, 40], [9.0, 9.0], False),
                 'menu': cell([72, 72], [0.05, 0.05], False), 'prof': cell([85, 86], [0.27, 0.27], False)}
        p = frontier.program(cells, ['stock', 'menu', 'poll-only'], ['prof'])
        self.assertEqual(p['profiles']['prof']['verdict'], 'dominated')


if __name__ == '__main__':
    unittest.main()
