#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live test of idlepolicy-calibrate on this machine's real cpuidle: measures
# CPU 1 (woken from CPU 0) with only the polling state allowed, then with
# only the first non-polling state allowed (on this KVM guest: POLL and
# "haltpoll idle"), checks that the JSON is sane (the idle-duration sweep
# too), that the helper changed no knob, and that the machine is left
# exactly as found (every CPU's disable bits and resume latency, the
# governor, the haltpoll parameters) -- also when interrupted (trap on
# EXIT INT TERM).  Reports the numbers; asserts nothing about them (the
# mis-described verdict, the curve over POLL and the entry cost are
# printed as notes).
# TAP output.  Exits 77 when not root or without cpuidle.
# Usage: test-calibrate-live.sh PATH/TO/idlepolicy-calibrate [SAMPLES]
set -u
helper=${1:?usage: $0 idlepolicy-calibrate [SAMPLES]}
samples=${2:-2000}
timer_samples=$((samples / 2))
sweep_samples=$((samples / 10))
sweep_us=2,5,10,20,50,100,200,500,1000,2000

if [ "$(id -u)" -ne 0 ]; then
        echo "1..0 # SKIP needs root"
        exit 77
fi
SYS=/sys/devices/system/cpu
cpu=1 partner=0
if [ ! -d "$SYS/cpu1/cpuidle/state0" ] || [ "$(cat "$SYS/cpu1/online" 2>/dev/null || echo 1)" != 1 ]; then
        cpu=0 partner=
fi
if [ ! -d "$SYS/cpu$cpu/cpuidle/state0" ]; then
        echo "1..0 # SKIP no cpuidle states on CPU $cpu"
        exit 77
fi
if ! command -v python3 >/dev/null; then
        echo "1..0 # SKIP needs python3 to read the JSON"
        exit 77
fi

tmp=$(mktemp -d) || exit 1
n=0
failed=0
busy=

