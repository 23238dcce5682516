/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl-error.h"
#include "ctl-json.h"

/* What one error name means; a name ending in '*' matches every name that
 * starts with the part before it, and the first entry that matches wins.
 * In the texts %C is replaced by the CPU ("CPU 1"), %S by the state, %G by
 * the governor, %L by the latency, %P by the profile, %A by the action, %M
 * by the error's own message. */
typedef struct ErrorMeaning {
        const char *name;
        const char *text;
        const char *text_all;    /* when the call was about all CPUs; NULL = text */
        const char *text_profile; /* when the call named a profile (pin, hold); NULL = the others */
} ErrorMeaning;

static const ErrorMeaning meanings[] = {
        { IDLEPOLICY_ERROR_PREFIX "UnknownCPU", "there is no %C", "unknown CPU: %M" },
        { IDLEPOLICY_ERROR_PREFIX "CPUOffline", "%C is offline", "a CPU is offline: %M" },
        { IDLEPOLICY_ERROR_PREFIX "UnknownState", "unknown state '%S' on %C",
          "unknown state '%S': %M" },
        { IDLEPOLICY_ERROR_PREFIX "InvalidLatency",
          "invalid resume latency '%L': use 0 (no constraint), 1..2147483646 us, or n/a", NULL,
          "invalid latency limit in profile '%P': use BASE:latency_limit_us=N, N 0 (no limit) to 10000000 us "
          "in plain decimal" },
        { IDLEPOLICY_ERROR_PREFIX "UnknownGovernor",
          "unknown governor '%G' (see 'idlepolicyctl governor' for the available ones)", NULL },
        { IDLEPOLICY_ERROR_PREFIX "WriteFailed", "the kernel refused to %A: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "UnknownProfile",
          "unknown profile '%P' (see 'idlepolicyctl profile' for the loaded ones)", NULL },
        { IDLEPOLICY_ERROR_PREFIX "InvalidMode", "invalid mode: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "Busy", "cannot %A now: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "CalibrationFailed", "the calibration cannot start: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "InvalidTarget", "invalid pin target: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "InvalidCPUs", "invalid CPU list: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "NoSuchProcess", "no such process or cgroup: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "NotPinnable", "this cannot be pinned: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "DuplicateTarget", "already pinned: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "LimitReached", "too many pins or holds: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "NoSuchPin", "no such pin: %M (see 'idlepolicyctl pins')", NULL },
        { IDLEPOLICY_ERROR_PREFIX "NoSuchHold", "no such hold: %M", NULL },
        { IDLEPOLICY_ERROR_PREFIX "AccessDenied",
          "not authorised to %A (run as root, or authenticate through polkit): %M", NULL },
        { SD_BUS_ERROR_SERVICE_UNKNOWN, "idlepolicyd is not running on this bus", NULL },
        { SD_BUS_ERROR_NAME_HAS_NO_OWNER, "idlepolicyd is not running on this bus", NULL },
        { "org.freedesktop.systemd1.NoSuchUnit",
          "idlepolicyd is not installed as a service (idlepolicyd.service missing)", NULL },
        { "org.freedesktop.systemd1.*",
          "idlepolicyd could not be started (see 'journalctl -u idlepolicyd'): %M", NULL },
        { "org.freedesktop.DBus.Error.Spawn.*",
          "idlepolicyd could not be started (see 'journalctl -u idlepolicyd'): %M", NULL },
        { SD_BUS_ERROR_NO_REPLY, "idlepolicyd did not answer in time", NULL },
        { SD_BUS_ERROR_TIMEOUT, "idlepolicyd did not answer in time", NULL },
        { SD_BUS_ERROR_ACCESS_DENIED, "the bus policy refused the call to %A: %M", NULL },
        { SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
          "authentication is required to %A (run as root, or without --no-ask-password)", NULL },
        { SD_BUS_ERROR_UNKNOWN_METHOD,
          "the running idlepolicyd does not support this (older version?): %M", NULL },
        { SD_BUS_ERROR_UNKNOWN_OBJECT,
          "the running idlepolicyd does not support this (older version?): %M", NULL },
        { SD_BUS_ERROR_UNKNOWN_INTERFACE,
          "the running idlepolicyd does not support this (older version?): %M", NULL },
};

/* Returns true if name matches pattern (exactly, or by prefix with '*'). */
static bool name_matches(const char *pattern, const char *name) {
        size_t len = strlen(pattern);

        if (len > 0 && pattern[len - 1] == '*')
                return strncmp(pattern, name, len - 1) == 0;
        return strcmp(pattern, name) == 0;
}

static const ErrorMeaning *meaning_find(const char *name) {
        for (size_t i = 0; i < sizeof(meanings) / sizeof(meanings[0]); i++)
                if (name_matches(meanings[i].name, name))
                        return &meanings[i];
        return NULL;
}

static const char *or_unknown(const char *s) {
        return s && s[0] ? s : "?";
}

/* Returns the text for one %X directive of the template. */
static const char *expand_one(char key, const sd_bus_error *e, const CtlErrorContext *ctx,
                              char *cpu_buf, size_t cpu_size) {
        switch (key) {
        case 'C':
                if (ctx->cpu == CTL_CPU_ALL || ctx->cpu == CTL_CPU_NONE)
                        return "one of the online CPUs";
                snprintf(cpu_buf, cpu_size, "CPU %u", ctx->cpu);
                return cpu_buf;
        case 'S': return or_unknown(ctx->state);
        case 'G': return or_unknown(ctx->governor);
        case 'L': return or_unknown(ctx->latency);
        case 'P': return or_unknown(ctx->profile);
        case 'A': return ctx->action ? ctx->action : "do this";
        case 'M': return e->message && e->message[0] ? e->message : "no details";
        default: return "%";
        }
}

/* Appends n bytes of s to buf (of size bytes, holding len), truncating. */
static void append(char *buf, size_t size, size_t *len, const char *s, size_t n) {
        if (*len + 1 >= size)
                return;
        if (n > size - 1 - *len)
                n = size - 1 - *len;
        memcpy(buf + *len, s, n);
        *len += n;
        buf[*len] = '\0';
}

/* Copies template into buf with its %X directives expanded. */
static void expand(const char *template, const sd_bus_error *e, const CtlErrorContext *ctx,
                   char *buf, size_t size) {
        char cpu_buf[32];
        size_t len = 0;

        buf[0] = '\0';
        for (const char *p = template; *p; p++) {
                if (*p == '%' && p[1]) {
                        const char *piece = expand_one(*++p, e, ctx, cpu_buf, sizeof(cpu_buf));
                        append(buf, size, &len, piece, strlen(piece));
                } else
                        append(buf, size, &len, p, 1);
        }
}

char *ctl_error_explain(const sd_bus_error *e, const CtlErrorContext *ctx, char *buf, size_t size) {
        const ErrorMeaning *m = meaning_find(e->name);
        const char *template;

        if (size == 0)
                return buf;
        if (!m) {
                snprintf(buf, size, "failed to %s: %s", ctx->action ? ctx->action : "do this",
                         e->message && e->message[0] ? e->message : "unknown error");
                return buf;
        }
        template = ctx->profile && m->text_profile ? m->text_profile :
                   ctx->cpu == CTL_CPU_ALL && m->text_all ? m->text_all : m->text;
        expand(template, e, ctx, buf, size);
        return buf;
}

int ctl_error_print(const sd_bus_error *e, int r, const CtlErrorContext *ctx, bool json) {
        char buf[1024];

        if (e && sd_bus_error_is_set(e)) {
                ctl_error_explain(e, ctx, buf, sizeof(buf));
                if (ctx->hint && ctx->hint[0]) {
                        size_t len = strlen(buf);
                        snprintf(buf + len, sizeof(buf) - len, "; %s", ctx->hint);
                }
                fprintf(stderr, "idlepolicyctl: %s (%s)\n", buf, e->name);
        } else {
                snprintf(buf, sizeof(buf), "failed to %s: %s",
                         ctx->action ? ctx->action : "do this", strerror(r < 0 ? -r : r));
                fprintf(stderr, "idlepolicyctl: %s\n", buf);
        }
        if (json)
                (void) ctl_json_print_error(e && sd_bus_error_is_set(e) ? e->name : NULL, buf);
        return r;
}
