#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One user of the real idle knobs at a time: the live suite and bench/live
take /run/idlepolicy-knobs.lock before they record anything, waiting up to
4 minutes for another holder, then skipping (77).

A process that took the lock for a whole run (scripts/under-load, which
loads the machine only while it holds it) names itself in
IDLEPOLICY_KNOBS_LOCK_HOLDER; a test whose ancestor that is, and which
holds the lock (an exclusive flock listed in /proc/PID/fdinfo of its file
on the lock), runs under it instead of waiting for itself.

As a command, `knobslock.py COMMAND [ARG...]` takes the lock (or finds it
held as above), checks that the machine is at its defaults (preflight.py:
exits 99 naming each knob that is not) and runs COMMAND in its place, with
the lock: the live suite's shell tests run so (tests/live/meson.build)."""

import fcntl
import os
import sys
import time

import preflight

KNOBS_LOCK = '/run/idlepolicy-knobs.lock'
HOLDER_ENV = 'IDLEPOLICY_KNOBS_LOCK_HOLDER'


def parent_of(pid):
    with open(f'/proc/{pid}/stat', encoding='ascii') as f:
        return int(f.read().rsplit(')', 1)[1].split()[1])


def is_ancestor(pid):
    """True when pid is this process or one of its ancestors."""
    p = os.getpid()
    while p > 1:
        if p == pid:
            return True
        try:
            p = parent_of(p)
        except (OSError, ValueError, IndexError):
            return False
    return False


def holds_lock(pid):
    """True when one of pid's open files is the lock file with an exclusive
    flock on it."""
    try:
        lock = os.stat(KNOBS_LOCK)
        fds = os.listdir(f'/proc/{pid}/fd')
    except OSError:
        return False
    for fd in fds:
        try:
            st = os.stat(f'/proc/{pid}/fd/{fd}')
            if (st.st_dev, st.st_ino) != (lock.st_dev, lock.st_ino):
                continue
            with open(f'/proc/{pid}/fdinfo/{fd}', encoding='ascii') as f:
                if any(line.startswith('lock:') and 'FLOCK' in line and 'WRITE' in line for line in f):
                    return True
        except OSError:
            continue
    return False


def held_for_us():
    """The PID named in IDLEPOLICY_KNOBS_LOCK_HOLDER when it is this process
    or an ancestor and holds the lock; else None."""
    try:
        pid = int(os.environ.get(HOLDER_ENV, ''))
    except ValueError:
        return None
    return pid if is_ancestor(pid) and holds_lock(pid) else None


def take(wait_s=240, on_wait=None):
    """Takes the lock, waiting up to wait_s seconds (on_wait, if given, is
    called once when it has to wait).  Returns the open lock file (the lock
    lasts as long as it stays open), True when an ancestor holds it for us,
    or None when it stayed held by someone else."""
    if held_for_us():
        return True
    f = open(KNOBS_LOCK, 'a', encoding='ascii')
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return f
        except BlockingIOError:
            if time.monotonic() > deadline:
                f.close()
                return None
            if on_wait:
                on_wait()
                on_wait = None
            time.sleep(1)


HELD_ELSEWHERE = f'{KNOBS_LOCK} is held by another live suite or benchmark'


def main(argv):
    if not argv:
        sys.exit('usage: knobslock.py COMMAND [ARG...]')
    lock = take()
    if lock is None:
        print(f'1..0 # SKIP {HELD_ELSEWHERE}', flush=True)
        return 77
    preflight.check_or_exit()
    if lock is not True:
        os.set_inheritable(lock.fileno(), True)
        os.environ[HOLDER_ENV] = str(os.getpid())
    os.execvp(argv[0], argv)
    return 127


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
