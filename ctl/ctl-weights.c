/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "weights --cpu N": the model's matrix W[s][j] of one CPU: when state s
 * was entered, how often state j was the right one.  In companion mode
 * the wteo governor's own matrix instead (read by the daemon from
 * cpuN/wteo/matrix): when the next timer pointed at state s, how often
 * state j was the right one. */
#include <stdio.h>

#include "ctl-bus.h"
#include "ctl-format.h"
#include "ctl-json.h"
#include "ctl-model.h"
#include "fileio.h"

static void print_matrix(const CtlCpu *cpu, const uint16_t *w, size_t n, const char *corner) {
        printf("%-16s", corner);
        for (size_t j = 0; j < n; j++)
                printf("  %10s", ctl_state_name(cpu, (uint32_t) j));
        printf("\n");
        for (size_t s = 0; s < n; s++) {
                printf("%-16s", ctl_state_name(cpu, (uint32_t) s));
                for (size_t j = 0; j < n; j++) {
                        char cell[16];

                        printf("  %10s", ctl_format_percent(w[s * n + j] * 100.0 / 1024.0, cell, sizeof(cell)));
                }
                printf("\n");
        }
}

static void print_weights(const CtlCpu *cpu) {
        printf("CPU %u: when the row's state was entered, the share of entries for which the column's\n"
               "state was right (too deep left of the diagonal, too shallow right of it).\n\n", cpu->index);
        print_matrix(cpu, cpu->weights, cpu->n_weights, "ENTERED \\ RIGHT");
}

/* Companion mode: the kernel's matrix, or why there is none. */
static void print_kernel_weights(const CtlCpu *cpu) {
        if (cpu->n_kernel_weights == 0) {
                printf("CPU %u: companion mode, but the wteo governor's matrix is not shown: %s\n", cpu->index,
                       cpu->kernel_weights_error && cpu->kernel_weights_error[0] ? cpu->kernel_weights_error :
                       "not read yet (wteo does not govern this CPU, or no tick since)");
                return;
        }
        printf("CPU %u, companion mode: the wteo governor's own matrix (the kernel's cpu%u/wteo/matrix,\n"
               "tolerance %d/1024): when the next timer pointed at the row's state, the share of wakeups\n"
               "for which the column's state was right.\n\n", cpu->index, cpu->index, (int) cpu->wteo_tolerance);
        print_matrix(cpu, cpu->kernel_weights, cpu->n_kernel_weights, "TIMER \\ RIGHT");
}

int ctl_cmd_weights(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        const CtlCpu *cpu;
        uint32_t index;

        if (!c->cpu_list || parse_u32(c->cpu_list, &index) < 0)
                return ctl_usage_error("'weights' needs one CPU: --cpu N");
        if (ctl_fetch_all(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        cpu = ctl_status_cpu(&s, index);
        if (!cpu) {
                char present[256];

                fprintf(stderr, "idlepolicyctl: there is no CPU %u (CPUs present: %s)\n", index,
                        ctl_status_cpu_list(&s, false, present, sizeof(present)));
                if (c->json)
                        (void) ctl_json_print_error(NULL, "no such CPU");
                return CTL_EXIT_FAILURE;
        }
        if (c->json)
                return ctl_json_print_weights(cpu, s.companion_mode) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        if (s.companion_mode) {
                print_kernel_weights(cpu);
                return CTL_EXIT_OK;
        }
        if (cpu->n_weights == 0) {
                printf("CPU %u has no model yet (offline, or not sampled twice).\n", index);
                return CTL_EXIT_OK;
        }
        print_weights(cpu);
        return CTL_EXIT_OK;
}
