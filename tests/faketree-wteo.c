/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The wteo governor of a fake tree (faketree.h): its module parameters, and
 * the per-CPU cpuN/wteo group the kernel's enable()/disable() make and
 * remove as the governor comes and goes.  A fake tree is a plain
 * directory that cannot react to a write of current_governor by itself:
 * faketree_wteo_sync() does what the kernel would, called by
 * faketree_create(), faketree_switch_governor() and, for writes made by
 * someone else (the daemon), by "make-faketree DIR --follow-governor",
 * which calls it every few milliseconds. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset.h"
#include "faketree.h"
#include "fileio.h"
#include "wteo-core.h"

#define CPU_DIR "sys/devices/system/cpu"
#define WTEO_PARAMS "sys/module/wteo/parameters"

int faketree_wteo_create(int root_fd) {
        int r = faketree_write(root_fd, WTEO_PARAMS "/learn_shift", "%u\n", WTEO_LEARN_SHIFT_DEFAULT);

        if (r >= 0)
                r = faketree_write(root_fd, WTEO_PARAMS "/age_shift", "%u\n", WTEO_AGE_SHIFT_DEFAULT);
        if (r >= 0)
                r = faketree_write(root_fd, WTEO_PARAMS "/explore_shift", "%u\n", WTEO_EXPLORE_SHIFT_DEFAULT);
        return r;
}

static bool exists(int root_fd, const char *path) {
        return faccessat(root_fd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int faketree_wteo_write_matrix(int root_fd, unsigned cpu, const char *text) {
        char path[128];

        snprintf(path, sizeof(path), CPU_DIR "/cpu%u/wteo/matrix", cpu);
        return faketree_write(root_fd, path, "%s", text);
}

/* Writes the prior of an n-state matrix to path. */
static int write_prior(int root_fd, const char *path, unsigned n) {
        char text[WTEO_STATES_MAX * WTEO_STATES_MAX * 6 + 1] = "";
        size_t len = 0;

        for (unsigned s = 0; s < n; s++)
                for (unsigned j = 0; j < n; j++)
                        len += (size_t) snprintf(text + len, sizeof(text) - len, "%u%c", wteo_prior(n, s, j),
                                                 j + 1 < n ? ' ' : '\n');
        return faketree_write(root_fd, path, "%s", text);
}

/* Makes cpuN/wteo as the governor's enable() does: the tolerance the CPU
 * had (kept in FAKETREE_WTEO_STORE/cpuN across a switch; the default the
 * first time) and the prior; built aside, then renamed in place. */
static int wteo_enable(int root_fd, unsigned cpu) {
        char dir[128], new[128], path[160], kept[32] = "";
        unsigned n = faketree_count_states(root_fd, cpu);
        int r;

        if (n == 0)
                return 0;
        snprintf(dir, sizeof(dir), CPU_DIR "/cpu%u/wteo", cpu);
        snprintf(new, sizeof(new), CPU_DIR "/cpu%u/wteo.new", cpu);
        snprintf(path, sizeof(path), FAKETREE_WTEO_STORE "/cpu%u", cpu);
        if (fileio_read_string_at(root_fd, path, kept, sizeof(kept)) < 0)
                snprintf(kept, sizeof(kept), "%u", WTEO_TOLERANCE_DEFAULT);
        r = faketree_rm_rf(root_fd, new);
        snprintf(path, sizeof(path), "%s/tolerance", new);
        if (r >= 0)
                r = faketree_write(root_fd, path, "%s\n", kept);
        snprintf(path, sizeof(path), "%s/matrix", new);
        if (r >= 0)
                r = write_prior(root_fd, path, n > WTEO_STATES_MAX ? WTEO_STATES_MAX : n);
        if (r >= 0 && renameat(root_fd, new, root_fd, dir) < 0)
                r = -errno;
        return r < 0 ? r : 1;
}

/* Removes cpuN/wteo as disable() does, keeping the tolerance for the next
 * enable() (the kernel keeps it in the CPU's data). */
static int wteo_disable(int root_fd, unsigned cpu) {
        char dir[128], path[160], tolerance[32];
        int r;

        snprintf(dir, sizeof(dir), CPU_DIR "/cpu%u/wteo", cpu);
        snprintf(path, sizeof(path), "%s/tolerance", dir);
        if (fileio_read_string_at(root_fd, path, tolerance, sizeof(tolerance)) >= 0) {
                snprintf(path, sizeof(path), FAKETREE_WTEO_STORE "/cpu%u", cpu);
                r = faketree_write(root_fd, path, "%s\n", tolerance);
                if (r < 0)
                        return r;
        }
        r = faketree_rm_rf(root_fd, dir);
        return r < 0 ? r : 1;
}

int faketree_wteo_sync(int root_fd) {
        char governor[64] = "", dir[128];
        CpuSet online;
        int r, changed = 0;
        bool wteo;

        r = fileio_read_string_at(root_fd, CPU_DIR "/online", dir, sizeof(dir));
        if (r >= 0)
                r = cpuset_parse(dir, &online, NULL);
        if (r < 0)
                return r;
        (void) fileio_read_string_at(root_fd, CPU_DIR "/cpuidle/current_governor", governor, sizeof(governor));
        wteo = strcmp(governor, "wteo") == 0 && exists(root_fd, WTEO_PARAMS);
        CPUSET_FOREACH(c, &online) {
                snprintf(dir, sizeof(dir), CPU_DIR "/cpu%d/wteo", c);
                if (wteo == exists(root_fd, dir))
                        continue;
                r = wteo ? wteo_enable(root_fd, (unsigned) c) : wteo_disable(root_fd, (unsigned) c);
                if (r < 0)
                        return r;
                changed += r;
        }
        return changed;
}
