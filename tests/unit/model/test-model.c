/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The weighted-history model: prior, convergence, per-wakeup rate, aging,
 * clamps, normalisation, 1/2/10 states. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "test-model-helpers.h"
#include "model.h"

static const ModelParams params = { .learn_shift = 6, .age_shift = 3, .clamp = MODEL_CLAMP_DEFAULT };

static void all_enabled(bool enabled[MODEL_STATES_MAX]) {
        for (unsigned i = 0; i < MODEL_STATES_MAX; i++)
                enabled[i] = true;
}

/* Learns ticks ticks of evidence ev for state s only (the other rows age). */
static void learn_ticks(ModelCpu *m, unsigned s, ModelEvidence ev, unsigned ticks, const ModelParams *p) {
        ModelEvidence evs[MODEL_STATES_MAX] = {};
        bool enabled[MODEL_STATES_MAX];

        all_enabled(enabled);
        evs[s] = ev;
        for (unsigned i = 0; i < ticks; i++)
                ck_assert_int_eq(model_cpu_learn(m, evs, enabled, p), 0);
}

static void assert_row_ok(const ModelCpu *m, unsigned s, unsigned clamp) {
        unsigned sum = 0;

        for (unsigned j = 0; j < m->n_states; j++) {
                if (m->n_states > 1) {
                        ck_assert_uint_ge(m->w[s][j], clamp);
                        ck_assert_uint_le(m->w[s][j], MODEL_ONE - clamp * (m->n_states - 1));
                }
                sum += m->w[s][j];
        }
        ck_assert_uint_eq(sum, MODEL_ONE);
        for (unsigned j = m->n_states; j < MODEL_STATES_MAX; j++)
                ck_assert_uint_eq(m->w[s][j], 0);
}

static unsigned absdiff(unsigned a, unsigned b) {
        return a > b ? a - b : b - a;
}

START_TEST(test_prior) {
        ModelCpu m;

        ck_assert_int_eq(model_cpu_init(&m, 0), -EINVAL);
        ck_assert_int_eq(model_cpu_init(&m, MODEL_STATES_MAX + 1), -EINVAL);
        ck_assert_int_eq(model_cpu_init(&m, 1), 0);
        ck_assert_uint_eq(m.w[0][0], MODEL_ONE);
        ck_assert_int_eq(model_cpu_init(&m, 2), 0);
        ck_assert_uint_eq(m.w[0][0], 614);
        ck_assert_uint_eq(m.w[0][1], 410);
        ck_assert_uint_eq(m.w[1][0], 410);
        ck_assert_int_eq(model_cpu_init(&m, 10), 0);
        for (unsigned s = 0; s < 10; s++) {
                assert_row_ok(&m, s, 0);
                ck_assert_uint_eq(m.w[s][s], MODEL_PRIOR_SELF);
                for (unsigned j = 0; j < 10; j++)
                        if (j != s)
                                ck_assert(m.w[s][j] == 45 || m.w[s][j] == 46);
        }
        ck_assert_uint_eq(model_row_shallower(&m, 0), 0);
        ck_assert_uint_eq(model_row_deeper(&m, 9), 0);
        ck_assert_uint_eq(model_row_shallower(&m, 9) + MODEL_PRIOR_SELF, MODEL_ONE);
}
END_TEST

START_TEST(test_keep_q16) {
        ck_assert_uint_eq(model_keep_q16(6, 0), 65536);
        ck_assert_uint_eq(model_keep_q16(1, 1), 32768);
        ck_assert_uint_eq(model_keep_q16(1, 2), 16384);
        ck_assert_uint_eq(model_keep_q16(6, 1), 65536 - 1024);
        ck_assert_uint_eq(model_keep_q16(15, 1), 65534);
        ck_assert_uint_eq(model_keep_q16(15, 10), 65516);
        ck_assert_uint_eq(model_keep_q16(6, 100000), 0);
        ck_assert_uint_eq(model_keep_q16(15, UINT64_MAX), 0);
        /* (63/64)^64 = 0.3650 */
        ck_assert_uint_le(absdiff(model_keep_q16(6, 64), 23921), 8);
}
END_TEST

/* A steady 20% too deep, 10% too shallow in state 2 of 4: the row settles
 * on [clamp, 205, 717, 102], the clamp paid by the largest weight. */
