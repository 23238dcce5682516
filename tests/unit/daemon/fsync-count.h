/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Counts the fsync calls of the code under test in n_fsync: a test that
 * includes this (one file per test program) links with -Wl,--wrap=fsync
 * (unit_link_args in meson.build). */

int __real_fsync(int fd);
int __wrap_fsync(int fd);

static unsigned n_fsync;

int __wrap_fsync(int fd) {
        n_fsync++;
        return __real_fsync(fd);
}
