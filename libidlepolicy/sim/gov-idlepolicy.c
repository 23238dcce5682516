/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idlepolicy: a base governor steered by the model's per-tick plan (see
 * gov-idlepolicy.h).
 *
 * The tick.  A governor is shown idle periods only, not the run time
 * between them, so the tick's wall time is estimated from each idle period
 * and the utilisation signal: wall = idle / (1 - util) (util capped at
 * 0.98), the busy fraction being what util measures.  A tick ends once
 * that estimate reaches the tick length; its interval_us is the estimate. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "gov-idlepolicy.h"
#include "sim-rand.h"
#include "sim-truth.h"
#include "sim-util.h"

#define INNER_MAX 2048           /* room for the base governor's instance */
#define UTIL_MAX 0.98

typedef struct TickCounters {
        uint64_t usage[SIM_STATES_MAX];
        uint64_t above[SIM_STATES_MAX];
        uint64_t below[SIM_STATES_MAX];
        uint64_t time_ns[SIM_STATES_MAX];
        uint64_t timer_wakeups, other_wakeups;
        double wall_ns;          /* estimated wall time of the tick so far */
        double util_ns;          /* ∑ util × wall time, for the tick's mean */
} TickCounters;

typedef struct IdlePolicy IdlePolicy;

static void idlepolicy_tick(IdlePolicy *ip);
static void machine_facts(IdlePolicy *ip);

struct IdlePolicy {
        Governor gov;            /* ops and the simulated table (manual bits) */
        SimTable table;          /* the base governor's view: the plan's disabled bits */
        Profile profile;
        PolicyStep loop;         /* the daemon's policy step, for this one CPU */
        PolicyCpu cpu;           /* loop.cpus; its model and plan start from the prior
                                  * (the step starts them so again at its first tick) */
        CpuidleStateInfo info[SIM_STATES_MAX];
        CpuidleSystem system;    /* what the step is told of the machine */
        Calibration calibration; /* the table's real costs, as a calibration would measure them */
        CalibrationCpu calibration_cpu;
        const GovernorOps *base; /* the base the plan runs on without a governor wish */
        uint64_t governor_tick;  /* ticks when the governor was last switched for a wish */
        bool poll_only;          /* the plan polls only (resume latency n/a) */
        SimRand rng;
        uint64_t tick_ns;
        uint64_t ticks;
        TickCounters c;
        uint64_t sleep_length_ns;    /* at the last select */
        double util;                 /* at the last select */
        void (*tick)(IdlePolicy *ip);   /* at the end of each tick: the plan for the next */
        GovParams params;            /* as given: the base governors' parameters */
        GovParams range;             /* teo-range: its plans and share */
        double range_debt;           /* teo-range: ticks owed to the second plan */
        _Alignas(max_align_t) unsigned char inner[INNER_MAX];
};

static Governor *inner(IdlePolicy *ip) {
        return (Governor *) ip->inner;
}

/* (Re)creates the base governor in ip->inner, on ip->table.  Returns 0,
 * -EINVAL if it does not fit, or the base's init error. */
static int inner_init(IdlePolicy *ip, const GovernorOps *base, const GovParams *p) {
        Governor *b = inner(ip);

        if (base->size > INNER_MAX || base->size < sizeof(Governor) || base->select == ip->gov.ops->select)
                return -EINVAL;
        memset(ip->inner, 0, sizeof(ip->inner));
        b->ops = base;
        b->table = &ip->table;
        return base->init ? base->init(b, p) : 0;
}

