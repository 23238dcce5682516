/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The policy step (policy-step.h) on plain data, as the daemon and the
 * simulator run it: the KVM poll path on hand-made counter sequences, two
 * CPUs under two profiles, manual knobs, the util rule, exploration, hold,
 * hotplug and the changed callback.  The profiles are the shipped ones
 * (their directory is argv[1]). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-model-helpers.h"
#include "policy-step.h"

enum { POLL, C1, C1E, C6 };
enum { HALT = 1 };

#define NEVER UINT32_MAX                /* a random draw that never explores */
#define ALWAYS 0u                       /* one that explores whenever it may */
#define HALT_WAKEUP_US 30               /* the halt's calibrated extra wakeup cost */

static const char *profiles_dir;

/* Skylake-SP as intel_idle describes it. */
static const CpuidleStateInfo skylake[] = {
        { .name = "POLL" },
        { .name = "C1", .latency_us = 2, .residency_us = 2 },
        { .name = "C1E", .latency_us = 10, .residency_us = 20 },
        { .name = "C6", .latency_us = 133, .residency_us = 600 },
};

/* A KVM guest's cpuidle-haltpoll table: the halt advertises 1 µs. */
static const CpuidleStateInfo haltpoll[] = {
        { .name = "POLL" },
        { .name = "haltpoll idle", .latency_us = 1, .residency_us = 1 },
};

/* The shipped profile called name (PROFILES_DIR/NAME.json). */
static Profile shipped(const char *name) {
        char path[4096], text[4096];
        ErrorInfo e = {};
        Profile p;
        size_t n;
        FILE *f;

        ck_assert_msg(profiles_dir != NULL, "usage: test-policy-step PROFILES_DIR");
        snprintf(path, sizeof(path), "%s/%s.json", profiles_dir, name);
        f = fopen(path, "re");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        n = fread(text, 1, sizeof(text) - 1, f);
        fclose(f);
        text[n] = '\0';
        ck_assert_msg(profile_parse(text, path, &p, &e) == 0, "%s", e.message);
        return p;
}

/* Up to two CPUs and everything a step reads.  Initialised in place (the
 * input points into it). */
typedef struct Machine {
        unsigned n_cpus;
        const CpuidleStateInfo *info;
        unsigned n_states;
        Profile profile;                  /* the machine's (CPU 0's) */
        Profile cpu_profile[2];
        CpuidleSystem system;
        Calibration *calibration;
        PolicyCpuInput cpus[2];
        PolicyStepInput in;
        PolicyStep *loop;
        uint32_t draw;                    /* what the random source returns */
        unsigned draws;                   /* how often the last step drew */
        unsigned changed[2];              /* the last step's changed callbacks per CPU */
} Machine;

static uint32_t machine_random(void *userdata) {
        Machine *m = userdata;

        m->draws++;
        return m->draw;
}

static void on_changed(unsigned cpu, const PolicyCpu *c, void *userdata) {
        Machine *m = userdata;

        ck_assert_uint_lt(cpu, m->n_cpus);
        ck_assert_ptr_eq(c, policy_step_cpu(m->loop, cpu));
        m->changed[cpu]++;
}

/* n_cpus CPUs on the state table info, under the shipped profiles
 * profile0 (CPU 0, and the machine's) and profile1; not calibrated, not a
 * KVM guest, the governor menu; the random source returns m->draw. */
static void machine_init(Machine *m, unsigned n_cpus, const CpuidleStateInfo *info, unsigned n_states,
                         const char *profile0, const char *profile1) {
        *m = (Machine) { .n_cpus = n_cpus, .info = info, .n_states = n_states, .draw = NEVER };
        m->cpu_profile[0] = shipped(profile0);
        m->cpu_profile[1] = shipped(profile1);
        m->profile = m->cpu_profile[0];
        m->system = (CpuidleSystem) {
                .driver = "intel_idle",
                .governor = "menu",
                .governor_writable = true,
                .n_governors = 3,
                .governors = { "menu", "teo", "haltpoll" },
        };
        for (unsigned cpu = 0; cpu < n_cpus; cpu++)
                m->cpus[cpu] = (PolicyCpuInput) { .online = true, .valid = true, .profile = &m->cpu_profile[cpu],
                                                  .info = info };
        m->in = (PolicyStepInput) {
                .n_cpus = n_cpus,
                .cpus = m->cpus,
                .profile = &m->profile,
                .interval_us = 1000000,
                .system = &m->system,
                .random = machine_random,
                .random_userdata = m,
        };
        ck_assert_int_eq(policy_step_new(n_cpus, 1, &m->loop), 0);
}

/* A two-CPU KVM guest (haltpoll driver and module, no window yet); with
 * halt_us > 0 calibrated: the halt costs halt_us more to wake from than a
 * poll (calibration_judge() finds it mis-described). */
static void machine_kvm(Machine *m, const char *profile0, const char *profile1, uint32_t halt_us) {
        machine_init(m, 2, haltpoll, 2, profile0, profile1);
        snprintf(m->system.driver, sizeof(m->system.driver), "haltpoll");
        m->system.haltpoll = (HaltpollParams) { .present = true, .grow = 2, .grow_start = 50000, .shrink = 2 };
        if (halt_us == 0)
                return;
        ck_assert_int_eq(calibration_new(2, &m->calibration), 0);
        for (unsigned cpu = 0; cpu < 2; cpu++) {
                CalibrationCpu *c = &m->calibration->cpus[cpu];

                c->n_states = 2;
                snprintf(c->states[POLL].name, sizeof(c->states[POLL].name), "POLL");
                c->states[HALT] = (CalibrationState) { .measured = true, .name = "haltpoll idle",
                                                       .advertised_latency_us = 1, .wakeup_us = halt_us };
        }
        ck_assert_uint_eq(calibration_judge(m->calibration), 2);
        m->in.calibration = m->calibration;
}

static void machine_done(Machine *m) {
        m->loop = policy_step_free(m->loop);
        m->calibration = calibration_free(m->calibration);
}

/* Starts cpu's next tick: util (Q10, -1 unknown) and the wakeups, no
 * counters, nothing disabled; the states as daemon/policy-input.c fills
 * them (advertised costs, calibrated ones, polling).  Returns the tick. */
