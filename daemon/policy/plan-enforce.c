/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "plan-enforce.h"

/* The knob values the plan in force wants of one owner (the plan's own
 * knobs, the companion's wteo knobs), handed to enforce_write_knobs(). */
typedef struct WantedKnobs {
        ChangeOwner owner;
        EnforceKnob *knobs;
        size_t n, allocated;
} WantedKnobs;

static void wanted_knobs_done(WantedKnobs *l) {
        free(l->knobs);
        l->knobs = NULL;
        l->n = l->allocated = 0;
}

/* Returns 0 or -ENOMEM. */
static int wanted_knobs_add(WantedKnobs *l, const char *path, const char *value) {
        if (array_reserve_one((void **) &l->knobs, l->n, &l->allocated, sizeof(EnforceKnob)) < 0)
                return -ENOMEM;
        snprintf(l->knobs[l->n].path, KNOB_PATH_MAX, "%s", path);
        snprintf(l->knobs[l->n].value, KNOB_VALUE_MAX, "%s", value);
        l->n++;
        return 0;
}

void plan_enforcer_done(PlanEnforcer *pe) {
        free(pe->unsampled);
        pe->unsampled = NULL;
        pe->n_unsampled = pe->allocated = 0;
}

static bool unsampled_contains(const PlanEnforcer *pe, const char *path) {
        for (size_t i = 0; i < pe->n_unsampled; i++)
                if (strcmp(pe->unsampled[i].path, path) == 0)
                        return true;
        return false;
}

/* Remembers the knobs just written (every one asked: those found as
 * asked are harmless extras).  Returns 0 or -ENOMEM. */
static int unsampled_add(PlanEnforcer *pe, const EnforceKnob *knobs, size_t n) {
        for (size_t i = 0; i < n; i++) {
                if (unsampled_contains(pe, knobs[i].path))
                        continue;
                if (array_reserve_one((void **) &pe->unsampled, pe->n_unsampled, &pe->allocated, sizeof(EnforceKnob)) < 0)
                        return -ENOMEM;
                pe->unsampled[pe->n_unsampled++] = knobs[i];
        }
        return 0;
}

void plan_enforcer_sampled(PlanEnforcer *pe, const Sampling *s) {
        size_t kept = 0;

        for (size_t i = 0; s && i < pe->n_unsampled; i++) {
                const CpuidleCpuSample *smp;
                KnobId id;

                if (knob_parse(pe->unsampled[i].path, &id) < 0 || knob_kind_system(id.kind) || id.kind == KNOB_WTEO_TOLERANCE)
                        continue;
                smp = sampling_counters(s, id.cpu);
                if (!smp || smp->fresh)
                        continue;
                pe->unsampled[kept++] = pe->unsampled[i];
        }
        pe->n_unsampled = kept;
}

/* Adds the knob at path for l's owner: set to want when want is not NULL,
 * else back to its original if the owner (or a previous run) changed it.
 * A knob another owner holds (the administrator's, a calibration's) is
 * left alone.  current is what it held at the last sample: a knob written
 * since goes to enforce_write_knobs(), which reads it first.  Returns 0 or
 * -ENOMEM. */
static int want_knob(WantedKnobs *l, const PlanEnforcer *pe, const PolicySources *in, const char *path,
                     const char *want, const char *current) {
        ChangeOwner holder = change_owner_of(in->changes, path);

        if (change_owner_valid(holder) && change_owner_take(l->owner, holder) == CHANGE_TAKE_REFUSED)
                return 0;
        if (!want && (change_owner_equal(holder, l->owner) || holder.kind == CHANGE_OWNER_LEFTOVER))
                want = change_original(in->changes, path);
        if (!want || (strcmp(want, current) == 0 && !unsampled_contains(pe, path)))
                return 0;
        return wanted_knobs_add(l, path, want);
}

static bool companion_mode(const PolicySources *in) {
        return in->companion && in->companion->active;
}

/* Adds a wteo knob: value in companion mode, else back to its original if
 * the daemon changed it.  Its current value is unknown here (the sampler
 * does not read it): enforce_write_knobs() reads it and writes only if it
 * differs.  Returns 0 or -ENOMEM. */
static int want_wteo_knob(WantedKnobs *l, const PlanEnforcer *pe, const PolicySources *in, const char *path,
                          unsigned value) {
        char want[16];

        snprintf(want, sizeof(want), "%u", value);
        return want_knob(l, pe, in, path, companion_mode(in) ? want : NULL, "");
}

/* The tolerance CPU cpu gets: its profile's; a CPU consolidation freed
 * prices latency lowest (it is meant to sleep as deep as it can, as the
 * plan's floor says outside companion mode). */
