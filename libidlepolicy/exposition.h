/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Prometheus text exposition format, version 0.0.4 (what
 * node_exporter's textfile collector and `promtool check metrics` read):
 *
 *   # HELP idlepolicy_knobs_changed Knobs the daemon has changed now.
 *   # TYPE idlepolicy_knobs_changed gauge
 *   idlepolicy_knobs_changed 3
 *   idlepolicy_cpuidle_state_usage_total{cpu="0",state="C1"} 1234
 *
 * A builder: a family's HELP and TYPE lines, then its samples; labels as
 * NULL-terminated arrays of name, value pairs.  Label values are escaped
 * (backslash, double quote, newline) and made valid UTF-8 (a byte that is
 * not is written as U+FFFD), HELP texts escaped (backslash, newline).
 * Microsecond values are written as exact decimal seconds ("0.000250"),
 * without a trip through floating point.  No timestamps.  Pure: no clock,
 * no files. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum ExpositionType {
        EXPOSITION_COUNTER,
        EXPOSITION_GAUGE,
        EXPOSITION_HISTOGRAM,
        _EXPOSITION_TYPE_MAX,
} ExpositionType;

typedef struct Exposition {
        FILE *f;                     /* an open_memstream() over buf */
        char *buf;
        size_t size;
        int error;                   /* the first failure: -ENOMEM or -EINVAL (a bad name) */
        const char *family;          /* announced, its HELP and TYPE not written yet */
        const char *family_help;
        ExpositionType family_type;
} Exposition;

#define EXPOSITION_NULL { .f = NULL, .buf = NULL, .size = 0, .error = 0, .family = NULL }

/* Starts an empty exposition.  Returns 0 or -ENOMEM. */
int exposition_init(Exposition *x);

/* Frees what x holds (an unfinished text included). */
void exposition_done(Exposition *x);

/* Ends the text and hands it over (NUL-terminated, its length in
 * *ret_len, which may be NULL); x is then empty.  Returns 0, or the first
 * failure of the builder calls (-ENOMEM, or -EINVAL for a metric or label
 * name outside [a-zA-Z_][a-zA-Z0-9_]*), nothing handed over. */
int exposition_finish(Exposition *x, char **ret, size_t *ret_len);

/* Announces the family name: its HELP and TYPE lines are written before
 * its first sample, so a family without samples leaves no trace.  name and
 * help must live until the next exposition_family() (literals, usually).
 * Every family is announced once, its samples right after it. */
void exposition_family(Exposition *x, const char *name, ExpositionType type, const char *help);

/* One sample of the family name (for a histogram, the family name plus
 * _bucket, _sum or _count).  labels: NULL or { "name", "value", ...,
 * NULL }. */
void exposition_u64(Exposition *x, const char *name, const char *const *labels, uint64_t value);
void exposition_double(Exposition *x, const char *name, const char *const *labels, double value);
/* A number of microseconds (nanoseconds) written as seconds, exactly. */
void exposition_usec(Exposition *x, const char *name, const char *const *labels, uint64_t usec);
void exposition_nsec(Exposition *x, const char *name, const char *const *labels, uint64_t nsec);

/* The same text in the OpenMetrics 1.0 text format (what `idlepolicyctl
 * metrics` prints): a counter's family in its HELP and TYPE lines is named
 * without the "_total" its samples keep, and the text ends with "# EOF".
 * text must be this builder's output.  Returns 0 with a new string in
 * *ret, or -ENOMEM. */
int exposition_to_openmetrics(const char *text, char **ret);

/* Writes s as a label value, escaped, without the quotes, to f.  Returns
 * 0 or -EIO. */
int exposition_escape_label(FILE *f, const char *s);

/* ---- histograms of durations -------------------------------------------- */

#define HISTOGRAM_BOUNDS_MAX 16

typedef struct Histogram {
        unsigned n_bounds;
        uint64_t bound_usec[HISTOGRAM_BOUNDS_MAX];   /* ascending upper bounds ("le") */
        uint64_t count[HISTOGRAM_BOUNDS_MAX + 1];     /* per bucket, not cumulative; the last is +Inf */
        uint64_t n;                                   /* observations */
        uint64_t sum_usec;
} Histogram;

/* Sets up an empty histogram with n (at most HISTOGRAM_BOUNDS_MAX,
 * ascending) upper bounds.  Returns 0 or -EINVAL (h untouched). */
int histogram_init(Histogram *h, const uint64_t *bounds_usec, unsigned n);

/* Counts one duration. */
void histogram_observe(Histogram *h, uint64_t usec);

/* Writes h as the samples of the histogram family name (in seconds):
 * name_bucket{...,le="..."} cumulative up to le="+Inf", name_sum,
 * name_count. */
void exposition_histogram(Exposition *x, const char *name, const char *const *labels, const Histogram *h);
