/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One line of ftrace text output (tracefs "trace_pipe" or "trace", or
 * "trace-cmd report") turned into the few facts the idle reconstruction
 * needs.  Pure: no files, no clock, no logging.  A line looks like
 *
 *   <idle>-0       [001] d.h1.   321.668017: local_timer_entry: vector=236
 *   comm-pid (tgid) [cpu] flags  seconds:    event: fields
 *
 * The "(tgid)" column (option record-tgid) and the flags column (option
 * irq-info) are optional; comm may contain spaces and dashes.  trace-cmd
 * report prints the same columns (with an "instance: " prefix for an
 * instance's buffer) or, with -l, the CPU and the flags in one column:
 *
 *   tcx:   sleep-30813   1d..1. 21422.651316: hrtimer_start:  hrtimer=0x...
 *
 * and some events through its plugins ("prev:1 [120] S ==> next:2 [120]"
 * for sched_switch, "comm:pid [prio] CPU:001" for sched_wakeup); both forms
 * are read.  Lost-event markers ("CPU:1 [LOST 12 EVENTS]", trace-cmd's
 * "CPU:1 [12 EVENTS DROPPED]") are reported too. */

#include <stdbool.h>
#include <stdint.h>

typedef enum FtraceEventType {
        FTRACE_EVENT_OTHER = 0,         /* well-formed, but an event we do not use */
        FTRACE_EVENT_CPU_IDLE,          /* power:cpu_idle */
        FTRACE_EVENT_CPU_IDLE_MISS,     /* power:cpu_idle_miss */
        FTRACE_EVENT_HRTIMER_START,     /* timer:hrtimer_start */
        FTRACE_EVENT_HRTIMER_CANCEL,    /* timer:hrtimer_cancel */
        FTRACE_EVENT_HRTIMER_EXPIRE,    /* timer:hrtimer_expire_entry */
        FTRACE_EVENT_IRQ_ENTRY,         /* irq_handler_entry, irq_vectors:*_entry, ipi_entry */
        FTRACE_EVENT_IRQ_EXIT,          /* the matching *_exit */
        FTRACE_EVENT_SOFTIRQ_ENTRY,
        FTRACE_EVENT_SOFTIRQ_EXIT,
        FTRACE_EVENT_SCHED_SWITCH,
        FTRACE_EVENT_WAKE_IDLE_NO_IPI,  /* sched:sched_wake_idle_without_ipi */
        FTRACE_EVENT_SCHED_WAKEUP,      /* sched:sched_wakeup, sched_wakeup_new, sched_waking */
        FTRACE_EVENT_LOST,              /* "CPU:N [LOST M EVENTS]" */
} FtraceEventType;

/* The interrupt context column of the irq-info flags. */
typedef enum FtraceContext {
        FTRACE_CTX_UNKNOWN = 0,         /* no flags column */
        FTRACE_CTX_TASK,
        FTRACE_CTX_SOFTIRQ,
        FTRACE_CTX_HARDIRQ,             /* 'h' */
        FTRACE_CTX_HARDIRQ_IN_SOFTIRQ,  /* 'H': a hard irq that interrupted a softirq */
        FTRACE_CTX_NMI,
} FtraceContext;

typedef struct FtraceEvent {
        FtraceEventType type;
        uint32_t cpu;                   /* the CPU whose buffer holds the event */
        int32_t pid;                    /* the current task; 0 is the idle task */
        uint64_t ts_ns;                 /* trace clock, nanoseconds */
        FtraceContext ctx;
        int8_t need_resched;            /* the flags' need-resched column: 1 set, 0 clear, -1 no flags column */
        union {
                struct {
                        uint32_t cpu;
                        int32_t state;  /* -1: exit from idle */
                } idle;
                struct {
                        uint32_t cpu;
                        uint32_t state;
                        bool below;     /* too shallow; false: above (too deep) */
                } miss;
                struct {
                        uint64_t id;    /* the (hashed) pointer */
                        uint64_t expires_ns;     /* start: hard expiry; expire: "now" */
                } hrtimer;
                struct {
                        bool timer;     /* a timer interrupt (local APIC timer, arch_timer, ...) */
                } irq;
                struct {
                        int32_t prev_pid, next_pid;
                } sched_switch;
                struct {
                        uint32_t cpu;   /* the CPU woken (it was polling) */
                } wake;
                struct {
                        uint32_t cpu;   /* target_cpu */
                        bool waking;    /* sched_waking: cpu is the task's previous CPU, not where it goes */
                } wakeup;
                struct {
                        uint64_t count; /* 1 when the marker gives no number */
                } lost;
        };
} FtraceEvent;

/* Parses one line (without or with its trailing newline).  Returns 0 with
 * *ret filled, -ENOMSG for a line that carries no event (blank, "#" comment,
 * "##### CPU 1 buffer started ####"), -EBADMSG for a line that is not ftrace
 * output or a known event whose fields do not parse.  *ret is untouched on
 * failure. */
int ftrace_parse_line(const char *line, FtraceEvent *ret);

/* The CPU count a header line states: "cpus=N" (trace-cmd report's first
 * line) or "#P:N" in a "#" comment (tracefs "trace", idlepolicy-record's
 * --save-raw).  Returns true with *ret_n_cpus set (N >= 1), false if the line
 * states none. */
bool ftrace_parse_cpus_hint(const char *line, unsigned *ret_n_cpus);

/* Returns true for the hardirq contexts. */
static inline bool ftrace_ctx_is_hardirq(FtraceContext c) {
        return c == FTRACE_CTX_HARDIRQ || c == FTRACE_CTX_HARDIRQ_IN_SOFTIRQ || c == FTRACE_CTX_NMI;
}
