/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "grow.h"
#include "trace-format.h"

#define COLUMNS "cpu,start_ns,duration_ns,state,sleep_length_ns,wake,miss"
#define TRACE_CPUS_MAX 65536u

static const char *const wake_names[] = {
        [TRACE_WAKE_UNKNOWN] = "unknown",
        [TRACE_WAKE_TIMER] = "timer",
        [TRACE_WAKE_OTHER] = "other",
};

static const char *const miss_names[] = {
        [TRACE_MISS_UNKNOWN] = "unknown",
        [TRACE_MISS_NONE] = "none",
        [TRACE_MISS_ABOVE] = "above",
        [TRACE_MISS_BELOW] = "below",
};

static const char *const source_names[] = {
        [TRACE_SOURCE_NONE] = "none",
        [TRACE_SOURCE_CPU_IDLE] = "cpu_idle",
        [TRACE_SOURCE_IRQ_BOUNDED] = "irq-bounded",
};

#include "cleanup.h"

const char *trace_wake_to_string(TraceWake w) {
        return (unsigned) w < ELEMENTSOF(wake_names) ? wake_names[w] : NULL;
}

const char *trace_miss_to_string(TraceMiss m) {
        return (unsigned) m < ELEMENTSOF(miss_names) ? miss_names[m] : NULL;
}

const char *trace_source_to_string(TraceSource s) {
        return (unsigned) s < ELEMENTSOF(source_names) ? source_names[s] : NULL;
}

/* Returns the index of s in names[], or -EINVAL. */
static int lookup(const char *const *names, size_t n, const char *s) {
        for (size_t i = 0; i < n; i++)
                if (names[i] && strcmp(names[i], s) == 0)
                        return (int) i;
        return -EINVAL;
}

int trace_new(unsigned n_cpus, Trace **ret) {
        Trace *t = calloc(1, sizeof(*t));

        if (!t)
                return -ENOMEM;
        t->header.version = TRACE_FORMAT_VERSION;
        t->header.n_cpus = n_cpus;
        t->header.sources = calloc(n_cpus ? n_cpus : 1, sizeof(TraceSource));
        if (!t->header.sources) {
                free(t);
                return -ENOMEM;
        }
        *ret = t;
        return 0;
}

Trace *trace_free(Trace *t) {
        if (!t)
                return NULL;
        free(t->header.sources);
        free(t->intervals);
        free(t);
        return NULL;
}

void trace_freep(Trace **t) {
        trace_free(*t);
}

/* ---- writing ------------------------------------------------------------ */

/* Returns true if s can stand at the end of a header line. */
static bool name_ok(const char *s) {
        return s[0] != '\0' && !strchr(s, '\n') && s[0] != ' ';
}

static int write_header(FILE *f, const TraceHeader *h) {
        const char *driver = h->driver[0] ? h->driver : "none";

        if (!name_ok(driver) || h->n_states > TRACE_STATES_MAX || (h->n_cpus > 0 && !h->sources))
                return -EINVAL;
        fprintf(f, "# idlepolicy-trace %u\n", TRACE_FORMAT_VERSION);
        fprintf(f, "# recorded %.3f s, %u cpus, driver %s\n", h->seconds, h->n_cpus, driver);
        for (unsigned i = 0; i < h->n_states; i++) {
                const TraceStateInfo *s = &h->states[i];
                if (!name_ok(s->name))
                        return -EINVAL;
                fprintf(f, "# state %u %u %u %s\n", i, s->exit_latency_us, s->target_residency_us, s->name);
        }
        for (unsigned c = 0; c < h->n_cpus; c++) {
                const char *src = trace_source_to_string(h->sources[c]);
                if (!src)
                        return -EINVAL;
                fprintf(f, "# cpu %u source %s\n", c, src);
        }
        fputs(COLUMNS "\n", f);
        return 0;
}

static int write_row(FILE *f, const IdleInterval *iv) {
        const char *wake = trace_wake_to_string(iv->wake), *miss = trace_miss_to_string(iv->miss);

        if (!wake || !miss)
                return -EINVAL;
        fprintf(f, "%u,%llu,%llu,%d,", iv->cpu, (unsigned long long) iv->start_ns,
                (unsigned long long) iv->duration_ns, iv->state);
        if (iv->sleep_length_ns == TRACE_SLEEP_UNKNOWN)
                fputs("-", f);
        else
                fprintf(f, "%llu", (unsigned long long) iv->sleep_length_ns);
        fprintf(f, ",%s,%s\n", wake, miss);
        return 0;
}

