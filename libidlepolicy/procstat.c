/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpuset.h"
#include "fileio.h"
#include "procstat.h"
#include "sysfs-paths.h"

#define STAT_MIN_VALUES 4           /* user nice system idle: the oldest format */
#define STAT_MAX_VALUES 32

struct ProcReader {
        int stat_fd;
        int irq_fd;                 /* -1 without proc/interrupts */
        char *buf;                  /* grown as needed, reused every read */
        size_t size;
        ProcTotals totals;          /* proc/stat's "cpu" and ctxt lines at the last read */
};

/* One line of a text: [start, end), numbered from 1. */
typedef struct Line {
        const char *start;
        const char *end;
        unsigned number;
        bool terminated;            /* ended with '\n' (false: cut off at the end of the text) */
} Line;

/* Advances *line to the next line of text (line->end == NULL before the
 * first).  Returns false at the end of the text. */
static bool line_next(const char *text, Line *line) {
        const char *p = line->end ? line->end + line->terminated : text;

        if (*p == '\0')
                return false;
        line->start = p;
        line->end = strchrnul(p, '\n');
        line->terminated = *line->end == '\n';
        line->number++;
        return true;
}

/* isblank() and isdigit() of the C locale, without a call per character
 * (these loops run over every byte of both files every tick). */
static inline bool is_blank(char c) {
        return c == ' ' || c == '\t';
}

static inline bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

/* Skips blanks and returns the next token of [*p, end) in tok/len (len 0 at
 * the end of the line). */
static void token_next(const char **p, const char *end, const char **tok, size_t *len) {
        while (*p < end && is_blank(**p))
                (*p)++;
        *tok = *p;
        while (*p < end && !is_blank(**p))
                (*p)++;
        *len = (size_t) (*p - *tok);
}

/* Parses a token as a u64.  Returns 0 or -EINVAL/-ERANGE. */
static int token_u64(const char *tok, size_t len, uint64_t *ret) {
        char buf[32];

        if (len == 0 || len >= sizeof(buf))
                return len == 0 ? -EINVAL : -ERANGE;
        memcpy(buf, tok, len);
        buf[len] = '\0';
        return parse_u64(buf, ret);
}

/* ---- proc/stat ---------------------------------------------------------- */

/* Parses the values after "cpu"/"cpuN" on a line.  Returns the number of
 * values, or -EBADMSG with e naming the line. */
static int stat_values(const Line *l, const char *p, uint64_t v[static STAT_MAX_VALUES], ErrorInfo *e) {
        unsigned n = 0;

        for (;;) {
                const char *tok;
                size_t len;

                token_next(&p, l->end, &tok, &len);
                if (len == 0)
                        break;
                if (n >= STAT_MAX_VALUES)
                        return errinfo_set(e, -EBADMSG, PROCFS_STAT ":%u: too many values", l->number);
                if (token_u64(tok, len, &v[n]) < 0)
                        return errinfo_set(e, -EBADMSG, PROCFS_STAT ":%u: invalid value \"%.*s\"",
                                           l->number, (int) len, tok);
                n++;
        }
        if (n < STAT_MIN_VALUES)
                return errinfo_set(e, -EBADMSG, PROCFS_STAT ":%u: expected at least %u values, got %u",
                                   l->number, STAT_MIN_VALUES, n);
        return (int) n;
}

/* Stores busy/total jiffies of one cpuN line (v has n >= 4 values). */
static void stat_store(ProcCpuSample *c, const uint64_t *v, int n) {
        uint64_t x[8] = {};

        memcpy(x, v, sizeof(uint64_t) * (size_t) (n < 8 ? n : 8));
        /* user nice system idle iowait irq softirq steal (guest time is
         * already counted in user and nice) */
        c->busy_jiffies = x[0] + x[1] + x[2] + x[5] + x[6] + x[7];
        c->total_jiffies = c->busy_jiffies + x[3] + x[4];
        c->has_stat = true;
}

