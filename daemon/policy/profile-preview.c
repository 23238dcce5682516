/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "manager-policy.h"
#include "pins.h"
#include "plan-enforce.h"
#include "policy-preview.h"
#include "profile-preview.h"

void profile_preview_done(ProfilePreview *p) {
        free(p->cpus);
        free(p->knobs);
        *p = PROFILE_PREVIEW_NULL;
}

static void policy_step_cpus_freep(PolicyStep *l) {
        free(l->cpus);
}

/* A copy of l whose planning leaves l alone.  Returns 0 or -ENOMEM. */
static int loop_copy(const PolicyStep *l, PolicyStep *ret) {
        *ret = *l;
        ret->cpus = malloc((l->n_cpus ? l->n_cpus : 1) * sizeof(PolicyCpu));
        if (!ret->cpus)
                return -ENOMEM;
        memcpy(ret->cpus, l->cpus, l->n_cpus * sizeof(PolicyCpu));
        return 0;
}

/* The planned CPUs of l into p.  Returns 0 or -ENOMEM. */
static int fill_cpus(const PolicyStep *l, const PolicyStepInput *in, ProfilePreview *p) {
        p->cpus = calloc(l->n_cpus ? l->n_cpus : 1, sizeof(PreviewCpu));
        if (!p->cpus)
                return -ENOMEM;
        for (unsigned cpu = 0; cpu < l->n_cpus && cpu < in->n_cpus; cpu++) {
                const PolicyCpu *c = &l->cpus[cpu];
                PreviewCpu *x = &p->cpus[p->n_cpus];

                if (!c->active || !c->settled || !in->cpus[cpu].online)
                        continue;
                *x = (PreviewCpu) { .cpu = cpu, .cap = c->cap, .floor = c->floor,
                                    .cap_reason = plan_reason_to_string(c->cap_reason),
                                    .floor_reason = plan_reason_to_string(c->floor_reason),
                                    .polls_only = policy_cpu_polls_only(c), .burn = policy_poll_burn(c, &l->sys) };
                snprintf(x->profile, sizeof(x->profile), "%s",
                         in->cpus[cpu].profile ? in->cpus[cpu].profile->name : "");
                snprintf(x->reason, sizeof(x->reason), "%s", c->reason);
                p->n_cpus++;
        }
        return 0;
}

/* The knobs of wanted with what they hold now, those already as wanted
 * left out.  Returns 0 or -ENOMEM. */
static int fill_knobs(const Manager *m, const EnforceKnob *wanted, size_t n, ProfilePreview *p) {
        p->knobs = calloc(n ? n : 1, sizeof(PreviewKnob));
        if (!p->knobs)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                PreviewKnob *k = &p->knobs[p->n_knobs];

                if (fileio_read_string_at(m->root_fd, wanted[i].path, k->now, sizeof(k->now)) < 0)
                        k->now[0] = '\0';
                if (strcmp(k->now, wanted[i].value) == 0)
                        continue;
                snprintf(k->path, sizeof(k->path), "%s", wanted[i].path);
                snprintf(k->then, sizeof(k->then), "%s", wanted[i].value);
                p->n_knobs++;
        }
        return 0;
}

static void fill_machine(const PolicyStep *l, const Profile *prof, ProfilePreview *p) {
        snprintf(p->governor, sizeof(p->governor), "%s", l->sys.governor);
        p->poll_mode = l->sys.kvm && l->sys.has_poll ? poll_mode_to_string(l->sys.poll.mode) : "";
        p->poll_window_ns = l->sys.kvm && l->sys.has_poll ? l->sys.poll.window_ns : 0;
        p->consolidation = prof->consolidation;
}

/* The profile in force per CPU with prof as the machine's: a pin's or a
 * hold's where one claims the CPU.  Returns 0 or a negative errno. */
static int choices_under(Manager *m, const Profile *prof, PolicySources *src, CpuProfileChoice **ret) {
        unsigned n = m->sampling->topology->n_cpus;
        int r;

        src->profile = prof;
        src->choices = NULL;
        src->n_choices = 0;
        if (!m->pinning.pins || n == 0)
                return 0;
        *ret = calloc(n, sizeof(CpuProfileChoice));
        if (!*ret)
                return -ENOMEM;
        r = pins_choices(m->pinning.pins, prof, n, *ret);
        if (r < 0)
                return r;
        src->choices = *ret;
        src->n_choices = n;
        return 0;
}

/* Plans the copy l under prof and fills p.  Returns 0 or -ENOMEM. */
static int preview(Manager *m, const Profile *prof, PolicyStep *l, ProfilePreview *p) {
        _cleanup_(policy_input_buffer_done) PolicyInputBuffer buf = {};
        _cleanup_free_ CpuProfileChoice *choices = NULL;
        _cleanup_free_ EnforceKnob *wanted = NULL;
        PolicySources src = manager_policy_sources(m);
        PolicyStepInput in;
        uint64_t now = 0;
        size_t n = 0;
        int r;

        r = choices_under(m, prof, &src, &choices);
        if (r >= 0)
                r = policy_input_build(&buf, &src, &in);
        if (r < 0)
                return r;
        policy_step_replan(l, &in, NULL, NULL);
        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        r = plan_wanted_knobs(&m->policy.enforcer, l, &src, now, m->config.governor_hold_usec, &wanted, &n);
        if (r >= 0)
                r = fill_cpus(l, &in, p);
        if (r >= 0)
                r = fill_knobs(m, wanted, n, p);
        fill_machine(l, prof, p);
        return r;
}

int profile_preview(Manager *m, const char *name, ProfilePreview *ret, ErrorInfo *e) {
        _cleanup_(policy_step_cpus_freep) PolicyStep loop = {};
        const Profile *prof = profile_set_find(m->policy.profiles, name);
        ProfilePreview p = PROFILE_PREVIEW_NULL;
        int r;

        if (!prof)
                return errinfo_set(e, -ENOPKG, "Unknown profile \"%.64s\" (see the Profiles property)", name);
        if (calibrator_running(m->calib.run))
                return errinfo_set(e, -EBUSY, "A calibration is running, try again when it has finished");
        if (!m->sampling->has_rates || !m->view.has_system || !m->view.system.driver[0])
                return errinfo_set(e, -EBUSY, "No plan yet: the daemon has not sampled every CPU twice, "
                                   "try again after a tick");
        /* A copy replanned would show no CPU, or the plans of the costs
         * before the calibration. */
        if (!policy_step_has_plan(m->policy.loop))
                return errinfo_set(e, -EBUSY, "No plan yet: no tick has planned a CPU since the start (a "
                                   "calibration holds the policy while it runs), try again after the next tick");
        if (m->policy.loop->ticks == m->calib.result_ticks)
                return errinfo_set(e, -EBUSY, "No plan yet with the new calibration: the first tick since it "
                                   "finished has not run, try again after the next tick");
        r = loop_copy(m->policy.loop, &loop);
        if (r >= 0)
                r = preview(m, prof, &loop, &p);
        if (r < 0) {
                profile_preview_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}
