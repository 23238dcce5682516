/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "exposition.h"

static const char *const type_names[_EXPOSITION_TYPE_MAX] = {
        [EXPOSITION_COUNTER] = "counter",
        [EXPOSITION_GAUGE] = "gauge",
        [EXPOSITION_HISTOGRAM] = "histogram",
};

int exposition_init(Exposition *x) {
        *x = (Exposition) EXPOSITION_NULL;
        x->f = open_memstream(&x->buf, &x->size);
        return x->f ? 0 : -ENOMEM;
}

void exposition_done(Exposition *x) {
        if (x->f)
                fclose(x->f);
        free(x->buf);
        *x = (Exposition) EXPOSITION_NULL;
}

/* Returns 0, or the builder's first failure (nothing handed over). */
int exposition_finish(Exposition *x, char **ret, size_t *ret_len) {
        int r = x->error;

        if (!x->f)
                return -EINVAL;
        if (fclose(x->f) != 0 && r == 0)
                r = -ENOMEM;
        x->f = NULL;
        if (r < 0) {
                exposition_done(x);
                return r;
        }
        if (ret_len)
                *ret_len = x->size;
        *ret = TAKE_PTR(x->buf);
        exposition_done(x);
        return 0;
}

/* Remembers the first failure. */
static void fail(Exposition *x, int r) {
        if (x->error == 0)
                x->error = r;
}

/* Returns true for a name of [a-zA-Z_][a-zA-Z0-9_]* (no colons: those are
 * for recording rules). */
static bool name_valid(const char *s) {
        static const char first[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";

        if (!s || !s[0] || !strchr(first, s[0]))
                return false;
        return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") == strlen(s);
}

/* Returns the length of the valid UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_sequence(const unsigned char *s) {
        size_t n;
        uint32_t c;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                n = 2, c = s[0] & 0x1f;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                n = 3, c = s[0] & 0x0f;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                n = 4, c = s[0] & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                c = (c << 6) | (s[i] & 0x3f);
        }
        /* Overlong forms, surrogates, beyond U+10FFFF. */
        if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
                return 0;
        return n;
}

/* Writes s escaped: backslash and newline always, the double quote when
 * quote is set; bytes that are not UTF-8 as U+FFFD.  Returns 0 or -EIO. */
static int write_escaped(FILE *f, const char *s, bool quote) {
        const unsigned char *p = (const unsigned char *) s;

        while (*p) {
                size_t n = utf8_sequence(p);

                if (n == 0) {
                        fputs("\xef\xbf\xbd", f);
                        p++;
                        continue;
                }
                if (*p == '\\')
                        fputs("\\\\", f);
                else if (*p == '\n')
                        fputs("\\n", f);
                else if (*p == '"' && quote)
                        fputs("\\\"", f);
                else
                        fwrite(p, 1, n, f);
                p += n;
        }
        return ferror(f) ? -EIO : 0;
}

int exposition_escape_label(FILE *f, const char *s) {
        return write_escaped(f, s, true);
}

void exposition_family(Exposition *x, const char *name, ExpositionType type, const char *help) {
        if (!x->f || !name_valid(name) || (unsigned) type >= _EXPOSITION_TYPE_MAX) {
                fail(x, -EINVAL);
                return;
        }
        x->family = name;
        x->family_type = type;
        x->family_help = help;
}

/* Writes the HELP and TYPE lines of the family announced last, before its
 * first sample. */
static void write_family(Exposition *x) {
        if (!x->family)
                return;
        fprintf(x->f, "# HELP %s ", x->family);
        (void) write_escaped(x->f, x->family_help, false);
        fprintf(x->f, "\n# TYPE %s %s\n", x->family, type_names[x->family_type]);
        x->family = NULL;
}

/* Writes "name{labels} " (extra: one more label pair, or NULL).  Returns
 * false (and records why) if a name is invalid. */
static bool write_series(Exposition *x, const char *name, const char *const *labels, const char *extra_name,
                         const char *extra_value) {
        bool first = true;

        if (!x->f || !name_valid(name)) {
                fail(x, -EINVAL);
                return false;
        }
        write_family(x);
        fputs(name, x->f);
        for (size_t i = 0; labels && labels[i]; i += 2) {
                if (!name_valid(labels[i]) || !labels[i + 1]) {
                        fail(x, -EINVAL);
                        return false;
                }
                fprintf(x->f, "%s%s=\"", first ? "{" : ",", labels[i]);
                (void) write_escaped(x->f, labels[i + 1], true);
                fputc('"', x->f);
                first = false;
        }
        if (extra_name) {
                fprintf(x->f, "%s%s=\"", first ? "{" : ",", extra_name);
                (void) write_escaped(x->f, extra_value, true);
                fputc('"', x->f);
                first = false;
        }
        fputs(first ? " " : "} ", x->f);
        return true;
}

