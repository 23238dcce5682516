/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pin targets: "KIND:VALUE" text in, a normalised PinTarget out, and back. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "pin-cgroup.h"
#include "pin-target.h"

static const char *const kind_names[_PIN_TARGET_KIND_MAX] = {
        [PIN_TARGET_PID] = "pid",
        [PIN_TARGET_CGROUP] = "cgroup",
        [PIN_TARGET_UNIT] = "unit",
        [PIN_TARGET_EXE] = "exe",
        [PIN_TARGET_COMM] = "comm",
};

/* systemd's unit types (unit_type_table in src/basic/unit-def.c). */
static const char *const unit_types[] = {
        "service", "socket", "target", "device", "mount", "automount",
        "swap", "timer", "path", "slice", "scope",
};

const char *pin_target_kind_to_string(PinTargetKind k) {
        if ((unsigned) k >= _PIN_TARGET_KIND_MAX)
                return NULL;
        return kind_names[k];
}

/* Returns true if s holds a byte below 0x20 or 0x7f. */
static bool has_control(const char *s) {
        for (; *s; s++)
                if ((unsigned char) *s < 0x20 || *s == 0x7f)
                        return true;
        return false;
}

/* Returns true if s is valid UTF-8 (shortest forms, no surrogates, at most
 * U+10FFFF): what D-Bus and JSON carry. */
static bool utf8_valid(const char *s) {
        static const unsigned char lead_mask[] = { 0x7f, 0x1f, 0x0f, 0x07 };
        static const uint32_t min[] = { 0, 0x80, 0x800, 0x10000 };
        const unsigned char *p = (const unsigned char *) s;

        while (*p) {
                unsigned n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : 4;
                uint32_t cp;

                if (n == 4)
                        return false;
                cp = *p & lead_mask[n];
                for (unsigned i = 1; i <= n; i++) {
                        if ((p[i] & 0xc0) != 0x80)
                                return false;
                        cp = cp << 6 | (p[i] & 0x3fu);
                }
                if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                        return false;
                p += n + 1;
        }
        return true;
}

/* Parses the pid of "pid:N".  Returns NULL or the reason it is invalid. */
static const char *parse_pid(const char *s, PinTarget *t) {
        unsigned long v = 0;

        if (*s < '1' || *s > '9')
                return *s == '0' && s[1] == '\0' ? "the pid must be between 1 and 4194304"
                                                 : "the pid must be a decimal number without sign, spaces or leading zeros";
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return "the pid must be a decimal number without sign, spaces or leading zeros";
                v = v * 10 + (unsigned long) (*p - '0');
                if (v > PIN_TARGET_PID_MAX)
                        return "the pid must be between 1 and 4194304";
        }
        t->pid = (pid_t) v;
        return NULL;
}

/* Appends the component [c, c + len) of a path to out (at *n) behind a
 * '/' unless it is the first of a relative path.  Returns NULL or the
 * reason the path is invalid. */
static const char *append_component(const char *c, size_t len, bool absolute, char *out, size_t *n) {
        if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
                return "\".\" and \"..\" components are not allowed";
        if (*n + (absolute || *n > 0) + len >= PIN_TARGET_VALUE_MAX)
                return "the path is longer than 1023 bytes";
        if (absolute || *n > 0)
                out[(*n)++] = '/';
        memcpy(out + *n, c, len);
        *n += len;
        out[*n] = '\0';
        return NULL;
}

/* Normalises a path into out (PIN_TARGET_VALUE_MAX bytes): empty
 * components dropped (leading, trailing, doubled '/'), "." and ".."
 * refused.  An absolute path keeps its leading '/'; a path of nothing but
 * '/' gives "".  Returns NULL or the reason the path is invalid. */
static const char *normalise_path(const char *s, bool absolute, char *out) {
        size_t n = 0;

        out[0] = '\0';
        while (*s) {
                size_t len = strcspn(s, "/");
                const char *why = len > 0 ? append_component(s, len, absolute, out, &n) : NULL;

                if (why)
                        return why;
                s += len + (s[len] == '/');
        }
        return NULL;
}

static const char *parse_cgroup(const char *s, PinTarget *t) {
        const char *why = normalise_path(s, false, t->value);

        if (!why && t->value[0] == '\0')
                return "the cgroup path is empty (the root cgroup cannot be pinned)";
        return why ?: pin_cgroup_systemd_error(t->value);
}

static const char *parse_exe(const char *s, PinTarget *t) {
        const char *why;

        if (s[0] != '/')
                return "the executable must be an absolute path";
        why = normalise_path(s, true, t->value);
        if (!why && t->value[0] == '\0')
                return "the executable path names no file";
        return why;
}

