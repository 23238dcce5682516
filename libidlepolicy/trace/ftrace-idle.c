/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "ftrace-idle.h"
#include "grow.h"
#include "timer-track.h"

/* An irq-bounded period "ends at" a cpu_idle exit if its end (the interrupt
 * entry, before the handler ran) lies at most this long after the exit. */
#define CROSS_LATE_NS 10000ull

typedef struct IntervalList {
        IdleInterval *v;
        size_t n, cap;
} IntervalList;

/* power:cpu_idle pairs */
typedef struct CiTrack {
        bool open;
        bool woke;              /* the wake-up of the open interval was seen */
        bool miss_window;       /* the last closed interval may still get a cpu_idle_miss */
        IdleInterval cur;
} CiTrack;

/* irq-bounded periods */
typedef enum IbPhase {
        IB_RUNNING = 0,         /* a task runs, or we do not know */
        IB_IDLE,                /* idle since since_ns */
        IB_IRQ,                 /* the idle task takes interrupts; last event at since_ns */
        IB_LEAVING,             /* a task was woken onto this CPU: the idle task is on its way out */
} IbPhase;

typedef struct IbTrack {
        IbPhase phase;
        uint64_t since_ns;
        unsigned soft_depth;
        bool miss_window;
        bool wake_pending;      /* woken from elsewhere while idle: the interrupt that ends the period leaves idle */
} IbTrack;

typedef struct CpuIdle {
        CiTrack ci;
        IbTrack ib;
        IntervalList ci_list, ib_list;
        bool timer_irq_events;  /* this CPU shows timer interrupts as such */
        FtraceIdleCpuStats stats;
} CpuIdle;

struct FtraceIdle {
        unsigned n_cpus;
        unsigned max_cpus;      /* events of CPUs below this add CPUs (ftrace_idle_allow_growth) */
        CpuIdle *cpus;
        TimerTrack *timers;
        FtraceIdleTotals totals;
        bool finished;
};

int ftrace_idle_new(unsigned n_cpus, FtraceIdle **ret) {
        _cleanup_ftrace_idle_ FtraceIdle *p = calloc(1, sizeof(*p));

        if (!p)
                return -ENOMEM;
        p->cpus = calloc(n_cpus ? n_cpus : 1, sizeof(CpuIdle));
        if (!p->cpus)
                return -ENOMEM;
        p->n_cpus = n_cpus;
        int r = timer_track_new(n_cpus, &p->timers);
        if (r < 0)
                return r;
        *ret = p;
        p = NULL;
        return 0;
}

FtraceIdle *ftrace_idle_free(FtraceIdle *p) {
        if (!p)
                return NULL;
        for (unsigned c = 0; p->cpus && c < p->n_cpus; c++) {
                free(p->cpus[c].ci_list.v);
                free(p->cpus[c].ib_list.v);
        }
        free(p->cpus);
        timer_track_free(p->timers);
        free(p);
        return NULL;
}

void ftrace_idle_freep(FtraceIdle **p) {
        ftrace_idle_free(*p);
}

int ftrace_idle_seed_timers(FtraceIdle *p, const char *timer_list) {
        return timer_track_seed(p->timers, timer_list);
}

void ftrace_idle_allow_growth(FtraceIdle *p, unsigned max_cpus) {
        p->max_cpus = max_cpus;
}

/* Makes CPUs up to cpu known, if growth allows.  Returns 0 or -ENOMEM. */
static int grow_to(FtraceIdle *p, unsigned cpu) {
        if (cpu < p->n_cpus || cpu >= p->max_cpus || p->finished)
                return 0;
        CpuIdle *v = reallocarray(p->cpus, cpu + 1, sizeof(CpuIdle));
        if (!v)
                return -ENOMEM;
        memset(v + p->n_cpus, 0, (cpu + 1 - p->n_cpus) * sizeof(CpuIdle));
        p->cpus = v;
        if (timer_track_grow(p->timers, cpu + 1) < 0)
                return -ENOMEM;
        p->n_cpus = cpu + 1;
        return 0;
}

int ftrace_idle_reserve(FtraceIdle *p, unsigned n_cpus) {
        if (n_cpus == 0 || n_cpus > p->max_cpus)
                return -ERANGE;
        return grow_to(p, n_cpus - 1);
}