void exposition_u64(Exposition *x, const char *name, const char *const *labels, uint64_t value) {
        if (write_series(x, name, labels, NULL, NULL))
                fprintf(x->f, "%" PRIu64 "\n", value);
}

void exposition_double(Exposition *x, const char *name, const char *const *labels, double value) {
        if (!write_series(x, name, labels, NULL, NULL))
                return;
        if (isnan(value))
                fputs("NaN\n", x->f);
        else if (isinf(value))
                fputs(value > 0 ? "+Inf\n" : "-Inf\n", x->f);
        else
                fprintf(x->f, "%.17g\n", value);
}

/* Formats whole/scale as an exact decimal into buf with the trailing
 * zeros of the fraction dropped ("0.00025", "2", "1.5").  Returns buf. */
static char *format_fixed(uint64_t value, uint64_t scale, unsigned digits, char buf[static 48]) {
        size_t n;

        snprintf(buf, 48, "%" PRIu64 ".%0*" PRIu64, value / scale, (int) digits, value % scale);
        n = strlen(buf);
        while (buf[n - 1] == '0')
                buf[--n] = '\0';
        if (buf[n - 1] == '.')
                buf[n - 1] = '\0';
        return buf;
}

void exposition_usec(Exposition *x, const char *name, const char *const *labels, uint64_t usec) {
        char buf[48];

        if (write_series(x, name, labels, NULL, NULL))
                fprintf(x->f, "%s\n", format_fixed(usec, 1000000, 6, buf));
}

void exposition_nsec(Exposition *x, const char *name, const char *const *labels, uint64_t nsec) {
        char buf[48];

        if (write_series(x, name, labels, NULL, NULL))
                fprintf(x->f, "%s\n", format_fixed(nsec, 1000000000, 9, buf));
}

int histogram_init(Histogram *h, const uint64_t *bounds_usec, unsigned n) {
        if (n > HISTOGRAM_BOUNDS_MAX)
                return -EINVAL;
        for (unsigned i = 1; i < n; i++)
                if (bounds_usec[i] <= bounds_usec[i - 1])
                        return -EINVAL;
        *h = (Histogram) { .n_bounds = n };
        memcpy(h->bound_usec, bounds_usec, n * sizeof(uint64_t));
        return 0;
}

void histogram_observe(Histogram *h, uint64_t usec) {
        unsigned i = 0;

        while (i < h->n_bounds && usec > h->bound_usec[i])
                i++;
        h->count[i]++;
        h->n++;
        h->sum_usec += usec;
}

/* Writes "name" + suffix into buf.  Returns buf, or NULL when too long. */
static const char *suffixed(const char *name, const char *suffix, char buf[static 256]) {
        int n = snprintf(buf, 256, "%s%s", name, suffix);

        return n > 0 && n < 256 ? buf : NULL;
}

void exposition_histogram(Exposition *x, const char *name, const char *const *labels, const Histogram *h) {
        char bucket[256], sum[256], count[256], le[48];
        uint64_t cumulative = 0;

        if (!suffixed(name, "_bucket", bucket) || !suffixed(name, "_sum", sum) || !suffixed(name, "_count", count)) {
                fail(x, -EINVAL);
                return;
        }
        for (unsigned i = 0; i <= h->n_bounds; i++) {
                cumulative += h->count[i];
                if (!write_series(x, bucket, labels, "le",
                                  i < h->n_bounds ? format_fixed(h->bound_usec[i], 1000000, 6, le) : "+Inf"))
                        return;
                fprintf(x->f, "%" PRIu64 "\n", cumulative);
        }
        exposition_usec(x, sum, labels, h->sum_usec);
        exposition_u64(x, count, labels, h->n);
}

/* Whether l is the line "# TYPE name counter" (name: len bytes).  The
 * builder writes a family's TYPE line right after its HELP line. */
static bool is_counter_type(const char *l, const char *name, size_t len) {
        return l && strncmp(l, "# TYPE ", 7) == 0 && strncmp(l + 7, name, len) == 0 &&
               strncmp(l + 7 + len, " counter\n", 9) == 0;
}

int exposition_to_openmetrics(const char *text, char **ret) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return -ENOMEM;
        for (const char *l = text; *l; ) {
                const char *end = strchr(l, '\n');
                size_t n = end ? (size_t) (end - l + 1) : strlen(l);

                if (strncmp(l, "# HELP ", 7) == 0 || strncmp(l, "# TYPE ", 7) == 0) {
                        const char *name = l + 7, *type_line = l[2] == 'H' ? (end ? end + 1 : NULL) : l;
                        size_t len = strcspn(name, " \n");

                        if (len > 6 && strncmp(name + len - 6, "_total", 6) == 0 &&
                            is_counter_type(type_line, name, len)) {
                                fwrite(l, 1, 7 + len - 6, f);
                                fwrite(name + len, 1, n - 7 - len, f);
                                l += n;
                                continue;
                        }
                }
                fwrite(l, 1, n, f);
                l += n;
        }
        fputs("# EOF\n", f);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return 0;
}