static int idlepolicy_setup(IdlePolicy *ip, const GovernorOps *base, const Profile *prof, uint64_t tick_ns,
                            const GovParams *p) {
        int r;

        ip->table = *ip->gov.table;
        if (prof)
                ip->profile = *prof;
        else
                profile_init(&ip->profile, "balanced");
        ip->tick_ns = tick_ns ? tick_ns : IDLEPOLICY_TICK_NS;
        r = model_cpu_init(&ip->cpu.model, ip->table.n_states);
        if (r < 0)
                return r;
        cpu_plan_init(&ip->cpu.plan, ip->table.n_states);
        ip->loop = (PolicyStep) { .n_cpus = 1, .cpus = &ip->cpu, .rng = 1 };
        ip->base = base;
        ip->params = *p;
        machine_facts(ip);
        snprintf(ip->system.governor, sizeof(ip->system.governor), "%s", base->name);
        ip->tick = idlepolicy_tick;
        sim_rand_seed(&ip->rng, p->seed ^ UINT64_C(0x1d1e90115c7));
        return inner_init(ip, base, p);
}

static int idlepolicy_init_teo(Governor *g, const GovParams *p) {
        return idlepolicy_setup((IdlePolicy *) g, &governor_teo, NULL, 0, p);
}

static int idlepolicy_init_menu(Governor *g, const GovParams *p) {
        return idlepolicy_setup((IdlePolicy *) g, &governor_menu, NULL, 0, p);
}

/* What the policy is told about state s: the advertised costs, and the
 * table's real ones standing in for the calibration. */
static PolicyState policy_state(const IdlePolicy *ip, unsigned s) {
        const SimState *st = &ip->table.states[s];

        return (PolicyState) {
                .latency_us = (uint32_t) (st->advertised.exit_latency_ns / NSEC_PER_USEC),
                .residency_us = (uint32_t) (st->advertised.target_residency_ns / NSEC_PER_USEC),
                .real_latency_us = (uint32_t) (st->real.exit_latency_ns / NSEC_PER_USEC),
                .real_residency_us = (uint32_t) (st->real.target_residency_ns / NSEC_PER_USEC),
                .polling = st->polling,
                .misdescribed = st->real.exit_latency_ns != st->advertised.exit_latency_ns ||
                                st->real.target_residency_ns != st->advertised.target_residency_ns,
                .manual_disabled = ip->gov.table->states[s].disabled,
        };
}

static void tick_fill(const IdlePolicy *ip, PolicyTick *t) {
        const TickCounters *c = &ip->c;

        *t = (PolicyTick) {
                .n_states = ip->table.n_states,
                .interval_us = (uint64_t) (c->wall_ns / (double) NSEC_PER_USEC),
                .util = c->wall_ns > 0 ? (int) (c->util_ns / c->wall_ns * 1024.0 + 0.5) : -1,
                .d_timer_wakeups = c->timer_wakeups,
                .d_other_wakeups = c->other_wakeups,
        };
        for (unsigned s = 0; s < t->n_states; s++) {
                t->states[s] = policy_state(ip, s);
                t->d_usage[s] = c->usage[s];
                t->d_above[s] = c->above[s];
                t->d_below[s] = c->below[s];
                t->d_time_us[s] = c->time_ns[s] / NSEC_PER_USEC;
        }
}

/* Whether the table is the cpuidle-haltpoll driver's (a KVM guest): the
 * polling state and "haltpoll idle". */
static bool table_is_haltpoll(const SimTable *t) {
        return t->n_states == 2 && t->states[0].polling && strcmp(t->states[1].name, "haltpoll idle") == 0;
}

/* What the step is told of the machine: the driver (haltpoll on a KVM
 * table, with its module parameters), the governors the simulator can run
 * as the kernel's, the state names and costs, and the table's real costs
 * as the calibration. */