START_TEST(test_convergence) {
        ModelCpu m;

        model_cpu_init(&m, 4);
        learn_ticks(&m, 2, (ModelEvidence) { .usage = 1000, .too_deep = 200, .too_shallow = 100 }, 50, &params);
        assert_row_ok(&m, 2, params.clamp);
        ck_assert_uint_eq(m.w[2][0], params.clamp);
        ck_assert_uint_le(absdiff(m.w[2][1], 205), 1);
        ck_assert_uint_le(absdiff(m.w[2][2], 717 - params.clamp), 1);
        ck_assert_uint_le(absdiff(m.w[2][3], 102), 1);
        ck_assert_uint_le(absdiff(model_row_shallower(&m, 2), 205 + params.clamp), 1);
        ck_assert_uint_eq(m.learned[2], 50000);
        ck_assert_uint_eq(m.learned[1], 0);
}
END_TEST

/* 10 wakeups a tick for 2000 ticks teach what 20000 wakeups in one tick
 * do, at the slowest rate as at a fast one. */
START_TEST(test_per_wakeup_rate) {
        static const unsigned shifts[] = { 15, 10, 6 };

        for (unsigned i = 0; i < 3; i++) {
                ModelParams p = params;
                ModelCpu quiet, busy;

                p.learn_shift = shifts[i];
                model_cpu_init(&quiet, 3);
                model_cpu_init(&busy, 3);
                learn_ticks(&quiet, 1, (ModelEvidence) { .usage = 10, .too_deep = 3, .too_shallow = 1 }, 2000, &p);
                learn_ticks(&busy, 1, (ModelEvidence) { .usage = 20000, .too_deep = 6000, .too_shallow = 2000 }, 1, &p);
                for (unsigned j = 0; j < 3; j++)
                        ck_assert_msg(absdiff(quiet.w[1][j], busy.w[1][j]) <= 2, "k=%u j=%u quiet %u busy %u",
                                      p.learn_shift, j, quiet.w[1][j], busy.w[1][j]);
        }
        /* and at k = 15 the 20000 wakeups moved the row by 1 - e^-0.61 ≈ 46%
         * of the way: W[1][0] from 205 toward 307 */
        {
                ModelParams p = params;
                ModelCpu m;

                p.learn_shift = 15;
                model_cpu_init(&m, 3);
                learn_ticks(&m, 1, (ModelEvidence) { .usage = 20000, .too_deep = 6000, .too_shallow = 2000 }, 1, &p);
                ck_assert_uint_le(absdiff(m.w[1][0], 205 + (307 - 205) * 457 / 1000), 1);
        }
}
END_TEST

/* After the evidence stops, a row drifts back to the prior by 2^-g per tick. */
START_TEST(test_aging) {
        ModelCpu m;
        uint16_t prior[MODEL_STATES_MAX];
        unsigned before, after;

        model_cpu_init(&m, 4);
        learn_ticks(&m, 3, (ModelEvidence) { .usage = 1000, .too_deep = 1000 }, 20, &params);
        before = m.w[3][3];
        ck_assert_uint_eq(before, params.clamp);
        learn_ticks(&m, 0, (ModelEvidence) {}, 1, &params);
        after = m.w[3][3];
        /* one eighth of the way back to 614 */
        ck_assert_uint_le(absdiff(after, before + (614 - before) / 8), 1);
        learn_ticks(&m, 0, (ModelEvidence) {}, 200, &params);
        model_prior_row(4, 3, prior);
        for (unsigned j = 0; j < 4; j++)
                ck_assert_uint_le(absdiff(m.w[3][j], prior[j]), 1);
        assert_row_ok(&m, 3, params.clamp);
}
END_TEST

/* All wrong in one direction: the weights stop at the clamp. */
START_TEST(test_clamps) {
        for (unsigned clamp = 0; clamp <= MODEL_CLAMP_MAX; clamp += 17) {
                ModelParams p = params;
                ModelCpu m;

                p.clamp = clamp;
                model_cpu_init(&m, 3);
                learn_ticks(&m, 1, (ModelEvidence) { .usage = 100000, .too_deep = 100000 }, 5, &p);
                assert_row_ok(&m, 1, clamp);
                ck_assert_uint_eq(m.w[1][1], clamp);
                ck_assert_uint_eq(m.w[1][2], clamp);
                ck_assert_uint_eq(m.w[1][0], MODEL_ONE - 2 * clamp);
        }
}
END_TEST

