/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build-config.h"
#include "config.h"
#include "consolidate/consolidate.h"   /* the consolidation defaults (macros only) */
#include "fileio.h"

static const char *const log_level_names[] = {
        [LOG_LEVEL_ERR] = "err",
        [LOG_LEVEL_WARNING] = "warning",
        [LOG_LEVEL_NOTICE] = "notice",
        [LOG_LEVEL_INFO] = "info",
        [LOG_LEVEL_DEBUG] = "debug",
};

static const char *const daemon_mode_names[_DAEMON_MODE_MAX] = {
        [DAEMON_MODE_OBSERVE] = "observe",
        [DAEMON_MODE_ENFORCE] = "enforce",
};

const char *daemon_mode_to_string(DaemonMode m) {
        if ((unsigned) m >= _DAEMON_MODE_MAX)
                return NULL;
        return daemon_mode_names[m];
}

int daemon_mode_from_string(const char *s, DaemonMode *ret) {
        for (DaemonMode m = 0; m < _DAEMON_MODE_MAX; m++)
                if (strcmp(daemon_mode_names[m], s) == 0) {
                        *ret = m;
                        return 0;
                }
        return -EINVAL;
}

const char *log_level_to_string(LogLevel l) {
        if (l < LOG_LEVEL_ERR || l > LOG_LEVEL_DEBUG)
                return NULL;
        return log_level_names[l];
}

int log_level_from_string(const char *s, LogLevel *ret) {
        for (LogLevel l = LOG_LEVEL_ERR; l <= LOG_LEVEL_DEBUG; l++)
                if (strcmp(log_level_names[l], s) == 0) {
                        *ret = l;
                        return 0;
                }
        return -EINVAL;
}

void config_init(Config *c) {
        *c = (Config) {
                .tick_usec = CONFIG_TICK_USEC_DEFAULT,
                .poll_search_tick_usec = CONFIG_SEARCH_TICK_USEC_DEFAULT,
                .quiet_full_tick_usec = CONFIG_QUIET_FULL_TICK_USEC_DEFAULT,
                .quiet_tick_usec = CONFIG_QUIET_TICK_USEC_DEFAULT,
                .log_level = LOG_LEVEL_INFO,
                .mode = DAEMON_MODE_ENFORCE,
                .calibrate_on_first_start = -1,
                .governor_hold_usec = CONFIG_GOVERNOR_HOLD_USEC_DEFAULT,
                .sample_files_per_tick = CONFIG_SAMPLE_FILES_PER_TICK_DEFAULT,
                .metrics_every_ticks = CONFIG_METRICS_EVERY_TICKS_DEFAULT,
                .consolidation_exit_util = CONSOLIDATE_EXIT_PCT_DEFAULT,
                .consolidation_hysteresis = CONSOLIDATE_HYSTERESIS_PCT_DEFAULT,
                .consolidation_headroom = CONSOLIDATE_HEADROOM_PCT_DEFAULT,
                .consolidation_headroom_level2 = CONSOLIDATE_HEADROOM_PCT_LEVEL2_DEFAULT,
                .consolidation_shrink_ticks = CONSOLIDATE_SHRINK_TICKS_DEFAULT,
        };
        snprintf(c->runtime_directory, sizeof(c->runtime_directory), "%s", RUNTIME_DIR);
        snprintf(c->state_directory, sizeof(c->state_directory), "%s", STATE_DIR);
}

/* Sets e to "FILE: key "K": reason".  Returns -EINVAL. */
static int key_error(ErrorInfo *e, const char *filename, const char *key, const char *reason) {
        return errinfo_set(e, -EINVAL, "%s: key \"%s\": %s", filename, key, reason);
}

/* Stores an integer within [min, max] in *dst.  Returns 0 or -EINVAL. */
static int parse_integer(json_t *v, uint64_t min, uint64_t max, uint64_t *dst) {
        if (!json_is_integer(v))
                return -EINVAL;
        json_int_t t = json_integer_value(v);
        if (t < 0 || (uint64_t) t < min || (uint64_t) t > max)
                return -EINVAL;
        *dst = (uint64_t) t;
        return 0;
}

static int parse_tick(json_t *v, Config *c) {
        return parse_integer(v, CONFIG_TICK_USEC_MIN, CONFIG_TICK_USEC_MAX, &c->tick_usec);
}

static int parse_search_tick(json_t *v, Config *c) {
        return parse_integer(v, CONFIG_TICK_USEC_MIN, CONFIG_TICK_USEC_MAX, &c->poll_search_tick_usec);
}

/* 0 (off) or a tick's range. */
static int parse_tick_or_off(json_t *v, uint64_t *ret) {
        if (json_is_integer(v) && json_integer_value(v) == 0) {
                *ret = 0;
                return 0;
        }
        return parse_integer(v, CONFIG_TICK_USEC_MIN, CONFIG_TICK_USEC_MAX, ret);
}

static int parse_quiet_full_tick(json_t *v, Config *c) {
        return parse_tick_or_off(v, &c->quiet_full_tick_usec);
}

