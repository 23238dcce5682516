/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpuset.h"

#define WORD(cpu) ((cpu) / 64u)
#define BIT(cpu) (UINT64_C(1) << ((cpu) % 64u))
#define N_WORDS (CPUSET_MAX / 64u)

void cpuset_clear(CpuSet *s) {
        memset(s, 0, sizeof(*s));
}

void cpuset_add(CpuSet *s, unsigned cpu) {
        if (cpu < CPUSET_MAX)
                s->bits[WORD(cpu)] |= BIT(cpu);
}

void cpuset_remove(CpuSet *s, unsigned cpu) {
        if (cpu < CPUSET_MAX)
                s->bits[WORD(cpu)] &= ~BIT(cpu);
}

/* Returns true if cpu is in s. */
bool cpuset_contains(const CpuSet *s, unsigned cpu) {
        return cpu < CPUSET_MAX && (s->bits[WORD(cpu)] & BIT(cpu));
}

/* Returns the number of CPUs in s. */
unsigned cpuset_count(const CpuSet *s) {
        unsigned n = 0;

        for (unsigned i = 0; i < N_WORDS; i++)
                n += (unsigned) __builtin_popcountll(s->bits[i]);
        return n;
}

/* Returns true if a and b hold the same CPUs. */
bool cpuset_equal(const CpuSet *a, const CpuSet *b) {
        return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

unsigned cpuset_span(const CpuSet *s) {
        for (unsigned i = N_WORDS; i > 0; i--)
                if (s->bits[i - 1])
                        return (i - 1) * 64u + 64u - (unsigned) __builtin_clzll(s->bits[i - 1]);
        return 0;
}

int cpuset_next(const CpuSet *s, unsigned from) {
        if (from >= CPUSET_MAX)
                return -1;

        unsigned i = WORD(from);
        uint64_t w = s->bits[i] & (~UINT64_C(0) << (from % 64u));
        for (;;) {
                if (w)
                        return (int) (i * 64u + (unsigned) __builtin_ctzll(w));
                if (++i >= N_WORDS)
                        return -1;
                w = s->bits[i];
        }
}

/* Parses a decimal CPU number at *p, advancing *p.  Returns 0, -EINVAL if
 * there is no digit, -ERANGE if the number is >= CPUSET_MAX. */
static int parse_cpu(const char **p, unsigned *ret) {
        unsigned v = 0;

        if (!isdigit((unsigned char) **p))
                return -EINVAL;
        for (; isdigit((unsigned char) **p); (*p)++) {
                v = v * 10u + (unsigned) (**p - '0');
                if (v >= CPUSET_MAX)
                        return -ERANGE;
        }
        *ret = v;
        return 0;
}

/* Parses one "N" or "N-M" token [start, end) into s.  Returns 0 or a
 * negative errno. */
static int parse_range(const char *start, const char *end, CpuSet *s) {
        const char *p = start;
        unsigned lo, hi;
        int r;

        r = parse_cpu(&p, &lo);
        if (r < 0)
                return r;
        hi = lo;
        if (p < end && *p == '-') {
                p++;
                r = parse_cpu(&p, &hi);
                if (r < 0)
                        return r;
        }
        if (p != end || hi < lo)
                return -EINVAL;
        for (unsigned c = lo; c <= hi; c++)
                cpuset_add(s, c);
        return 0;
}

int cpuset_parse(const char *text, CpuSet *ret, ErrorInfo *e) {
        CpuSet s;
        const char *p = text, *end;

        cpuset_clear(&s);
        while (isspace((unsigned char) *p))
                p++;
        end = p + strlen(p);
        while (end > p && isspace((unsigned char) end[-1]))
                end--;

        while (p < end) {
                const char *comma = memchr(p, ',', (size_t) (end - p));
                const char *tok_end = comma ? comma : end;
                int r = parse_range(p, tok_end, &s);
                if (r < 0)
                        return errinfo_set(e, r, "invalid CPU list token \"%.*s\"%s",
                                           (int) (tok_end - p), p,
                                           r == -ERANGE ? " (CPU number too large)" : "");
                if (comma && comma + 1 == end)
                        return errinfo_set(e, -EINVAL, "invalid CPU list: trailing comma");
                p = comma ? comma + 1 : end;
        }
        *ret = s;
        return 0;
}

/* Appends "lo" or "lo-hi" (with a leading comma unless first) to buf at *len.
 * Returns 0 or -ENOBUFS. */
static int format_range(char *buf, size_t size, size_t *len, unsigned lo, unsigned hi) {
        int n;

        if (lo == hi)
                n = snprintf(buf + *len, size - *len, "%s%u", *len ? "," : "", lo);
        else
                n = snprintf(buf + *len, size - *len, "%s%u-%u", *len ? "," : "", lo, hi);
        if (n < 0 || (size_t) n >= size - *len)
                return -ENOBUFS;
        *len += (size_t) n;
        return 0;
}

int cpuset_format(const CpuSet *s, char *buf, size_t size) {
        size_t len = 0;

        if (size == 0)
                return -ENOBUFS;
        buf[0] = '\0';
        for (int lo = cpuset_next(s, 0); lo >= 0;) {
                int hi = lo;
                while (cpuset_contains(s, (unsigned) hi + 1))
                        hi++;
                int r = format_range(buf, size, &len, (unsigned) lo, (unsigned) hi);
                if (r < 0)
                        return r;
                lo = cpuset_next(s, (unsigned) hi + 1);
        }
        return 0;
}

int cpuset_to_mask(const CpuSet *s, uint8_t *buf, size_t size, size_t *ret_len) {
        size_t len = (cpuset_span(s) + 7u) / 8u;

        if (len > size)
                return -ENOBUFS;
        memset(buf, 0, len);
        CPUSET_FOREACH(cpu, s)
                buf[cpu / 8] |= (uint8_t) (1u << (cpu % 8));
        *ret_len = len;
        return 0;
}

int cpuset_from_mask(const uint8_t *mask, size_t len, CpuSet *ret) {
        CpuSet s;

        cpuset_clear(&s);
        for (size_t i = 0; i < len; i++) {
                if (mask[i] == 0)
                        continue;
                if (i >= CPUSET_MASK_MAX)
                        return -ERANGE;
                for (unsigned bit = 0; bit < 8; bit++)
                        if (mask[i] & (1u << bit))
                                cpuset_add(&s, (unsigned) i * 8u + bit);
        }
        *ret = s;
        return 0;
}
