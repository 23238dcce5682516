/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* idlepolicyctl: the shared context and the commands.  Every command prints
 * its own result (human text, or JSON with --json) and its own errors, and
 * returns the process exit status. */

#include <stdbool.h>
#include <stddef.h>

#include <systemd/sd-bus.h>

#include "cleanup.h"

enum {
        CTL_EXIT_OK = 0,
        CTL_EXIT_FAILURE = 1,   /* the call failed, or the bus did */
        CTL_EXIT_USAGE = 2,     /* bad command line */
};

struct Ctl;
struct CtlErrorContext;

/* After a failed call e (asked with ctx): what exists instead, into buf
 * ("" for nothing to add), e.g. the states of the CPU when the state was
 * unknown. */
typedef void (*CtlHintFunc)(struct Ctl *c, const sd_bus_error *e, const struct CtlErrorContext *ctx, char *buf,
                            size_t size);

typedef struct Ctl {
        sd_bus *bus;            /* opened by ctl_bus_open() on first use */
        bool json;              /* --json */
        bool ask_password;      /* allow interactive polkit authorisation */
        const char *cpu_list;   /* --cpu LIST; NULL = all online CPUs (weights: one CPU) */
        /* pin, hold, launch */
        const char *cpus;       /* --cpus LIST; NULL = "" (the workload's CPUs; a hold: all) */
        const char *profile;    /* --profile NAME */
        const char *reason;     /* --reason TEXT */
        const char *app_id;     /* --app-id ID */
        bool dry_run;           /* --dry-run (profile) */
        const char *interval;   /* --interval DURATION (status); NULL: the last tick */
        bool help;              /* --help */
        CtlHintFunc error_hint; /* NULL: failures are printed as they are */
        bool quiet;             /* failures of calls are not printed (error_hint reading, a preview
                                 * before a switch) */
} Ctl;

#define CTL_NULL { .ask_password = true }

/* The commands.  args are the words after the command name, already counted
 * against the command's minimum and maximum.  Return a CTL_EXIT_* value. */
int ctl_cmd_status(Ctl *c, char **args);
int ctl_cmd_idle_info(Ctl *c, char **args);
int ctl_cmd_governor(Ctl *c, char **args);
int ctl_cmd_state(Ctl *c, char **args);
int ctl_cmd_resume_latency(Ctl *c, char **args);
int ctl_cmd_latency_limit(Ctl *c, char **args);
int ctl_cmd_restore(Ctl *c, char **args);
int ctl_cmd_profile(Ctl *c, char **args);
int ctl_cmd_mode(Ctl *c, char **args);
int ctl_cmd_calibrate(Ctl *c, char **args);
int ctl_cmd_monitor(Ctl *c, char **args);
int ctl_cmd_weights(Ctl *c, char **args);
int ctl_cmd_pin(Ctl *c, char **args);
int ctl_cmd_unpin(Ctl *c, char **args);
int ctl_cmd_pins(Ctl *c, char **args);
int ctl_cmd_hold(Ctl *c, char **args);
int ctl_cmd_launch(Ctl *c, char **args);
int ctl_cmd_complete(Ctl *c, char **args);
int ctl_cmd_metrics(Ctl *c, char **args);
int ctl_cmd_consolidate(Ctl *c, char **args);

/* The CtlHintFunc of idlepolicyctl: reads what the daemon has (ctl-fetch.c). */
void ctl_hint_from_daemon(Ctl *c, const sd_bus_error *e, const struct CtlErrorContext *ctx, char *buf, size_t size);

/* "record" and "simulate" as argv[1]: execs idlepolicy-record or
 * idlepolicy-sim with the remaining arguments.  Returns -1 when argv[1] is
 * not one of them, otherwise a CTL_EXIT_* value (only if the exec failed). */
int ctl_exec_verb(int argc, char **argv);

/* Prints "idlepolicyctl: <message>" and the --help hint to stderr.
 * Returns CTL_EXIT_USAGE. */
int ctl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
