/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "calibrate": Calibrate(), then wait for CalibrationFinished with a
 * progress line on a terminal (the daemon's CalibrationProgress, read every
 * second), then the table of advertised against measured costs. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl-bus.h"
#include "ctl-format.h"
#include "ctl-json.h"
#include "ctl-model.h"
#include "terminal.h"

#define PROGRESS_USEC 1000000u

typedef struct Wait {
        bool done;
        bool ok;
        char error[512];
} Wait;

static int on_finished(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Wait *w = userdata;
        const char *error = "";
        int ok = 0;

        if (sd_bus_message_read(m, "bs", &ok, &error) < 0)
                snprintf(w->error, sizeof(w->error), "unreadable CalibrationFinished signal");
        else
                snprintf(w->error, sizeof(w->error), "%s", error);
        w->ok = ok;
        w->done = true;
        return 0;
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Wait *w = userdata;

        w->done = true;
        w->ok = false;
        snprintf(w->error, sizeof(w->error), "idlepolicyd left the bus during the calibration");
        return 0;
}

/* Subscribes to the end of the calibration (and to the daemon leaving).
 * Returns 0 or a negative errno. */
static int subscribe(Ctl *c, Wait *w) {
        int r;

        r = sd_bus_match_signal(c->bus, NULL, IDLEPOLICY_BUS_NAME, IDLEPOLICY_MANAGER_PATH, IDLEPOLICY_MANAGER_IFACE,
                                "CalibrationFinished", on_finished, w);
        if (r >= 0)
                r = sd_bus_add_match(c->bus, NULL,
                                     "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',"
                                     "arg0='" IDLEPOLICY_BUS_NAME "'", on_owner_changed, w);
        return r;
}

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

/* The daemon's CalibrationProgress: (measured, total, cpu, state). */
typedef struct Progress {
        uint32_t measured, total, cpu;
        char state[64];
} Progress;

/* Reads CalibrationProgress.  Returns 0, or a negative errno (an older
 * daemon without it, or a bus error: the line then shows the time only). */
static int read_progress(Ctl *c, Progress *ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *state = NULL;
        int r;

        r = sd_bus_get_property(c->bus, IDLEPOLICY_BUS_NAME, IDLEPOLICY_MANAGER_PATH, IDLEPOLICY_MANAGER_IFACE,
                                "CalibrationProgress", NULL, &reply, "(uuus)");
        if (r >= 0)
                r = sd_bus_message_read(reply, "(uuus)", &ret->measured, &ret->total, &ret->cpu, &state);
        if (r < 0)
                return r;
        ctl_text_sanitize(state ? state : "", ret->state, sizeof(ret->state));
        return 0;
}

/* Rewrites the progress line on stderr: the CPU and state being measured,
 * the share of states done and the time left from the pace so far. */
static void show_progress(Ctl *c, uint64_t elapsed_usec) {
        unsigned width = terminal_columns(STDERR_FILENO, getenv("COLUMNS"));
        char label[128], line[256];
        Progress p;

        if (read_progress(c, &p) < 0 || p.total == 0) {
                snprintf(label, sizeof(label), "Calibrating every idle state of every CPU... %" PRIu64 "s",
                         elapsed_usec / 1000000u);
                terminal_text_fit(label, width - 1, "~", line, sizeof(line));
        } else {
                if (p.cpu == UINT32_MAX)
                        snprintf(label, sizeof(label), "Calibrating");
                else
                        snprintf(label, sizeof(label), "Calibrating CPU %" PRIu32 " \"%s\"", p.cpu, p.state);
                terminal_progress_format(line, sizeof(line), width - 1, label, p.measured, p.total, elapsed_usec);
        }
        fprintf(stderr, "\r\033[K%s", line);
}

/* Waits for the end, with a progress line when stderr is a terminal
 * (nothing at all otherwise).  Returns 0 or a negative errno. */
static int wait_for_end(Ctl *c, Wait *w) {
        bool tty = isatty(STDERR_FILENO);
        uint64_t start = now_usec(), shown = 0;
        int r = 0;

        while (!w->done && r >= 0) {
                r = sd_bus_process(c->bus, NULL);
                if (r > 0 || r < 0)
                        continue;
                if (tty && now_usec() - shown >= PROGRESS_USEC) {
                        shown = now_usec();
                        show_progress(c, shown - start);
                        continue;       /* reading the property may have queued the signal */
                }
                r = sd_bus_wait(c->bus, PROGRESS_USEC);
        }
        if (tty)
                fprintf(stderr, "\r\033[K");
        return r < 0 ? r : 0;
}