static int parse_quiet_tick(json_t *v, Config *c) {
        return parse_tick_or_off(v, &c->quiet_tick_usec);
}

/* Copies an absolute path shorter than size into dst.  Returns 0 or -EINVAL. */
static int parse_directory(json_t *v, char *dst, size_t size) {
        if (!json_is_string(v))
                return -EINVAL;
        const char *s = json_string_value(v);
        size_t len = json_string_length(v);
        if (s[0] != '/' || len >= size || strlen(s) != len)
                return -EINVAL;
        memcpy(dst, s, len + 1);
        return 0;
}

static int parse_runtime_directory(json_t *v, Config *c) {
        return parse_directory(v, c->runtime_directory, sizeof(c->runtime_directory));
}

static int parse_state_directory(json_t *v, Config *c) {
        return parse_directory(v, c->state_directory, sizeof(c->state_directory));
}

static int parse_log_level(json_t *v, Config *c) {
        if (!json_is_string(v))
                return -EINVAL;
        return log_level_from_string(json_string_value(v), &c->log_level);
}

static int parse_mode(json_t *v, Config *c) {
        if (!json_is_string(v))
                return -EINVAL;
        return daemon_mode_from_string(json_string_value(v), &c->mode);
}

static int parse_calibrate_on_first_start(json_t *v, Config *c) {
        if (!json_is_boolean(v))
                return -EINVAL;
        c->calibrate_on_first_start = json_is_true(v);
        return 0;
}

static int parse_follow_power_profiles(json_t *v, Config *c) {
        if (!json_is_boolean(v))
                return -EINVAL;
        c->follow_power_profiles = json_is_true(v);
        return 0;
}

static int parse_governor_hold(json_t *v, Config *c) {
        return parse_integer(v, 0, CONFIG_GOVERNOR_HOLD_USEC_MAX, &c->governor_hold_usec);
}

static int parse_sample_files(json_t *v, Config *c) {
        return parse_integer(v, 0, CONFIG_SAMPLE_FILES_PER_TICK_MAX, &c->sample_files_per_tick);
}

/* "" (none), or an absolute path ending in ".prom" (the textfile collector
 * reads nothing else) that names a file, not a directory. */
static int parse_metrics_textfile(json_t *v, Config *c) {
        const char *s;
        size_t len;

        if (!json_is_string(v))
                return -EINVAL;
        s = json_string_value(v);
        len = json_string_length(v);
        if (len == 0) {
                c->metrics_textfile[0] = '\0';
                return 0;
        }
        if (len < 7 || strcmp(s + len - 5, ".prom") != 0 || s[len - 6] == '/')
                return -EINVAL;
        return parse_directory(v, c->metrics_textfile, sizeof(c->metrics_textfile));
}

static int parse_metrics_every(json_t *v, Config *c) {
        return parse_integer(v, 1, CONFIG_METRICS_EVERY_TICKS_MAX, &c->metrics_every_ticks);
}

/* One background entry: "cgroup:/PATH", "unit:NAME" or a bare unit name
 * (with a '.' suffix); printable, no spaces.  The daemon checks the rest
 * (the unit name's syntax, the path below the cgroup mount). */
static bool background_entry_valid(const char *s, size_t len) {
        if (len == 0 || len >= CONFIG_BACKGROUND_NAME_MAX || strlen(s) != len)
                return false;
        for (size_t i = 0; i < len; i++)
                if ((unsigned char) s[i] <= ' ' || (unsigned char) s[i] >= 127)
                        return false;
        if (strncmp(s, "cgroup:", 7) == 0)
                return s[7] == '/' && s[8] != '\0';
        if (strncmp(s, "unit:", 5) == 0)
                s += 5;
        return s[0] != '\0' && s[0] != '/' && strchr(s, '.') != NULL;
}

static int parse_consolidation_background(json_t *v, Config *c) {
        size_t i;
        json_t *e;

        if (!json_is_array(v) || json_array_size(v) > CONFIG_BACKGROUND_MAX)
                return -EINVAL;
        json_array_foreach(v, i, e) {
                if (!json_is_string(e) || !background_entry_valid(json_string_value(e), json_string_length(e)))
                        return -EINVAL;
                snprintf(c->consolidation_background[i], CONFIG_BACKGROUND_NAME_MAX, "%s", json_string_value(e));
        }
        c->n_consolidation_background = (unsigned) json_array_size(v);
        return 0;
}

static int parse_consolidation_exit(json_t *v, Config *c) {
        return parse_integer(v, 1, 100, &c->consolidation_exit_util);
}

static int parse_consolidation_hysteresis(json_t *v, Config *c) {
        return parse_integer(v, 0, 99, &c->consolidation_hysteresis);
}

static int parse_consolidation_headroom(json_t *v, Config *c) {
        return parse_integer(v, 0, 400, &c->consolidation_headroom);
}

static int parse_consolidation_headroom2(json_t *v, Config *c) {
        return parse_integer(v, 0, 400, &c->consolidation_headroom_level2);
}

