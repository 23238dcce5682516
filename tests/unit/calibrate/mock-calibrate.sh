#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A stand-in for idlepolicy-calibrate in test-walk.c (calibrate-walk): prints
# canned JSON that depends on which idle states are enabled in the fake tree,
# and fails (exit 3) unless exactly one is, with the resume latency the
# calibration must set for it ("n/a" for POLL, 0 for any other) and, for any
# other than POLL, guest_halt_poll_ns 0.
#
# With only state K allowed on CPU C the "measured" wakeup is
#   median 40K + 5 + C µs, p99 100K + 9 + C µs, timer lateness 30K + 3 µs.
# The sweep (with a partner and --sweep-samples > 0): after an idle of D µs
#   median 40K + 5 + C µs, plus 20 µs for K > 0 and D < 100 (an entry cost
#   of 20 µs, flat from 100 µs); at D = 2 three wakeups in four come before
#   the CPU is idle (the point does not count).
#
# Environment:
#   MOCK_ROOT     the fake tree
#   MOCK_LOG      one line per run (arguments, enabled states, resume
#                 latency), then the restore journal as it is during the run
#   MOCK_JOURNAL  the restore journal file (optional)
#   MOCK_MODE     ok (default), hang (writes $MOCK_PIDFILE, sleeps), fail,
#                 garbage (not JSON)
#   MOCK_NOENTRY  "C:K": report no entries into state K on CPU C
#   MOCK_MIXED    "C:K": with K allowed on CPU C, report as many entries
#                 into the next state as into K
set -u

cpu= partner= samples= tsamples= gap= sweep= ssamples=0
while [ $# -gt 0 ]; do
        case $1 in
        --cpu) cpu=$2; shift 2 ;;
        --partner) partner=$2; shift 2 ;;
        --samples) samples=$2; shift 2 ;;
        --timer-samples) tsamples=$2; shift 2 ;;
        --gap-us) gap=$2; shift 2 ;;
        --sweep-us) sweep=$2; shift 2 ;;
        --sweep-samples) ssamples=$2; shift 2 ;;
        --json) shift ;;
        *) echo "mock-calibrate: unknown argument $1" >&2; exit 2 ;;
        esac
done

dir=$MOCK_ROOT/sys/devices/system/cpu/cpu$cpu
enabled= n=0
while [ -d "$dir/cpuidle/state$n" ]; do
        [ "$(cat "$dir/cpuidle/state$n/disable")" = 0 ] && enabled="$enabled${enabled:+,}$n"
        n=$((n + 1))
done
resume=$(cat "$dir/power/pm_qos_resume_latency_us")
poll=$(cat "$MOCK_ROOT/sys/module/haltpoll/parameters/guest_halt_poll_ns" 2>/dev/null || echo -)

echo "cpu=$cpu partner=${partner:--} samples=$samples timer=$tsamples gap=$gap sweep=$sweep x $ssamples enabled=$enabled resume=$resume poll=$poll" >>"$MOCK_LOG"
if [ -n "${MOCK_JOURNAL:-}" ] && [ -f "$MOCK_JOURNAL" ]; then
        # the live records: "-KEY" forgets KEY, the first record of a key wins
        awk '/^#/ { next }
             /^-/ { delete live[substr($0, 2)]; next }
             !($1 in live) { live[$1] = $0; seq[$1] = ++n; line[n] = $1 }
             END { for (i = 1; i <= n; i++) if (line[i] in live && seq[line[i]] == i) print "  journal: " live[line[i]] }' \
                "$MOCK_JOURNAL" >>"$MOCK_LOG"
fi

case ${MOCK_MODE:-ok} in
hang) echo $$ >"$MOCK_PIDFILE"; exec sleep 300 ;;
fail) echo "mock-calibrate: failing as asked" >&2; exit 1 ;;
garbage) echo "{not json"; exit 0 ;;
esac

case $enabled in
*,* | "") echo "mock-calibrate: enabled states \"$enabled\", expected one" >&2; exit 3 ;;
esac
k=$enabled
want=0
[ "$k" = 0 ] && want=n/a
if [ "$resume" != "$want" ]; then
        echo "mock-calibrate: resume latency $resume with state $k, expected $want" >&2
        exit 3
fi
if [ "$k" != 0 ] && [ "$poll" != 0 ] && [ "$poll" != - ]; then
        echo "mock-calibrate: guest_halt_poll_ns $poll with state $k, expected 0" >&2
        exit 3
fi

# entries: one per sample into the allowed state
count=${partner:+$samples}
count=${count:-$tsamples}
[ "${MOCK_NOENTRY:-}" = "$cpu:$k" ] && count=0
entries= i=0
while [ $i -lt "$n" ]; do
        e=0
        [ $i = "$k" ] && e=$count
        [ "${MOCK_MIXED:-}" = "$cpu:$k" ] && [ $i = $(((k + 1) % n)) ] && e=$count
        entries="$entries${entries:+, }$e"
        i=$((i + 1))
done

median=$((40 * k + 5 + cpu)).25
p99=$((100 * k + 9 + cpu)).5
timer=$((30 * k + 3))
if [ -n "$partner" ]; then
        wakeup="{\"samples\": $samples, \"median_us\": $median, \"p90_us\": $median, \"p99_us\": $p99, \"entries\": [$entries], \"method\": \"pipe\", \"gap_us\": $gap}"
        tentries=
else
        wakeup=null
        tentries=", \"entries\": [$entries]"
fi
# sweep points: entries one per wakeup into K, as above
sweep_json=null
if [ -n "$partner" ] && [ "$ssamples" -gt 0 ]; then
        points=
        for d in $(echo "$sweep" | tr , ' '); do
                slept=$ssamples awake=0
                [ "$d" = 2 ] && slept=$((ssamples / 4)) awake=$((ssamples - ssamples / 4))
                m=$((40 * k + 5 + cpu))
                [ "$k" != 0 ] && [ "$d" -lt 100 ] && m=$((m + 20))
                pe= i=0
                while [ $i -lt "$n" ]; do
                        e=0
                        [ $i = "$k" ] && e=$slept
                        pe="$pe${pe:+, }$e"
                        i=$((i + 1))
                done
                points="$points${points:+, }{\"idle_us\": $d, \"samples\": $slept, \"awake\": $awake, \"median_us\": $m.25, \"entries\": [$pe]}"
        done
        sweep_json="{\"method\": \"pipe\", \"samples\": $ssamples, \"points\": [$points]}"
fi
cat <<EOF
{"cpu": $cpu, "partner": ${partner:-null}, "states": [], "wakeup": $wakeup, "sweep": $sweep_json,
 "timer": {"samples": $tsamples, "median_us": $timer.0, "p99_us": $((timer + 20)).0$tentries}}
EOF
