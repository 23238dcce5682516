/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The weighted-history model: rows W[s][·] that move toward each tick's
 * evidence at a per-wakeup rate, age back toward the RFC's 60/40 prior, and
 * stay normalised and clamped.  Integer arithmetic only: the learning state
 * is kept in 1/2^24 parts (ModelCpu.fine) and rounded to the public 1/1024
 * rows after every change. */
#include <errno.h>
#include <string.h>

#include "model.h"

#define Q16_ONE 65536u
#define U_SHIFT_LIMIT (UINT64_C(1) << 38)   /* counts above this are scaled down before << 24 */

int model_params_check(const ModelParams *p, unsigned n_states) {
        if (!p || n_states == 0 || n_states > MODEL_STATES_MAX)
                return -EINVAL;
        if (p->learn_shift < 1 || p->learn_shift > 15 || p->age_shift < 1 || p->age_shift > 15)
                return -EINVAL;
        if (p->clamp > MODEL_CLAMP_MAX)
                return -EINVAL;
        return 0;
}

void model_prior_row(unsigned n_states, unsigned s, uint16_t ret_row[static MODEL_STATES_MAX]) {
        unsigned spread, extra;

        memset(ret_row, 0, sizeof(uint16_t) * MODEL_STATES_MAX);
        if (n_states == 0 || n_states > MODEL_STATES_MAX || s >= n_states)
                return;
        if (n_states == 1) {
                ret_row[0] = MODEL_ONE;     /* the reviewers' divide-by-zero case */
                return;
        }
        spread = (MODEL_ONE - MODEL_PRIOR_SELF) / (n_states - 1);
        extra = (MODEL_ONE - MODEL_PRIOR_SELF) % (n_states - 1);
        for (unsigned j = 0; j < n_states; j++) {
                if (j == s)
                        continue;
                ret_row[j] = (uint16_t) (spread + (extra > 0));
                if (extra > 0)
                        extra--;
        }
        ret_row[s] = MODEL_PRIOR_SELF;
}

/* Rounds fine row s to w[s]: floors, then the missing units go to the
 * largest remainders (ties to the lower index). */
static void row_export(ModelCpu *m, unsigned s) {
        const uint32_t mask = (1u << MODEL_FINE_SHIFT) - 1;
        unsigned n = m->n_states, sum = 0;
        bool given[MODEL_STATES_MAX] = {};

        for (unsigned j = 0; j < n; j++) {
                m->w[s][j] = (uint16_t) (m->fine[s][j] >> MODEL_FINE_SHIFT);
                sum += m->w[s][j];
        }
        for (; sum < MODEL_ONE; sum++) {
                unsigned best = n;

                for (unsigned j = 0; j < n; j++)
                        if (!given[j] && (best == n || (m->fine[s][j] & mask) > (m->fine[s][best] & mask)))
                                best = j;
                given[best] = true;
                m->w[s][best]++;
        }
}

int model_cpu_init(ModelCpu *m, unsigned n_states) {
        if (n_states == 0 || n_states > MODEL_STATES_MAX)
                return -EINVAL;
        memset(m, 0, sizeof(*m));
        m->n_states = n_states;
        for (unsigned s = 0; s < n_states; s++) {
                model_prior_row(n_states, s, m->w[s]);
                for (unsigned j = 0; j < n_states; j++)
                        m->fine[s][j] = (uint32_t) m->w[s][j] << MODEL_FINE_SHIFT;
        }
        return 0;
}

int model_cpu_set_row(ModelCpu *m, unsigned s, const uint16_t row[], unsigned clamp) {
        unsigned sum = 0;

        if (s >= m->n_states || clamp > MODEL_CLAMP_MAX)
                return -EINVAL;
        for (unsigned j = 0; j < m->n_states; j++) {
                if (m->n_states > 1 && row[j] < clamp)
                        return -EINVAL;
                sum += row[j];
        }
        if (sum != MODEL_ONE)
                return -EINVAL;
        for (unsigned j = 0; j < m->n_states; j++) {
                m->w[s][j] = row[j];
                m->fine[s][j] = (uint32_t) row[j] << MODEL_FINE_SHIFT;
        }
        m->evidence[s] = MODEL_FINE_ONE;
        return 0;
}

