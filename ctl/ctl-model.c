/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Looking things up in a CtlStatus (ctl-model.h), without a bus. */
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
