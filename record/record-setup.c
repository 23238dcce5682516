/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "record-setup.h"

typedef struct RecordEvent {
        const char *path;               /* system/event */
        bool required;
} RecordEvent;

static const RecordEvent record_events[] = {
        { "power/cpu_idle", false },
        { "power/cpu_idle_miss", false },
        { "timer/hrtimer_start", true },
        { "timer/hrtimer_cancel", true },
        { "timer/hrtimer_expire_entry", true },
        { "sched/sched_switch", true },
        { "sched/sched_wake_idle_without_ipi", false },
        { "sched/sched_wakeup", false },
        { "sched/sched_wakeup_new", false },
        { "irq/irq_handler_entry", false },
        { "irq/irq_handler_exit", false },
        { "irq/softirq_entry", false },
        { "irq/softirq_exit", false },
        { "irq_vectors/local_timer_entry", false },
        { "irq_vectors/local_timer_exit", false },
        { "irq_vectors/reschedule_entry", false },
        { "irq_vectors/reschedule_exit", false },
        { "irq_vectors/call_function_entry", false },
        { "irq_vectors/call_function_exit", false },
        { "irq_vectors/call_function_single_entry", false },
        { "irq_vectors/call_function_single_exit", false },
        { "irq_vectors/irq_work_entry", false },
        { "irq_vectors/irq_work_exit", false },
        { "irq_vectors/x86_platform_ipi_entry", false },
        { "irq_vectors/x86_platform_ipi_exit", false },
        { "irq_vectors/thermal_apic_entry", false },
        { "irq_vectors/thermal_apic_exit", false },
        { "irq_vectors/threshold_apic_entry", false },
        { "irq_vectors/threshold_apic_exit", false },
        { "irq_vectors/deferred_error_apic_entry", false },
        { "irq_vectors/deferred_error_apic_exit", false },
        { "irq_vectors/error_apic_entry", false },
        { "irq_vectors/error_apic_exit", false },
        { "irq_vectors/spurious_apic_entry", false },
        { "irq_vectors/spurious_apic_exit", false },
        { "ipi/ipi_entry", false },
        { "ipi/ipi_exit", false },
};

/* The text layout ftrace-parse.c reads; hash-ptr so that the pointers match
 * the hashed ones of /proc/timer_list. */
static const struct {
        const char *path;
        const char *value;
} record_options[] = {
        { "options/context-info", "1" },
        { "options/irq-info", "1" },
        { "options/latency-format", "0" },
        { "options/raw", "0" },
        { "options/hex", "0" },
        { "options/bin", "0" },
        { "options/fields", "0" },
        { "options/hash-ptr", "1" },
        { "current_tracer", "nop" },
        { "set_event_pid", "" },
        { "set_event_notrace_pid", "" },
};

/* Sets path to value unless it has it already; a file this kernel lacks is
 * skipped.  Returns 0 or -errno. */
static int set_if_different(Tracefs *tf, const char *path, const char *value) {
        char cur[256];
        int r = tracefs_read(tf, path, cur, sizeof(cur));

        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        return strcmp(cur, value) == 0 ? 0 : tracefs_set(tf, path, value);
}

/* Returns true if the clock list ("[local] global ... mono ...") offers name. */
static bool has_clock(char *clocks, const char *name) {
        for (char *tok = strtok(clocks, " []"); tok; tok = strtok(NULL, " []"))
                if (strcmp(tok, name) == 0)
                        return true;
        return false;
}

static int set_clock(Tracefs *tf) {
        char clocks[256];
        int r = fileio_read_string_at(tf->dir_fd, "trace_clock", clocks, sizeof(clocks));

        if (r < 0)
                return r;
        if (!has_clock(clocks, "mono"))
                return -EOPNOTSUPP;
        return set_if_different(tf, "trace_clock", "mono");
}

static void note_missing(RecordSetupInfo *info, const char *path) {
        size_t len = strlen(info->missing);

        snprintf(info->missing + len, sizeof(info->missing) - len, "%s%s", len ? " " : "", path);
}

static int enable_event(Tracefs *tf, const RecordEvent *ev, RecordSetupInfo *info) {
        char path[160];

        snprintf(path, sizeof(path), "events/%s/enable", ev->path);
        if (faccessat(tf->dir_fd, path, W_OK, 0) < 0) {
                if (ev->required) {
                        snprintf(info->missing, sizeof(info->missing), "%s", ev->path);
                        return -ENOENT;
                }
                info->n_missing++;
                note_missing(info, ev->path);
                return 0;
        }
        snprintf(path, sizeof(path), "events/%s/filter", ev->path);
        int r = set_if_different(tf, path, "0");
        if (r < 0)
                return r;
        snprintf(path, sizeof(path), "events/%s/enable", ev->path);
        r = set_if_different(tf, path, "1");
        if (r < 0)
                return r;
        info->n_enabled++;
        if (strcmp(ev->path, "power/cpu_idle") == 0)
                info->have_cpu_idle = true;
        return 0;
}

int record_setup(Tracefs *tf, unsigned buffer_kb, RecordSetupInfo *ret) {
        RecordSetupInfo info = { 0 };
        int r = set_if_different(tf, "tracing_on", "0");

        for (size_t i = 0; r >= 0 && i < sizeof(record_options) / sizeof(record_options[0]); i++)
                r = set_if_different(tf, record_options[i].path, record_options[i].value);
        if (r >= 0)
                r = set_clock(tf);
        if (r >= 0)
                r = tracefs_set_buffer_kb(tf, buffer_kb);
        for (size_t i = 0; r >= 0 && i < sizeof(record_events) / sizeof(record_events[0]); i++)
                r = enable_event(tf, &record_events[i], &info);
        if (r >= 0)     /* O_TRUNC on "trace" clears the buffer */
                r = fileio_write_string_at(tf->dir_fd, "trace", "");
        *ret = info;
        return r;
}
