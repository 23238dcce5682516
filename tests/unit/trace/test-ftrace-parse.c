/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace-idle.h"
#include "ftrace-parse.h"
#include "timer-track.h"

#define MS 1000000ull
#define US 1000ull

/* ---- single lines --------------------------------------------------------- */

static FtraceEvent parse_ok(const char *line) {
        FtraceEvent ev;

        ck_assert_msg(ftrace_parse_line(line, &ev) == 0, "not parsed: %s", line);
        return ev;
}

START_TEST(test_parse_prefix) {
        FtraceEvent ev = parse_ok("          <idle>-0       [001] d.h1.   321.668017: local_timer_entry: vector=236\n");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_IRQ_ENTRY);
        ck_assert(ev.irq.timer);
        ck_assert_uint_eq(ev.cpu, 1);
        ck_assert_int_eq(ev.pid, 0);
        ck_assert_uint_eq(ev.ts_ns, 321668017000ull);
        ck_assert_int_eq(ev.ctx, FTRACE_CTX_HARDIRQ);

        ev = parse_ok(" memfd:sealed-91-4639    [001] d..3.   274.916233: hrtimer_cancel: hrtimer=000000000e278973");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_HRTIMER_CANCEL);
        ck_assert_int_eq(ev.pid, 4639);
        ck_assert_uint_eq(ev.hrtimer.id, 0xe278973);
        ck_assert_int_eq(ev.ctx, FTRACE_CTX_TASK);

        /* comm with a space, the record-tgid column, 'H' context */
        ev = parse_ok("     Web Content-1234    (   1200) [000] dNH1. 5.000001: sched_switch: prev_comm=Web Content "
                      "prev_pid=1234 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_SCHED_SWITCH);
        ck_assert_int_eq(ev.pid, 1234);
        ck_assert_int_eq(ev.sched_switch.prev_pid, 1234);
        ck_assert_int_eq(ev.sched_switch.next_pid, 0);
        ck_assert_int_eq(ev.ctx, FTRACE_CTX_HARDIRQ_IN_SOFTIRQ);
        ck_assert_uint_eq(ev.ts_ns, 5000001000ull);

        /* no irq-info column, nanosecond timestamps */
        ev = parse_ok("bash-12 [003] 7.123456789: softirq_entry: vec=7 [action=SCHED]");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_SOFTIRQ_ENTRY);
        ck_assert_int_eq(ev.ctx, FTRACE_CTX_UNKNOWN);
        ck_assert_uint_eq(ev.cpu, 3);
        ck_assert_uint_eq(ev.ts_ns, 7123456789ull);

        ev = parse_ok("<...>-77 [000] ..s1. 1.5: tick_stop: success=1 dependency=NONE");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_OTHER);
        ck_assert_int_eq(ev.ctx, FTRACE_CTX_SOFTIRQ);
        ck_assert_uint_eq(ev.ts_ns, 1500000000ull);
}
END_TEST

START_TEST(test_parse_events) {
        FtraceEvent ev = parse_ok("<idle>-0 [000] d..1. 1.000000: cpu_idle: state=4294967295 cpu_id=0");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_CPU_IDLE);
        ck_assert_int_eq(ev.idle.state, -1);
        ev = parse_ok("<idle>-0 [002] d..1. 1.000000: cpu_idle: state=3 cpu_id=2");
        ck_assert_int_eq(ev.idle.state, 3);
        ck_assert_uint_eq(ev.idle.cpu, 2);

        ev = parse_ok("<idle>-0 [000] d..1. 1.000000: cpu_idle_miss: cpu_id=0 state=1 type=below");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_CPU_IDLE_MISS);
        ck_assert(ev.miss.below);
        ck_assert_uint_eq(ev.miss.state, 1);
        ev = parse_ok("<idle>-0 [000] d..1. 1.000000: cpu_idle_miss: cpu_id=0 state=1 type=above");
        ck_assert(!ev.miss.below);

        ev = parse_ok("sleep-6137 [001] d..1. 274.853769: hrtimer_start: hrtimer=0000000041b567d5 function=hrtimer_wakeup "
                      "expires=276853818420 softexpires=276853768420 mode=REL was_armed=0");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_HRTIMER_START);
        ck_assert_uint_eq(ev.hrtimer.id, 0x41b567d5);
        ck_assert_uint_eq(ev.hrtimer.expires_ns, 276853818420ull);

        ev = parse_ok("<idle>-0 [001] d.h1. 321.668018: hrtimer_expire_entry: hrtimer=0000000042dae7e7 "
                      "function=tick_nohz_handler now=321668017389");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_HRTIMER_EXPIRE);
        ck_assert_uint_eq(ev.hrtimer.expires_ns, 321668017389ull);

        ev = parse_ok("<idle>-0 [001] d.h1. 1.0: irq_handler_entry: irq=11 name=arch_timer");
        ck_assert(ev.irq.timer);
        ev = parse_ok("<idle>-0 [001] d.h1. 1.0: irq_handler_entry: irq=42 name=virtio3-tx");
        ck_assert(!ev.irq.timer);
        ev = parse_ok("<idle>-0 [001] d.h1. 1.0: irq_handler_exit: irq=42 ret=handled");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_IRQ_EXIT);
        ev = parse_ok("<idle>-0 [001] d.h1. 1.0: call_function_single_entry: vector=251");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_IRQ_ENTRY);
        ck_assert(!ev.irq.timer);

        ev = parse_ok("kworker/0:1-11 [000] d..2. 1.0: sched_wake_idle_without_ipi: cpu=1");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_WAKE_IDLE_NO_IPI);
        ck_assert_uint_eq(ev.wake.cpu, 1);

        ev = parse_ok("CPU:1 [LOST 12 EVENTS]");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_LOST);
        ck_assert_uint_eq(ev.cpu, 1);
        ck_assert_uint_eq(ev.lost.count, 12);
}
END_TEST