/* The highest CPU number an event names. */
static unsigned event_max_cpu(const FtraceEvent *ev) {
        unsigned c = ev->cpu;

        if (ev->type == FTRACE_EVENT_CPU_IDLE && ev->idle.cpu > c)
                c = ev->idle.cpu;
        else if (ev->type == FTRACE_EVENT_CPU_IDLE_MISS && ev->miss.cpu > c)
                c = ev->miss.cpu;
        else if (ev->type == FTRACE_EVENT_WAKE_IDLE_NO_IPI && ev->wake.cpu > c)
                c = ev->wake.cpu;
        else if (ev->type == FTRACE_EVENT_SCHED_WAKEUP && ev->wakeup.cpu > c)
                c = ev->wakeup.cpu;
        return c;
}

static int list_push(IntervalList *l, const IdleInterval *iv) {
        if (grow_array((void **) &l->v, &l->cap, l->n, sizeof(IdleInterval), 256) < 0)
                return -ENOMEM;
        l->v[l->n++] = *iv;
        return 0;
}

/* With no interrupt seen: a period that ended just after its predicted
 * timer (interrupts land up to TIMER_LAG_MAX_NS late) ended at that timer. */
static bool ended_at_predicted(const IdleInterval *iv) {
        if (iv->sleep_length_ns == TRACE_SLEEP_UNKNOWN || iv->duration_ns + 20000 < iv->sleep_length_ns)
                return false;
        return iv->duration_ns <= iv->sleep_length_ns + TIMER_LAG_MAX_NS;
}

/* ---- power:cpu_idle ----------------------------------------------------- */

static void ci_enter(FtraceIdle *p, unsigned c, uint64_t ts, int32_t state) {
        CiTrack *ci = &p->cpus[c].ci;

        *ci = (CiTrack) {
                .open = true,
                .cur = { .cpu = c, .start_ns = ts, .state = state, .sleep_length_ns = TRACE_SLEEP_UNKNOWN,
                         .wake = TRACE_WAKE_UNKNOWN, .miss = TRACE_MISS_NONE },
        };
}

/* The first wake-up event of the open interval fixes its cause and, before
 * the handler changes the pending timers, its sleep length. */
static void ci_wake(FtraceIdle *p, unsigned c, uint64_t ts, TraceWake wake) {
        CiTrack *ci = &p->cpus[c].ci;

        if (!ci->open || ci->woke)
                return;
        ci->woke = true;
        ci->cur.wake = wake;
        ci->cur.sleep_length_ns = timer_track_sleep_length(p->timers, c, ci->cur.start_ns, ts);
}

static int ci_exit(FtraceIdle *p, unsigned c, uint64_t ts) {
        CiTrack *ci = &p->cpus[c].ci;

        if (!ci->open)
                return 0;
        if (!ci->woke)
                ci->cur.sleep_length_ns = timer_track_sleep_length(p->timers, c, ci->cur.start_ns, ts);
        ci->cur.duration_ns = ts > ci->cur.start_ns ? ts - ci->cur.start_ns : 0;
        if (ci->cur.wake == TRACE_WAKE_UNKNOWN && ended_at_predicted(&ci->cur))
                ci->cur.wake = TRACE_WAKE_TIMER;
        ci->open = false;
        ci->miss_window = true;
        return list_push(&p->cpus[c].ci_list, &ci->cur);
}

static void on_cpu_idle_miss(FtraceIdle *p, const FtraceEvent *ev) {
        if (ev->miss.cpu >= p->n_cpus)
                return;
        CpuIdle *ci = &p->cpus[ev->miss.cpu];
        TraceMiss m = ev->miss.below ? TRACE_MISS_BELOW : TRACE_MISS_ABOVE;

        if (ci->ci.miss_window && ci->ci_list.n > 0)
                ci->ci_list.v[ci->ci_list.n - 1].miss = m;
        if (ci->ib.miss_window && ci->ib_list.n > 0)
                ci->ib_list.v[ci->ib_list.n - 1].miss = m;
        ci->ci.miss_window = ci->ib.miss_window = false;
}

