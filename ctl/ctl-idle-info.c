/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "idle-info [--cpu LIST]": every idle state's totals since boot, as
 * cpupower idle-info shows them (the CPU objects' Counters: the kernel's
 * usage, time, above, below, rejected), with the share of the CPU's idle
 * time and of its entries that were too deep or too shallow. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cpuset.h"
#include "ctl-format.h"
#include "ctl-json.h"
#include "ctl-model.h"

#define ROW "  %2s  %-*s  %7s  %10s  %8s  %6s  %7s  %7s  %8s\n"

static int name_width(const CtlCpu *cpu) {
        size_t w = strlen("NAME");

        for (size_t k = 0; k < cpu->n_states; k++)
                if (cpu->states[k].name && strlen(cpu->states[k].name) + (cpu->states[k].disabled ? 5 : 0) > w)
                        w = strlen(cpu->states[k].name) + (cpu->states[k].disabled ? 5 : 0);
        return (int) w;
}

static void print_state(const CtlState *st, uint64_t idle_us, int width) {
        char index[16], name[64], latency[32], entries[32], time[32], share[16], above[16], below[16], rejected[32];

        snprintf(index, sizeof(index), "%u", st->index);
        snprintf(name, sizeof(name), "%s%s", st->name ? st->name : "?", st->disabled ? " [off]" : "");
        snprintf(entries, sizeof(entries), "%" PRIu64, st->usage);
        snprintf(rejected, sizeof(rejected), "%" PRIu64, st->rejected);
        printf(ROW, index, width, name, ctl_format_usec(st->latency_us, latency, sizeof(latency)), entries,
               ctl_format_total(st->time_us, time, sizeof(time)),
               ctl_format_percent(ctl_pct(st->time_us, idle_us), share, sizeof(share)),
               ctl_format_percent(ctl_pct(st->above, st->usage), above, sizeof(above)),
               ctl_format_percent(ctl_pct(st->below, st->usage), below, sizeof(below)), rejected);
}

static void print_cpu(const CtlCpu *cpu) {
        uint64_t entries = 0, idle_us = 0;
        char total[32];
        int width = name_width(cpu);

        for (size_t k = 0; k < cpu->n_states; k++) {
                entries += cpu->states[k].usage;
                idle_us += cpu->states[k].time_us;
        }
        printf("CPU %u: %s", cpu->index, cpu->online ? "online" : "offline");
        if (!cpu->online || cpu->n_states == 0) {
                printf("\n\n");
                return;
        }
        printf(", %" PRIu64 " idle entries, %s idle since boot\n", entries,
               ctl_format_total(idle_us, total, sizeof(total)));
        printf(ROW, "#", width, "NAME", "LATENCY", "ENTRIES", "TIME", "IDLE", "ABOVE", "BELOW", "REJECTED");
        for (size_t k = 0; k < cpu->n_states; k++)
                print_state(&cpu->states[k], idle_us, width);
        printf("\n");
}

/* Every CPU of set must be in s.  Returns 0, or an exit status after
 * printing which is not, with those that are. */
static int check_cpus(const Ctl *c, const CtlStatus *s, const CpuSet *set) {
        char present[256];

        CPUSET_FOREACH(cpu, set)
                if (!ctl_status_cpu(s, (uint32_t) cpu)) {
                        fprintf(stderr, "idlepolicyctl: there is no CPU %d (CPUs present: %s)\n", cpu,
                                ctl_status_cpu_list(s, false, present, sizeof(present)));
                        if (c->json)
                                (void) ctl_json_print_error(NULL, "no such CPU");
                        return CTL_EXIT_FAILURE;
                }
        return 0;
}

int ctl_cmd_idle_info(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        ErrorInfo e = {};
        CpuSet set;
        bool all;
        int r;

        if (ctl_parse_cpus(c->cpu_list, &all, &set, &e) < 0)
                return ctl_usage_error("invalid CPU list '%s': %s", c->cpu_list, e.message);
        if (ctl_fetch_all(c, &s) < 0)
                return CTL_EXIT_FAILURE;
        r = all ? 0 : check_cpus(c, &s, &set);
        if (r != 0)
                return r;
        if (c->json)
                return ctl_json_print_idle_info(&s, all ? NULL : &set) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        printf("Driver %s, governor %s; totals since boot (the kernel's counters).\n\n",
               s.driver && s.driver[0] ? s.driver : "none", s.governor ? s.governor : "?");
        for (size_t i = 0; i < s.n_cpus; i++)
                if ((all && s.cpus[i].online) || (!all && cpuset_contains(&set, s.cpus[i].index)))
                        print_cpu(&s.cpus[i]);
        printf("IDLE: share of the CPU's idle time; ABOVE (too deep), BELOW (too shallow): share of the\n"
               "state's entries; [off]: disabled now.\n");
        return CTL_EXIT_OK;
}
