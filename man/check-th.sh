#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every manual page's .TH line agrees with the others and with meson: the
# title is the file's name in capitals, the section its suffix, one date
# for all pages, and "idlepolicyd VERSION" with meson's project version.
# Usage: check-th.sh VERSION PAGE...
set -u
version=$1
shift
n=0
failed=0
dates=
for page in "$@"; do
        n=$((n + 1))
        name=$(basename "$page")
        line=$(grep -m1 '^\.TH ' "$page")
        # .TH TITLE SECTION "DATE" "SOURCE" "MANUAL"
        eval "set -- ${line#.TH }"
        want_title=$(echo "${name%.*}" | tr 'a-z' 'A-Z')
        problems=
        [ "${1:-}" = "$want_title" ] || problems="$problems title '${1:-}' (want '$want_title');"
        [ "${2:-}" = "${name##*.}" ] || problems="$problems section '${2:-}' (want '${name##*.}');"
        [ "${4:-}" = "idlepolicyd $version" ] || problems="$problems source '${4:-}' (want 'idlepolicyd $version');"
        [ -n "${3:-}" ] || problems="$problems no date;"
        dates=$(printf '%s\n%s' "$dates" "${3:-}")
        if [ -n "$problems" ]; then
                echo "not ok $n - $name:$problems"
                failed=$((failed + 1))
        else
                echo "ok $n - $name: $line"
        fi
done
n=$((n + 1))
if [ "$(printf '%s\n' "$dates" | sed '/^$/d' | sort -u | wc -l)" -eq 1 ]; then
        echo "ok $n - one date on every page"
else
        echo "not ok $n - the pages' dates differ:$(printf '%s\n' "$dates" | sed '/^$/d' | sort -u | tr '\n' ' ')"
        failed=$((failed + 1))
fi
echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
