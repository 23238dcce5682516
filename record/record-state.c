/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "record-state.h"

#define STATE_MAGIC "idlepolicy-record-state 1"

static void state_path(const RecordState *s, const char *name, char *buf, size_t size) {
        snprintf(buf, size, "%s/%s", s->dir, name);
}

int record_state_lock(RecordState *s, const char *dir) {
        char path[sizeof(s->dir) + 16];

        if (strlen(dir) >= sizeof(s->dir))
                return -ENAMETOOLONG;
        strcpy(s->dir, dir);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        state_path(s, "lock", path, sizeof(path));
        _cleanup_close_ int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : -errno;
        s->lock_fd = fd;
        fd = -1;
        return 0;
}

void record_state_unlock(RecordState *s) {
        fileio_closep(&s->lock_fd);
}

static void write_description(FILE *f, const Tracefs *tf) {
        fprintf(f, STATE_MAGIC "\npid %ld\ntracefs %s\nmounted %d\ninstance %s %d\n", (long) getpid(),
                tf->mount_path, tf->mounted_by_us, tf->instance[0] ? tf->instance : "-", tf->instance_created);
        for (size_t i = 0; i < tf->n_settings; i++)
                fprintf(f, "set %s\t%s\n", tf->settings[i].path, tf->settings[i].saved);
}

int record_state_save(const Tracefs *tf, void *userdata) {
        const RecordState *s = userdata;
        char tmp[sizeof(s->dir) + 16], path[sizeof(s->dir) + 16];
        int r = 0;

        state_path(s, "state.tmp", tmp, sizeof(tmp));
        state_path(s, "state", path, sizeof(path));
        FILE *f = fopen(tmp, "we");
        if (!f)
                return -errno;
        write_description(f, tf);
        if (fflush(f) != 0 || fsync(fileno(f)) < 0)
                r = -errno;
        if (fclose(f) != 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

/* Parses one line of the state file into tf.  Returns 0 or -EBADMSG. */
static int load_line(char *line, Tracefs *tf, long *pid) {
        char name[64];
        int a, b;

        if (sscanf(line, "pid %ld", pid) == 1)
                return 0;
        if (strncmp(line, "tracefs /", 9) == 0 && strlen(line + 8) < sizeof(tf->mount_path)) {
                strcpy(tf->mount_path, line + 8);
                return 0;
        }
        if (sscanf(line, "mounted %d", &a) == 1) {
                tf->mounted_by_us = a == 1;
                return 0;
        }
        if (sscanf(line, "instance %63s %d", name, &b) == 2) {
                strcpy(tf->instance, strcmp(name, "-") == 0 ? "" : name);
                tf->instance_created = b == 1 && tf->instance[0];
                return 0;
        }
        char *tab = strchr(line, '\t');
        if (strncmp(line, "set ", 4) != 0 || !tab)
                return -EBADMSG;
        *tab = '\0';
        return tracefs_add_saved(tf, line + 4, tab + 1) < 0 ? -EBADMSG : 0;
}

int record_state_load(const RecordState *s, Tracefs *tf, long *ret_pid) {
        char path[sizeof(s->dir) + 16];
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        long pid = 0;
        int r = 0;

        state_path(s, "state", path, sizeof(path));
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        n = getline(&line, &cap, f);
        if (n <= 0 || strcmp(line, STATE_MAGIC "\n") != 0)
                r = -EBADMSG;
        while (r >= 0 && (n = getline(&line, &cap, f)) > 0) {
                if (line[n - 1] == '\n')
                        line[n - 1] = '\0';
                r = load_line(line, tf, &pid);
        }
        fclose(f);
        if (r >= 0 && tf->mount_path[0] != '/')
                r = -EBADMSG;
        if (r < 0)
                return r;
        *ret_pid = pid;
        return 1;
}

int record_state_remove(const RecordState *s) {
        char path[sizeof(s->dir) + 16];

        state_path(s, "state", path, sizeof(path));
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}
