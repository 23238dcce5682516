#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Checks the Prometheus rules with the real promtool: `promtool check rules`
# on the recording rules and the alerts, then `promtool test rules` on the
# unit test file (series in, recorded values and alerts out).  TAP output.
# Exits 77 when promtool is missing (Debian: apt-get install prometheus).
# Usage: check-rules.sh DIR (conf/prometheus)
set -u
if ! command -v promtool >/dev/null 2>&1; then
        echo "1..0 # SKIP promtool missing (apt-get install prometheus)"
        exit 77
fi
cd "$1" || exit 1
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
i=0
failed=0
for args in "check rules idlepolicy-rules.yml idlepolicy-alerts.yml" "test rules idlepolicy-rules.test.yml"; do
        i=$((i + 1))
        # shellcheck disable=SC2086 # args are words
        if promtool $args >"$out" 2>&1; then
                echo "ok $i - promtool $args"
        else
                echo "not ok $i - promtool $args"
                sed 's/^/#   /' "$out"
                failed=1
        fi
done
echo "1..$i"
exit $failed