static PolicyTick *tick_begin(Machine *m, unsigned cpu, int util, uint64_t timer, uint64_t other) {
        PolicyCpuInput *ci = &m->cpus[cpu];
        PolicyTick *t = &ci->tick;

        memset(ci->disabled, 0, sizeof(ci->disabled));
        memset(ci->manual, 0, sizeof(ci->manual));
        memset(ci->owned, 0, sizeof(ci->owned));
        ci->resume_latency_na = false;
        *t = (PolicyTick) { .n_states = m->n_states, .interval_us = m->in.interval_us, .util = util,
                            .d_timer_wakeups = timer, .d_other_wakeups = other };
        for (unsigned k = 0; k < m->n_states; k++) {
                t->states[k] = (PolicyState) {
                        .latency_us = (uint32_t) m->info[k].latency_us,
                        .residency_us = (uint32_t) m->info[k].residency_us,
                        .polling = strcmp(m->info[k].name, "POLL") == 0,
                };
                policy_state_calibrate(&t->states[k], m->calibration, cpu, k, m->info[k].name);
        }
        return t;
}


/* Who disabled a state during the tick. */
typedef enum Disabler {
        BY_PLAN,                          /* the plan's own change (owned) */
        BY_HAND,                          /* an administrator (manual) */
        FOUND_SO,                         /* neither: it was disabled when the daemon came */
} Disabler;

static void disable(Machine *m, unsigned cpu, unsigned k, Disabler by) {
        m->cpus[cpu].disabled[k] = true;
        m->cpus[cpu].owned[k] = by == BY_PLAN;
        m->cpus[cpu].manual[k] = by == BY_HAND;
}

/* The disable bits as enforcement left them after the last step: every
 * state the plan in force does not allow, disabled by the plan. */
static void enforced(Machine *m, unsigned cpu) {
        const PolicyCpu *c = policy_step_cpu(m->loop, cpu);

        for (unsigned k = 0; c && k < c->n_states; k++)
                if (!c->allowed[k])
                        disable(m, cpu, k, BY_PLAN);
}

/* Runs one step with draw as every random number. */
static void step(Machine *m, uint32_t draw) {
        m->draw = draw;
        m->draws = 0;
        memset(m->changed, 0, sizeof(m->changed));
        policy_step_tick(m->loop, &m->in, on_changed, m);
}

static const PolicyCpu *cpu_of(const Machine *m, unsigned cpu) {
        const PolicyCpu *c = policy_step_cpu(m->loop, cpu);

        ck_assert_ptr_nonnull(c);
        return c;
}

/* Asserts c's plan in force: cap and floor with their reasons. */
static void assert_plan(const PolicyCpu *c, unsigned cap, PlanReason cap_reason, unsigned floor,
                        PlanReason floor_reason) {
        ck_assert_msg(c->cap == cap && c->cap_reason == cap_reason && c->floor == floor &&
                      c->floor_reason == floor_reason,
                      "want cap %u (%s) floor %u (%s), got cap %u (%s) floor %u (%s): %s",
                      cap, plan_reason_to_string(cap_reason), floor, plan_reason_to_string(floor_reason),
                      c->cap, plan_reason_to_string(c->cap_reason), c->floor, plan_reason_to_string(c->floor_reason),
                      c->reason);
}

/* Asserts which states c's plan in force allows (bit k: state k). */
static void assert_allowed(const PolicyCpu *c, unsigned mask) {
        for (unsigned k = 0; k < c->n_states; k++)
                ck_assert_msg(c->allowed[k] == !!(mask & (1u << k)), "state %u: allowed %d: %s", k, c->allowed[k],
                              c->reason);
}

static void assert_reason_has(const PolicyCpu *c, const char *text) {
        ck_assert_msg(strstr(c->reason, text) != NULL, "\"%s\" not in \"%s\"", text, c->reason);
}

/* ---- KVM ---------------------------------------------------------------- */

/* A KVM tick in which both CPUs halted at once (no window), 40% busy:
 * 4000 idle periods of 150 µs a second each, every one ended by an IPI or
 * a device (the wakeups a poll catches).  At balanced's price (1/8)
 * polling them (75 ms of latency-µs a second) beats 4000 halts of 30 µs
 * (120 ms), and beats a 400 µs window (which still misses their tail) by
 * about 4%. */
static void kvm_round_trips(Machine *m) {
        for (unsigned cpu = 0; cpu < 2; cpu++)
                counters(tick_begin(m, cpu, 410, 0, 4000), HALT, 4000, 150, 0, 0);
}

/* A tick in which both CPUs polled only (resume latency "n/a"), busy
 * util0 and util1: POLL counts the poll loop's exits, a wakeup sends no
 * IPI. */
static void kvm_polled_only(Machine *m, int util0, int util1) {
        for (unsigned cpu = 0; cpu < 2; cpu++) {
                counters(tick_begin(m, cpu, cpu == 0 ? util0 : util1, 100, 0), POLL, 4000, 150, 0, 0);
                m->cpus[cpu].resume_latency_na = true;
        }
}

/* Round trips on both CPUs under balanced: each CPU polls only, the
 * machine (whose knob cannot poll only) takes a window and needs the
 * haltpoll governor for it; a manual governor means no opinion. */
START_TEST(test_kvm_round_trips_poll) {
        const PolicyCpu *c;
        Machine m;

        machine_kvm(&m, "balanced", "balanced", HALT_WAKEUP_US);
        kvm_round_trips(&m);
        step(&m, NEVER);
        ck_assert(m.loop->sys.kvm);
        ck_assert_uint_eq(m.loop->sys.halt_cost_us, HALT_WAKEUP_US);
        ck_assert(m.loop->sys.has_poll);
        ck_assert_int_eq(m.loop->sys.poll.mode, POLL_MODE_WINDOW);
        ck_assert_uint_eq(m.loop->sys.poll.window_ns, POLL_WINDOW_MAX_NS);
        ck_assert_str_eq(m.loop->sys.governor, "haltpoll");
        ck_assert(m.loop->sys.governor_required);
        for (unsigned cpu = 0; cpu < 2; cpu++) {
                c = cpu_of(&m, cpu);
                ck_assert(c->has_poll);
                ck_assert_int_eq(c->poll.mode, POLL_MODE_ONLY);
                ck_assert_int_lt(c->poll.cost[POLL_MODE_ONLY], c->poll.cost[POLL_MODE_WINDOW]);
                ck_assert_int_lt(c->poll.cost[POLL_MODE_WINDOW], c->poll.cost[POLL_MODE_NONE]);
                assert_plan(c, POLL, PLAN_REASON_POLL_ECONOMICS, POLL, PLAN_REASON_POLL_ECONOMICS);
                assert_allowed(c, 1u << POLL);
                assert_reason_has(c, "polling only is cheaper at balanced's burn price");
                assert_reason_has(c, "machine window 400us");
                ck_assert_uint_eq(m.changed[cpu], 1);
        }

        m.in.governor_manual = true;
        kvm_round_trips(&m);
        step(&m, NEVER);
        ck_assert_int_eq(m.loop->sys.poll.mode, POLL_MODE_WINDOW);
        ck_assert_str_eq(m.loop->sys.governor, "");
        ck_assert(!m.loop->sys.governor_required);
        machine_done(&m);
}
END_TEST