/* The id of a "cpuN" line (l starts with "cpu"): 1 with *cpu, and *p
 * past it; 0 when no digit follows "cpu"; -EBADMSG when the digits are
 * not a number ended by a blank. */
static int cpu_label(const Line *l, const char **p, uint64_t *cpu) {
        const char *id = l->start + 3, *q = id;

        if (!is_digit(*id))
                return 0;
        while (q < l->end && is_digit(*q))
                q++;
        if (token_u64(id, (size_t) (q - id), cpu) < 0 || !is_blank(*q))
                return -EBADMSG;
        *p = q;
        return 1;
}

/* Parses one "cpu..." line.  *n_columns is the number of values of the
 * aggregate "cpu" line (0 before it).  Returns 0 or -EBADMSG with e set. */
static int stat_line(const Line *l, unsigned n_cpus, ProcCpuSample *out, int *n_columns, ErrorInfo *e) {
        uint64_t v[STAT_MAX_VALUES];
        const char *p = l->start + 3;
        uint64_t cpu = UINT64_MAX;
        int n = cpu_label(l, &p, &cpu);

        if (n < 0)
                return errinfo_set(e, -EBADMSG, PROCFS_STAT ":%u: invalid CPU label", l->number);
        if (n == 0 && (*n_columns > 0 || !is_blank(*p)))
                return 0;                 /* "cpu" as a prefix of some other key */
        if (!l->terminated)
                return errinfo_set(e, -EBADMSG, PROCFS_STAT ":%u: truncated line", l->number);
        n = stat_values(l, p, v, e);
        if (n < 0)
                return n;
        if (cpu == UINT64_MAX) {
                *n_columns = n;
                return 0;
        }
        if (*n_columns == 0 || n != *n_columns)
                return errinfo_set(e, -EBADMSG, PROCFS_STAT ":%u: %d values, but %s",
                                   l->number, n, *n_columns ? "the \"cpu\" line has a different count" : "no \"cpu\" line before it");
        if (cpu < n_cpus) {
                if (out[cpu].has_stat)
                        return errinfo_set(e, -EBADMSG, PROCFS_STAT ":%u: cpu%u listed twice", l->number, (unsigned) cpu);
                stat_store(&out[cpu], v, n);
        }
        return 0;
}

int procstat_parse_stat(const char *text, unsigned n_cpus, ProcCpuSample *out, ErrorInfo *e) {
        Line l = {};
        int n_columns = 0, r;

        for (unsigned i = 0; i < n_cpus; i++) {
                out[i].has_stat = false;
                out[i].busy_jiffies = out[i].total_jiffies = 0;
        }
        while (line_next(text, &l)) {
                if (strncmp(l.start, "cpu", 3) != 0)
                        continue;
                r = stat_line(&l, n_cpus, out, &n_columns, e);
                if (r < 0)
                        return r;
        }
        if (n_columns == 0)
                return errinfo_set(e, -EBADMSG, PROCFS_STAT ": no \"cpu\" line (empty or truncated file)");
        return 0;
}

int procstat_parse_ctxt(const char *text, uint64_t *ret) {
        Line l = {};

        while (line_next(text, &l)) {
                const char *p = l.start + 5, *tok;
                size_t len;
                uint64_t v;

                if (!l.terminated || l.end - l.start < 6 || strncmp(l.start, "ctxt ", 5) != 0)
                        continue;
                token_next(&p, l.end, &tok, &len);
                if (token_u64(tok, len, &v) < 0)
                        return -EBADMSG;
                *ret = v;
                return 0;
        }
        return -ENODATA;
}