static void machine_facts(IdlePolicy *ip) {
        const SimTable *t = ip->gov.table;
        bool kvm = table_is_haltpoll(t);

        ip->system = (CpuidleSystem) {
                .governor_writable = true,
                .n_governors = 3,
                .governors = { "menu", "teo", "haltpoll" },
                .haltpoll = { .present = kvm },
        };
        snprintf(ip->system.driver, sizeof(ip->system.driver), "%s", kvm ? "haltpoll" : "sim");
        ip->calibration_cpu = (CalibrationCpu) { .n_states = t->n_states };
        for (unsigned s = 0; s < t->n_states; s++) {
                const SimState *st = &t->states[s];

                ip->info[s] = (CpuidleStateInfo) {
                        .latency_us = st->advertised.exit_latency_ns / NSEC_PER_USEC,
                        .residency_us = st->advertised.target_residency_ns / NSEC_PER_USEC,
                        .default_enabled = true,
                        .files = CPUIDLE_HAS_DISABLE,
                };
                snprintf(ip->info[s].name, sizeof(ip->info[s].name), "%s", st->name);
                ip->calibration_cpu.states[s] = (CalibrationState) {
                        .measured = true,
                        .advertised_latency_us = (uint32_t) (st->advertised.exit_latency_ns / NSEC_PER_USEC),
                        .wakeup_us = (uint32_t) (st->real.exit_latency_ns / NSEC_PER_USEC),
                        .residency_us = (uint32_t) (st->real.target_residency_ns / NSEC_PER_USEC),
                        .misdescribed = st->real.exit_latency_ns != st->advertised.exit_latency_ns,
                };
                snprintf(ip->calibration_cpu.states[s].name, sizeof(ip->calibration_cpu.states[s].name), "%s", st->name);
        }
        ip->calibration = (Calibration) { .n_cpus = 1, .cpus = &ip->calibration_cpu };
}

static uint32_t step_random(void *userdata) {
        return (uint32_t) sim_rand_u64(&((IdlePolicy *) userdata)->rng);
}

/* Switches the base governor to name with the halt-poll window window_ns
 * (guest_halt_poll_ns): like the kernel's switch, the new governor starts
 * afresh.  Returns 0 or a negative errno (the old base stays). */
static int base_switch(IdlePolicy *ip, const char *name, uint64_t window_ns) {
        const GovernorOps *ops = governor_find(name);
        GovParams p = ip->params;

        if (!ops)
                return -ENOENT;
        p.halt_poll_ns = window_ns;
        if (inner_init(ip, ops, &p) < 0)
                return inner_init(ip, ip->base, &ip->params);
        snprintf(ip->system.governor, sizeof(ip->system.governor), "%s", name);
        ip->system.haltpoll.poll_ns = window_ns;
        return 0;
}

/* The machine part of the plan, as the daemon's enforcement writes it: the
 * governor the plan wants (at once when it needs it, else at most once per
 * IDLEPOLICY_GOVERNOR_HOLD_TICKS) and guest_halt_poll_ns for a window. */
static void apply_machine(IdlePolicy *ip) {
        const PolicySystem *sys = &ip->loop.sys;
        uint64_t window = sys->kvm && sys->has_poll && sys->poll.mode == POLL_MODE_WINDOW ? sys->poll.window_ns : 0;
        const char *want = sys->governor[0] ? sys->governor : ip->system.governor;

        if (!sys->governor_required && strcmp(want, ip->system.governor) != 0 && ip->governor_tick > 0 &&
            ip->ticks - ip->governor_tick < IDLEPOLICY_GOVERNOR_HOLD_TICKS)
                want = ip->system.governor;
        if (strcmp(want, ip->system.governor) == 0 && window == ip->system.haltpoll.poll_ns)
                return;
        if (strcmp(want, ip->system.governor) != 0)
                ip->governor_tick = ip->ticks ? ip->ticks : 1;
        (void) base_switch(ip, want, window);
}

/* The daemon's tick: the policy step on what this CPU counted, then the
 * plan in force applied to the base's table, and on a KVM guest the
 * halt-poll window, polling only and the governor. */