START_TEST(test_parse_rejects) {
        static const char *const no_event[] = { "", "\n", "# tracer: nop", "#           TASK-PID     CPU#",
                                                "##### CPU 1 buffer started ####" };
        static const char *const bad[] = {
                "hello world",
                "bash-12 [000] d..1. 1.0 cpu_idle: state=1 cpu_id=0",           /* no ':' after the time */
                "bash [000] d..1. 1.0: cpu_idle: state=1 cpu_id=0",             /* no pid */
                "bash-12 [000] d..1. x.0: cpu_idle: state=1 cpu_id=0",
                "bash-12 [000] d..1. 1.0: cpu_idle: state=x cpu_id=0",
                "bash-12 [000] d..1. 1.0: cpu_idle: state=1",
                "bash-12 [000] d..1. 1.0: cpu_idle_miss: cpu_id=0 state=1 type=sideways",
                "bash-12 [000] d..1. 1.0: hrtimer_start: hrtimer=zz expires=5",
                "bash-12 [000] d..1. 1.0: sched_switch: prev_comm=a prev_pid=1",
                "CPU:1 [LOST many EVENTS]",
        };
        FtraceEvent ev = { .type = FTRACE_EVENT_LOST };

        for (size_t i = 0; i < sizeof(no_event) / sizeof(no_event[0]); i++)
                ck_assert_int_eq(ftrace_parse_line(no_event[i], &ev), -ENOMSG);
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                ck_assert_msg(ftrace_parse_line(bad[i], &ev) == -EBADMSG, "accepted: %s", bad[i]);
        ck_assert_int_eq(ev.type, FTRACE_EVENT_LOST);   /* untouched */
}
END_TEST

/* trace-cmd report's forms: an instance prefix, no flags column, the -l
 * "<cpu><flags>" column, plugin-printed sched events, dropped markers. */
START_TEST(test_parse_trace_cmd) {
        FtraceEvent ev = parse_ok("tcx:            sleep-30813 [001] 21422.650255: sched_wakeup:         sh:30809 [120] CPU:001");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_SCHED_WAKEUP);
        ck_assert_uint_eq(ev.wakeup.cpu, 1);
        ck_assert(!ev.wakeup.waking);
        ck_assert_int_eq(ev.pid, 30813);
        ck_assert_uint_eq(ev.ts_ns, 21422650255000ull);
        ck_assert_int_eq(ev.ctx, FTRACE_CTX_UNKNOWN);

        ev = parse_ok("          <idle>-0     [001]  1234.567890: cpu_idle:             state=1 cpu_id=1");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_CPU_IDLE);
        ck_assert_int_eq(ev.idle.state, 1);
        ck_assert_uint_eq(ev.idle.cpu, 1);

        ev = parse_ok("tcx:       sh-30809   1d..2. 21422.650174: sched_switch:         sh:30809 [120] D ==> sh:30813 [120]");
        ck_assert_int_eq(ev.type, FTRACE_EVENT_SCHED_SWITCH);
        ck_assert_uint_eq(ev.cpu, 1);
        ck_assert_int_eq(ev.ctx, FTRACE_CTX_TASK);
        ck_assert_int_eq(ev.sched_switch.prev_pid, 30809);
        ck_assert_int_eq(ev.sched_switch.next_pid, 30813);

        /* comm with ':' and a space in the plugin form, -l with the 4-flag kernels */
        ev = parse_ok("kworker/0:1-11   0dNh1 7.000001: sched_switch: kworker/0:1:11 [120] R ==> Web Content:0 [120]");
        ck_assert_int_eq(ev.ctx, FTRACE_CTX_HARDIRQ);
        ck_assert_int_eq(ev.sched_switch.prev_pid, 11);
        ck_assert_int_eq(ev.sched_switch.next_pid, 0);
        ck_assert_uint_eq(ev.ts_ns, 7000001000ull);

        ev = parse_ok("<idle>-0   12d.h1. 5.000000123: local_timer_entry:    vector=236");
        ck_assert_uint_eq(ev.cpu, 12);
        ck_assert_int_eq(ev.ctx, FTRACE_CTX_HARDIRQ);
        ck_assert(ev.irq.timer);

        ev = parse_ok("sleep-5 [000] d..2. 1.0: sched_wakeup: comm=sh pid=9 prio=120 target_cpu=003");
        ck_assert_uint_eq(ev.wakeup.cpu, 3);
        ev = parse_ok("sleep-5 [000] d..2. 1.0: sched_waking: comm=sh pid=9 prio=120 target_cpu=002");
        ck_assert(ev.wakeup.waking);
        ev = parse_ok("sleep-5 [000] 1.0: sched_wakeup_new:     sh:9 [120] CPU:002 success=1");
        ck_assert_uint_eq(ev.wakeup.cpu, 2);

        ev = parse_ok("CPU:1 [12 EVENTS DROPPED]");
        ck_assert_uint_eq(ev.lost.count, 12);
        ev = parse_ok("tcx: CPU:0 [EVENTS DROPPED]");
        ck_assert_uint_eq(ev.cpu, 0);
        ck_assert_uint_eq(ev.lost.count, 1);

        ck_assert_int_eq(ftrace_parse_line("cpus=2", &ev), -ENOMSG);
        /* tracefs latency-format's relative times are not absolute: refused */
        ck_assert_int_eq(ftrace_parse_line("  <idle>-0       1d..2. 1234us : cpu_idle: state=1 cpu_id=1", &ev), -EBADMSG);
        ck_assert_int_eq(ftrace_parse_line("sh-1 [000] 1.0: sched_switch: sh:1 [120] S => sh:2 [120]", &ev), -EBADMSG);
        ck_assert_int_eq(ftrace_parse_line("sh-1 [000] 1.0: sched_wakeup: sh:1 [120]", &ev), -EBADMSG);
        ck_assert_int_eq(ftrace_parse_line("CPU:1 [x EVENTS DROPPED]", &ev), -EBADMSG);
}
END_TEST