/* The same round trips: at power-saver's price nothing is worth burning;
 * without a calibration the halt cost is unknown and nothing justifies
 * polling, whatever the profile. */
START_TEST(test_kvm_no_poll) {
        static const struct {
                const char *profile;
                uint32_t halt_us;
                const char *governor;         /* auto on KVM without a window: menu; keep: none */
        } cases[] = {
                { "power-saver", HALT_WAKEUP_US, "" },
                { "balanced", 0, "menu" },
                { "latency", 0, "menu" },
        };

        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                Machine m;

                machine_kvm(&m, cases[i].profile, cases[i].profile, cases[i].halt_us);
                for (unsigned tick = 0; tick < 6; tick++) {
                        kvm_round_trips(&m);
                        step(&m, NEVER);
                        ck_assert(m.loop->sys.kvm);
                        ck_assert_uint_eq(m.loop->sys.halt_cost_us, cases[i].halt_us);
                        ck_assert_int_eq(m.loop->sys.poll.mode, POLL_MODE_NONE);
                        ck_assert_str_eq(m.loop->sys.governor, cases[i].governor);
                        ck_assert(!m.loop->sys.governor_required);
                        for (unsigned cpu = 0; cpu < 2; cpu++) {
                                const PolicyCpu *c = cpu_of(&m, cpu);

                                ck_assert_int_eq(c->poll.mode, POLL_MODE_NONE);
                                ck_assert_uint_eq(c->cap, HALT);
                                ck_assert(c->allowed[HALT]);
                        }
                }
                machine_done(&m);
        }
}
END_TEST

/* A CPU that polls only measures nothing: its decision holds (and the
 * machine's, with no CPU measuring) while no draw lets it explore; when
 * its load stops (util under 1/16 and at most half of what it was when
 * last measured) the halt is let back at once, reason exploration, so
 * that the next tick re-measures it. */
START_TEST(test_kvm_polled_only_holds) {
        static const int busy[2] = { 410, 100 };      /* when measured: 40%, 10% */
        const PolicyCpu *c;
        Machine m;

        machine_kvm(&m, "balanced", "balanced", HALT_WAKEUP_US);
        kvm_round_trips(&m);
        m.cpus[1].tick.util = busy[1];
        step(&m, NEVER);
        for (unsigned tick = 1; tick <= 5; tick++) {
                kvm_polled_only(&m, busy[0], busy[1]);
                step(&m, NEVER);
                ck_assert_int_eq(m.loop->sys.poll.mode, POLL_MODE_WINDOW);
                for (unsigned cpu = 0; cpu < 2; cpu++) {
                        c = cpu_of(&m, cpu);
                        ck_assert(c->polled_only);
                        ck_assert_int_eq(c->poll.mode, POLL_MODE_ONLY);
                        ck_assert_uint_eq(c->poll.held_ticks, tick);
                        ck_assert_int_eq(c->poll_util, busy[cpu]);
                        assert_plan(c, POLL, PLAN_REASON_POLL_ECONOMICS, POLL, PLAN_REASON_POLL_ECONOMICS);
                        ck_assert_uint_eq(m.changed[cpu], 0);
                }
        }
        /* CPU 0's load stops (20 < 64, 2 × 20 <= 410); CPU 1's falls under
         * 1/16 too but not to half (2 × 60 > 100): it was nearly idle already */
        kvm_polled_only(&m, 20, 60);
        step(&m, NEVER);
        c = cpu_of(&m, 0);
        assert_plan(c, HALT, PLAN_REASON_EXPLORATION, POLL, PLAN_REASON_NONE);
        assert_allowed(c, 1u << POLL | 1u << HALT);
        assert_reason_has(c, "exploring: haltpoll idle allowed for one tick");
        ck_assert_int_eq(c->poll.mode, POLL_MODE_ONLY);           /* the decision itself is kept */
        ck_assert_uint_eq(m.changed[0], 1);
        assert_plan(cpu_of(&m, 1), POLL, PLAN_REASON_POLL_ECONOMICS, POLL, PLAN_REASON_POLL_ECONOMICS);
        ck_assert_uint_eq(m.changed[1], 0);
        machine_done(&m);
}
END_TEST

/* The random source is drawn once per fresh CPU for its decision, and once
 * more per CPU only when it polls only and may explore (its decision held
 * hold_ticks): a draw of 0 then lets the halt back however busy it is. */
START_TEST(test_kvm_poll_exploration_draw) {
        Machine m;

        machine_kvm(&m, "balanced", "balanced", HALT_WAKEUP_US);
        ck_assert_uint_eq(m.profile.hold_ticks, 2);
        kvm_round_trips(&m);
        step(&m, ALWAYS);
        ck_assert_uint_eq(m.draws, 2);
        /* held 1 tick: may not explore yet */
        kvm_polled_only(&m, 410, 410);
        step(&m, ALWAYS);
        ck_assert_uint_eq(m.draws, 2);
        for (unsigned cpu = 0; cpu < 2; cpu++)
                assert_plan(cpu_of(&m, cpu), POLL, PLAN_REASON_POLL_ECONOMICS, POLL, PLAN_REASON_POLL_ECONOMICS);
        /* held 2 ticks: one more draw each, and it explores */
        kvm_polled_only(&m, 410, 410);
        step(&m, ALWAYS);
        ck_assert_uint_eq(m.draws, 4);
        for (unsigned cpu = 0; cpu < 2; cpu++) {
                assert_plan(cpu_of(&m, cpu), HALT, PLAN_REASON_EXPLORATION, POLL, PLAN_REASON_NONE);
                ck_assert_uint_eq(m.changed[cpu], 1);
        }
        /* a draw that never explores: back to polling only */
        kvm_polled_only(&m, 410, 410);
        step(&m, NEVER);
        ck_assert_uint_eq(m.draws, 4);
        for (unsigned cpu = 0; cpu < 2; cpu++)
                assert_plan(cpu_of(&m, cpu), POLL, PLAN_REASON_POLL_ECONOMICS, POLL, PLAN_REASON_POLL_ECONOMICS);
        machine_done(&m);
}
END_TEST

/* ---- two CPUs, two profiles ---------------------------------------------- */

