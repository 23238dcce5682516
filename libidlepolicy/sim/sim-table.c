/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "sim-table.h"
#include "sim-util.h"

#define TOKENS_MAX 12
#define TICK_NS (4 * NSEC_PER_MSEC)

typedef struct Line {
        char *tok[TOKENS_MAX];
        unsigned n;
} Line;

/* Splits buf in place into whitespace-separated tokens; the first may be
 * double-quoted.  Returns 0, or -EBADMSG with e filled. */
static int line_split(char *buf, unsigned lineno, Line *ret, ErrorInfo *e) {
        char *p = buf;

        ret->n = 0;
        for (;;) {
                p += strspn(p, " \t\r\n");
                if (*p == '\0' || *p == '#')
                        return 0;
                if (ret->n == TOKENS_MAX)
                        return errinfo_set(e, -EBADMSG, "line %u: too many fields", lineno);
                if (*p == '"' && ret->n == 0) {
                        char *end = strchr(p + 1, '"');
                        if (!end)
                                return errinfo_set(e, -EBADMSG, "line %u: unterminated quote", lineno);
                        ret->tok[ret->n++] = p + 1;
                        *end = '\0';
                        p = end + 1;
                        if (*p != '\0' && !strchr(" \t\r\n", *p))
                                return errinfo_set(e, -EBADMSG, "line %u: text after closing quote", lineno);
                        continue;
                }
                ret->tok[ret->n++] = p;
                p += strcspn(p, " \t\r\n");
                if (*p != '\0')
                        *p++ = '\0';
        }
}

/* Parses a µs value into ns.  Returns 0 or -EBADMSG with e filled. */
static int parse_us(const char *s, const char *what, unsigned lineno, uint64_t *ret, ErrorInfo *e) {
        uint64_t v;

        if (parse_u64(s, &v) < 0)
                return errinfo_set(e, -EBADMSG, "line %u: %s: not a number: \"%s\"", lineno, what, s);
        if (v > SIM_COST_MAX_US)
                return errinfo_set(e, -EBADMSG, "line %u: %s: %s µs is more than 10 s", lineno, what, s);
        *ret = v * NSEC_PER_USEC;
        return 0;
}

static bool is_number(const char *s) {
        return s[0] >= '0' && s[0] <= '9';
}

static int parse_flags(const Line *l, unsigned first, unsigned lineno, SimState *s, ErrorInfo *e) {
        for (unsigned i = first; i < l->n; i++) {
                if (streq(l->tok[i], "polling"))
                        s->polling = true;
                else if (streq(l->tok[i], "disabled"))
                        s->disabled = true;
                else
                        return errinfo_set(e, -EBADMSG, "line %u: unknown flag \"%s\" (polling, disabled)",
                                           lineno, l->tok[i]);
        }
        return 0;
}

/* Parses tokens first and first+1 as exit latency and target residency;
 * what names them in errors ("exit latency", "real exit latency"). */
static int parse_cost(const Line *l, unsigned first, const char *prefix, unsigned lineno, SimCost *ret, ErrorInfo *e) {
        char what[64];
        int r;

        snprintf(what, sizeof(what), "%sexit latency", prefix);
        r = parse_us(l->tok[first], what, lineno, &ret->exit_latency_ns, e);
        if (r < 0)
                return r;
        snprintf(what, sizeof(what), "%starget residency", prefix);
        return parse_us(l->tok[first + 1], what, lineno, &ret->target_residency_ns, e);
}

static int parse_state(const Line *l, unsigned lineno, SimState *ret, ErrorInfo *e) {
        SimState s = {};
        unsigned next = 3;
        int r;

        if (l->n < 3)
                return errinfo_set(e, -EBADMSG, "line %u: expected NAME EXIT_LATENCY_US TARGET_RESIDENCY_US", lineno);
        if (l->tok[0][0] == '\0' || strlen(l->tok[0]) >= sizeof(s.name))
                return errinfo_set(e, -EBADMSG, "line %u: state name empty or longer than %zu bytes",
                                   lineno, sizeof(s.name) - 1);
        strcpy(s.name, l->tok[0]);
        r = parse_cost(l, 1, "", lineno, &s.advertised, e);
        if (r < 0)
                return r;
        s.real = s.advertised;
        if (l->n > 3 && is_number(l->tok[3])) {
                if (l->n < 5 || !is_number(l->tok[4]))
                        return errinfo_set(e, -EBADMSG, "line %u: real costs need both REAL_EXIT_US and REAL_RESIDENCY_US", lineno);
                r = parse_cost(l, 3, "real ", lineno, &s.real, e);
                if (r < 0)
                        return r;
                next = 5;
        }
        r = parse_flags(l, next, lineno, &s, e);
        if (r < 0)
                return r;
        *ret = s;
        return 0;
}

