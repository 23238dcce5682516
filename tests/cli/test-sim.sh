#!/bin/sh
# idlepolicy-sim from the outside: usage errors exit 2, runtime errors 1,
# markdown and JSON reports, --bench, --disable, trace replay.
#   test-sim.sh BINARY TABLES_DIR
set -u
sim=$1
tables=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
        echo "FAIL: $*"
        fails=$((fails + 1))
}

# expect CODE CMD...: runs CMD, output in $tmp/out and $tmp/err
expect() {
        code=$1
        shift
        "$@" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ "$rc" = "$code" ] || fail "exit $rc (wanted $code): $* -- $(head -c 300 "$tmp/err")"
}

contains() {
        grep -qF -- "$2" "$1" || fail "$1 lacks: $2"
}

expect 0 "$sim" --help
contains "$tmp/out" "Usage: idlepolicy-sim"
expect 0 "$sim" --version
expect 2 "$sim"
contains "$tmp/err" "nothing to replay"
expect 2 "$sim" -w pgbench
contains "$tmp/err" "no state table"
expect 2 "$sim" -w nosuch -T skylake-sp --tables-dir "$tables"
contains "$tmp/err" 'unknown workload "nosuch"'
expect 2 "$sim" -w pgbench:rtt=3 -T skylake-sp --tables-dir "$tables"
contains "$tmp/err" 'unknown parameter "rtt"'
expect 2 "$sim" -w pgbench -T skylake-sp -g nosuch --tables-dir "$tables"
expect 2 "$sim" -w pgbench -T skylake-sp -P nosuch=1 --tables-dir "$tables"
expect 2 "$sim" -w pgbench -T skylake-sp -n 0 --tables-dir "$tables"
expect 2 "$sim" -w pgbench -T skylake-sp --disable C9 --tables-dir "$tables"
expect 1 "$sim" -w pgbench -T nosuch --tables-dir "$tables"
contains "$tmp/err" "Failed to open table"
printf 'POLL 0 0 polling\nC1 two 2\n' >"$tmp/bad.table"
expect 1 "$sim" -w pgbench -T "$tmp/bad.table"
contains "$tmp/err" "line 2: exit latency: not a number"

expect 0 "$sim" --list --tables-dir "$tables"
contains "$tmp/out" "power9-dd1"
contains "$tmp/out" "wtteo-rfc"
contains "$tmp/out" "wteo"
contains "$tmp/out" "timer-sweep"

# Markdown: a row per governor, the oracle at 1.000.
expect 0 "$sim" -w pgbench -n 5000 -T skylake-sp -g teo,menu --tables-dir "$tables" --per-state
contains "$tmp/out" "| pgbench | skylake-sp | teo | 5000 |"
contains "$tmp/out" "| pgbench | skylake-sp | menu | 5000 |"
contains "$tmp/out" "| pgbench | skylake-sp | oracle | 5000 | 100.0 | 0.0 | 0.0 | 1.000 |"
contains "$tmp/out" "### pgbench on skylake-sp"
cp "$tmp/out" "$tmp/first"
expect 0 "$sim" -w pgbench -n 5000 -T skylake-sp -g teo,menu --tables-dir "$tables" --per-state
cmp -s "$tmp/out" "$tmp/first" || fail "same seed, different report"

# JSON: the documented keys, every governor, haltpoll skipped on Intel.
expect 0 "$sim" -w ebizzy -w idle -n 3000 -T skylake-sp,kvm-haltpoll -g all --json --tables-dir "$tables"
python3 - "$tmp/out" <<'PY' || fail "JSON check"
import json, sys
d = json.load(open(sys.argv[1]))
keys = {"workload", "table", "governor", "intervals", "correct_pct", "too_deep_pct",
        "too_shallow_pct", "energy", "latency_penalty_us", "regret_pct"}
rows = d["rows"]
assert all(keys <= set(r) for r in rows), "missing keys"
assert len(rows) == 2 * (11 + 10), len(rows)
assert all(r["energy"] == 1.0 for r in rows if r["governor"] == "oracle")
assert {s["governor"] for s in d["skipped"]} == {"haltpoll"}
assert all(abs(r["correct_pct"] + r["too_deep_pct"] + r["too_shallow_pct"] - 100) < 0.01 for r in rows)
PY