START_TEST(test_parse_cpus_hint) {
        unsigned n = 0;

        ck_assert(ftrace_parse_cpus_hint("cpus=2\n", &n));
        ck_assert_uint_eq(n, 2);
        ck_assert(ftrace_parse_cpus_hint("# entries-in-buffer/entries-written: 10/10   #P:64", &n));
        ck_assert_uint_eq(n, 64);
        ck_assert(!ftrace_parse_cpus_hint("cpus=0", &n));
        ck_assert(!ftrace_parse_cpus_hint("cpus=2x", &n));
        ck_assert(!ftrace_parse_cpus_hint("sh-1 [000] 1.0: foo: #P:3", &n));
        ck_assert_uint_eq(n, 64);
}
END_TEST

/* ---- reconstruction ----------------------------------------------------------- */

#define T0 (100000000ull * US)  /* 100 s */

/* Feeds one event line: task-pid on cpu with irq-info flags at time ns. */
static void __attribute__((format(printf, 6, 7)))
feed(FtraceIdle *p, const char *task, unsigned cpu, const char *flags, uint64_t ns, const char *fmt, ...) {
        char line[512], body[400];
        va_list ap;
        FtraceIdleTotals before, after;

        va_start(ap, fmt);
        vsnprintf(body, sizeof(body), fmt, ap);
        va_end(ap);
        snprintf(line, sizeof(line), "%16s [%03u] %s %5llu.%06llu: %s", task, cpu, flags,
                 (unsigned long long) (ns / 1000000000ull), (unsigned long long) (ns % 1000000000ull / 1000), body);
        ftrace_idle_totals(p, &before);
        ck_assert_int_eq(ftrace_idle_feed_line(p, line), 0);
        ftrace_idle_totals(p, &after);
        ck_assert_msg(after.malformed == before.malformed, "malformed: %s", line);
}

static void hrtimer_start(FtraceIdle *p, const char *task, unsigned cpu, const char *flags, uint64_t ns,
                          unsigned id, uint64_t expires) {
        feed(p, task, cpu, flags, ns, "hrtimer_start: hrtimer=%016x function=f expires=%llu softexpires=%llu mode=ABS",
             id, (unsigned long long) expires, (unsigned long long) expires);
}

/* Finishes p into a new trace. */
static Trace *finish(FtraceIdle *p) {
        Trace *t = NULL;

        ck_assert_int_eq(trace_new(0, &t), 0);
        ck_assert_int_eq(ftrace_idle_finish(p, t), 0);
        ck_assert_int_eq(ftrace_idle_finish(p, t), -EALREADY);
        return t;
}

/* The n-th interval of cpu in t. */
static const IdleInterval *nth(const Trace *t, unsigned cpu, size_t n) {
        for (size_t i = 0; i < t->n_intervals; i++)
                if (t->intervals[i].cpu == cpu && n-- == 0)
                        return &t->intervals[i];
        ck_abort_msg("cpu %u has too few intervals", cpu);
        return NULL;
}

static void assert_iv(const IdleInterval *iv, uint64_t start, uint64_t duration, int32_t state, uint64_t sleep,
                      TraceWake wake, TraceMiss miss) {
        ck_assert_uint_eq(iv->start_ns, start);
        ck_assert_uint_eq(iv->duration_ns, duration);
        ck_assert_int_eq(iv->state, state);
        ck_assert_uint_eq(iv->sleep_length_ns, sleep);
        ck_assert_int_eq(iv->wake, wake);
        ck_assert_int_eq(iv->miss, miss);
}

/* CPU 0 as this machine's CPU 0 shows it: cpu_idle pairs, a tick ending one
 * period 30 us late, an IPI ending the next one, a cpu_idle_miss. */
static void feed_cpu_idle_cpu0(FtraceIdle *p) {
        hrtimer_start(p, "<idle>-0", 0, "d..1.", T0, 0xa, T0 + 4 * MS);
        feed(p, "<idle>-0", 0, "d..1.", T0 + 10 * US, "cpu_idle: state=1 cpu_id=0");
        feed(p, "<idle>-0", 0, "d.h1.", T0 + 4030 * US, "local_timer_entry: vector=236");
        feed(p, "<idle>-0", 0, "d.h1.", T0 + 4031 * US, "hrtimer_expire_entry: hrtimer=%016x now=%llu function=f",
             0xa, (unsigned long long) (T0 + 4030 * US));
        hrtimer_start(p, "<idle>-0", 0, "d.h2.", T0 + 4033 * US, 0xa, T0 + 8 * MS);
        feed(p, "<idle>-0", 0, "d.h1.", T0 + 4040 * US, "local_timer_exit: vector=236");
        feed(p, "<idle>-0", 0, "d..1.", T0 + 4045 * US, "cpu_idle: state=4294967295 cpu_id=0");
        feed(p, "<idle>-0", 0, "d..1.", T0 + 4050 * US, "cpu_idle: state=0 cpu_id=0");
        feed(p, "<idle>-0", 0, "dnh1.", T0 + 5050 * US, "reschedule_entry: vector=253");
        feed(p, "<idle>-0", 0, "dNh1.", T0 + 5055 * US, "reschedule_exit: vector=253");
        feed(p, "<idle>-0", 0, "dN.1.", T0 + 5060 * US, "cpu_idle: state=4294967295 cpu_id=0");
        feed(p, "<idle>-0", 0, "dN.1.", T0 + 5061 * US, "cpu_idle_miss: cpu_id=0 state=0 type=below");
        feed(p, "<idle>-0", 0, "d..2.", T0 + 5070 * US, "sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
             "prev_state=R ==> next_comm=w next_pid=77 next_prio=120");
}

