/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "ctl-hint.h"
#include "ctl-suggest.h"

#define NAMES_MAX 64

/* Adds name to names (n of them) unless it is there.  Returns the new n. */
static size_t names_add(const char **names, size_t n, const char *name) {
        if (!name || n == NAMES_MAX)
                return n;
        for (size_t i = 0; i < n; i++)
                if (strcmp(names[i], name) == 0)
                        return n;
        names[n] = name;
        return n + 1;
}

/* The state names of cpu (every online CPU for CTL_CPU_ALL), each once.
 * Returns how many. */
static size_t state_names(const CtlStatus *s, uint32_t cpu, const char **names) {
        size_t n = 0;

        for (size_t i = 0; i < s->n_cpus; i++) {
                const CtlCpu *c = &s->cpus[i];

                if (cpu == CTL_CPU_ALL ? !c->online : c->index != cpu)
                        continue;
                for (size_t k = 0; k < c->n_states; k++)
                        n = names_add(names, n, c->states[k].name);
        }
        return n;
}

/* "its states: POLL, C1, \"haltpoll idle\"; did you mean 'POLL'?" */
static void unknown_state(const CtlErrorContext *ctx, const CtlStatus *s, char *buf, size_t size) {
        const char *names[NAMES_MAX], *guess;
        size_t n = state_names(s, ctx->cpu, names), len;

        if (n == 0)
                return;
        len = (size_t) snprintf(buf, size, "%s:", ctx->cpu == CTL_CPU_ALL ? "the states" : "its states");
        for (size_t i = 0; i < n && len < size; i++)
                len += (size_t) snprintf(buf + len, size - len, strchr(names[i], ' ') ? "%s \"%s\"" : "%s %s",
                                         i > 0 ? "," : "", names[i]);
        guess = ctx->state ? ctl_suggest(ctx->state, names, n) : NULL;
        if (guess && len < size)
                snprintf(buf + len, size - len, "; did you mean '%s'?", guess);
}

char *ctl_hint_format(const sd_bus_error *e, const CtlErrorContext *ctx, const CtlStatus *s, char *buf, size_t size) {
        bool one = ctx->cpu != CTL_CPU_ALL && ctx->cpu != CTL_CPU_NONE;
        char list[256];

        if (size == 0)
                return buf;
        buf[0] = '\0';
        if (!e || !e->name)
                return buf;
        if (strcmp(e->name, IDLEPOLICY_ERROR_PREFIX "UnknownState") == 0)
                unknown_state(ctx, s, buf, size);
        else if (one && strcmp(e->name, IDLEPOLICY_ERROR_PREFIX "UnknownCPU") == 0)
                snprintf(buf, size, "CPUs present: %s", ctl_status_cpu_list(s, false, list, sizeof(list)));
        else if (one && strcmp(e->name, IDLEPOLICY_ERROR_PREFIX "CPUOffline") == 0)
                snprintf(buf, size, "CPUs online: %s", ctl_status_cpu_list(s, true, list, sizeof(list)));
        return buf;
}
