#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""idlepolicy-record --from on committed ftrace texts, without root or tracefs.

The fixtures in ftrace/ are one real 80 ms session of this project's KVM
test machine (CPU 0 emits power:cpu_idle, CPU 1 does not), saved four ways
from the same buffer: the tracefs instance's "trace" file with and without
the irq-info column, and "trace-cmd extract" of it printed by "trace-cmd
report" and "trace-cmd report -l"; plus the last one gzipped.  On this
session every form gives the same intervals (in general the forms without
the flags column can differ where need-resched or nesting matters).  Then the refused inputs (exit 3, a named
message), usage errors (exit 2), and the progress line: shown on a
terminal (a pty), absent on a pipe.  TAP output.

Usage: test-record-import.py PATH/TO/idlepolicy-record FIXTURE_DIR
"""
import gzip
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import ptyrun  # noqa: E402

REC, FIXTURES = sys.argv[1], sys.argv[2]
FORMS = ['tracefs-irq-info.txt', 'tracefs-no-irq-info.txt', 'trace-cmd-report.txt', 'trace-cmd-report-l.txt',
         'trace-cmd-report-l.txt.gz']
EXPECTED = {0: ('cpu_idle', 33), 1: ('irq-bounded', 16)}   # per CPU: source, intervals
BAD_INPUT = 3

n = 0
failed = 0


def check(what, ok, detail=''):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print(('ok' if ok else 'not ok') + f' {n} - {what}')
    if not ok and detail:
        for line in str(detail).splitlines()[:20]:
            print('#   ' + line)


def run(*args, stdin=None, input_bytes=None, timeout=60):
    return subprocess.run([REC, *args], stdin=stdin, input=input_bytes, capture_output=True, timeout=timeout)


def rows(path):
    """The trace's header lines that say something about the data, and its rows."""
    with open(path) as f:
        return [l for l in f if not l.startswith('# recorded')]


def sources(path):
    out, count = {}, {}
    for line in open(path):
        if line.startswith('# cpu '):
            w = line.split()
            out[int(w[2])] = w[4]
        elif line[0].isdigit():
            c = int(line.split(',')[0])
            count[c] = count.get(c, 0) + 1
    return {c: (out[c], count.get(c, 0)) for c in out}


tmp = tempfile.mkdtemp()
out = os.path.join(tmp, 'out.trace')

# ---- every form, the same intervals ----------------------------------------
reference = None
for form in FORMS:
    path = os.path.join(FIXTURES, form)
    r = run('--from', path, '--output', out)
    check(f'{form}: imported', r.returncode == 0, r.stderr.decode())
    if r.returncode != 0:
        continue
    check(f'{form}: --check accepts the trace', run('--check', out).returncode == 0)
    got = sources(out)
    check(f'{form}: sources and interval counts per CPU', got == EXPECTED, got)
    check(f'{form}: summary names the source per CPU', b'irq-bounded' in r.stderr and b'0 unparsed' in r.stderr,
          r.stderr.decode())
    if reference is None:
        reference = rows(out)
    else:
        check(f'{form}: same intervals as {FORMS[0]}', rows(out) == reference)

# standard input, plain and gzip; gzip members concatenated
with open(os.path.join(FIXTURES, 'trace-cmd-report-l.txt'), 'rb') as f:
    text = f.read()
