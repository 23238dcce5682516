/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record-output.h"
#include "timer-track.h"

double record_output_pct(size_t part, size_t whole) {
        return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

void record_output_cpu_table(const FtraceIdle *p, const Trace *t, const KernelCount *kc) {
        FtraceIdleTotals tot;

        ftrace_idle_totals(p, &tot);
        fprintf(stderr, "%-4s %-12s %9s %9s %8s %10s %8s %7s %7s\n", "CPU", "SOURCE", "INTERVALS", "KERNEL", "TIMER%",
                "PREDICTED%", "SLEEP%", "DROPPED", "LOST");
        for (unsigned c = 0; c < t->header.n_cpus; c++) {
                FtraceIdleCpuStats s;
                uint64_t n_kernel;
                char kernel[24] = "-";
                if (ftrace_idle_cpu_stats(p, c, &s) < 0)
                        continue;
                if (kc && kernel_count_get(kc, c, &n_kernel))
                        snprintf(kernel, sizeof(kernel), "%llu", (unsigned long long) n_kernel);
                fprintf(stderr, "%-4u %-12s %9zu %9s %7.1f%% %9.1f%% %7.1f%% %7zu %7llu", c,
                        trace_source_to_string(s.source), s.n_intervals, kernel,
                        record_output_pct(s.n_wake_timer, s.n_intervals),
                        record_output_pct(s.n_at_predicted, s.n_intervals),
                        record_output_pct(s.n_sleep_known, s.n_intervals), s.n_dropped,
                        (unsigned long long) s.lost_events);
                if (s.source == TRACE_SOURCE_CPU_IDLE && s.n_irq_bounded > 0)
                        fprintf(stderr, "  (irq-bounded check: %.1f%% found, median error %+.1f us)",
                                record_output_pct(s.n_cross_found, s.n_cpu_idle), (double) s.cross_median_error_ns / 1000.0);
                fputc('\n', stderr);
        }
        fprintf(stderr, "KERNEL: idle entries the kernel counted while tracing was on; TIMER%%: woken by a timer interrupt; PREDICTED%%: ...within %llu us after the predicted "
                "timer; SLEEP%%: sleep length known.\n", TIMER_LAG_MAX_NS / 1000);
        if (tot.lost > 0)
                fprintf(stderr, "The kernel lost %llu events (periods around them are left out): "
                        "use a larger --buffer-kb.\n", (unsigned long long) tot.lost);
}

int record_output_write(const char *output, const Trace *t) {
        FILE *f = strcmp(output, "-") == 0 ? stdout : fopen(output, "we");
        int r;

        if (!f)
                return -errno;
        r = trace_write(f, t);
        if (f == stdout && fflush(f) != 0 && r == 0)
                r = -errno;
        if (f != stdout && fclose(f) != 0 && r == 0)
                r = -errno;
        return r;
}
