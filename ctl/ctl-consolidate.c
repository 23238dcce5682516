/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "consolidate [0|1|2]": show the consolidation (level, set, measured
 * utilisation, why), or set the level through SetConsolidation; and the
 * lines status shows. */
#include <stdio.h>
#include <string.h>

#include "ctl-bus.h"
#include "ctl-consolidate.h"
#include "ctl-json.h"

#define LABEL "%-13s"

void ctl_consolidation_print(const CtlConsolidation *c) {
        if (!c->known)
                return;
        bool background = c->n_targets > 0;

        printf(LABEL "level %u (%s)", "Consolidate:", c->level, c->source ? c->source : "?");
        /* A daemon that packs nothing still chose a set (before it turned
         * itself off without a background): say so, not "background on". */
        if (c->active)
                printf(background ? ", background on CPUs %s, freed %s" : ", set CPUs %s, freed %s, nothing confined",
                       c->set ? c->set : "?", c->freed && c->freed[0] ? c->freed : "none");
        printf("\n");
        if (c->machine_util >= 0)
                printf(LABEL "machine %.0f%% busy, background at most %.2f CPUs\n", "", c->machine_util * 100.0,
                       c->background);
        printf(LABEL "%s\n", "", c->reason ? c->reason : "?");
        if (c->level > 0 && !background && !(c->reason && strstr(c->reason, "no background configured")))
                printf(LABEL "no background configured: nothing is confined (set consolidation_background in "
                       "idlepolicyd.conf(5))\n", "");
        for (size_t i = 0; i < c->n_targets; i++)
                printf(LABEL "%s: %s\n", "", c->targets[i].name, c->targets[i].state);
        if (c->level >= 2)
                printf(LABEL "IRQs: %u steered, %u refused by the kernel, %u left to someone else (irqbalance?)\n", "",
                       c->irq_steered, c->irq_refused, c->irq_backed_off);
}

static int show(const Ctl *c, const CtlConsolidation *k, const char *previous) {
        if (c->json)
                return ctl_json_print_consolidation(k, previous) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        if (previous)
                printf("Consolidation: level %u (was %s)\n", k->level, previous);
        ctl_consolidation_print(k);
        return CTL_EXIT_OK;
}

int ctl_cmd_consolidate(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("set the consolidation level");
        char previous[16];

        if (args[0] && (strlen(args[0]) != 1 || !strchr("012", args[0][0])))
                return ctl_usage_error("unknown consolidation level '%s' (use 0, 1 or 2)", args[0]);
        if (ctl_fetch_manager(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        if (!s.consolidation.known) {
                fprintf(stderr, "idlepolicyctl: the daemon has no consolidation (an older version)\n");
                return CTL_EXIT_FAILURE;
        }
        if (!args[0])
                return show(c, &s.consolidation, NULL);
        snprintf(previous, sizeof(previous), "%u", s.consolidation.level);
        if (ctl_bus_call_manager(c, &ctx, "SetConsolidation", "u", (uint32_t) (args[0][0] - '0')) < 0)
                return CTL_EXIT_FAILURE;
        ctl_status_done(&s);
        if (ctl_fetch_manager(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        return show(c, &s.consolidation, previous);
}
