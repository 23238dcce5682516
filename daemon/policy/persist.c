/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "persist.h"
#include "safe-dir.h"

/* Returns 0 or -ENOMEM. */
int persist_open(Persist *p, const char *dir) {
        ErrorInfo e = {};
        int r;

        p->dir_fd = -1;
        p->dir = strdup(dir);
        if (!p->dir)
                return -ENOMEM;
        r = mkdir_parents(dir);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_warning_errno(r, "Failed to create state directory %s: %m, nothing will persist", dir);
                return 0;
        }
        /* Checked: nobody else may plant entries beside the daemon's files
         * or redirect the path (safe-dir.h). */
        r = safe_dir_open(dir, &e);
        if (r == -ENOMEM)
                return r;
        if (r == -EPERM)
                log_warning("Refusing state directory %s: %s, nothing will persist.", dir, e.message);
        else if (r < 0)
                log_warning_errno(r, "Failed to open state directory %s: %s, nothing will persist", dir, e.message);
        p->dir_fd = r < 0 ? -1 : r;
        return 0;
}

void persist_done(Persist *p) {
        fileio_closep(&p->dir_fd);
        free(p->dir);
        *p = PERSIST_NULL;
}

/* Reads dir/name (see persist.h: a regular file, not a symlink, of at
 * most max bytes of text).  Returns 1 and *ret, 0 if missing or unreadable
 * (logged), -ENOMEM, or -EINVAL with e saying why the file is not one the
 * daemon wrote (a fileio_read_regular_at() reason). */
int persist_read_text(const Persist *p, const char *name, size_t max, char **ret, ErrorInfo *e) {
        int r;

        if (p->dir_fd < 0)
                return 0;
        r = fileio_read_regular_at(p->dir_fd, name, max, FILEIO_NOFOLLOW, ret, NULL);
        switch (r) {
        case 0:
                return 1;
        case -ENOENT:
                return 0;
        case -ENOMEM:
                return r;
        case -EFBIG:
                return errinfo_set(e, -EINVAL, "larger than the limit of %zu bytes", max);
        case -EBADFD: case -ELOOP: case -EBADMSG:
                return errinfo_set(e, -EINVAL, "%s", fileio_error_reason(r));
        default:
                log_warning_errno(r, "Failed to read %s/%s: %m, ignoring", p->dir, name);
                return 0;
        }
}

/* Fills s from the object root.  Returns 0 or -EINVAL with e set. */
static int state_from_json(json_t *root, PersistedState *s, ErrorInfo *e) {
        json_t *profile = json_object_get(root, "profile"), *mode = json_object_get(root, "mode");
        json_t *level = json_object_get(root, "consolidation");

        *s = (PersistedState) {};
        if (!json_is_object(root))
                return errinfo_set(e, -EINVAL, "the top level must be a JSON object");
        if (profile && (!json_is_string(profile) || json_string_length(profile) >= PROFILE_NAME_MAX))
                return errinfo_set(e, -EINVAL, "key \"profile\": must be a profile name");
        if (mode && (!json_is_string(mode) || daemon_mode_from_string(json_string_value(mode), &s->mode) < 0))
                return errinfo_set(e, -EINVAL, "key \"mode\": must be \"observe\" or \"enforce\"");
        if (profile)
                snprintf(s->profile, sizeof(s->profile), "%s", json_string_value(profile));
        s->has_mode = mode != NULL;
        if (level && (!json_is_integer(level) || json_integer_value(level) < 0 || json_integer_value(level) > 2))
                return errinfo_set(e, -EINVAL, "key \"consolidation\": must be 0, 1 or 2");
        s->has_consolidation = level != NULL;
        s->consolidation = level ? (unsigned) json_integer_value(level) : 0;
        return 0;
}

/* Returns 1, 0, -EINVAL (logged) or -ENOMEM. */
int persist_load_state(const Persist *p, PersistedState *ret) {
        _cleanup_free_ char *text = NULL;
        ErrorInfo e = {};
        json_error_t err;
        json_t *root;
        PersistedState s;
        int r;

        r = persist_read_text(p, PERSIST_STATE_FILE, PERSIST_STATE_MAX, &text, &e);
        if (r == 0 || r == -ENOMEM)
                return r;
        root = r > 0 ? json_loads(text, JSON_REJECT_DUPLICATES, &err) : NULL;
        if (root)
                r = state_from_json(root, &s, &e);
        else if (r > 0)
                r = errinfo_set(&e, -EINVAL, "%d:%d: %s", err.line, err.column, err.text);
        json_decref(root);
        if (r < 0)
                return log_warning_errno(r, "%s/%s: %s: the state file is corrupt, using the defaults.",
                                         p->dir, PERSIST_STATE_FILE, e.message);
        *ret = s;
        return 1;
}

/* Returns 0 or a negative errno (logged). */
int persist_write_text(const Persist *p, const char *name, const char *text) {
        int r;

        if (p->dir_fd < 0)
                return -EBADF;
        r = write_file_atomic(p->dir_fd, name, text);
        if (r < 0)
                return log_warning_errno(r, "Failed to write %s/%s: %m", p->dir, name);
        return 0;
}

/* Returns 0 or a negative errno (logged). */
int persist_save_state(const Persist *p, const PersistedState *s) {
        _cleanup_free_ char *json = NULL, *text = NULL;
        json_t *root = json_pack("{s:s, s:s}", "profile", s->profile, "mode", daemon_mode_to_string(s->mode));

        /* SetConsolidation()'s level, only while it overrides the profile's */
        if (root && s->has_consolidation &&
            json_object_set_new(root, "consolidation", json_integer((json_int_t) s->consolidation)) < 0)
                root = (json_decref(root), NULL);

        json = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
        json_decref(root);
        if (!json || asprintf(&text, "%s\n", json) < 0) {
                text = NULL;
                return log_oom();
        }
        return persist_write_text(p, PERSIST_STATE_FILE, text);
}

/* Returns 1, 0, -EINVAL (logged) or -ENOMEM. */
int persist_load_calibration(const Persist *p, Calibration **ret) {
        _cleanup_free_ char *text = NULL, *path = NULL;
        ErrorInfo e = {};
        int r;

        r = persist_read_text(p, PERSIST_CALIBRATION_FILE, PERSIST_CALIBRATION_MAX, &text, &e);
        if (r == -EINVAL)
                return log_warning_errno(r, "%s/%s: %s: the calibration is corrupt, ignoring it.",
                                         p->dir, PERSIST_CALIBRATION_FILE, e.message);
        if (r <= 0)
                return r;
        if (asprintf(&path, "%s/%s", p->dir, PERSIST_CALIBRATION_FILE) < 0) {
                path = NULL;
                return -ENOMEM;
        }
        r = calibration_parse(text, path, ret, &e);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return log_warning_errno(r, "%s: the calibration is corrupt, ignoring it.", e.message);
        return 1;
}

/* Returns 0 or a negative errno (logged). */
int persist_save_calibration(const Persist *p, const Calibration *c) {
        _cleanup_free_ char *text = NULL;
        int r;

        r = calibration_to_json(c, &text);
        if (r < 0)
                return log_warning_errno(r, "Failed to serialise the calibration: %m");
        if (strlen(text) > PERSIST_CALIBRATION_MAX)
                return log_warning_errno(EFBIG, "Not saving the calibration: %zu bytes are more than the %zu that are read back.",
                                         strlen(text), PERSIST_CALIBRATION_MAX);
        return persist_write_text(p, PERSIST_CALIBRATION_FILE, text);
}
