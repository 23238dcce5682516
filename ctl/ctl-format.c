/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-format.h"
#include "fileio.h"

int ctl_parse_latency(const char *s, uint32_t *ret) {
        if (strcmp(s, "n/a") == 0) {
                *ret = UINT32_MAX;
                return 0;
        }
        return parse_u32(s, ret);
}

int ctl_parse_cpus(const char *s, bool *ret_all, CpuSet *ret, ErrorInfo *e) {
        CpuSet set;
        int r;

        if (!s || strcmp(s, "all") == 0) {
                *ret_all = true;
                return 0;
        }
        r = cpuset_parse(s, &set, e);
        if (r < 0)
                return r;
        if (cpuset_count(&set) == 0)
                return errinfo_set(e, -EINVAL, "empty CPU list");
        *ret_all = false;
        *ret = set;
        return 0;
}

int ctl_parse_duration(const char *s, uint64_t *ret_usec) {
        static const struct {
                const char *suffix;
                double usec;
        } units[] = { { "us", 1 }, { "ms", 1e3 }, { "s", 1e6 }, { "min", 60e6 }, { "h", 3600e6 }, { "", 1e6 } };
        char *end;
        double v;

        if (!s || !(s[0] >= '0' && s[0] <= '9'))
                return -EINVAL;
        errno = 0;
        v = strtod(s, &end);
        if (errno != 0 || !isfinite(v))
                return -EINVAL;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
                double usec = v * units[i].usec;

                if (strcmp(end, units[i].suffix) != 0)
                        continue;
                if (usec < 1)
                        return -EINVAL;
                if (usec > 86400e6)
                        return -ERANGE;
                *ret_usec = (uint64_t) (usec + 0.5);
                return 0;
        }
        return -EINVAL;
}

int ctl_parse_state_action(const char *s, bool *ret_disable) {
        if (strcmp(s, "enable") == 0)
                *ret_disable = false;
        else if (strcmp(s, "disable") == 0)
                *ret_disable = true;
        else
                return -EINVAL;
        return 0;
}

double ctl_pct(uint64_t part, uint64_t whole) {
        return whole > 0 ? 100.0 * (double) part / (double) whole : -1;
}

bool ctl_value_known(double value) {
        return isfinite(value) && value >= 0;
}

const char *ctl_format_latency(uint32_t usec, char *buf, size_t size) {
        if (usec == 0)
                snprintf(buf, size, "no constraint");
        else if (usec == UINT32_MAX)
                snprintf(buf, size, "n/a");
        else
                snprintf(buf, size, "%" PRIu32 "us", usec);
        return buf;
}

/* Formats value/unit with at most one decimal, dropping ".0". */
static void format_scaled(uint64_t value, uint64_t unit, const char *suffix, char *buf, size_t size) {
        uint64_t tenths = (value % unit) * 10 / unit;

        if (tenths == 0)
                snprintf(buf, size, "%" PRIu64 "%s", value / unit, suffix);
        else
                snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%s", value / unit, tenths, suffix);
}

const char *ctl_format_usec(uint64_t usec, char *buf, size_t size) {
        if (usec >= 60 * 1000000ULL && usec % (60 * 1000000ULL) == 0)
                format_scaled(usec, 60 * 1000000ULL, "min", buf, size);
        else if (usec >= 1000000ULL)
                format_scaled(usec, 1000000ULL, "s", buf, size);
        else if (usec >= 1000ULL)
                format_scaled(usec, 1000ULL, "ms", buf, size);
        else
                snprintf(buf, size, "%" PRIu64 "us", usec);
        return buf;
}

const char *ctl_format_total(uint64_t usec, char *buf, size_t size) {
        if (usec >= 3600 * 1000000ULL)
                format_scaled(usec, 3600 * 1000000ULL, "h", buf, size);
        else if (usec >= 60 * 1000000ULL)
                format_scaled(usec, 60 * 1000000ULL, "min", buf, size);
        else
                ctl_format_usec(usec, buf, size);
        return buf;
}

/* Formats a measurement with one decimal and unit, or "-" when unknown. */
static const char *format_measurement(double value, const char *unit, char *buf, size_t size) {
        if (!ctl_value_known(value))
                snprintf(buf, size, "-");
        else
                snprintf(buf, size, "%.1f%s", value, unit);
        return buf;
}

const char *ctl_format_percent(double value, char *buf, size_t size) {
        return format_measurement(value, "%", buf, size);
}

const char *ctl_format_rate(double value, char *buf, size_t size) {
        return format_measurement(value, "", buf, size);
}

char *ctl_text_sanitize(const char *in, char *buf, size_t size) {
        size_t n = 0;

        for (; size > 0 && in[n] && n < size - 1; n++)
                buf[n] = in[n] >= 0x20 && in[n] < 0x7f ? in[n] : '?';
        if (size > 0)
                buf[n] = '\0';
        return buf;
}

/* At most this many pids are listed in a cell. */
#define PIDS_LISTED 3

const char *ctl_format_pids(const uint32_t *pids, size_t n, char *buf, size_t size) {
        size_t len = 0;

        snprintf(buf, size, "-");
        for (size_t i = 0; i < n && i < PIDS_LISTED && len < size; i++)
                len += (size_t) snprintf(buf + len, size - len, "%s%" PRIu32, i > 0 ? "," : "", pids[i]);
        if (n > PIDS_LISTED && len < size)
                snprintf(buf + len, size - len, ",... (%zu)", n);
        return buf;
}
