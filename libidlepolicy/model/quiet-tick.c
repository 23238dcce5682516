/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Light ticks: see quiet-tick.h. */
#include <string.h>

#include "quiet-tick.h"

#define USEC_PER_SEC UINT64_C(1000000)
#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

static const char *const verdict_names[_QUIET_TICK_VERDICT_MAX] = {
        [QUIET_TICK_LIGHT] = "light",
        [QUIET_TICK_OFF] = "off",
        [QUIET_TICK_DUE] = "due",
        [QUIET_TICK_UNSETTLED] = "unsettled",
        [QUIET_TICK_NO_READING] = "no reading",
        [QUIET_TICK_SWITCHING] = "switching",
        [QUIET_TICK_BUSY] = "busy",
        [QUIET_TICK_TOO_SHORT] = "too short",
        [QUIET_TICK_HOTPLUG] = "hotplug",
};

const char *quiet_tick_verdict_to_string(QuietTickVerdict v) {
        return v >= 0 && v < _QUIET_TICK_VERDICT_MAX ? verdict_names[v] : "?";
}

/* FNV-1a over n bytes of p, from h. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
        const unsigned char *b = p;

        for (size_t i = 0; i < n; i++)
                h = (h ^ b[i]) * FNV_PRIME;
        return h;
}

static uint64_t hash_u64(uint64_t h, uint64_t v) {
        return hash_bytes(h, &v, sizeof(v));
}

/* What a CPU's plan in force is: its ends, their reasons, the states
 * allowed, and the model's own wishes behind them where they set it (on a
 * KVM guest the poll economics set it, cpu_kvm_plan(): the model learns
 * beneath, and its wishes move on a quiet machine as the idle periods of
 * a program that stopped leave its history, which changes nothing in
 * force); and the CPU's own poll decision where it is in force, not where
 * the poll search owns the CPU (policy_search_owns_cpu(): the priced
 * decision is still made beneath, and it moved on a quiet machine one CPU
 * a tick after a program stopped, 50 µs windows that nothing wrote, each
 * move two more full ticks: bench/live --logs, the ticks after pgbench). */
static uint64_t hash_cpu(uint64_t h, const PolicyCpu *c, const PolicySystem *s) {
        h = hash_u64(h, c->active | (uint64_t) c->settled << 1 | (uint64_t) c->has_poll << 2 |
                                (uint64_t) c->kvm_plan << 3);
        h = hash_u64(h, (uint64_t) c->cap << 32 | c->floor);
        h = hash_u64(h, (uint64_t) c->cap_reason << 32 | c->floor_reason);
        if (!c->kvm_plan)
                h = hash_u64(h, (uint64_t) c->plan.model_cap << 32 | c->plan.model_floor);
        if (!policy_search_owns_profile(s, c->profile))
                h = hash_u64(h, (uint64_t) c->poll.mode << 32 ^ c->poll.window_ns);
        return hash_bytes(h, c->allowed, sizeof(bool) * (c->n_states < MODEL_STATES_MAX ? c->n_states : MODEL_STATES_MAX));
}

/* The machine's decisions: the halt-poll window of the machine and of
 * each profile's CPUs (not of the profile the poll search runs for: its
 * priced decision is made beneath and not in force, as a CPU's in
 * hash_cpu()), the governor wanted, and where the poll search is
 * (not its counters, which move at every tick it measures, nor its silent
 * ticks: search_settled()). */
static uint64_t hash_system(uint64_t h, const PolicySystem *s) {
        h = hash_u64(h, s->has_poll | (uint64_t) s->governor_required << 1 | (uint64_t) s->searching << 2);
        h = hash_u64(h, (uint64_t) s->poll.mode << 32 ^ s->poll.window_ns);
        h = hash_bytes(h, s->governor, strnlen(s->governor, sizeof(s->governor)));
        for (unsigned g = 0; g < s->n_groups && g < POLICY_POLL_GROUPS_MAX; g++)
                if (!policy_search_owns_profile(s, s->groups[g].profile))
                        h = hash_u64(h, (uint64_t) s->groups[g].plan.mode << 32 ^ s->groups[g].plan.window_ns);
        return hash_u64(h, (uint64_t) s->search.phase << 48 | (uint64_t) s->search.arm << 32 | s->search.best);
}

QuietTickMark quiet_tick_mark(const PolicyStep *l) {
        uint64_t h = FNV_OFFSET;

        for (unsigned cpu = 0; cpu < l->n_cpus; cpu++)
                h = hash_cpu(h, &l->cpus[cpu], &l->sys);
        return (QuietTickMark) { .plan = hash_system(h, &l->sys), .search_samples = l->sys.search.samples };
}

