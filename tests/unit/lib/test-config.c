/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "build-config.h"
#include "cleanup.h"
#include "config.h"
#include "unit.h"

#define FILE_NAME "/etc/idlepolicy/idlepolicyd.conf"
#define TICK_REASON "must be an integer between 10000 and 3600000000"
#define DIR_REASON "must be an absolute path (a string) shorter than 256 characters"
#define LEVEL_REASON "must be one of \"err\", \"warning\", \"notice\", \"info\", \"debug\""
#define MODE_REASON "must be \"observe\" or \"enforce\""
#define BOOL_REASON "must be true or false"
#define HOLD_REASON "must be an integer between 0 and 3600000000"

static Config parse_ok(const char *text) {
        ErrorInfo e = {};
        Config c;

        config_init(&c);
        ck_assert_msg(config_parse(text, FILE_NAME, &c, &e) == 0, "%s: %s", text, e.message);
        return c;
}

/* Asserts that text is rejected with exactly message (or a message that
 * starts with it when prefix is true), *c untouched. */
static void parse_fails(const char *text, const char *message, bool prefix) {
        Config c, before;
        ErrorInfo e = {};

        config_init(&c);
        c.tick_usec = 123456;
        before = c;
        ck_assert_msg(config_parse(text, FILE_NAME, &c, &e) == -EINVAL, "accepted: %s", text);
        ck_assert_mem_eq(&c, &before, sizeof(c));
        if (prefix)
                ck_assert_msg(strncmp(e.message, message, strlen(message)) == 0,
                              "\"%s\" does not start with \"%s\"", e.message, message);
        else
                ck_assert_str_eq(e.message, message);
}

static void key_fails(const char *text, const char *key, const char *reason) {
        char message[512];

        snprintf(message, sizeof(message), FILE_NAME ": key \"%s\": %s", key, reason);
        parse_fails(text, message, false);
}

START_TEST(test_defaults) {
        Config c;

        config_init(&c);
        ck_assert_uint_eq(c.tick_usec, CONFIG_TICK_USEC_DEFAULT);
        ck_assert_str_eq(c.runtime_directory, RUNTIME_DIR);
        ck_assert_str_eq(c.state_directory, STATE_DIR);
        ck_assert_int_eq(c.log_level, LOG_LEVEL_INFO);
        ck_assert_int_eq(c.mode, DAEMON_MODE_ENFORCE);
        ck_assert_int_eq(c.calibrate_on_first_start, -1);
        ck_assert_uint_eq(c.governor_hold_usec, CONFIG_GOVERNOR_HOLD_USEC_DEFAULT);
        ck_assert_uint_eq(c.sample_files_per_tick, CONFIG_SAMPLE_FILES_PER_TICK_DEFAULT);
        ck_assert_uint_eq(c.poll_search_tick_usec, 50000);
        c = parse_ok("{}");
        ck_assert_uint_eq(c.tick_usec, CONFIG_TICK_USEC_DEFAULT);
        ck_assert_str_eq(c.runtime_directory, RUNTIME_DIR);
}
END_TEST

START_TEST(test_full_and_partial) {
        Config c = parse_ok("{ \"tick_usec\": 250000, \"runtime_directory\": \"/run/x\",\n"
                            "  \"state_directory\": \"/var/lib/x\", \"log_level\": \"debug\" }\n");

        ck_assert_uint_eq(c.tick_usec, 250000);
        ck_assert_str_eq(c.runtime_directory, "/run/x");
        ck_assert_str_eq(c.state_directory, "/var/lib/x");
        ck_assert_int_eq(c.log_level, LOG_LEVEL_DEBUG);

        c = parse_ok("{\"log_level\": \"err\"}");
        ck_assert_int_eq(c.log_level, LOG_LEVEL_ERR);
        ck_assert_uint_eq(c.tick_usec, CONFIG_TICK_USEC_DEFAULT);
        ck_assert_str_eq(c.state_directory, STATE_DIR);

        /* parsed on top of what is there */
        ErrorInfo e = {};
        ck_assert_int_eq(config_parse("{\"tick_usec\": 10000}", FILE_NAME, &c, &e), 0);
        ck_assert_uint_eq(c.tick_usec, CONFIG_TICK_USEC_MIN);
        ck_assert_int_eq(c.log_level, LOG_LEVEL_ERR);
        c = parse_ok("{\"tick_usec\": 3600000000}");
        ck_assert_uint_eq(c.tick_usec, CONFIG_TICK_USEC_MAX);
}
END_TEST