static bool unit_type_valid(const char *type) {
        for (size_t i = 0; i < ELEMENTSOF(unit_types); i++)
                if (strcmp(unit_types[i], type) == 0)
                        return true;
        return false;
}

/* systemd's unit_name_is_valid() for plain and instance names. */
static const char *parse_unit(const char *s, PinTarget *t) {
        size_t len = strlen(s);
        const char *dot = strrchr(s, '.'), *at = strchr(s, '@');

        if (len == 0)
                return "the unit name is empty";
        if (len > PIN_TARGET_UNIT_MAX)
                return "the unit name is longer than 255 bytes";
        if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@") != len)
                return "a unit name holds only letters, digits and \":-_.\\@\"";
        if (!dot || dot == s || !unit_type_valid(dot + 1))
                return "the unit name must end in a unit type such as \".service\", \".scope\" or \".slice\"";
        if (at && (at == s || strchr(at + 1, '@') || at > dot))
                return "a unit name holds at most one '@', between a non-empty prefix and the type";
        if (at && at + 1 == dot)
                return "a template unit (\"NAME@.TYPE\") cannot be pinned, only its instances";
        memcpy(t->value, s, len + 1);
        return NULL;
}

static const char *parse_comm(const char *s, PinTarget *t) {
        size_t len = strlen(s);

        if (len == 0 || len > PIN_TARGET_COMM_MAX)
                return "a comm is 1 to 15 bytes long";
        if (strchr(s, '/'))
                return "a comm cannot contain '/'";
        memcpy(t->value, s, len + 1);
        return NULL;
}

/* Returns how many bytes of text a message quotes: none if it holds
 * control characters or invalid UTF-8, else at most 200, not cutting a
 * character. */
static int quote_len(const char *text) {
        size_t n = strlen(text);

        if (has_control(text) || !utf8_valid(text))
                return 0;
        if (n <= 200)
                return (int) n;
        n = 200;
        while (n > 0 && ((unsigned char) text[n] & 0xc0) == 0x80)
                n--;
        return (int) n;
}

/* Returns the kind named by the len bytes at s, or _PIN_TARGET_KIND_MAX. */
static PinTargetKind kind_from_prefix(const char *s, size_t len) {
        for (PinTargetKind k = 0; k < _PIN_TARGET_KIND_MAX; k++)
                if (strlen(kind_names[k]) == len && memcmp(kind_names[k], s, len) == 0)
                        return k;
        return _PIN_TARGET_KIND_MAX;
}

int pin_target_parse(const char *text, PinTarget *ret, ErrorInfo *e) {
        static const char *(*const parsers[_PIN_TARGET_KIND_MAX])(const char *, PinTarget *) = {
                parse_pid, parse_cgroup, parse_unit, parse_exe, parse_comm,
        };
        const char *colon = text ? strchr(text, ':') : NULL;
        const char *why;
        PinTarget t = {};

        if (!text)
                return errinfo_set(e, -EBADMSG, "invalid pin target: none given");
        t.kind = colon ? kind_from_prefix(text, (size_t) (colon - text)) : _PIN_TARGET_KIND_MAX;
        if (t.kind == _PIN_TARGET_KIND_MAX)
                why = "expected KIND:VALUE with KIND one of pid, cgroup, unit, exe, comm";
        else if (has_control(colon + 1))
                why = "control characters are not allowed";
        else if (!utf8_valid(colon + 1))
                why = "the value is not valid UTF-8";
        else
                why = parsers[t.kind](colon + 1, &t);
        if (why)
                return errinfo_set(e, -EBADMSG, "invalid pin target \"%.*s%s\": %s", quote_len(text), text,
                                   (size_t) quote_len(text) < strlen(text) ? "..." : "", why);
        *ret = t;
        return 0;
}

int pin_target_format(const PinTarget *t, char *buf, size_t size) {
        const char *kind = pin_target_kind_to_string(t->kind);
        int n;

        if (!kind)
                return -EINVAL;
        if (t->kind == PIN_TARGET_PID)
                n = snprintf(buf, size, "pid:%d", (int) t->pid);
        else
                n = snprintf(buf, size, "%s:%s", kind, t->value);
        return n < 0 || (size_t) n >= size ? -ENOBUFS : 0;
}

bool pin_target_equal(const PinTarget *a, const PinTarget *b) {
        if (a->kind != b->kind)
                return false;
        if (a->kind == PIN_TARGET_PID)
                return a->pid == b->pid &&
                       (a->start_time == 0 || b->start_time == 0 || a->start_time == b->start_time);
        return strcmp(a->value, b->value) == 0;
}

bool pin_target_is_rule(const PinTarget *t) {
        return t->kind == PIN_TARGET_EXE || t->kind == PIN_TARGET_COMM;
}