/* Long timer sleeps in C6: nothing for the model to correct. */
static void sleeps(Machine *m, unsigned cpu, int util) {
        PolicyTick *t = tick_begin(m, cpu, util, 100, 0);

        counters(t, C6, 100, 5000, 0, 0);
}

/* The same ticks on CPU 0 under latency and CPU 1 under power-saver: the
 * latency limit (10 µs) caps CPU 0 at C1E and, at 60% busy, its util rule
 * (50%) at C1; power-saver has neither, CPU 1 keeps C6.  Each reason line
 * names its own profile's numbers. */
START_TEST(test_two_profiles) {
        const PolicyCpu *c0, *c1;
        Machine m;

        machine_init(&m, 2, skylake, 4, "latency", "power-saver");
        sleeps(&m, 0, 102);
        sleeps(&m, 1, 102);
        step(&m, NEVER);
        c0 = cpu_of(&m, 0);
        c1 = cpu_of(&m, 1);
        assert_plan(c0, C1E, PLAN_REASON_PROFILE_LIMIT, POLL, PLAN_REASON_NONE);
        assert_allowed(c0, 0x7);
        assert_reason_has(c0, "deeper states exceed latency's 10us latency limit");
        assert_plan(c1, C6, PLAN_REASON_NONE, POLL, PLAN_REASON_NONE);
        assert_allowed(c1, 0xf);
        ck_assert_ptr_null(strstr(c1->reason, "latency's"));

        sleeps(&m, 0, 614);
        enforced(&m, 0);
        sleeps(&m, 1, 614);
        step(&m, NEVER);
        assert_plan(c0, C1, PLAN_REASON_UTIL, POLL, PLAN_REASON_NONE);
        assert_reason_has(c0, "util 60% above latency's 50%");
        assert_plan(c1, C6, PLAN_REASON_NONE, POLL, PLAN_REASON_NONE);
        ck_assert_uint_eq(m.changed[0], 1);
        ck_assert_uint_eq(m.changed[1], 0);
        machine_done(&m);
}
END_TEST

/* On KVM each CPU's plan is priced at its own profile: on the same round
 * trips CPU 0 (balanced) polls only; CPU 1 halts under power-saver (a
 * burned µs is worth 1000 µs of latency), and under latency polls only by
 * the profile's limit, which stands (the calibrated halt, 30 µs, exceeds
 * its 10 µs), not by the poll economics. */
START_TEST(test_two_profiles_kvm) {
        static const struct {
                const char *profile;
                unsigned cap;
                PlanReason reason;
                const char *says;
        } cpu1[] = {
                { "power-saver", HALT, PLAN_REASON_POLL_ECONOMICS, "polling only does not pay at power-saver's burn price" },
                { "latency", POLL, PLAN_REASON_MISDESCRIBED, "its measured latency exceeds latency's 10us limit" },
        };

        for (unsigned i = 0; i < sizeof(cpu1) / sizeof(cpu1[0]); i++) {
                const PolicyCpu *c0, *c1;
                Machine m;

                machine_kvm(&m, "balanced", cpu1[i].profile, HALT_WAKEUP_US);
                kvm_round_trips(&m);
                step(&m, ALWAYS);
                c0 = cpu_of(&m, 0);
                c1 = cpu_of(&m, 1);
                assert_plan(c0, POLL, PLAN_REASON_POLL_ECONOMICS, POLL, PLAN_REASON_POLL_ECONOMICS);
                assert_reason_has(c0, "polling only is cheaper at balanced's burn price");
                assert_plan(c1, cpu1[i].cap, cpu1[i].reason, POLL, PLAN_REASON_NONE);
                assert_allowed(c1, (2u << cpu1[i].cap) - 1);
                assert_reason_has(c1, cpu1[i].says);
                machine_done(&m);
        }
}
END_TEST

/* The machine-wide window is decided per profile over that profile's own
 * CPUs: with power-saver on the machine (CPU 0) and CPU 1 pinned with
 * balanced, CPU 1's round trips buy the window that power-saver alone
 * would never pay for; when the pin goes, the window goes at the next step
 * and balanced's group is forgotten. */
START_TEST(test_kvm_window_per_profile) {
        Machine m;

        machine_kvm(&m, "power-saver", "balanced", HALT_WAKEUP_US);
        kvm_round_trips(&m);
        step(&m, NEVER);
        ck_assert_uint_eq(m.loop->sys.n_groups, 2);
        ck_assert_str_eq(m.loop->sys.groups[0].profile, "power-saver");
        ck_assert_int_eq(m.loop->sys.groups[0].plan.mode, POLL_MODE_NONE);
        ck_assert_str_eq(m.loop->sys.groups[1].profile, "balanced");
        ck_assert_int_eq(m.loop->sys.groups[1].plan.mode, POLL_MODE_WINDOW);
        ck_assert_int_eq(m.loop->sys.poll.mode, POLL_MODE_WINDOW);
        ck_assert_uint_eq(m.loop->sys.poll.window_ns, POLL_WINDOW_MAX_NS);
        ck_assert_str_eq(m.loop->sys.governor, "");
        assert_plan(cpu_of(&m, 0), HALT, PLAN_REASON_POLL_ECONOMICS, POLL, PLAN_REASON_NONE);
        assert_reason_has(cpu_of(&m, 0), "machine window 400us");

        m.cpus[1].profile = &m.cpu_profile[0];
        kvm_round_trips(&m);
        step(&m, NEVER);
        ck_assert_uint_eq(m.loop->sys.n_groups, 1);
        ck_assert_str_eq(m.loop->sys.groups[0].profile, "power-saver");
        ck_assert_int_eq(m.loop->sys.poll.mode, POLL_MODE_NONE);
        machine_done(&m);
}
END_TEST

/* A KVM guest whose CPU 0 (balanced, the machine's) polls only after
 * round trips; CPU 1 under profile1.  Returns CPU 0. */
static const PolicyCpu *kvm_cpu0_polls_only(Machine *m, const char *profile1) {
        const PolicyCpu *c;

        machine_kvm(m, "balanced", profile1, HALT_WAKEUP_US);
        kvm_round_trips(m);
        step(m, NEVER);
        c = cpu_of(m, 0);
        ck_assert_int_eq(c->poll.mode, POLL_MODE_ONLY);
        return c;
}

/* CPU 0 polls only under balanced; pinned with power-saver, its next tick
 * (in which it polled only, measuring nothing) is priced afresh: it halts
 * again at once instead of polling on under the old decision. */