START_TEST(test_syntax_errors) {
        parse_fails("", FILE_NAME ":1:0: parse error: ", true);
        parse_fails("{", FILE_NAME ":1:1: parse error: ", true);
        parse_fails("{\"tick_usec\": 10000,}", FILE_NAME ":1:", true);
        parse_fails("{\n  \"tick_usec\": 20000\n  \"log_level\": \"info\"\n}", FILE_NAME ":3:", true);
        parse_fails("{} trailing", FILE_NAME ":1:", true);
        parse_fails("{\"log_level\": \"info\", \"log_level\": \"debug\"}", FILE_NAME ":1:", true);
        parse_fails("{\"runtime_directory\": \"/run/a\\u0000b\"}", FILE_NAME ":1:", true);
        parse_fails("{\"tick_usec\": 99999999999999999999999}", FILE_NAME ":1:", true);
        parse_fails("\"just a string\"", FILE_NAME ":1:", true);
        parse_fails("[]", FILE_NAME ": the top level must be a JSON object", false);
        parse_fails("[{\"tick_usec\": 20000}]", FILE_NAME ": the top level must be a JSON object", false);
}
END_TEST

START_TEST(test_bad_keys) {
        key_fails("{\"tick\": 20000}", "tick", "unknown key");
        key_fails("{\"log_level\": \"info\", \"Tick_usec\": 20000}", "Tick_usec", "unknown key");
        key_fails("{\"tick_usec\": 9999}", "tick_usec", TICK_REASON);
        key_fails("{\"tick_usec\": 3600000001}", "tick_usec", TICK_REASON);
        key_fails("{\"tick_usec\": -5}", "tick_usec", TICK_REASON);
        key_fails("{\"tick_usec\": 0}", "tick_usec", TICK_REASON);
        key_fails("{\"tick_usec\": \"1000000\"}", "tick_usec", TICK_REASON);
        key_fails("{\"tick_usec\": 1e6}", "tick_usec", TICK_REASON);
        key_fails("{\"tick_usec\": 1000000.0}", "tick_usec", TICK_REASON);
        key_fails("{\"tick_usec\": true}", "tick_usec", TICK_REASON);
        key_fails("{\"tick_usec\": null}", "tick_usec", TICK_REASON);
        key_fails("{\"tick_usec\": [1000000]}", "tick_usec", TICK_REASON);
        key_fails("{\"runtime_directory\": \"run/idlepolicyd\"}", "runtime_directory", DIR_REASON);
        key_fails("{\"runtime_directory\": \"\"}", "runtime_directory", DIR_REASON);
        key_fails("{\"runtime_directory\": 5}", "runtime_directory", DIR_REASON);
        key_fails("{\"state_directory\": {}}", "state_directory", DIR_REASON);
        key_fails("{\"state_directory\": \"var/lib\"}", "state_directory", DIR_REASON);
        key_fails("{\"log_level\": \"verbose\"}", "log_level", LEVEL_REASON);
        key_fails("{\"log_level\": \"INFO\"}", "log_level", LEVEL_REASON);
        key_fails("{\"log_level\": 6}", "log_level", LEVEL_REASON);
        /* a bad key after a good one: nothing applied */
        key_fails("{\"tick_usec\": 20000, \"log_level\": \"loud\"}", "log_level", LEVEL_REASON);
}
END_TEST

