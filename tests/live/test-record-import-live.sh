#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live test of idlepolicy-record's two ways in on this machine's tracefs:
#  1. a recording with --save-raw, and --from on that raw text, give exactly
#     the same intervals;
#  2. the real trace-cmd: "trace-cmd record" a short session and
#     "trace-cmd extract" a tracefs instance this script sets up and
#     removes, "trace-cmd report" and "report -l" each, import all: the
#     traces pass --check; in the extracted one (the usage counters read
#     right around tracing_on) each CPU's interval count agrees with the
#     kernel's cpuidle usage delta within record-live's tolerance, on each
#     CPU the kernel lost no events on (the instance's per_cpu/cpuN/stats
#     overrun and dropped events, and the trace's own lost-event markers);
#     a CPU with losses is named and not compared, a TAP SKIP when both
#     have;
#  3. the progress line: on a terminal (a pty) while recording, not on a
#     pipe.
# Reads the cpuidle usage counters, writes no cpuidle knob.  TAP output.
# Exits 77 when not root or without tracefs.
# Usage: test-record-import-live.sh PATH/TO/idlepolicy-record
set -u
rec=${1:?usage: $0 idlepolicy-record}
inst=idlepolicy-import-test

if [ "$(id -u)" -ne 0 ]; then echo "1..0 # SKIP needs root"; exit 77; fi
if ! grep -qw tracefs /proc/filesystems; then echo "1..0 # SKIP the kernel has no tracefs"; exit 77; fi

tmp=$(mktemp -d) || exit 1
state="$tmp/state"
load_pid=
we_mounted=
T=
n=0
failed=0

cleanup() {
        [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null
        [ -n "$T" ] && [ -d "$T/instances/$inst" ] && rmdir "$T/instances/$inst"
        "$rec" --restore --state-dir "$state" >/dev/null 2>&1
        [ -n "$we_mounted" ] && umount "$T" 2>/dev/null
        rm -rf "$tmp"
}
trap cleanup EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/#   /' "$2" | head -30; }
start_load() { (while :; do sleep 0.01; done) & load_pid=$!; }
stop_load() { kill "$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null; load_pid=; }

# The data of a trace: the "# cpu" source lines and the rows.
data() { grep -v -e '^# recorded' -e '^# state' -e '^# idlepolicy-trace' "$1"; }

# Sum of cpuN's cpuidle usage counters (-1 without cpuidle).
usage_sum() {
        local s=0 f
        for f in /sys/devices/system/cpu/cpu"$1"/cpuidle/state*/usage; do
                [ -r "$f" ] || { echo -1; return; }
                s=$((s + $(cat "$f")))
        done
        echo "$s"
}

# counts_agree WHAT TRACE D0 D1 "STATS_LOST0 STATS_LOST1" "MARKED_LOST0 MARKED_LOST1":
# record-live's tolerance -- a CPU that entered idle at least 20 times has
# a source and at least 4/5 as many intervals, a cpu_idle CPU not more than
# the kernel counted (+5) -- on each CPU the kernel lost no events on; a CPU
# with losses is named and not compared (the whole check is a TAP SKIP when
# neither CPU can be).
counts_agree() {
        awk -F, -v d0="$3" -v d1="$4" -v sl="$5" -v ml="$6" '
                BEGIN { split(sl, s, " "); split(ml, m, " ") }
                /^# cpu / { split($0, w, " "); src[w[3]] = w[5] }
                /^#/ || /^cpu,/ { next }
                { rows[$1]++ }
                END {
                        d[0] = d0; d[1] = d1
                        for (c = 0; c <= 1; c++) {
                                lost = s[c + 1] + m[c + 1]
                                printf "cpu %d: %d intervals, kernel usage delta %d, source %s, lost %d (stats %d, markers %d)\n", c, rows[c], d[c], src[c], lost, s[c + 1], m[c + 1]
                                if (lost > 0) { skipped++; why = why sprintf("%scpu %d: the kernel lost %d events (%d intervals, kernel usage delta %d)", why ? "; " : "", c, lost, rows[c], d[c]); continue }
                                if (d[c] < 20) continue
                                if (src[c] != "cpu_idle" && src[c] != "irq-bounded") exit 1
                                if (rows[c] < d[c] * 4 / 5) exit 1
                                if (src[c] == "cpu_idle" && rows[c] > d[c] + 5) exit 1
                        }
                        if (skipped == 2) { print "SKIP " why; exit 2 }
                        if (skipped) print "not compared: " why
                }' "$2" >"$tmp/counts" 2>&1
        case $? in
        0) ok "$1: per-CPU intervals agree with the kernel's usage deltas"; sed 's/^/# /' "$tmp/counts" ;;
        2) ok "$1: per-CPU intervals agree with the kernel's usage deltas # SKIP $(sed -n 's/^SKIP //p' "$tmp/counts")"
           echo "$1: not compared: $(sed -n 's/^SKIP //p' "$tmp/counts")" >&2 ;;
        *) not_ok "$1: per-CPU intervals agree with the kernel's usage deltas" "$tmp/counts" ;;
        esac
}