static void idlepolicy_tick(IdlePolicy *ip) {
        PolicyCpuInput ci = {
                .online = true,
                .valid = true,
                .profile = &ip->profile,
                .info = ip->info,
                .resume_latency_na = ip->poll_only,
        };
        PolicyStepInput in = {
                .n_cpus = 1,
                .cpus = &ci,
                .profile = &ip->profile,
                .system = &ip->system,
                .calibration = &ip->calibration,
                .random = step_random,
                .random_userdata = ip,
        };
        const PolicyCpu *c;

        tick_fill(ip, &ci.tick);
        in.interval_us = ci.tick.interval_us;
        for (unsigned s = 0; s < ci.tick.n_states; s++) {
                ci.disabled[s] = ip->table.states[s].disabled;
                ci.owned[s] = ci.disabled[s] && !ip->gov.table->states[s].disabled;
        }
        policy_step_tick(&ip->loop, &in, NULL, NULL);
        c = policy_step_cpu(&ip->loop, 0);
        if (!c)
                return;
        for (unsigned s = 0; s < ci.tick.n_states; s++)
                ip->table.states[s].disabled = !c->allowed[s];
        ip->poll_only = c->tick.states[c->cap].polling && c->cap_reason == PLAN_REASON_POLL_ECONOMICS;
        if (ip->loop.sys.kvm)
                apply_machine(ip);
}

static unsigned idlepolicy_select(Governor *g, const GovInput *in) {
        IdlePolicy *ip = (IdlePolicy *) g;
        Governor *b = inner(ip);

        ip->sleep_length_ns = in->sleep_length_ns;
        ip->util = in->util;
        if (ip->poll_only) {
                /* Resume latency "n/a": no state with an exit latency, which
                 * every governor honours (haltpoll ignores disable bits). */
                GovInput limited = *in;

                limited.latency_limit_ns = 0;
                return b->ops->select(b, &limited);
        }
        return b->ops->select(b, in);
}

/* Counts one entry as the kernel would: above/below against the advertised
 * costs and the states enabled now; a wakeup at or after the time to the
 * next timer is a timer's. */
static void count_entry(IdlePolicy *ip, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        TickCounters *c = &ip->c;
        double util = ip->util < UTIL_MAX ? (ip->util > 0 ? ip->util : 0) : UTIL_MAX;
        double wall = (double) measured_ns / (1.0 - util);

        c->usage[state]++;
        c->time_ns[state] += measured_ns;
        switch (sim_truth_classify(&ip->table, state, measured_ns, SIM_VIEW_ADVERTISED)) {
        case SIM_VERDICT_TOO_DEEP:
                c->above[state]++;
                break;
        case SIM_VERDICT_TOO_SHALLOW:
                c->below[state]++;
                break;
        case SIM_VERDICT_CORRECT:
                break;
        }
        if (!poll_timeout) {
                if (measured_ns >= ip->sleep_length_ns)
                        c->timer_wakeups++;
                else
                        c->other_wakeups++;
        }
        c->wall_ns += wall;
        c->util_ns += util * wall;
}

static void idlepolicy_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        IdlePolicy *ip = (IdlePolicy *) g;
        Governor *b = inner(ip);

        b->ops->reflect(b, state, measured_ns, poll_timeout);
        if (state >= ip->table.n_states)
                return;
        count_entry(ip, state, measured_ns, poll_timeout);
        if (ip->c.wall_ns >= (double) ip->tick_ns) {
                ip->tick(ip);
                ip->c = (TickCounters) {};
                ip->ticks++;
        }
}

static uint64_t idlepolicy_poll_limit_ns(const Governor *g) {
        const IdlePolicy *ip = (const IdlePolicy *) g;
        const Governor *b = (const Governor *) ip->inner;
        uint64_t limit = b->ops->poll_limit_ns ? b->ops->poll_limit_ns(b) : 0;

        return limit ? limit : sim_table_poll_limit_ns(&ip->table);
}

const GovernorOps governor_idlepolicy = {
        .name = "idlepolicy",
        .summary = "teo steered by the idlepolicy model: per-tick cap/floor from the weights (balanced profile, 1 s ticks)",
        .size = sizeof(IdlePolicy),
        .init = idlepolicy_init_teo,
        .select = idlepolicy_select,
        .reflect = idlepolicy_reflect,
        .poll_limit_ns = idlepolicy_poll_limit_ns,
};

