# SPDX-License-Identifier: LGPL-2.1-or-later
"""A fake cgroup v2 mount with symbolic links planted in it, a victim
outside it that looks like a cgroup, and a count of every write to the
victim (inotify): what the cgroup-symlink attacks of
test_cgroup_symlinks.py and bench/cgroup-symlinks are made of.

Layout, under a temp dir D:

  D/cgroup/                the mount (--cgroup-root)
      real/                a cgroup to pin (cpuset.cpus "")
      swap/child/          a cgroup that a test later swaps for a link
      evil -> ../outside   a relative symbolic link to a directory
      evil-abs -> D/outside   an absolute one
      par -> ../outside    an intermediate directory: par/child
      deep/a -> ../../outside  a link one level down: deep/a/child
      leaf/cpuset.cpus -> ../../outside/cpuset.cpus   the file itself
      events-link/cgroup.events -> ../../outside/cgroup.events
      procs-link/cgroup.procs -> ../../outside/cgroup.procs   (v1: no cgroup.events)
      fifo/cpuset.cpus     a FIFO
      dircpus/cpuset.cpus  a directory
  D/outside/, D/outside/child/   the victim: every cgroup file, cpuset.cpus
                                 VICTIM_CPUS

Only the standard library (ctypes for inotify)."""

import ctypes
import os
import struct

VICTIM_CPUS = '0-3'

# inotify(7): what counts as a write to the victim.
IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
WRITE_EVENTS = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
EVENT_HEADER = struct.Struct('iIII')

# target -> the bus error a Pin() of it must get
REFUSED_TARGETS = {
    'cgroup:evil': 'InvalidTarget',
    'cgroup:evil-abs': 'InvalidTarget',
    'cgroup:evil/child': 'InvalidTarget',
    'cgroup:par/child': 'InvalidTarget',
    'cgroup:deep/a/child': 'InvalidTarget',
    'cgroup:leaf': 'NotPinnable',
    'cgroup:events-link': 'NotPinnable',
    'cgroup:procs-link': 'NotPinnable',
    'cgroup:fifo': 'NotPinnable',
    'cgroup:dircpus': 'NotPinnable',
}

CGROUP_FILES = (('cpuset.cpus', ''), ('cpuset.cpus.effective', '0-3'), ('cgroup.controllers', 'cpuset cpu'),
                ('cgroup.events', 'populated 1\nfrozen 0'), ('cgroup.procs', ''))


def write(path, text):
    with open(path, 'w', encoding='ascii') as f:
        f.write(text + '\n')


def make_cgroup(path, files=CGROUP_FILES, skip=()):
    """A directory with the files of a populated v2 cgroup, but those in skip."""
    os.makedirs(path, exist_ok=True)
    for name, value in files:
        if name not in skip:
            write(os.path.join(path, name), value)


def make_victim(path):
    make_cgroup(path, [(n, VICTIM_CPUS if n == 'cpuset.cpus' else v) for n, v in CGROUP_FILES])


def make(base):
    """Builds the layout under base.  Returns (cgroup root, outside)."""
    root, outside = os.path.join(base, 'cgroup'), os.path.join(base, 'outside')
    make_victim(outside)
    make_victim(os.path.join(outside, 'child'))
    os.makedirs(root)
    for name, value in (('cgroup.controllers', 'cpuset cpu io memory pids'), ('cgroup.subtree_control', 'cpuset cpu'),
                        ('cpuset.cpus.effective', '0-3'), ('cgroup.procs', '')):
        write(os.path.join(root, name), value)
    make_cgroup(os.path.join(root, 'real'))
    make_cgroup(os.path.join(root, 'swap', 'child'))
    os.symlink('../outside', os.path.join(root, 'evil'))
    os.symlink(outside, os.path.join(root, 'evil-abs'))
    os.symlink('../outside', os.path.join(root, 'par'))
    os.makedirs(os.path.join(root, 'deep'))
    os.symlink('../../outside', os.path.join(root, 'deep', 'a'))
    for name, linked in (('leaf', 'cpuset.cpus'), ('events-link', 'cgroup.events')):
        make_cgroup(os.path.join(root, name), skip=(linked,))
        os.symlink('../../outside/' + linked, os.path.join(root, name, linked))
    make_cgroup(os.path.join(root, 'procs-link'), skip=('cgroup.events', 'cgroup.procs'))
    os.symlink('../../outside/cgroup.procs', os.path.join(root, 'procs-link', 'cgroup.procs'))
    make_cgroup(os.path.join(root, 'fifo'), skip=('cpuset.cpus',))
    os.mkfifo(os.path.join(root, 'fifo', 'cpuset.cpus'))
    make_cgroup(os.path.join(root, 'dircpus'), skip=('cpuset.cpus',))
    os.mkdir(os.path.join(root, 'dircpus', 'cpuset.cpus'))
    return root, outside


def swap_for_link(root, name, target='../outside'):
    """Moves the directory root/name aside (name.real) and puts a symbolic
    link to target in its place."""
    os.rename(os.path.join(root, name), os.path.join(root, name + '.real'))
    os.symlink(target, os.path.join(root, name))


RENAME_EXCHANGE = 2
_libc = ctypes.CDLL(None, use_errno=True)


def make_race(root):
    """root/race/child, a cgroup, and root/race-link, a link to the victim:
    exchange() swaps the two names atomically."""
    make_cgroup(os.path.join(root, 'race', 'child'))
    os.symlink('../outside', os.path.join(root, 'race-link'))


def exchange(root, a='race', b='race-link'):
    """Swaps root/a and root/b with renameat2(RENAME_EXCHANGE) (ctypes lets
    other threads run meanwhile)."""
    if _libc.renameat2(-100, os.fsencode(os.path.join(root, a)), -100, os.fsencode(os.path.join(root, b)),
                       RENAME_EXCHANGE) < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), os.path.join(root, a))


def race_settle(root):
    """Leaves root/race the directory."""
    if os.path.islink(os.path.join(root, 'race')):
        exchange(root)


def read_cpus(path):
    with open(os.path.join(path, 'cpuset.cpus'), encoding='ascii') as f:
        return f.read().strip()


class WriteWatch:
    """Counts the writes (and creations, removals, renames, attribute
    changes) under the directories given, from its start: inotify on each
    directory, which sees its files whatever path they were reached by."""

    def __init__(self, dirs):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), 'inotify_init1')
        self.names = {}
        self.events = []
        for d in dirs:
            wd = self.libc.inotify_add_watch(self.fd, os.fsencode(d), WRITE_EVENTS)
            if wd < 0:
                raise OSError(ctypes.get_errno(), f'inotify_add_watch {d}')
            self.names[wd] = d

    def drain(self):
        """Reads what is queued.  Returns the events so far: (path, mask)."""
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return self.events
            off = 0
            while off < len(data):
                wd, mask, _cookie, n = EVENT_HEADER.unpack_from(data, off)
                name = data[off + EVENT_HEADER.size:off + EVENT_HEADER.size + n].rstrip(b'\0').decode()
                self.events.append((os.path.join(self.names.get(wd, '?'), name), mask))
                off += EVENT_HEADER.size + n

    def writes(self):
        """The number of events so far (an open for writing and its write:
        at least two)."""
        return len(self.drain())

    def write_opens(self):
        """The number of files opened for writing and closed so far
        (IN_CLOSE_WRITE)."""
        return sum(1 for _p, mask in self.drain() if mask & IN_CLOSE_WRITE)

    def close(self):
        os.close(self.fd)
