/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* teo-util: the util-aware teo (LKML 2023, in teo from 6.3 to 6.11): teo,
 * but when the CPU's utilisation is above a threshold (1/64 of its
 * capacity by default) take the next shallower non-polling state than teo
 * would, trading too-deep choices for too-shallow ones. */
#include "gov-teo.h"

static int teo_util_init(Governor *g, const GovParams *p) {
        ((Teo *) g)->util_threshold = p->util_threshold;
        return 0;
}

static unsigned teo_util_select(Governor *g, const GovInput *in) {
        Teo *t = (Teo *) g;

        return teo_select_state(t, in, in->util > t->util_threshold);
}

const GovernorOps governor_teo_util = {
        .name = "teo-util",
        .summary = "teo plus the util rule: above the threshold take the next shallower non-polling state",
        .size = sizeof(Teo),
        .init = teo_util_init,
        .select = teo_util_select,
        .reflect = teo_reflect,
};
