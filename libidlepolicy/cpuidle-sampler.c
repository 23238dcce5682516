/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-tick cpuidle sampler: an open fd per counter file, re-read with a
 * single pread() each (a sysfs attribute is produced whole by the first read,
 * so a short read is the end of the file).  Nothing is allocated per tick.
 * With a cadence (sampler-cadence.h) partial samples skip the files that
 * cannot have changed or change rarely, carrying their last values over.
 * With an fd budget the files that are read most keep their fds and the
 * others are opened, read and closed at each read (see FdTier in
 * sampler-internal.h).  Which CPUs a read takes under a read budget is
 * sampler-turns.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuidle.h"
#include "cpuidle-internal.h"
#include "sysfs-paths.h"
#include "sampler-internal.h"
#include "fileio.h"
#include "sampler-cadence.h"


/* Every value is read with fileio_pread_once() into one byte less than its
 * buffer: the bounds the sampler has always had. */


static const char *const counter_file[_COUNTER_MAX] = {
        [COUNTER_USAGE] = "usage",
        [COUNTER_TIME] = "time",
        [COUNTER_ABOVE] = "above",
        [COUNTER_BELOW] = "below",
        [COUNTER_REJECTED] = "rejected",
        [COUNTER_DISABLE] = "disable",
};

/* The CPUIDLE_HAS_* bit of each optional counter file; 0 = required. */
static const unsigned counter_flag[_COUNTER_MAX] = {
        [COUNTER_ABOVE] = CPUIDLE_HAS_ABOVE,
        [COUNTER_BELOW] = CPUIDLE_HAS_BELOW,
        [COUNTER_REJECTED] = CPUIDLE_HAS_REJECTED,
        [COUNTER_DISABLE] = CPUIDLE_HAS_DISABLE,
};


static const FdTier counter_tier[_COUNTER_MAX] = {
        [COUNTER_USAGE] = TIER_USAGE,
        [COUNTER_TIME] = TIER_GATED,
        [COUNTER_ABOVE] = TIER_GATED,
        [COUNTER_BELOW] = TIER_GATED,
        [COUNTER_REJECTED] = TIER_SLOW,
        [COUNTER_DISABLE] = TIER_SLOW,
};

/* Counters a partial sample may skip, by CPUIDLE_SAMPLER_* flag. */
#define SLOW_COUNTERS ((1u << COUNTER_REJECTED) | (1u << COUNTER_DISABLE))
#define GATED_COUNTERS ((1u << COUNTER_TIME) | (1u << COUNTER_ABOVE) | (1u << COUNTER_BELOW))



/* Generations are unique in the process, so that snapshots taken by two
 * samplers (the daemon rebuilds its sampler on hotplug) never look alike. */
static uint64_t generation_counter;

static uint64_t next_generation(void) {
        return __atomic_add_fetch(&generation_counter, 1, __ATOMIC_RELAXED);
}

/* Plans how many fds each tier may hold: the tiers in order, each as many
 * as it has files while the budget lasts.  Fds held beyond a tier's new
 * limit are released by budget_trim(). */
static void budget_plan(CpuidleSampler *s) {
        unsigned left = s->budget;

        for (unsigned t = 0; t < _TIER_MAX; t++) {
                s->limit[t] = s->budget == UINT_MAX ? UINT_MAX : s->files[t] < left ? s->files[t] : left;
                if (s->budget != UINT_MAX)
                        left -= s->limit[t];
        }
}

/* Returns true (and counts it) if a file of tier may keep its fd. */
static bool budget_take(CpuidleSampler *s, FdTier tier) {
        if (s->held[tier] >= s->limit[tier])
                return false;
        s->held[tier]++;
        return true;
}

/* Closes *fd if held and gives its place back. */
static void budget_release(CpuidleSampler *s, FdTier tier, int *fd) {
        if (*fd < 0)
                return;
        fileio_closep(fd);
        s->held[tier]--;
}

/* Releases fds of the CPUs from the last one until no tier holds more than
 * its limit. */
