#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Checks the Prometheus rules with the real promtool: `promtool check rules`
# on the recording rules and the alerts, then `promtool test rules` on the
# unit test file (series in, recorded values and alerts out).  Exits 77
# when promtool is missing (Debian: apt-get install prometheus).
# Usage: check-rules.sh DIR (conf/prometheus)
set -u
dir=$1
if ! command -v promtool >/dev/null 2>&1; then
        echo "1..0 # SKIP promtool missing (apt-get install prometheus)"
        exit 77
fi
n=0
failed=0
check() {
        name=$1
        shift
        n=$((n + 1))
        if out=$("$@" 2>&1); then
                echo "ok $n - $name"
        else
                echo "not ok $n - $name"
                printf '%s\n' "$out" | sed 's/^/#   /'
                failed=$((failed + 1))
        fi
}
cd "$dir" || exit 1
check "promtool check rules" promtool check rules idlepolicy-rules.yml idlepolicy-alerts.yml
check "promtool test rules" promtool test rules idlepolicy-rules.test.yml
echo "1..$n"
[ "$failed" -eq 0 ]
