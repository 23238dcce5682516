/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one line that explains a CPU's plan in force ("Reason" on the bus):
 * for the cap and the floor, the rule that set it and the numbers behind
 * it; on KVM guests, the halt-poll decision. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "policy-step.h"

/* snprintf() that truncates quietly: these are explanations, not data. */
static void put(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(buf, size, fmt, ap);
        va_end(ap);
}

#define PCT(q10) ((unsigned) (((q10) * 100u + 512u) / 1024u))

/* Explains a MODEL end at state s: what the evidence in the row of the
 * state beyond it says (as the policy reads it). */
static void explain_model(char *buf, size_t size, const PolicyCpu *c, bool is_cap, unsigned s,
                          const CpuidleStateInfo *info) {
        if (is_cap && s + 1 < c->n_states)
                put(buf, size, "the model: %s was too deep %u%% of the time",
                         info[s + 1].name, PCT(model_evidence_shallower(&c->model, s + 1)));
        else if (!is_cap && s > 0)
                put(buf, size, "the model: %s was too shallow %u%% of the time",
                         info[s - 1].name, PCT(model_evidence_deeper(&c->model, s - 1)));
        else
                put(buf, size, "the model");
}

/* Explains why the cap (is_cap) or the floor is where it is. */
static void explain(char *buf, size_t size, const PolicyCpu *c, const Profile *prof, bool is_cap,
                    const CpuidleStateInfo *info) {
        PlanReason r = is_cap ? c->cap_reason : c->floor_reason;
        unsigned s = is_cap ? c->cap : c->floor;

        switch (r) {
        case PLAN_REASON_MODEL:
                explain_model(buf, size, c, is_cap, s, info);
                break;
        case PLAN_REASON_PROFILE_LIMIT:
                put(buf, size, "deeper states exceed %s's %uus latency limit", prof->name, prof->latency_limit_us);
                break;
        case PLAN_REASON_MISDESCRIBED:
                put(buf, size, "a deeper state is mis-described: its measured latency exceeds %s's %uus limit",
                         prof->name, prof->latency_limit_us);
                break;
        case PLAN_REASON_UTIL:
                put(buf, size, "util %u%% above %s's %u%%", c->tick.util >= 0 ? PCT((unsigned) c->tick.util) : 0,
                         prof->name, PCT(prof->util_threshold));
                break;
        case PLAN_REASON_EXPLORATION:
                put(buf, size, "exploring: %s allowed for one tick to re-measure it", info[s].name);
                break;
        case PLAN_REASON_HOLD:
                put(buf, size, "held for hysteresis (%u ticks)", prof->hold_ticks);
                break;
        case PLAN_REASON_MANUAL:
                put(buf, size, "set by hand");
                break;
        case PLAN_REASON_CONSOLIDATION:
                if (prof->latency_limit_us)
                        put(buf, size, "consolidation: freed, the deepest state within %s's %uus latency limit",
                            prof->name, prof->latency_limit_us);
                else
                        put(buf, size, "consolidation: freed, the deepest state (%s sets no latency limit)", prof->name);
                break;
        case PLAN_REASON_POLL_ECONOMICS:
                if (c->tick.states[s].polling)
                        put(buf, size, "polling only is cheaper at %s's burn price", prof->name);
                else
                        put(buf, size, "polling only does not pay at %s's burn price", prof->name);
                break;
        default:
                put(buf, size, "nothing limits it");
                break;
        }
}

void plan_reason_format(PolicyCpu *c, const Profile *prof, const PolicySystem *sys, const CpuidleStateInfo *info) {
        char cap[128], floor[128], poll[96] = "";

        explain(cap, sizeof(cap), c, prof, true, info);
        explain(floor, sizeof(floor), c, prof, false, info);
        if (policy_search_owns_cpu(sys, prof)) {
                const char *held = sys->search.arm == POLL_SEARCH_ONLY ? "polling only" :
                                   sys->search.arm                     ? "a halt-poll window" :
                                                                         "no polling (POLL off, the tick kept)";

                if (c->cap_reason == PLAN_REASON_POLL_ECONOMICS)
                        put(cap, sizeof(cap), "the poll search holds %s", held);
                if (c->floor_reason == PLAN_REASON_POLL_ECONOMICS)
                        put(floor, sizeof(floor), "the poll search holds %s", held);
                if (sys->search.arm == POLL_SEARCH_ONLY)
                        put(poll, sizeof(poll), "; poll search (%s, CPU weight %u%%): polling only",
                            poll_search_phase_to_string(sys->search.phase), PCT(prof->poll_search));
                else
                        put(poll, sizeof(poll), "; poll search (%s, CPU weight %u%%): machine window %lluus",
                            poll_search_phase_to_string(sys->search.phase), PCT(prof->poll_search),
                            (unsigned long long) (sys->poll.window_ns / 1000));
        } else if (sys->kvm && sys->has_poll && c->has_poll && sys->poll.mode == POLL_MODE_WINDOW)
                put(poll, sizeof(poll), "; halt-poll: this CPU %s (success %u%%), machine window %lluus",
                    poll_mode_to_string(c->poll.mode), PCT(c->poll.success),
                    (unsigned long long) (sys->poll.window_ns / 1000));
        else if (sys->kvm && sys->has_poll && c->has_poll)
                put(poll, sizeof(poll), "; halt-poll: this CPU %s (success %u%%), machine %s",
                    poll_mode_to_string(c->poll.mode), PCT(c->poll.success), poll_mode_to_string(sys->poll.mode));
        put(c->reason, sizeof(c->reason), "cap %s: %s; floor %s: %s%s",
                 info[c->cap].name, cap, info[c->floor].name, floor, poll);
}
