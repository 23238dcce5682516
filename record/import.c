/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "import.h"
#include "input-file.h"
#include "line-feed.h"
#include "progress.h"
#include "record-output.h"

static void show_progress(Progress *pr, const InputFile *in, const LineFeed *lf, const char *name) {
        uint64_t done, size;

        if (!progress_due(pr, progress_now_ns()))
                return;
        input_file_position(in, &done, &size);
        if (size > 0)
                progress_show(pr, "Importing %s: %.1f of %.1f MiB (%.0f%%), %llu lines", name, (double) done / 1048576.0,
                              (double) size / 1048576.0, 100.0 * (double) done / (double) size,
                              (unsigned long long) lf->lines);
        else
                progress_show(pr, "Importing %s: %.1f MiB, %llu lines", name, (double) lf->bytes / 1048576.0,
                              (unsigned long long) lf->lines);
}

/* Reads the whole input into lf.  Returns 0 or -errno / an input error. */
static int read_all(InputFile *in, LineFeed *lf, const char *name, volatile const sig_atomic_t *stop) {
        static char buf[1 << 16];
        Progress pr;
        ssize_t n;
        int r = 0;

        progress_init(&pr, stderr, progress_now_ns());
        while (r >= 0 && !*stop && (n = input_file_read(in, buf, sizeof(buf))) != 0) {
                r = n < 0 ? (int) n : line_feed_push(lf, buf, (size_t) n);
                show_progress(&pr, in, lf, name);
        }
        progress_end(&pr);
        if (r >= 0 && *stop)
                r = -EINTR;
        return r < 0 ? r : line_feed_finish(lf);
}

/* Says why the input was refused.  Returns the exit status. */
static int report_error(const ImportOptions *o, const LineFeed *lf, int r) {
        const char *name = strcmp(o->from, "-") == 0 ? "standard input" : o->from;
        const char *what = input_error_name(r);

        if (r == -ERANGE)
                fprintf(stderr, "%s: states more CPUs than %u.\n", name, IMPORT_CPUS_MAX);
        else if (what)
                fprintf(stderr, "%s: %s.\n", name, what);
        else if (r == -EINTR)
                fprintf(stderr, "Interrupted: no trace written.\n");
        else
                fprintf(stderr, "Failed to import %s: %s\n", name, strerror(-r));
        if (lf && lf->lines > 0 && (what || r == -ERANGE))
                fprintf(stderr, "(after %llu lines)\n", (unsigned long long) lf->lines);
        return what || r == -ERANGE ? IMPORT_EXIT_BAD_INPUT : EXIT_FAILURE;
}

/* The checks after reading: some event at all.  Returns 0 or the exit
 * status (message printed). */
static int check_events(const ImportOptions *o, const LineFeed *lf) {
        const char *name = strcmp(o->from, "-") == 0 ? "standard input" : o->from;
        FtraceIdleTotals tot;

        ftrace_idle_totals(lf->idle, &tot);
        if (tot.events > 0)
                return 0;
        fprintf(stderr, "%s: no ftrace event in %llu lines (%llu not understood)", name, (unsigned long long) lf->lines,
                (unsigned long long) tot.malformed);
        if (lf->first_bad_line > 0)
                fprintf(stderr, "; line %llu: \"%s\"", (unsigned long long) lf->first_bad_line, lf->first_bad);
        fputs(".\nExpected tracefs trace/trace_pipe text or trace-cmd report output (idlepolicy-record(8)).\n", stderr);
        return IMPORT_EXIT_BAD_INPUT;
}

static void print_summary(const ImportOptions *o, const InputFile *in, const LineFeed *lf, const Trace *t) {
        FtraceIdleTotals tot;

        ftrace_idle_totals(lf->idle, &tot);
        fprintf(stderr, "Imported %.1f s from %s%s: %llu lines, %llu events used, %llu unparsed",
                t->header.seconds, strcmp(o->from, "-") == 0 ? "standard input" : o->from,
                input_file_is_gzip(in) ? " (gzip)" : "", (unsigned long long) lf->lines, (unsigned long long) tot.events,
                (unsigned long long) tot.malformed);
        if (lf->first_bad_line > 0)
                fprintf(stderr, " (first: line %llu \"%s\")", (unsigned long long) lf->first_bad_line, lf->first_bad);
        if (lf->long_lines > 0)
                fprintf(stderr, ", %llu over-long lines dropped", (unsigned long long) lf->long_lines);
        fputs(".\n", stderr);
        record_output_cpu_table(lf->idle, t, NULL);
}

/* Saved ftrace text does not carry the cpuidle state table: the states the
 * intervals entered are listed as "state<N>" with unknown (0) exit latency
 * and target residency, under driver "unknown" (idlepolicy-trace(5)).
 * Returns 0 or -ERANGE for an index the format cannot hold. */
static int name_states(Trace *t) {
        int32_t max = -1;

        for (size_t i = 0; i < t->n_intervals; i++)
                if (t->intervals[i].state > max)
                        max = t->intervals[i].state;
        if (max >= TRACE_STATES_MAX)
                return -ERANGE;
        for (int32_t i = 0; i <= max; i++)
                snprintf(t->header.states[i].name, sizeof(t->header.states[i].name), "state%d", (int) i);
        t->header.n_states = (unsigned) (max + 1);
        return 0;
}

int import_run(const ImportOptions *o, volatile const sig_atomic_t *stop) {
        _cleanup_input_file_ InputFile *in = NULL;
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;
        _cleanup_free_ LineFeed *lf = calloc(1, sizeof(LineFeed));
        int r = lf ? input_file_open(o->from, o->max_bytes, &in) : -ENOMEM;

        if (r < 0)
                return report_error(o, NULL, r);
        if ((r = ftrace_idle_new(0, &p)) < 0 || (r = trace_new(0, &t)) < 0)
                return report_error(o, NULL, r);
        ftrace_idle_allow_growth(p, IMPORT_CPUS_MAX);
        *lf = (LineFeed) LINE_FEED_INIT(p, NULL);
        r = read_all(in, lf, o->from, stop);
        line_feed_done(lf);
        if (r < 0)
                return report_error(o, lf, r);
        if ((r = check_events(o, lf)) != 0)
                return r;
        FtraceIdleTotals tot;
        ftrace_idle_totals(p, &tot);
        t->header.seconds = (double) (tot.last_ns - tot.first_ns) / 1e9;
        snprintf(t->header.driver, sizeof(t->header.driver), "unknown");
        if ((r = ftrace_idle_finish(p, t)) < 0)
                return report_error(o, lf, r);
        if ((r = name_states(t)) < 0) {
                fprintf(stderr, "%s: a power:cpu_idle state index beyond %u.\n", o->from, TRACE_STATES_MAX - 1);
                return IMPORT_EXIT_BAD_INPUT;
        }
        if ((r = record_output_write(o->output, t)) < 0) {
                fprintf(stderr, "Failed to write %s: %s\n", o->output, strerror(-r));
                return EXIT_FAILURE;
        }
        print_summary(o, in, lf, t);
        return EXIT_SUCCESS;
}
