/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctl-consolidate.h"
#include "ctl-format.h"
#include "ctl-interval.h"
#include "ctl-json.h"
#include "ctl-model.h"
#include "ctl-util.h"

#define LABEL "%-13s"

static void print_governor(const CtlStatus *s) {
        printf(LABEL "%s", "Governor:", s->governor ? s->governor : "?");
        if (s->available_governors && s->available_governors[0]) {
                printf(" (available:");
                for (char **g = s->available_governors; *g; g++)
                        printf(" %s", *g);
                printf(")");
        }
        printf("\n");
}

static void print_haltpoll(const CtlStatus *s) {
        for (size_t i = 0; i < s->n_haltpoll; i++)
                printf(LABEL "%s=%llu\n", i == 0 ? "HaltPoll:" : "", s->haltpoll[i].name,
                       (unsigned long long) s->haltpoll[i].value);
}

static void print_changed(const CtlStatus *s) {
        if (s->n_changed == 0) {
                printf(LABEL "nothing\n", "Changed:");
                return;
        }
        printf(LABEL "%zu knob%s ('idlepolicyctl restore' puts %s back)\n", "Changed:",
               s->n_changed, s->n_changed == 1 ? "" : "s", s->n_changed == 1 ? "it" : "them");
        for (size_t i = 0; i < s->n_changed; i++)
                printf(LABEL "%s (was %s)\n", "", s->changed[i].path, s->changed[i].original);
}

/* What clients could not do (a pod's bad annotation), newest last. */
static void print_reports(const CtlStatus *s) {
        for (size_t i = 0; i < s->n_reports; i++)
                printf(LABEL "%s: %s\n", i == 0 ? "Reports:" : "", s->reports[i].source, s->reports[i].message);
}

/* Profile, mode, calibration, halt-poll decision. */
static void print_policy(const CtlStatus *s) {
        char when[64] = "never";
        time_t t = (time_t) (s->calibration_usec / 1000000u);
        struct tm tm;

        if (s->calibration_usec > 0 && localtime_r(&t, &tm))
                strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
        printf(LABEL "%s\n", "Profile:", s->active_profile ? s->active_profile : "?");
        printf(LABEL "%s%s\n", "Mode:", s->mode ? s->mode : "?",
               s->mode && strcmp(s->mode, "observe") == 0 ? " (the plan is shown, not applied)" : "");
        if (s->companion_mode)
                printf(LABEL "%s\n", "Companion:", "companion mode (wteo): the governor chooses per idle entry; "
                       "the daemon sets its parameters, no disable bits");
        printf(LABEL "%s%s\n", "Calibrated:", when, s->calibrating ? " (calibrating now)" : "");
        if (s->poll_mode && s->poll_mode[0]) {
                printf(LABEL "%s", "Halt-poll:", s->poll_mode);
                if (strcmp(s->poll_mode, "window") == 0)
                        printf(" %lluus", (unsigned long long) (s->poll_window_nsec / 1000));
                printf("\n");
        }
}

/* The CPU latency request: its value, who holds it, what it keeps out. */
static void print_latency_request(const CtlLatencyRequest *l) {
        if (!l->known)
                return;
        printf(LABEL, "Latency QoS:");
        if (l->usec < 0) {
                printf("unknown: %s\n", l->error && l->error[0] ? l->error : "not read");
                return;
        }
        if (l->usec >= CTL_LATENCY_REQUEST_NONE) {
                printf("no request (/dev/cpu_dma_latency)\n");
                return;
        }
        printf("%d us requested", (int) l->usec);
        for (size_t i = 0; i < l->n_holders; i++)
                printf("%s %u (%s)", i == 0 ? " by" : ",", l->holders[i].pid, l->holders[i].comm ? l->holders[i].comm : "?");
        if (l->n_holders == 0)
                printf(" (no process holds /dev/cpu_dma_latency: a kernel driver does)");
        if (l->hidden > 0)
                printf(" (%u process%s could not be looked into)", l->hidden, l->hidden == 1 ? "" : "es");
        printf("\n" LABEL "no CPU enters an idle state with an exit latency above %d us\n", "", (int) l->usec);
}