START_TEST(test_path_length) {
        char path[300], text[400];
        Config c;

        memset(path, 'a', sizeof(path));
        path[0] = '/';
        path[255] = '\0';                       /* 255 characters: fits */
        snprintf(text, sizeof(text), "{\"state_directory\": \"%s\"}", path);
        c = parse_ok(text);
        ck_assert_str_eq(c.state_directory, path);
        path[255] = 'a';
        path[256] = '\0';                       /* 256: too long */
        snprintf(text, sizeof(text), "{\"state_directory\": \"%s\"}", path);
        key_fails(text, "state_directory", DIR_REASON);
}
END_TEST

/* Loads dir_fd/path into a fresh Config.  Returns config_load()'s result. */
static int load(int dir_fd, const char *path, Config *c, ErrorInfo *e) {
        config_init(c);
        *e = (ErrorInfo) {};
        return config_load(dir_fd, path, path, c, e);
}

/* Asserts that loading dir_fd/path fails with error and message within
 * 100 ms, the defaults untouched. */
static void load_fails(int dir_fd, const char *path, int error, const char *message) {
        struct timespec a, b;
        ErrorInfo e;
        Config c;

        clock_gettime(CLOCK_MONOTONIC, &a);
        ck_assert_int_eq(load(dir_fd, path, &c, &e), error);
        clock_gettime(CLOCK_MONOTONIC, &b);
        ck_assert_int_lt((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000, 100);
        ck_assert_msg_has(e, message);
        ck_assert_int_eq(c.log_level, LOG_LEVEL_INFO);
}

START_TEST(test_load_file) {
        FakeTree *t = unit_tree(NULL);
        ErrorInfo e;
        Config c;
        char *big;

        ck_assert_int_eq(faketree_write(t->fd, "test.conf", "{\"log_level\": \"notice\"}\n"), 0);
        ck_assert_int_eq(load(t->fd, "test.conf", &c, &e), 0);
        ck_assert_int_eq(c.log_level, LOG_LEVEL_NOTICE);
        /* an administrator's symlink to a regular file is followed */
        ck_assert_int_eq(symlinkat("test.conf", t->fd, "link.conf"), 0);
        ck_assert_int_eq(load(t->fd, "link.conf", &c, &e), 0);
        ck_assert_int_eq(c.log_level, LOG_LEVEL_NOTICE);

        ck_assert_int_eq(faketree_write(t->fd, "nul.conf", "{\"log_level\": \"notice\"}%c\n", '\0'), 0);
        load_fails(t->fd, "nul.conf", -EBADMSG, "nul.conf: contains a NUL byte");
        ck_assert_int_eq(faketree_write(t->fd, "cut.conf", "{\"log_level\": \"not"), 0);
        load_fails(t->fd, "cut.conf", -EINVAL, "cut.conf:1:");
        load_fails(t->fd, "missing.conf", -ENOENT, "missing.conf: ");
        load_fails(t->fd, "/etc/idlepolicy/idlepolicyd.conf", -EINVAL, "");

        /* CONFIG_FILE_MAX bytes are read, one more is refused */
        big = malloc(CONFIG_FILE_MAX + 2);
        ck_assert_ptr_nonnull(big);
        memset(big, ' ', CONFIG_FILE_MAX + 1);
        big[0] = '{';
        big[CONFIG_FILE_MAX - 1] = '}';
        big[CONFIG_FILE_MAX] = '\0';
        ck_assert_int_eq(faketree_write(t->fd, "max.conf", "%s", big), 0);
        ck_assert_int_eq(load(t->fd, "max.conf", &c, &e), 0);
        big[CONFIG_FILE_MAX - 1] = ' ';
        big[CONFIG_FILE_MAX] = '}';
        big[CONFIG_FILE_MAX + 1] = '\0';
        ck_assert_int_eq(faketree_write(t->fd, "big.conf", "%s", big), 0);
        load_fails(t->fd, "big.conf", -EFBIG, "big.conf: larger than the limit of 65536 bytes");
        free(big);
}
END_TEST

START_TEST(test_load_not_a_file) {
        FakeTree *t = unit_tree(NULL);

        ck_assert_int_eq(mkfifoat(t->fd, "fifo.conf", 0600), 0);
        load_fails(t->fd, "fifo.conf", -EBADFD, "fifo.conf: not a regular file");
        ck_assert_int_eq(symlinkat("/dev/zero", t->fd, "zero.conf"), 0);
        load_fails(t->fd, "zero.conf", -EBADFD, "zero.conf: not a regular file");
        ck_assert_int_eq(symlinkat("fifo.conf", t->fd, "fifo-link.conf"), 0);
        load_fails(t->fd, "fifo-link.conf", -EBADFD, "fifo-link.conf: not a regular file");
        load_fails(t->fd, "proc", -EBADFD, "proc: not a regular file");
}
END_TEST

START_TEST(test_log_levels) {
        static const char *const names[] = { "err", "warning", "notice", "info", "debug" };
        LogLevel l = LOG_LEVEL_ERR;

        for (unsigned i = 0; i < 5; i++) {
                ck_assert_int_eq(log_level_from_string(names[i], &l), 0);
                ck_assert_int_eq(l, (int) (LOG_LEVEL_ERR + i));
                ck_assert_str_eq(log_level_to_string(l), names[i]);
                char text[64];
                snprintf(text, sizeof(text), "{\"log_level\": \"%s\"}", names[i]);
                ck_assert_int_eq(parse_ok(text).log_level, l);
        }
        ck_assert_int_eq(log_level_from_string("emerg", &l), -EINVAL);
        ck_assert_int_eq(log_level_from_string("", &l), -EINVAL);
        ck_assert_int_eq(l, LOG_LEVEL_DEBUG);
        ck_assert_ptr_null(log_level_to_string((LogLevel) 2));
        ck_assert_ptr_null(log_level_to_string((LogLevel) 8));
}
END_TEST

START_TEST(test_policy_keys) {
        Config c = parse_ok("{ \"mode\": \"observe\", \"calibrate_on_first_start\": false,\n"
                            "  \"governor_hold_usec\": 0 }");

        ck_assert_int_eq(c.mode, DAEMON_MODE_OBSERVE);
        ck_assert_int_eq(c.calibrate_on_first_start, 0);
        ck_assert_uint_eq(c.governor_hold_usec, 0);
        c = parse_ok("{ \"mode\": \"enforce\", \"calibrate_on_first_start\": true,"
                     " \"governor_hold_usec\": 3600000000 }");
        ck_assert_int_eq(c.mode, DAEMON_MODE_ENFORCE);
        ck_assert_int_eq(c.calibrate_on_first_start, 1);
        ck_assert_uint_eq(c.governor_hold_usec, CONFIG_GOVERNOR_HOLD_USEC_MAX);

        key_fails("{\"mode\": \"Observe\"}", "mode", MODE_REASON);
        key_fails("{\"mode\": \"\"}", "mode", MODE_REASON);
        key_fails("{\"mode\": 1}", "mode", MODE_REASON);
        key_fails("{\"calibrate_on_first_start\": 1}", "calibrate_on_first_start", BOOL_REASON);
        key_fails("{\"calibrate_on_first_start\": \"yes\"}", "calibrate_on_first_start", BOOL_REASON);
        ck_assert(!c.follow_power_profiles);                 /* the default */
        c = parse_ok("{ \"follow_power_profiles\": true }");
        ck_assert(c.follow_power_profiles);
        c = parse_ok("{ \"follow_power_profiles\": false }");
        ck_assert(!c.follow_power_profiles);
        key_fails("{\"follow_power_profiles\": 1}", "follow_power_profiles", BOOL_REASON);
        key_fails("{\"follow_power_profiles\": \"true\"}", "follow_power_profiles", BOOL_REASON);
        key_fails("{\"governor_hold_usec\": -1}", "governor_hold_usec", HOLD_REASON);
        key_fails("{\"governor_hold_usec\": 3600000001}", "governor_hold_usec", HOLD_REASON);
        key_fails("{\"governor_hold_usec\": 1.5}", "governor_hold_usec", HOLD_REASON);
}
END_TEST

/* The poll search's short tick: the tick's bounds, apart from it. */
START_TEST(test_poll_search_tick) {
        static const char *const bad[] = { "9999", "0", "3600000001", "-100000", "100000.5", "\"100000\"", "null" };
        Config c = parse_ok("{ \"poll_search_tick_usec\": 10000 }");

        ck_assert_uint_eq(c.poll_search_tick_usec, CONFIG_TICK_USEC_MIN);
        ck_assert_uint_eq(c.tick_usec, CONFIG_TICK_USEC_DEFAULT);
        c = parse_ok("{ \"poll_search_tick_usec\": 3600000000, \"tick_usec\": 20000 }");
        ck_assert_uint_eq(c.poll_search_tick_usec, CONFIG_TICK_USEC_MAX);
        ck_assert_uint_eq(c.tick_usec, 20000);
        c = parse_ok("{ \"tick_usec\": 250000 }");
        ck_assert_uint_eq(c.poll_search_tick_usec, CONFIG_SEARCH_TICK_USEC_DEFAULT);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char text[128];

                /* after a good tick: nothing applied */
                snprintf(text, sizeof(text), "{\"tick_usec\": 20000, \"poll_search_tick_usec\": %s}", bad[i]);
                key_fails(text, "poll_search_tick_usec", TICK_REASON);
        }
}
END_TEST