/* CPU 1 as this machine's CPU 1 shows it: no task-context event of the idle
 * task; periods from the switch to idle and from the end of irq bursts. */
static void feed_irq_bounded_cpu1(FtraceIdle *p) {
        uint64_t t = T0 + 1000 * MS;

        hrtimer_start(p, "rcu-15", 1, "d..1.", t - 100 * US, 0xc, t + 4 * MS);          /* tick */
        hrtimer_start(p, "sleep-500", 1, "d..1.", t - 10 * US, 0xb, t + 10 * MS);      /* sleep 0.01 */
        feed(p, "sleep-500", 1, "d..2.", t, "sched_switch: prev_comm=sleep prev_pid=500 prev_prio=120 prev_state=S "
             "==> next_comm=swapper/1 next_pid=0 next_prio=120");
        feed(p, "<idle>-0", 1, "d.h1.", t + 4025 * US, "local_timer_entry: vector=236");
        feed(p, "<idle>-0", 1, "d.h1.", t + 4026 * US, "hrtimer_expire_entry: hrtimer=%016x now=1 function=f", 0xc);
        hrtimer_start(p, "<idle>-0", 1, "d.h2.", t + 4028 * US, 0xc, t + 8 * MS);
        feed(p, "<idle>-0", 1, "d.h1.", t + 4035 * US, "local_timer_exit: vector=236");
        feed(p, "<idle>-0", 1, "..s1.", t + 4036 * US, "softirq_entry: vec=7 [action=SCHED]");
        feed(p, "<idle>-0", 1, "d.H1.", t + 4040 * US, "call_function_single_entry: vector=251");  /* nested */
        feed(p, "<idle>-0", 1, "d.H1.", t + 4042 * US, "call_function_single_exit: vector=251");
        feed(p, "<idle>-0", 1, "..s1.", t + 4050 * US, "softirq_exit: vec=7 [action=SCHED]");
        feed(p, "<idle>-0", 1, "d.h1.", t + 8030 * US, "local_timer_entry: vector=236");
        feed(p, "<idle>-0", 1, "d.h1.", t + 8031 * US, "hrtimer_expire_entry: hrtimer=%016x now=1 function=f", 0xc);
        hrtimer_start(p, "<idle>-0", 1, "d.h2.", t + 8032 * US, 0xc, t + 12 * MS);
        feed(p, "<idle>-0", 1, "d.h1.", t + 8040 * US, "local_timer_exit: vector=236");
        feed(p, "<idle>-0", 1, "d.h1.", t + 10040 * US, "local_timer_entry: vector=236");
        feed(p, "<idle>-0", 1, "d.h1.", t + 10041 * US, "hrtimer_expire_entry: hrtimer=%016x now=1 function=f", 0xb);
        feed(p, "<idle>-0", 1, "dNh1.", t + 10050 * US, "local_timer_exit: vector=236");
        /* the woken task ran (its switch from idle is not traced) and sleeps again */
        feed(p, "sleep-500", 1, "d..2.", t + 10100 * US, "sched_switch: prev_comm=sleep prev_pid=500 prev_prio=120 "
             "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120");
        feed(p, "<idle>-0", 1, "dnh1.", t + 11000 * US, "reschedule_entry: vector=253");
        feed(p, "<idle>-0", 1, "dNh1.", t + 11005 * US, "reschedule_exit: vector=253");
        feed(p, "kworker-60", 1, "d..2.", t + 11100 * US, "sched_switch: prev_comm=kworker prev_pid=60 prev_prio=120 "
             "prev_state=I ==> next_comm=swapper/1 next_pid=0 next_prio=120");
        feed(p, "kworker-61", 0, "d..2.", t + 11500 * US, "sched_wake_idle_without_ipi: cpu=1");
        feed(p, "kworker-60", 1, "d..2.", t + 11600 * US, "sched_switch: prev_comm=kworker prev_pid=60 prev_prio=120 "
             "prev_state=I ==> next_comm=swapper/1 next_pid=0 next_prio=120");
        feed(p, "foo-70", 1, "d..1.", t + 11700 * US, "hrtimer_cancel: hrtimer=%016x", 0x99);  /* end not seen */
}

START_TEST(test_cpu_idle_source) {
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;
        FtraceIdleCpuStats s;

        ck_assert_int_eq(ftrace_idle_new(3, &p), 0);
        feed_cpu_idle_cpu0(p);
        t = finish(p);
        ck_assert_uint_eq(t->header.n_cpus, 3);
        ck_assert_int_eq(t->header.sources[0], TRACE_SOURCE_CPU_IDLE);
        ck_assert_int_eq(t->header.sources[1], TRACE_SOURCE_NONE);
        ck_assert_uint_eq(t->n_intervals, 2);
        assert_iv(nth(t, 0, 0), T0 + 10 * US, 4035 * US, 1, 3990 * US, TRACE_WAKE_TIMER, TRACE_MISS_NONE);
        assert_iv(nth(t, 0, 1), T0 + 4050 * US, 1010 * US, 0, 3950 * US, TRACE_WAKE_OTHER, TRACE_MISS_BELOW);

        ck_assert_int_eq(ftrace_idle_cpu_stats(p, 0, &s), 0);
        ck_assert_uint_eq(s.n_cpu_idle, 2);
        ck_assert_uint_eq(s.n_irq_bounded, 1);  /* the gap between the two interrupts */
        ck_assert_uint_eq(s.n_wake_timer, 1);
        ck_assert_uint_eq(s.n_at_predicted, 1);
        ck_assert_uint_eq(s.n_cross_found, 1);
        ck_assert_int_eq(s.cross_median_error_ns, 0);
        ck_assert_int_eq(ftrace_idle_cpu_stats(p, 3, &s), -ERANGE);
}
END_TEST