/* Following power-profiles-daemon: whose profile, and whether it is in force. */
static void print_power_profiles(const CtlStatus *s) {
        const CtlPowerProfiles *p = &s->power_profiles;

        if (!p->known || !p->follow)
                return;
        printf(LABEL "power-profiles-daemon", "Follows:");
        if (!p->bus_name || !p->bus_name[0]) {
                printf(": not on the bus, the profile stays%s%s%s\n", p->profile && p->profile[0] ? " (last: " : "",
                       p->profile && p->profile[0] ? p->profile : "", p->profile && p->profile[0] ? ")" : "");
                return;
        }
        printf(" (%s): %s", p->bus_name, p->profile && p->profile[0] ? p->profile : "?");
        if (p->profile && p->profile[0] && !strv_contains(s->profiles, p->profile))
                printf("; not a profile here, %s stays", s->active_profile ? s->active_profile : "?");
        else if (p->profile && s->active_profile && strcmp(p->profile, s->active_profile) != 0)
                printf("; overridden by hand until it changes again");
        printf("\n");
}

static void print_manager(const CtlStatus *s) {
        char tick[32];

        printf(LABEL "%s\n", "Daemon:", s->version ? s->version : "?");
        printf(LABEL "%s\n", "Driver:", s->driver && s->driver[0] ? s->driver : "none");
        print_governor(s);
        printf(LABEL "%s\n", "Online CPUs:", s->online_cpus ? s->online_cpus : "?");
        printf(LABEL "%s\n", "Tick:", ctl_format_usec(s->tick_usec, tick, sizeof(tick)));
        if (s->window_usec > 0) {
                char window[32];

                printf(LABEL "over %s: shares and misses from the kernel's counters, utilisation and wakeups "
                       "the mean of %u tick%s\n", "Rates:", ctl_format_usec(s->window_usec, window, sizeof(window)),
                       s->window_ticks, s->window_ticks == 1 ? "" : "s");
        } else
                printf(LABEL "the last tick (--interval DURATION averages over a window)\n", "Rates:");
        print_haltpoll(s);
        print_policy(s);
        print_power_profiles(s);
        print_latency_request(&s->latency_request);
        ctl_consolidation_print(&s->consolidation);
        if (s->metrics_textfile_error && s->metrics_textfile_error[0])
                printf(LABEL "textfile not written: %s\n", "Metrics:", s->metrics_textfile_error);
        print_changed(s);
        print_reports(s);
}

static void print_cpu_header(const CtlCpu *cpu) {
        char util[16], timer[32], other[32], latency[32];

        printf("\nCPU %u: %s", cpu->index, cpu->online ? "online" : "offline");
        if (!cpu->online) {
                printf("\n");
                return;
        }
        printf(", util %s, wakeups/s %s timer + %s other, resume latency %s\n",
               ctl_format_percent(cpu->util >= 0 ? cpu->util * 100 : -1, util, sizeof(util)),
               ctl_format_rate(cpu->timer_wakeups, timer, sizeof(timer)),
               ctl_format_rate(cpu->other_wakeups, other, sizeof(other)),
               ctl_format_latency(cpu->resume_latency_us, latency, sizeof(latency)));
        printf("  plan: cap %s (%s), floor %s (%s)", ctl_state_name(cpu, cpu->cap), cpu->cap_reason ? cpu->cap_reason : "?",
               ctl_state_name(cpu, cpu->floor), cpu->floor_reason ? cpu->floor_reason : "?");
        if (ctl_value_known(cpu->poll_success))
                printf(", polls ending in a wakeup %s", ctl_format_percent(cpu->poll_success * 100, util, sizeof(util)));
        printf("\n");
        if (cpu->reason && cpu->reason[0])
                printf("  why:  %s\n", cpu->reason);
        if (cpu->profile)
                printf("  profile: %s (%s)\n", cpu->profile, cpu->profile_source ? cpu->profile_source : "?");
        if (cpu->wteo_tolerance >= 0)
                printf("  wteo tolerance %d/1024 (%.1f%% accepted risk of too deep)\n", (int) cpu->wteo_tolerance,
                       cpu->wteo_tolerance * 100.0 / 1024.0);
}

/* Returns the width of the NAME column for cpu. */
static int name_width(const CtlCpu *cpu) {
        size_t w = strlen("NAME");

        for (size_t i = 0; i < cpu->n_states; i++)
                if (cpu->states[i].name && strlen(cpu->states[i].name) > w)
                        w = strlen(cpu->states[i].name);
        return (int) w;
}