START_TEST(test_profile_switch_drops_poll_only) {
        const PolicyCpu *c;
        Machine m;

        c = kvm_cpu0_polls_only(&m, "power-saver");
        m.cpus[0].profile = &m.cpu_profile[1];
        kvm_polled_only(&m, 0, 0);
        step(&m, NEVER);
        ck_assert_int_ne(c->poll.mode, POLL_MODE_ONLY);
        ck_assert_msg(c->allowed[HALT], "%s", c->reason);
        machine_done(&m);
}
END_TEST

/* Between ticks a pin ends: policy_step_replan() plans CPU 0 again under
 * its new profile at once, from what it learned (no new counters): it
 * halts again; CPU 1, whose profile did not change, is left alone. */
START_TEST(test_replan_between_ticks) {
        const PolicyCpu *c;
        Machine m;

        c = kvm_cpu0_polls_only(&m, "balanced");
        m.cpu_profile[0] = shipped("power-saver");
        memset(m.changed, 0, sizeof(m.changed));
        policy_step_replan(m.loop, &m.in, on_changed, &m);
        ck_assert_str_eq(c->profile, "power-saver");
        ck_assert_int_ne(c->poll.mode, POLL_MODE_ONLY);
        ck_assert_msg(c->allowed[HALT], "%s", c->reason);
        ck_assert_uint_eq(m.changed[0], 1);
        ck_assert_uint_eq(m.changed[1], 0);
        ck_assert_int_eq(cpu_of(&m, 1)->poll.mode, POLL_MODE_ONLY);
        machine_done(&m);
}
END_TEST

/* A CPU whose states the sampler lost (offline and back between two ticks:
 * online again, no state information yet) is not re-decided between ticks
 * when its profile moves; it was dereferenced and the daemon crashed.  The
 * next tick that learns it again plans it. */
START_TEST(test_replan_cpu_without_states) {
        const PolicyCpu *c;
        Machine m;

        c = kvm_cpu0_polls_only(&m, "balanced");
        m.cpu_profile[0] = shipped("power-saver");
        m.cpus[0].info = NULL;
        memset(m.changed, 0, sizeof(m.changed));
        policy_step_replan(m.loop, &m.in, on_changed, &m);
        ck_assert_str_eq(c->profile, "balanced");
        ck_assert_uint_eq(m.changed[0], 0);
        machine_done(&m);
}
END_TEST

/* ---- manual knobs -------------------------------------------------------- */

/* Disabled by hand: stays disabled, and the ends it moves say MANUAL.  A
 * bit the plan set itself is not manual; one found set (neither) is kept
 * like a manual one and marked so in the tick the CPU keeps.  A state
 * enabled by hand is allowed even past the profile's limit. */
START_TEST(test_manual_knobs) {
        const PolicyCpu *c;
        Machine m;

        machine_init(&m, 1, skylake, 4, "balanced", "balanced");
        sleeps(&m, 0, 102);
        disable(&m, 0, POLL, BY_HAND);
        disable(&m, 0, C6, BY_HAND);
        step(&m, ALWAYS);
        c = cpu_of(&m, 0);
        assert_plan(c, C1E, PLAN_REASON_MANUAL, C1, PLAN_REASON_MANUAL);
        assert_allowed(c, 0x6);
        ck_assert(c->tick.states[POLL].manual_disabled && c->tick.states[C6].manual_disabled);
        assert_reason_has(c, "cap C1E: set by hand; floor C1: set by hand");
        machine_done(&m);

        /* the plan's own bit on C6: not manual, the plan may lift it */
        machine_init(&m, 1, skylake, 4, "balanced", "balanced");
        sleeps(&m, 0, 102);
        disable(&m, 0, C6, BY_PLAN);
        step(&m, NEVER);
        c = cpu_of(&m, 0);
        assert_plan(c, C6, PLAN_REASON_NONE, POLL, PLAN_REASON_NONE);
        assert_allowed(c, 0xf);
        ck_assert(!c->tick.states[C6].manual_disabled);

        /* C1E found disabled: kept so, a hole between floor and cap */
        sleeps(&m, 0, 102);
        disable(&m, 0, C1E, FOUND_SO);
        step(&m, NEVER);
        assert_plan(c, C6, PLAN_REASON_NONE, POLL, PLAN_REASON_NONE);
        assert_allowed(c, 0xb);
        ck_assert(c->tick.states[C1E].manual_disabled);
        ck_assert_uint_eq(m.changed[0], 0);     /* neither end moved */
        machine_done(&m);

        /* latency caps at C1E; C6 enabled by hand overrides it */
        machine_init(&m, 1, skylake, 4, "latency", "latency");
        sleeps(&m, 0, 102);
        m.cpus[0].manual[C6] = true;
        step(&m, NEVER);
        c = cpu_of(&m, 0);
        ck_assert_uint_eq(c->plan.cap, C1E);
        ck_assert_int_eq(c->plan.cap_reason, PLAN_REASON_PROFILE_LIMIT);
        assert_plan(c, C6, PLAN_REASON_MANUAL, POLL, PLAN_REASON_NONE);
        assert_allowed(c, 0xf);
        machine_done(&m);
}
END_TEST

/* ---- util rule ----------------------------------------------------------- */

/* performance: above 60% busy the cap is C1 (the shallowest non-polling
 * state), and stays there until util falls below 60% - 10%; exploration
 * never lifts it. */
START_TEST(test_util_rule) {
        static const struct {
                int util;
                unsigned cap;
        } ticks[] = {
                { 500, C6 }, { 700, C1 }, { 600, C1 }, { 520, C1 }, { -1, C1 }, { 511, C6 }, { 600, C6 }, { 615, C1 },
        };
        Machine m;

        machine_init(&m, 1, skylake, 4, "performance", "performance");
        ck_assert_uint_eq(m.profile.util_threshold, 614);
        ck_assert_uint_eq(m.profile.util_hysteresis, 102);
        for (unsigned i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++) {
                const PolicyCpu *c;

                sleeps(&m, 0, ticks[i].util);
                enforced(&m, 0);
                step(&m, ALWAYS);
                c = cpu_of(&m, 0);
                assert_plan(c, ticks[i].cap, ticks[i].cap == C1 ? PLAN_REASON_UTIL : PLAN_REASON_NONE,
                            POLL, PLAN_REASON_NONE);
                ck_assert(c->plan.util_active == (ticks[i].cap == C1));
                ck_assert(!c->plan.exploring);
                if (ticks[i].util == 700)
                        assert_reason_has(c, "util 68% above performance's 60%");
        }
        machine_done(&m);
}
END_TEST

/* ---- the model: exploration and hold ------------------------------------- */

/* hackbench-like: every C1E and C6 entry too deep and short, all ended by
 * IPIs.  The model caps at C1 in one move. */
