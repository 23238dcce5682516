/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Looking things up in a CtlStatus (ctl-model.h), without a bus. */
#include <stdio.h>
#include <stdlib.h>

#include "cpuset.h"
#include "ctl-model.h"

const CtlCpu *ctl_status_cpu(const CtlStatus *s, uint32_t index) {
        for (size_t i = 0; i < s->n_cpus; i++)
                if (s->cpus[i].index == index)
                        return &s->cpus[i];
        return NULL;
}

const char *ctl_state_name(const CtlCpu *cpu, uint32_t index) {
        for (size_t i = 0; i < cpu->n_states; i++)
                if (cpu->states[i].index == index && cpu->states[i].name)
                        return cpu->states[i].name;
        return "?";
}

const char *ctl_status_cpu_list(const CtlStatus *s, bool online, char *buf, size_t size) {
        CpuSet set;

        cpuset_clear(&set);
        for (size_t i = 0; i < s->n_cpus; i++)
                if (!online || s->cpus[i].online)
                        cpuset_add(&set, s->cpus[i].index);
        if (cpuset_count(&set) == 0)
                snprintf(buf, size, "none");
        else if (cpuset_format(&set, buf, size) < 0)
                snprintf(buf, size, "?");
        return buf;
}

void ctl_preview_done(CtlPreview *p) {
        for (size_t i = 0; i < p->n_cpus; i++) {
                free(p->cpus[i].profile);
                free(p->cpus[i].cap_reason);
                free(p->cpus[i].floor_reason);
                free(p->cpus[i].reason);
        }
        for (size_t i = 0; i < p->n_knobs; i++) {
                free(p->knobs[i].path);
                free(p->knobs[i].now);
                free(p->knobs[i].then);
        }
        free(p->cpus);
        free(p->knobs);
        free(p->profile);
        free(p->governor);
        free(p->poll_mode);
        *p = CTL_PREVIEW_NULL;
}

bool ctl_preview_polls_every_cpu(const CtlPreview *p) {
        for (size_t i = 0; i < p->n_cpus; i++)
                if (!p->cpus[i].polls_only)
                        return false;
        return p->n_cpus > 0;
}

double ctl_preview_burn(const CtlPreview *p) {
        double sum = 0;

        for (size_t i = 0; i < p->n_cpus; i++)
                if (p->cpus[i].burn > 0)
                        sum += p->cpus[i].burn;
        return sum;
}

char *ctl_preview_warning(const CtlPreview *p, char *buf, size_t size) {
        buf[0] = '\0';
        if (!ctl_preview_polls_every_cpu(p))
                return buf;
        snprintf(buf, size, "with %s every CPU polls while idle (its deepest state allowed is a polling one): "
                 "%zu CPU%s spin through their idle time, up to %.2f CPUs at the last tick's load; on a KVM "
                 "guest every vCPU keeps its host CPU busy ('idlepolicyctl profile %s --dry-run' shows the plan)",
                 p->profile, p->n_cpus, p->n_cpus == 1 ? "" : "s", ctl_preview_burn(p), p->profile);
        return buf;
}
