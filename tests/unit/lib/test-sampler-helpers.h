/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared bits of the cpuidle sampler's tests (test-cpuidle-sampler.c,
 * test-sampler-cadence.c, test-sampler-budget.c): the fake tree's paths,
 * samplers made in either mode, reads that must succeed or fail. */

#include "cpuidle.h"
#include "sampler-cadence.h"
#include "unit.h"

#define CPU_DIR "sys/devices/system/cpu"
#define CPUIDLE_DIR CPU_DIR "/cpuidle"
#define STATE1 CPU_DIR "/cpu0/cpuidle/state1"

/* The state table a governor switch brings in (the tree's default has 2). */
static const FakeState switch_table[] = {
        { "POLL", "CPUIDLE CORE POLL IDLE", 0, 0 },
        { "C1", "MWAIT 0x00", 2, 2 },
        { "C6", "MWAIT 0x20", 133, 400 },
};

/* Both cadence flags: partial samples skip all they may. */
#define FLAGS_ALL (CPUIDLE_SAMPLER_SLOW_TIER | CPUIDLE_SAMPLER_USAGE_GATE)

/* Sampler modes the loop tests run in (_i): every sample full (the
 * default), or partial samples skipping all they may, with a full one only
 * after an open, an error or cpuidle_sampler_request_full().  In the latter
 * the full first sample is taken here, so the test's own reads are partial
 * unless the sampler has a reason to read everything. */
enum { MODE_FULL, MODE_PARTIAL, _MODE_MAX };

static inline void set_mode(CpuidleSampler *s, int mode) {
        _cleanup_free_ CpuidleCpuSample *out = NULL;
        ErrorInfo e = {};

        if (mode != MODE_PARTIAL)
                return;
        ck_assert_int_eq(cpuidle_sampler_set_cadence(s, CPUIDLE_SAMPLER_SLOW_TIER | CPUIDLE_SAMPLER_USAGE_GATE,
                                                     1000), 0);
        out = calloc(cpuidle_sampler_n_cpus(s), sizeof(*out));
        ck_assert_ptr_nonnull(out);
        ck_assert_msg(cpuidle_sampler_read(s, out, &e) == 0, "cpuidle_sampler_read: %s", e.message);
}

/* A sampler over the tree's current topology, in mode. */
static inline CpuidleSampler *sampler_mode(int fd, int mode) {
        _cleanup_topology_ Topology *t = NULL;
        CpuidleSampler *s = NULL;
        ErrorInfo e = {};

        ck_assert_msg(topology_load(fd, &t, &e) == 0, "topology_load: %s", e.message);
        ck_assert_msg(cpuidle_sampler_new(fd, t, &s, &e) == 0, "cpuidle_sampler_new: %s", e.message);
        set_mode(s, mode);
        return s;
}

static inline CpuidleSampler *sampler_ok(int fd) {
        return sampler_mode(fd, MODE_FULL);
}

static inline void read_ok(CpuidleSampler *s, CpuidleCpuSample *out) {
        ErrorInfo e = {};

        ck_assert_msg(cpuidle_sampler_read(s, out, &e) == 0, "cpuidle_sampler_read: %s", e.message);
}

static inline void read_fails(CpuidleSampler *s, CpuidleCpuSample *out, int error, const char *needle) {
        ErrorInfo e = {};

        ck_assert_int_eq(cpuidle_sampler_read(s, out, &e), error);
        ck_assert_msg_has(e, needle);
}
