/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "policy-preview.h"

bool policy_step_has_plan(const PolicyStep *l) {
        for (unsigned cpu = 0; cpu < l->n_cpus; cpu++)
                if (l->cpus[cpu].active && l->cpus[cpu].settled)
                        return true;
        return false;
}

bool policy_cpu_polls_only(const PolicyCpu *c) {
        return c->active && c->settled && c->cap < c->n_states && c->tick.states[c->cap].polling;
}

/* The share of c's last tick it was idle: 1 - util, 1 when unknown. */
static double idle_share(const PolicyCpu *c) {
        return c->tick.util >= 0 && c->tick.util <= 1024 ? 1.0 - c->tick.util / 1024.0 : 1.0;
}

double policy_poll_burn(const PolicyCpu *c, const PolicySystem *sys) {
        double idle = idle_share(c), window;

        if (!c->active || !c->settled)
                return -1;
        if (policy_cpu_polls_only(c))
                return idle;
        if (!sys->kvm || !sys->has_poll || sys->poll.mode != POLL_MODE_WINDOW || c->tick.interval_us == 0)
                return 0;
        /* A poll of up to the window before each of the tick's wakeups. */
        window = (double) sys->poll.window_ns / 1e3 * (double) (c->tick.d_timer_wakeups + c->tick.d_other_wakeups) /
                 (double) c->tick.interval_us;
        return window < idle ? window : idle;
}