int procstat_parse_totals(const char *text, ProcTotals *ret, ErrorInfo *e) {
        ProcTotals t = {};
        ProcCpuSample all = {};
        Line l = {};
        int r;

        while (line_next(text, &l) && !t.has_cpu) {
                uint64_t v[STAT_MAX_VALUES];

                if (strncmp(l.start, "cpu", 3) != 0 || !is_blank(l.start[3]))
                        continue;
                if (!l.terminated)
                        return errinfo_set(e, -EBADMSG, PROCFS_STAT ":%u: truncated line", l.number);
                r = stat_values(&l, l.start + 3, v, e);
                if (r < 0)
                        return r;
                stat_store(&all, v, r);
                t = (ProcTotals) { .has_cpu = true, .busy_jiffies = all.busy_jiffies, .total_jiffies = all.total_jiffies };
        }
        if (!t.has_cpu)
                return errinfo_set(e, -EBADMSG, PROCFS_STAT ": no \"cpu\" line (empty or truncated file)");
        t.has_ctxt = procstat_parse_ctxt(text, &t.ctxt) >= 0;
        *ret = t;
        return 0;
}

unsigned procstat_parse_online(const char *text, CpuSet *ret) {
        Line l = {};
        unsigned n = 0;

        cpuset_clear(ret);
        while (line_next(text, &l)) {
                const char *p;
                uint64_t cpu;

                if (!l.terminated || strncmp(l.start, "cpu", 3) != 0 || cpu_label(&l, &p, &cpu) <= 0 ||
                    cpu >= CPUSET_MAX)
                        continue;
                cpuset_add(ret, (unsigned) cpu);
                n++;
        }
        return n;
}

bool procreader_ctxt(const ProcReader *r, uint64_t *ret) {
        if (r->totals.has_ctxt)
                *ret = r->totals.ctxt;
        return r->totals.has_ctxt;
}

ProcTotals procreader_totals(const ProcReader *r) {
        return r->totals;
}

/* ---- proc/interrupts ---------------------------------------------------- */

/* The CPU ids of the header's columns ("CPU0 CPU2 ...": online CPUs only);
 * IRQ_COLUMN_IGNORED for ids the set cannot hold. */
#define IRQ_COLUMN_IGNORED UINT16_MAX
typedef struct IrqColumns {
        unsigned n;
        uint16_t cpu[CPUSET_MAX];
} IrqColumns;

/* Parses the header line into cols.  Returns 0 or -EBADMSG with e set. */
static int irq_header(const Line *l, IrqColumns *cols, ErrorInfo *e) {
        const char *p = l->start, *tok;
        size_t len;
        uint64_t id;

        if (!l->terminated)
                return errinfo_set(e, -EBADMSG, PROCFS_INTERRUPTS ":1: truncated header");
        for (cols->n = 0;; cols->n++) {
                token_next(&p, l->end, &tok, &len);
                if (len == 0)
                        break;
                if (len < 4 || strncmp(tok, "CPU", 3) != 0 || token_u64(tok + 3, len - 3, &id) < 0)
                        return errinfo_set(e, -EBADMSG, PROCFS_INTERRUPTS ":1: invalid column \"%.*s\"", (int) len, tok);
                if (cols->n >= CPUSET_MAX)
                        return errinfo_set(e, -EBADMSG, PROCFS_INTERRUPTS ":1: more than %u columns", CPUSET_MAX);
                cols->cpu[cols->n] = id < CPUSET_MAX ? (uint16_t) id : IRQ_COLUMN_IGNORED;
        }
        if (cols->n == 0)
                return errinfo_set(e, -EBADMSG, PROCFS_INTERRUPTS ":1: no CPU column");
        return 0;
}

/* Returns true for rows that count something global, not per CPU. */
static bool irq_label_is_global(const char *label, size_t len) {
        return len == 3 && (strncasecmp(label, "ERR", 3) == 0 || strncasecmp(label, "MIS", 3) == 0);
}

/* Returns true if the row is a timer: label LOC, or "timer" (any case) in
 * the description [desc, end). */
static bool irq_row_is_timer(const char *label, size_t label_len, const char *desc, const char *end) {
        if (label_len == 3 && strncmp(label, "LOC", 3) == 0)
                return true;
        for (const char *p = desc; p + 5 <= end; p++)
                if ((*p | 0x20) == 't' && strncasecmp(p, "timer", 5) == 0)
                        return true;
        return false;
}

