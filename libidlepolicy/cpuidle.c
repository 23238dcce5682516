/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* System-wide cpuidle files, the haltpoll parameters, and the small helpers
 * shared by the daemon and the CLI.  The per-CPU sampler is in
 * cpuidle-sampler.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cpuidle.h"
#include "cpuidle-internal.h"
#include "fileio.h"

#define CPUIDLE_DIR "sys/devices/system/cpu/cpuidle"
#define HALTPOLL_DIR "sys/module/haltpoll/parameters"

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

/* Splits available_governors ("ladder menu haltpoll \n") into s.
 * Returns 0 or -EBADMSG with e set. */
static int parse_governors(const char *text, CpuidleSystem *s, ErrorInfo *e) {
        const char *path = CPUIDLE_DIR "/available_governors";
        const char *p = text;

        s->n_governors = 0;
        for (;;) {
                p += strspn(p, " \t\n");
                if (*p == '\0')
                        return 0;
                size_t len = strcspn(p, " \t\n");
                if (len >= sizeof(s->governors[0]))
                        return errinfo_set(e, -EBADMSG, "%s: governor name \"%.*s\" too long", path, (int) len, p);
                if (s->n_governors >= CPUIDLE_GOVERNORS_MAX)
                        return errinfo_set(e, -EBADMSG, "%s: more than %u governors", path, CPUIDLE_GOVERNORS_MAX);
                memcpy(s->governors[s->n_governors], p, len);
                s->governors[s->n_governors++][len] = '\0';
                p += len;
        }
}

/* Reads the current governor (current_governor on 5.8+, else
 * current_governor_ro) and the available list.  Returns 0 or a negative
 * errno with e set. */
static int load_governors(int root_fd, CpuidleSystem *s, ErrorInfo *e) {
        char buf[CPUIDLE_GOVERNORS_MAX * 32 + 64];
        int r;

        r = cpuidle_read_value(root_fd, CPUIDLE_DIR "/current_governor", s->governor, sizeof(s->governor), e);
        s->governor_writable = r >= 0;
        if (r == -ENOENT)
                r = cpuidle_read_value(root_fd, CPUIDLE_DIR "/current_governor_ro", s->governor, sizeof(s->governor), e);
        if (r == -ENOENT)
                s->governor[0] = '\0';
        else if (r < 0)
                return r;

        r = cpuidle_read_value(root_fd, CPUIDLE_DIR "/available_governors", buf, sizeof(buf), e);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        return parse_governors(buf, s, e);
}

/* Reads one haltpoll parameter: an unsigned number, or "Y"/"N" when flag is
 * not NULL.  A missing file leaves the value at 0.  Returns 0 or a negative
 * errno with e naming the file. */
static int read_haltpoll_param(int root_fd, const char *name, uint64_t *num, bool *flag, ErrorInfo *e) {
        char path[128], buf[64];
        int r;

        snprintf(path, sizeof(path), HALTPOLL_DIR "/%s", name);
        r = cpuidle_read_value(root_fd, path, buf, sizeof(buf), e);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (flag && (strcmp(buf, "Y") == 0 || strcmp(buf, "N") == 0))
                *flag = strcmp(buf, "Y") == 0;
        else if (flag || parse_u64(buf, num) < 0)
                return errinfo_set(e, -EBADMSG, "%s: invalid value \"%s\"", path, buf);
        return 0;
}

/* Fills h from sys/module/haltpoll/parameters (present = false without it).
 * Returns 0 or a negative errno with e set. */
static int load_haltpoll(int root_fd, HaltpollParams *h, ErrorInfo *e) {
        _cleanup_close_ int fd = fileio_open_at(root_fd, HALTPOLL_DIR);
        int r;

        *h = (HaltpollParams) {};
        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return errinfo_set(e, fd, HALTPOLL_DIR ": %s", strerror(-fd));
        h->present = true;
        r = read_haltpoll_param(root_fd, "guest_halt_poll_ns", &h->poll_ns, NULL, e);
        if (r >= 0)
                r = read_haltpoll_param(root_fd, "guest_halt_poll_grow", &h->grow, NULL, e);
        if (r >= 0)
                r = read_haltpoll_param(root_fd, "guest_halt_poll_grow_start", &h->grow_start, NULL, e);
        if (r >= 0)
                r = read_haltpoll_param(root_fd, "guest_halt_poll_shrink", &h->shrink, NULL, e);
        if (r >= 0)
                r = read_haltpoll_param(root_fd, "guest_halt_poll_allow_shrink", NULL, &h->allow_shrink, e);
        return r;
}

int cpuidle_system_load(int root_fd, CpuidleSystem *ret, ErrorInfo *e) {
        _cleanup_close_ int fd = fileio_open_at(root_fd, CPUIDLE_DIR);
        CpuidleSystem s = {};
        int r;

        if (fd < 0)
                return errinfo_set(e, fd, CPUIDLE_DIR ": %s", strerror(-fd));
        r = cpuidle_read_value(root_fd, CPUIDLE_DIR "/current_driver", s.driver, sizeof(s.driver), e);
        if (r < 0 && r != -ENOENT)
                return r;
        if (r == -ENOENT || strcmp(s.driver, "none") == 0)
                s.driver[0] = '\0';
        r = load_governors(root_fd, &s, e);
        if (r < 0)
                return r;
        r = load_haltpoll(root_fd, &s.haltpoll, e);
        if (r < 0)
                return r;
        *ret = s;
        return 0;
}

bool cpuidle_system_has_governor(const CpuidleSystem *s, const char *name) {
        for (unsigned i = 0; i < s->n_governors; i++)
                if (strcmp(s->governors[i], name) == 0)
                        return true;
        return false;
}

int cpuidle_state_lookup(const CpuidleStateInfo *states, unsigned n_states, const char *name_or_index) {
        uint32_t idx;

        for (unsigned i = 0; i < n_states; i++)
                if (strcmp(states[i].name, name_or_index) == 0)
                        return (int) i;
        if (parse_u32(name_or_index, &idx) >= 0 && idx < n_states)
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