static int parse_setting(const Line *l, unsigned lineno, SimTable *t, ErrorInfo *e) {
        if (l->n != 3)
                return errinfo_set(e, -EBADMSG, "line %u: expected \"set KEY VALUE\"", lineno);
        if (streq(l->tok[1], "ipi-us"))
                return parse_us(l->tok[2], "ipi-us", lineno, &t->ipi_ns, e);
        return errinfo_set(e, -EBADMSG, "line %u: unknown setting \"%s\" (ipi-us)", lineno, l->tok[1]);
}

/* Checks a new state against the table so far. */
static int check_state(const SimTable *t, const SimState *s, unsigned lineno, ErrorInfo *e) {
        if (t->n_states == SIM_STATES_MAX)
                return errinfo_set(e, -EBADMSG, "line %u: more than %d states", lineno, SIM_STATES_MAX);
        for (unsigned i = 0; i < t->n_states; i++)
                if (streq(t->states[i].name, s->name))
                        return errinfo_set(e, -EBADMSG, "line %u: duplicate state \"%s\"", lineno, s->name);
        if (t->n_states > 0 &&
            s->advertised.target_residency_ns < t->states[t->n_states - 1].advertised.target_residency_ns)
                return errinfo_set(e, -EBADMSG,
                                   "line %u: target residency below the previous state's (list states shallowest first)",
                                   lineno);
        return 0;
}

static int parse_line(char *buf, unsigned lineno, SimTable *t, ErrorInfo *e) {
        Line l;
        SimState s;
        int r;

        r = line_split(buf, lineno, &l, e);
        if (r < 0 || l.n == 0)
                return r;
        if (streq(l.tok[0], "set"))
                return parse_setting(&l, lineno, t, e);
        r = parse_state(&l, lineno, &s, e);
        if (r < 0)
                return r;
        r = check_state(t, &s, lineno, e);
        if (r < 0)
                return r;
        t->states[t->n_states++] = s;
        return 0;
}

int sim_table_parse(FILE *f, const char *name, SimTable *ret, ErrorInfo *e) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        unsigned lineno = 0;
        SimTable t = {};
        int r;

        if (!name || strlen(name) >= sizeof(t.name))
                return errinfo_set(e, -EINVAL, "table name missing or too long");
        strcpy(t.name, name);
        for (;;) {
                errno = 0;
                ssize_t n = getline(&buf, &size, f);
                if (n < 0) {
                        if (errno != 0)
                                return errinfo_set(e, -errno, "line %u: read error", lineno + 1);
                        break;
                }
                lineno++;
                if ((size_t) n != strlen(buf))
                        return errinfo_set(e, -EBADMSG, "line %u: NUL byte", lineno);
                r = parse_line(buf, lineno, &t, e);
                if (r < 0)
                        return r;
        }
        if (t.n_states == 0)
                return errinfo_set(e, -EBADMSG, "line %u: no states in table", lineno);
        *ret = t;
        return 0;
}

int sim_table_set_disabled(SimTable *t, const char *spec, bool disabled) {
        uint64_t idx;

        for (unsigned i = 0; i < t->n_states; i++)
                if (streq(t->states[i].name, spec)) {
                        t->states[i].disabled = disabled;
                        return 0;
                }
        if (parse_u64(spec, &idx) < 0 || idx >= t->n_states)
                return -ENOENT;
        t->states[idx].disabled = disabled;
        return 0;
}

const SimCost *sim_table_cost(const SimTable *t, unsigned i, SimView v) {
        return v == SIM_VIEW_REAL ? &t->states[i].real : &t->states[i].advertised;
}

int sim_table_enabled_from(const SimTable *t, int i, int dir) {
        for (; i >= 0 && i < (int) t->n_states; i += dir)
                if (!t->states[i].disabled)
                        return i;
        return -1;
}

unsigned sim_table_first_enabled(const SimTable *t) {
        int i = sim_table_enabled_from(t, 0, +1);
        return i < 0 ? 0 : (unsigned) i;
}

uint64_t sim_table_poll_limit_ns(const SimTable *t) {
        uint64_t limit = TICK_NS;

        for (unsigned i = 0; i < t->n_states; i++) {
                const SimState *s = &t->states[i];
                if (s->disabled || s->polling)
                        continue;
                limit = min_u64(limit, s->advertised.target_residency_ns);
        }
        return limit;
}
