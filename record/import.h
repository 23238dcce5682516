/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* idlepolicy-record --from: saved ftrace text (tracefs "trace" or
 * "trace_pipe" output, "trace-cmd report" output, --save-raw copies; plain
 * or gzip) turned into an idle trace through the same line feed and
 * reconstruction as a live recording (line-feed.h, ftrace-idle.h). */

#include <signal.h>
#include <stdint.h>

/* Exit status for input that is not usable ftrace text (input-file.h's
 * errors, or no event in it). */
#define IMPORT_EXIT_BAD_INPUT 3

/* CPUs an imported trace may name (events of higher CPUs are ignored). */
#define IMPORT_CPUS_MAX 8192u

typedef struct ImportOptions {
        const char *from;               /* path or "-" */
        const char *output;
        uint64_t max_bytes;             /* of text; 0: no limit */
} ImportOptions;

/* Imports (until the end of the input, or *stop becomes non-zero: then
 * nothing is written), writes the trace, prints the summary.  Returns the exit status:
 * 0, 1 (I/O, memory), IMPORT_EXIT_BAD_INPUT. */
int import_run(const ImportOptions *o, volatile const sig_atomic_t *stop);