static void too_deep(Machine *m, unsigned cpu) {
        PolicyTick *t = tick_begin(m, cpu, 102, 0, 3000);

        counters(t, C1, 1000, 3, 0, 0);
        counters(t, C1E, 1000, 3, 1000, 0);
        counters(t, C6, 1000, 3, 1000, 0);
}

/* The same short idles once C1E and C6 are disabled: all in C1. */
static void short_in_c1(Machine *m, unsigned cpu) {
        PolicyTick *t = tick_begin(m, cpu, 102, 0, 3000);

        enforced(m, cpu);
        counters(t, C1, 3000, 3, 0, 0);
}

/* A model cap is lifted one state (not to the deepest) for one tick when
 * the draw allows, never when it does not; the model's own cap stays. */
START_TEST(test_exploration) {
        const PolicyCpu *c;
        Machine m;

        machine_init(&m, 1, skylake, 4, "balanced", "balanced");
        too_deep(&m, 0);
        step(&m, NEVER);
        c = cpu_of(&m, 0);
        assert_plan(c, C1, PLAN_REASON_MODEL, POLL, PLAN_REASON_NONE);
        assert_allowed(c, 0x3);
        for (unsigned i = 0; i < 20; i++) {
                short_in_c1(&m, 0);
                step(&m, NEVER);
                assert_plan(c, C1, PLAN_REASON_MODEL, POLL, PLAN_REASON_NONE);
                ck_assert_uint_eq(m.changed[0], 0);
        }
        short_in_c1(&m, 0);
        step(&m, ALWAYS);
        assert_plan(c, C1E, PLAN_REASON_EXPLORATION, POLL, PLAN_REASON_NONE);
        assert_allowed(c, 0x7);
        ck_assert(c->plan.exploring);
        ck_assert_uint_eq(c->plan.model_cap, C1);
        assert_reason_has(c, "exploring: C1E allowed for one tick");
        ck_assert_uint_eq(m.changed[0], 1);
        /* the explored tick: C1E entered and still too deep; the cap goes back */
        too_deep(&m, 0);
        enforced(&m, 0);
        counters(&m.cpus[0].tick, C6, 0, 0, 0, 0);
        step(&m, NEVER);
        assert_plan(c, C1, PLAN_REASON_MODEL, POLL, PLAN_REASON_NONE);
        ck_assert(!c->plan.exploring);
        ck_assert_uint_eq(m.changed[0], 1);
        machine_done(&m);
}
END_TEST

/* Long timer sleeps in C1E while C6 is disabled by the plan: C1E is too
 * shallow and its entries would pay in C6. */
static void long_in_c1e(Machine *m, unsigned cpu) {
        PolicyTick *t = tick_begin(m, cpu, 102, 200, 0);

        enforced(m, cpu);
        counters(t, C1E, 200, 5000, 0, 0);
}

/* C6 entries too deep: the model caps at C1E at once (nothing to hold
 * yet); then the load turns to long sleeps and the model wants C6 back,
 * but the cap moved a tick ago: held for the profile's hold_ticks (2 for
 * balanced, 4 for power-saver), reason HOLD, then lifted. */
START_TEST(test_hold) {
        static const char *const names[] = { "balanced", "power-saver" };

        for (unsigned i = 0; i < 2; i++) {
                const PolicyCpu *c;
                unsigned held = 0;
                PolicyTick *t;
                Machine m;

                machine_init(&m, 1, skylake, 4, names[i], names[i]);
                t = tick_begin(&m, 0, 102, 0, 0);
                counters(t, C1E, 1000, 30, 0, 0);
                counters(t, C6, 1000, 30, 1000, 0);
                step(&m, NEVER);
                c = cpu_of(&m, 0);
                assert_plan(c, C1E, PLAN_REASON_MODEL, POLL, PLAN_REASON_NONE);
                long_in_c1e(&m, 0);
                step(&m, NEVER);
                while (c->cap_reason == PLAN_REASON_HOLD && held < 10) {
                        assert_plan(c, C1E, PLAN_REASON_HOLD, POLL, PLAN_REASON_NONE);
                        assert_reason_has(c, "held for hysteresis");
                        ck_assert_uint_eq(m.changed[0], 0);
                        held++;
                        long_in_c1e(&m, 0);
                        step(&m, NEVER);
                }
                ck_assert_msg(held == m.profile.hold_ticks, "%s: held %u ticks", names[i], held);
                assert_plan(c, C6, PLAN_REASON_NONE, POLL, PLAN_REASON_NONE);
                ck_assert_uint_eq(m.changed[0], 1);
                machine_done(&m);
        }
}
END_TEST

/* The same start under power-saver (hold 4 ticks); at the tick the model
 * wants C6 back the CPU is pinned with balanced: the new profile is not
 * held back by what the old one decided, C6 comes back at once. */
START_TEST(test_profile_switch_releases_hold) {
        const PolicyCpu *c;
        PolicyTick *t;
        Machine m;

        machine_init(&m, 1, skylake, 4, "power-saver", "balanced");
        t = tick_begin(&m, 0, 102, 0, 0);
        counters(t, C1E, 1000, 30, 0, 0);
        counters(t, C6, 1000, 30, 1000, 0);
        step(&m, NEVER);
        c = cpu_of(&m, 0);
        assert_plan(c, C1E, PLAN_REASON_MODEL, POLL, PLAN_REASON_NONE);
        ck_assert_str_eq(c->profile, "power-saver");
        m.cpus[0].profile = &m.cpu_profile[1];
        long_in_c1e(&m, 0);
        step(&m, NEVER);
        ck_assert_str_eq(c->profile, "balanced");
        assert_plan(c, C6, PLAN_REASON_NONE, POLL, PLAN_REASON_NONE);
        ck_assert_uint_eq(m.changed[0], 1);
        machine_done(&m);
}
END_TEST

/* ---- hotplug and the changed callback ----------------------------------- */

/* changed is called for the first settle and for every moved cap or
 * floor, for no other CPU.  An offline CPU loses its model (and starts
 * from the prior when it comes back); an online one without a valid tick
 * keeps its model and plan and is not drawn for. */