static int on_cpu_idle(FtraceIdle *p, const FtraceEvent *ev) {
        unsigned c = ev->idle.cpu;

        if (c >= p->n_cpus)
                return 0;
        if (ev->idle.state < 0)
                return ci_exit(p, c, ev->ts_ns);
        ci_enter(p, c, ev->ts_ns, ev->idle.state);
        return 0;
}

/* ---- irq-bounded ---------------------------------------------------------- */

static int ib_close(FtraceIdle *p, unsigned c, uint64_t end, TraceWake wake) {
        IbTrack *ib = &p->cpus[c].ib;
        IdleInterval iv = {
                .cpu = c, .start_ns = ib->since_ns, .state = -1, .wake = wake, .miss = TRACE_MISS_UNKNOWN,
                .duration_ns = end > ib->since_ns ? end - ib->since_ns : 0,
                .sleep_length_ns = timer_track_sleep_length(p->timers, c, ib->since_ns, end),
        };

        if (iv.wake == TRACE_WAKE_UNKNOWN && ended_at_predicted(&iv))
                iv.wake = TRACE_WAKE_TIMER;
        ib->miss_window = true;
        return list_push(&p->cpus[c].ib_list, &iv);
}

/* A task's event on the CPU: it is not idle (any more). */
static void ib_task_seen(FtraceIdle *p, unsigned c) {
        IbTrack *ib = &p->cpus[c].ib;

        if (ib->phase == IB_IDLE)
                p->cpus[c].stats.n_dropped++;
        ib->phase = IB_RUNNING;
}

/* The idle task takes an interrupt burst from ts on: it stays idle after
 * it unless a task was woken onto this CPU meanwhile. */
static void ib_enter_burst(IbTrack *ib, uint64_t ts) {
        ib->phase = ib->wake_pending ? IB_LEAVING : IB_IRQ;
        ib->wake_pending = false;
        ib->since_ns = ts;
}

/* While the idle task is leaving, its events only move since_ns -- unless
 * the flags show need-resched clear again: then the woken task ran and the
 * CPU went idle again without a traced switch (a task whose events are not
 * traced), and the idle task's last event before this one starts the
 * period again.  Returns true if the event is taken as leaving. */
static bool ib_still_leaving(IbTrack *ib, const FtraceEvent *ev) {
        if (ib->phase != IB_LEAVING)
                return false;
        if (ev->need_resched == 0) {
                ib->phase = IB_IRQ;
                return false;
        }
        ib->since_ns = ev->ts_ns;
        return true;
}

/* A hard interrupt entry taken by the idle task ends the current period:
 * the one since the switch to idle, or the one since the previous burst
 * ended, unless this interrupt nests in that burst's softirq.  Nothing
 * while the idle task is leaving (a task was woken here). */
static int ib_irq_entry(FtraceIdle *p, unsigned c, const FtraceEvent *ev, TraceWake wake) {
        IbTrack *ib = &p->cpus[c].ib;
        bool nested = ev->ctx != FTRACE_CTX_UNKNOWN ? ev->ctx == FTRACE_CTX_HARDIRQ_IN_SOFTIRQ || ev->ctx == FTRACE_CTX_NMI
                                                    : ib->soft_depth > 0;
        int r = 0;

        if (ib_still_leaving(ib, ev))
                return 0;
        if (ib->phase == IB_IDLE || (ib->phase == IB_IRQ && !nested))
                r = ib_close(p, c, ev->ts_ns, wake);
        if (!nested)
                ib->soft_depth = 0;
        ib_enter_burst(ib, ev->ts_ns);
        return r;
}

/* Any other event of the idle task in interrupt context. */
static int ib_irq_event(FtraceIdle *p, unsigned c, const FtraceEvent *ev) {
        IbTrack *ib = &p->cpus[c].ib;
        int r = 0;

        if (ib_still_leaving(ib, ev))
                return 0;
        if (ev->type == FTRACE_EVENT_SOFTIRQ_ENTRY)
                ib->soft_depth++;
        else if (ev->type == FTRACE_EVENT_SOFTIRQ_EXIT && ib->soft_depth > 0)
                ib->soft_depth--;
        if (ib->phase == IB_IDLE)       /* an interrupt whose entry is not traced */
                r = ib_close(p, c, ev->ts_ns, TRACE_WAKE_UNKNOWN);
        ib_enter_burst(ib, ev->ts_ns);
        return r;
}

