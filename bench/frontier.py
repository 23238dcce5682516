# SPDX-License-Identifier: LGPL-2.1-or-later
"""The stock frontier of bench/live: what a user could get from the stock
settings alone (one sysfs write each), against which the daemon's profiles
are judged.

A program's result under a setting is a point (CPU s, score).  Scores are
turned into "goodness" (the score, or minus the score where lower is
better) so that up is always better.  Two settings can be mixed in time
(the first for a share of the run, the second for the rest), so every
point on a segment between two stock points is within a user's reach: the
frontier is the upper concave hull of the stock points, and at a CPU c
the best a user reaches is the hull's best at no more than c:

    reach(c) = max { hull(c') : c' <= c }

(less CPU than the cheapest stock point: nothing is reached, so nothing
there can be dominated).  A profile's distance to the frontier is its
goodness minus reach(its own CPU), in % of polling's whole gain (the
goodness of polling only over that of the stock setting as found).

Pure functions on plain numbers: bench/live feeds them its runs, the tests
(tests/cli/test-frontier.py) hand-made points."""
import statistics


def goodness(score, higher_is_better):
    return score if higher_is_better else -score


def upper_hull(points):
    """The upper concave hull of [(cpu, good)], left to right (a point of
    the same CPU as another but less good is dropped)."""
    pts = sorted(set(points))
    hull = []
    for p in pts:
        while hull and hull[-1][0] == p[0]:
            hull.pop()                              # same CPU: the better one (sorted last) wins
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            # drop the middle point when it lies on or below the chord
            if (y2 - y1) * (p[0] - x1) <= (p[1] - y1) * (x2 - x1):
                hull.pop()
            else:
                break
        hull.append(p)
    return hull


def hull_at(hull, c):
    """The hull's value at CPU c (None outside its CPU range)."""
    if not hull or c < hull[0][0] or c > hull[-1][0]:
        return None
    for (x1, y1), (x2, y2) in zip(hull, hull[1:]):
        if x1 <= c <= x2:
            return y1 if x2 == x1 else y1 + (y2 - y1) * (c - x1) / (x2 - x1)
    return hull[0][1]


def reach(points, c):
    """The best goodness any stock setting or mix of two reaches at no more
    than CPU c; None when every stock point needs more CPU than c."""
    hull = upper_hull(points)
    if not hull or c < hull[0][0]:
        return None
    best = max(y for x, y in hull if x <= c)
    at = hull_at(hull, c)
    return best if at is None else max(best, at)


def distance_pct(points, c, good, gain):
    """(good - reach(c)) in % of gain; None when nothing is reached at c or
    there is no gain to measure against."""
    r = reach(points, c)
    if r is None or not gain or gain <= 0:
        return None
    return 100.0 * (good - r) / gain


def spread(vals):
    vals = [v for v in vals if v is not None]
    return (min(vals), max(vals)) if vals else (None, None)


def judge(stock_rounds, profile_rounds, gain_rounds, stock_medians, profile_median, gain_median, no_gain_pct=None,
          noise=0.0):
    """The verdict on one profile for one program.

    stock_rounds: per round, [(cpu, good)] of the stock settings measured
    in that round; profile_rounds: per round, (cpu, good) or None;
    gain_rounds: per round, polling's gain; the medians likewise.  A
    profile is dominated when it is below the frontier at its own CPU on
    the medians, by more than noise (the rounds' noise of the stock
    settings' scores, in goodness), and in every round (no round reaches
    the hull, nor burns less CPU than every stock setting of its round:
    below_every_round()): "no mix of two stock settings has a better
    score at no more CPU, beyond the noise of the rounds" (issue 25).
    Below on the medians and in every round but by no more than the
    noise: "below, within the noise"; undominated otherwise.  Where
    polling gains nothing (gain within the noise: no_gain_pct given by the
    caller) the distance is not measured in % of a gain and the verdict is
    left to the caller's CPU criterion.  Returns a dict: distance_pct (medians),
    rounds_pct (per round), min_pct, max_pct, reach (goodness at the
    profile's CPU), shortfall (reach - goodness, medians), rounds_shortfall
    (the same per round, against that round's stock points), verdict
    ("undominated", "below, within the noise", "dominated", "cheaper than
    any stock setting", or None)."""
    d = distance_pct(stock_medians, profile_median[0], profile_median[1], gain_median) if profile_median else None
    rounds, short_rounds = [], []
    for pts, prof, g in zip(stock_rounds, profile_rounds, gain_rounds):
        if prof is None or not pts:
            rounds.append(None)
            short_rounds.append(None)
            continue
        rounds.append(distance_pct(pts, prof[0], prof[1], g))
        r_round = reach(pts, prof[0])
        short_rounds.append(None if r_round is None else r_round - prof[1])
    lo, hi = spread(rounds)
    below_all = below_every_round(profile_rounds, short_rounds)
    r = reach(stock_medians, profile_median[0]) if profile_median else None
    shortfall = None if r is None or profile_median is None else r - profile_median[1]
    if profile_median is None:
        verdict = None
    elif r is None:
        verdict = 'cheaper than any stock setting'
    elif no_gain_pct is not None or d is None:
        verdict = None
    elif d < 0 and below_all:
        verdict = 'dominated' if shortfall > noise else 'below, within the noise'
    else:
        verdict = 'undominated'
    return {'distance_pct': d, 'rounds_pct': rounds, 'min_pct': lo, 'max_pct': hi, 'reach': r, 'shortfall': shortfall,
            'rounds_shortfall': short_rounds, 'below_every_round': below_all, 'verdict': verdict}


