/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Turning a D-Bus error into one line a person can act on.  The context says
 * what was asked (which CPU, state, governor, latency), so that
 * org.idlepolicy.IdlePolicy1.Error.UnknownState becomes
 * "unknown state 'FOO' on CPU 1". */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#define CTL_CPU_ALL  UINT32_MAX        /* the bus's "all online CPUs" */
#define CTL_CPU_NONE (UINT32_MAX - 1)  /* the call is not about a CPU */

#define IDLEPOLICY_ERROR_PREFIX "org.idlepolicy.IdlePolicy1.Error."

typedef struct CtlErrorContext {
        const char *action;      /* "read the status", "disable state", ... */
        uint32_t cpu;            /* a CPU id, CTL_CPU_ALL or CTL_CPU_NONE */
        const char *state;       /* as the user wrote it, or NULL */
        const char *governor;    /* or NULL */
        const char *latency;     /* as the user wrote it, or NULL */
        const char *profile;     /* or NULL */
        const char *hint;        /* what exists instead ("its states: POLL, C1"), appended; or NULL */
} CtlErrorContext;

#define CTL_ERROR_CONTEXT(a) ((CtlErrorContext) { .action = (a), .cpu = CTL_CPU_NONE })

/* Formats an explanation of e (a filled bus error) for ctx into buf,
 * without the error name.  Returns buf. */
char *ctl_error_explain(const sd_bus_error *e, const CtlErrorContext *ctx, char *buf, size_t size);

/* Prints "idlepolicyctl: <explanation>[; <hint>] (<error name>)" to stderr, or for a
 * bare errno (e not set) "idlepolicyctl: failed to <action>: <strerror>".
 * With json, also prints {"error": {...}} to stdout.  Returns r. */
int ctl_error_print(const sd_bus_error *e, int r, const CtlErrorContext *ctx, bool json);
