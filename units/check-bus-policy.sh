#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Loads the D-Bus policy into a private dbus-daemon whose defaults are those
# of a Debian system bus (nobody may own names or call methods), then checks
# that root may own org.idlepolicy.IdlePolicy1 and nobody else may.
# Exits 77 without dbus-daemon, busctl or setpriv, or when not run as root.
# Usage: check-bus-policy.sh BUS_POLICY
set -u
policy=$(realpath "$1")
for tool in dbus-daemon busctl setpriv; do
        if ! command -v $tool >/dev/null 2>&1; then
                echo "1..0 # SKIP $tool missing"
                exit 77
        fi
done
if [ "$(id -u)" -ne 0 ]; then
        echo "1..0 # SKIP needs root (owning the name as root, as nobody)"
        exit 77
fi

tmp=$(mktemp -d) || exit 1
chmod 755 "$tmp"
bus_pid=
trap 'test -n "$bus_pid" && kill "$bus_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cat >"$tmp/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$tmp/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
  </policy>
  <include>$policy</include>
</busconfig>
CONF
dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile --nosyslog >"$tmp/log" 2>&1 &
bus_pid=$!
i=0
while [ ! -S "$tmp/bus" ] && [ $i -lt 50 ] && kill -0 "$bus_pid" 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
done

n=0
failed=0
result() {
        n=$((n + 1))
        if [ "$1" -eq 0 ]; then
                echo "ok $n - $2"
        else
                echo "not ok $n - $2"
                sed 's/^/#   /' "$tmp/out" "$tmp/log"
                failed=$((failed + 1))
        fi
}

# request_name [COMMAND PREFIX...]: asks the bus for the name, run through
# the prefix (setpriv) if given.
request_name() {
        "$@" busctl --address="unix:path=$tmp/bus" call org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus RequestName su org.idlepolicy.IdlePolicy1 0
}

[ -S "$tmp/bus" ] >"$tmp/out" 2>&1
result $? "dbus-daemon accepts the policy"
request_name >"$tmp/out" 2>&1 && grep -qx 'u 1' "$tmp/out"
result $? "root may own org.idlepolicy.IdlePolicy1"
request_name setpriv --reuid=65534 --regid=65534 --clear-groups >"$tmp/out" 2>&1
grep -q 'Access denied' "$tmp/out"
result $? "nobody may not own org.idlepolicy.IdlePolicy1"

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
