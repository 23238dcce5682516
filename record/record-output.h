/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a recording and an import both print and write: the per-CPU table
 * of the summary on standard error and the trace file. */

#include "ftrace-idle.h"
#include "kernel-count.h"
#include "trace-format.h"

/* The per-CPU table (source, intervals, the kernel's count from kc or "-"
 * when kc is NULL, timer wakes, ...) and the notes under it. */
void record_output_cpu_table(const FtraceIdle *p, const Trace *t, const KernelCount *kc);

/* Writes t to output ("-": standard output).  Returns 0 or -errno. */
int record_output_write(const char *output, const Trace *t);

/* The share part/whole in percent (0 for an empty whole). */
double record_output_pct(size_t part, size_t whole);