static int ib_switch(FtraceIdle *p, unsigned c, const FtraceEvent *ev) {
        IbTrack *ib = &p->cpus[c].ib;
        int r = 0;

        if (ev->sched_switch.next_pid == 0) {
                *ib = (IbTrack) { .phase = IB_IDLE, .since_ns = ev->ts_ns };
                return 0;
        }
        if (ev->sched_switch.prev_pid == 0 && ib->phase == IB_IDLE)
                r = ib_close(p, c, ev->ts_ns, TRACE_WAKE_UNKNOWN);
        ib->phase = IB_RUNNING;
        return r;
}

/* ---- dispatch ------------------------------------------------------------- */

static bool in_irq_context(const FtraceEvent *ev) {
        if (ev->ctx != FTRACE_CTX_UNKNOWN)
                return ev->ctx != FTRACE_CTX_TASK;
        return ev->type == FTRACE_EVENT_IRQ_EXIT || ev->type == FTRACE_EVENT_SOFTIRQ_ENTRY ||
               ev->type == FTRACE_EVENT_SOFTIRQ_EXIT;
}

static int on_irq_entry(FtraceIdle *p, const FtraceEvent *ev, TraceWake wake) {
        unsigned c = ev->cpu;

        ci_wake(p, c, ev->ts_ns, wake);
        if (ev->pid != 0)
                return 0;
        return ib_irq_entry(p, c, ev, wake);
}

/* Without timer-interrupt events on this CPU, an hrtimer expiring in hard
 * irq context stands for the timer interrupt. */
static bool is_timer_irq_stand_in(const FtraceIdle *p, const FtraceEvent *ev) {
        return ev->type == FTRACE_EVENT_HRTIMER_EXPIRE && !p->cpus[ev->cpu].timer_irq_events &&
               ftrace_ctx_is_hardirq(ev->ctx);
}

static int on_hrtimer_expire(FtraceIdle *p, const FtraceEvent *ev) {
        int r = 0;

        if (is_timer_irq_stand_in(p, ev))
                r = on_irq_entry(p, ev, TRACE_WAKE_TIMER);
        timer_track_remove(p->timers, ev->hrtimer.id, ev->cpu);
        return r;
}

/* A polling idle CPU noticed a wake-up without an interrupt: the period
 * ends here and the idle task leaves. */
static int on_wake_idle(FtraceIdle *p, const FtraceEvent *ev) {
        unsigned c = ev->wake.cpu;

        if (c >= p->n_cpus)
                return 0;
        ci_wake(p, c, ev->ts_ns, TRACE_WAKE_OTHER);
        IbTrack *ib = &p->cpus[c].ib;
        if (ib->phase != IB_IDLE && ib->phase != IB_IRQ)
                return 0;
        ib->phase = IB_LEAVING;
        return ib_close(p, c, ev->ts_ns, TRACE_WAKE_OTHER);
}

/* A task was woken onto CPU c: its idle task leaves at the end of the
 * interrupt burst it is in (the wake-up came from that burst's handler), or,
 * while idle, at the end of the burst of the interrupt that will end the
 * period (the wake-up came from elsewhere; its IPI or a polling wake-up
 * ends the period).  Without this, an interrupt taken between the wake-up
 * and the switch away would end a period that never was.  sched_waking is
 * not used: its target_cpu is the task's previous CPU, read before the
 * kernel chose where the task goes. */
static void on_sched_wakeup(FtraceIdle *p, const FtraceEvent *ev) {
        unsigned c = ev->wakeup.cpu;

        if (ev->wakeup.waking || c >= p->n_cpus)
                return;
        IbTrack *ib = &p->cpus[c].ib;
        if (ib->phase == IB_IRQ)
                ib->phase = IB_LEAVING;
        else if (ib->phase == IB_IDLE)
                ib->wake_pending = true;
}

