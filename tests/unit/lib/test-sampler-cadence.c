/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sampler with a cadence (sampler-cadence.h): which files a partial
 * sample reads, what it carries over, and garbage in a skipped file. */
#include <errno.h>

#include "test-sampler-helpers.h"

static unsigned read_count(CpuidleSampler *s, CpuidleCpuSample *out) {
        read_ok(s, out);
        return cpuidle_sampler_files_read(s);
}

START_TEST(test_cadence_args) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);

        ck_assert_uint_eq(cpuidle_sampler_files_read(s), 0);
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, 1u << 7, 10), -EINVAL);
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, CPUIDLE_SAMPLER_SLOW_TIER, 0), -EINVAL);
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, FLAGS_ALL, CPUIDLE_SAMPLER_FULL_EVERY_DEFAULT), 0);
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, 0, 1), 0);
}
END_TEST

/* 2 CPUs x 2 states: the governor, then per CPU the resume latency and six
 * counters per state in a full sample; what each flag leaves out of a
 * partial one; full_every 1 or no flags: always full. */
START_TEST(test_cadence_files_read) {
        static const struct { unsigned flags, full_every, partial; } cases[] = {
                { 0, 5, 27 }, { FLAGS_ALL, 1, 27 },
                { CPUIDLE_SAMPLER_SLOW_TIER, 5, 1 + 2 * 2 * 4 },
                { CPUIDLE_SAMPLER_USAGE_GATE, 5, 1 + 2 * (1 + 2 * 3) },
                { FLAGS_ALL, 5, 1 + 2 * 2 },
        };
        FakeTree *t = unit_tree(NULL);
        FakeCounters d = { .usage = 1, .time_us = 10 };
        CpuidleCpuSample out[2];

        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);

                ck_assert_int_eq(cpuidle_sampler_set_cadence(s, cases[i].flags, cases[i].full_every), 0);
                ck_assert_uint_eq(read_count(s, out), 27);
                for (unsigned n = 1; n < cases[i].full_every; n++)
                        ck_assert_uint_eq(read_count(s, out), cases[i].partial);
                ck_assert_uint_eq(read_count(s, out), 27);
        }

        /* the gate: a state whose usage moved is read whole at that sample
         * and the next; request_full() makes the next sample full */
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, FLAGS_ALL, 100), 0);
        ck_assert_uint_eq(read_count(s, out), 27);
        ck_assert_uint_eq(read_count(s, out), 5);
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        ck_assert_uint_eq(read_count(s, out), 8);
        ck_assert_uint_eq(read_count(s, out), 8);
        ck_assert_uint_eq(read_count(s, out), 5);
        cpuidle_sampler_request_full(s);
        ck_assert_uint_eq(read_count(s, out), 27);
        ck_assert_uint_eq(read_count(s, out), 5);
}
END_TEST

/* rejected, disable and the resume latency: carried over by partial
 * samples, read by full ones, by the first after request_full() and by the
 * first after a reopen. */
START_TEST(test_cadence_slow_tier) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        const char *qos = CPU_DIR "/cpu1/power/pm_qos_resume_latency_us";
        FakeCounters d = { .rejected = 4 };
        CpuidleCpuSample out[2];

        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, CPUIDLE_SAMPLER_SLOW_TIER, 3), 0);
        read_ok(s, out);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/disable", "1\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, qos, "20\n"), 0);
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        for (unsigned n = 0; n < 2; n++) {
                read_ok(s, out);
                ck_assert(!out[0].states[1].disabled);
                ck_assert_uint_eq(out[0].states[1].rejected, 0);
                ck_assert(out[1].has_resume_latency);
                ck_assert_uint_eq(out[1].resume_latency_us, 0);
        }
        read_ok(s, out);                                /* the third: full */
        ck_assert(out[0].states[1].disabled);
        ck_assert_uint_eq(out[0].states[1].rejected, 4);
        ck_assert_uint_eq(out[1].resume_latency_us, 20);

        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/disable", "0\n"), 0);
        read_ok(s, out);
        ck_assert(out[0].states[1].disabled);           /* carried over */
        cpuidle_sampler_request_full(s);
        read_ok(s, out);
        ck_assert(!out[0].states[1].disabled);
        uint64_t g = out[0].generation;

        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/disable", "1\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, qos, "n/a\n"), 0);
        cpuidle_sampler_invalidate(s);
        read_ok(s, out);
        ck_assert_uint_gt(out[0].generation, g);
        ck_assert(out[0].states[1].disabled);
        ck_assert_uint_eq(out[1].resume_latency_us, CPUIDLE_RESUME_LATENCY_NA);
}
END_TEST

/* time, above and below follow usage: read when it moved at this sample or
 * the previous one, else carried over (a test tree can change them alone;
 * the kernel cannot). */
START_TEST(test_cadence_usage_gate) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        FakeCounters d = { .usage = 1, .time_us = 10, .above = 1, .below = 2 };
        CpuidleCpuSample out[2];

        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, CPUIDLE_SAMPLER_USAGE_GATE, 100), 0);
        read_ok(s, out);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/time", "777\n"), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].time_us, 0);
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].usage, 1);
        ck_assert_uint_eq(out[0].states[1].time_us, 787);
        ck_assert_uint_eq(out[0].states[1].above, 1);
        ck_assert_uint_eq(out[0].states[1].below, 2);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/above", "3\n"), 0);
        read_ok(s, out);                                /* the sample after a move */
        ck_assert_uint_eq(out[0].states[1].above, 3);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/above", "5\n"), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].above, 3);
        ck_assert_uint_eq(out[0].states[1].time_us, 787);
        ck_assert_uint_eq(out[1].states[1].usage, 0);   /* the other CPU untouched */
        cpuidle_sampler_request_full(s);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].above, 5);
}
END_TEST

/* Garbage in a file a partial sample skips is reported when it is read;
 * after a failed sample the next one is full. */
START_TEST(test_cadence_garbage) {
        FakeTree *t = unit_tree(NULL);
        _cleanup_cpuidle_sampler_ CpuidleSampler *s = sampler_ok(t->fd);
        FakeCounters d = { .usage = 1 };
        CpuidleCpuSample out[2];

        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, FLAGS_ALL, 100), 0);
        read_ok(s, out);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/rejected", "x\n"), 0);
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/below", "-1\n"), 0);
        read_ok(s, out);                                /* neither read */
        ck_assert_int_eq(faketree_bump_state(t->fd, 0, 1, &d), 0);
        read_fails(s, out, -EBADMSG, STATE1 "/below: invalid number \"-1\"");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/below", "0\n"), 0);
        read_fails(s, out, -EBADMSG, STATE1 "/rejected: invalid number \"x\"");
        ck_assert_int_eq(faketree_write(t->fd, STATE1 "/rejected", "0\n"), 0);
        read_ok(s, out);
        ck_assert_uint_eq(out[0].states[1].usage, 1);
        ck_assert_uint_eq(cpuidle_sampler_files_read(s), 27);   /* still full: the last one failed */
        ck_assert_uint_eq(read_count(s, out), 5 + 3);           /* usage moved at the previous one */
}
END_TEST

int main(void) {
        Suite *s = suite_create("sampler-cadence");
        TCase *cadence = unit_tcase(s, "cadence");

        tcase_add_test(cadence, test_cadence_args);
        tcase_add_test(cadence, test_cadence_files_read);
        tcase_add_test(cadence, test_cadence_slow_tier);
        tcase_add_test(cadence, test_cadence_usage_gate);
        tcase_add_test(cadence, test_cadence_garbage);
        return unit_run(s);
}
