/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* State tables: the parser, its line-numbered errors, the shipped tables. */
#include <dirent.h>
#include <errno.h>

#include "test-sim-helpers.h"

static const char *tables_dir;

START_TEST(test_parse_full) {
        SimTable t = table_from("# POWER9 DD1\n"
                                "\n"
                                "set ipi-us 3\n"
                                "snooze 0 0 polling\n"
                                "  stop0_lite   0  2   1 10   # mis-described\n"
                                "\"deep one\" 100 10000 disabled\n");

        ck_assert_str_eq(t.name, "test");
        ck_assert_uint_eq(t.n_states, 3);
        ck_assert_uint_eq(t.ipi_ns, US(3));
        ck_assert(t.states[0].polling);
        ck_assert(!t.states[1].polling);
        ck_assert_uint_eq(t.states[1].advertised.exit_latency_ns, 0);
        ck_assert_uint_eq(t.states[1].advertised.target_residency_ns, US(2));
        ck_assert_uint_eq(t.states[1].real.exit_latency_ns, US(1));
        ck_assert_uint_eq(t.states[1].real.target_residency_ns, US(10));
        ck_assert_str_eq(t.states[2].name, "deep one");
        ck_assert(t.states[2].disabled);
        ck_assert_uint_eq(t.states[2].real.target_residency_ns, MS(10));   /* real = advertised */
}
END_TEST

static void expect_error(const char *text, const char *message) {
        char msg[512];

        ck_assert_int_eq(table_error(text, msg, sizeof(msg)), -EBADMSG);
        ck_assert_msg(strstr(msg, message), "\"%s\" does not contain \"%s\"", msg, message);
}

START_TEST(test_parse_errors) {
        expect_error("", "line 0: no states");
        expect_error("# only comments\n\n", "line 2: no states");
        expect_error("C1 2\n", "line 1: expected NAME");
        expect_error("POLL 0 0\nC1 x 2\n", "line 2: exit latency: not a number: \"x\"");
        expect_error("C1 2 -2\n", "line 1: target residency: not a number");
        expect_error("C1 2 2 fast\n", "line 1: unknown flag \"fast\"");
        expect_error("C1 2 2\nC1 3 3\n", "line 2: duplicate state \"C1\"");
        expect_error("C1 2 20\nC1E 10 10\n", "line 2: target residency below");
        expect_error("C1 2 2 1\n", "line 1: real costs need both");
        expect_error("C1 2 2 1 x\n", "line 1: real costs need both");
        expect_error("\"C1 2 2\n", "line 1: unterminated quote");
        expect_error("\"C1\"x 2 2\n", "line 1: text after closing quote");
        expect_error("set ipi 2\n", "line 1: unknown setting \"ipi\"");
        expect_error("set ipi-us\n", "line 1: expected \"set KEY VALUE\"");
        expect_error("C1 2 10000001\n", "line 1: target residency: 10000001 µs is more than 10 s");
        expect_error("a_name_that_is_far_too_long_for_a_state 1 1\n", "line 1: state name");
        expect_error("s0 0 0\ns1 0 0\ns2 0 0\ns3 0 0\ns4 0 0\ns5 0 0\ns6 0 0\ns7 0 0\ns8 0 0\ns9 0 0\ns10 0 0\n",
                     "line 11: more than 10 states");
}
END_TEST

START_TEST(test_helpers) {
        SimTable t = table_from(TABLE_SKYLAKE);

        ck_assert_uint_eq(sim_table_poll_limit_ns(&t), US(2));          /* C1's residency */
        ck_assert_int_eq(sim_table_set_disabled(&t, "C1", true), 0);
        ck_assert_uint_eq(sim_table_poll_limit_ns(&t), US(20));         /* now C1E's */
        ck_assert_int_eq(sim_table_enabled_from(&t, 1, +1), 2);
        ck_assert_int_eq(sim_table_enabled_from(&t, 1, -1), 0);
        ck_assert_int_eq(sim_table_set_disabled(&t, "0", true), 0);      /* by index */
        ck_assert_uint_eq(sim_table_first_enabled(&t), 2);
        ck_assert_int_eq(sim_table_enabled_from(&t, 1, -1), -1);
        ck_assert_int_eq(sim_table_set_disabled(&t, "C7", true), -ENOENT);
        ck_assert_int_eq(sim_table_set_disabled(&t, "4", true), -ENOENT);
        for (unsigned i = 0; i < t.n_states; i++)
                t.states[i].disabled = true;
        ck_assert_uint_eq(sim_table_first_enabled(&t), 0);
        ck_assert_uint_eq(sim_table_poll_limit_ns(&t), MS(4));           /* a tick */
}
END_TEST

/* Every shipped table parses and lists its states shallowest first. */
START_TEST(test_shipped_tables) {
        DIR *d = opendir(tables_dir);
        struct dirent *de;
        unsigned n = 0;

        ck_assert_ptr_nonnull(d);
        while ((de = readdir(d))) {
                char path[4096];
                ErrorInfo e = {};
                SimTable t;
                FILE *f;

                if (!strstr(de->d_name, ".table"))
                        continue;
                snprintf(path, sizeof(path), "%s/%s", tables_dir, de->d_name);
                f = fopen(path, "re");
                ck_assert_ptr_nonnull(f);
                ck_assert_msg(sim_table_parse(f, de->d_name, &t, &e) == 0, "%s: %s", path, e.message);
                ck_assert_uint_ge(t.n_states, 2);
                fclose(f);
                n++;
        }
        closedir(d);
        ck_assert_uint_ge(n, 9);
}
END_TEST

int main(int argc, char *argv[]) {
        Suite *s = suite_create("sim-table");
        TCase *tc = tcase_create("table");

        tables_dir = argc > 1 ? argv[1] : "sim/tables";
        tcase_add_test(tc, test_parse_full);
        tcase_add_test(tc, test_parse_errors);
        tcase_add_test(tc, test_helpers);
        tcase_add_test(tc, test_shipped_tables);
        suite_add_tcase(s, tc);
        return run_suite(s);
}
