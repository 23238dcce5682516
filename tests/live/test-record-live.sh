#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live test of idlepolicy-record on this machine's real tracefs: records
# while a sleep loop runs, checks the trace, and checks that tracefs (event
# enables and filters, buffer sizes, tracing_on, current_tracer, trace clock,
# options, pid filters, instances, the mount itself) is exactly as before --
# after a normal run, after SIGINT mid-recording, and after SIGKILL followed
# by --restore.  TAP output.  Exits 77 when not root or without tracefs.
# Usage: test-record-live.sh PATH/TO/idlepolicy-record
set -u
rec=${1:?usage: $0 idlepolicy-record}

if [ "$(id -u)" -ne 0 ]; then
        echo "1..0 # SKIP needs root"
        exit 77
fi
if ! grep -qw tracefs /proc/filesystems; then
        echo "1..0 # SKIP the kernel has no tracefs"
        exit 77
fi

tmp=$(mktemp -d) || exit 1
state="$tmp/state"
load_pid=
pid=
d0=-1 d1=-1 l0=0 l1=0
we_mounted=
n=0
failed=0

cleanup() {
        [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
        "$rec" --restore --state-dir "$state" >/dev/null 2>&1
        [ -n "$we_mounted" ] && umount "$T" 2>/dev/null
        rm -rf "$tmp"
}
trap cleanup EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/#   /' "$2"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

mounted_tracefs() {
        for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
                [ "$(stat -f -c %T "$d" 2>/dev/null)" = tracefs ] && { echo "$d"; return 0; }
        done
        return 1
}

# Everything the recorder may touch, one "file=value" per line.
snapshot() {
        (
                cd "$T" || exit 1
                for f in tracing_on buffer_size_kb current_tracer trace_clock set_event_pid set_event_notrace_pid \
                         per_cpu/cpu*/buffer_size_kb options/*; do
                        [ -e "$f" ] && printf '%s=%s\n' "$f" "$(tr '\n' ' ' <"$f")"
                done
                grep -H . events/*/*/enable events/*/*/filter | LC_ALL=C sort
                echo "instances=$(ls instances | tr '\n' ' ')"
        ) >"$1"
}

same_as_before() {
        snapshot "$tmp/after"
        if cmp -s "$tmp/before" "$tmp/after"; then
                ok "$1: tracefs exactly as before"
        else
                diff "$tmp/before" "$tmp/after" | head -20 >"$tmp/diff"
                not_ok "$1: tracefs exactly as before" "$tmp/diff"
        fi
}

# Sets d0/d1 from the recorder's summary in $tmp/err: the idle entries the
# kernel counted on cpu 0/1 while tracing was on (-1: not given).  Counted
# from outside the recorder they would include its set-up and teardown,
# which patch static keys on every CPU and add idle entries no trace holds.
kernel_count() {
        awk -v c="$1" '$1 == c && $2 ~ /^(cpu_idle|irq-bounded|none)$/ { n = ($4 == "-" ? -1 : $4) }
                       END { print (n == "" ? -1 : n) }' "$tmp/err"
}
# l0/l1: the events the kernel lost on cpu 0/1 (the summary's LOST, from
# the trace's lost-event markers): those CPUs' counts are not compared.
kernel_lost() { awk -v c="$1" '$1 == c && NF >= 9 && $9 ~ /^[0-9]+$/ { n = $9 } END { print n + 0 }' "$tmp/err"; }
kernel_counts() { d0=$(kernel_count 0); d1=$(kernel_count 1); l0=$(kernel_lost 0); l1=$(kernel_lost 1); }

# The trace parses and has sensible rows for CPUs 0 and 1 (a duration of 0
# is sensible: trace_pipe's text timestamps have 1 us resolution, and a
# busy CPU enters and leaves its polling state well within one), checked against
# the kernel's own count of idle entries while tracing was on (d0, d1; the
# machine may be busy, then a CPU has few idle periods): a CPU that entered
# idle at least 20 times has a source and at least 4/5 as many intervals (a
# period open when tracing started or stopped is cut), a cpu_idle CPU not
# more than the kernel counted.
trace_ok() {
        local what=$1 file=$2
        if ! "$rec" --check "$file" >"$tmp/check" 2>&1; then
                not_ok "$what: trace parses" "$tmp/check"
                return
        fi
        ok "$what: trace parses"
        local has_ci=0
        [ -d /sys/devices/system/cpu/cpu0/cpuidle ] && has_ci=1
        awk -F, -v d0="$d0" -v d1="$d1" -v l0="$l0" -v l1="$l1" -v has_ci="$has_ci" '
                /^# cpu / { split($0, w, " "); src[w[3]] = w[5] }
                /^#/ || /^cpu,/ { next }
                { rows[$1]++; if ($3 !~ /^[0-9]+$/ || $3 > 60e9) bad++; else if ($3 == 0) zero++
                  if ($5 != "-") known[$1]++ }
                END {
                        d[0] = d0; d[1] = d1; l[0] = l0; l[1] = l1
                        for (c = 0; c <= 1; c++) {
                                printf "cpu %d: %d rows, kernel counted %d idle entries, source %s, %d events lost\n", c, rows[c], d[c], src[c], l[c]
                                if (l[c] > 0) { printf "cpu %d: not compared with the kernel count: it lost %d events\n", c, l[c]; continue }
                                if (d[c] < 0 && has_ci && c == 0) { print "no kernel count in the summary"; exit 1 }
                                if (d[c] < 0 && rows[c] < 1) exit 1
                                if (d[c] < 20) { if (d[c] >= 0) printf "cpu %d: not compared: the kernel counted only %d idle entries (kept busy)\n", c, d[c]; continue }
                                if (src[c] != "cpu_idle" && src[c] != "irq-bounded") exit 1
                                if (rows[c] < d[c] * 4 / 5) exit 1
                                if (src[c] == "cpu_idle" && rows[c] > d[c] + 5) exit 1
                                if (known[c] < rows[c] / 2) { print "sleep length mostly unknown"; exit 1 }
                        }
                        if (zero) printf "%d rows of 0 ns (shorter than the 1 us of the text timestamps)\n", zero
                        if (bad) { printf "%d rows with a bad duration\n", bad; exit 1 }
                }' "$file" >"$tmp/rows" 2>&1
        if [ $? -eq 0 ]; then
                ok "$what: rows and sources for cpu 0 and 1"
                sed 's/^/# /' "$tmp/rows"
        else
                cat "$tmp/check" >>"$tmp/rows"
                not_ok "$what: rows and sources for cpu 0 and 1" "$tmp/rows"
        fi
}

start_load() { (while :; do sleep 0.01; done) & load_pid=$!; }
stop_load() { kill "$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null; load_pid=; }

# 0. With tracefs not mounted, the recorder mounts it and unmounts it again.
if T=$(mounted_tracefs); then
        echo "# tracefs at $T"
else
        "$rec" --seconds 0.5 --output "$tmp/m.trace" --state-dir "$state" 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 0 ] && ! mounted_tracefs >/dev/null; then ok "mounts tracefs and unmounts it"
        else not_ok "mounts tracefs and unmounts it (rc $rc)" "$tmp/err"; fi
        T=/sys/kernel/tracing
        mount -t tracefs nodev "$T" || { echo "Bail out! cannot mount tracefs"; exit 1; }
        we_mounted=1
fi

# The kernel cannot shrink an unexpanded ring buffer back ("7 (expanded:
# 1408)"): the first top-level recording expands it for good, and restoring
# puts back the expanded size.  Expand it first so that every comparison
# below is exact.
if grep -q expanded "$T/buffer_size_kb"; then
        "$rec" --seconds 0.1 --output "$tmp/warm.trace" --no-instance --state-dir "$state" 2>/dev/null
        echo "# buffer was unexpanded: $(cat "$T/buffer_size_kb") after a first top-level recording"
fi
snapshot "$tmp/before"

# 1. A private instance (the default).
start_load
"$rec" --seconds 3 --output "$tmp/a.trace" --state-dir "$state" 2>"$tmp/err"
rc=$?
kernel_counts
stop_load
if [ $rc -eq 0 ]; then ok "instance: records 3 s"; else not_ok "instance: records 3 s (rc $rc)" "$tmp/err"; fi
sed 's/^/# /' "$tmp/err"
trace_ok "instance" "$tmp/a.trace"
same_as_before "instance"

# 2. The top-level buffer: every setting saved and written back.
start_load
"$rec" --seconds 3 --output "$tmp/b.trace" --no-instance --state-dir "$state" 2>"$tmp/err"
rc=$?
kernel_counts
stop_load
if [ $rc -eq 0 ]; then ok "top level: records 3 s"; else not_ok "top level: records 3 s (rc $rc)" "$tmp/err"; fi
trace_ok "top level" "$tmp/b.trace"
same_as_before "top level"

# 3. SIGINT mid-recording: stops early, writes what it has, restores.
start_load
"$rec" --seconds 30 --output "$tmp/c.trace" --no-instance --state-dir "$state" 2>"$tmp/err" &
pid=$!
sleep 4
kill -INT $pid
wait $pid
rc=$?
pid=
kernel_counts
stop_load
if [ $rc -eq 0 ] && grep -q 'Interrupted by SIGINT' "$tmp/err"; then ok "SIGINT: stops and exits 0"
else not_ok "SIGINT: stops and exits 0 (rc $rc)" "$tmp/err"; fi
trace_ok "SIGINT" "$tmp/c.trace"
same_as_before "SIGINT"
check "SIGINT: no journal left" test ! -e "$state/state"

# 4. SIGKILL mid-recording, then --restore (top level and instance).
for mode in --no-instance --instance; do
        args=
        [ "$mode" = --no-instance ] && args=--no-instance
        "$rec" --seconds 30 --output "$tmp/d.trace" $args --state-dir "$state" 2>/dev/null &
        pid=$!
        sleep 1.5
        snapshot "$tmp/during"
        kill -KILL $pid
        wait $pid 2>/dev/null
        pid=
        check "SIGKILL $mode: journal left behind" test -s "$state/state"
        check "SIGKILL $mode: tracefs was changed" sh -c "! cmp -s '$tmp/before' '$tmp/during'"
        "$rec" --restore --state-dir "$state" 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 0 ] && grep -q Restoring "$tmp/err"; then ok "SIGKILL $mode: --restore"
        else not_ok "SIGKILL $mode: --restore (rc $rc)" "$tmp/err"; fi
        same_as_before "SIGKILL $mode + --restore"
        check "SIGKILL $mode: journal removed" test ! -e "$state/state"
done

# 5. A left-over journal is undone by the next start too; a second recorder
#    is refused while one runs.
"$rec" --seconds 30 --output "$tmp/e.trace" --no-instance --state-dir "$state" 2>/dev/null &
pid=$!
sleep 1
"$rec" --seconds 1 --output "$tmp/f.trace" --state-dir "$state" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'Another idlepolicy-record' "$tmp/err"; then ok "a second recorder is refused"
else not_ok "a second recorder is refused (rc $rc)" "$tmp/err"; fi
kill -KILL $pid
wait $pid 2>/dev/null
pid=
"$rec" --seconds 0.5 --output "$tmp/g.trace" --state-dir "$state" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q Restoring "$tmp/err"; then ok "the next start restores a killed recorder's changes"
else not_ok "the next start restores a killed recorder's changes (rc $rc)" "$tmp/err"; fi
same_as_before "next start"

echo "1..$n"
[ "$failed" -eq 0 ]