static void budget_trim(CpuidleSampler *s) {
        for (unsigned cpu = s->n_cpus; cpu-- > 0;) {
                SamplerCpu *c = &s->cpus[cpu];
                for (unsigned k = 0; k < c->n_states; k++)
                        for (unsigned i = 0; i < _COUNTER_MAX; i++)
                                if (s->held[counter_tier[i]] > s->limit[counter_tier[i]])
                                        budget_release(s, counter_tier[i], &c->fds[k][i]);
                if (s->held[TIER_SLOW] > s->limit[TIER_SLOW])
                        budget_release(s, TIER_SLOW, &c->qos_fd);
        }
}

/* Re-plans after the files of a CPU changed (once the sampler is planned:
 * while it is made, CPUs are opened one by one and nothing is planned). */
static void budget_replan(CpuidleSampler *s) {
        if (!s->planned)
                return;
        budget_plan(s);
        for (unsigned t = 0; t < _TIER_MAX; t++)
                if (s->held[t] > s->limit[t]) {
                        budget_trim(s);
                        break;
                }
}

static void cpu_close(CpuidleSampler *s, SamplerCpu *c) {
        for (unsigned k = 0; k < CPUIDLE_STATES_MAX; k++) {
                for (unsigned i = 0; i < _COUNTER_MAX; i++) {
                        budget_release(s, counter_tier[i], &c->fds[k][i]);
                        if (c->present[k] & (1u << i))
                                s->files[counter_tier[i]]--;
                }
                c->present[k] = 0;
        }
        budget_release(s, TIER_SLOW, &c->qos_fd);
        if (c->has_qos)
                s->files[TIER_SLOW]--;
        c->has_qos = false;
        c->n_states = 0;
        c->online = false;
        memset(c->last, 0, sizeof(c->last));
        c->moved = 0;
        c->has_resume_latency = false;
        c->resume_latency_us = 0;
}

/* Reads a static state file (cpuN/cpuidle/stateK/<name>) into buf.  Returns
 * as cpuidle_read_value(). */
static int read_state_file(int root_fd, const char *dir, const char *name, char *buf, size_t size, ErrorInfo *e) {
        char path[128];

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        return cpuidle_read_value(root_fd, path, buf, size, e);
}

/* Reads a numeric static state file.  A missing file is an error when
 * required, else leaves *ret alone.  Returns 1 if read, 0 if missing, or a
 * negative errno with e set. */
static int read_state_u64(int root_fd, const char *dir, const char *name, bool required, uint64_t *ret, ErrorInfo *e) {
        char buf[32];
        int r = read_state_file(root_fd, dir, name, buf, sizeof(buf), e);

        if (r == -ENOENT && !required)
                return 0;
        if (r == -ENOENT)
                return errinfo_set(e, r, "%s/%s: missing", dir, name);
        if (r < 0)
                return r;
        if (parse_u64(buf, ret) < 0)
                return errinfo_set(e, -EBADMSG, "%s/%s: invalid number \"%s\"", dir, name, buf);
        return 1;
}

/* Reads default_status ("enabled"/"disabled"; missing = enabled).
 * Returns 1 if read, 0 if missing, or a negative errno with e set. */
static int read_default_status(int root_fd, const char *dir, bool *ret, ErrorInfo *e) {
        char buf[32];
        int r = read_state_file(root_fd, dir, "default_status", buf, sizeof(buf), e);

        *ret = true;
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (strcmp(buf, "enabled") != 0 && strcmp(buf, "disabled") != 0)
                return errinfo_set(e, -EBADMSG, "%s/default_status: invalid value \"%s\"", dir, buf);
        *ret = strcmp(buf, "enabled") == 0;
        return 1;
}

/* Reads name, desc, latency, residency, power and default_status of the
 * state in dir.  Returns 0 or a negative errno with e set. */