#define QUIET_REASON "must be 0 (no light ticks) or an integer between 10000 and 3600000000"
#define LONG_REASON "must be 0 (no long ticks) or an integer between 10000 and 3600000000"

/* A key that is 0 (off) or within the tick's bounds (parse_tick_or_off):
 * its default, 0, both bounds, and values that fail naming it with reason
 * after a good key (nothing applied); field reads the key's value. */
static void check_tick_or_off(const char *key, uint64_t (*field)(const Config *c), uint64_t def,
                              const char *reason) {
        static const char *const bad[] = { "9999", "1", "3600000001", "-1", "4000000.5", "\"4000000\"", "true",
                                           "false", "null" };
        static const struct { const char *value; uint64_t want; } good[] = {
                { "0", 0 }, { "10000", CONFIG_TICK_USEC_MIN }, { "3600000000", CONFIG_TICK_USEC_MAX },
        };
        char text[128];
        Config c = parse_ok("{ \"tick_usec\": 250000 }");

        ck_assert_uint_eq(field(&c), def);
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                snprintf(text, sizeof(text), "{ \"%s\": %s }", key, good[i].value);
                c = parse_ok(text);
                ck_assert_uint_eq(field(&c), good[i].want);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                snprintf(text, sizeof(text), "{\"tick_usec\": 20000, \"%s\": %s}", key, bad[i]);
                key_fails(text, key, reason);
        }
}