int trace_write(FILE *f, const Trace *t) {
        int r = write_header(f, &t->header);

        if (r < 0)
                return r;
        for (size_t i = 0; i < t->n_intervals; i++) {
                r = write_row(f, &t->intervals[i]);
                if (r < 0)
                        return r;
        }
        fprintf(f, "# end %zu\n", t->n_intervals);
        if (fflush(f) != 0 || ferror(f))
                return errno > 0 ? -errno : -EIO;
        return 0;
}

/* ---- reading ------------------------------------------------------------ */

typedef struct Reader {
        FILE *f;
        char *line;
        size_t cap;
        unsigned lineno;
        ErrorInfo *e;
} Reader;

/* Reads the next line into r->line without its newline.  Returns 1, 0 at
 * the end of the file, -EBADMSG for a last line without newline (a cut
 * file), -errno on a read error. */
static int reader_next(Reader *r) {
        errno = 0;
        ssize_t n = getline(&r->line, &r->cap, r->f);
        if (n < 0) {
                if (ferror(r->f))
                        return errinfo_set(r->e, errno > 0 ? -errno : -EIO, "read error after line %u", r->lineno);
                return 0;
        }
        r->lineno++;
        if (n == 0 || r->line[n - 1] != '\n')
                return errinfo_set(r->e, -EBADMSG, "line %u: truncated (no newline at end of file)", r->lineno);
        r->line[n - 1] = '\0';
        if (memchr(r->line, '\0', (size_t) n - 1))
                return errinfo_set(r->e, -EBADMSG, "line %u: NUL byte", r->lineno);
        return 1;
}

/* Like reader_next(), but the end of the file is an error too. */
static int reader_need(Reader *r, const char *what) {
        int k = reader_next(r);

        if (k == 0)
                return errinfo_set(r->e, -EBADMSG, "line %u: truncated: expected %s", r->lineno + 1, what);
        return k < 0 ? k : 0;
}

/* Splits off the next space-separated token of *p (exactly one space
 * between tokens).  Returns the token or NULL when there is none. */
static char *next_token(char **p) {
        char *tok = *p;

        if (!tok || *tok == '\0' || *tok == ' ')
                return NULL;
        char *sp = strchr(tok, ' ');
        if (sp) {
                *sp = '\0';
                *p = sp + 1;
        } else
                *p = NULL;
        return tok;
}

/* Expects the literal word w as the next token.  Returns 0 or -EBADMSG. */
static int expect_word(char **p, const char *w) {
        const char *tok = next_token(p);
        return tok && strcmp(tok, w) == 0 ? 0 : -EBADMSG;
}

static int copy_name(char *dst, size_t size, const char *src) {
        if (!src || src[0] == '\0' || src[0] == ' ' || strlen(src) >= size)
                return -EBADMSG;
        strcpy(dst, src);
        return 0;
}

static int parse_version(Reader *r, TraceHeader *h) {
        int k = reader_need(r, "\"# idlepolicy-trace <version>\"");
        if (k < 0)
                return k;
        char *p = r->line;
        if (expect_word(&p, "#") < 0 || expect_word(&p, "idlepolicy-trace") < 0 || !p ||
            parse_u32(p, &h->version) < 0 || h->version == 0)
                return errinfo_set(r->e, -EBADMSG, "line %u: not an idlepolicy trace (expected \"# idlepolicy-trace %d\")",
                                   r->lineno, TRACE_FORMAT_VERSION);
        if (h->version > TRACE_FORMAT_VERSION)
                return errinfo_set(r->e, -EPROTONOSUPPORT, "line %u: trace format version %u is newer than %d",
                                   r->lineno, h->version, TRACE_FORMAT_VERSION);
        return 0;
}

/* "recorded <seconds> s, <n> cpus, driver <name>" (after "# "). */
static int parse_recorded(char *p, TraceHeader *h) {
        const char *sec, *ncpu;
        char *end;

        if (h->sources || expect_word(&p, "recorded") < 0 || !(sec = next_token(&p)) ||
            expect_word(&p, "s,") < 0 || !(ncpu = next_token(&p)) || expect_word(&p, "cpus,") < 0 ||
            expect_word(&p, "driver") < 0)
                return -EBADMSG;
        errno = 0;
        h->seconds = strtod(sec, &end);
        if (errno != 0 || *end != '\0' || !isfinite(h->seconds) || h->seconds < 0)
                return -EBADMSG;
        if (parse_u32(ncpu, &h->n_cpus) < 0 || h->n_cpus == 0 || h->n_cpus > TRACE_CPUS_MAX)
                return -EBADMSG;
        if (copy_name(h->driver, sizeof(h->driver), p) < 0)
                return -EBADMSG;
        h->sources = calloc(h->n_cpus, sizeof(TraceSource));
        return h->sources ? 0 : -ENOMEM;
}

