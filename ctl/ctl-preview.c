/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "profile NAME --dry-run": what a switch would do, from the daemon's
 * PreviewProfile (the plan per CPU, the knobs enforce mode would write,
 * the CPU time a CPU that polls may burn); and the warning before a real
 * switch to a profile that makes every CPU poll while idle. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-bus.h"
#include "ctl-json.h"
#include "ctl-model.h"
#include "ctl-preview.h"
#include "ctl-util.h"

static int read_cpu(sd_bus_message *m, void *userdata) {
        CtlPreview *p = userdata;
        const char *profile, *cap_reason, *floor_reason, *reason;
        CtlPreviewCpu *c;
        uint32_t index, cap, floor;
        int polls_only, r;
        double burn;

        r = sd_bus_message_read(m, "usuussbds", &index, &profile, &cap, &floor, &cap_reason, &floor_reason,
                                &polls_only, &burn, &reason);
        if (r < 0)
                return r;
        c = ctl_array_append((void **) &p->cpus, &p->n_cpus, sizeof(*c));
        if (!c)
                return -ENOMEM;
        *c = (CtlPreviewCpu) { .index = index, .cap = cap, .floor = floor, .polls_only = polls_only, .burn = burn };
        if (ctl_strdup_replace(&c->profile, profile) < 0 || ctl_strdup_replace(&c->cap_reason, cap_reason) < 0 ||
            ctl_strdup_replace(&c->floor_reason, floor_reason) < 0 || ctl_strdup_replace(&c->reason, reason) < 0)
                return -ENOMEM;
        return 0;
}

static int read_knob(sd_bus_message *m, void *userdata) {
        CtlPreview *p = userdata;
        const char *path, *now, *then;
        CtlPreviewKnob *k;
        int r = sd_bus_message_read(m, "sss", &path, &now, &then);

        if (r < 0)
                return r;
        k = ctl_array_append((void **) &p->knobs, &p->n_knobs, sizeof(*k));
        if (!k)
                return -ENOMEM;
        if (ctl_strdup_replace(&k->path, path) < 0 || ctl_strdup_replace(&k->now, now) < 0 ||
            ctl_strdup_replace(&k->then, then) < 0)
                return -ENOMEM;
        return 0;
}

static int read_reply(sd_bus_message *m, CtlPreview *p) {
        const char *governor, *poll_mode;
        int r = ctl_bus_read_array(m, 'r', "usuussbds", read_cpu, p);

        if (r >= 0)
                r = ctl_bus_read_array(m, 'r', "sss", read_knob, p);
        if (r >= 0)
                r = sd_bus_message_read(m, "sstu", &governor, &poll_mode, &p->poll_window_nsec, &p->consolidation);
        if (r < 0)
                return r;
        if (ctl_strdup_replace(&p->governor, governor) < 0 || ctl_strdup_replace(&p->poll_mode, poll_mode) < 0)
                return -ENOMEM;
        return 0;
}

int ctl_fetch_preview(Ctl *c, const char *name, bool quiet, CtlPreview *ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        CtlErrorContext ctx = CTL_ERROR_CONTEXT("preview the profile");
        int r;

        ctx.profile = name;
        c->quiet = quiet;             /* a failure is not printed */
        r = ctl_bus_call(c, &ctx, IDLEPOLICY_MANAGER_PATH, IDLEPOLICY_MANAGER_IFACE, "PreviewProfile", &reply, "s",
                         name);
        c->quiet = false;
        if (r < 0)
                return r;
        *ret = CTL_PREVIEW_NULL;
        r = ctl_strdup_replace(&ret->profile, name);
        if (r >= 0)
                r = read_reply(reply, ret);
        if (r < 0) {
                ctl_preview_done(ret);
                ctx.action = "read the daemon's reply";
                return quiet ? r : ctl_error_print(NULL, r, &ctx, c->json);
        }
        return 0;
}

/* "C1 (model)" of state index on the CPU of s with that index. */
static const char *plan_end(const CtlStatus *s, uint32_t cpu, uint32_t state, const char *reason, char *buf,
                            size_t size) {
        const CtlCpu *c = ctl_status_cpu(s, cpu);

        snprintf(buf, size, "%s (%s)", c ? ctl_state_name(c, state) : "?", reason ? reason : "?");
        return buf;
}

static void print_cpu(const CtlStatus *s, const CtlPreviewCpu *x) {
        const CtlCpu *now = ctl_status_cpu(s, x->index);
        char cap[96], floor[96], now_cap[96], now_floor[96];

        printf("CPU %u (%s): cap %s, floor %s\n", x->index, x->profile,
               plan_end(s, x->index, x->cap, x->cap_reason, cap, sizeof(cap)),
               plan_end(s, x->index, x->floor, x->floor_reason, floor, sizeof(floor)));
        if (now && now->cap_reason)
                printf("    now: cap %s, floor %s\n", plan_end(s, x->index, now->cap, now->cap_reason, now_cap,
                                                              sizeof(now_cap)),
                       plan_end(s, x->index, now->floor, now->floor_reason, now_floor, sizeof(now_floor)));
        if (x->polls_only)
                printf("    polls only: spins through its idle time, up to %.2f CPU at the last tick's load\n",
                       x->burn);
        else if (x->burn > 0)
                printf("    polls before halting: up to %.2f CPU at the last tick's load\n", x->burn);
        printf("    why: %s\n", x->reason);
}

static void print_preview(const CtlStatus *s, const CtlPreview *p) {
        bool enforce = s->mode && strcmp(s->mode, "enforce") == 0;
        char warning[1024];

        printf("Switching from %s to %s (dry run: nothing changes).\n\n", s->active_profile ? s->active_profile : "?",
               p->profile);
        for (size_t i = 0; i < p->n_cpus; i++)
                print_cpu(s, &p->cpus[i]);
        printf("\nKnobs %s (%zu):\n", enforce ? "the switch writes" : "the switch would write in enforce mode "
               "(mode observe: none)", p->n_knobs);
        for (size_t i = 0; i < p->n_knobs; i++)
                printf("    %s: %s -> %s\n", p->knobs[i].path, p->knobs[i].now[0] ? p->knobs[i].now : "?",
                       p->knobs[i].then);
        if (p->n_knobs == 0)
                printf("    none\n");
        printf("\nGovernor wanted: %s.  ", p->governor[0] ? p->governor : "no opinion");
        if (p->poll_mode[0])
                printf("Halt-poll: %s%s.  ", p->poll_mode, strcmp(p->poll_mode, "window") == 0 ? " window" : "");
        printf("Consolidation: level %u.\n", p->consolidation);
        printf("Polling may take up to %.2f CPUs in all at the last tick's load.\n", ctl_preview_burn(p));
        if (ctl_preview_warning(p, warning, sizeof(warning))[0])
                printf("\nWarning: %s.\n", warning);
}

int ctl_profile_dry_run(Ctl *c, const char *name) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        _cleanup_(ctl_preview_done) CtlPreview p = CTL_PREVIEW_NULL;

        if (ctl_fetch_all(c, &s) < 0 || ctl_fetch_preview(c, name, false, &p) < 0)
                return CTL_EXIT_FAILURE;
        if (c->json)
                return ctl_json_print_preview(&s, &p) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        print_preview(&s, &p);
        return CTL_EXIT_OK;
}