#define CAL_ROW "%4s  %-16s  %10s  %10s  %10s  %8s  %9s  %s\n"

/* The curve of st under its row: the wakeup cost over polling after each
 * idle duration measured. */
static void print_curve(const CtlState *st) {
        if (!st->has_entry || st->n_curve == 0)
                return;
        printf("%4s  after idle", "");
        for (size_t i = 0; i < st->n_curve; i++) {
                char idle[32];

                printf("%s %s %+" PRId32, i > 0 ? "," : "", ctl_format_usec(st->curve[i].idle_us, idle, sizeof(idle)),
                       st->curve[i].penalty_us);
        }
        printf(" (us over polling)\n");
}

/* Prints one CPU's rows.  Returns true if a state is mis-described. */
static bool print_cpu(const CtlCpu *cpu) {
        bool any = false;

        for (size_t k = 0; k < cpu->n_states; k++) {
                const CtlState *st = &cpu->states[k];
                char index[16], adv[32], med[32], p99[32], entry[32] = "-", res[32] = "-";

                snprintf(index, sizeof(index), "%u", cpu->index);
                if (!st->calibrated) {
                        printf(CAL_ROW, index, st->name ? st->name : "?", "-", "-", "-", "-", "-", "not measured");
                        continue;
                }
                any |= st->misdescribed;
                if (st->has_entry)
                        ctl_format_usec(st->entry_us, entry, sizeof(entry));
                if (st->has_entry && st->calibrated_residency_us > 0)
                        ctl_format_usec(st->calibrated_residency_us, res, sizeof(res));
                printf(CAL_ROW, index, st->name ? st->name : "?", ctl_format_usec(st->advertised_us, adv, sizeof(adv)),
                       ctl_format_usec(st->measured_us, med, sizeof(med)),
                       ctl_format_usec(st->measured_p99_us, p99, sizeof(p99)), entry, res,
                       st->misdescribed ? "MIS-DESCRIBED" : "ok");
                print_curve(st);
        }
        return any;
}

/* The table of the calibration in use. */
static int show_calibration(Ctl *c, const CtlStatus *s) {
        bool any = false;

        if (c->json)
                return ctl_json_print_calibration(s) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        printf(CAL_ROW, "CPU", "STATE", "ADVERTISED", "MEASURED*", "P99*", "ENTRY", "RESIDENCY", "VERDICT");
        for (size_t i = 0; i < s->n_cpus; i++)
                any |= print_cpu(&s->cpus[i]);
        printf("\n* over polling (the baseline): MEASURED is the median wakeup latency with only this state\n"
               "allowed minus polling's median; P99 its 99th percentile minus polling's 99th percentile, 0 when\n"
               "below it.\n");
        if (any)
                printf("\nMIS-DESCRIBED: the measured wakeup costs over 4 x the advertised exit latency + 10us;\n"
                       "the policy uses the measured cost for it.\n");
        return CTL_EXIT_OK;
}

int ctl_cmd_calibrate(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("calibrate");
        Wait w = {};
        int r;

        if (ctl_bus_open(c) < 0)
                return CTL_EXIT_FAILURE;
        r = subscribe(c, &w);
        if (r < 0) {
                (void) ctl_error_print(NULL, r, &ctx, c->json);
                return CTL_EXIT_FAILURE;
        }
        if (ctl_bus_call_manager(c, &ctx, "Calibrate", "") < 0)
                return CTL_EXIT_FAILURE;
        r = wait_for_end(c, &w);
        if (r < 0) {
                (void) ctl_error_print(NULL, r, &ctx, c->json);
                return CTL_EXIT_FAILURE;
        }
        if (!w.ok) {
                fprintf(stderr, "idlepolicyctl: %s\n", w.error[0] ? w.error : "the calibration failed");
                if (c->json)
                        (void) ctl_json_print_error(NULL, w.error);
                return CTL_EXIT_FAILURE;
        }
        if (ctl_fetch_all(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        return show_calibration(c, &s);
}
