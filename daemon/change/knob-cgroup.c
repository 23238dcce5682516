/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "knob-cgroup.h"
#include "log.h"

#define CPUSET_FILE "/cpuset.cpus"

bool knob_path_is_normal(const char *p) {
        size_t n = strlen(p);

        if (p[0] != '/' || (n > 1 && p[n - 1] == '/'))
                return false;
        for (const char *c = p; *c; c++) {
                if (*c != '/')
                        continue;
                if (c[1] == '/' || (c[1] == '.' && (c[2] == '/' || c[2] == '\0')) ||
                    (c[1] == '.' && c[2] == '.' && (c[3] == '/' || c[3] == '\0')))
                        return false;
        }
        return true;
}

/* Returns 0 or -errno. */
int knob_env_set_cgroup_root(KnobEnv *env, const char *root) {
        if (!knob_path_is_normal(root) || strcmp(root, "/") == 0)
                return -EINVAL;
        if (strlen(root) >= sizeof(env->cgroup_root))
                return -ENAMETOOLONG;
        snprintf(env->cgroup_root, sizeof(env->cgroup_root), "%s", root);
        fileio_closep(&env->cgroup_fd);
        env->cgroup_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return 0;
}

/* Returns true if path lies strictly below env's cgroup mount. */
static bool under_cgroup_root(const KnobEnv *env, const char *path) {
        size_t n = strlen(env->cgroup_root);

        return n > 0 && strncmp(path, env->cgroup_root, n) == 0 && path[n] == '/' && path[n + 1] != '\0';
}

/* Returns 0 or -errno. */
int knob_cgroup_key(const KnobEnv *env, const char *dir, char *buf, size_t size) {
        if (!knob_path_is_normal(dir) || !under_cgroup_root(env, dir))
                return -EINVAL;
        if ((size_t) snprintf(buf, size, KNOB_CGROUP_PREFIX "%s" CPUSET_FILE, dir) >= size)
                return -ENAMETOOLONG;
        return 0;
}

/* Parses "cgroup:/ABS/cpuset.cpus".  Returns 0 or -EINVAL. */
static int cgroup_parse(const KnobEnv *env, const char *key, KnobAddr *ret) {
        const char *path = key + strlen(KNOB_CGROUP_PREFIX);
        size_t n, s = strlen(CPUSET_FILE);
        char dir[KNOB_CGROUP_PATH_MAX];

        if (strncmp(key, KNOB_CGROUP_PREFIX, strlen(KNOB_CGROUP_PREFIX)) != 0)
                return -EINVAL;
        n = strlen(path);
        if (n >= KNOB_CGROUP_PATH_MAX || n <= s || strcmp(path + n - s, CPUSET_FILE) != 0 ||
            !knob_path_is_normal(path) || strpbrk(path, " \n"))
                return -EINVAL;
        /* the cgroup itself must lie below the mount: never the root cgroup */
        memcpy(dir, path, n - s);
        dir[n - s] = '\0';
        if (!under_cgroup_root(env, dir))
                return -EINVAL;
        *ret = (KnobAddr) { .type = &knob_type_cgroup, .cpu = KNOB_NO_CPU,
                            .rel = path + strlen(env->cgroup_root) + 1 };
        return 0;
}

static bool cgroup_value_valid(const KnobAddr *a, const char *value) {
        return knob_cpulist_valid(value, true);
}

/* The cgroup mount's fd: env's, or (a mount that was missing when it was
 * set) one opened now into *tmp.  Returns it or -ENOENT. */
static int cgroup_dir(const KnobEnv *env, int *tmp) {
        if (env->cgroup_fd >= 0)
                return env->cgroup_fd;
        *tmp = open(env->cgroup_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return *tmp >= 0 ? *tmp : -ENOENT;
}

/* Returns 0, -ENOENT (gone), -ELOOP (a symbolic link in its path),
 * -EBADFD (not a regular file) or another negative errno. */
static int cgroup_read(const KnobEnv *env, const KnobAddr *a, char *buf, size_t size) {
        _cleanup_close_ int tmp = -1;
        int fd = cgroup_dir(env, &tmp), r;

        r = fd < 0 ? fd : fileio_read_string_beneath(fd, a->rel, buf, size);
        return r < 0 ? r : 0;
}

/* Returns 0, -ENOENT (gone: a removed cgroup leaves no file), -ELOOP,
 * -EBADFD (nothing written) or another negative errno. */
static int cgroup_write(const KnobEnv *env, const KnobAddr *a, const char *value) {
        _cleanup_close_ int tmp = -1;
        int fd = cgroup_dir(env, &tmp), r;

        r = fd < 0 ? fd : fileio_write_string_beneath(fd, a->rel, value[0] ? value : "\n");
        return r == -ENODEV ? -ENOENT : r;
}

const char *knob_cgroup_refusal(int r) {
        switch (r) {
        case -ELOOP:
                return "a symbolic link in its path (never followed in the cgroup mount)";
        case -EXDEV:
                return "a \"..\" component in its path";
        case -ENOTDIR:
                return "a component of its path is not a directory";
        case -EBADFD:
                return "not a regular file";
        default:
                return NULL;
        }
}

/* A knob whose file cannot be reached safely (knob_cgroup_refusal()) is
 * never written: its original is forgotten, logged.  Returns false then. */
static bool cgroup_restorable(const KnobEnv *env, const KnobAddr *a, const char *value) {
        _cleanup_close_ int tmp = -1, file = -1;
        int fd = cgroup_dir(env, &tmp);
        const char *why;

        if (fd < 0)
                return true;            /* the write says it is gone */
        file = fileio_open_regular_beneath(fd, a->rel);
        why = file < 0 ? knob_cgroup_refusal(file) : NULL;
        if (!why)
                return true;
        log_warning("Not restoring " KNOB_CGROUP_PREFIX "%s/%s: %s; forgetting its original value \"%s\".",
                    env->cgroup_root, a->rel, why, value);
        return false;
}

const KnobType knob_type_cgroup = {
        .name = "cgroup",
        .value_max = KNOB_CPULIST_MAX,
        .write_when_absent = true,
        .parse = cgroup_parse,
        .value_valid = cgroup_value_valid,
        .read = cgroup_read,
        .write = cgroup_write,
        .restorable = cgroup_restorable,
};