r = run('--from', '-', '--output', out, input_bytes=text)
check('stdin: imported', r.returncode == 0 and rows(out) == reference, r.stderr.decode())
half = text.index(b'\n', len(text) // 2) + 1
r = run('--from', '-', '--output', out, input_bytes=gzip.compress(text[:half]) + gzip.compress(text[half:]))
check('stdin: two concatenated gzip members', r.returncode == 0 and rows(out) == reference and b'(gzip)' in r.stderr,
      r.stderr.decode())
r = run('--from', os.path.join(FIXTURES, 'trace-cmd-report.txt'), '--output', '-')
check('--output -: the trace on standard output', r.returncode == 0 and r.stdout.startswith(b'# idlepolicy-trace'))


# ---- refused input ------------------------------------------------------------
def refused(what, path, message, args=(), code=BAD_INPUT, **kw):
    r = run('--from', path, '--output', out, *args, **kw)
    err = r.stderr.decode()
    check(f'{what}: exit {code}, "{message}"', r.returncode == code and message in err, f'rc {r.returncode}: {err}')


def write(name, data):
    path = os.path.join(tmp, name)
    with open(path, 'wb') as f:
        f.write(data)
    return path


gz = gzip.compress(text)
refused('trace.dat', write('trace.dat', b'\x17\x08Dtracing6\x00\x00\x00\x10\x00\x00' + bytes(200)),
        'trace-cmd binary file (trace.dat)')
refused('gzip of a trace.dat', write('trace.dat.gz', gzip.compress(b'\x17\x08Dtracing6\x00' + bytes(50))),
        'trace-cmd binary file (trace.dat)')
refused('truncated gzip', write('cut.gz', gz[:len(gz) // 2]), 'truncated gzip')
bad = bytearray(gz)
for i in range(len(bad) // 3, len(bad) // 3 + 64):
    bad[i] ^= 0x5a
refused('corrupt gzip', write('bad.gz', bytes(bad)), 'corrupt gzip')
refused('lines that parse as nothing', write('words.txt', b'hello world\nthis is not ftrace\n' * 100),
        'no ftrace event in 200 lines (200 not understood); line 1: "hello world"')
refused('comments only', write('empty.txt', b'# tracer: nop\n#\n'), 'no ftrace event in 2 lines')
refused('empty file', write('zero.txt', b''), 'no ftrace event in 0 lines')
sparse = os.path.join(tmp, 'huge.txt')
with open(sparse, 'wb') as f:
    f.truncate(64 << 30)                # 64 GiB of holes: NUL bytes
refused('a huge sparse file (over the default limit)', sparse, 'more text than --max-mb allows')
refused('a huge sparse file under --max-mb', sparse, 'is binary data', args=('--max-mb', str(128 << 10)))
refused('more text than --max-mb', write('big.txt', text * 40), 'more text than --max-mb allows', args=('--max-mb', '1'))
refused('state index beyond the format', write('state.txt', b'<idle>-0 [000] d..1. 1.000000: cpu_idle: state=12 cpu_id=0\n'
        b'<idle>-0 [000] d..1. 1.001000: cpu_idle: state=4294967295 cpu_id=0\n'), 'state index beyond 9')
refused('CPU count beyond the limit', write('cpus.txt', b'cpus=100000\n' + text), 'states more CPUs than 8192')
fifo = os.path.join(tmp, 'fifo')
os.mkfifo(fifo)
refused('a FIFO named as FILE (no hang)', fifo, 'not a regular file (a FIFO', timeout=10)
refused('a directory', tmp, 'is a directory')
refused('a missing file', os.path.join(tmp, 'nope'), 'No such file or directory', code=1)
refused('an unwritable output', os.path.join(FIXTURES, 'trace-cmd-report.txt'), 'Failed to write', code=1,
        args=('--output', os.path.join(tmp, 'no', 'such', 'dir')))
with open(os.path.join(FIXTURES, 'trace-cmd-report.txt'), 'rb') as f:
    with_garbage = f.read().replace(b'cpus=2\n', b'cpus=2\nbinary junk \xff\xfe line\n', 1)
r = run('--from', '-', '--output', out, input_bytes=with_garbage)
check('a stray bad line is counted, not fatal', r.returncode == 0 and b'1 unparsed (first: line 2' in r.stderr,
      r.stderr.decode(errors='replace'))

for args in (['--from', 'x'], ['--from', 'x', '--output', out, '--seconds', '1'],
             ['--from', 'x', '--output', out, '--save-raw', 'y'], ['--from', 'x', '--output', out, '--max-mb', '0']):
    r = run(*args)
    check(f'usage error: {" ".join(args)}: exit 2', r.returncode == 2, r.stderr.decode())


# ---- progress -------------------------------------------------------------------
def slow_feed(fd, seconds=1.5):
    """Writes well-formed idle events into fd for a while, then closes it."""
    t0, ts, i = time.monotonic(), 1000.0, 0
    with os.fdopen(fd, 'wb') as f:
        while time.monotonic() - t0 < seconds:
            chunk = []
            for _ in range(2000):
                ts += 0.0005
                chunk.append(b'<idle>-0 [000] d..1. %.6f: cpu_idle: state=%s cpu_id=0\n'
                             % (ts, b'1' if i % 2 == 0 else b'4294967295'))
                i += 1
            f.write(b''.join(chunk))
            f.flush()
            time.sleep(0.05)


def import_slowly(stderr_to_pty):
    """Imports from a slow pipe with stderr on a pty or a pipe.  Returns (rc, stderr bytes)."""
    r_fd, w_fd = os.pipe()
    feeder = threading.Thread(target=slow_feed, args=(w_fd,))
    feeder.start()
    argv = [REC, '--from', '-', '--output', out]
    try:
        if stderr_to_pty:
            rc, _, got = ptyrun.run_with_pty_stderr(argv, None, timeout=60, stdin=r_fd)
            got = got.encode()
        else:
            r = subprocess.run(argv, stdin=r_fd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60,
                               check=False)
            rc, got = r.returncode, r.stderr
    finally:
        os.close(r_fd)
        feeder.join()
    return rc, got


rc, tty = import_slowly(True)
check('terminal: progress line with MiB and lines, rewritten in place',
      rc == 0 and b'\rImporting -: ' in tty and b' lines\x1b[K' in tty, tty[-400:])
check('terminal: the progress line is erased before the summary', b'\r\x1b[KImported ' in tty, tty[-400:])
rc, piped = import_slowly(False)
check('pipe: no progress line', rc == 0 and b'Importing' not in piped and b'\r' not in piped
      and piped.startswith(b'Imported '), piped[:400])

print(f'1..{n}')
sys.exit(1 if failed else 0)