static uint32_t mul_q16(uint32_t a, uint32_t b) {
        return (uint32_t) (((uint64_t) a * b + Q16_ONE / 2) >> 16);
}

uint32_t model_keep_q16(unsigned k, uint64_t u) {
        uint32_t base = Q16_ONE - (Q16_ONE >> k), result = Q16_ONE;

        for (; u > 0 && result > 0; u >>= 1) {
                if (u & 1)
                        result = mul_q16(result, base);
                base = mul_q16(base, base);
        }
        return result;
}

/* delta * num / 2^shift, rounded half away from zero. */
static int64_t scale_round(int64_t delta, uint32_t num, unsigned shift) {
        int64_t half = (int64_t) 1 << (shift - 1);
        int64_t x = delta * (int64_t) num;

        return x >= 0 ? (x + half) >> shift : -((-x + half) >> shift);
}

/* Puts the rounding residue of row s on its largest weight (ties to the
 * lower index), then lifts every weight below the clamp to it, taking the
 * excess from the largest weights first.  Leaves the row summing to
 * MODEL_FINE_ONE with every weight >= clamp. */
static void row_fix(ModelCpu *m, unsigned s, unsigned clamp) {
        int64_t f[MODEL_STATES_MAX], sum = 0, lo = (int64_t) clamp << MODEL_FINE_SHIFT, deficit = 0;
        unsigned n = m->n_states, big = 0;

        for (unsigned j = 0; j < n; j++) {
                f[j] = m->fine[s][j];
                sum += f[j];
                big = f[j] > f[big] ? j : big;
        }
        f[big] += (int64_t) MODEL_FINE_ONE - sum;
        if (n == 1)
                lo = 0;
        for (unsigned j = 0; j < n; j++)
                if (f[j] < lo) {
                        deficit += lo - f[j];
                        f[j] = lo;
                }
        while (deficit > 0) {
                int64_t take;

                big = 0;
                for (unsigned j = 1; j < n; j++)
                        big = f[j] > f[big] ? j : big;
                take = f[big] - lo < deficit ? f[big] - lo : deficit;
                f[big] -= take;
                deficit -= take;
        }
        for (unsigned j = 0; j < n; j++)
                m->fine[s][j] = (uint32_t) f[j];
}

/* The index the too-deep (dir -1) or too-shallow (dir +1) share of row s
 * belongs to: the next enabled state that way, else the adjacent state,
 * else s itself (nothing exists that way). */
static unsigned evidence_target(const ModelCpu *m, unsigned s, int dir, const bool enabled[]) {
        for (int j = (int) s + dir; j >= 0 && j < (int) m->n_states; j += dir)
                if (enabled[j])
                        return (unsigned) j;
        if ((dir < 0 && s == 0) || (dir > 0 && s + 1 >= m->n_states))
                return s;
        return (unsigned) ((int) s + dir);
}

/* The evidence distribution of row s in 1/2^24 parts. */
static void row_target(const ModelCpu *m, unsigned s, const ModelEvidence *ev, const bool enabled[],
                       int64_t ret_t[static MODEL_STATES_MAX]) {
        uint64_t u = ev->usage, deep = ev->too_deep, shallow = ev->too_shallow;
        int64_t t_deep, t_shallow;

        deep = deep < u ? deep : u;
        shallow = shallow < u - deep ? shallow : u - deep;
        while (u >= U_SHIFT_LIMIT) {
                u >>= 1;
                deep >>= 1;
                shallow >>= 1;
        }
        t_deep = (int64_t) ((deep << 24) / u);
        t_shallow = (int64_t) ((shallow << 24) / u);
        memset(ret_t, 0, sizeof(int64_t) * MODEL_STATES_MAX);
        ret_t[evidence_target(m, s, -1, enabled)] += t_deep;
        ret_t[evidence_target(m, s, +1, enabled)] += t_shallow;
        ret_t[s] += (int64_t) MODEL_FINE_ONE - t_deep - t_shallow;
}