START_TEST(test_irq_bounded_source) {
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;
        FtraceIdleCpuStats s;
        uint64_t b = T0 + 1000 * MS;

        ck_assert_int_eq(ftrace_idle_new(3, &p), 0);
        feed_cpu_idle_cpu0(p);
        feed_irq_bounded_cpu1(p);
        t = finish(p);
        ck_assert_int_eq(t->header.sources[0], TRACE_SOURCE_CPU_IDLE);
        ck_assert_int_eq(t->header.sources[1], TRACE_SOURCE_IRQ_BOUNDED);
        ck_assert_int_eq(t->header.sources[2], TRACE_SOURCE_NONE);
        ck_assert_uint_eq(t->n_intervals, 2 + 5);
        assert_iv(nth(t, 1, 0), b, 4025 * US, -1, 4 * MS, TRACE_WAKE_TIMER, TRACE_MISS_UNKNOWN);
        assert_iv(nth(t, 1, 1), b + 4050 * US, 3980 * US, -1, 3950 * US, TRACE_WAKE_TIMER, TRACE_MISS_UNKNOWN);
        assert_iv(nth(t, 1, 2), b + 8040 * US, 2000 * US, -1, 1960 * US, TRACE_WAKE_TIMER, TRACE_MISS_UNKNOWN);
        assert_iv(nth(t, 1, 3), b + 10100 * US, 900 * US, -1, 1900 * US, TRACE_WAKE_OTHER, TRACE_MISS_UNKNOWN);
        assert_iv(nth(t, 1, 4), b + 11100 * US, 400 * US, -1, 900 * US, TRACE_WAKE_OTHER, TRACE_MISS_UNKNOWN);

        ck_assert_int_eq(ftrace_idle_cpu_stats(p, 1, &s), 0);
        ck_assert_uint_eq(s.n_cpu_idle, 0);
        ck_assert_uint_eq(s.n_dropped, 1);
        ck_assert_uint_eq(s.n_wake_timer, 3);
        ck_assert_uint_eq(s.n_at_predicted, 3);
        ck_assert_uint_eq(s.n_sleep_known, 5);
        /* rows sorted by start */
        for (size_t i = 1; i < t->n_intervals; i++)
                ck_assert_uint_le(t->intervals[i - 1].start_ns, t->intervals[i].start_ns);
}
END_TEST

START_TEST(test_sleep_length) {
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;
        uint64_t a = T0, b = T0 + 100 * MS, c = T0 + 200 * MS;

        ck_assert_int_eq(ftrace_idle_new(1, &p), 0);
        /* a cancelled timer does not count */
        hrtimer_start(p, "x-9", 0, "d..1.", a - 50 * US, 1, a + 1 * MS);
        feed(p, "x-9", 0, "d..1.", a - 40 * US, "hrtimer_cancel: hrtimer=%016x", 1);
        hrtimer_start(p, "x-9", 0, "d..1.", a - 30 * US, 2, a + 5 * MS);
        feed(p, "<idle>-0", 0, "d..1.", a, "cpu_idle: state=1 cpu_id=0");
        feed(p, "<idle>-0", 0, "d.h1.", a + 2 * MS, "call_function_entry: vector=252");
        feed(p, "<idle>-0", 0, "d..1.", a + 2 * MS + 10 * US, "cpu_idle: state=4294967295 cpu_id=0");
        /* a timer that passed without waking the CPU was not really pending (tick stopped untraced) */
        hrtimer_start(p, "x-9", 0, "d..1.", b - 10 * US, 3, b + 1 * MS);
        hrtimer_start(p, "x-9", 0, "d..1.", b - 10 * US, 4, b + 20 * MS);
        feed(p, "<idle>-0", 0, "d..1.", b, "cpu_idle: state=1 cpu_id=0");
        feed(p, "<idle>-0", 0, "d.h1.", b + 10 * MS, "call_function_entry: vector=252");
        feed(p, "<idle>-0", 0, "d..1.", b + 10 * MS + 10 * US, "cpu_idle: state=4294967295 cpu_id=0");
        /* an overdue timer (its interrupt is on the way): sleep length 0 */
        hrtimer_start(p, "x-9", 0, "d..1.", c - 100 * US, 5, c - 10 * US);
        feed(p, "<idle>-0", 0, "d..1.", c, "cpu_idle: state=0 cpu_id=0");
        feed(p, "<idle>-0", 0, "d.h1.", c + 30 * US, "local_timer_entry: vector=236");
        feed(p, "<idle>-0", 0, "d..1.", c + 40 * US, "cpu_idle: state=4294967295 cpu_id=0");
        t = finish(p);
        ck_assert_uint_eq(t->n_intervals, 3);
        ck_assert_uint_eq(t->intervals[0].sleep_length_ns, 5 * MS);
        ck_assert_uint_eq(t->intervals[1].sleep_length_ns, 20 * MS);
        ck_assert_uint_eq(t->intervals[2].sleep_length_ns, 0);
        ck_assert_int_eq(t->intervals[2].wake, TRACE_WAKE_TIMER);
}
END_TEST

