# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by check-build and run-kunit: kernel_tree CACHE prints the path of
# Debian's linux-source-6.12 unpacked under CACHE with this folder's series
# applied, unpacking and applying only what changed since the last call
# (CACHE/linux is the tree, CACHE/series the series applied to it).  The
# caller holds CACHE/lock.  Exits 77 (skip) when the tarball is absent.

kernel_tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
kernel_series_dir=$(cd "$(dirname "$0")" && pwd)

kernel_series() {
        cat "$kernel_series_dir"/000[1-9]-*.patch
}

kernel_tree() {
        cache=$1
        if [ ! -r "$kernel_tarball" ]; then
                echo "kernel: $kernel_tarball absent (apt-get install linux-source-6.12): skipped" >&2
                exit 77
        fi
        stamp=$(stat -c '%s %Y' "$kernel_tarball")
        if [ ! -d "$cache/linux" ] || [ "$(cat "$cache/tarball" 2>/dev/null)" != "$stamp" ]; then
                rm -rf "$cache/linux" "$cache/series" "$cache/unpack"
                mkdir -p "$cache/unpack"
                tar -xJf "$kernel_tarball" -C "$cache/unpack"
                mv "$cache/unpack"/linux-source-6.12 "$cache/linux"
                rmdir "$cache/unpack"
                echo "$stamp" > "$cache/tarball"
        fi
        if ! kernel_series | cmp -s - "$cache/series"; then
                if [ -f "$cache/series" ] &&
                   ! (cd "$cache/linux" && patch -p1 -R -s --no-backup-if-mismatch) < "$cache/series" >/dev/null; then
                        # The old series does not come off: a fresh tree.
                        rm -rf "$cache/linux"
                        kernel_tree "$cache"
                        return
                fi
                rm -f "$cache/series"
                for p in "$kernel_series_dir"/000[1-9]-*.patch; do
                        (cd "$cache/linux" && patch -p1 -s --no-backup-if-mismatch --forward) < "$p" || {
                                echo "kernel: $(basename "$p") does not apply to linux-source-6.12" >&2
                                rm -rf "$cache/linux"   # half applied: unpack again next time
                                exit 1
                        }
                done
                kernel_series > "$cache/series"
        fi
        echo "$cache/linux"
}
