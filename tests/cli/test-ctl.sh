#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# idlepolicyctl without a daemon: help, version, usage errors (exit 2), no
# bus / no daemon (exit 1, clear message).  Usage: test-ctl.sh CTL VERSION
set -u
ctl=$1
version=$2
tmp=$(mktemp -d)
bus_pid=
trap 'test -n "$bus_pid" && kill "$bus_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
n=0
failed=0

# expect EXIT PATTERN ARGS...: runs ctl, checks the exit status and that
# stdout+stderr contain PATTERN (grep -E).
expect() {
        want=$1 pattern=$2
        shift 2
        n=$((n + 1))
        "$ctl" "$@" >"$tmp/out" 2>&1
        got=$?
        if [ "$got" -ne "$want" ] || ! grep -Eq -- "$pattern" "$tmp/out"; then
                echo "not ok $n - idlepolicyctl $* (exit $got, want $want, /$pattern/)"
                sed 's/^/#   /' "$tmp/out"
                failed=$((failed + 1))
        else
                echo "ok $n - idlepolicyctl $*"
        fi
}

export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/no-such-socket"

expect 0 '^Usage: idlepolicyctl' --help
expect 0 "^idlepolicyctl $version\$" --version
expect 2 "unknown command 'frobnicate'" frobnicate
expect 2 "unknown option '--bogus'" --bogus status
expect 2 "option '--cpu' needs an argument" state disable POLL --cpu
expect 2 "'state' needs 2 arguments" state disable
expect 2 "too many arguments for 'status'" status extra
expect 2 "'governor' does not take --cpu" governor --cpu 1
expect 2 "unknown action 'toggle'" state toggle POLL
expect 2 "invalid CPU list '1-x'" state disable POLL --cpu 1-x
expect 2 "invalid CPU list ''" resume-latency 5 --cpu ''
expect 2 "invalid resume latency 'soon'" resume-latency soon
expect 2 "unknown mode 'auto'" mode auto
expect 2 "too many arguments for 'profile'" profile a b
expect 2 "'profile' does not take --cpu" profile --cpu 1
expect 2 "'weights' needs one CPU" weights
expect 2 "'weights' needs one CPU" weights --cpu 0-1
expect 2 "too many arguments for 'calibrate'" calibrate now
expect 2 "'pin' needs 1 argument" pin --profile latency
expect 2 "'pin' needs --profile NAME" pin pid:1 --cpus 1
expect 2 "'pin' does not take --app-id" pin pid:1 --profile latency --app-id x
expect 2 "'pins' does not take --cpus" pins --cpus 1
expect 2 "'status' does not take --profile" status --profile latency
expect 2 "invalid pin 'x'" unpin x
expect 2 "invalid pin '0'" unpin 0
expect 2 "'hold' needs 1 argument" hold
expect 2 "'hold' does not take --profile" hold latency --profile latency
expect 2 "'launch' needs 1 argument" launch --profile latency
expect 2 "'launch' needs --profile NAME" launch -- true
expect 2 "option '--cpus' needs an argument" launch --profile latency --cpus
expect 2 "too many arguments for 'metrics'" metrics prometheus now
expect 2 "unknown metrics format 'json' \\(openmetrics or prometheus\\)" metrics json
expect 2 "'metrics' prints a text format and takes no --json" --json metrics
expect 2 "'metrics' does not take --cpu" metrics --cpu 0
expect 1 'cannot connect to the system bus \(unix:path=.*no-such-socket\)' status
expect 1 '"message": "cannot connect to the system bus' --json governor

# A typo gets the command or option it most likely meant; help per command.
expect 2 "unknown command 'stauts'; did you mean 'status'\\?" stauts
expect 2 "unknown command 'profle'; did you mean 'profile'\\?" profle latency
expect 2 "unknown command 'calibrat'; did you mean 'calibrate'\\?" calibrat
expect 2 "unknown option '--jsno'; did you mean '--json'\\?" --jsno status
expect 2 "unknown option '--dryrun'; did you mean '--dry-run'\\?" profile latency --dryrun
expect 2 "Try 'idlepolicyctl state --help'" state toggle POLL
expect 0 '^Usage: idlepolicyctl \[OPTIONS\] COMMAND' help
expect 0 '^Usage: idlepolicyctl \[OPTIONS\] state enable\|disable STATE \[--cpu LIST\]' help state
expect 0 '^Usage: idlepolicyctl \[OPTIONS\] status \[--interval DURATION\]' status --help
expect 0 '^Usage: idlepolicyctl \[OPTIONS\] profile \[NAME \[--dry-run\]\]' profile latency -h
expect 2 "no command 'stauts'; did you mean 'status'\\?" help stauts
expect 2 "too many arguments for 'help'" help state mode
# Every command of the list has its page (and nothing else does).
for cmd in $("$ctl" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
        expect 0 "^Usage: idlepolicyctl \\[OPTIONS\\] $cmd" help "$cmd"
done

# The new options, checked before any bus.
expect 2 "invalid interval 'soon'" status --interval soon
expect 2 "invalid interval '0s'" status --interval 0s
expect 2 "invalid interval '2d'" status --interval 2d
expect 2 "'governor' does not take --interval" governor --interval 10s
expect 2 "'status' does not take --dry-run" status --dry-run
expect 2 "'state' does not take --dry-run" state disable POLL --dry-run
expect 2 "'profile --dry-run' needs the profile to preview" profile --dry-run
expect 2 "invalid CPU list '1-x'" idle-info --cpu 1-x
expect 2 "'idle-info' does not take --cpus" idle-info --cpus 1

# Without a bus or a daemon: how to start one.
expect 1 "no idlepolicyd either: start it with 'systemctl start idlepolicyd', or from a checkout 'sudo \./scripts/run-here'" status
mkdir "$tmp/here" && : >"$tmp/here/env"
RUN_HERE_DIR=$tmp/here expect 1 "scripts/run-here started one: '\. $tmp/here/env' in this shell" idle-info
unset RUN_HERE_DIR

# A bus without the daemon (and without activation): "not running".
if command -v dbus-daemon >/dev/null 2>&1; then
        cat >"$tmp/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$tmp/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
</busconfig>
CONF
        dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile --nosyslog >"$tmp/bus.log" 2>&1 &
        bus_pid=$!
        i=0
        while [ ! -S "$tmp/bus" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/bus"
        expect 1 'idlepolicyd is not running .*\(org\.freedesktop\.DBus\.Error\.ServiceUnknown\)' status
        expect 1 "idlepolicyd is not running on this bus; start it with 'systemctl start idlepolicyd', or from a checkout 'sudo \./scripts/run-here'" governor menu
        expect 1 '"name": "org\.freedesktop\.DBus\.Error\.ServiceUnknown"' --json state disable POLL --cpu 0
else
        echo "# dbus-daemon missing: skipping the not-running checks"
fi

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