static const char timer_list[] =
        "Timer List Version: v0.10\n"
        "now at 100000000000 nsecs\n\n"
        "cpu: 0\n clock 0:\n  .base:       00000000deadbeef\n  .offset:     0 nsecs\nactive timers:\n"
        "cpu: 1\n clock 0:\n  .offset:     0 nsecs\nactive timers:\n"
        " #0: <0000000000000077>, tick_nohz_handler, S:01\n"
        " # expires at 100007000000-100007000000 nsecs [in 7000000 to 7000000 nsecs]\n"
        " clock 1:\n  .offset:     1000000000000000000 nsecs\nactive timers:\n"
        " #0: <0000000000000078>, hrtimer_wakeup, S:01\n"
        " # expires at 1000000100009000000-1000000100009050000 nsecs [in 9000000 to 9050000 nsecs]\n"
        "Tick Device: mode:     1\n"
        "cpu: 1\n #0: <0000000000000079>, f, S:01\n # expires at 1-1 nsecs\n";

START_TEST(test_seed_timers) {
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;

        ck_assert_int_eq(ftrace_idle_new(2, &p), 0);
        ck_assert_int_eq(ftrace_idle_seed_timers(p, timer_list), 2);
        feed(p, "a-5", 1, "d..2.", T0, "sched_switch: prev_comm=a prev_pid=5 prev_prio=1 prev_state=S ==> "
             "next_comm=swapper/1 next_pid=0 next_prio=1");
        feed(p, "<idle>-0", 1, "d.h1.", T0 + 3 * MS, "irq_handler_entry: irq=42 name=virtio3-tx");
        feed(p, "<idle>-0", 1, "d.h1.", T0 + 3 * MS + 5 * US, "irq_handler_exit: irq=42 ret=handled");
        /* the seeded tick is cancelled; the realtime timer seeded on clock 1 remains (9.05 ms) */
        feed(p, "<idle>-0", 1, "d.h1.", T0 + 3 * MS + 6 * US, "hrtimer_cancel: hrtimer=%016x", 0x77);
        feed(p, "<idle>-0", 1, "d.h1.", T0 + 4 * MS, "irq_handler_entry: irq=42 name=virtio3-tx");
        /* a realtime timer armed during the trace is converted with the seeded offset */
        hrtimer_start(p, "a-5", 1, "d..1.", T0 + 5 * MS, 0x80, 1000000000000000000ull + T0 + 6 * MS);
        feed(p, "a-5", 1, "d..2.", T0 + 5 * MS, "sched_switch: prev_comm=a prev_pid=5 prev_prio=1 prev_state=S ==> "
             "next_comm=swapper/1 next_pid=0 next_prio=1");
        feed(p, "<idle>-0", 1, "d.h1.", T0 + 5500 * US, "irq_handler_entry: irq=42 name=virtio3-tx");
        t = finish(p);
        ck_assert_uint_eq(t->n_intervals, 3);
        ck_assert_uint_eq(t->intervals[0].sleep_length_ns, 7 * MS);
        ck_assert_uint_eq(t->intervals[1].sleep_length_ns, 9050 * US - 3006 * US);
        ck_assert_uint_eq(t->intervals[2].sleep_length_ns, 1 * MS);
}
END_TEST

/* Without interrupt events: a period ending within the lag after the
 * predicted timer ended at it; a hard-irq hrtimer expiry is the interrupt. */
START_TEST(test_wake_without_irq_events) {
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;
        uint64_t a = T0, b = T0 + 100 * MS, c = T0 + 200 * MS;

        ck_assert_int_eq(ftrace_idle_new(2, &p), 0);
        hrtimer_start(p, "x-9", 0, "d..1.", a - 10 * US, 5, a + 1 * MS);
        feed(p, "<idle>-0", 0, "d..1.", a, "cpu_idle: state=1 cpu_id=0");
        feed(p, "<idle>-0", 0, "d..1.", a + 1 * MS + 40 * US, "cpu_idle: state=4294967295 cpu_id=0");
        hrtimer_start(p, "x-9", 0, "d..1.", b - 10 * US, 6, b + 1 * MS);
        feed(p, "<idle>-0", 0, "d..1.", b, "cpu_idle: state=1 cpu_id=0");
        feed(p, "<idle>-0", 0, "d..1.", b + 1500 * US, "cpu_idle: state=4294967295 cpu_id=0");
        feed(p, "<idle>-0", 0, "d..1.", b + 1501 * US, "cpu_idle_miss: cpu_id=0 state=1 type=above");

        feed(p, "a-5", 1, "d..2.", c, "sched_switch: prev_comm=a prev_pid=5 prev_prio=1 prev_state=S ==> "
             "next_comm=swapper/1 next_pid=0 next_prio=1");
        feed(p, "<idle>-0", 1, "..s1.", c + 1 * MS, "hrtimer_expire_entry: hrtimer=%016x now=1 function=f", 7);
        feed(p, "<idle>-0", 1, "d.h1.", c + 2 * MS, "hrtimer_expire_entry: hrtimer=%016x now=1 function=f", 8);
        t = finish(p);
        ck_assert_uint_eq(t->n_intervals, 4);
        ck_assert_int_eq(t->intervals[0].wake, TRACE_WAKE_TIMER);
        ck_assert_uint_eq(t->intervals[0].sleep_length_ns, 1 * MS);
        ck_assert_int_eq(t->intervals[1].wake, TRACE_WAKE_UNKNOWN);
        ck_assert_uint_eq(t->intervals[1].sleep_length_ns, TRACE_SLEEP_UNKNOWN);
        ck_assert_int_eq(t->intervals[1].miss, TRACE_MISS_ABOVE);
        /* the softirq expiry at +1 ms shows an interrupt whose entry was not
         * traced (cause unknown); the hard one at +2 ms is the timer interrupt */
        assert_iv(&t->intervals[2], c, 1 * MS, -1, TRACE_SLEEP_UNKNOWN, TRACE_WAKE_UNKNOWN, TRACE_MISS_UNKNOWN);
        assert_iv(&t->intervals[3], c + 1 * MS, 1 * MS, -1, TRACE_SLEEP_UNKNOWN, TRACE_WAKE_TIMER, TRACE_MISS_UNKNOWN);
}
END_TEST