/* Why a CPU's next full tick may move its plan though nothing changes
 * (NULL: it will not): a move held back by hysteresis is made once the
 * hold has passed; a cap lifted by exploration drops again; the util rule
 * releases only on a measured tick.  None of these where the poll
 * economics set the plan in force (kvm_plan): the policy's plan is not in
 * force there, and the poll economics' own exploration is a reason in
 * force (hash_cpu()). */
static const char *cpu_unsettled(const PolicyCpu *c) {
        if (!c->active || c->kvm_plan)
                return NULL;
        if (c->plan.exploring)
                return "a CPU explores";
        if (c->plan.util_active)
                return "a CPU's util rule is engaged";
        if (c->plan.cap_reason == PLAN_REASON_HOLD || c->plan.floor_reason == PLAN_REASON_HOLD)
                return "a CPU's move is held back";
        return NULL;
}

/* The poll search takes a quiet sample without moving when it does not
 * run; when it holds no polling (a quiet machine is not probed,
 * poll-search.h); and when it waited at the last full tick
 * for an arm not in force (no sample measured, nothing moved: observe
 * mode, where its arms are never written).  Climbing, probing or holding
 * a window, each tick is a step.  Nor while it counts ticks without a
 * measurement towards its stop (search_silent, policy-search.c): light
 * ticks do not step it, and a machine whose switch count never moves
 * would keep it holding its arm.  A count that went back to 0 moved
 * nothing: in the plan's hash, a tick after the knobs a program's end
 * wrote (a CPU not read whole) cost two full ticks, one for the count's
 * rise and one for its fall. */
static bool search_settled(const PolicySystem *s, const QuietTickMark *before, const QuietTickMark *after) {
        if (!s->searching)
                return true;
        if (s->search_silent > 0)
                return false;
        if (s->search.phase == POLL_SEARCH_HOLD && s->search.best == 0)
                return true;
        return before->search_samples == after->search_samples && before->plan == after->plan;
}

static const char *policy_unsettled(const PolicyStep *l, const QuietTickMark *before, const QuietTickMark *after) {
        for (unsigned cpu = 0; cpu < l->n_cpus; cpu++) {
                const char *why = cpu_unsettled(&l->cpus[cpu]);

                if (why)
                        return why;
        }
        return search_settled(&l->sys, before, after) ? NULL : "the poll search steps";
}

bool quiet_tick_policy_settled(const PolicyStep *l, const QuietTickMark *before, const QuietTickMark *after) {
        return !policy_unsettled(l, before, after);
}

QuietTickVerdict quiet_tick_machine(const ProcTotals *before, const ProcTotals *now, uint64_t interval_us,
                                    unsigned n_online, uint64_t busy_span_usec) {
        uint64_t d_busy, d_total, d_ctxt, span;
        unsigned __int128 busy_q10;

        if (!before->has_cpu || !now->has_cpu || !before->has_ctxt || !now->has_ctxt || interval_us == 0 ||
            n_online == 0 || now->ctxt < before->ctxt || now->busy_jiffies < before->busy_jiffies ||
            now->total_jiffies <= before->total_jiffies || now->total_jiffies - before->total_jiffies <
                                                                   now->busy_jiffies - before->busy_jiffies)
                return QUIET_TICK_NO_READING;
        d_ctxt = now->ctxt - before->ctxt;
        if ((unsigned __int128) d_ctxt * USEC_PER_SEC >= (unsigned __int128) POLL_SEARCH_ACTIVE * interval_us)
                return QUIET_TICK_SWITCHING;
        d_busy = now->busy_jiffies - before->busy_jiffies;
        d_total = now->total_jiffies - before->total_jiffies;
        if (d_total < (uint64_t) QUIET_TICK_BUSY_MIN_JIFFIES * n_online)
                return QUIET_TICK_TOO_SHORT;
        /* The busy share of the machine, and in CPUs' worth (the "cpu"
         * line sums the online CPUs' time: n_online of them), over the
         * reading or busy_span_usec, whichever is longer. */
        span = busy_span_usec / QUIET_TICK_JIFFY_USEC * n_online;
        if (span < d_total)
                span = d_total;
        busy_q10 = (unsigned __int128) d_busy * 1024;
        if (busy_q10 >= (unsigned __int128) span * QUIET_TICK_BUSY_SHARE_Q10 ||
            busy_q10 * n_online >= (unsigned __int128) span * QUIET_TICK_BUSY_CPU_MAX_Q10)
                return QUIET_TICK_BUSY;
        return QUIET_TICK_LIGHT;
}

/* Why the caller's side of the state is not settled (quiet-tick.h), NULL
 * when it is. */