static void row_learn(ModelCpu *m, unsigned s, const ModelEvidence *ev, const bool enabled[],
                      const ModelParams *p) {
        uint32_t alpha = Q16_ONE - model_keep_q16(p->learn_shift, ev->usage);
        int64_t t[MODEL_STATES_MAX];

        row_target(m, s, ev, enabled, t);
        for (unsigned j = 0; j < m->n_states; j++) {
                int64_t f = m->fine[s][j];

                m->fine[s][j] = (uint32_t) (f + scale_round(t[j] - f, alpha, 16));
        }
        m->evidence[s] += (uint32_t) scale_round((int64_t) MODEL_FINE_ONE - m->evidence[s], alpha, 16);
        m->learned[s] = m->learned[s] + ev->usage < m->learned[s] ? UINT64_MAX : m->learned[s] + ev->usage;
}

static void row_age(ModelCpu *m, unsigned s, const ModelParams *p) {
        uint16_t prior[MODEL_STATES_MAX];

        model_prior_row(m->n_states, s, prior);
        for (unsigned j = 0; j < m->n_states; j++) {
                int64_t f = m->fine[s][j], target = (int64_t) prior[j] << MODEL_FINE_SHIFT;

                m->fine[s][j] = (uint32_t) (f + scale_round(target - f, 1, p->age_shift));
        }
        m->evidence[s] -= (uint32_t) scale_round(m->evidence[s], 1, p->age_shift);
}

int model_cpu_learn(ModelCpu *m, const ModelEvidence ev[], const bool enabled[], const ModelParams *p) {
        int r = model_params_check(p, m->n_states);

        if (r < 0)
                return r;
        for (unsigned s = 0; s < m->n_states; s++) {
                if (ev[s].usage > 0)
                        row_learn(m, s, &ev[s], enabled, p);
                else
                        row_age(m, s, p);
                row_fix(m, s, p->clamp);
                row_export(m, s);
        }
        return 0;
}

unsigned model_row_evidence(const ModelCpu *m, unsigned s) {
        return s < m->n_states ? (m->evidence[s] + (1u << (MODEL_FINE_SHIFT - 1))) >> MODEL_FINE_SHIFT : 0;
}

/* The learned part of the fine share sum(row s, j in [lo, hi)), Q10. */
static unsigned evidence_share(const ModelCpu *m, unsigned s, unsigned lo, unsigned hi) {
        int64_t e = m->evidence[s], share = 0, prior_share = 0, learned;
        uint16_t prior[MODEL_STATES_MAX];

        if (s >= m->n_states || e == 0)
                return 0;
        model_prior_row(m->n_states, s, prior);
        for (unsigned j = lo; j < hi && j < m->n_states; j++) {
                share += m->fine[s][j];
                prior_share += (int64_t) prior[j] << MODEL_FINE_SHIFT;
        }
        learned = (share * (int64_t) MODEL_FINE_ONE - ((int64_t) MODEL_FINE_ONE - e) * prior_share) / e;
        learned = learned < 0 ? 0 : learned > (int64_t) MODEL_FINE_ONE ? (int64_t) MODEL_FINE_ONE : learned;
        return (unsigned) ((learned + (1 << (MODEL_FINE_SHIFT - 1))) >> MODEL_FINE_SHIFT);
}

unsigned model_evidence_shallower(const ModelCpu *m, unsigned s) {
        return evidence_share(m, s, 0, s);
}

unsigned model_evidence_deeper(const ModelCpu *m, unsigned s) {
        return evidence_share(m, s, s + 1, MODEL_STATES_MAX);
}

unsigned model_row_shallower(const ModelCpu *m, unsigned s) {
        unsigned sum = 0;

        for (unsigned j = 0; j < s && j < m->n_states; j++)
                sum += m->w[s][j];
        return sum;
}

unsigned model_row_deeper(const ModelCpu *m, unsigned s) {
        unsigned sum = 0;

        for (unsigned j = s + 1; j < m->n_states; j++)
                sum += m->w[s][j];
        return sum;
}
