#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""idlepolicy-sim's progress on a large trace: with stderr on a terminal (a
pty) one line rewritten with the share of idle periods replayed; with
stderr piped, not one byte; the report on stdout the same both ways.

Usage: test-sim-progress.py IDLEPOLICY_SIM"""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

import ptyrun  # noqa: E402

PERIODS = 150000                 # per governor: over the 65536 before the first line
GOVERNORS = ['teo', 'menu']

HEADER = '''# idlepolicy-trace 1
# recorded 10.0 s, 2 cpus, driver intel_idle
# state 0 0 0 POLL
# state 1 2 2 C1
# state 2 10 20 C1E
# state 3 133 600 C6
# cpu 0 source cpu_idle
# cpu 1 source cpu_idle
cpu,start_ns,duration_ns,state,sleep_length_ns,wake,miss
'''


def write_trace(path):
    with open(path, 'w', encoding='ascii') as f:
        f.write(HEADER)
        start = 1000000
        for i in range(PERIODS):
            duration = (5000, 50000, 800000)[i % 3]
            f.write(f'{i % 2},{start},{duration},{1 + i % 3},{duration * 2},timer,none\n')
            start += duration + 1000
        f.write(f'# end {PERIODS}\n')


def main():
    sim = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 'big.trace')
        write_trace(trace)
        argv = [sim, '-t', trace, '-g', ','.join(GOVERNORS)]
        env = dict(os.environ, COLUMNS='60')
        rc, out_tty, tty = ptyrun.run_with_pty_stderr(argv, env)
        assert rc == 0, tty
        total = PERIODS * (len(GOVERNORS) + 1)       # the oracle is always replayed too
        lines = ptyrun.progress_lines(tty)
        assert lines, repr(tty)
        assert tty.endswith(ptyrun.REWRITE), repr(tty[-80:])
        done_before = -1
        for line in lines:
            m = re.match(rf'^Replaying idle periods: (\d+)% \((\d+)/(\d+)\)(, about .* left)?$', line)
            assert m, f'progress line {line!r}'
            assert len(line) <= 59, line
            done = int(m.group(2))
            assert int(m.group(3)) == total, (line, total)
            assert done % 65536 == 0 and done > done_before, line
            assert int(m.group(1)) == done * 100 // total, line
            assert m.group(4), line
            done_before = done
        r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, check=False)
        assert r.returncode == 0, r.stderr
        assert r.stderr == '', repr(r.stderr[:200])
        assert r.stdout == out_tty, 'the report differs with a terminal'
        assert f'| big.trace | big.trace | teo | {PERIODS} |' in r.stdout, r.stdout
    print(f'ok: {len(lines)} progress line(s) on the terminal, none piped')


if __name__ == '__main__':
    main()