static uint64_t lcg(uint64_t *x) {
        *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
        return *x >> 33;
}

/* Random evidence on 1..10 states, random enabled sets: every row sums to
 * 1024 and stays within the clamps after every tick. */
START_TEST(test_normalisation) {
        uint64_t x = 42;

        for (unsigned n = 1; n <= MODEL_STATES_MAX; n++) {
                ModelCpu m;

                model_cpu_init(&m, n);
                for (unsigned tick = 0; tick < 300; tick++) {
                        ModelEvidence ev[MODEL_STATES_MAX] = {};
                        bool enabled[MODEL_STATES_MAX];
                        ModelParams p = { .learn_shift = 1 + lcg(&x) % 15, .age_shift = 1 + lcg(&x) % 15,
                                          .clamp = lcg(&x) % (MODEL_CLAMP_MAX + 1) };

                        for (unsigned s = 0; s < n; s++) {
                                uint64_t u = lcg(&x) % 3 == 0 ? 0 : lcg(&x) % 100000;

                                enabled[s] = lcg(&x) % 4 != 0;
                                ev[s].usage = u;
                                ev[s].too_deep = u ? lcg(&x) % (u + 1) : 0;
                                ev[s].too_shallow = u ? lcg(&x) % (u - ev[s].too_deep + 1) : 0;
                        }
                        ck_assert_int_eq(model_cpu_learn(&m, ev, enabled, &p), 0);
                        for (unsigned s = 0; s < n; s++)
                                assert_row_ok(&m, s, p.clamp);
                }
        }
}
END_TEST

START_TEST(test_one_state) {
        ModelCpu m;

        model_cpu_init(&m, 1);
        learn_ticks(&m, 0, (ModelEvidence) { .usage = 50, .too_deep = 20, .too_shallow = 20 }, 10, &params);
        ck_assert_uint_eq(m.w[0][0], MODEL_ONE);
        learn_ticks(&m, 0, (ModelEvidence) {}, 10, &params);
        ck_assert_uint_eq(m.w[0][0], MODEL_ONE);
}
END_TEST

/* The KVM shape: POLL and halt, halt too deep three times in four. */
START_TEST(test_two_states) {
        ModelCpu m;

        model_cpu_init(&m, 2);
        learn_ticks(&m, 1, (ModelEvidence) { .usage = 4000, .too_deep = 3000 }, 30, &params);
        assert_row_ok(&m, 1, params.clamp);
        ck_assert_uint_le(absdiff(m.w[1][0], 768), 1);
        ck_assert_uint_le(absdiff(m.w[1][1], 256), 1);
}
END_TEST

/* Ten states: the too-deep share lands on the next ENABLED shallower state,
 * the too-shallow share on the next enabled deeper one; with none enabled
 * that way, on the adjacent state (the producer estimated against it). */
START_TEST(test_ten_states_targets) {
        ModelEvidence ev[MODEL_STATES_MAX] = {};
        bool enabled[MODEL_STATES_MAX];
        ModelCpu m;

        all_enabled(enabled);
        enabled[4] = enabled[3] = false;
        enabled[6] = false;
        enabled[8] = enabled[9] = false;
        model_cpu_init(&m, 10);
        ev[5] = (ModelEvidence) { .usage = 1000, .too_deep = 500, .too_shallow = 250 };
        ev[7] = (ModelEvidence) { .usage = 1000, .too_shallow = 1000 };
        ev[0] = (ModelEvidence) { .usage = 1000, .too_deep = 1000 };
        for (unsigned i = 0; i < 40; i++)
                model_cpu_learn(&m, ev, enabled, &params);
        ck_assert_uint_ge(m.w[5][2], 512 - 9 * params.clamp);   /* the clamps are paid by the largest */
        ck_assert_uint_ge(m.w[5][7], 250);
        ck_assert_uint_le(m.w[5][4], params.clamp + 1);
        ck_assert_uint_le(m.w[5][6], params.clamp + 1);
        ck_assert_uint_ge(m.w[7][8], MODEL_ONE - 9 * params.clamp);     /* no enabled deeper: adjacent */
        ck_assert_uint_ge(m.w[0][0], MODEL_ONE - 9 * params.clamp);     /* nothing shallower: right */
        for (unsigned s = 0; s < 10; s++)
                assert_row_ok(&m, s, params.clamp);
}
END_TEST