static uint64_t quiet_full_tick(const Config *c) {
        return c->quiet_full_tick_usec;
}

static uint64_t quiet_tick(const Config *c) {
        return c->quiet_tick_usec;
}

/* The longest stretch of light ticks, and the long tick while quiet. */
START_TEST(test_quiet_full_tick) {
        check_tick_or_off("quiet_full_tick_usec", quiet_full_tick, CONFIG_QUIET_FULL_TICK_USEC_DEFAULT, QUIET_REASON);
}
END_TEST

START_TEST(test_quiet_tick) {
        check_tick_or_off("quiet_tick_usec", quiet_tick, CONFIG_QUIET_TICK_USEC_DEFAULT, LONG_REASON);
}
END_TEST

#define FILES_REASON "must be an integer between 0 and 1000000000"

START_TEST(test_sample_files_per_tick) {
        Config c = parse_ok("{ \"sample_files_per_tick\": 0 }");

        ck_assert_uint_eq(c.sample_files_per_tick, 0);
        c = parse_ok("{ \"sample_files_per_tick\": 1000000000 }");
        ck_assert_uint_eq(c.sample_files_per_tick, CONFIG_SAMPLE_FILES_PER_TICK_MAX);
        key_fails("{\"sample_files_per_tick\": -1}", "sample_files_per_tick", FILES_REASON);
        key_fails("{\"sample_files_per_tick\": 1000000001}", "sample_files_per_tick", FILES_REASON);
        key_fails("{\"sample_files_per_tick\": \"4000\"}", "sample_files_per_tick", FILES_REASON);
}
END_TEST