static const char *state_unsettled(const QuietTickState *st, const QuietTickMark *now) {
        if (!st->has_rates)
                return "no rates yet";
        if (st->knobs_written)
                return "a knob was written";
        if (st->write_pending)
                return "a write is pending";
        if (st->calibrating)
                return "calibrating";
        if (st->sampling_failing)
                return "sampling fails";
        if (st->consolidation_pending)
                return "consolidation counts ticks";
        if (st->full_before.plan != st->full_after.plan || now->plan != st->full_after.plan)
                return "the plan moved";
        return NULL;
}

const char *quiet_tick_unsettled(const QuietTickState *st, const PolicyStep *l) {
        QuietTickMark mark = quiet_tick_mark(l);
        const char *why = state_unsettled(st, &mark);

        return why ? why : policy_unsettled(l, &st->full_before, &st->full_after);
}

bool quiet_tick_settled(const QuietTickState *st, const PolicyStep *l) {
        return !quiet_tick_unsettled(st, l);
}

QuietTickVerdict quiet_tick_decide(const QuietTickState *st, const PolicyStep *l, const ProcTotals *before,
                                   const ProcTotals *now, uint64_t interval_us) {
        if (st->quiet_full_tick_usec == 0)
                return QUIET_TICK_OFF;
        if (st->since_full_usec >= st->quiet_full_tick_usec)
                return QUIET_TICK_DUE;
        if (!quiet_tick_settled(st, l))
                return QUIET_TICK_UNSETTLED;
        return quiet_tick_machine(before, now, interval_us, st->n_online, st->busy_span_usec);
}

/* Whether the next tick comes at the follow pace. */
static bool follow_paced(const QuietTickPace *p) {
        return p->following && p->follow_tick_usec != 0 && p->follow_tick_usec < p->tick_usec;
}

bool quiet_tick_stretching(const QuietTickPace *p) {
        return !follow_paced(p) && p->wakeable && p->quiet_full_tick_usec != 0 && p->quiet_tick_usec > p->tick_usec &&
               p->quiet_run >= QUIET_TICK_STRETCH_AFTER;
}

/* A period between base_usec and max_factor times it, first brought into
 * that range: kept, doubled (grow) or back to the base (reset). */
static uint64_t backoff(uint64_t base_usec, uint64_t period_usec, unsigned max_factor, bool grow, bool reset) {
        uint64_t max = base_usec * max_factor;

        period_usec = period_usec < base_usec ? base_usec : period_usec > max ? max : period_usec;
        if (reset)
                return base_usec;
        return !grow ? period_usec : 2 * period_usec < max ? 2 * period_usec : max;
}

uint64_t quiet_tick_full_period(uint64_t base_usec, uint64_t period_usec, QuietTickVerdict v, bool settled,
                                bool wakeable) {
        if (base_usec == 0 || !wakeable)
                return base_usec;
        return backoff(base_usec, period_usec, QUIET_TICK_FULL_BACKOFF, v == QUIET_TICK_DUE && settled,
                       v == QUIET_TICK_DUE && !settled);
}

uint64_t quiet_tick_long_period(uint64_t base_usec, uint64_t period_usec, QuietTickVerdict v, bool settled) {
        bool keep = v == QUIET_TICK_TOO_SHORT || (v == QUIET_TICK_DUE && settled);

        if (base_usec == 0)
                return 0;
        return backoff(base_usec, period_usec, QUIET_TICK_LONG_BACKOFF, v == QUIET_TICK_LIGHT,
                       v != QUIET_TICK_LIGHT && !keep);
}

bool quiet_tick_follows(bool following, QuietTickVerdict v, uint64_t since_wake_usec) {
        return since_wake_usec < QUIET_TICK_FOLLOW_USEC && v != QUIET_TICK_LIGHT &&
               (following || v == QUIET_TICK_SWITCHING || v == QUIET_TICK_BUSY);
}

uint64_t quiet_tick_judge_in_usec(uint64_t since_reference_usec) {
        return since_reference_usec < QUIET_TICK_JUDGE_USEC ? QUIET_TICK_JUDGE_USEC - since_reference_usec : 0;
}

uint64_t quiet_tick_next_usec(const QuietTickPace *p) {
        uint64_t next = p->long_tick_usec > p->quiet_tick_usec ? p->long_tick_usec : p->quiet_tick_usec;

        if (follow_paced(p))
                return p->follow_tick_usec;
        if (p->judge_in_usec != 0 && p->judge_in_usec < p->tick_usec)
                return p->judge_in_usec;
        if (!quiet_tick_stretching(p))
                return p->tick_usec;
        if (p->since_full_usec < p->quiet_full_tick_usec && p->quiet_full_tick_usec - p->since_full_usec < next)
                next = p->quiet_full_tick_usec - p->since_full_usec;
        return next > p->tick_usec ? next : p->tick_usec;
}