START_TEST(test_offline_and_changed) {
        const PolicyCpu *c1;
        uint64_t learned;
        Machine m;

        ck_assert_ptr_null(policy_step_free(NULL));
        machine_init(&m, 2, skylake, 4, "balanced", "balanced");
        sleeps(&m, 0, 102);
        too_deep(&m, 1);
        step(&m, NEVER);
        ck_assert_uint_eq(m.draws, 2);
        ck_assert_uint_eq(m.changed[0], 1);     /* first settle, cap C6 as before */
        ck_assert_uint_eq(m.changed[1], 1);
        assert_plan(cpu_of(&m, 0), C6, PLAN_REASON_NONE, POLL, PLAN_REASON_NONE);
        c1 = cpu_of(&m, 1);
        assert_plan(c1, C1, PLAN_REASON_MODEL, POLL, PLAN_REASON_NONE);

        sleeps(&m, 0, 102);
        short_in_c1(&m, 1);
        step(&m, NEVER);
        ck_assert_uint_eq(m.changed[0] + m.changed[1], 0);

        /* CPU 0 goes offline; CPU 1's tick is not valid (no rates) */
        m.cpus[0].online = false;
        too_deep(&m, 1);
        m.cpus[1].valid = false;
        learned = c1->model.learned[C1];
        step(&m, NEVER);
        ck_assert_ptr_null(policy_step_cpu(m.loop, 0));
        ck_assert_ptr_eq(policy_step_cpu(m.loop, 1), c1);
        ck_assert(!c1->fresh);
        assert_plan(c1, C1, PLAN_REASON_MODEL, POLL, PLAN_REASON_NONE);
        ck_assert_uint_eq(c1->model.learned[C1], learned);
        ck_assert_uint_eq(m.draws, 0);
        ck_assert_uint_eq(m.changed[0] + m.changed[1], 0);

        /* CPU 0 back: a model from the prior, settled anew */
        m.cpus[0].online = m.cpus[1].valid = true;
        sleeps(&m, 0, 102);
        short_in_c1(&m, 1);
        step(&m, NEVER);
        ck_assert_uint_eq(cpu_of(&m, 0)->model.learned[C6], 100);
        ck_assert_uint_eq(m.changed[0], 1);
        ck_assert_uint_eq(m.changed[1], 0);
        machine_done(&m);
}
END_TEST

/* KNOWN BUG (reported, not fixed here): policy-step.h says of
 * policy_step_tick() "A CPU slot beyond in->n_cpus or offline loses its
 * model", but the loop runs over min(l->n_cpus, in->n_cpus) only: a slot
 * beyond the input keeps its model and policy_step_cpu() keeps returning
 * its stale plan; its fresh flag stays set, so on KVM poll_input()
 * (policy-machine.c) keeps summing its last tick into the machine's
 * halt-poll decision.  This test asserts the documented behaviour. */
START_TEST(test_slot_beyond_input) {
        Machine m;

        machine_init(&m, 2, skylake, 4, "balanced", "balanced");
        sleeps(&m, 0, 102);
        sleeps(&m, 1, 102);
        step(&m, NEVER);
        ck_assert_ptr_nonnull(policy_step_cpu(m.loop, 1));
        m.in.n_cpus = 1;
        sleeps(&m, 0, 102);
        step(&m, NEVER);
        ck_assert_ptr_nonnull(policy_step_cpu(m.loop, 0));
        ck_assert_msg(policy_step_cpu(m.loop, 1) == NULL && !m.loop->cpus[1].fresh,
                      "KNOWN BUG: CPU slot 1 beyond in->n_cpus kept its model (policy-step.h says it loses it)");
        machine_done(&m);
}
END_TEST

/* Long sleeps ended by IPIs (a 5 ms mean), in state s: at balanced's
 * price C1E's entries would not pay in C6 (123 µs more exit latency per
 * wakeup against 1/8 of the power), nor are C6's too deep. */
static void ipi_sleeps(Machine *m, unsigned cpu, unsigned s) {
        PolicyTick *t = tick_begin(m, cpu, 102, 0, 200);

        enforced(m, cpu);
        counters(t, s, 200, 5000, 0, 0);
}

/* KNOWN BUG (reported, not fixed here): a bound that is not the model's
 * leaks into the model's own cap.  policy_model_step() (policy-model.c)
 * clamps model_cap to the tick's bound (a state disabled by hand, the
 * profile's latency limit) and stores the clamped value, so once the bound
 * goes (the administrator re-enables C6; the profile switches from latency
 * to balanced) the model "wants" C1E although no row ever said C6 was too
 * deep (the reason line: "the model: C6 was too deep 0% of the time").
 * When C1E's entries would not pay in C6 the cap never comes back, while
 * a CPU that never had the bound keeps C6 on the same ticks.  This test
 * asserts the intended behaviour: with the bound gone, the plan is the
 * model's alone. */
START_TEST(test_bound_released) {
        const PolicyCpu *c0, *c1;
        Machine m;

        /* the model alone, on these ticks: C6 */
        machine_init(&m, 1, skylake, 4, "balanced", "balanced");
        for (unsigned i = 0; i < 20; i++) {
                ipi_sleeps(&m, 0, C1E);
                step(&m, NEVER);
        }
        assert_plan(cpu_of(&m, 0), C6, PLAN_REASON_NONE, POLL, PLAN_REASON_NONE);
        machine_done(&m);

        /* CPU 0: C6 disabled by hand; CPU 1: the latency profile */
        machine_init(&m, 2, skylake, 4, "balanced", "latency");
        for (unsigned i = 0; i < 20; i++) {
                ipi_sleeps(&m, 0, C1E);
                disable(&m, 0, C6, BY_HAND);
                ipi_sleeps(&m, 1, C1E);
                step(&m, NEVER);
        }
        c0 = cpu_of(&m, 0);
        c1 = cpu_of(&m, 1);
        assert_plan(c0, C1E, PLAN_REASON_MANUAL, POLL, PLAN_REASON_NONE);
        assert_plan(c1, C1E, PLAN_REASON_PROFILE_LIMIT, POLL, PLAN_REASON_NONE);
        m.cpu_profile[1] = m.cpu_profile[0];
        for (unsigned i = 0; i < 10; i++) {
                ipi_sleeps(&m, 0, c0->cap);
                ipi_sleeps(&m, 1, c1->cap);
                step(&m, NEVER);
        }
        ck_assert_msg(c0->cap == C6 && c1->cap == C6,
                      "KNOWN BUG: 10 ticks after the bound went, CPU 0 (C6 re-enabled by hand): %s; "
                      "CPU 1 (latency -> balanced): %s", c0->reason, c1->reason);
        machine_done(&m);
}
END_TEST

/* The kernel offers wteo (listed, and its parameters directory there). */
static void offer_wteo(Machine *m, bool params_dir) {
        snprintf(m->system.governors[m->system.n_governors++], sizeof(m->system.governors[0]), "wteo");
        m->system.has_wteo = params_dir;
}

