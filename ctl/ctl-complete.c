/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "__complete KIND": the values shell completion offers, one per line,
 * read from the running daemon (idlepolicyctl's bash completion calls it;
 * not in --help).  KIND: profiles, governors, cpus (online), states (the
 * names of every online CPU's states, once each), pins (ids and object
 * paths). */
#include <stdio.h>
#include <string.h>

#include "ctl-model.h"

static void print_strv(char **l) {
        for (size_t i = 0; l && l[i]; i++)
                printf("%s\n", l[i]);
}

/* true if an online CPU before cpus[i] has a state named name. */
static bool state_seen(const CtlStatus *s, size_t i, const char *name) {
        for (size_t j = 0; j < i; j++)
                for (size_t k = 0; s->cpus[j].online && k < s->cpus[j].n_states; k++)
                        if (s->cpus[j].states[k].name && strcmp(s->cpus[j].states[k].name, name) == 0)
                                return true;
        return false;
}

static void print_states(const CtlStatus *s) {
        for (size_t i = 0; i < s->n_cpus; i++)
                for (size_t k = 0; s->cpus[i].online && k < s->cpus[i].n_states; k++) {
                        const char *name = s->cpus[i].states[k].name;

                        if (name && !state_seen(s, i, name))
                                printf("%s\n", name);
                }
}

static int complete_cpus(Ctl *c, bool states) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;

        if (ctl_fetch_all(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        if (states)
                print_states(&s);
        else
                for (size_t i = 0; i < s.n_cpus; i++)
                        if (s.cpus[i].online)
                                printf("%u\n", s.cpus[i].index);
        return CTL_EXIT_OK;
}

static int complete_manager(Ctl *c, const char *kind) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;

        if (ctl_fetch_manager(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        if (strcmp(kind, "profiles") == 0)
                print_strv(s.profiles);
        else if (strcmp(kind, "governors") == 0)
                print_strv(s.available_governors);
        else {
                if (ctl_fetch_pins(c, &s) < 0)
                        return CTL_EXIT_FAILURE;
                for (size_t i = 0; i < s.n_pins; i++)
                        printf("%u\n%s\n", s.pins[i].id, s.pins[i].path);
        }
        return CTL_EXIT_OK;
}

int ctl_cmd_complete(Ctl *c, char **args) {
        const char *kind = args[0];

        if (strcmp(kind, "cpus") == 0 || strcmp(kind, "states") == 0)
                return complete_cpus(c, strcmp(kind, "states") == 0);
        if (strcmp(kind, "profiles") == 0 || strcmp(kind, "governors") == 0 || strcmp(kind, "pins") == 0)
                return complete_manager(c, kind);
        return ctl_usage_error("__complete: unknown kind '%s' (profiles, governors, cpus, states, pins)", kind);
}
