/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The built-in synthetic workloads.  Each is a small story about what a CPU
 * sees; the numbers are defaults to be overridden per spec. */
#include <errno.h>
#include <math.h>

#include "sim-util.h"
#include "sim-workload-type.h"

#define LATE_PARAMS \
        { "late_min_us", 16, 0, 10000, NULL }, \
        { "late_max_us", 58, 0, 10000, NULL }
#define LATE_HELP "late_min_us=16 late_max_us=58"

/* sleeping-ebizzy-like: threads hand work to each other, so the CPU sees
 * bursts of short idle periods ended by IPIs while the next timer is far
 * away, then each thread sleeps 10 ms on a timer. */
static void ebizzy_next(Workload *w, SimInterval *ret) {
        wl_run(w, wl_us(sim_rand_lognormal(&w->rng, wl_param(w, "busy_us"), 0.3)), ret);
        if (w->counter < (uint64_t) wl_param(w, "burst")) {
                w->counter++;
                wl_idle(w, WL_NONE, wl_us(sim_rand_lognormal(&w->rng, wl_param(w, "short_us"), wl_param(w, "sigma"))), ret);
        } else {
                w->counter = 0;
                wl_idle(w, wl_us(wl_param(w, "long_ms") * 1000.0), WL_NONE, ret);
        }
}

static const WorkloadType workload_ebizzy = {
        .name = "ebizzy",
        .summary = "sleeping-ebizzy-like: bursts of short IPI-ended idles, then a 10 ms timer sleep",
        .params_help = "burst=16 short_us=40 sigma=0.6 long_ms=10 busy_us=20 bg_ms=50 " LATE_HELP,
        .params = {
                { "burst", 16, 0, 1e6, NULL },
                { "short_us", 40, 0.1, 1e7, NULL },
                { "sigma", 0.6, 0, 5, NULL },
                { "long_ms", 10, 0.001, 1e5, NULL },
                { "busy_us", 20, 0.1, 1e7, NULL },
                { "bg_ms", 50, 0, 1e5, NULL },
                LATE_PARAMS,
        },
        .next = ebizzy_next,
};

/* schbench-like: workers usleep() between requests; most idle periods end
 * at that timer (83-98% measured here), the rest by a message's IPI. */
static void schbench_next(Workload *w, SimInterval *ret) {
        double own_us = wl_param(w, "sleep_us") * sim_rand_range(&w->rng, 0.8, 1.2);
        uint64_t event = WL_NONE;

        wl_run(w, wl_us(sim_rand_lognormal(&w->rng, wl_param(w, "busy_us"), 0.3)), ret);
        if (sim_rand_unit(&w->rng) * 100.0 >= wl_param(w, "timer_pct"))
                event = wl_us(own_us * sim_rand_range(&w->rng, 0.1, 0.9));
        wl_idle(w, wl_us(own_us), event, ret);
}

static const WorkloadType workload_schbench = {
        .name = "schbench",
        .summary = "schbench-like: usleep() between requests, most wakeups at the timer",
        .params_help = "sleep_us=150 timer_pct=90 busy_us=30 bg_ms=100 " LATE_HELP,
        .params = {
                { "sleep_us", 150, 1, 1e7, NULL },
                { "timer_pct", 90, 0, 100, NULL },
                { "busy_us", 30, 0.1, 1e7, NULL },
                { "bg_ms", 100, 0, 1e5, NULL },
                LATE_PARAMS,
        },
        .next = schbench_next,
};

/* pgbench-like: client/server round trips; almost every idle period ends
 * with an IPI while the next hrtimer is hundreds of ms away. */
static void pgbench_next(Workload *w, SimInterval *ret) {
        wl_run(w, wl_us(sim_rand_lognormal(&w->rng, wl_param(w, "busy_us"), 0.5)), ret);
        wl_idle(w, WL_NONE, wl_us(sim_rand_lognormal(&w->rng, wl_param(w, "rtt_us"), wl_param(w, "sigma"))), ret);
        ret->iowait = sim_rand_unit(&w->rng) * 100.0 < wl_param(w, "iowait_pct");
}

