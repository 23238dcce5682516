/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A cgroup target's path in the cgroup file system: the runtimes' two
 * forms, and the v1 cpuset hierarchy of a hybrid machine (pin-cgroup.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "pin-cgroup.h"

#define SLICE_SUFFIX ".slice"
#define MOUNTINFO_MAX ((size_t) 4 * 1024 * 1024)

bool pin_cgroup_is_systemd(const char *value) {
        const char *first = strchr(value, ':');

        return !strchr(value, '/') && first && strchr(first + 1, ':') &&
               !strchr(strchr(first + 1, ':') + 1, ':');
}

/* Returns true if the len bytes at s end in ".slice" after at least one byte. */
static bool is_slice(const char *s, size_t len) {
        size_t n = strlen(SLICE_SUFFIX);

        return len > n && memcmp(s + len - n, SLICE_SUFFIX, n) == 0;
}

/* Appends the len bytes at s to out (at *n, PIN_CGROUP_PATH_MAX bytes).
 * Returns 0 or -ENAMETOOLONG. */
static int append(char *out, size_t *n, const char *s, size_t len) {
        if (*n + len >= PIN_CGROUP_PATH_MAX)
                return -ENAMETOOLONG;
        memcpy(out + *n, s, len);
        *n += len;
        out[*n] = '\0';
        return 0;
}

/* Appends a '/' unless out is empty, then the len bytes at s and the
 * string tail.  Returns 0 or -ENAMETOOLONG. */
static int append_component(char *out, size_t *n, const char *s, size_t len, const char *tail) {
        if (*n > 0 && append(out, n, "/", 1) < 0)
                return -ENAMETOOLONG;
        if (append(out, n, s, len) < 0)
                return -ENAMETOOLONG;
        return append(out, n, tail, strlen(tail));
}

/* runc's ExpandSlice: "a-b-c.slice" → "a.slice/a-b.slice/a-b-c.slice" into
 * out at *n, "-.slice" → nothing.  Returns NULL or why it is invalid. */
static const char *expand_slice(const char *s, size_t len, char *out, size_t *n) {
        size_t stem = len - strlen(SLICE_SUFFIX);

        if (!is_slice(s, len))
                return "the slice must end in \".slice\"";
        if (stem == 1 && s[0] == '-')
                return NULL;
        for (size_t i = 0, start = 0; i <= stem; i++) {
                if (i < stem && s[i] != '-')
                        continue;
                if (i == start)
                        return "a slice name has no empty dash-separated part (\"a--b.slice\", \"-a.slice\")";
                if (append_component(out, n, s, i, SLICE_SUFFIX) < 0)
                        return "the path is longer than 1023 bytes";
                start = i + 1;
        }
        return NULL;
}

/* SLICE:PREFIX:NAME expanded into out.  Returns NULL or why it is invalid. */
static const char *expand_systemd(const char *value, char *out) {
        const char *c1 = strchr(value, ':'), *c2 = strchr(c1 + 1, ':');
        const char *name = c2 + 1, *why;
        size_t n = 0;
        int r;

        out[0] = '\0';
        why = c1 == value ? expand_slice("system.slice", strlen("system.slice"), out, &n)
                          : expand_slice(value, (size_t) (c1 - value), out, &n);
        if (why)
                return why;
        if (name[0] == '\0')
                return "the container's name (after the second ':') is empty";
        if (is_slice(name, strlen(name)))
                r = append_component(out, &n, name, strlen(name), "");
        else {
                r = append_component(out, &n, c1 + 1, (size_t) (c2 - c1 - 1), "-");
                if (r >= 0)
                        r = append(out, &n, name, strlen(name));
                if (r >= 0)
                        r = append(out, &n, ".scope", strlen(".scope"));
        }
        return r < 0 ? "the path is longer than 1023 bytes" : NULL;
}

const char *pin_cgroup_systemd_error(const char *value) {
        char out[PIN_CGROUP_PATH_MAX];

        return pin_cgroup_is_systemd(value) ? expand_systemd(value, out) : NULL;
}

int pin_cgroup_expand(const char *value, char *ret, ErrorInfo *e) {
        char out[PIN_CGROUP_PATH_MAX];
        const char *why;

        if (!pin_cgroup_is_systemd(value)) {
                if (strlen(value) >= PIN_CGROUP_PATH_MAX)
                        return errinfo_set(e, -EBADMSG, "the cgroup path is longer than 1023 bytes");
                strcpy(ret, value);
                return 0;
        }
        why = expand_systemd(value, out);
        if (why)
                return errinfo_set(e, -EBADMSG, "invalid systemd cgroup \"%.200s\" (SLICE:PREFIX:NAME): %s", value, why);
        strcpy(ret, out);
        return 0;
}

/* Copies the mountinfo field at s (up to a space or the line's end) into
 * out (PIN_CGROUP_PATH_MAX bytes) with the kernel's octal escapes (\040
 * for a space, ...) undone.  Returns the byte after the field, or NULL if
 * it does not fit. */
static const char *field_unescape(const char *s, char *out) {
        size_t n = 0;

        while (*s && *s != ' ' && *s != '\n') {
                char c = *s++;

                if (c == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' &&
                    s[2] <= '7') {
                        c = (char) ((s[0] - '0') << 6 | (s[1] - '0') << 3 | (s[2] - '0'));
                        s += 3;
                }
                if (n + 1 >= PIN_CGROUP_PATH_MAX)
                        return NULL;
                out[n++] = c;
        }
        out[n] = '\0';
        return s;
}

/* Returns the start of field k (0-based) of the line at s, or NULL. */
static const char *field_at(const char *s, unsigned k) {
        for (; k > 0; k--) {
                s += strcspn(s, " \n");
                if (*s != ' ')
                        return NULL;
                s++;
        }
        return s;
}

/* Returns true if the comma-separated list at s (up to a space or the
 * line's end) holds word. */
static bool list_has(const char *s, const char *word) {
        size_t w = strlen(word);

        while (*s && *s != ' ' && *s != '\n') {
                size_t len = strcspn(s, ", \n");

                if (len == w && memcmp(s, word, w) == 0)
                        return true;
                s += len + (s[len] == ',');
        }
        return false;
}

/* Fills m from one mountinfo line if it is a v1 cpuset mount below root.
 * Returns true if it is. */
static bool line_match(const char *line, const char *root, PinCgroupMount *m) {
        char hroot[PIN_CGROUP_PATH_MAX], point[PIN_CGROUP_PATH_MAX];
        const char *sep = strstr(line, " - "), *f;
        size_t n = strlen(root);

        f = field_at(line, 3);
        if (!sep || !f || !field_unescape(f, hroot) || !(f = field_at(line, 4)) || !field_unescape(f, point))
                return false;
        /* after " - ": FSTYPE SOURCE SUPER_OPTIONS */
        if (strncmp(sep + 3, "cgroup ", 7) != 0 || !(f = field_at(sep + 3, 2)) || !list_has(f, "cpuset"))
                return false;
        if (strncmp(point, root, n) != 0 || point[n] != '/' || point[n + 1] == '\0')
                return false;
        snprintf(m->dir, sizeof(m->dir), "%s", point + n + 1);
        snprintf(m->root, sizeof(m->root), "%s", hroot + strspn(hroot, "/"));
        return true;
}

int pin_cgroup_find_cpuset(const char *mountinfo, const char *cgroup_root, PinCgroupMount *ret) {
        PinCgroupMount m;

        for (const char *line = mountinfo; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
                if (line_match(line, cgroup_root, &m)) {
                        *ret = m;
                        return 1;
                }
        return 0;
}

/* Returns true if path is prefix or starts with prefix + "/". */
static bool path_starts_with(const char *path, const char *prefix) {
        size_t n = strlen(prefix);

        return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int pin_cgroup_place(const char *path, const PinCgroupMount *m, char *ret, ErrorInfo *e) {
        const char *rest;
        int k;

        path += strspn(path, "/");
        if (!m || path_starts_with(path, m->dir)) {
                if (strlen(path) >= PIN_CGROUP_PATH_MAX)
                        return errinfo_set(e, -EBADMSG, "the cgroup path is longer than 1023 bytes");
                strcpy(ret, path);
                return 0;
        }
        rest = path;
        if (m->root[0]) {
                if (!path_starts_with(path, m->root))
                        return errinfo_set(e, -EBADMSG, "the cgroup %.200s is outside the cpuset hierarchy mounted "
                                           "at %s (/%s of it)", path, m->dir, m->root);
                rest = path + strlen(m->root);
                rest += strspn(rest, "/");
        }
        k = snprintf(ret, PIN_CGROUP_PATH_MAX, "%s%s%s", m->dir, rest[0] ? "/" : "", rest);
        if (k < 0 || k >= PIN_CGROUP_PATH_MAX)
                return errinfo_set(e, -EBADMSG, "the cgroup path is longer than 1023 bytes");
        return 0;
}

int pin_cgroup_resolve(int host_fd, int cgroup_fd, const char *cgroup_root, const char *value, char *ret,
                       ErrorInfo *e) {
        _cleanup_free_ char *mountinfo = NULL;
        _cleanup_close_ int procs_fd = -1;
        char path[PIN_CGROUP_PATH_MAX];
        PinCgroupMount m;
        int r;

        r = pin_cgroup_expand(value, path, e);
        if (r < 0)
                return r;
        /* a cgroup.procs of its own, not a symbolic link planted in a tmpfs */
        procs_fd = fileio_open_beneath(cgroup_fd, "cgroup.procs", O_PATH);
        if (procs_fd >= 0)
                return pin_cgroup_place(path, NULL, ret, e);
        r = fileio_read_regular_at(host_fd, "proc/self/mountinfo", MOUNTINFO_MAX, 0, &mountinfo, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || pin_cgroup_find_cpuset(mountinfo, cgroup_root, &m) <= 0)
                return pin_cgroup_place(path, NULL, ret, e);
        return pin_cgroup_place(path, &m, ret, e);
}