static void on_lost(FtraceIdle *p, const FtraceEvent *ev) {
        CpuIdle *ci = &p->cpus[ev->cpu];

        ci->stats.lost_events += ev->lost.count;
        ci->ci = (CiTrack) { 0 };
        ci->ib = (IbTrack) { 0 };
}

static int dispatch(FtraceIdle *p, const FtraceEvent *ev) {
        switch (ev->type) {
        case FTRACE_EVENT_CPU_IDLE:
                return on_cpu_idle(p, ev);
        case FTRACE_EVENT_CPU_IDLE_MISS:
                on_cpu_idle_miss(p, ev);
                return 0;
        case FTRACE_EVENT_HRTIMER_START:
                return timer_track_start(p->timers, ev->cpu, ev->hrtimer.id, ev->hrtimer.expires_ns, ev->ts_ns);
        case FTRACE_EVENT_HRTIMER_CANCEL:
                timer_track_remove(p->timers, ev->hrtimer.id, ev->cpu);
                return 0;
        case FTRACE_EVENT_HRTIMER_EXPIRE:
                return on_hrtimer_expire(p, ev);
        case FTRACE_EVENT_IRQ_ENTRY:
                if (ev->irq.timer)
                        p->cpus[ev->cpu].timer_irq_events = true;
                return on_irq_entry(p, ev, ev->irq.timer ? TRACE_WAKE_TIMER : TRACE_WAKE_OTHER);
        case FTRACE_EVENT_SCHED_SWITCH:
                return ib_switch(p, ev->cpu, ev);
        case FTRACE_EVENT_WAKE_IDLE_NO_IPI:
                return on_wake_idle(p, ev);
        case FTRACE_EVENT_SCHED_WAKEUP:
                on_sched_wakeup(p, ev);
                return 0;
        default:
                return 0;
        }
}

int ftrace_idle_feed(FtraceIdle *p, const FtraceEvent *ev) {
        if (grow_to(p, event_max_cpu(ev)) < 0)
                return -ENOMEM;
        if (ev->cpu >= p->n_cpus || p->finished)
                return 0;
        if (ev->type == FTRACE_EVENT_LOST) {
                p->totals.lost += ev->lost.count;
                on_lost(p, ev);
                return 0;
        }
        if (p->totals.events++ == 0)
                p->totals.first_ns = ev->ts_ns;
        if (ev->ts_ns > p->totals.last_ns)
                p->totals.last_ns = ev->ts_ns;
        if (ev->pid != 0)
                ib_task_seen(p, ev->cpu);
        bool entry = ev->type == FTRACE_EVENT_IRQ_ENTRY || is_timer_irq_stand_in(p, ev);
        int r = dispatch(p, ev);
        if (r < 0 || entry || ev->pid != 0 || !in_irq_context(ev))
                return r;
        /* the idle task in interrupt context: the burst goes on */
        return ib_irq_event(p, ev->cpu, ev);
}

int ftrace_idle_feed_line(FtraceIdle *p, const char *line) {
        FtraceEvent ev;
        int r;

        p->totals.lines++;
        r = ftrace_parse_line(line, &ev);
        if (r == -ENOMSG)
                return 0;
        if (r < 0) {
                p->totals.malformed++;
                return 0;
        }
        return ftrace_idle_feed(p, &ev);
}

/* ---- the end ---------------------------------------------------------------- */

static int compare_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return x < y ? -1 : x > y;
}

/* Matches each cpu_idle interval with an irq-bounded one ending at most
 * TIMER_LAG_MAX_NS before (or CROSS_LATE_NS after) its exit. */
static int cross_check(CpuIdle *ci) {
        const IntervalList *a = &ci->ci_list, *b = &ci->ib_list;
        _cleanup_free_ int64_t *err = calloc(a->n ? a->n : 1, sizeof(int64_t));
        size_t j = 0, n = 0;

        if (!err)
                return -ENOMEM;
        for (size_t i = 0; i < a->n; i++) {
                uint64_t end = a->v[i].start_ns + a->v[i].duration_ns;
                while (j < b->n && b->v[j].start_ns + b->v[j].duration_ns + TIMER_LAG_MAX_NS < end)
                        j++;
                if (j == b->n)
                        break;
                if (b->v[j].start_ns + b->v[j].duration_ns > end + CROSS_LATE_NS)
                        continue;
                err[n++] = (int64_t) b->v[j].duration_ns - (int64_t) a->v[i].duration_ns;
        }
        qsort(err, n, sizeof(int64_t), compare_i64);
        ci->stats.n_cross_found = n;
        ci->stats.cross_median_error_ns = n > 0 ? err[n / 2] : 0;
        return 0;
}