# ---- 1. live recording and the import of its raw text ----------------------
start_load
"$rec" --seconds 3 --output "$tmp/live.trace" --save-raw "$tmp/raw.txt" --state-dir "$state" 2>"$tmp/live.err"
rc=$?
stop_load
if [ $rc -eq 0 ]; then ok "recording with --save-raw"; else not_ok "recording with --save-raw (rc $rc)" "$tmp/live.err"; fi
sed 's/^/# /' "$tmp/live.err"
"$rec" --from "$tmp/raw.txt" --output "$tmp/imported.trace" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then ok "--from the raw text"; else not_ok "--from the raw text (rc $rc)" "$tmp/err"; fi
# The idle entries the kernel counted on cpu 0 and 1 while recording (the
# summary's KERNEL column): on a machine kept busy there may be too few to
# compare anything.
idled=$(awk '$1 ~ /^[01]$/ && $3 ~ /^[0-9]+$/ { n += ($4 ~ /^[0-9]+$/ ? $4 : 0) } END { print n + 0 }' "$tmp/live.err")
rows=$(data "$tmp/live.trace" | grep -vc '^#')
if cmp -s <(data "$tmp/live.trace") <(data "$tmp/imported.trace") && [ "$rows" -gt 10 ]; then
        ok "recording and import: the same intervals ($rows rows)"
elif cmp -s <(data "$tmp/live.trace") <(data "$tmp/imported.trace") && [ "$idled" -lt 20 ]; then
        ok "recording and import: the same intervals # SKIP only $rows rows: the CPUs were kept busy (the kernel counted $idled idle entries in 3 s)"
        echo "record-import-live: recording and import not compared: only $rows rows, the kernel counted $idled idle entries in 3 s" >&2
else
        diff <(data "$tmp/live.trace") <(data "$tmp/imported.trace") | head -20 >"$tmp/diff"
        not_ok "recording and import: the same intervals" "$tmp/diff"
fi
gzip -c "$tmp/raw.txt" >"$tmp/raw.txt.gz"
if "$rec" --from - --output "$tmp/gz.trace" <"$tmp/raw.txt.gz" 2>"$tmp/err" &&
   cmp -s <(data "$tmp/live.trace") <(data "$tmp/gz.trace"); then ok "the gzipped raw text on stdin: the same intervals"
else not_ok "the gzipped raw text on stdin: the same intervals" "$tmp/err"; fi

# ---- 2. trace-cmd ---------------------------------------------------------------
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
        [ "$(stat -f -c %T "$d" 2>/dev/null)" = tracefs ] && { T=$d; break; }
done
if [ -z "$T" ]; then
        T=/sys/kernel/tracing
        mount -t tracefs nodev "$T" || { echo "Bail out! cannot mount tracefs"; exit 1; }
        we_mounted=1
fi
events=(power:cpu_idle timer:hrtimer_start timer:hrtimer_cancel timer:hrtimer_expire_entry sched:sched_switch
        sched:sched_wakeup irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit
        irq_vectors:local_timer_entry irq_vectors:local_timer_exit irq_vectors:reschedule_entry
        irq_vectors:reschedule_exit irq_vectors:call_function_single_entry irq_vectors:call_function_single_exit
        irq_vectors:call_function_entry irq_vectors:call_function_exit)
# stats_lost DIR: the events the kernel lost on each CPU of the tracefs
# instance DIR ("L0 L1": per_cpu/cpuN/stats' overrun plus dropped events).
stats_lost() {
        local c out=
        for c in 0 1; do
                out="$out $(awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }' \
                        "$1/per_cpu/cpu$c/stats" 2>/dev/null || echo 0)"
        done
        echo $out
}

# summary_lost FILE: "L0 L1", the LOST column of cpu 0 and 1 in an
# idlepolicy-record summary (the trace's own lost-event markers).
summary_lost() {
        awk '$1 ~ /^[01]$/ && NF >= 9 && $9 ~ /^[0-9]+$/ { l[$1] = $9 } END { print l[0] + 0, l[1] + 0 }' "$1"
}

if ! command -v trace-cmd >/dev/null; then
        not_ok "trace-cmd is installed (scripts/install-deps)"