static unsigned wteo_tolerance(const PolicySources *in, unsigned cpu) {
        if (in->consolidation_freed && cpuset_contains(in->consolidation_freed, cpu))
                return WTEO_ONE;
        return policy_sources_profile(in, cpu)->wteo.tolerance;
}

/* The resume latency CPU cpu wants: "n/a" when the plan polls only; in
 * companion mode, where no disable bit carries the profile's latency
 * limit, the limit itself (wteo, like teo and menu, honours the CPU's
 * resume latency QoS); NULL for no change (its original back). */
static const char *wanted_resume_latency(const PolicySources *in, unsigned cpu, bool poll_only, char buf[static 16]) {
        unsigned limit = policy_sources_profile(in, cpu)->latency_limit_us;

        if (poll_only)
                return "n/a";
        if (!companion_mode(in) || limit == 0)
                return NULL;
        snprintf(buf, 16, "%u", limit);
        return buf;
}

/* The wteo parameters (while the kernel has them) and the tolerance of
 * every CPU whose file was there at the tick. */
static int want_wteo(WantedKnobs *l, const PlanEnforcer *pe, const PolicyStep *pl, const PolicySources *in) {
        const ProfileWteo *w = &in->profile->wteo;
        char path[KNOB_PATH_MAX];
        int r = 0;

        if (in->system->has_wteo) {
                r = want_wteo_knob(l, pe, in, SYSFS_WTEO_LEARN_SHIFT, w->learn_shift);
                if (r >= 0)
                        r = want_wteo_knob(l, pe, in, SYSFS_WTEO_AGE_SHIFT, w->age_shift);
                if (r >= 0)
                        r = want_wteo_knob(l, pe, in, SYSFS_WTEO_EXPLORE_SHIFT, w->explore_shift);
        }
        for (unsigned cpu = 0; r >= 0 && cpu < pl->n_cpus; cpu++) {
                const CompanionCpu *x = companion_cpu(in->companion, cpu);

                if (x && x->has_tolerance)
                        r = want_wteo_knob(l, pe, in, knob_wteo_tolerance_path(cpu, path), wteo_tolerance(in, cpu));
        }
        return r;
}

/* The disable knobs and the resume latency of one CPU (in companion mode
 * no disable bit: those the plan set go back; the latency limit goes
 * through the resume latency instead). */
static int want_cpu(WantedKnobs *l, const PlanEnforcer *pe, const PolicyStep *pl, const PolicySources *in, unsigned cpu) {
        const PolicyCpu *c = &pl->cpus[cpu];
        const CpuidleCpuSample *smp = sampling_counters(in->sampling, cpu);
        unsigned n = 0;
        const CpuidleStateInfo *info = cpuidle_sampler_states(in->sampling->sampler, cpu, &n);
        /* Polling only goes through the resume latency as well as the
         * disable bits: "n/a" (no exit latency allowed) is honoured by every
         * governor, the haltpoll governor ignores the disable bits.  Not
         * when the administrator's own settings put the cap there. */
        bool poll_only = c->settled && c->cap < c->n_states && c->tick.states[c->cap].polling &&
                         c->cap_reason != PLAN_REASON_MANUAL;
        char path[KNOB_PATH_MAX], current[16], limit[16];
        int r = 0;

        if (!c->active || !c->settled || !smp || n != c->n_states)
                return 0;
        for (unsigned k = 0; r >= 0 && k < n; k++)
                if (info[k].files & CPUIDLE_HAS_DISABLE)
                        r = want_knob(l, pe, in, knob_state_disable_path(cpu, k, path),
                                      companion_mode(in) ? NULL : c->allowed[k] ? "0" : "1",
                                      smp->states[k].disabled ? "1" : "0");
        if (r < 0 || !smp->has_resume_latency)
                return r;
        cpuidle_format_resume_latency(smp->resume_latency_us, current);
        return want_knob(l, pe, in, knob_resume_latency_path(cpu, path),
                         wanted_resume_latency(in, cpu, poll_only, limit), current);
}

/* guest_halt_poll_ns: the window while the plan polls in one. */
static int want_haltpoll(WantedKnobs *l, const PlanEnforcer *pe, const PolicyStep *pl, const PolicySources *in) {
        const HaltpollParams *h = &in->system->haltpoll;
        char want[32], current[32];

        if (!h->present)
                return 0;
        snprintf(want, sizeof(want), "%" PRIu64, pl->sys.poll.window_ns);
        snprintf(current, sizeof(current), "%" PRIu64, h->poll_ns);
        return want_knob(l, pe, in, SYSFS_HALTPOLL_NS,
                         pl->sys.kvm && pl->sys.has_poll && pl->sys.poll.mode == POLL_MODE_WINDOW ? want : NULL, current);
}