def below_every_round(profile_rounds, short_rounds):
    """Whether a profile was below its round's stock frontier in every
    round it was measured in.  A round where it burned less CPU than every
    stock setting of that round has no reach (nothing there is within a
    user's reach), so in that round it is not below: such a round clears
    it as a round above the hull does."""
    measured = [s for prof, s in zip(profile_rounds, short_rounds) if prof is not None]
    return bool(measured) and all(s is not None and s > 0 for s in measured)


def best_stock_cpu(stock_medians, tolerance):
    """The least CPU of the stock settings whose goodness is within
    tolerance of the best one's (where no setting gains anything, the
    cheapest of those that lose nothing)."""
    best = max(g for _, g in stock_medians)
    return min(c for c, g in stock_medians if g >= best - tolerance)


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def _good_points(cell, hib):
    """(medians point, {round: point}) of one configuration's cell."""
    if not cell or not cell.get('n'):
        return None, {}
    med_pt = (cell['cpu_s'], goodness(cell['score'], hib))
    per = {}
    for rnd, sc, c in zip(cell.get('rounds') or [], cell.get('scores') or [], cell.get('cpus') or []):
        if rnd is not None and sc is not None and c is not None:
            per[rnd] = (c, goodness(sc, hib))
    return med_pt, per


def _half_range(vals):
    vals = [v for v in vals if v is not None]
    return (max(vals) - min(vals)) / 2 if len(vals) >= 2 else 0.0


def _half_range_pct(vals):
    """The half-range of vals in % of their median (None under two)."""
    vals = [v for v in (vals or []) if v is not None]
    m = median(vals)
    return 100.0 * _half_range(vals) / m if len(vals) >= 2 and m else None


def cpu_verdict(over_pct, noise_pct, own_pct, tolerance_pct):
    """The verdict where no stock setting gains anything: a profile's CPU
    over_pct above the best stock CPU (the least of the settings that lose
    nothing), against tolerance_pct (issue 25: 2%).  The machine's CPU on
    such a program is small (an idle 2-CPU guest: 0.05 CPU s per 4 s) and
    moves between settings with the same knobs by more than 2% (noise_pct:
    the stock settings' half-range over the rounds or an A/A pair's
    distance, in %); what the daemon adds itself is measured apart and
    exactly (own_pct: its own CPU, /proc/PID/schedstat over the window
    the run's CPU is measured over, in % of the best stock CPU).  So:
      within tolerance_pct                      "within N% of the best stock CPU"
      above it but within the noise, and the
      daemon's own CPU within tolerance_pct     "within N% as measured: ..."
      otherwise                                 "M% above the best stock CPU"
    A profile without its own CPU (none measured) gets no benefit of the
    noise."""
    if over_pct is None:
        return None
    if over_pct <= tolerance_pct:
        return f'within {tolerance_pct:.0f}% of the best stock CPU'
    if over_pct <= noise_pct and own_pct is not None and own_pct <= tolerance_pct:
        return (f'within {tolerance_pct:.0f}% as measured: {over_pct:.0f}% above, within the CPU noise of '
                f'±{noise_pct:.0f}%, its own CPU {own_pct:.1f}%')
    return f'{over_pct:.0f}% above the best stock CPU'


def score_lost(j, noise):
    """Whether a profile judged by judge() (j) lost score to the stock
    settings where polling gains nothing: below what they reach at its CPU
    on the medians by more than noise, and in every round.  Nothing to gain
    is no licence to lose: a program slower under a profile than under any
    stock setting at its CPU is dominated whatever the CPU."""
    return j.get('shortfall') is not None and j['shortfall'] > noise and j['below_every_round']