static const IntervalList *choose_source(CpuIdle *ci) {
        FtraceIdleCpuStats *s = &ci->stats;

        s->n_cpu_idle = ci->ci_list.n;
        s->n_irq_bounded = ci->ib_list.n;
        if (s->n_cpu_idle > 0 && s->n_cpu_idle * 2 >= s->n_irq_bounded) {
                s->source = TRACE_SOURCE_CPU_IDLE;
                return &ci->ci_list;
        }
        s->source = s->n_irq_bounded > 0 ? TRACE_SOURCE_IRQ_BOUNDED : TRACE_SOURCE_NONE;
        return &ci->ib_list;
}

static void count_chosen(FtraceIdleCpuStats *s, const IntervalList *l) {
        s->n_intervals = l->n;
        for (size_t i = 0; i < l->n; i++) {
                const IdleInterval *iv = &l->v[i];
                if (iv->sleep_length_ns != TRACE_SLEEP_UNKNOWN)
                        s->n_sleep_known++;
                if (iv->wake != TRACE_WAKE_TIMER)
                        continue;
                s->n_wake_timer++;
                if (ended_at_predicted(iv))
                        s->n_at_predicted++;
        }
}

static int compare_interval(const void *a, const void *b) {
        const IdleInterval *x = a, *y = b;

        if (x->start_ns != y->start_ns)
                return x->start_ns < y->start_ns ? -1 : 1;
        return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* Concatenates the chosen intervals of every CPU, sorted by (start, cpu). */
static int collect(FtraceIdle *p, const IntervalList **chosen, size_t total, IdleInterval **ret) {
        IdleInterval *v = calloc(total ? total : 1, sizeof(IdleInterval));
        size_t n = 0;

        if (!v)
                return -ENOMEM;
        for (unsigned c = 0; c < p->n_cpus; c++) {
                if (chosen[c]->n > 0)
                        memcpy(v + n, chosen[c]->v, chosen[c]->n * sizeof(IdleInterval));
                n += chosen[c]->n;
        }
        qsort(v, n, sizeof(IdleInterval), compare_interval);
        *ret = v;
        return 0;
}

int ftrace_idle_finish(FtraceIdle *p, Trace *t) {
        _cleanup_free_ const IntervalList **chosen = calloc(p->n_cpus ? p->n_cpus : 1, sizeof(IntervalList *));
        _cleanup_free_ TraceSource *src = calloc(p->n_cpus ? p->n_cpus : 1, sizeof(TraceSource));
        IdleInterval *v;
        size_t total = 0;

        if (p->finished)
                return -EALREADY;
        if (!chosen || !src)
                return -ENOMEM;
        for (unsigned c = 0; c < p->n_cpus; c++) {
                CpuIdle *ci = &p->cpus[c];
                chosen[c] = choose_source(ci);
                count_chosen(&ci->stats, chosen[c]);
                total += chosen[c]->n;
                src[c] = ci->stats.source;
                if (ci->ci_list.n > 0 && ci->ib_list.n > 0 && cross_check(ci) < 0)
                        return -ENOMEM;
        }
        if (collect(p, chosen, total, &v) < 0)
                return -ENOMEM;
        free(t->intervals);
        free(t->header.sources);
        t->intervals = v;
        t->n_intervals = total;
        t->header.sources = src;
        src = NULL;
        t->header.n_cpus = p->n_cpus;
        p->finished = true;
        return 0;
}

int ftrace_idle_cpu_stats(const FtraceIdle *p, unsigned cpu, FtraceIdleCpuStats *ret) {
        if (cpu >= p->n_cpus)
                return -ERANGE;
        *ret = p->cpus[cpu].stats;
        return 0;
}

void ftrace_idle_totals(const FtraceIdle *p, FtraceIdleTotals *ret) {
        *ret = p->totals;
}