static int parse_consolidation_shrink(json_t *v, Config *c) {
        return parse_integer(v, 0, 3600, &c->consolidation_shrink_ticks);
}

typedef struct ConfigKey {
        const char *name;
        int (*parse)(json_t *v, Config *c);     /* returns 0 or -EINVAL */
        const char *requirement;
} ConfigKey;

static const ConfigKey config_keys[] = {
        { "tick_usec", parse_tick, "must be an integer between 10000 and 3600000000" },
        { "runtime_directory", parse_runtime_directory, "must be an absolute path (a string) shorter than 256 characters" },
        { "state_directory", parse_state_directory, "must be an absolute path (a string) shorter than 256 characters" },
        { "log_level", parse_log_level, "must be one of \"err\", \"warning\", \"notice\", \"info\", \"debug\"" },
        { "mode", parse_mode, "must be \"observe\" or \"enforce\"" },
        { "calibrate_on_first_start", parse_calibrate_on_first_start, "must be true or false" },
        { "governor_hold_usec", parse_governor_hold, "must be an integer between 0 and 3600000000" },
        { "sample_files_per_tick", parse_sample_files, "must be an integer between 0 and 1000000000" },
        { "metrics_textfile", parse_metrics_textfile,
          "must be \"\" (none) or an absolute path ending in \".prom\" shorter than 256 characters" },
        { "metrics_every_ticks", parse_metrics_every, "must be an integer between 1 and 1000000" },
        { "consolidation_background", parse_consolidation_background,
          "must be an array of at most 16 strings: \"cgroup:/PATH\", \"unit:NAME\" or a unit name such as "
          "\"system.slice\" (no spaces, shorter than 256 bytes)" },
        { "consolidation_exit_util", parse_consolidation_exit, "must be an integer between 1 and 100 (%)" },
        { "consolidation_hysteresis", parse_consolidation_hysteresis, "must be an integer between 0 and 99 (%)" },
        { "consolidation_headroom", parse_consolidation_headroom, "must be an integer between 0 and 400 (%)" },
        { "consolidation_headroom_level2", parse_consolidation_headroom2, "must be an integer between 0 and 400 (%)" },
        { "consolidation_shrink_ticks", parse_consolidation_shrink, "must be an integer between 0 and 3600" },
        { "follow_power_profiles", parse_follow_power_profiles, "must be true or false" },
        { "poll_search_tick_usec", parse_search_tick, "must be an integer between 10000 and 3600000000" },
        { "quiet_full_tick_usec", parse_quiet_full_tick,
          "must be 0 (no light ticks) or an integer between 10000 and 3600000000" },
        { "quiet_tick_usec", parse_quiet_tick,
          "must be 0 (no long ticks) or an integer between 10000 and 3600000000" },
};

/* Applies every key of the object root to c.  Returns 0 or -EINVAL with e
 * naming the key. */
static int apply_object(json_t *root, const char *filename, Config *c, ErrorInfo *e) {
        const char *key;
        json_t *v;

        json_object_foreach(root, key, v) {
                const ConfigKey *k = NULL;
                for (size_t i = 0; i < sizeof(config_keys) / sizeof(config_keys[0]); i++)
                        if (strcmp(config_keys[i].name, key) == 0)
                                k = &config_keys[i];
                if (!k)
                        return key_error(e, filename, key, "unknown key");
                if (k->parse(v, c) < 0)
                        return key_error(e, filename, key, k->requirement);
        }
        return 0;
}

/* Parses len bytes of JSON on top of *c.  Returns 0 or -EINVAL/-ENOMEM. */
static int parse_buffer(const char *buf, size_t len, const char *filename, Config *c, ErrorInfo *e) {
        json_error_t err;
        json_auto_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
        Config n = *c;
        int r;

        if (!root)
                return errinfo_set(e, -EINVAL, "%s:%d:%d: parse error: %s", filename, err.line, err.column, err.text);
        if (!json_is_object(root))
                return errinfo_set(e, -EINVAL, "%s: the top level must be a JSON object", filename);
        r = apply_object(root, filename, &n, e);
        if (r < 0)
                return r;
        if (n.consolidation_hysteresis >= n.consolidation_exit_util)
                return key_error(e, filename, "consolidation_hysteresis", "must be below consolidation_exit_util");
        *c = n;
        return 0;
}

int config_parse(const char *text, const char *filename, Config *c, ErrorInfo *e) {
        return parse_buffer(text, strlen(text), filename, c, e);
}

int config_load(int dir_fd, const char *path, const char *filename, Config *c, ErrorInfo *e) {
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r;

        r = fileio_read_regular_at(dir_fd, path, CONFIG_FILE_MAX, 0, &text, &len);
        if (r == -ENOMEM)
                return r;
        if (r == -EFBIG)
                return errinfo_set(e, r, "%s: larger than the limit of %d bytes", filename, CONFIG_FILE_MAX);
        if (r < 0)
                return errinfo_set(e, r, "%s: %s", filename, fileio_error_reason(r));
        return parse_buffer(text, len, filename, c, e);
}