# --disable and --latency-limit reach the replay.
expect 0 "$sim" -w idle -n 3000 -T skylake-sp -g oracle --disable C6 --json --tables-dir "$tables"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["rows"][0]["states"]; assert s[3]["entries"] == 0, s' "$tmp/out" || fail "--disable"
expect 0 "$sim" -w idle -n 3000 -T skylake-sp -g teo --latency-limit 50 --json --tables-dir "$tables"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(r["states"][3]["entries"] == 0 for r in d["rows"])' "$tmp/out" || fail "--latency-limit"

# teo-range: fixed plans.  The whole range is teo; not in "all"; a floor
# above its cap is a usage error; a floor the table lacks is not applicable.
expect 0 "$sim" -w pgbench -n 5000 -T skylake-sp -g teo,teo-range --tables-dir "$tables"
sed -n 's/| teo-range |/| teo |/p' "$tmp/out" >"$tmp/range"
grep -qxF -f "$tmp/range" "$tmp/out" && [ -s "$tmp/range" ] || fail "teo-range over every state differs from teo"
expect 0 "$sim" -w pgbench -n 5000 -T skylake-sp -g teo-range -P floor=2 -P cap=2 --json --tables-dir "$tables"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["rows"][0]["states"]; assert [x["entries"] > 0 for x in s] == [False, False, True, False], s' "$tmp/out" || fail "teo-range floor=cap=2"
expect 2 "$sim" -w pgbench -T skylake-sp -g teo-range -P floor=3 -P cap=1 --tables-dir "$tables"
contains "$tmp/err" "floor is above cap"
expect 2 "$sim" -w pgbench -T skylake-sp -g teo-range -P share2=2 --tables-dir "$tables"
# wteo: its parameters, a shift out of range refused.
expect 0 "$sim" -w pgbench -n 3000 -T skylake-sp -g wteo -P wteo_tolerance=0 -P wteo_learn_shift=3 --tables-dir "$tables"
contains "$tmp/out" "| pgbench | skylake-sp | wteo | 3000 |"
expect 2 "$sim" -w pgbench -T skylake-sp -g wteo -P wteo_learn_shift=0 --tables-dir "$tables"
expect 2 "$sim" -w pgbench -T skylake-sp -g wteo -P wteo_tolerance=2000 --tables-dir "$tables"
expect 0 "$sim" -w pgbench -n 3000 -T kvm-haltpoll -g teo-range -P floor=3 -P cap=3 --json --tables-dir "$tables"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [r["governor"] for r in d["rows"]] == ["oracle"] and "no state at the plan" in d["skipped"][0]["reason"], d' "$tmp/out" || fail "teo-range floor beyond the table"
expect 0 "$sim" --list --tables-dir "$tables"
contains "$tmp/out" "teo-range"
contains "$tmp/out" "[not in all]"

expect 0 "$sim" --bench -w schbench -n 20000 -T power9 -g teo --tables-dir "$tables"
contains "$tmp/out" "| schbench | power9 | teo | 20000 |"

# A recorded trace replays on its own table (from the header).
cat >"$tmp/t.trace" <<'TR'
# idlepolicy-trace 1
# recorded 1.0 s, 2 cpus, driver intel_idle
# state 0 0 0 POLL
# state 1 2 2 C1
# state 2 10 20 C1E
# state 3 133 600 C6
# cpu 0 source cpu_idle
# cpu 1 source irq-bounded
cpu,start_ns,duration_ns,state,sleep_length_ns,wake,miss
0,1000000,50000,2,4000000,other,none
1,1010000,700000,3,690000,timer,none
0,1100000,5000,2,-,other,above
0,1200000,800000,3,780000,timer,none
# end 4
TR
expect 0 "$sim" -t "$tmp/t.trace" -g teo,menu
contains "$tmp/out" "| t.trace | t.trace | teo | 4 |"
contains "$tmp/out" "| t.trace | t.trace | oracle | 4 | 100.0 |"
printf '# idlepolicy-trace 1\ngarbage\n' >"$tmp/bad.trace"
expect 1 "$sim" -t "$tmp/bad.trace"
contains "$tmp/err" "bad.trace"