static int read_state_info(int root_fd, const char *dir, CpuidleStateInfo *info, ErrorInfo *e) {
        int r;

        *info = (CpuidleStateInfo) { .power_mw = UINT32_MAX };
        r = read_state_file(root_fd, dir, "name", info->name, sizeof(info->name), e);
        if (r == -ENOENT)
                return errinfo_set(e, r, "%s/name: missing", dir);
        if (r < 0)
                return r;
        r = read_state_file(root_fd, dir, "desc", info->desc, sizeof(info->desc), e);
        if (r >= 0)
                info->files |= CPUIDLE_HAS_DESC;
        else if (r != -ENOENT)
                return r;
        r = read_state_u64(root_fd, dir, "latency", true, &info->latency_us, e);
        if (r >= 0)
                r = read_state_u64(root_fd, dir, "residency", true, &info->residency_us, e);
        if (r >= 0)
                r = read_state_u64(root_fd, dir, "power", false, &info->power_mw, e);
        if (r > 0)
                info->files |= CPUIDLE_HAS_POWER;
        if (r >= 0)
                r = read_default_status(root_fd, dir, &info->default_enabled, e);
        if (r > 0)
                info->files |= CPUIDLE_HAS_DEFAULT_STATUS;
        return r < 0 ? r : 0;
}

/* Opens the counter files of state k of c, keeping the fds the budget
 * allows, and records the files present in c->present[k] and the optional
 * ones in info->files.  Returns 0 or a negative errno. */
static int open_state_counters(CpuidleSampler *s, SamplerCpu *c, const char *dir, unsigned k,
                               CpuidleStateInfo *info, ErrorInfo *e) {
        char path[128];
        int *fds = c->fds[k];

        for (unsigned i = 0; i < _COUNTER_MAX; i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, counter_file[i]);
                fds[i] = fileio_open_at(s->root_fd, path);
                if (fds[i] == -ENOENT && counter_flag[i] != 0) {
                        fds[i] = -1;            /* optional: older kernels */
                        continue;
                }
                if (fds[i] < 0)
                        return errinfo_set(e, fds[i], "%s: %s%s", path,
                                           fds[i] == -ENOENT ? "missing" : strerror(-fds[i]),
                                           fds[i] == -EMFILE ? " (the sampler keeps one fd per counter file:"
                                                               " raise RLIMIT_NOFILE or set an fd budget)" : "");
                info->files |= counter_flag[i];
                c->present[k] |= 1u << i;
                s->files[counter_tier[i]]++;
                if (!budget_take(s, counter_tier[i]))
                        fileio_closep(&fds[i]);
        }
        return 0;
}

/* Opens pm_qos_resume_latency_us of cpu (optional), keeping the fd if the
 * budget allows.  Returns 0 or a negative errno; path names the file. */
static int open_resume_latency(CpuidleSampler *s, SamplerCpu *c, unsigned cpu, char *path, size_t size) {
        snprintf(path, size, SYSFS_CPU_RESUME_LATENCY_FMT, cpu);
        c->qos_fd = fileio_open_at(s->root_fd, path);
        if (c->qos_fd == -ENOENT) {
                c->qos_fd = -1;
                return 0;
        }
        if (c->qos_fd < 0) {
                int r = c->qos_fd;
                c->qos_fd = -1;
                return r;
        }
        c->has_qos = true;
        s->files[TIER_SLOW]++;
        if (!budget_take(s, TIER_SLOW))
                fileio_closep(&c->qos_fd);
        return 0;
}

/* Returns 1 if the directory dirfd/path exists, 0 if not, or -errno. */
static int dir_exists(int dirfd, const char *path) {
        _cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd >= 0)
                return 1;
        return errno == ENOENT ? 0 : -errno;
}

/* (Re)opens every fd of cpu and re-reads its state table.  A CPU without a
 * cpuidle directory ends up offline with no states.  Returns 0 or a negative
 * errno with e set (the CPU is then retried at the next read). */
