#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The live suite's preflight on the real machine: under the knobs lock, the
machine must be at its defaults (else this test itself stops with the
preflight's report, 99).  Then it leaves CPU 1 as a killed process once
did (the halt state disabled, the resume latency "n/a"), runs a shell live
test's wrapper (knobslock.py) and a daemon test (test_live.py) under its
lock and checks that both stop before doing anything, exit 99 and name
both files with their values and "before the test started"; and with
IDLEPOLICY_LIVE_PREFLIGHT=skip, exit 77.  Both knobs are put back
whatever happens (also on SIGTERM/SIGINT/SIGHUP).  Exits 77 when not root
or without CPU 1's cpuidle."""

import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import knobslock  # noqa: E402
import preflight  # noqa: E402

CPU1 = '/sys/devices/system/cpu/cpu1'


def skip(why):
    print(f'live-preflight: {why}; skipping', file=sys.stderr)
    sys.exit(77)


def halt_disable():
    """CPU 1's first non-polling state's disable file."""
    for k in range(10):
        d = f'{CPU1}/cpuidle/state{k}'
        if os.path.isdir(d) and preflight.read(f'{d}/name') != 'POLL':
            return f'{d}/disable'
    return None


def run(argv, holder, **env):
    e = dict(os.environ, **{knobslock.HOLDER_ENV: str(holder)}, **env)
    return subprocess.run(argv, capture_output=True, text=True, env=e, timeout=60, check=False)


def main():
    if os.geteuid() != 0:
        skip('not root')
    disable, latency = halt_disable(), f'{CPU1}/power/pm_qos_resume_latency_us'
    if not disable or not os.path.exists(latency):
        skip(f'no halt state or resume latency on {CPU1}')
    lock = knobslock.take()
    if lock is None:
        skip(knobslock.HELD_ELSEWHERE)
    preflight.check_or_exit()
    # The children run under our lock, or under our ancestor's
    # (scripts/under-load) when it holds it for us.
    holder = os.environ[knobslock.HOLDER_ENV] if lock is True else os.getpid()
    saved = {p: preflight.read(p) for p in (disable, latency)}

    def put_back(*_):
        for p, v in saved.items():
            if preflight.read(p) != v:
                with open(p, 'w', encoding='ascii') as f:
                    f.write(v)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: (put_back(), os._exit(128 + s)))
    failures = []
    try:
        with open(disable, 'w', encoding='ascii') as f:
            f.write('1')
        with open(latency, 'w', encoding='ascii') as f:
            f.write('n/a')
        for name, argv in (('knobslock.py true', [sys.executable, f'{HERE}/knobslock.py', 'true']),
                           ('test_live.py', [sys.executable, f'{HERE}/test_live.py'])):
            for mode, want in (('fail', 99), ('skip', 77)):
                r = run(argv, holder, IDLEPOLICY_LIVE_PREFLIGHT=mode)
                expect = [f'{disable} = 1, default 0', f'{latency} = n/a, default 0', 'before the test started']
                missing = [e for e in expect if e not in r.stderr]
                print(f'{name}, IDLEPOLICY_LIVE_PREFLIGHT={mode}: exit {r.returncode}')
                if r.returncode != want or missing or 'Ran ' in r.stderr:
                    failures.append(f'{name} ({mode}): exit {r.returncode}, want {want}; missing {missing}; '
                                    f'stderr:\n{r.stderr}')
        print('the report:\n  ' + r.stderr.replace('\n', '\n  '))
    finally:
        put_back()
    left = preflight.deviations()
    if left:
        failures.append(f'not put back: {left}')
    for f in failures:
        print(f'FAIL: {f}', file=sys.stderr)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