static void switch_to_idle(FtraceIdle *p, unsigned cpu, uint64_t ns) {
        feed(p, "sleep-500", cpu, "d..2.", ns, "sched_switch: prev_comm=sleep prev_pid=500 prev_prio=120 prev_state=S "
             "==> next_comm=swapper/%u next_pid=0 next_prio=120", cpu);
}

/* An interrupt taken by CPU 1's idle task wakes a task onto CPU 1
 * (wakeup_event: "sched_wakeup" or "sched_waking"); another interrupt
 * comes before the switch away from idle, which is not traced; the task
 * runs and sleeps again; the next interrupt ends the next period. */
static void feed_woken_in_burst(FtraceIdle *p, uint64_t t, const char *wakeup_event) {
        switch_to_idle(p, 1, t);
        feed(p, "<idle>-0", 1, "d.h1.", t + 1000 * US, "irq_handler_entry: irq=42 name=virtio3-input");
        feed(p, "<idle>-0", 1, "dNh2.", t + 1005 * US, "%s: comm=sleep pid=500 prio=120 target_cpu=001", wakeup_event);
        feed(p, "<idle>-0", 1, "dNh1.", t + 1010 * US, "irq_handler_exit: irq=42 ret=handled");
        feed(p, "<idle>-0", 1, "dNh1.", t + 1020 * US, "call_function_single_entry: vector=251");
        feed(p, "<idle>-0", 1, "dNh1.", t + 1030 * US, "call_function_single_exit: vector=251");
        feed(p, "sleep-500", 1, "d..1.", t + 1500 * US, "hrtimer_cancel: hrtimer=%016x", 0x55);
        switch_to_idle(p, 1, t + 2000 * US);
        feed(p, "<idle>-0", 1, "d.h1.", t + 3000 * US, "irq_handler_entry: irq=42 name=virtio3-input");
}

/* t holds exactly n intervals, all on CPU 1, irq-bounded and ended by a
 * non-timer interrupt with no known timer: (start, duration) each. */
static void assert_cpu1_periods(const Trace *t, size_t n, const uint64_t (*periods)[2]) {
        ck_assert_uint_eq(t->n_intervals, n);
        for (size_t i = 0; i < n; i++)
                assert_iv(nth(t, 1, i), periods[i][0], periods[i][1], -1, TRACE_SLEEP_UNKNOWN, TRACE_WAKE_OTHER,
                          TRACE_MISS_UNKNOWN);
}

START_TEST(test_wakeup_ends_idle) {
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;
        uint64_t a = T0, b = T0 + 100 * MS;

        ck_assert_int_eq(ftrace_idle_new(2, &p), 0);
        /* woken by the interrupt's handler: no period between the wake-up and the switch */
        feed_woken_in_burst(p, a, "sched_wakeup");
        /* woken from CPU 0 while idle: the IPI ends the period, the timer
         * interrupt before the switch away does not end another one */
        switch_to_idle(p, 1, b);
        feed(p, "kworker-60", 0, "d..2.", b + 1000 * US, "sched_wakeup: comm=sleep pid=500 prio=120 target_cpu=001");
        feed(p, "<idle>-0", 1, "dNh1.", b + 1010 * US, "reschedule_entry: vector=253");
        feed(p, "<idle>-0", 1, "dNh1.", b + 1015 * US, "reschedule_exit: vector=253");
        feed(p, "<idle>-0", 1, "dNh1.", b + 1050 * US, "local_timer_entry: vector=236");
        feed(p, "<idle>-0", 1, "dNh1.", b + 1060 * US, "local_timer_exit: vector=236");
        feed(p, "sleep-500", 1, "d..1.", b + 1100 * US, "hrtimer_cancel: hrtimer=%016x", 0x55);
        t = finish(p);
        assert_cpu1_periods(t, 3, (const uint64_t[][2]) { { a, 1000 * US }, { a + 2000 * US, 1000 * US }, { b, 1010 * US } });
}
END_TEST

/* The woken task's events are not traced (so neither is its switch back to
 * idle): an interrupt that finds need-resched clear again ends a period
 * that started at the idle task's last event; without a flags column the
 * wake-up still holds. */
START_TEST(test_wakeup_untraced_task) {
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;
        uint64_t a = T0, b = T0 + 100 * MS;

        ck_assert_int_eq(ftrace_idle_new(2, &p), 0);
        switch_to_idle(p, 1, a);
        feed(p, "<idle>-0", 1, "d.h1.", a + 1000 * US, "call_function_single_entry: vector=251");
        feed(p, "<idle>-0", 1, "dNh2.", a + 1003 * US, "sched_wakeup: comm=tokio pid=70 prio=120 target_cpu=001");
        feed(p, "<idle>-0", 1, "dNh1.", a + 1004 * US, "call_function_single_exit: vector=251");
        feed(p, "<idle>-0", 1, ".Ns1.", a + 1010 * US, "softirq_exit: vec=7 [action=SCHED]");
        feed(p, "<idle>-0", 1, "d.h1.", a + 1400 * US, "call_function_single_entry: vector=251");
        /* trace-cmd report without -l: no flags, the wake-up holds */
        switch_to_idle(p, 1, b);
        ck_assert_int_eq(ftrace_idle_feed_line(p, "          <idle>-0     [001] 100.101000: call_function_single_entry: vector=251"), 0);
        ck_assert_int_eq(ftrace_idle_feed_line(p, "          <idle>-0     [001] 100.101003: sched_wakeup:         tokio:70 [120] CPU:001"), 0);
        ck_assert_int_eq(ftrace_idle_feed_line(p, "          <idle>-0     [001] 100.101004: call_function_single_exit: vector=251"), 0);
        ck_assert_int_eq(ftrace_idle_feed_line(p, "          <idle>-0     [001] 100.101400: call_function_single_entry: vector=251"), 0);
        t = finish(p);
        assert_cpu1_periods(t, 3, (const uint64_t[][2]) { { a, 1000 * US }, { a + 1010 * US, 390 * US }, { b, 1000 * US } });
}
END_TEST