static int cpu_open(CpuidleSampler *s, unsigned cpu, ErrorInfo *e) {
        SamplerCpu *c = &s->cpus[cpu];
        char dir[96], path[128];
        int r;

        cpu_close(s, c);
        c->generation = next_generation();
        c->needs_open = true;
        c->full = true;
        for (unsigned k = 0; k < CPUIDLE_STATES_MAX; k++) {
                snprintf(dir, sizeof(dir), SYSFS_CPU_STATE_FMT, cpu, k);
                r = dir_exists(s->root_fd, dir);
                if (r < 0)
                        return errinfo_set(e, r, "%s: %s", dir, strerror(-r));
                if (r == 0)
                        break;
                r = read_state_info(s->root_fd, dir, &c->info[k], e);
                if (r >= 0)
                        r = open_state_counters(s, c, dir, k, &c->info[k], e);
                if (r < 0) {
                        cpu_close(s, c);
                        return r;
                }
                c->n_states = k + 1;
        }
        snprintf(path, sizeof(path), SYSFS_CPU_CPUIDLE_FMT, cpu);
        r = c->n_states > 0 ? 1 : dir_exists(s->root_fd, path);
        if (r > 0) {
                int q = open_resume_latency(s, c, cpu, path, sizeof(path));
                if (q < 0)
                        r = q;
        }
        if (r < 0) {
                cpu_close(s, c);
                return errinfo_set(e, r, "%s: %s", path, strerror(-r));
        }
        c->online = r > 0;
        c->needs_open = false;
        /* per state its directory, six static files and six counters, then
         * the cpuidle directory and the resume latency file */
        c->open_cost = 2 + 13 * c->n_states;
        c->read_cost = 0;
        budget_replan(s);
        return 0;
}

/* Formats an error about a counter file of cpu/state.  Returns error. */
static int counter_error(ErrorInfo *e, int error, unsigned cpu, unsigned state, Counter i, const char *what) {
        return errinfo_set(e, error, SYSFS_CPU_STATE_FILE_FMT ": %s",
                           cpu, state, counter_file[i], what);
}

/* Appends the decimal v at *p (snprintf() was a tenth of a tick spent on
 * paths when a budget leaves most files without an fd). */
static void append_uint(char **p, unsigned v) {
        char digits[16];
        unsigned n = 0;

        do
                digits[n++] = (char) ('0' + v % 10);
        while ((v /= 10) > 0);
        while (n > 0)
                *(*p)++ = digits[--n];
}

static void append_str(char **p, const char *str) {
        size_t n = strlen(str);

        memcpy(*p, str, n);
        *p += n;
}

/* Writes cpuN/<a>[K/<b>] (relative to the CPU directory) into buf, which
 * holds SUBPATH_MAX bytes: a, b are short constants.  Returns buf. */
#define SUBPATH_MAX 96
static char *cpu_subpath(char buf[static SUBPATH_MAX], unsigned cpu, const char *a, unsigned k, const char *b) {
        char *p = buf;

        append_str(&p, "cpu");
        append_uint(&p, cpu);
        *p++ = '/';
        append_str(&p, a);
        if (b) {
                append_uint(&p, k);
                *p++ = '/';
                append_str(&p, b);
        }
        *p = '\0';
        return buf;
}

/* Reads the file behind *fd (subpath relative to the CPU directory) into
 * buf as fileio_pread_once().  Without an fd the file is opened, and the
 * fd is kept if the budget of tier allows, else closed after the read.
 * Returns as fileio_pread_once(), or openat()'s negative errno. */
static int pread_file(CpuidleSampler *s, FdTier tier, int *fd, const char *subpath, char *buf, size_t size) {
        _cleanup_close_ int tmp = -1;
        int r;

        if (*fd >= 0)
                return fileio_pread_once(*fd, buf, size);
        tmp = fileio_open_at(s->cpu_dir_fd, subpath);
        if (tmp < 0)
                return tmp;
        r = fileio_pread_once(tmp, buf, size);
        if (r >= 0 && budget_take(s, tier)) {
                *fd = tmp;      /* handed over */
                tmp = -1;
        }
        return r;
}

/* Reads counter i of state k of cpu.  Returns 0; -ENODEV/-ENOENT for a
 * stale fd or a vanished file (e untouched); -EBADMSG for garbage; another
 * negative errno.  e is set in the last two cases. */