/* How much of a row is evidence: it grows as the row learns and fades as
 * the row ages, and the learned share read back from the row survives the
 * aging (only how much the row says fades, not what it says). */
START_TEST(test_evidence) {
        ModelCpu m;
        unsigned e1, learned;

        model_cpu_init(&m, 4);
        ck_assert_uint_eq(model_row_evidence(&m, 3), 0);
        ck_assert_uint_eq(model_evidence_shallower(&m, 3), 0);
        learn_ticks(&m, 3, (ModelEvidence) { .usage = 64, .too_deep = 32 }, 1, &params);
        e1 = model_row_evidence(&m, 3);
        ck_assert_uint_le(absdiff(e1, 1024 - (model_keep_q16(6, 64) >> 6)), 1);
        learn_ticks(&m, 3, (ModelEvidence) { .usage = 1000, .too_deep = 500 }, 5, &params);
        ck_assert_uint_eq(model_row_evidence(&m, 3), 1024);
        learned = model_evidence_shallower(&m, 3);
        ck_assert_uint_le(absdiff(learned, 512), 2);
        for (unsigned i = 0; i < 5; i++) {
                unsigned before = model_row_evidence(&m, 3);

                learn_ticks(&m, 0, (ModelEvidence) {}, 1, &params);
                ck_assert_uint_le(absdiff(model_row_evidence(&m, 3), before - before / 8), 1);
                ck_assert_uint_le(absdiff(model_evidence_shallower(&m, 3), learned), 3);
        }
        ck_assert_uint_lt(model_row_shallower(&m, 3), 500);     /* the row itself drifted to the prior */
        learn_ticks(&m, 0, (ModelEvidence) {}, 200, &params);
        ck_assert_uint_eq(model_row_evidence(&m, 3), 0);
        ck_assert_uint_eq(model_evidence_shallower(&m, 3), 0);
}
END_TEST

START_TEST(test_set_row_and_params) {
        uint16_t row[MODEL_STATES_MAX] = { 100, 900, 24 };
        ModelParams bad = params;
        ModelEvidence ev[MODEL_STATES_MAX] = {};
        bool enabled[MODEL_STATES_MAX];
        ModelCpu m;

        model_cpu_init(&m, 3);
        ck_assert_int_eq(model_cpu_set_row(&m, 1, row, 4), 0);
        ck_assert_uint_eq(m.w[1][1], 900);
        ck_assert_uint_eq(m.fine[1][1], 900u << MODEL_FINE_SHIFT);
        row[2] = 23;
        ck_assert_int_eq(model_cpu_set_row(&m, 1, row, 4), -EINVAL);
        row[2] = 2, row[1] = 922;
        ck_assert_int_eq(model_cpu_set_row(&m, 1, row, 4), -EINVAL);
        ck_assert_int_eq(model_cpu_set_row(&m, 3, row, 0), -EINVAL);
        ck_assert_uint_eq(m.w[1][1], 900);

        all_enabled(enabled);
        bad.learn_shift = 0;
        ck_assert_int_eq(model_cpu_learn(&m, ev, enabled, &bad), -EINVAL);
        bad = params, bad.age_shift = 16;
        ck_assert_int_eq(model_cpu_learn(&m, ev, enabled, &bad), -EINVAL);
        bad = params, bad.clamp = MODEL_CLAMP_MAX + 1;
        ck_assert_int_eq(model_cpu_learn(&m, ev, enabled, &bad), -EINVAL);
}
END_TEST

static Suite *model_suite(void) {
        Suite *s = suite_create("model");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_prior);
        tcase_add_test(tc, test_keep_q16);
        tcase_add_test(tc, test_convergence);
        tcase_add_test(tc, test_per_wakeup_rate);
        tcase_add_test(tc, test_aging);
        tcase_add_test(tc, test_clamps);
        tcase_add_test(tc, test_normalisation);
        tcase_add_test(tc, test_one_state);
        tcase_add_test(tc, test_two_states);
        tcase_add_test(tc, test_ten_states_targets);
        tcase_add_test(tc, test_evidence);
        tcase_add_test(tc, test_set_row_and_params);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return model_test_run(model_suite());
}