/* sched_waking names the task's previous CPU: it does not end idle, so the
 * gap before the second interrupt still counts (the old behaviour). */
START_TEST(test_waking_not_used) {
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;

        ck_assert_int_eq(ftrace_idle_new(2, &p), 0);
        feed_woken_in_burst(p, T0, "sched_waking");
        t = finish(p);
        assert_cpu1_periods(t, 3, (const uint64_t[][2]) { { T0, 1000 * US }, { T0 + 1010 * US, 10 * US },
                                                          { T0 + 2000 * US, 1000 * US } });
}
END_TEST

/* A trace of unknown width: events of CPUs up to the limit add them. */
START_TEST(test_growth) {
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL, *q = NULL;
        _cleanup_trace_ Trace *t = NULL, *u = NULL;
        FtraceIdleTotals tot;

        ck_assert_int_eq(ftrace_idle_new(1, &p), 0);
        ck_assert_int_eq(ftrace_idle_new(1, &q), 0);
        ftrace_idle_allow_growth(p, 8);
        for (FtraceIdle *x = p; x; x = x == p ? q : NULL) {
                hrtimer_start(x, "x-9", 3, "d..1.", T0 - 10 * US, 5, T0 + 1 * MS);
                feed(x, "<idle>-0", 3, "d..1.", T0, "cpu_idle: state=1 cpu_id=3");
                feed(x, "<idle>-0", 3, "d.h1.", T0 + 1 * MS, "local_timer_entry: vector=236");
                feed(x, "<idle>-0", 3, "d..1.", T0 + 1010 * US, "cpu_idle: state=4294967295 cpu_id=3");
                feed(x, "<idle>-0", 9, "d..1.", T0 + 2 * MS, "cpu_idle: state=1 cpu_id=9");     /* beyond the limit */
        }
        t = finish(p);
        ck_assert_uint_eq(t->header.n_cpus, 4);
        ck_assert_int_eq(t->header.sources[3], TRACE_SOURCE_CPU_IDLE);
        ck_assert_int_eq(t->header.sources[1], TRACE_SOURCE_NONE);
        ck_assert_uint_eq(t->n_intervals, 1);
        assert_iv(&t->intervals[0], T0, 1010 * US, 1, 1 * MS, TRACE_WAKE_TIMER, TRACE_MISS_NONE);
        ftrace_idle_totals(p, &tot);
        ck_assert_uint_eq(tot.events, 4);
        ck_assert_uint_eq(tot.first_ns, T0 - 10 * US);
        ck_assert_uint_eq(tot.last_ns, T0 + 1010 * US);
        u = finish(q);
        ck_assert_uint_eq(u->header.n_cpus, 1);
        ck_assert_uint_eq(u->n_intervals, 0);
}
END_TEST

START_TEST(test_lost_events) {
        _cleanup_ftrace_idle_ FtraceIdle *p = NULL;
        _cleanup_trace_ Trace *t = NULL;
        FtraceIdleCpuStats s;
        FtraceIdleTotals tot;

        ck_assert_int_eq(ftrace_idle_new(1, &p), 0);
        feed(p, "<idle>-0", 0, "d..1.", T0, "cpu_idle: state=1 cpu_id=0");
        ck_assert_int_eq(ftrace_idle_feed_line(p, "CPU:0 [LOST 5 EVENTS]"), 0);
        feed(p, "<idle>-0", 0, "d..1.", T0 + MS, "cpu_idle: state=4294967295 cpu_id=0");
        ck_assert_int_eq(ftrace_idle_feed_line(p, "garbage"), 0);
        ck_assert_int_eq(ftrace_idle_feed_line(p, "CPU:7 [LOST 5 EVENTS]"), 0);   /* out of range: ignored */
        t = finish(p);
        ck_assert_uint_eq(t->n_intervals, 0);
        ck_assert_int_eq(t->header.sources[0], TRACE_SOURCE_NONE);
        ck_assert_int_eq(ftrace_idle_cpu_stats(p, 0, &s), 0);
        ck_assert_uint_eq(s.lost_events, 5);
        ftrace_idle_totals(p, &tot);
        ck_assert_uint_eq(tot.lines, 5);
        ck_assert_uint_eq(tot.malformed, 1);
}
END_TEST

static Suite *ftrace_parse_suite(void) {
        Suite *s = suite_create("ftrace-parse");
        TCase *lines = tcase_create("lines"), *idle = tcase_create("idle");

        tcase_add_test(lines, test_parse_prefix);
        tcase_add_test(lines, test_parse_events);
        tcase_add_test(lines, test_parse_rejects);
        tcase_add_test(lines, test_parse_trace_cmd);
        tcase_add_test(lines, test_parse_cpus_hint);
        suite_add_tcase(s, lines);
        tcase_add_test(idle, test_cpu_idle_source);
        tcase_add_test(idle, test_irq_bounded_source);
        tcase_add_test(idle, test_sleep_length);
        tcase_add_test(idle, test_seed_timers);
        tcase_add_test(idle, test_wake_without_irq_events);
        tcase_add_test(idle, test_lost_events);
        tcase_add_test(idle, test_wakeup_ends_idle);
        tcase_add_test(idle, test_waking_not_used);
        tcase_add_test(idle, test_wakeup_untraced_task);
        tcase_add_test(idle, test_growth);
        suite_add_tcase(s, idle);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(ftrace_parse_suite());
        int failed;

        srunner_run_all(sr, CK_ENV);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