/* Returns true if [tok, tok+len) is a non-empty run of digits. */
static bool token_is_number(const char *tok, size_t len) {
        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++)
                if (!is_digit(tok[i]))
                        return false;
        return true;
}

/* Counts the numbers (at most max) after the label at *p; leaves *p after
 * the last one.  Returns the count; *ret_rest is true if text follows. */
static unsigned irq_count_values(const char **p, const char *end, unsigned max, bool *ret_rest) {
        const char *q = *p, *tok;
        size_t len = 0;
        unsigned n = 0;

        for (; n < max; n++) {
                token_next(&q, end, &tok, &len);
                if (!token_is_number(tok, len))
                        break;
                *p = q;
        }
        if (n == max)
                token_next(&q, end, &tok, &len);
        *ret_rest = len > 0;
        return n;
}

/* Adds the n_values numbers at p to the timer or other counts of the
 * columns' CPUs.  Returns 0 or -EBADMSG (a number out of range). */
static int irq_add(const Line *l, const char *p, const IrqColumns *cols, bool timer,
                   unsigned n_cpus, ProcCpuSample *out, ErrorInfo *e) {
        const char *tok;
        size_t len;
        uint64_t v;

        for (unsigned i = 0; i < cols->n; i++) {
                token_next(&p, l->end, &tok, &len);
                if (token_u64(tok, len, &v) < 0)
                        return errinfo_set(e, -EBADMSG, PROCFS_INTERRUPTS ":%u: invalid value \"%.*s\"",
                                           l->number, (int) len, tok);
                unsigned cpu = cols->cpu[i];
                if (cpu == IRQ_COLUMN_IGNORED || cpu >= n_cpus)
                        continue;
                *(timer ? &out[cpu].timer_irqs : &out[cpu].other_irqs) += v;
                out[cpu].has_irq = true;
        }
        return 0;
}

/* Adds one row ("LABEL: n n ... description") to out.  Rows with a single
 * value and no description (ERR:, MIS:) are skipped.  Returns 0 or -EBADMSG
 * with e naming the line. */
static int irq_row(const Line *l, const IrqColumns *cols, unsigned n_cpus, ProcCpuSample *out, ErrorInfo *e) {
        const char *label = l->start, *values, *p;
        size_t label_len;
        bool rest;
        unsigned n;

        while (label < l->end && is_blank(*label))
                label++;
        p = memchr(label, ':', (size_t) (l->end - label));
        if (!p || p == label)
                return errinfo_set(e, -EBADMSG, PROCFS_INTERRUPTS ":%u: no \"LABEL:\" at the start", l->number);
        if (!l->terminated)
                return errinfo_set(e, -EBADMSG, PROCFS_INTERRUPTS ":%u: truncated line", l->number);
        label_len = (size_t) (p - label);
        values = ++p;
        n = irq_count_values(&p, l->end, cols->n, &rest);
        if (n < cols->n && n <= 1 && !rest)
                return 0;
        if (n < cols->n)
                return errinfo_set(e, -EBADMSG, PROCFS_INTERRUPTS ":%u: expected %u values, got %u",
                                   l->number, cols->n, n);
        if (irq_label_is_global(label, label_len))
                return 0;
        return irq_add(l, values, cols, irq_row_is_timer(label, label_len, p, l->end), n_cpus, out, e);
}