else
        # a. trace-cmd record of a short session: its report and report -l
        #    import and pass --check.  The kernel's usage counters cannot be
        #    read exactly when it turns tracing on and off, so its counts
        #    are not compared (b is).
        args=()
        for e in "${events[@]}"; do [ -d "$T/events/${e/://}" ] && args+=(-e "$e"); done
        start_load
        (cd "$tmp" && timeout 30 trace-cmd record -q -B "$inst" -b 8192 -C mono "${args[@]}" -o "$tmp/tc.dat" sleep 2) \
                >"$tmp/tc.log" 2>&1
        rc=$?
        stop_load
        [ -d "$T/instances/$inst" ] && rmdir "$T/instances/$inst"
        if [ $rc -eq 0 ] && trace-cmd report -i "$tmp/tc.dat" >/dev/null 2>&1; then
                ok "trace-cmd record wrote a trace.dat"
                tc_files="tc"
        else
                # trace-cmd 3.1 dies on a kernel that refuses set_ftrace_pid
                # (EPERM, then a NULL dereference): b covers its formats.
                ok "trace-cmd record wrote a trace.dat # SKIP trace-cmd record failed here (rc $rc: $(tail -1 "$tmp/tc.log")); b's trace-cmd extract covers report and report -l"
                tc_files=
        fi
        # b. A tracefs instance set up here, "trace-cmd extract" of it: the
        #    usage counters are read right around tracing_on, and the
        #    instance's per-CPU stats (overrun, dropped) say what was lost.
        I="$T/instances/$inst"
        mkdir "$I" && echo 0 >"$I/tracing_on" && echo mono >"$I/trace_clock" && echo 8192 >"$I/buffer_size_kb"
        for e in "${events[@]}"; do [ -d "$I/events/${e/://}" ] && echo 1 >"$I/events/${e/://}/enable"; done
        start_load
        u0=$(usage_sum 0) u1=$(usage_sum 1)
        echo 1 >"$I/tracing_on"
        sleep 2
        echo 0 >"$I/tracing_on"
        v0=$(usage_sum 0) v1=$(usage_sum 1)
        stop_load
        lost_stats=$(stats_lost "$I")
        (cd "$tmp" && trace-cmd extract -B "$inst" -o "$tmp/tcx.dat") >"$tmp/tc.log" 2>&1
        rc=$?
        rmdir "$I"
        if [ $rc -eq 0 ]; then ok "trace-cmd extract wrote a trace.dat"
        else not_ok "trace-cmd extract wrote a trace.dat (rc $rc)" "$tmp/tc.log"; fi
        for t in $tc_files tcx; do
                trace-cmd report -i "$tmp/$t.dat" >"$tmp/$t-report.txt" 2>/dev/null
                trace-cmd report -l -i "$tmp/$t.dat" >"$tmp/$t-report-l.txt" 2>/dev/null
                for f in report report-l; do
                        "$rec" --from "$tmp/$t-$f.txt" --output "$tmp/$t-$f.trace" 2>"$tmp/$t-$f.err"
                        rc=$?
                        if [ $rc -eq 0 ] && "$rec" --check "$tmp/$t-$f.trace" >"$tmp/check" 2>&1; then
                                ok "trace-cmd $f ($t.dat): imported, --check accepts it"
                        else
                                cat "$tmp/check" >>"$tmp/$t-$f.err" 2>/dev/null
                                not_ok "trace-cmd $f ($t.dat): imported, --check accepts it (rc $rc)" "$tmp/$t-$f.err"
                        fi
                        sed 's/^/# /' "$tmp/$t-$f.err"
                done
        done
        # report -l has the flags column (need-resched, nesting), report not:
        # both must agree with the kernel, not necessarily with each other;
        # a CPU on which the kernel lost events (the instance's stats or the
        # trace's markers) is not compared.
        for f in report report-l; do
                counts_agree "trace-cmd $f" "$tmp/tcx-$f.trace" $((v0 < 0 ? -1 : v0 - u0)) $((v1 < 0 ? -1 : v1 - u1)) \
                        "$lost_stats" "$(summary_lost "$tmp/tcx-$f.err")"
        done
        "$rec" --from "$tmp/tcx.dat" --output "$tmp/dat.trace" 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 3 ] && grep -q 'trace-cmd binary file' "$tmp/err"; then ok "the trace.dat itself is refused (exit 3)"
        else not_ok "the trace.dat itself is refused (exit 3, rc $rc)" "$tmp/err"; fi
fi

# ---- 3. progress while recording -------------------------------------------------
python3 - "$rec" "$state" "$tmp/p.trace" >"$tmp/pty" 2>&1 <<'PY'
import os, pty, subprocess, sys
rec, state, out = sys.argv[1:4]
master, slave = pty.openpty()
p = subprocess.Popen([rec, '--seconds', '1.5', '--output', out, '--state-dir', state], stderr=slave)
os.close(slave)
got = b''
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    got += chunk
sys.stdout.write(repr(got))
sys.exit(p.wait())
PY
rc=$?
if [ $rc -eq 0 ] && grep -q 'Recording: [0-9.]* of 1.5 s, [0-9]* events, [0-9]* lost' "$tmp/pty" &&
   grep -qF '\r\x1b[KRecorded' "$tmp/pty"; then ok "terminal: a progress line while recording, erased before the summary"
else not_ok "terminal: a progress line while recording (rc $rc)" "$tmp/pty"; fi
"$rec" --seconds 1 --output "$tmp/q.trace" --state-dir "$state" 2>&1 | cat >"$tmp/piped"
if grep -q '^Recorded ' "$tmp/piped" && ! grep -q 'Recording:' "$tmp/piped" && ! grep -q $'\r' "$tmp/piped"; then
        ok "pipe: no progress line"
else not_ok "pipe: no progress line" "$tmp/piped"; fi

echo "1..$n"
[ "$failed" -eq 0 ]
