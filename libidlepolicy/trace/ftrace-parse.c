/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "ftrace-parse.h"

#include "cleanup.h"

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

/* The end of a field value. */
static bool is_end(char c) {
        return c == ' ' || c == '\0' || c == '\n';
}

/* Parses the decimal number at s (stops at the first non-digit).  Returns
 * the number of digits, 0 if none or on overflow. */
static size_t scan_u64(const char *s, uint64_t *ret) {
        uint64_t v = 0;
        size_t n = 0;

        for (; is_digit(s[n]); n++) {
                unsigned d = (unsigned) (s[n] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return 0;
                v = v * 10 + d;
        }
        *ret = v;
        return n;
}

static size_t scan_hex(const char *s, uint64_t *ret) {
        uint64_t v = 0;
        size_t n = 0;

        if (s[0] == '0' && s[1] == 'x')
                s += 2;
        for (;; n++) {
                char c = s[n];
                unsigned d = is_digit(c) ? (unsigned) (c - '0') :
                             c >= 'a' && c <= 'f' ? (unsigned) (c - 'a' + 10) :
                             c >= 'A' && c <= 'F' ? (unsigned) (c - 'A' + 10) : 16;
                if (d == 16)
                        break;
                if (n >= 16)
                        return 0;
                v = v << 4 | d;
        }
        *ret = v;
        return n;
}

/* The value of "key=" in an event's field text (key at the start or after a
 * space).  Returns a pointer to the value or NULL. */
static const char *field(const char *fields, const char *key) {
        size_t len = strlen(key);

        for (const char *p = fields; (p = strstr(p, key)); p += len)
                if ((p == fields || p[-1] == ' ') && p[len] == '=')
                        return p + len + 1;
        return NULL;
}

/* A decimal field that must end at a space or the end of the line. */
static int field_u64(const char *fields, const char *key, uint64_t *ret) {
        const char *v = field(fields, key);
        size_t n;

        if (!v || (n = scan_u64(v, ret)) == 0 || !is_end(v[n]))
                return -EBADMSG;
        return 0;
}

static int field_u32(const char *fields, const char *key, uint32_t *ret) {
        uint64_t v;

        if (field_u64(fields, key, &v) < 0 || v > UINT32_MAX)
                return -EBADMSG;
        *ret = (uint32_t) v;
        return 0;
}

static int field_pid(const char *fields, const char *key, int32_t *ret) {
        uint32_t v;

        if (field_u32(fields, key, &v) < 0 || v > INT32_MAX)
                return -EBADMSG;
        *ret = (int32_t) v;
        return 0;
}

static int field_hex(const char *fields, const char *key, uint64_t *ret) {
        const char *v = field(fields, key);
        size_t n;

        if (!v || (n = scan_hex(v, ret)) == 0)
                return -EBADMSG;
        v += (v[0] == '0' && v[1] == 'x') ? n + 2 : n;
        return is_end(*v) ? 0 : -EBADMSG;
}

/* ---- per-event field parsers -------------------------------------------- */

static int parse_cpu_idle(const char *f, FtraceEvent *ev) {
        uint64_t state;

        if (field_u64(f, "state", &state) < 0 || field_u32(f, "cpu_id", &ev->idle.cpu) < 0)
                return -EBADMSG;
        /* PWR_EVENT_EXIT is (u32)-1; older kernels printed it as a 64-bit -1 */
        if (state == UINT32_MAX || state == UINT64_MAX)
                ev->idle.state = -1;
        else if (state <= INT32_MAX)
                ev->idle.state = (int32_t) state;
        else
                return -EBADMSG;
        return 0;
}

static int parse_cpu_idle_miss(const char *f, FtraceEvent *ev) {
        const char *type = field(f, "type");

        if (field_u32(f, "cpu_id", &ev->miss.cpu) < 0 || field_u32(f, "state", &ev->miss.state) < 0 || !type)
                return -EBADMSG;
        if (strncmp(type, "below", 5) == 0)
                ev->miss.below = true;
        else if (strncmp(type, "above", 5) == 0)
                ev->miss.below = false;
        else
                return -EBADMSG;
        return 0;
}

static int parse_hrtimer_start(const char *f, FtraceEvent *ev) {
        if (field_hex(f, "hrtimer", &ev->hrtimer.id) < 0 || field_u64(f, "expires", &ev->hrtimer.expires_ns) < 0)
                return -EBADMSG;
        return 0;
}

static int parse_hrtimer_cancel(const char *f, FtraceEvent *ev) {
        ev->hrtimer.expires_ns = 0;
        return field_hex(f, "hrtimer", &ev->hrtimer.id);
}

static int parse_hrtimer_expire(const char *f, FtraceEvent *ev) {
        if (field_hex(f, "hrtimer", &ev->hrtimer.id) < 0 || field_u64(f, "now", &ev->hrtimer.expires_ns) < 0)
                return -EBADMSG;
        return 0;
}

static int parse_irq_timer(const char *f, FtraceEvent *ev) {
        ev->irq.timer = true;
        return 0;
}

static int parse_irq_other(const char *f, FtraceEvent *ev) {
        ev->irq.timer = false;
        return 0;
}

/* irq_handler_entry: "irq=11 name=arch_timer"; a device interrupt unless
 * its name says timer (arch_timer on Arm, "timer" for the PIT/HPET). */
static int parse_irq_handler(const char *f, FtraceEvent *ev) {
        const char *name = field(f, "name");
        uint32_t irq;

        if (field_u32(f, "irq", &irq) < 0 || !name)
                return -EBADMSG;
        size_t len = strcspn(name, " \n");
        ev->irq.timer = memmem(name, len, "timer", 5) != NULL;
        return 0;
}

/* trace-cmd's plugin form of a task, "comm:pid [prio]" starting at s (comm
 * may hold ':' and spaces: the pid is the number between the last ':'
 * before " [" and it).  Returns 0 or -EBADMSG. */
static int plugin_task_pid(const char *s, int32_t *ret) {
        const char *open = strstr(s, " [");
        uint64_t pid = 0;

        if (!open)
                return -EBADMSG;
        const char *colon = open;
        while (colon > s && colon[-1] != ':')
                colon--;
        if (colon == s || scan_u64(colon, &pid) != (size_t) (open - colon) || pid > INT32_MAX)
                return -EBADMSG;
        *ret = (int32_t) pid;
        return 0;
}

/* "prev_comm=a prev_pid=1 ... ==> next_comm=b next_pid=2 ..." (tracefs) or
 * "a:1 [120] S ==> b:2 [120]" (trace-cmd's sched_switch plugin). */
static int parse_sched_switch(const char *f, FtraceEvent *ev) {
        if (field(f, "prev_pid")) {
                if (field_pid(f, "prev_pid", &ev->sched_switch.prev_pid) < 0 ||
                    field_pid(f, "next_pid", &ev->sched_switch.next_pid) < 0)
                        return -EBADMSG;
                return 0;
        }
        const char *arrow = strstr(f, " ==> ");
        if (!arrow || plugin_task_pid(f, &ev->sched_switch.prev_pid) < 0 ||
            plugin_task_pid(arrow + 5, &ev->sched_switch.next_pid) < 0)
                return -EBADMSG;
        return 0;
}

/* "comm=a pid=1 prio=120 target_cpu=001" (tracefs) or "a:1 [120] CPU:001"
 * (trace-cmd's plugin, maybe followed by " success=1"). */
static int parse_wakeup_target(const char *f, FtraceEvent *ev) {
        if (field(f, "target_cpu"))
                return field_u32(f, "target_cpu", &ev->wakeup.cpu);
        for (const char *p = f; (p = strstr(p, "CPU:")); p += 4) {
                uint64_t cpu;
                size_t n = scan_u64(p + 4, &cpu);
                if ((p == f || p[-1] == ' ') && n > 0 && is_end(p[4 + n]) && cpu <= UINT32_MAX) {
                        ev->wakeup.cpu = (uint32_t) cpu;
                        return 0;
                }
        }
        return -EBADMSG;
}

static int parse_sched_wakeup(const char *f, FtraceEvent *ev) {
        ev->wakeup.waking = false;
        return parse_wakeup_target(f, ev);
}

static int parse_sched_waking(const char *f, FtraceEvent *ev) {
        ev->wakeup.waking = true;
        return parse_wakeup_target(f, ev);
}

static int parse_wake_idle(const char *f, FtraceEvent *ev) {
        return field_u32(f, "cpu", &ev->wake.cpu);
}

static int parse_nothing(const char *f, FtraceEvent *ev) {
        return 0;
}

typedef struct EventParser {
        const char *name;
        FtraceEventType type;
        int (*parse)(const char *fields, FtraceEvent *ev);
} EventParser;

static const EventParser event_parsers[] = {
        { "cpu_idle",                   FTRACE_EVENT_CPU_IDLE,          parse_cpu_idle },
        { "cpu_idle_miss",              FTRACE_EVENT_CPU_IDLE_MISS,     parse_cpu_idle_miss },
        { "hrtimer_start",              FTRACE_EVENT_HRTIMER_START,     parse_hrtimer_start },
        { "hrtimer_cancel",             FTRACE_EVENT_HRTIMER_CANCEL,    parse_hrtimer_cancel },
        { "hrtimer_expire_entry",       FTRACE_EVENT_HRTIMER_EXPIRE,    parse_hrtimer_expire },
        { "irq_handler_entry",          FTRACE_EVENT_IRQ_ENTRY,         parse_irq_handler },
        { "irq_handler_exit",           FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "local_timer_entry",          FTRACE_EVENT_IRQ_ENTRY,         parse_irq_timer },
        { "local_timer_exit",           FTRACE_EVENT_IRQ_EXIT,          parse_irq_timer },
        { "reschedule_entry",           FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "reschedule_exit",            FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "call_function_entry",        FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "call_function_exit",         FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "call_function_single_entry", FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "call_function_single_exit",  FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "irq_work_entry",             FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "irq_work_exit",              FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "x86_platform_ipi_entry",     FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "x86_platform_ipi_exit",      FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "thermal_apic_entry",         FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "thermal_apic_exit",          FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "threshold_apic_entry",       FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "threshold_apic_exit",        FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "deferred_error_apic_entry",  FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "deferred_error_apic_exit",   FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "error_apic_entry",           FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "error_apic_exit",            FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "spurious_apic_entry",        FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "spurious_apic_exit",         FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "ipi_entry",                  FTRACE_EVENT_IRQ_ENTRY,         parse_irq_other },
        { "ipi_exit",                   FTRACE_EVENT_IRQ_EXIT,          parse_irq_other },
        { "softirq_entry",              FTRACE_EVENT_SOFTIRQ_ENTRY,     parse_nothing },
        { "softirq_exit",               FTRACE_EVENT_SOFTIRQ_EXIT,      parse_nothing },
        { "sched_switch",               FTRACE_EVENT_SCHED_SWITCH,      parse_sched_switch },
        { "sched_wake_idle_without_ipi", FTRACE_EVENT_WAKE_IDLE_NO_IPI, parse_wake_idle },
        { "sched_wakeup",               FTRACE_EVENT_SCHED_WAKEUP,      parse_sched_wakeup },
        { "sched_wakeup_new",           FTRACE_EVENT_SCHED_WAKEUP,      parse_sched_wakeup },
        { "sched_waking",               FTRACE_EVENT_SCHED_WAKEUP,      parse_sched_waking },
};

static const EventParser *event_parser_find(const char *name, size_t len) {
        for (size_t i = 0; i < ELEMENTSOF(event_parsers); i++)
                if (strlen(event_parsers[i].name) == len && memcmp(event_parsers[i].name, name, len) == 0)
                        return &event_parsers[i];
        return NULL;
}

/* ---- the common prefix --------------------------------------------------- */

/* Finds "[<digits>]" between spaces: the CPU column.  Returns its '[' or NULL. */
static const char *find_cpu_column(const char *line) {
        for (const char *p = strchr(line, '['); p; p = strchr(p + 1, '[')) {
                size_t n = strspn(p + 1, "0123456789");
                if (p > line && p[-1] == ' ' && n > 0 && p[1 + n] == ']' && p[2 + n] == ' ')
                        return p;
        }
        return NULL;
}

/* "comm-pid" or "comm-pid (tgid)" ending at end (exclusive). */
static int parse_task(const char *line, const char *end, int32_t *ret_pid) {
        while (end > line && end[-1] == ' ')
                end--;
        if (end > line && end[-1] == ')') {
                while (end > line && end[-1] != '(')
                        end--;
                for (end = end > line ? end - 1 : end; end > line && end[-1] == ' '; end--)
                        ;
        }
        const char *dash = end;
        while (dash > line && dash[-1] != '-')
                dash--;
        uint64_t pid;
        if (dash == line || dash == end || scan_u64(dash, &pid) != (size_t) (end - dash) || pid > INT32_MAX)
                return -EBADMSG;
        *ret_pid = (int32_t) pid;
        return 0;
}

static FtraceContext parse_context(const char *flags, size_t len) {
        if (len < 4)
                return FTRACE_CTX_UNKNOWN;
        switch (flags[2]) {
        case 'h': return FTRACE_CTX_HARDIRQ;
        case 'H': return FTRACE_CTX_HARDIRQ_IN_SOFTIRQ;
        case 's': return FTRACE_CTX_SOFTIRQ;
        case 'z': case 'Z': return FTRACE_CTX_NMI;
        default: return FTRACE_CTX_TASK;
        }
}

/* The irq-info flags ("dNh1."): context and need-resched ('N', 'n', 'p',
 * and the lazy variants: set; '.': clear). */
static void parse_flags(const char *flags, size_t len, FtraceEvent *ev) {
        ev->ctx = parse_context(flags, len);
        ev->need_resched = ev->ctx == FTRACE_CTX_UNKNOWN ? -1 : flags[1] != '.';
}

/* "seconds.fraction:" (any number of fraction digits) or "count:" for the
 * counter clocks.  Returns the characters consumed (incl. ':'), 0 if none. */
static size_t parse_timestamp(const char *s, uint64_t *ret) {
        uint64_t sec, frac = 0;
        size_t n = scan_u64(s, &sec), m = 0;

        if (n == 0)
                return 0;
        if (s[n] == '.') {
                m = strspn(s + n + 1, "0123456789");
                if (m == 0 || m > 9 || scan_u64(s + n + 1, &frac) != m)
                        return 0;
                for (size_t i = m; i < 9; i++)
                        frac *= 10;
                if (sec > (UINT64_MAX - frac) / 1000000000u)
                        return 0;
                sec = sec * 1000000000u + frac;
                m++;
        }
        if (s[n + m] != ':')
                return 0;
        *ret = sec;
        return n + m + 1;
}

/* "CPU:3 [LOST 12 EVENTS]" (tracefs), "CPU:3 [12 EVENTS DROPPED]" or
 * "CPU:3 [EVENTS DROPPED]" (trace-cmd report; count unknown: 1). */
static int parse_lost(const char *line, FtraceEvent *ev) {
        uint64_t cpu, count = 1;
        size_t n = scan_u64(line + 4, &cpu), m;
        const char *p = line + 4 + n;

        if (n == 0 || cpu > UINT32_MAX || strncmp(p, " [", 2) != 0)
                return -EBADMSG;
        p += 2;
        if (strncmp(p, "LOST ", 5) == 0) {
                if ((m = scan_u64(p + 5, &count)) == 0 || strncmp(p + 5 + m, " EVENTS]", 8) != 0)
                        return -EBADMSG;
        } else {
                m = scan_u64(p, &count);
                if (strncmp(p + m, m ? " EVENTS DROPPED]" : "EVENTS DROPPED]", m ? 16 : 15) != 0)
                        return -EBADMSG;
                if (m == 0)
                        count = 1;
        }
        *ev = (FtraceEvent) { .type = FTRACE_EVENT_LOST, .cpu = (uint32_t) cpu, .lost.count = count };
        return 0;
}

/* A lost-events marker at the start of the line or after trace-cmd's
 * "instance: " prefix.  Returns its "CPU:" or NULL. */
static const char *find_lost_marker(const char *line) {
        if (strncmp(line, "CPU:", 4) == 0)
                return line;
        size_t len = strcspn(line, " ");
        if (len < 2 || line[len - 1] != ':')
                return NULL;
        line += len + strspn(line + len, " ");
        return strncmp(line, "CPU:", 4) == 0 ? line : NULL;
}

/* Parses "ts: event: fields" (p at the timestamp). */
static int parse_event(const char *p, FtraceEvent *ev) {
        size_t len = parse_timestamp(p, &ev->ts_ns);
        if (len == 0 || p[len] != ' ')
                return -EBADMSG;
        p += len + strspn(p + len, " ");
        const char *colon = strchr(p, ':');
        if (!colon || colon == p || !is_end(colon[1]))
                return -EBADMSG;
        const EventParser *ep = event_parser_find(p, (size_t) (colon - p));
        if (!ep)
                return 0;       /* FTRACE_EVENT_OTHER */
        ev->type = ep->type;
        return ep->parse(colon[1] == ' ' ? colon + 2 : colon + 1, ev);
}

/* Parses "flags ts: event: fields" after the CPU column. */
static int parse_rest(const char *p, FtraceEvent *ev) {
        p += strspn(p, " ");
        size_t len = strcspn(p, " ");

        if (len == 0)
                return -EBADMSG;
        if (p[len - 1] != ':') {        /* the irq-info flags column */
                parse_flags(p, len, ev);
                p += len + strspn(p + len, " ");
        }
        return parse_event(p, ev);
}

/* The "[cpu] flags ts:" form.  Returns 0 or -EBADMSG. */
static int parse_bracket_form(const char *line, FtraceEvent *ev) {
        const char *bracket = find_cpu_column(line);
        uint64_t cpu;

        if (!bracket || parse_task(line, bracket, &ev->pid) < 0)
                return -EBADMSG;
        size_t n = scan_u64(bracket + 1, &cpu);
        if (n == 0 || cpu > UINT32_MAX)
                return -EBADMSG;
        ev->cpu = (uint32_t) cpu;
        return parse_rest(bracket + n + 3, ev);
}

/* Is the token at p (len characters) trace-cmd -l's "<cpu><flags>" column:
 * digits, then 4 or 5 flags starting with the irqs-off flag ('d', 'D', 'X'
 * or '.')?  Returns the number of CPU digits, 0 if not. */
static size_t latency_column(const char *p, size_t len) {
        size_t n = strspn(p, "0123456789");

        if (n == 0 || n >= len || !strchr("dDX.", p[n]) || len - n < 4 || len - n > 5)
                return 0;
        return n;
}

/* The "comm-pid <cpu><flags> ts:" form of trace-cmd report -l: the first
 * token after the task that is such a column and is followed by a
 * timestamp. */
static int parse_latency_form(const char *line, FtraceEvent *ev) {
        for (const char *p = strchr(line, ' '); p; p = strchr(p, ' ')) {
                p += strspn(p, " ");
                size_t len = strcspn(p, " "), n = latency_column(p, len);
                uint64_t cpu, ts;
                const char *next = p + len + strspn(p + len, " ");
                if (n == 0 || parse_timestamp(next, &ts) == 0 || parse_task(line, p, &ev->pid) < 0)
                        continue;
                if (scan_u64(p, &cpu) != n || cpu > UINT32_MAX)
                        return -EBADMSG;
                ev->cpu = (uint32_t) cpu;
                parse_flags(p + n, len - n, ev);
                return parse_event(next, ev);
        }
        return -EBADMSG;
}

int ftrace_parse_line(const char *line, FtraceEvent *ret) {
        FtraceEvent ev = { .type = FTRACE_EVENT_OTHER, .ctx = FTRACE_CTX_UNKNOWN, .need_resched = -1 };
        unsigned n_cpus;

        line += strspn(line, " \t");
        if (line[0] == '\0' || line[0] == '\n' || line[0] == '#' || ftrace_parse_cpus_hint(line, &n_cpus))
                return -ENOMSG;
        const char *lost = find_lost_marker(line);
        if (lost)
                return parse_lost(lost, ret);
        int r = parse_bracket_form(line, &ev);
        if (r < 0) {    /* "[120]" in a -l line's fields is no CPU column */
                ev = (FtraceEvent) { .type = FTRACE_EVENT_OTHER, .ctx = FTRACE_CTX_UNKNOWN, .need_resched = -1 };
                r = parse_latency_form(line, &ev);
        }
        if (r < 0)
                return r;
        *ret = ev;
        return 0;
}

bool ftrace_parse_cpus_hint(const char *line, unsigned *ret_n_cpus) {
        const char *p = NULL;
        uint64_t n;
        size_t len;

        line += strspn(line, " \t");
        if (strncmp(line, "cpus=", 5) == 0)
                p = line + 5;
        else if (line[0] == '#' && (p = strstr(line, "#P:")))
                p += 3;
        if (!p || (len = scan_u64(p, &n)) == 0 || !is_end(p[len]) || n == 0 || n > UINT32_MAX)
                return false;
        *ret_n_cpus = (unsigned) n;
        return true;
}