/* "auto" selects wteo wherever the kernel offers it, on a guest too, but a
 * poll window still needs haltpoll; a named governor and "keep" are kept;
 * wteo listed without its parameters is not offered. */
START_TEST(test_governor_wteo) {
        static const struct {
                const char *profile;
                bool params_dir;
                const char *governor;
        } bare[] = {
                { "balanced", true, "wteo" },
                { "latency", true, "wteo" },
                { "balanced", false, "" },            /* auto off a guest without wteo: no opinion */
        };
        Machine m;

        for (unsigned i = 0; i < sizeof(bare) / sizeof(bare[0]); i++) {
                machine_init(&m, 1, skylake, 3, bare[i].profile, bare[i].profile);
                offer_wteo(&m, bare[i].params_dir);
                tick_begin(&m, 0, 100, 100, 0);
                step(&m, NEVER);
                ck_assert_str_eq(m.loop->sys.governor, bare[i].governor);
                ck_assert(!m.loop->sys.governor_required);
                machine_done(&m);
        }

        machine_init(&m, 1, skylake, 3, "balanced", "balanced");
        offer_wteo(&m, true);
        m.profile.governor = PROFILE_GOVERNOR_NAMED;
        snprintf(m.profile.governor_name, sizeof(m.profile.governor_name), "teo");
        step(&m, NEVER);
        ck_assert_str_eq(m.loop->sys.governor, "teo");
        m.profile.governor = PROFILE_GOVERNOR_KEEP;
        step(&m, NEVER);
        ck_assert_str_eq(m.loop->sys.governor, "");
        m.profile.governor = PROFILE_GOVERNOR_NAMED;
        snprintf(m.profile.governor_name, sizeof(m.profile.governor_name), "wteo");
        step(&m, NEVER);
        ck_assert_str_eq(m.loop->sys.governor, "wteo");
        machine_done(&m);

        /* A guest: no window yet (not calibrated) → wteo instead of menu;
         * a window → haltpoll, required. */
        machine_kvm(&m, "balanced", "balanced", 0);
        offer_wteo(&m, true);
        kvm_round_trips(&m);
        step(&m, NEVER);
        ck_assert_str_eq(m.loop->sys.governor, "wteo");
        machine_done(&m);
        machine_kvm(&m, "balanced", "balanced", HALT_WAKEUP_US);
        offer_wteo(&m, true);
        kvm_round_trips(&m);
        step(&m, NEVER);
        ck_assert_int_eq(m.loop->sys.poll.mode, POLL_MODE_WINDOW);
        ck_assert_str_eq(m.loop->sys.governor, "haltpoll");
        ck_assert(m.loop->sys.governor_required);
        machine_done(&m);
}
END_TEST

/* The halted time of a tick: the states' counters, unless the CPU
 * entered idle rarely and proc/stat disagrees by more than its slack (a
 * halt still running at the sample). */
START_TEST(test_halted_counters_or_stat) {
        PolicyTick t = {
                .n_states = 2,
                .states = { { .polling = true }, { .latency_us = 1 } },
                .interval_us = 500000,
        };

        /* ebizzy on one CPU: 1300 halts of 160 us, 10 polls of 20 us,
         * 0.21 CPU by the counters; proc/stat's tick sampling saw 0.02.
         * Many entries: the counters hold. */
        t.d_usage[0] = 10, t.d_time_us[0] = 200;
        t.d_usage[1] = 1300, t.d_time_us[1] = 1300 * 160;
        t.util = 20;                            /* 2% busy in Q10 */
        ck_assert_uint_eq(policy_tick_halted_us(&t), 1300 * 160);
        /* An idle CPU whose last halt runs on past the sample: 2 halts
         * counted (120 ms), proc/stat 99% idle.  proc/stat's, less the
         * polling. */
        t.d_usage[0] = 0, t.d_time_us[0] = 0;
        t.d_usage[1] = 2, t.d_time_us[1] = 120000;
        t.util = 10;
        ck_assert_uint_eq(policy_tick_halted_us(&t), 500000 - (500000 * 10 >> 10));
        /* ... and within the slack: the counters. */
        t.d_time_us[1] = 500000 - (500000 * 10 >> 10) - 15000;
        ck_assert_uint_eq(policy_tick_halted_us(&t), 500000 - (500000 * 10 >> 10) - 15000);
        /* No proc/stat: the counters. */
        t.d_time_us[1] = 120000;
        t.util = -1;
        ck_assert_uint_eq(policy_tick_halted_us(&t), 120000);
        /* A 50 ms tick: fewer than 3 entries is rare enough. */
        t.interval_us = 50000;
        t.util = 0;
        t.d_usage[1] = 2, t.d_time_us[1] = 10000;
        ck_assert_uint_eq(policy_tick_halted_us(&t), 50000);
        t.d_usage[1] = 3;
        ck_assert_uint_eq(policy_tick_halted_us(&t), 10000);
}
END_TEST

static Suite *step_suite(void) {
        Suite *s = suite_create("policy-step");
        TCase *kvm = tcase_create("kvm"), *core = tcase_create("core"), *bugs = tcase_create("known-bugs");

        tcase_add_test(kvm, test_kvm_round_trips_poll);
        tcase_add_test(kvm, test_kvm_no_poll);
        tcase_add_test(kvm, test_kvm_polled_only_holds);
        tcase_add_test(kvm, test_kvm_poll_exploration_draw);
        tcase_add_test(kvm, test_two_profiles_kvm);
        tcase_add_test(kvm, test_kvm_window_per_profile);
        tcase_add_test(kvm, test_profile_switch_drops_poll_only);
        tcase_add_test(kvm, test_replan_between_ticks);
        tcase_add_test(kvm, test_replan_cpu_without_states);
        suite_add_tcase(s, kvm);
        tcase_add_test(core, test_two_profiles);
        tcase_add_test(core, test_manual_knobs);
        tcase_add_test(core, test_util_rule);
        tcase_add_test(core, test_exploration);
        tcase_add_test(core, test_hold);
        tcase_add_test(core, test_profile_switch_releases_hold);
        tcase_add_test(core, test_offline_and_changed);
        tcase_add_test(core, test_governor_wteo);
        tcase_add_test(core, test_halted_counters_or_stat);
        suite_add_tcase(s, core);
        tcase_add_test(bugs, test_slot_beyond_input);
        tcase_add_test(bugs, test_bound_released);
        suite_add_tcase(s, bugs);
        return s;
}

int main(int argc, char **argv) {
        profiles_dir = argc > 1 ? argv[1] : NULL;
        return model_test_run(step_suite());
}
