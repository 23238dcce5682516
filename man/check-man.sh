#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Renders each manual page as man(1) would, at 80 columns, and fails on any
# groff warning or an empty page.  Exits 77 when neither man nor groff is
# installed (apt-get install man-db groff-base).
# Usage: check-man.sh PAGE...
set -u
if command -v man >/dev/null 2>&1; then
        render() { MANWIDTH=80 MAN_KEEP_FORMATTING= man -l --warnings=w "$1"; }
elif command -v groff >/dev/null 2>&1; then
        render() { groff -man -Tutf8 -ww -rLL=80n "$1"; }
else
        echo "1..0 # SKIP neither man nor groff is installed"
        exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
for page in "$@"; do
        n=$((n + 1))
        name=$(basename "$page")
        render "$page" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ $rc -ne 0 ] || [ -s "$tmp/err" ] || ! grep -q '[[:alpha:]]' "$tmp/out"; then
                echo "not ok $n - $name (exit $rc)"
                sed 's/^/#   /' "$tmp/err"
                [ -s "$tmp/out" ] || echo "#   empty output"
                failed=$((failed + 1))
        else
                echo "ok $n - $name ($(wc -l <"$tmp/out") lines)"
        fi
done
echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