/* The governor: at most once per hold when the plan merely prefers it, at
 * once when the plan needs it (a poll window needs the haltpoll governor). */
static int want_governor(WantedKnobs *l, const PlanEnforcer *pe, const PolicyStep *pl, const PolicySources *in,
                         uint64_t now_usec, uint64_t hold_usec, bool *ret_switch) {
        const char *want = pl->sys.governor[0] ? pl->sys.governor : NULL;
        size_t before = l->n;
        int r;

        *ret_switch = false;
        if (!in->system->governor_writable ||
            (!pl->sys.governor_required && pe->governor_switched_usec > 0 && now_usec - pe->governor_switched_usec < hold_usec))
                return 0;
        r = want_knob(l, pe, in, SYSFS_CPUIDLE_GOVERNOR, want, in->system->governor);
        *ret_switch = l->n > before;
        return r;
}

/* Writes l's knobs as one change of its owner.  Returns the number
 * written or a negative errno with e set. */
static int write_wanted(PlanEnforcer *pe, const EnforceTarget *t, const WantedKnobs *l, ErrorInfo *e) {
        EnforceTarget owned = *t;
        int r;

        owned.owner = l->owner;
        r = enforce_write_knobs(&owned, l->knobs, l->n, e);
        if (r > 0 && unsampled_add(pe, l->knobs, l->n) < 0)
                r = -ENOMEM;
        return r;
}

/* Every knob that differs from the plan of l: the plan's own into list
 * (*ret_governor: the governor among them, first), the companion's into
 * wteo.  Returns 0 or -ENOMEM. */
static int wanted_build(const PlanEnforcer *pe, const PolicyStep *l, const PolicySources *in, uint64_t now_usec,
                        uint64_t governor_hold_usec, WantedKnobs *list, WantedKnobs *wteo, bool *ret_governor) {
        int r = want_governor(list, pe, l, in, now_usec, governor_hold_usec, ret_governor);

        if (r >= 0)
                r = want_wteo(wteo, pe, l, in);
        if (r >= 0)
                r = want_haltpoll(list, pe, l, in);
        for (unsigned cpu = 0; r >= 0 && cpu < l->n_cpus; cpu++)
                r = want_cpu(list, pe, l, in, cpu);
        return r;
}

int plan_wanted_knobs(const PlanEnforcer *pe, const PolicyStep *l, const PolicySources *in, uint64_t now_usec,
                      uint64_t governor_hold_usec, EnforceKnob **ret_knobs, size_t *ret_n) {
        _cleanup_(wanted_knobs_done) WantedKnobs list = { .owner = CHANGE_OWNER(PLAN) };
        _cleanup_(wanted_knobs_done) WantedKnobs wteo = { .owner = CHANGE_OWNER(COMPANION) };
        bool governor;
        int r = wanted_build(pe, l, in, now_usec, governor_hold_usec, &list, &wteo, &governor);

        for (size_t i = 0; r >= 0 && i < wteo.n; i++)
                r = wanted_knobs_add(&list, wteo.knobs[i].path, wteo.knobs[i].value);
        if (r < 0)
                return r;
        *ret_knobs = TAKE_PTR(list.knobs);
        *ret_n = list.n;
        return 0;
}

/* Returns the number written or a negative errno. */
int plan_enforce(PlanEnforcer *pe, const PolicyStep *l, const PolicySources *in, const EnforceTarget *t,
                 uint64_t now_usec, uint64_t governor_hold_usec) {
        _cleanup_(wanted_knobs_done) WantedKnobs list = { .owner = CHANGE_OWNER(PLAN) };
        _cleanup_(wanted_knobs_done) WantedKnobs wteo = { .owner = CHANGE_OWNER(COMPANION) };
        ErrorInfo e = {};
        bool governor;
        int r, q = 0;

        r = wanted_build(pe, l, in, now_usec, governor_hold_usec, &list, &wteo, &governor);
        /* The plan's first: a governor switched to wteo is journaled before
         * any wteo knob (which exists only under wteo). */
        if (r >= 0)
                r = write_wanted(pe, t, &list, &e);
        if (r >= 0)
                q = write_wanted(pe, t, &wteo, &e);
        if (r >= 0)
                r = q < 0 ? q : r + q;
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0) {
                log_full_errno(pe->failing ? LOG_DEBUG : LOG_WARNING, r, "Failed to apply the plan: %s, retrying at the next tick", e.message);
                pe->failing = true;
                return r;
        }
        if (pe->failing)
                log_info("Applying the plan works again.");
        pe->failing = false;
        if (governor) {
                pe->governor_switched_usec = now_usec;
                log_info("The plan switched the cpuidle governor to %s.", list.knobs[0].value);
        }
        return r;
}