static const WorkloadType workload_pgbench = {
        .name = "pgbench",
        .summary = "pgbench-like: IPI-ended round trips, next timer hundreds of ms away",
        .params_help = "rtt_us=80 sigma=0.8 busy_us=40 bg_ms=300 iowait_pct=0 " LATE_HELP,
        .params = {
                { "rtt_us", 80, 0.1, 1e7, NULL },
                { "sigma", 0.8, 0, 5, NULL },
                { "busy_us", 40, 0.1, 1e7, NULL },
                { "bg_ms", 300, 0, 1e5, NULL },
                { "iowait_pct", 0, 0, 100, NULL },
                LATE_PARAMS,
        },
        .next = pgbench_next,
};

/* hackbench-like: many tasks ping-pong over pipes; the CPU is busy most of
 * the time, so the tick keeps running and is the next timer; idle periods
 * are a few µs to tens of µs, ended by wakeups from other CPUs. */
static void hackbench_next(Workload *w, SimInterval *ret) {
        uint64_t tick = wl_us(1e6 / wl_param(w, "hz"));

        wl_run(w, wl_us(sim_rand_exp(&w->rng, wl_param(w, "busy_us"))), ret);
        wl_idle(w, tick - w->now_ns % tick, wl_us(sim_rand_exp(&w->rng, wl_param(w, "idle_us"))), ret);
}

static const WorkloadType workload_hackbench = {
        .name = "hackbench",
        .summary = "hackbench-like: busy CPU, short IPI-ended idles, the tick as next timer",
        .params_help = "idle_us=15 busy_us=200 hz=250 bg_ms=0 " LATE_HELP,
        .params = {
                { "idle_us", 15, 0.1, 1e7, NULL },
                { "busy_us", 200, 0.1, 1e7, NULL },
                { "hz", 250, 1, 10000, NULL },
                { "bg_ms", 0, 0, 1e5, NULL },
                LATE_PARAMS,
        },
        .next = hackbench_next,
};

/* A periodic timer whose rate sweeps from from_hz to to_hz in steps (each
 * held for periods periods), then starts over. */
static void sweep_next(Workload *w, SimInterval *ret) {
        uint64_t steps = (uint64_t) wl_param(w, "steps"), periods = (uint64_t) wl_param(w, "periods");
        uint64_t step = (w->counter++ / periods) % steps;
        double from = wl_param(w, "from_hz"), to = wl_param(w, "to_hz");
        double hz = from + (to - from) * (double) step / (double) (steps - 1);
        uint64_t period = wl_us(1e6 / hz), busy = wl_us(wl_param(w, "busy_us"));

        wl_run(w, busy, ret);
        wl_idle(w, period > busy ? period - busy : 1000, WL_NONE, ret);
}

static const WorkloadType workload_sweep = {
        .name = "timer-sweep",
        .summary = "periodic timer sweeping 5 -> 411 Hz, every wakeup a timer",
        .params_help = "from_hz=5 to_hz=411 steps=64 periods=50 busy_us=50 bg_ms=0 " LATE_HELP,
        .params = {
                { "from_hz", 5, 0.1, 1e5, NULL },
                { "to_hz", 411, 0.1, 1e5, NULL },
                { "steps", 64, 2, 1e6, NULL },
                { "periods", 50, 1, 1e6, NULL },
                { "busy_us", 50, 0, 1e6, NULL },
                { "bg_ms", 0, 0, 1e5, NULL },
                LATE_PARAMS,
        },
        .next = sweep_next,
};

/* An idle system: housekeeping timers tens of ms apart, rare interrupts. */
static void idle_next(Workload *w, SimInterval *ret) {
        wl_run(w, wl_us(sim_rand_lognormal(&w->rng, wl_param(w, "busy_us"), 0.5)), ret);
        wl_idle(w, wl_us(1000.0 * sim_rand_lognormal(&w->rng, wl_param(w, "timer_ms"), 1.0)),
                wl_us(1000.0 * sim_rand_exp(&w->rng, wl_param(w, "irq_ms"))), ret);
}

static const WorkloadType workload_idle = {
        .name = "idle",
        .summary = "idle system: housekeeping timers (median 20 ms), rare device interrupts",
        .params_help = "timer_ms=20 irq_ms=500 busy_us=10 bg_ms=0 " LATE_HELP,
        .params = {
                { "timer_ms", 20, 0.001, 1e5, NULL },
                { "irq_ms", 500, 0.001, 1e6, NULL },
                { "busy_us", 10, 0.1, 1e6, NULL },
                { "bg_ms", 0, 0, 1e5, NULL },
                LATE_PARAMS,
        },
        .next = idle_next,
};

