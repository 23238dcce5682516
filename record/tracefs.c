/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fileio.h"
#include "tracefs.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

#define TRACEFS_DEFAULT "/sys/kernel/tracing"
#define TRACEFS_DEBUGFS "/sys/kernel/debug/tracing"
#define TRACEFS_SETTINGS_MAX 512

static bool is_tracefs(const char *path) {
        struct statfs sfs;

        return statfs(path, &sfs) == 0 && (unsigned long) sfs.f_type == TRACEFS_MAGIC;
}

static int journal(const Tracefs *tf) {
        return tf->journal ? tf->journal(tf, tf->userdata) : 0;
}

static int copy_path(char *dst, size_t size, const char *src) {
        if (strlen(src) >= size)
                return -ENAMETOOLONG;
        strcpy(dst, src);
        return 0;
}

int tracefs_locate(Tracefs *tf, const char *dir) {
        if (dir) {
                if (!is_tracefs(dir))
                        return -ENOENT;
                return copy_path(tf->mount_path, sizeof(tf->mount_path), dir);
        }
        if (is_tracefs(TRACEFS_DEFAULT))
                return copy_path(tf->mount_path, sizeof(tf->mount_path), TRACEFS_DEFAULT);
        if (is_tracefs(TRACEFS_DEBUGFS))
                return copy_path(tf->mount_path, sizeof(tf->mount_path), TRACEFS_DEBUGFS);

        /* not mounted: mount it for the recording, journalled first */
        strcpy(tf->mount_path, TRACEFS_DEFAULT);
        tf->mounted_by_us = true;
        int r = journal(tf);
        if (r >= 0 && mount("nodev", TRACEFS_DEFAULT, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                r = errno == ENODEV ? -ENOENT : -errno;
        if (r < 0) {
                tf->mounted_by_us = false;
                (void) journal(tf);
        }
        return r;
}

static int open_dir(const char *path) {
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

static int create_instance(Tracefs *tf, int mount_fd) {
        strcpy(tf->instance, TRACEFS_INSTANCE_NAME);
        tf->instance_created = true;
        int r = journal(tf);
        if (r < 0)
                return r;
        if (mkdirat(mount_fd, "instances/" TRACEFS_INSTANCE_NAME, 0750) < 0) {
                r = -errno;
                tf->instance_created = false;
                (void) journal(tf);
                return r;
        }
        r = openat(mount_fd, "instances/" TRACEFS_INSTANCE_NAME, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return r < 0 ? -errno : r;
}

int tracefs_open(Tracefs *tf, bool use_instance) {
        _cleanup_close_ int mount_fd = open_dir(tf->mount_path);

        if (mount_fd < 0)
                return mount_fd;
        if (!use_instance) {
                tf->dir_fd = mount_fd;
                mount_fd = -1;
                return 0;
        }
        int fd = create_instance(tf, mount_fd);
        if (fd < 0)
                return fd;
        tf->dir_fd = fd;
        return 0;
}

/* ---- values ---------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix) {
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Turns what a tracefs file shows into what must be written to get it back. */
static void normalize(const char *path, char *buf, size_t size) {
        char *p;

        for (p = buf; (p = strchr(p, '\n')); )  /* pid lists: one per line */
                *p = ' ';
        if (strcmp(path, "trace_clock") == 0 && (p = strchr(buf, '['))) {
                size_t n = strcspn(p + 1, "]");
                memmove(buf, p + 1, n);
                buf[n] = '\0';
        } else if (ends_with(path, "buffer_size_kb") && (p = strstr(buf, "(expanded: "))) {
                /* the kernel cannot shrink back to unexpanded: restore the
                 * size any user would have got */
                size_t n = strspn(p + 11, "0123456789");
                memmove(buf, p + 11, n);
                buf[n] = '\0';
        } else if (ends_with(path, "/enable") && (p = strchr(buf, '*')))
                *p = '\0';      /* soft-enabled marker */
        else if (ends_with(path, "/filter") && strcmp(buf, "none") == 0)
                snprintf(buf, size, "0");
}

int tracefs_read(const Tracefs *tf, const char *path, char *buf, size_t size) {
        int r = fileio_read_string_at(tf->dir_fd, path, buf, size);

        if (r < 0)
                return r;
        normalize(path, buf, size);
        return 0;
}

static bool is_saved(const Tracefs *tf, const char *path) {
        for (size_t i = 0; i < tf->n_settings; i++)
                if (strcmp(tf->settings[i].path, path) == 0)
                        return true;
        return false;
}

int tracefs_add_saved(Tracefs *tf, const char *path, const char *saved) {
        if (tf->n_settings >= TRACEFS_SETTINGS_MAX)
                return -E2BIG;
        if (strlen(path) >= sizeof(tf->settings[0].path) || strlen(saved) >= sizeof(tf->settings[0].saved))
                return -E2BIG;
        TracefsSetting *n = reallocarray(tf->settings, tf->n_settings + 1, sizeof(TracefsSetting));
        if (!n)
                return -ENOMEM;
        tf->settings = n;
        strcpy(n[tf->n_settings].path, path);
        strcpy(n[tf->n_settings].saved, saved);
        tf->n_settings++;
        return 0;
}

/* Reads and journals the original of path (once).  Returns 0 or -errno. */
static int save(Tracefs *tf, const char *path) {
        char buf[sizeof(tf->settings[0].saved)];
        int r;

        if (is_saved(tf, path))
                return 0;
        r = tracefs_read(tf, path, buf, sizeof(buf));
        if (r < 0)
                return r;
        r = tracefs_add_saved(tf, path, buf);
        if (r < 0)
                return r;
        return journal(tf);
}

int tracefs_set(Tracefs *tf, const char *path, const char *value) {
        int r = save(tf, path);

        if (r < 0)
                return r;
        return fileio_write_string_at(tf->dir_fd, path, value);
}

/* Saves per_cpu/cpuN/buffer_size_kb of every CPU.  Returns 0 or -errno. */
static int save_per_cpu_sizes(Tracefs *tf) {
        int fd = openat(tf->dir_fd, "per_cpu", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *de;
        int r = 0;

        if (!d) {
                r = -errno;
                if (fd >= 0)
                        close(fd);
                return r;
        }
        while (r >= 0 && (de = readdir(d))) {
                char path[sizeof(de->d_name) + 32];
                if (strncmp(de->d_name, "cpu", 3) != 0)
                        continue;
                snprintf(path, sizeof(path), "per_cpu/%s/buffer_size_kb", de->d_name);
                r = save(tf, path);
        }
        closedir(d);
        return r;
}

int tracefs_set_buffer_kb(Tracefs *tf, unsigned kb) {
        char cur[64], value[32];
        int r = fileio_read_string_at(tf->dir_fd, "buffer_size_kb", cur, sizeof(cur));

        if (r < 0)
                return r;
        snprintf(value, sizeof(value), "%u", kb);
        if (strcmp(cur, "X") != 0)
                return tracefs_set(tf, "buffer_size_kb", value);
        r = save_per_cpu_sizes(tf);     /* sizes differ per CPU: keep each */
        if (r < 0)
                return r;
        return fileio_write_string_at(tf->dir_fd, "buffer_size_kb", value);
}

/* ---- putting it back ---------------------------------------------------------- */

static int restore_settings(Tracefs *tf) {
        int first = 0;

        if (tf->dir_fd < 0) {
                char path[sizeof(tf->mount_path) + 80];
                snprintf(path, sizeof(path), "%s%s%s", tf->mount_path, tf->instance[0] ? "/instances/" : "",
                         tf->instance);
                tf->dir_fd = open_dir(path);
                if (tf->dir_fd < 0)
                        return tf->dir_fd;
        }
        for (size_t i = tf->n_settings; i > 0; i--) {
                const TracefsSetting *s = &tf->settings[i - 1];
                int r = fileio_write_string_at(tf->dir_fd, s->path, s->saved);
                if (r < 0 && first == 0)
                        first = r;
        }
        return first;
}

static int remove_instance(Tracefs *tf) {
        char path[sizeof(tf->mount_path) + 80];

        snprintf(path, sizeof(path), "%s/instances/%s", tf->mount_path, tf->instance);
        if (rmdir(path) < 0 && errno != ENOENT)
                return -errno;
        tf->instance_created = false;
        return 0;
}

static int unmount(Tracefs *tf) {
        if (umount2(tf->mount_path, 0) < 0 && umount2(tf->mount_path, MNT_DETACH) < 0 && errno != EINVAL)
                return -errno;
        tf->mounted_by_us = false;
        return 0;
}

int tracefs_restore(Tracefs *tf) {
        int r = 0, k;

        if (tf->instance_created) {
                /* everything we changed lives in the instance */
                fileio_closep(&tf->dir_fd);
                r = remove_instance(tf);
        } else if (tf->n_settings > 0 || tf->dir_fd >= 0)
                r = restore_settings(tf);
        fileio_closep(&tf->dir_fd);
        if (tf->mounted_by_us) {
                k = unmount(tf);
                if (r == 0)
                        r = k;
        }
        return r;
}

void tracefs_done(Tracefs *tf) {
        fileio_closep(&tf->dir_fd);
        free(tf->settings);
        tf->settings = NULL;
        tf->n_settings = 0;
}