#define ROW "  %2s  %-*s  %9s  %9s  %7s  %9s  %-7s  %6s  %6s  %8s  %11s\n"

/* Prints one state row.  Returns true if its enabled bit is not the default. */
static bool print_state(const CtlState *st, int width) {
        char index[16], exit[32], measured[40], entry[32], res[32], enabled[8], usage[16], time[16], deep[16],
                shallow[16];
        bool changed = st->disabled == st->default_enabled;
        double none = -1;

        snprintf(index, sizeof(index), "%u", st->index);
        snprintf(enabled, sizeof(enabled), "%s%s", st->disabled ? "no" : "yes", changed ? "*" : "");
        snprintf(measured, sizeof(measured), "-");
        if (st->calibrated)
                ctl_format_usec(st->measured_us, measured, sizeof(measured) - 1);
        if (st->calibrated && st->misdescribed)
                strcat(measured, "!");
        snprintf(entry, sizeof(entry), "-");
        if (st->calibrated && st->has_entry)
                ctl_format_usec(st->entry_us, entry, sizeof(entry));
        printf(ROW, index, width, st->name ? st->name : "?",
               ctl_format_usec(st->latency_us, exit, sizeof(exit)), measured, entry,
               ctl_format_usec(st->residency_us, res, sizeof(res)), enabled,
               ctl_format_percent(st->has_rates ? st->usage_share_pct : none, usage, sizeof(usage)),
               ctl_format_percent(st->has_rates ? st->time_share_pct : none, time, sizeof(time)),
               ctl_format_percent(st->has_rates ? st->too_deep_pct : none, deep, sizeof(deep)),
               ctl_format_percent(st->has_rates ? st->too_shallow_pct : none, shallow, sizeof(shallow)));
        return changed;
}

/* Prints cpu's header and state table.  Returns true if a state's enabled
 * bit is not the kernel's default. */
static bool print_cpu(const CtlCpu *cpu) {
        int width = name_width(cpu);
        bool changed = false;

        print_cpu_header(cpu);
        if (cpu->n_states == 0)
                return false;
        printf(ROW, "#", width, "NAME", "EXIT LAT", "MEASURED", "ENTRY", "RESIDENCY", "ENABLED", "USAGE", "TIME",
               "TOO DEEP", "TOO SHALLOW");
        for (size_t i = 0; i < cpu->n_states; i++)
                changed |= print_state(&cpu->states[i], width);
        return changed;
}

static bool misdescribed(const CtlStatus *s) {
        for (size_t i = 0; i < s->n_cpus; i++)
                for (size_t k = 0; k < s->cpus[i].n_states; k++)
                        if (s->cpus[i].states[k].misdescribed)
                                return true;
        return false;
}

/* The status of the last tick, or over --interval.  Returns 0, or an exit
 * status after printing why. */
static int fetch_status(Ctl *c, CtlStatus *s) {
        uint64_t usec;

        if (!c->interval)
                return ctl_fetch_all(c, s) < 0 ? CTL_EXIT_FAILURE : 0;
        if (ctl_parse_duration(c->interval, &usec) < 0)
                return ctl_usage_error("invalid interval '%s' (a duration such as 10s, 500ms or 2min, "
                                       "up to a day)", c->interval);
        return ctl_fetch_window(c, usec, s) < 0 ? CTL_EXIT_FAILURE : 0;
}

int ctl_cmd_status(Ctl *c, char **args) {
        _cleanup_(ctl_status_done) CtlStatus s = CTL_STATUS_NULL;
        bool changed = false;
        int r;

        r = fetch_status(c, &s);
        if (r != 0)
                return r;
        if (c->json)
                return ctl_json_print_status(&s) < 0 ? CTL_EXIT_FAILURE : CTL_EXIT_OK;
        print_manager(&s);
        for (size_t i = 0; i < s.n_cpus; i++)
                changed |= print_cpu(&s.cpus[i]);
        if (changed)
                printf("\n* not the kernel's default\n");
        if (misdescribed(&s))
                printf("%s! mis-described: the measured wakeup cost is far above the advertised exit latency\n",
                       changed ? "" : "\n");
        return CTL_EXIT_OK;
}