/* An idle server: the CPU sleeps until its next timer, long periods apart,
 * and irq_pct of those periods end earlier, at a uniformly random point,
 * on a device interrupt (a network packet, a disk completion).  The
 * defaults come from published measurements of idle machines:
 *   - timer_ms: an idle tickless x86 box takes "1-2 timer interrupts per
 *     second" (the RT wiki, rt.wiki.kernel.org "Tickless kernel"): a
 *     timer every 500 ms (log-normal around it, sigma 1);
 *   - irq_pct: a PowerTOP overview of an idle home server (nginx, docker,
 *     ntpd; pastebin.com/m7ji4JEU, PowerTOP 2.x) counts 555.7 wakeups/s
 *     of which 19.8 are device interrupts (net_rx 14.1, block 5.7): 3.6%;
 *     teo's documentation (drivers/cpuidle/governors/teo.c) has timers
 *     "two or more orders of magnitude more frequent than any other
 *     interrupts" on many systems, so 3.6% is the interrupt-heavy end;
 *   - busy_us: the same overview's 3.5% CPU use over its 555.7 wakeups/s,
 *     63 µs per wakeup. */
static void idle_server_next(Workload *w, SimInterval *ret) {
        uint64_t timer = wl_us(1000.0 * sim_rand_lognormal(&w->rng, wl_param(w, "timer_ms"), 1.0));
        uint64_t event = WL_NONE;

        wl_run(w, wl_us(sim_rand_lognormal(&w->rng, wl_param(w, "busy_us"), 0.5)), ret);
        if (sim_rand_unit(&w->rng) * 100.0 < wl_param(w, "irq_pct"))
                event = (uint64_t) ((double) timer * sim_rand_unit(&w->rng));
        wl_idle(w, timer, event, ret);
}

static const WorkloadType workload_idle_server = {
        .name = "idle-server",
        .summary = "idle server: timers ~500 ms apart, 3.6% of the periods cut short by a device interrupt",
        .params_help = "timer_ms=500 irq_pct=3.6 busy_us=63 bg_ms=0 " LATE_HELP,
        .params = {
                { "timer_ms", 500, 0.001, 1e6, NULL },
                { "irq_pct", 3.6, 0, 100, NULL },
                { "busy_us", 63, 0.1, 1e6, NULL },
                { "bg_ms", 0, 0, 1e5, NULL },
                LATE_PARAMS,
        },
        .next = idle_server_next,
};

/* A phase change: workload a for switch_s seconds, then b, then a again. */
static int phase_init(Workload *w, uint64_t seed, ErrorInfo *e) {
        const char *a = w->names[wl_param_index(w, "a")], *b = w->names[wl_param_index(w, "b")];
        int r;

        if (streq(a, "phase") || streq(b, "phase"))
                return errinfo_set(e, -EINVAL, "workload phase: a phase cannot contain a phase");
        r = workload_new(a, seed, &w->sub[0], e);
        if (r < 0)
                return r;
        r = workload_new(b, seed ^ UINT64_C(0x5bd1e995), &w->sub[1], e);
        if (r < 0)
                return r;
        w->phase_end_ns = wl_us(wl_param(w, "switch_s") * 1e6);
        return 0;
}

static void phase_next(Workload *w, SimInterval *ret) {
        if (w->now_ns >= w->phase_end_ns) {
                w->phase ^= 1;
                w->phase_end_ns += wl_us(wl_param(w, "switch_s") * 1e6);
        }
        workload_next(w->sub[w->phase], ret);
        w->now_ns += ret->busy_ns + ret->duration_ns;
}

static const WorkloadType workload_phase = {
        .name = "phase",
        .summary = "phase change: one workload for switch_s seconds, then another, alternating",
        .params_help = "a=pgbench b=ebizzy switch_s=30",
        .params = {
                { "a", 0, 0, 0, "pgbench" },
                { "b", 0, 0, 0, "ebizzy" },
                { "switch_s", 30, 0.001, 1e6, NULL },
        },
        .init = phase_init,
        .next = phase_next,
};

const WorkloadType *const workload_types[] = {
        &workload_ebizzy,
        &workload_schbench,
        &workload_pgbench,
        &workload_hackbench,
        &workload_sweep,
        &workload_idle,
        &workload_idle_server,
        &workload_phase,
        NULL,
};
