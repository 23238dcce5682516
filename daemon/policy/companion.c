/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Companion mode's reading side (companion.h): what the wteo governor
 * shows per CPU, its tolerance every tick, its matrix when asked. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "companion.h"
#include "log.h"

bool companion_governs(const CpuidleSystem *s) {
        return strcmp(s->governor, CPUIDLE_GOVERNOR_WTEO) == 0;
}

/* Makes room for n CPUs (new slots empty).  Returns 0 or -ENOMEM. */
static int companion_resize(Companion *c, unsigned n) {
        CompanionCpu *cpus;

        if (n <= c->n_cpus)
                return 0;
        cpus = realloc(c->cpus, n * sizeof(CompanionCpu));
        if (!cpus)
                return -ENOMEM;
        memset(cpus + c->n_cpus, 0, (n - c->n_cpus) * sizeof(CompanionCpu));
        c->cpus = cpus;
        c->n_cpus = n;
        return 0;
}

/* Reads cpu's tolerance into x (a bad one is logged at debug level: the
 * next write of the daemon's own value replaces it). */
static void read_tolerance(CompanionCpu *x, int root_fd, unsigned cpu) {
        ErrorInfo e = {};
        int r = wteo_tolerance_read(root_fd, cpu, &x->tolerance, &e);

        x->has_tolerance = r >= 0;
        if (r < 0 && r != -ENOENT)
                log_debug("Failed to read CPU %u's wteo tolerance: %s, ignoring", cpu, e.message);
}

int companion_read(Companion *c, int root_fd, const CpuidleSystem *s, const Sampling *smp) {
        const Topology *t = smp->topology;
        bool was = c->active;

        c->active = companion_governs(s);
        if (companion_resize(c, t->n_cpus) < 0)
                return -ENOMEM;
        for (unsigned cpu = 0; cpu < c->n_cpus; cpu++) {
                CompanionCpu *x = &c->cpus[cpu];
                unsigned n = 0;

                if (cpu < t->n_cpus && c->active && t->cpus[cpu].online)
                        (void) cpuidle_sampler_states(smp->sampler, cpu, &n);
                if (n == 0) {
                        *x = (CompanionCpu) {};
                        continue;
                }
                read_tolerance(x, root_fd, cpu);
        }
        return c->active != was;
}

int companion_matrix(Companion *c, int root_fd, const Sampling *smp, unsigned cpu, WteoMatrix *ret) {
        CompanionCpu *x = cpu < c->n_cpus ? &c->cpus[cpu] : NULL;
        ErrorInfo e = {};
        unsigned n = 0;
        int r;

        if (x && c->active && cpu < smp->topology->n_cpus && smp->topology->cpus[cpu].online)
                (void) cpuidle_sampler_states(smp->sampler, cpu, &n);
        if (n == 0) {
                if (x)
                        x->matrix_error[0] = '\0';
                return -ENOENT;
        }
        r = wteo_matrix_read(root_fd, cpu, n, ret, &e);
        if (r >= 0 || r == -ENOENT) {
                if (x->matrix_error[0] && r >= 0)
                        log_info("CPU %u's wteo matrix is valid again.", cpu);
                x->matrix_error[0] = '\0';
                return r;
        }
        if (strcmp(x->matrix_error, e.message) != 0)
                log_warning("Ignoring CPU %u's wteo matrix: %s", cpu, e.message);
        snprintf(x->matrix_error, sizeof(x->matrix_error), "%s", e.message);
        return r;
}

const CompanionCpu *companion_cpu(const Companion *c, unsigned cpu) {
        return c && cpu < c->n_cpus ? &c->cpus[cpu] : NULL;
}

void companion_done(Companion *c) {
        free(c->cpus);
        *c = (Companion) {};
}