static int read_counter(CpuidleSampler *s, unsigned cpu, unsigned state, Counter i, uint64_t *ret, ErrorInfo *e) {
        char buf[32], path[SUBPATH_MAX] = "";
        int r;

        if (s->cpus[cpu].fds[state][i] < 0)
                cpu_subpath(path, cpu, SYSFS_CPU_REL_STATE, state, counter_file[i]);
        r = pread_file(s, counter_tier[i], &s->cpus[cpu].fds[state][i], path, buf, sizeof(buf) - 1);

        if (r == -ENODEV || r == -ENOENT)
                return r;
        if (r == -EFBIG)
                return counter_error(e, -EBADMSG, cpu, state, i, "value too long");
        if (r < 0)
                return counter_error(e, r, cpu, state, i, strerror(-r));
        if (parse_u64(buf, ret) < 0 || (i == COUNTER_DISABLE && *ret > 1)) {
                char what[64];
                snprintf(what, sizeof(what), "invalid number \"%s\"", buf);
                return counter_error(e, -EBADMSG, cpu, state, i, what);
        }
        return 0;
}

/* Returns the bits (1 << Counter) of the counters of a state that a sample
 * skipping skip (CPUIDLE_SAMPLER_*, 0 in a full sample) leaves out; moved:
 * the state's usage moved at this sample or at the previous one. */
static unsigned counters_skipped(unsigned skip, bool moved) {
        unsigned mask = 0;

        if (skip & CPUIDLE_SAMPLER_SLOW_TIER)
                mask |= SLOW_COUNTERS;
        if ((skip & CPUIDLE_SAMPLER_USAGE_GATE) && !moved)
                mask |= GATED_COUNTERS;
        return mask;
}

/* Reads the counters of state k that this sample does not skip; the others
 * keep their last values.  usage comes first: it decides the gate.  Returns
 * 0 or a negative errno. */
static int read_state_counters(CpuidleSampler *s, SamplerCpu *c, unsigned cpu, unsigned k,
                               CpuidleStateCounters *out, ErrorInfo *e) {
        const CpuidleStateCounters *last = &c->last[k];
        uint64_t v[_COUNTER_MAX] = {
                [COUNTER_USAGE] = last->usage, [COUNTER_TIME] = last->time_us,
                [COUNTER_ABOVE] = last->above, [COUNTER_BELOW] = last->below,
                [COUNTER_REJECTED] = last->rejected, [COUNTER_DISABLE] = last->disabled,
        };
        unsigned skipped = 0;
        bool moved = false;
        int r;

        for (unsigned i = 0; i < _COUNTER_MAX; i++) {
                if (!(c->present[k] & (1u << i)) || (skipped & (1u << i)))
                        continue;
                r = read_counter(s, cpu, k, (Counter) i, &v[i], e);
                if (r < 0)
                        return r;
                s->files_read++;
                if (i == COUNTER_USAGE) {
                        moved = v[i] != last->usage;
                        skipped = counters_skipped(c->full ? 0 : s->skip, moved || (c->moved & (1u << k)));
                }
        }
        c->moved = moved ? c->moved | (1u << k) : c->moved & ~(1u << k);
        c->last[k] = *out = (CpuidleStateCounters) {
                .usage = v[COUNTER_USAGE], .time_us = v[COUNTER_TIME],
                .above = v[COUNTER_ABOVE], .below = v[COUNTER_BELOW],
                .rejected = v[COUNTER_REJECTED], .disabled = v[COUNTER_DISABLE] != 0,
        };
        return 0;
}

/* Reads pm_qos_resume_latency_us of cpu unless this sample skips it.
 * Returns 0 or a negative errno (-ENODEV/-ENOENT for a stale fd). */
static int read_resume_latency(CpuidleSampler *s, SamplerCpu *c, unsigned cpu, ErrorInfo *e) {
        uint32_t usec = 0;
        char buf[32], path[SUBPATH_MAX] = "";
        int r;

        if (!c->has_qos || (!c->full && (s->skip & CPUIDLE_SAMPLER_SLOW_TIER)))
                return 0;
        if (c->qos_fd < 0)
                cpu_subpath(path, cpu, SYSFS_CPU_REL_RESUME_LATENCY, 0, NULL);
        r = pread_file(s, TIER_SLOW, &c->qos_fd, path, buf, sizeof(buf) - 1);
        if (r == -ENODEV || r == -ENOENT)
                return r;
        if (r >= 0 && cpuidle_parse_resume_latency(buf, &usec) < 0)
                r = -EBADMSG;
        if (r < 0)
                return errinfo_set(e, r == -EFBIG ? -EBADMSG : r,
                                   SYSFS_CPU_RESUME_LATENCY_FMT ": %s",
                                   cpu, r == -EBADMSG || r == -EFBIG ? "invalid value" : strerror(-r));
        s->files_read++;
        c->resume_latency_us = usec;
        c->has_resume_latency = true;
        return 0;
}

