/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The small helpers shared by the daemon and the CLI.  The system-wide
 * files and the haltpoll parameters are in cpuidle-system.c, the per-CPU
 * sampler in cpuidle-sampler.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cpuidle.h"
#include "cpuidle-internal.h"
#include "fileio.h"

int cpuidle_read_value(int dirfd, const char *path, char *buf, size_t size, ErrorInfo *e) {
        int r = fileio_read_string_at(dirfd, path, buf, size);

        if (r == -ENOENT)
                return r;
        if (r == -EFBIG)
                return errinfo_set(e, -EBADMSG, "%s: value too long", path);
        if (r < 0)
                return errinfo_set(e, r, "%s: %s", path, strerror(-r));
        return 0;
}

/* Returns true for a canonical decimal number: digits only, no sign, no
 * spaces or newline, no leading zero (except "0" itself). */
static bool canonical_decimal(const char *s) {
        size_t n = strspn(s, "0123456789");

        return n > 0 && s[n] == '\0' && (s[0] != '0' || n == 1);
}

int cpuidle_state_lookup(const CpuidleStateInfo *states, unsigned n_states, const char *name_or_index) {
        uint32_t idx;

        for (unsigned i = 0; i < n_states; i++)
                if (strcmp(states[i].name, name_or_index) == 0)
                        return (int) i;
        if (canonical_decimal(name_or_index) && parse_u32(name_or_index, &idx) >= 0 && idx < n_states)
                return (int) idx;
        return -ENOENT;
}

int cpuidle_parse_resume_latency(const char *text, uint32_t *ret) {
        uint32_t v;

        if (strcmp(text, "n/a") == 0 || strcmp(text, "n/a\n") == 0) {
                *ret = CPUIDLE_RESUME_LATENCY_NA;
                return 0;
        }
        if (parse_u32(text, &v) < 0 || v > CPUIDLE_RESUME_LATENCY_MAX)
                return -EINVAL;
        *ret = v;
        return 0;
}

const char *cpuidle_format_resume_latency(uint32_t usec, char buf[static 16]) {
        if (usec == CPUIDLE_RESUME_LATENCY_NA)
                return strcpy(buf, "n/a");
        snprintf(buf, 16, "%" PRIu32, usec);
        return buf;
}