int procstat_parse_interrupts(const char *text, unsigned n_cpus, ProcCpuSample *out, ErrorInfo *e) {
        IrqColumns cols;            /* 16 KiB: on the stack, not allocated per tick */
        Line l = {};
        int r;

        cols.n = 0;
        for (unsigned i = 0; i < n_cpus; i++) {
                out[i].has_irq = false;
                out[i].timer_irqs = out[i].other_irqs = 0;
        }
        if (!line_next(text, &l))
                return errinfo_set(e, -EBADMSG, PROCFS_INTERRUPTS ": empty file");
        r = irq_header(&l, &cols, e);
        if (r < 0)
                return r;
        while (line_next(text, &l)) {
                if (l.start == l.end && l.terminated)
                        continue;
                r = irq_row(&l, &cols, n_cpus, out, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- the reader ---------------------------------------------------------- */

ProcReader *procreader_free(ProcReader *r) {
        if (r) {
                fileio_closep(&r->stat_fd);
                fileio_closep(&r->irq_fd);
                free(r->buf);
                free(r);
        }
        return NULL;
}

void procreader_freep(ProcReader **r) {
        procreader_free(*r);
}

int procreader_new(int root_fd, ProcReader **ret, ErrorInfo *e) {
        _cleanup_procreader_ ProcReader *r = calloc(1, sizeof(ProcReader));

        if (!r)
                return -ENOMEM;
        r->irq_fd = -1;
        r->stat_fd = fileio_open_at(root_fd, PROCFS_STAT);
        if (r->stat_fd < 0)
                return errinfo_set(e, r->stat_fd, PROCFS_STAT ": %s", fileio_error_reason(r->stat_fd));
        r->irq_fd = fileio_open_at(root_fd, PROCFS_INTERRUPTS);
        if (r->irq_fd < 0 && r->irq_fd != -ENOENT)
                return errinfo_set(e, r->irq_fd, PROCFS_INTERRUPTS ": %s", fileio_error_reason(r->irq_fd));
        *ret = r;
        r = NULL;
        return 0;
}

/* Re-reads fd into the reader's buffer (text).  Returns 0 or a negative
 * errno with e set. */
static int reread_text(ProcReader *r, int fd, const char *path, ErrorInfo *e) {
        int n = fileio_pread_alloc(fd, PROCSTAT_FILE_MAX, &r->buf, &r->size);

        if (n < 0)
                return errinfo_set(e, n, "%s: %s", path, fileio_error_reason(n));
        if (memchr(r->buf, '\0', (size_t) n))
                return errinfo_set(e, -EBADMSG, "%s: contains a NUL byte", path);
        return 0;
}

/* Re-reads fd into the reader's buffer and parses it.  Returns 0 or a
 * negative errno with e set. */
static int reread(ProcReader *r, int fd, const char *path, unsigned n_cpus, ProcCpuSample *out,
                  int (*parse)(const char *, unsigned, ProcCpuSample *, ErrorInfo *), ErrorInfo *e) {
        int k = reread_text(r, fd, path, e);

        return k < 0 ? k : parse(r->buf, n_cpus, out, e);
}

/* The totals of proc/stat's text in the buffer (parsed already: its "cpu"
 * line is there), or none. */
static void totals_note(ProcReader *r, bool ok) {
        ErrorInfo e = {};

        if (!ok || procstat_parse_totals(r->buf, &r->totals, &e) < 0)
                r->totals = (ProcTotals) {};
}

int procreader_read(ProcReader *r, unsigned n_cpus, ProcCpuSample *out, ErrorInfo *e) {
        int k;

        memset(out, 0, sizeof(ProcCpuSample) * n_cpus);
        k = reread(r, r->stat_fd, PROCFS_STAT, n_cpus, out, procstat_parse_stat, e);
        /* The buffer still holds proc/stat. */
        totals_note(r, k >= 0);
        if (k >= 0 && r->irq_fd >= 0)
                k = reread(r, r->irq_fd, PROCFS_INTERRUPTS, n_cpus, out, procstat_parse_interrupts, e);
        return k;
}

int procreader_read_totals(ProcReader *r, ProcTotals *ret, CpuSet *online, ErrorInfo *e) {
        int n = reread_text(r, r->stat_fd, PROCFS_STAT, e);

        if (n >= 0)
                n = procstat_parse_totals(r->buf, &r->totals, e);
        if (n < 0) {
                r->totals = (ProcTotals) {};
                return n;
        }
        if (online)
                (void) procstat_parse_online(r->buf, online);
        *ret = r->totals;
        return 0;
}
