#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The live suite's preflight: is the machine at its defaults before a live
test changes anything?

Each live test runs it right after taking /run/idlepolicy-knobs.lock
(knobslock.py), so whatever it finds was so before the test started and
was not caused by it: a killed test or benchmark that could not put its
knobs back, or an administrator.  The defaults:

  cpuN/online                            1 (every CPU online)
  cpuN/cpuidle/stateK/disable            0 (every state enabled)
  cpuN/power/pm_qos_resume_latency_us    0 (no constraint; "n/a" asks for
                                         no latency at all: polling only)
  cpuidle/current_governor               the boot one: cpuidle.governor= on
                                         the kernel command line, else the
                                         driver's own (the haltpoll driver
                                         asks for the haltpoll governor),
                                         else menu (the highest rating of
                                         the kernel's own governors on a
                                         tickless kernel); IDLEPOLICY_BOOT_GOVERNOR
                                         overrides
  /sys/module/haltpoll/parameters/*      haltpoll.NAME= on the command line,
                                         else the kernel's defaults
                                         (drivers/cpuidle/governors/haltpoll.c:
                                         guest_halt_poll_ns 200000, _grow 2,
                                         _shrink 2, _grow_start 50000,
                                         _allow_shrink Y)

A machine found otherwise fails the test as a hard error (exit 99, which
meson shows as ERROR, not FAIL): a test machine off its defaults is a
defect someone must see -- usually the cleanup of an earlier run that was
killed -- and skipping would let CI go green having tested nothing.  Set
IDLEPOLICY_LIVE_PREFLIGHT=skip (exit 77 instead) on a machine deliberately
tuned, or =off to run anyway.

As a command: `preflight.py [--root DIR]` prints what differs and exits 0
when nothing does, else 99 (77 with IDLEPOLICY_LIVE_PREFLIGHT=skip)."""

import glob
import os
import sys

CPU = 'sys/devices/system/cpu'
HALTPOLL = 'sys/module/haltpoll/parameters'
HALTPOLL_DEFAULTS = {'guest_halt_poll_ns': '200000', 'guest_halt_poll_grow': '2', 'guest_halt_poll_shrink': '2',
                     'guest_halt_poll_grow_start': '50000', 'guest_halt_poll_allow_shrink': 'Y'}
# The governor a cpuidle driver asks for (struct cpuidle_driver.governor).
DRIVER_GOVERNOR = {'haltpoll': 'haltpoll'}
ERROR, SKIP = 99, 77


def read(path):
    try:
        with open(path, encoding='ascii') as f:
            return f.read().strip()
    except OSError:
        return None


def cmdline(root):
    """{name: value} of the kernel command line's name=value words."""
    words = (read(os.path.join(root, 'proc/cmdline')) or '').split(' -- ')[0].split()
    return dict(w.split('=', 1) for w in words if '=' in w)


def boot_governor(root, args):
    """(the governor the kernel chose at boot, how that is known)."""
    if os.environ.get('IDLEPOLICY_BOOT_GOVERNOR'):
        return os.environ['IDLEPOLICY_BOOT_GOVERNOR'], 'IDLEPOLICY_BOOT_GOVERNOR'
    if 'cpuidle.governor' in args:
        return args['cpuidle.governor'], 'cpuidle.governor= on the kernel command line'
    driver = read(os.path.join(root, CPU, 'cpuidle/current_driver'))
    if driver in DRIVER_GOVERNOR:
        return DRIVER_GOVERNOR[driver], f'the {driver} driver\'s own'
    return 'menu', 'the kernel\'s default on a tickless kernel'


def state_name(root, disable_path):
    return read(os.path.join(os.path.dirname(disable_path), 'name')) or '?'


def deviations(root='/'):
    """[(path without root, value, default, why it matters)] for every knob
    not at its default."""
    out = []
    cpu = os.path.join(root, CPU)

    def rel(p):
        return '/' + os.path.relpath(p, root)
    for p in sorted(glob.glob(f'{cpu}/cpu[0-9]*/online')):
        if read(p) not in (None, '1'):
            out.append((rel(p), read(p), '1', 'the CPU is offline'))
    for p in sorted(glob.glob(f'{cpu}/cpu[0-9]*/cpuidle/state[0-9]*/disable')):
        if read(p) not in (None, '0'):
            out.append((rel(p), read(p), '0', f'the state {state_name(root, p)!r} is disabled'))
    for p in sorted(glob.glob(f'{cpu}/cpu[0-9]*/power/pm_qos_resume_latency_us')):
        v = read(p)
        if v not in (None, '0'):
            why = ('"n/a" accepts no wakeup latency at all: only polling states are reachable' if v == 'n/a'
                   else f'states slower than {v} us to wake are unreachable')
            out.append((rel(p), v, '0', why))
    args = cmdline(root)
    gov = read(os.path.join(cpu, 'cpuidle/current_governor'))
    want, how = boot_governor(root, args)
    if gov is not None and gov != want:
        out.append((rel(os.path.join(cpu, 'cpuidle/current_governor')), gov, want, f'the boot governor ({how})'))
    for name, default in HALTPOLL_DEFAULTS.items():
        p = os.path.join(root, HALTPOLL, name)
        want = args.get(f'haltpoll.{name}', default)
        how = 'haltpoll.' + name + '= on the kernel command line' if f'haltpoll.{name}' in args else 'the kernel default'
        if read(p) is not None and read(p) != want:
            out.append((rel(p), read(p), want, f'its boot value ({how})'))
    return out


def report(found):
    lines = ['live preflight: this machine was not at its defaults before the test started (found right after '
             'taking /run/idlepolicy-knobs.lock, before the test changed anything):']
    lines += [f'  {path} = {value}, default {default}: {why}' for path, value, default, why in found]
    lines.append('Something else left it so (an earlier test or benchmark that was killed, or an administrator). '
                 'Put the files back to their defaults (echo DEFAULT > FILE, holding the lock), or set '
                 'IDLEPOLICY_LIVE_PREFLIGHT=skip to skip on a machine tuned on purpose.')
    return '\n'.join(lines)


def check(root='/'):
    """None when the machine is at its defaults (or the preflight is off);
    else (exit status, message)."""
    mode = os.environ.get('IDLEPOLICY_LIVE_PREFLIGHT', 'fail')
    if mode == 'off':
        return None
    found = deviations(root)
    if not found:
        return None
    return (SKIP if mode == 'skip' else ERROR), report(found)


def check_or_exit(root='/'):
    """Exits the process (99, or 77 with IDLEPOLICY_LIVE_PREFLIGHT=skip)
    with the report when the machine is not at its defaults."""
    bad = check(root)
    if bad:
        print(bad[1] + (' Skipping.' if bad[0] == SKIP else ''), file=sys.stderr, flush=True)
        sys.exit(bad[0])


if __name__ == '__main__':
    root = '/'
    if sys.argv[1:2] == ['--root'] and len(sys.argv) == 3:
        root = sys.argv[2]
    elif sys.argv[1:]:
        sys.exit('usage: preflight.py [--root DIR]')
    check_or_exit(root)
