/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The wteo kernel governor's per-CPU files (kernel/README.md), read and
 * judged strictly: what the daemon shows in companion mode.
 *
 *   sys/devices/system/cpu/cpuN/wteo/tolerance   0..WTEO_ONE
 *   sys/devices/system/cpu/cpuN/wteo/matrix      n lines of n numbers in
 *                                                1/WTEO_ONE, each row
 *                                                summing to WTEO_ONE
 *
 * Both exist only while wteo governs CPU N.  Paths relative to the root
 * handle; no logging. */

#include <stdint.h>

#include "errinfo.h"
#include "wteo-core.h"

/* A matrix file is never larger than a sysfs page. */
#define WTEO_MATRIX_FILE_MAX 4096

typedef struct WteoMatrix {
        unsigned n;                                 /* states */
        uint16_t w[WTEO_STATES_MAX][WTEO_STATES_MAX];   /* row s: the timer pointed at s */
} WteoMatrix;

/* Parses a matrix file's text for a CPU with n states (1..WTEO_STATES_MAX):
 * exactly n lines (a final newline allowed), each exactly n decimal numbers
 * separated by single spaces, each row summing to WTEO_ONE.  Returns 0, or
 * -EBADMSG with e naming the reason ("line 2: 3 numbers, expected 2", "line
 * 1: sums to 1000, not 1024", ...); *ret untouched on failure. */
int wteo_matrix_parse(const char *text, unsigned n, WteoMatrix *ret, ErrorInfo *e);

/* Reads and parses cpu's matrix (n states).  The file must be a regular
 * file (never a FIFO: not blocked on) of at most WTEO_MATRIX_FILE_MAX
 * bytes.  Returns 0; -ENOENT when it does not exist (wteo does not govern
 * the CPU); -EBADMSG or another negative errno with e naming the reason. */
int wteo_matrix_read(int root_fd, unsigned cpu, unsigned n, WteoMatrix *ret, ErrorInfo *e);

/* Parses a tolerance ("102", 0..WTEO_ONE, a trailing newline allowed).
 * Returns 0 or -EBADMSG. */
int wteo_tolerance_parse(const char *text, uint32_t *ret);

/* Reads cpu's tolerance.  Returns 0, -ENOENT when it does not exist, or
 * -EBADMSG / another negative errno with e set. */
int wteo_tolerance_read(int root_fd, unsigned cpu, uint32_t *ret, ErrorInfo *e);