# A trace recorded on a KVM guest carries the advertised table ("haltpoll
# idle" 1 us): every governor looks right on it, and the report says so.
# --calibration takes the measured costs from idlepolicyd's calibration.json.
cat >"$tmp/kvm.trace" <<'TR'
# idlepolicy-trace 1
# recorded 1.0 s, 1 cpus, driver haltpoll
# state 0 0 0 POLL
# state 1 1 1 haltpoll idle
# cpu 0 source cpu_idle
cpu,start_ns,duration_ns,state,sleep_length_ns,wake,miss
0,1000000,20000,1,4000000,other,none
0,1100000,20000,1,4000000,other,none
0,1200000,20000,1,4000000,other,none
0,1300000,20000,1,4000000,other,none
# end 4
TR
cat >"$tmp/calibration.json" <<'CAL'
{ "version": 1, "realtime_usec": 1795741284716875, "driver": "haltpoll",
  "cpus": [ { "cpu": 0, "states": [
    { "name": "POLL", "measured": true, "advertised_latency_us": 0, "wakeup_us": 0, "wakeup_p99_us": 0,
      "timer_late_us": 5, "misdescribed": false, "entry_us": 0, "residency_us": 0, "curve": [] },
    { "name": "haltpoll idle", "measured": true, "advertised_latency_us": 1, "wakeup_us": 50, "wakeup_p99_us": 100,
      "timer_late_us": 55, "misdescribed": true, "entry_us": 0, "residency_us": 0, "curve": [] } ] } ] }
CAL
expect 0 "$sim" -t "$tmp/kvm.trace" -g teo
contains "$tmp/out" "| kvm.trace | kvm.trace | teo | 4 | 100.0 | 0.0 | 0.0 |"
contains "$tmp/out" "- kvm.trace: the trace's advertised costs, taken as real"
contains "$tmp/out" "--calibration FILE (idlepolicyd's calibration.json) replays with the measured ones"
expect 0 "$sim" -t "$tmp/kvm.trace" -g teo --calibration "$tmp/calibration.json"
contains "$tmp/out" "| kvm.trace | kvm.trace | teo | 4 | 0.0 | 100.0 | 0.0 |"
contains "$tmp/out" "- kvm.trace: calibrated: 2 of 2 states measured ($tmp/calibration.json)"
grep -qF -- "--calibration FILE" "$tmp/out" && fail "the hint stays after --calibration"
expect 0 "$sim" -t "$tmp/kvm.trace" -g teo --calibration "$tmp/calibration.json" --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"]; assert all(x["costs"].startswith("calibrated: 2 of 2") for x in r), r' "$tmp/out" || fail "--calibration JSON"
# The same on a named table; a calibration of other states, or none, is refused.
expect 0 "$sim" -w idle -n 2000 -T kvm-haltpoll -g teo --calibration "$tmp/calibration.json" --tables-dir "$tables"
contains "$tmp/out" "- kvm-haltpoll: calibrated: 2 of 2 states measured"
sed 's/"POLL"/"FOO"/; s/"haltpoll idle"/"BAR"/' "$tmp/calibration.json" >"$tmp/other.json"
expect 1 "$sim" -t "$tmp/kvm.trace" -g teo --calibration "$tmp/other.json"
contains "$tmp/err" "measured no state of the tables"
expect 1 "$sim" -t "$tmp/kvm.trace" --calibration "$tmp/nosuch.json"
contains "$tmp/err" "Failed to read calibration"
printf '{"version": 1}' >"$tmp/bad.json"
expect 1 "$sim" -t "$tmp/kvm.trace" --calibration "$tmp/bad.json"
contains "$tmp/err" "bad.json"

[ "$fails" = 0 ] || exit 1
echo "sim-cli: all checks passed"