/* Fills out from the open fds of cpu.  Returns 0 or a negative errno. */
static int cpu_read(CpuidleSampler *s, unsigned cpu, CpuidleCpuSample *out, ErrorInfo *e) {
        SamplerCpu *c = &s->cpus[cpu];
        int r;

        out->online = c->online;
        out->n_states = c->n_states;
        out->generation = c->generation;
        out->stale_reopens = c->stale_reopens;
        r = read_resume_latency(s, c, cpu, e);
        for (unsigned k = 0; r >= 0 && k < c->n_states; k++)
                r = read_state_counters(s, c, cpu, k, &out->states[k], e);
        out->has_resume_latency = c->has_resume_latency;
        out->resume_latency_us = c->resume_latency_us;
        if (r >= 0)
                c->full = false;
        return r;
}

/* The sum of cpu's usage counters as last read (0: never read). */
static uint64_t usage_sum(const SamplerCpu *c) {
        uint64_t sum = 0;

        for (unsigned k = 0; k < c->n_states; k++)
                sum += c->last[k].usage;
        return sum;
}

/* Samples one CPU, reopening its fds first if needed or once when they
 * turn out stale.  A reopen asked for (a governor switch) that finds the
 * usage counters started again below what they were also counts as stale:
 * the kernel registered the CPU's cpuidle device anew (it went offline and
 * back) after the switch, before this read.  Returns 0 or a negative errno. */
static int sampler_cpu_sample(CpuidleSampler *s, unsigned cpu, CpuidleCpuSample *out, ErrorInfo *e) {
        SamplerCpu *c = &s->cpus[cpu];
        uint64_t before = 0;
        int r;

        if (!c->wanted) {
                *out = (CpuidleCpuSample) { .generation = c->generation, .stale_reopens = c->stale_reopens };
                return 0;
        }
        if (c->needs_open) {
                before = usage_sum(c);
                r = cpu_open(s, cpu, e);
                if (r < 0)
                        return r;
        }
        r = cpu_read(s, cpu, out, e);
        if (r >= 0 && usage_sum(c) < before) {
                out->stale_reopens = ++c->stale_reopens;
                return 0;
        }
        if (r != -ENODEV && r != -ENOENT)
                return r;
        r = cpu_open(s, cpu, e);
        if (r < 0)
                return r;
        c->stale_reopens++;
        r = cpu_read(s, cpu, out, e);
        if (r == -ENODEV || r == -ENOENT)
                return errinfo_set(e, r, SYSFS_CPU_CPUIDLE_FMT ": files vanished while reading", cpu);
        return r;
}

/* (Re)opens the governor file: current_governor, else current_governor_ro.
 * Returns 0 (governor_fd stays -1 if neither exists) or a negative errno. */
static int open_governor(CpuidleSampler *s) {
        fileio_closep(&s->governor_fd);
        s->governor_ro = false;
        s->governor_fd = fileio_open_at(s->root_fd, SYSFS_CPUIDLE_GOVERNOR);
        if (s->governor_fd == -ENOENT) {
                s->governor_ro = true;
                s->governor_fd = fileio_open_at(s->root_fd, SYSFS_CPUIDLE_GOVERNOR_RO);
        }
        if (s->governor_fd >= 0 || s->governor_fd == -ENOENT)
                return 0;
        return s->governor_fd;
}

/* Reads the governor into buf ("" if there is no governor file), reopening
 * a stale fd once.  Returns 0 or a negative errno. */