def program(cells, stock, profiles, base='stock', polling='poll-only', cpu_tolerance=0.02, twins=None):
    """One program's frontier and every profile's place against it.

    cells: {config: summary cell (score, cpu_s, scores, cpus, rounds,
    higher_is_better)}.  Returns a dict with the stock points, the hull,
    polling's gain, the noise (the median half-range of the stock
    settings' goodness over the rounds or, when larger, the distance
    between the medians of an A/A pair: twins maps a configuration to the
    stock setting it repeats with the same knobs), whether anything is to gain
    (polling's gain above twice the noise and above 2% of the stock
    score), and per profile judge()'s verdict; where nothing is to gain,
    a profile that loses score to them (score_lost()) is dominated, and
    otherwise the verdict is its CPU against the best stock CPU (the least
    CPU of the stock settings that lose nothing), see cpu_verdict()."""
    hib = next((c.get('higher_is_better') for c in cells.values() if c and c.get('n')), True)
    stock_med, stock_rounds = {}, {}
    for cfg in stock:
        med_pt, per = _good_points(cells.get(cfg), hib)
        if med_pt:
            stock_med[cfg] = med_pt
            for rnd, pt in per.items():
                stock_rounds.setdefault(rnd, {})[cfg] = pt
    if base not in stock_med:
        return None
    noise_stock = median([_half_range([goodness(v, hib) for v in (cells[c].get('scores') or [])])
                          for c in stock_med]) or 0.0
    # An A/A pair: the distance between its medians, in goodness and in % of CPU.
    noise_aa = cpu_noise_aa = 0.0
    for twin, orig in (twins or {}).items():
        twin_pt = _good_points(cells.get(twin), hib)[0]
        if twin_pt and orig in stock_med:
            noise_aa = max(noise_aa, abs(twin_pt[1] - stock_med[orig][1]))
            if stock_med[orig][0]:
                cpu_noise_aa = max(cpu_noise_aa, 100.0 * abs(twin_pt[0] - stock_med[orig][0]) / stock_med[orig][0])
    noise = max(noise_stock, noise_aa)
    gain_of = (lambda pts: pts[polling][1] - pts[base][1] if polling in pts and base in pts else None)
    gain = gain_of(stock_med)
    base_good = stock_med[base][1]
    has_gain = gain is not None and gain > 2 * noise and gain > 0.02 * abs(base_good)
    best_cpu = best_stock_cpu(list(stock_med.values()), max(noise, 0.01 * abs(base_good)))
    # The CPU's noise: of the settings that do not poll throughout (polling
    # only burns every CPU whatever runs, and its spread says nothing of a
    # machine that halts).
    cpu_noise_stock = median([_half_range_pct(cells[c].get('cpus')) for c in stock_med if c != polling]) or 0.0
    cpu_noise = max(cpu_noise_stock, cpu_noise_aa)
    out = {'higher_is_better': hib, 'stock': stock_med, 'hull': upper_hull(list(stock_med.values())),
           'gain': gain, 'noise': noise, 'noise_stock': noise_stock, 'noise_aa': noise_aa, 'has_gain': has_gain,
           'best_stock_cpu': best_cpu, 'cpu_noise_pct': cpu_noise, 'cpu_noise_stock_pct': cpu_noise_stock,
           'cpu_noise_aa_pct': cpu_noise_aa, 'profiles': {}}
    rounds = sorted(stock_rounds)
    for cfg in profiles:
        med_pt, per = _good_points(cells.get(cfg), hib)
        if not med_pt:
            continue
        j = judge([list(stock_rounds[r].values()) for r in rounds], [per.get(r) for r in rounds],
                  [gain_of(stock_rounds[r]) for r in rounds], list(stock_med.values()), med_pt, gain,
                  no_gain_pct=None if has_gain else 0, noise=noise)
        j['cpu_s'], j['good'] = med_pt
        j['cpu_over_best_pct'] = 100.0 * (med_pt[0] / best_cpu - 1) if best_cpu else None
        own = (cells.get(cfg) or {}).get('daemon_cpu_s')
        j['own_pct'] = 100.0 * own / best_cpu if own is not None and best_cpu else None
        if not has_gain and score_lost(j, noise):
            j['verdict'] = 'dominated (score, nothing to gain)'
        elif not has_gain:
            j['verdict'] = cpu_verdict(j['cpu_over_best_pct'], cpu_noise, j['own_pct'], 100 * cpu_tolerance)
        out['profiles'][cfg] = j
    return out
