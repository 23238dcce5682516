/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* proc/PID/stat, proc/PID/exe and the pid lists of proc/ and
 * proc/PID/task/, through a root directory fd. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirlist.h"
#include "fileio.h"
#include "pin-proc.h"
#include "sysfs-paths.h"

/* The fields after the comm that are read: 3 (state) to 22 (start time). */
#define STAT_FIELDS 20
#define FIELD(n) ((n) - 3)

typedef struct Span {
        const char *p;
        size_t len;
} Span;

/* Parses exactly len decimal digits at s, at most max.  Returns 0 or
 * -EBADMSG. */
static int parse_decimal(const char *s, size_t len, uint64_t max, uint64_t *ret) {
        uint64_t v = 0;

        if (len == 0)
                return -EBADMSG;
        for (size_t i = 0; i < len; i++) {
                unsigned d = (unsigned) (s[i] - '0');

                if (s[i] < '0' || s[i] > '9' || v > (max - d) / 10)
                        return -EBADMSG;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

/* Splits [s, end) at single spaces into the first n fields.  Returns 0,
 * or -EBADMSG for fewer than n fields or an empty one. */
static int split_fields(const char *s, const char *end, Span *out, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const char *sp = memchr(s, ' ', (size_t) (end - s));
                const char *stop = sp ? sp : end;

                if (stop == s)
                        return -EBADMSG;
                out[i] = (Span) { s, (size_t) (stop - s) };
                if (!sp && i + 1 < n)
                        return -EBADMSG;
                s = stop + 1;
        }
        return 0;
}

/* Parses the fields after the comm into st.  Returns 0 or -EBADMSG. */
static int parse_fields(const char *s, const char *end, ProcStat *st) {
        Span f[STAT_FIELDS];
        uint64_t ppid, flags;
        int r;

        r = split_fields(s, end, f, STAT_FIELDS);
        if (r < 0)
                return r;
        if (f[FIELD(3)].len != 1)
                return -EBADMSG;
        st->state = f[FIELD(3)].p[0];
        if (parse_decimal(f[FIELD(4)].p, f[FIELD(4)].len, PIN_TARGET_PID_MAX, &ppid) < 0 ||
            parse_decimal(f[FIELD(9)].p, f[FIELD(9)].len, UINT32_MAX, &flags) < 0 ||
            parse_decimal(f[FIELD(22)].p, f[FIELD(22)].len, UINT64_MAX, &st->start_time) < 0)
                return -EBADMSG;
        st->ppid = (pid_t) ppid;
        st->flags = (uint32_t) flags;
        st->kthread = flags & PROC_PF_KTHREAD;
        st->no_setaffinity = flags & PROC_PF_NO_SETAFFINITY;
        return 0;
}

int proc_parse_stat(const char *text, ProcStat *ret) {
        const char *lparen = strstr(text, " ("), *rparen = strrchr(text, ')');
        const char *end = text + strlen(text);
        ProcStat st = {};
        uint64_t pid;
        size_t comm_len;

        if (end > text && end[-1] == '\n')
                end--;
        if (!lparen || !rparen || rparen < lparen + 2 || rparen + 1 >= end || rparen[1] != ' ')
                return -EBADMSG;
        if (parse_decimal(text, (size_t) (lparen - text), PIN_TARGET_PID_MAX, &pid) < 0 || pid == 0)
                return -EBADMSG;
        st.pid = (pid_t) pid;
        comm_len = (size_t) (rparen - (lparen + 2));
        if (comm_len >= sizeof(st.comm))
                comm_len = sizeof(st.comm) - 1;
        memcpy(st.comm, lparen + 2, comm_len);
        if (parse_fields(rparen + 2, end, &st) < 0)
                return -EBADMSG;
        *ret = st;
        return 0;
}

int proc_read_stat(int root_fd, pid_t pid, ProcStat *ret) {
        _cleanup_close_ int fd = -1;
        char path[64], buf[PROC_STAT_MAX];
        ProcStat st;
        int n;

        if (pid <= 0)
                return -EINVAL;
        snprintf(path, sizeof(path), PROCFS_PID_STAT_FMT, (int) pid);
        fd = fileio_open_at(root_fd, path);
        if (fd == -ENOENT)
                return -ESRCH;
        if (fd < 0)
                return fd;
        n = fileio_pread_string(fd, buf, sizeof(buf));
        if (n == -EFBIG)
                return -EBADMSG;
        if (n < 0)
                return n;
        if (strlen(buf) != (size_t) n || proc_parse_stat(buf, &st) < 0 || st.pid != pid)
                return -EBADMSG;
        *ret = st;
        return 0;
}

int proc_read_tgid(int root_fd, pid_t pid, pid_t *ret) {
        _cleanup_free_ char *text = NULL;
        const char *line;
        uint64_t tgid;
        char path[64];
        int r;

        if (pid <= 0)
                return -EINVAL;
        snprintf(path, sizeof(path), PROCFS_PID_FMT "/status", (int) pid);
        r = fileio_read_regular_at(root_fd, path, PROC_STATUS_MAX, 0, &text, NULL);
        if (r == -ENOENT)
                return -ESRCH;
        if (r < 0)
                return r;
        line = strncmp(text, "Tgid:", 5) == 0 ? text : strstr(text, "\nTgid:");
        if (!line)
                return -EBADMSG;
        line += line[0] == '\n' ? 6 : 5;
        line += strspn(line, " \t");
        if (parse_decimal(line, strcspn(line, "\n"), PIN_TARGET_PID_MAX, &tgid) < 0 || tgid == 0)
                return -EBADMSG;
        *ret = (pid_t) tgid;
        return 0;
}

/* Returns -ESRCH if root_fd/proc/PID does not exist, else -ENOENT. */
static int missing_reason(int root_fd, pid_t pid) {
        char path[32];
        struct stat st;

        snprintf(path, sizeof(path), PROCFS_PID_FMT, (int) pid);
        return fstatat(root_fd, path, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT ? -ESRCH : -ENOENT;
}

int proc_read_exe(int root_fd, pid_t pid, char *buf, size_t size) {
        static const char deleted[] = " (deleted)";
        const size_t deleted_len = sizeof(deleted) - 1;
        char path[32];
        ssize_t n;

        if (pid <= 0 || size == 0)
                return -EINVAL;
        snprintf(path, sizeof(path), PROCFS_PID_EXE_FMT, (int) pid);
        n = readlinkat(root_fd, path, buf, size);
        if (n < 0)
                return errno == ENOENT ? missing_reason(root_fd, pid) : -errno;
        if ((size_t) n >= size)
                return -ENAMETOOLONG;
        if ((size_t) n > deleted_len && memcmp(buf + n - deleted_len, deleted, deleted_len) == 0)
                n -= (ssize_t) deleted_len;
        buf[n] = '\0';
        return 0;
}

/* Lists the pids named in the directory root_fd/path (1..PIN_TARGET_PID_MAX),
 * sorted.  Returns 0 or a negative errno. */
static int list_pids(int root_fd, const char *path, pid_t **ret, size_t *ret_n) {
        _cleanup_free_ unsigned *values = NULL;
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0, k = 0;
        int r;

        r = dir_list_numeric_at(root_fd, path, PIN_TARGET_PID_MAX, &values, &n);
        if (r < 0)
                return r;
        if (n > 0) {
                pids = calloc(n, sizeof(pid_t));
                if (!pids)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                if (values[i] > 0)              /* pid 0 is no process */
                        pids[k++] = (pid_t) values[i];
        *ret = TAKE_PTR(pids);
        *ret_n = k;
        return 0;
}

int proc_list_pids(int root_fd, pid_t **ret, size_t *ret_n) {
        return list_pids(root_fd, PROCFS_DIR, ret, ret_n);
}

int proc_list_tasks(int root_fd, pid_t pid, pid_t **ret, size_t *ret_n) {
        char path[48];
        int r;

        if (pid <= 0)
                return -EINVAL;
        snprintf(path, sizeof(path), PROCFS_PID_TASK_FMT, (int) pid);
        r = list_pids(root_fd, path, ret, ret_n);
        return r == -ENOENT ? -ESRCH : r;
}

bool pin_rule_matches(const PinTarget *rule, const ProcStat *st, const char *exe) {
        if (st->kthread)
                return false;
        switch (rule->kind) {
        case PIN_TARGET_EXE:
                return exe && strcmp(exe, rule->value) == 0;
        case PIN_TARGET_COMM:
                return strcmp(st->comm, rule->value) == 0;
        default:
                return false;
        }
}

bool pin_pid_matches(const PinTarget *target, const ProcStat *st) {
        return target->kind == PIN_TARGET_PID && target->pid == st->pid &&
               (target->start_time == 0 || target->start_time == st->start_time);
}