static int read_governor(CpuidleSampler *s, char *buf, size_t size) {
        int r = -ENOENT;

        if (s->governor_fd >= 0)
                r = fileio_pread_once(s->governor_fd, buf, size - 1);
        if (r != -ENODEV && r != -ENOENT)
                return r;
        r = open_governor(s);
        buf[0] = '\0';
        if (r < 0 || s->governor_fd < 0) {
                s->governor_fd = -1;
                return r;
        }
        return fileio_pread_once(s->governor_fd, buf, size - 1);
}

/* Re-reads the governor; if it changed, every CPU is reopened at this read.
 * Returns 0 or a negative errno with e set. */
static int check_governor(CpuidleSampler *s, ErrorInfo *e) {
        char buf[sizeof(s->governor)];
        int r = read_governor(s, buf, sizeof(buf));

        if (r < 0)
                return errinfo_set(e, r == -EFBIG ? -EBADMSG : r, "%s: %s",
                                   s->governor_ro ? SYSFS_CPUIDLE_GOVERNOR_RO : SYSFS_CPUIDLE_GOVERNOR, r == -EFBIG ? "value too long" : strerror(-r));
        if (strcmp(buf, s->governor) != 0) {
                cpuidle_sampler_invalidate(s);
                memcpy(s->governor, buf, sizeof(buf));
        }
        return 0;
}

/* Returns what this sample skips (CPUIDLE_SAMPLER_*, 0 = a full sample)
 * and advances the cadence. */
static unsigned cadence_next(CpuidleSampler *s) {
        if (s->cadence == 0 || s->full_every <= 1)
                return 0;
        if (s->full_next || s->partial_left == 0) {
                s->full_next = false;
                s->partial_left = s->full_every - 1;
                return 0;
        }
        s->partial_left--;
        return s->cadence;
}

int cpuidle_sampler_read(CpuidleSampler *s, CpuidleCpuSample *out, ErrorInfo *e) {
        int r;

        s->files_read = 0;
        if (s->read_budget == 0)
                s->skip = cadence_next(s);
        else if (s->full_next) {
                s->full_next = false;
                sampler_mark_full(s);
        }
        r = check_governor(s, e);
        s->files_read += s->governor_fd >= 0;
        if (r >= 0 && s->read_budget > 0)
                r = sampler_read_turn(s, sampler_cpu_sample, out, e);
        for (unsigned cpu = 0; r >= 0 && s->read_budget == 0 && cpu < s->n_cpus; cpu++) {
                r = sampler_cpu_sample(s, cpu, &out[cpu], e);
                out[cpu].fresh = true;
        }
        if (r < 0)
                s->full_next = true;    /* the carried-over values may be half updated */
        return r;
}

int cpuidle_sampler_set_cadence(CpuidleSampler *s, unsigned flags, unsigned full_every) {
        if ((flags & ~(unsigned) (CPUIDLE_SAMPLER_SLOW_TIER | CPUIDLE_SAMPLER_USAGE_GATE)) || full_every < 1)
                return -EINVAL;
        s->cadence = flags;
        s->full_every = full_every;
        s->full_next = true;
        return 0;
}

void cpuidle_sampler_request_full(CpuidleSampler *s) {
        s->full_next = true;
}

unsigned cpuidle_sampler_files_read(const CpuidleSampler *s) {
        return s->files_read;
}

void cpuidle_sampler_invalidate(CpuidleSampler *s) {
        for (unsigned cpu = 0; cpu < s->n_cpus; cpu++)
                if (s->cpus[cpu].wanted)
                        s->cpus[cpu].needs_open = true;
}

CpuidleSampler *cpuidle_sampler_free(CpuidleSampler *s) {
        if (!s)
                return NULL;
        for (unsigned cpu = 0; cpu < s->n_cpus; cpu++)
                cpu_close(s, &s->cpus[cpu]);
        fileio_closep(&s->governor_fd);
        fileio_closep(&s->cpu_dir_fd);
        if (s->root_fd >= 0)
                close(s->root_fd);
        free(s);
        return NULL;
}

void cpuidle_sampler_freep(CpuidleSampler **s) {
        cpuidle_sampler_free(*s);
}

