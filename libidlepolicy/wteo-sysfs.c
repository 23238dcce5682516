/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The wteo governor's per-CPU files: strict parsing of what the kernel
 * shows (wteo-sysfs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "sysfs-paths.h"
#include "wteo-sysfs.h"

/* Parses one number of at most 4 digits at *p (no sign, no leading zeros
 * but "0").  Returns 0 and advances *p, or -EBADMSG. */
static int parse_weight(const char **p, uint32_t *ret) {
        const char *s = *p;
        uint32_t v = 0;
        size_t len = strspn(s, "0123456789");

        if (len == 0 || len > 4 || (s[0] == '0' && len > 1))
                return -EBADMSG;
        for (size_t i = 0; i < len; i++)
                v = v * 10 + (uint32_t) (s[i] - '0');
        *p = s + len;
        *ret = v;
        return 0;
}

/* Parses line (NUL-terminated, no newline) as row s.  Returns 0 or
 * -EBADMSG with e set. */
static int parse_row(const char *line, unsigned s, unsigned n, WteoMatrix *m, ErrorInfo *e) {
        const char *p = line;
        uint32_t sum = 0;
        unsigned j = 0;

        for (;;) {
                uint32_t v;

                if (parse_weight(&p, &v) < 0)
                        return errinfo_set(e, -EBADMSG, "line %u: not a list of numbers of 0..%u separated by spaces",
                                           s + 1, WTEO_ONE);
                if (v > WTEO_ONE)
                        return errinfo_set(e, -EBADMSG, "line %u: %u is above %u", s + 1, v, WTEO_ONE);
                if (j < WTEO_STATES_MAX)
                        m->w[s][j] = (uint16_t) v;
                j++;
                sum += v;
                if (*p == '\0')
                        break;
                if (*p != ' ')
                        return errinfo_set(e, -EBADMSG, "line %u: not a list of numbers of 0..%u separated by spaces",
                                           s + 1, WTEO_ONE);
                p++;
        }
        if (j != n)
                return errinfo_set(e, -EBADMSG, "line %u: %u numbers, expected %u", s + 1, j, n);
        if (sum != WTEO_ONE)
                return errinfo_set(e, -EBADMSG, "line %u: sums to %u, not %u", s + 1, sum, WTEO_ONE);
        return 0;
}

int wteo_matrix_parse(const char *text, unsigned n, WteoMatrix *ret, ErrorInfo *e) {
        char line[WTEO_STATES_MAX * 6 + 2];
        WteoMatrix m = { .n = n };
        const char *p = text;
        unsigned s = 0;

        if (n < 1 || n > WTEO_STATES_MAX)
                return errinfo_set(e, -EBADMSG, "%u states: not 1..%u", n, WTEO_STATES_MAX);
        while (*p) {
                size_t len = strcspn(p, "\n");
                int r;

                if (s >= n)
                        return errinfo_set(e, -EBADMSG, "more than %u lines", n);
                if (len >= sizeof(line))
                        return errinfo_set(e, -EBADMSG, "line %u: too long", s + 1);
                memcpy(line, p, len);
                line[len] = '\0';
                r = parse_row(line, s++, n, &m, e);
                if (r < 0)
                        return r;
                p += len;
                if (*p == '\n')
                        p++;
        }
        if (s != n)
                return errinfo_set(e, -EBADMSG, "%u lines, expected %u", s, n);
        *ret = m;
        return 0;
}

int wteo_matrix_read(int root_fd, unsigned cpu, unsigned n, WteoMatrix *ret, ErrorInfo *e) {
        _cleanup_free_ char *text = NULL;
        ErrorInfo le = {};
        char path[96];
        int r;

        snprintf(path, sizeof(path), SYSFS_CPU_WTEO_MATRIX_FMT, cpu);
        r = fileio_read_regular_at(root_fd, path, WTEO_MATRIX_FILE_MAX, 0, &text, NULL);
        if (r == -ENOENT)
                return r;
        if (r < 0)
                return errinfo_set(e, r == -EFBIG || r == -EBADFD ? -EBADMSG : r, "%s: %s", path, fileio_error_reason(r));
        r = wteo_matrix_parse(text, n, ret, &le);
        if (r < 0)
                return errinfo_set(e, r, "%s: %s", path, le.message);
        return 0;
}

int wteo_tolerance_parse(const char *text, uint32_t *ret) {
        const char *p = text;
        uint32_t v;

        if (parse_weight(&p, &v) < 0 || (*p == '\n' ? p[1] : *p) != '\0' || v > WTEO_ONE)
                return -EBADMSG;
        *ret = v;
        return 0;
}

int wteo_tolerance_read(int root_fd, unsigned cpu, uint32_t *ret, ErrorInfo *e) {
        char path[96], buf[32];
        int r;

        snprintf(path, sizeof(path), SYSFS_CPU_WTEO_TOLERANCE_FMT, cpu);
        r = fileio_read_string_at(root_fd, path, buf, sizeof(buf));
        if (r == -ENOENT)
                return r;
        if (r < 0)
                return errinfo_set(e, r == -EFBIG ? -EBADMSG : r, "%s: %s", path, strerror(-r));
        if (wteo_tolerance_parse(buf, ret) < 0)
                return errinfo_set(e, -EBADMSG, "%s: not a number of 0..%u", path, WTEO_ONE);
        return 0;
}