/* "state <index> <exit latency> <target residency> <name>" (after "# "). */
static int parse_state(char *p, TraceHeader *h) {
        const char *idx, *lat, *res;
        uint32_t i;

        if (expect_word(&p, "state") < 0 || !(idx = next_token(&p)) || !(lat = next_token(&p)) ||
            !(res = next_token(&p)))
                return -EBADMSG;
        if (parse_u32(idx, &i) < 0 || i != h->n_states || i >= TRACE_STATES_MAX)
                return -EBADMSG;
        TraceStateInfo *s = &h->states[i];
        if (parse_u32(lat, &s->exit_latency_us) < 0 || parse_u32(res, &s->target_residency_us) < 0 ||
            copy_name(s->name, sizeof(s->name), p) < 0)
                return -EBADMSG;
        h->n_states++;
        return 0;
}

/* "cpu <id> source <source>" (after "# "); seen[] marks CPUs already named. */
static int parse_cpu(char *p, TraceHeader *h, bool *seen) {
        const char *id;
        uint32_t c;
        int s;

        if (!h->sources || expect_word(&p, "cpu") < 0 || !(id = next_token(&p)) || expect_word(&p, "source") < 0)
                return -EBADMSG;
        if (parse_u32(id, &c) < 0 || c >= h->n_cpus || seen[c] || !p)
                return -EBADMSG;
        s = lookup(source_names, ELEMENTSOF(source_names), p);
        if (s < 0)
                return -EBADMSG;
        h->sources[c] = (TraceSource) s;
        seen[c] = true;
        return 0;
}

static int parse_header_line(Reader *r, TraceHeader *h, bool **seen) {
        char *p = r->line + 2;
        int k;

        if (strncmp(p, "recorded ", 9) == 0) {
                k = parse_recorded(p, h);
                if (k == 0 && !(*seen = calloc(h->n_cpus, sizeof(bool))))
                        k = -ENOMEM;
        } else if (strncmp(p, "state ", 6) == 0)
                k = parse_state(p, h);
        else if (strncmp(p, "cpu ", 4) == 0)
                k = parse_cpu(p, h, *seen);
        else
                return 0;   /* unknown header lines are for later additions */
        if (k == -EBADMSG)
                return errinfo_set(r->e, k, "line %u: malformed header line \"%.64s\"", r->lineno, r->line);
        return k;
}

static int check_header_complete(Reader *r, const TraceHeader *h, const bool *seen) {
        if (!h->sources)
                return errinfo_set(r->e, -EBADMSG, "line %u: column line before \"# recorded ...\"", r->lineno);
        for (unsigned c = 0; c < h->n_cpus; c++)
                if (!seen[c])
                        return errinfo_set(r->e, -EBADMSG, "line %u: no \"# cpu %u source ...\" line before the columns",
                                           r->lineno, c);
        return 0;
}

static int parse_header(Reader *r, TraceHeader *h) {
        _cleanup_free_ bool *seen = NULL;
        int k = parse_version(r, h);

        while (k >= 0) {
                k = reader_need(r, "the column line \"" COLUMNS "\"");
                if (k < 0)
                        break;
                if (strcmp(r->line, COLUMNS) == 0)
                        return check_header_complete(r, h, seen);
                if (strncmp(r->line, "# ", 2) != 0)
                        return errinfo_set(r->e, -EBADMSG, "line %u: expected a \"# \" header line or \"%s\"",
                                           r->lineno, COLUMNS);
                k = parse_header_line(r, h, &seen);
        }
        return k;
}

static int parse_state_field(const char *s, const TraceHeader *h, int32_t *ret) {
        uint32_t v;

        if (strcmp(s, "-1") == 0) {
                *ret = -1;
                return 0;
        }
        if (parse_u32(s, &v) < 0 || v >= h->n_states)
                return -EBADMSG;
        *ret = (int32_t) v;
        return 0;
}

static const char *const columns[] = { "cpu", "start_ns", "duration_ns", "state", "sleep_length_ns", "wake", "miss" };

static int bad_field(Reader *r, size_t col, const char *value) {
        return errinfo_set(r->e, -EBADMSG, "line %u: %s: invalid value \"%.32s\"", r->lineno, columns[col], value);
}