# Every knob the calibration may touch on any CPU, one "file=value" per line.
snapshot() {
        {
                for f in "$SYS"/cpu*/cpuidle/state*/disable "$SYS"/cpu*/power/pm_qos_resume_latency_us \
                         "$SYS"/cpuidle/current_governor /sys/module/haltpoll/parameters/*; do
                        [ -r "$f" ] && printf '%s=%s\n' "$f" "$(cat "$f")"
                done
        } | LC_ALL=C sort
}

# Puts back what the script changed (only the knobs that differ).
restore() {
        [ -f "$tmp/before" ] || return 0
        while IFS= read -r line; do
                f=${line%%=*} v=${line#*=}
                [ "$(cat "$f" 2>/dev/null)" = "$v" ] || echo "$v" >"$f" 2>/dev/null
        done <"$tmp/before"
}

cleanup() {
        restore
        rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/#   /' "$2"; }
check() { local what=$1; shift; if "$@" >"$tmp/out" 2>&1; then ok "$what"; else not_ok "$what" "$tmp/out"; fi; }

# The states of the target CPU: index of POLL and of the first other state.
poll= halt=
for d in "$SYS/cpu$cpu"/cpuidle/state*; do
        k=${d##*state}
        if [ "$(cat "$d/name")" = POLL ]; then
                [ -z "$poll" ] && poll=$k
        elif [ -z "$halt" ]; then
                halt=$k
        fi
done
if [ -z "$poll" ] || [ -z "$halt" ]; then
        echo "1..0 # SKIP CPU $cpu lacks a polling or a non-polling state"
        exit 77
fi
halt_name=$(cat "$SYS/cpu$cpu/cpuidle/state$halt/name")
halt_latency=$(cat "$SYS/cpu$cpu/cpuidle/state$halt/latency")

snapshot >"$tmp/before"
echo "1..14"
echo "# CPU $cpu${partner:+ woken from CPU $partner}, governor $(cat "$SYS/cpuidle/current_governor"), $samples wakeups per run"

# Allows only state $1 on the target CPU, with resume latency $2, as the
# daemon's calibration does; $3 = nopoll also closes the haltpoll poll
# window (the haltpoll governor polls before halting even with POLL
# disabled).
POLL_NS=/sys/module/haltpoll/parameters/guest_halt_poll_ns
allow_only() {
        local d
        echo 0 >"$SYS/cpu$cpu/cpuidle/state$1/disable" || return 1
        for d in "$SYS/cpu$cpu"/cpuidle/state*; do
                [ "${d##*state}" = "$1" ] || echo 1 >"$d/disable" || return 1
        done
        echo "$2" >"$SYS/cpu$cpu/power/pm_qos_resume_latency_us" || return 1
        if [ "${3:-}" = nopoll ] && [ -w "$POLL_NS" ]; then
                echo 0 >"$POLL_NS"
        fi
}

# Runs the helper into $tmp/$1.json (allowed state $2) and checks that it
# changed no knob.  Other load on the machine can keep the CPU from idling
# during a run: up to three attempts until it idled in the allowed state.
measure() {
        local tag=$1 allowed=$2 attempt
        snapshot >"$tmp/set-$tag"
        for attempt in 1 2 3; do
                if ! "$helper" --cpu "$cpu" ${partner:+--partner "$partner"} --samples "$samples" \
                        --timer-samples "$timer_samples" --gap-us 1000 --sweep-us "$sweep_us" \
                        --sweep-samples "$sweep_samples" --json >"$tmp/$tag.json" 2>"$tmp/$tag.err"; then
                        not_ok "$tag: idlepolicy-calibrate succeeds" "$tmp/$tag.err"
                        return
                fi
                idled "$tag" "$allowed" >"$tmp/$tag.idled" && break
                echo "# $tag, attempt $attempt: CPU $cpu did not idle in the allowed state: $(cat "$tmp/$tag.idled")"
                [ "$attempt" = 3 ] || sleep 5
        done
        ok "$tag: idlepolicy-calibrate succeeds"
        snapshot >"$tmp/after-$tag"
        check "$tag: the helper changed no knob" diff "$tmp/set-$tag" "$tmp/after-$tag"
        check "$tag: the JSON is sane" sane "$tag" "$allowed"
        if idled "$tag" "$allowed" >"$tmp/$tag.idled"; then
                sweep_sane "$tag" >"$tmp/out" 2>&1
                case $? in
                0) ok "$tag: the sweep is sane" ;;
                2) why="CPU $cpu kept busy through the sweep (load average $(cut -d' ' -f1 /proc/loadavg)): $(sed -n 's/^BUSY //p' "$tmp/out")"
                   ok "$tag: the sweep is sane # SKIP $why"
                   busy="${busy:+$busy; }$tag: $why" ;;
                *) not_ok "$tag: the sweep is sane" "$tmp/out" ;;
                esac
                ok "$tag: CPU $cpu idled in the allowed state"
        else
                # Other work kept the CPU busy through three runs: what
                # depends on its idling measured something else.
                why="CPU $cpu did not idle in the allowed state in 3 runs (load average $(cut -d' ' -f1 /proc/loadavg)): $(cat "$tmp/$tag.idled")"
                ok "$tag: the sweep is sane # SKIP $why"
                ok "$tag: CPU $cpu idled in the allowed state # SKIP $why"
                busy="${busy:+$busy; }$tag: $why"
        fi
}

# Exits 0 if, in every phase of run $1, the CPU entered the allowed state
# $2 at least once per two samples and the other states at most once per
# ten entries into it (the daemon's rule: else the CPU was busy or kept out
# of the state, and the figures measure something else).
idled() {
        python3 - "$tmp/$1.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
allowed = int(sys.argv[2])
bad = []
for n in ("wakeup", "timer"):
    p = d.get(n)
    if not p:
        continue
    mine, others = p["entries"][allowed], sum(p["entries"]) - p["entries"][allowed]
    if 2 * mine < p["samples"] or 10 * others > mine:
        bad.append("%s: entries %s for %d samples" % (n, p["entries"], p["samples"]))
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
}

# Checks the JSON of run $1 (allowed state $2): one state enabled, the
# sample counts asked for, ordered percentiles, entries for every state.
sane() {
        python3 - "$tmp/$1.json" "$2" "$samples" "$timer_samples" "${partner:-none}" <<'EOF'
import json, sys
path, allowed, samples, timer_samples, partner = sys.argv[1:]
allowed, samples, timer_samples = int(allowed), int(samples), int(timer_samples)
d = json.load(open(path))
problems = []
states = d["states"]
if [i for i, s in enumerate(states) if not s["disabled"]] != [allowed]:
    problems.append("states %s: expected only %d enabled" % (states, allowed))
phases = [("timer", timer_samples)] + ([("wakeup", samples)] if partner != "none" else [])
for name, n in phases:
    p = d[name]
    if p["samples"] != n:
        problems.append("%s: %d samples, expected %d" % (name, p["samples"], n))
    if not 0 <= p["min_us"] <= p["median_us"] <= p["p90_us"] <= p["p99_us"] <= p["max_us"]:
        problems.append("%s: percentiles out of order: %s" % (name, p))
    if len(p["entries"]) != len(states):
        problems.append("%s: entries %s for %d states" % (name, p["entries"], len(states)))
if partner == "none" and d["wakeup"] is not None:
    problems.append("wakeup measured without a partner")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
}

# Checks the sweep of run $1: null without a partner; else every duration
# asked for in order, the wakeups asked for at each (those that found the
# CPU idle and the others), ordered percentiles, entries for every state,
# at least 3 durations that count, entry_us and residency_us (one of the
# durations, or 0) present.
sweep_sane() {
        python3 - "$tmp/$1.json" "$sweep_samples" "$sweep_us" "${partner:-none}" <<'EOF'
import json, sys
path, n, durations, partner = sys.argv[1:]
n, durations = int(n), [int(x) for x in durations.split(",")]
d = json.load(open(path))
sw = d["sweep"]
problems = []
if partner == "none":
    if sw is not None:
        problems.append("a sweep without a partner")
else:
    points = sw["points"]
    if [p["idle_us"] for p in points] != durations:
        problems.append("durations %s, expected %s" % ([p["idle_us"] for p in points], durations))
    for p in points:
        if p["samples"] + p["awake"] != n:
            problems.append("%d us: %d + %d wakeups, expected %d" % (p["idle_us"], p["samples"], p["awake"], n))
        if p["samples"] and not 0 <= p["min_us"] <= p["median_us"] <= p["p90_us"] <= p["p99_us"] <= p["max_us"]:
            problems.append("%d us: percentiles out of order: %s" % (p["idle_us"], p))
        if len(p["entries"]) != len(d["states"]):
            problems.append("%d us: entries %s" % (p["idle_us"], p["entries"]))
    if sum(p["valid"] for p in points) < 3:
        few = "fewer than 3 durations count: %s" % [(p["idle_us"], p["awake"], p["entries"]) for p in points]
        # A point counts when the CPU entered the allowed state in 9 of 10
        # wakeups (point_valid()): where it did not, other work kept it busy.
        busy = [p for p in points if not p["valid"] and 10 * sum(p["entries"]) < 9 * (p["samples"] + p["awake"])]
        if len(points) - len(busy) < 3 and not problems:
            print("BUSY " + few)
            sys.exit(2)
        problems.append(few)
    if not isinstance(sw["entry_us"], int) or sw["entry_us"] < 0:
        problems.append("entry_us %r" % sw["entry_us"])
    if sw["residency_us"] not in [0] + durations:
        problems.append("residency_us %r" % sw["residency_us"])
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
}

numbers() {
        python3 - "$tmp/$1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for name in ("wakeup", "timer"):
    p = d.get(name)
    if p:
        print("%-6s median %7.2f us  p90 %7.2f us  p99 %8.2f us  (min %.2f, max %.2f, entries %s)" % (
            name, p["median_us"], p["p90_us"], p["p99_us"], p["min_us"], p["max_us"], p["entries"]))
EOF
}

check "only POLL allowed on CPU $cpu (resume latency n/a)" allow_only "$poll" n/a
measure poll "$poll"
numbers poll | sed 's/^/# poll: /'

check "only \"$halt_name\" allowed on CPU $cpu (resume latency 0, no poll window)" allow_only "$halt" 0 nopoll
measure halt "$halt"
numbers halt | sed 's/^/# halt: /'

python3 - "$tmp/poll.json" "$tmp/halt.json" "$halt_latency" "$halt_name" <<'EOF' | sed 's/^/# /'
import json, sys
poll, halt = (json.load(open(p)) for p in sys.argv[1:3])
advertised, name = int(sys.argv[3]), sys.argv[4]
key = "wakeup" if poll.get("wakeup") else "timer"
extra = halt[key]["median_us"] - poll[key]["median_us"]
p99 = halt[key]["p99_us"] - poll[key]["p99_us"]
limit = 4 * advertised + 10
print("\"%s\": %s median %.2f us over POLL (p99 %+.2f us), advertised exit latency %d us" % (name, key, extra, p99, advertised))
print("mis-described (wakeup_us > 4 x %d + 10 = %d us): %s" % (advertised, limit, "yes" if extra > limit else "no"))
if poll.get("sweep") and halt.get("sweep"):
    base = {p["idle_us"]: p for p in poll["sweep"]["points"] if p["valid"]}
    curve = [(p["idle_us"], p["median_us"] - base[p["idle_us"]]["median_us"]) for p in halt["sweep"]["points"]
             if p["valid"] and p["idle_us"] in base]
    print("\"%s\" over POLL after an idle of: %s" % (name, ", ".join("%d us %+.1f" % c for c in curve)))
    print("the helper's own derivation (no baseline): POLL entry %d us, flat from %d us; \"%s\" entry %d us, "
          "flat from %d us (0: none)" % (poll["sweep"]["entry_us"], poll["sweep"]["residency_us"], name,
                                        halt["sweep"]["entry_us"], halt["sweep"]["residency_us"]))
EOF

restore
snapshot >"$tmp/after"
check "every knob is back as found" diff "$tmp/before" "$tmp/after"
check "the governor is unchanged" grep -qx "$SYS/cpuidle/current_governor=$(cat "$SYS/cpuidle/current_governor")" "$tmp/before"
[ "$failed" -eq 0 ] || exit 1
if [ -n "$busy" ]; then
        echo "calibrate-live: skipped, nothing was measured: $busy" >&2
        exit 77
fi