#define TEXTFILE_REASON "must be \"\" (none) or an absolute path ending in \".prom\" shorter than 256 characters"
#define EVERY_REASON "must be an integer between 1 and 1000000"

START_TEST(test_metrics_keys) {
        static const struct {
                const char *text, *key, *reason;
        } bad[] = {
                { "{\"metrics_textfile\": \"idlepolicy.prom\"}", "metrics_textfile", TEXTFILE_REASON },
                { "{\"metrics_textfile\": \"/var/lib/idlepolicy.txt\"}", "metrics_textfile", TEXTFILE_REASON },
                { "{\"metrics_textfile\": \"/var/lib/.prom\"}", "metrics_textfile", TEXTFILE_REASON },
                { "{\"metrics_textfile\": 1}", "metrics_textfile", TEXTFILE_REASON },
                { "{\"metrics_every_ticks\": 0}", "metrics_every_ticks", EVERY_REASON },
                { "{\"metrics_every_ticks\": 1000001}", "metrics_every_ticks", EVERY_REASON },
                { "{\"metrics_every_ticks\": \"10\"}", "metrics_every_ticks", EVERY_REASON },
        };
        Config c;

        config_init(&c);
        ck_assert_str_eq(c.metrics_textfile, "");
        ck_assert_uint_eq(c.metrics_every_ticks, CONFIG_METRICS_EVERY_TICKS_DEFAULT);
        c = parse_ok("{ \"metrics_textfile\": \"/var/lib/prometheus/node-exporter/idlepolicy.prom\", "
                     "\"metrics_every_ticks\": 1 }");
        ck_assert_str_eq(c.metrics_textfile, "/var/lib/prometheus/node-exporter/idlepolicy.prom");
        ck_assert_uint_eq(c.metrics_every_ticks, 1);
        c = parse_ok("{ \"metrics_textfile\": \"\", \"metrics_every_ticks\": 1000000 }");
        ck_assert_str_eq(c.metrics_textfile, "");
        ck_assert_uint_eq(c.metrics_every_ticks, CONFIG_METRICS_EVERY_TICKS_MAX);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                key_fails(bad[i].text, bad[i].key, bad[i].reason);
}
END_TEST

START_TEST(test_modes) {
        DaemonMode m = DAEMON_MODE_ENFORCE;

        ck_assert_str_eq(daemon_mode_to_string(DAEMON_MODE_OBSERVE), "observe");
        ck_assert_str_eq(daemon_mode_to_string(DAEMON_MODE_ENFORCE), "enforce");
        ck_assert_ptr_null(daemon_mode_to_string(_DAEMON_MODE_MAX));
        ck_assert_int_eq(daemon_mode_from_string("observe", &m), 0);
        ck_assert_int_eq(m, DAEMON_MODE_OBSERVE);
        ck_assert_int_eq(daemon_mode_from_string("enforcing", &m), -EINVAL);
        ck_assert_int_eq(m, DAEMON_MODE_OBSERVE);
}
END_TEST

int main(void) {
        Suite *s = suite_create("config");
        TCase *tc = unit_tcase(s, "core");

        tcase_add_test(tc, test_defaults);
        tcase_add_test(tc, test_full_and_partial);
        tcase_add_test(tc, test_syntax_errors);
        tcase_add_test(tc, test_bad_keys);
        tcase_add_test(tc, test_path_length);
        tcase_add_test(tc, test_load_file);
        tcase_add_test(tc, test_load_not_a_file);
        tcase_add_test(tc, test_log_levels);
        tcase_add_test(tc, test_policy_keys);
        tcase_add_test(tc, test_poll_search_tick);
        tcase_add_test(tc, test_quiet_full_tick);
        tcase_add_test(tc, test_quiet_tick);
        tcase_add_test(tc, test_sample_files_per_tick);
        tcase_add_test(tc, test_metrics_keys);
        tcase_add_test(tc, test_modes);
        return unit_run(s);
}