/* teo-range: teo held to [floor, cap], or, per tick, to [floor2, cap2]
 * for a share2 of the ticks (spread evenly: a tick goes to the second plan
 * whenever the ticks owed to it reach one). */
static void range_apply(IdlePolicy *ip, unsigned floor, unsigned cap) {
        for (unsigned s = 0; s < ip->table.n_states; s++)
                ip->table.states[s].disabled = ip->gov.table->states[s].disabled || s < floor || s > cap;
}

static void range_tick(IdlePolicy *ip) {
        const GovParams *p = &ip->range;

        ip->range_debt += p->range2_share;
        if (ip->range_debt >= 1.0) {
                ip->range_debt -= 1.0;
                range_apply(ip, p->range2_floor, p->range2_cap);
        } else
                range_apply(ip, p->range_floor, p->range_cap);
}

static int range_init(Governor *g, const GovParams *p) {
        IdlePolicy *ip = (IdlePolicy *) g;
        int r;

        if (!gov_params_ranges_valid(p))
                return -EINVAL;
        if (p->range_floor >= g->table->n_states || (p->range2_share > 0 && p->range2_floor >= g->table->n_states))
                return -EOPNOTSUPP;
        r = idlepolicy_setup(ip, &governor_teo, NULL, 0, p);
        if (r < 0)
                return r;
        ip->range = *p;
        ip->tick = range_tick;
        range_tick(ip);         /* the first tick's plan */
        return 0;
}

const GovernorOps governor_teo_range = {
        .name = "teo-range",
        .summary = "teo held to states floor..cap (and floor2..cap2 for share2 of the 1 s ticks): fixed plans, idlepolicy's yardstick",
        .not_in_all = true,
        .unsuited = "does not suit this table (it has no state at the plan's floor)",
        .size = sizeof(IdlePolicy),
        .init = range_init,
        .select = idlepolicy_select,
        .reflect = idlepolicy_reflect,
        .poll_limit_ns = idlepolicy_poll_limit_ns,
};

const GovernorOps governor_idlepolicy_menu = {
        .name = "idlepolicy-menu",
        .summary = "menu steered by the idlepolicy model: per-tick cap/floor from the weights (balanced profile, 1 s ticks)",
        .size = sizeof(IdlePolicy),
        .init = idlepolicy_init_menu,
        .select = idlepolicy_select,
        .reflect = idlepolicy_reflect,
        .poll_limit_ns = idlepolicy_poll_limit_ns,
};

int gov_idlepolicy_new(const GovernorOps *base, const Profile *prof, uint64_t tick_ns,
                       const SimTable *t, const GovParams *p, Governor **ret) {
        _cleanup_governor_ Governor *g = NULL;
        int r;

        r = governor_new(&governor_idlepolicy, t, p, &g);
        if (r < 0)
                return r;
        r = idlepolicy_setup((IdlePolicy *) g, base, prof, tick_ns, p);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(g);
        return 0;
}

const CpuPlan *gov_idlepolicy_plan(const Governor *g) {
        return &((const IdlePolicy *) g)->cpu.plan;
}

const ModelCpu *gov_idlepolicy_model(const Governor *g) {
        return &((const IdlePolicy *) g)->cpu.model;
}

const PolicyStep *gov_idlepolicy_step(const Governor *g) {
        return &((const IdlePolicy *) g)->loop;
}

const char *gov_idlepolicy_base(const Governor *g) {
        return ((const IdlePolicy *) g)->inner[0] ? ((const Governor *) ((const IdlePolicy *) g)->inner)->ops->name : "";
}

const SimTable *gov_idlepolicy_table(const Governor *g) {
        return &((const IdlePolicy *) g)->table;
}

uint64_t gov_idlepolicy_ticks(const Governor *g) {
        return ((const IdlePolicy *) g)->ticks;
}