/* Allocates a sampler with every fd closed that may hold budget counter
 * fds.  Returns it or NULL. */
static CpuidleSampler *sampler_alloc(unsigned n_cpus, unsigned budget) {
        CpuidleSampler *s = calloc(1, sizeof(CpuidleSampler) + (size_t) n_cpus * sizeof(SamplerCpu));

        if (!s)
                return NULL;
        s->root_fd = AT_FDCWD;
        s->governor_fd = -1;
        s->cpu_dir_fd = -1;
        s->full_every = 1;
        s->full_next = true;
        s->n_cpus = n_cpus;
        s->budget = budget;
        budget_plan(s);         /* no limit, or none held until planned */
        for (unsigned cpu = 0; cpu < n_cpus; cpu++) {
                SamplerCpu *c = &s->cpus[cpu];
                c->qos_fd = -1;
                for (unsigned k = 0; k < CPUIDLE_STATES_MAX; k++)
                        for (unsigned i = 0; i < _COUNTER_MAX; i++)
                                c->fds[k][i] = -1;
        }
        return s;
}

int cpuidle_sampler_new(int root_fd, const Topology *t, CpuidleSampler **ret, ErrorInfo *e) {
        return cpuidle_sampler_new_budget(root_fd, t, CPUIDLE_SAMPLER_FDS_UNLIMITED, ret, e);
}

int cpuidle_sampler_new_budget(int root_fd, const Topology *t, unsigned max_fds, CpuidleSampler **ret, ErrorInfo *e) {
        unsigned fixed = 2 + (root_fd >= 0);    /* the governor file, the CPU directory, our root dup */
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = NULL;
        int r;

        s = sampler_alloc(t->n_cpus, max_fds == CPUIDLE_SAMPLER_FDS_UNLIMITED ? UINT_MAX :
                                     max_fds > fixed ? max_fds - fixed : 0);
        if (!s)
                return -ENOMEM;
        if (root_fd >= 0) {
                s->root_fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
                if (s->root_fd < 0)
                        return errinfo_set(e, -errno, "duplicating the root fd: %s", strerror(errno));
        }
        /* Files without an fd are opened relative to the CPU directory: a
         * path walk of 4 components instead of 7. */
        if (max_fds != CPUIDLE_SAMPLER_FDS_UNLIMITED) {
                s->cpu_dir_fd = openat(s->root_fd, SYSFS_CPU_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (s->cpu_dir_fd < 0)
                        return errinfo_set(e, -errno, SYSFS_CPU_DIR ": %s", strerror(errno));
        }
        r = check_governor(s, e);
        if (r < 0)
                return r;
        for (unsigned cpu = 0; cpu < t->n_cpus; cpu++) {
                s->cpus[cpu].wanted = t->cpus[cpu].present && t->cpus[cpu].online;
                if (!s->cpus[cpu].wanted)
                        continue;
                r = cpu_open(s, cpu, e);
                if (r < 0)
                        return r;
        }
        /* With a budget every file was only opened to see that it is there;
         * the fds are taken at the reads, in the tiers' order. */
        s->planned = true;
        budget_plan(s);
        *ret = s;
        s = NULL;
        return 0;
}

unsigned cpuidle_sampler_n_cpus(const CpuidleSampler *s) {
        return s->n_cpus;
}

const CpuidleStateInfo *cpuidle_sampler_states(const CpuidleSampler *s, unsigned cpu, unsigned *ret_n) {
        if (cpu >= s->n_cpus || !s->cpus[cpu].online || s->cpus[cpu].n_states == 0) {
                *ret_n = 0;
                return NULL;
        }
        *ret_n = s->cpus[cpu].n_states;
        return s->cpus[cpu].info;
}

const char *cpuidle_sampler_governor(const CpuidleSampler *s) {
        return s->governor;
}

unsigned cpuidle_sampler_fds(const CpuidleSampler *s) {
        unsigned n = (s->root_fd >= 0) + (s->governor_fd >= 0) + (s->cpu_dir_fd >= 0);

        for (unsigned t = 0; t < _TIER_MAX; t++)
                n += s->held[t];
        return n;
}