static int parse_sleep_field(const char *s, uint64_t *ret) {
        if (strcmp(s, "-") == 0) {
                *ret = TRACE_SLEEP_UNKNOWN;
                return 0;
        }
        return parse_u64(s, ret) < 0 || *ret == TRACE_SLEEP_UNKNOWN ? -EBADMSG : 0;
}

/* Parses one CSV row; on failure names the line and the column in r->e. */
static int parse_row(Reader *r, const TraceHeader *h, IdleInterval *iv) {
        char *f[7], *p = r->line;
        size_t n = 0;
        int w, m;

        for (char *tok; n < 7 && (tok = strsep(&p, ",")); n++)
                f[n] = tok;
        if (n < 7 || p)
                return errinfo_set(r->e, -EBADMSG, "line %u: expected 7 comma-separated fields", r->lineno);
        if (parse_u32(f[0], &iv->cpu) < 0 || iv->cpu >= h->n_cpus)
                return bad_field(r, 0, f[0]);
        if (parse_u64(f[1], &iv->start_ns) < 0)
                return bad_field(r, 1, f[1]);
        if (parse_u64(f[2], &iv->duration_ns) < 0 || iv->start_ns + iv->duration_ns < iv->start_ns)
                return bad_field(r, 2, f[2]);
        if (parse_state_field(f[3], h, &iv->state) < 0)
                return bad_field(r, 3, f[3]);
        if (parse_sleep_field(f[4], &iv->sleep_length_ns) < 0)
                return bad_field(r, 4, f[4]);
        if ((w = lookup(wake_names, ELEMENTSOF(wake_names), f[5])) < 0)
                return bad_field(r, 5, f[5]);
        if ((m = lookup(miss_names, ELEMENTSOF(miss_names), f[6])) < 0)
                return bad_field(r, 6, f[6]);
        iv->wake = (TraceWake) w;
        iv->miss = (TraceMiss) m;
        return 0;
}

static int push_interval(Trace *t, size_t *cap, const IdleInterval *iv) {
        if (grow_array((void **) &t->intervals, cap, t->n_intervals, sizeof(IdleInterval), 1024) < 0)
                return -ENOMEM;
        t->intervals[t->n_intervals++] = *iv;
        return 0;
}

static int parse_end(Reader *r, const Trace *t) {
        uint64_t n;

        if (parse_u64(r->line + 6, &n) < 0)
                return errinfo_set(r->e, -EBADMSG, "line %u: malformed \"# end <rows>\" trailer", r->lineno);
        if (n != t->n_intervals)
                return errinfo_set(r->e, -EBADMSG, "line %u: trailer says %llu rows, found %zu", r->lineno,
                                   (unsigned long long) n, t->n_intervals);
        int k = reader_next(r);
        if (k > 0)
                return errinfo_set(r->e, -EBADMSG, "line %u: data after the \"# end\" trailer", r->lineno);
        return k;
}

static int compare_interval(const void *a, const void *b) {
        const IdleInterval *x = a, *y = b;

        if (x->start_ns != y->start_ns)
                return x->start_ns < y->start_ns ? -1 : 1;
        return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* Reads rows up to and including the trailer.  Sorts them if needed. */
static int parse_rows(Reader *r, Trace *t) {
        size_t cap = 0;
        bool sorted = true;

        for (;;) {
                IdleInterval iv = { 0 };
                int k = reader_next(r);
                if (k == 0)
                        return errinfo_set(r->e, -EBADMSG, "line %u: truncated: missing \"# end <rows>\" trailer",
                                           r->lineno + 1);
                if (k < 0)
                        return k;
                if (strncmp(r->line, "# end ", 6) == 0) {
                        k = parse_end(r, t);
                        if (k < 0)
                                return k;
                        break;
                }
                k = parse_row(r, &t->header, &iv);
                if (k >= 0)
                        k = push_interval(t, &cap, &iv);
                if (k < 0)
                        return k;
                if (t->n_intervals > 1 && compare_interval(&t->intervals[t->n_intervals - 2], &iv) > 0)
                        sorted = false;
        }
        if (!sorted)
                qsort(t->intervals, t->n_intervals, sizeof(IdleInterval), compare_interval);
        return 0;
}

int trace_read(FILE *f, Trace **ret, ErrorInfo *e) {
        _cleanup_free_ char *line = NULL;
        _cleanup_trace_ Trace *t = calloc(1, sizeof(Trace));
        Reader r = { .f = f, .e = e };
        int k;

        if (!t)
                return -ENOMEM;
        k = parse_header(&r, &t->header);
        if (k >= 0)
                k = parse_rows(&r, t);
        line = r.line;
        if (k < 0)
                return k;
        *ret = t;
        t = NULL;
        return 0;
}
