/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* haltpoll: the KVM guest governor (Documentation/virt/guest-halt-polling
 * .rst).  Poll (state 0) for up to a per-CPU window, then halt (state 1).
 * After a halt, the window adapts to when the wakeup came:
 *   - after the window but within guest_halt_poll_ns: grow it (times
 *     guest_halt_poll_grow, at least guest_halt_poll_grow_start, at most
 *     guest_halt_poll_ns);
 *   - after guest_halt_poll_ns: shrink it (divided by guest_halt_poll_shrink,
 *     0 if that is 0), if guest_halt_poll_allow_shrink.
 * The window starts at 0 (halt at once) and a latency limit of 0 means
 * poll only.  Like the kernel's, it only runs on the cpuidle-haltpoll
 * driver's table: a polling state 0 and one halt state. */
#include <errno.h>

#include "governor.h"

typedef struct Haltpoll {
        Governor base;
        GovParams p;
        uint64_t window_ns;
        uint64_t polled_ns;       /* polled before the current halt */
        bool last_was_poll;
        bool poll_ran_out;
} Haltpoll;

static int haltpoll_init(Governor *g, const GovParams *p) {
        Haltpoll *h = (Haltpoll *) g;

        if (g->table->n_states != 2 || !g->table->states[0].polling)
                return -EOPNOTSUPP;
        h->p = *p;
        return 0;
}

static unsigned haltpoll_select(Governor *g, const GovInput *in) {
        Haltpoll *h = (Haltpoll *) g;

        if (in->latency_limit_ns == 0)
                return 0;
        if (h->window_ns == 0)
                return 1;
        if (h->last_was_poll)
                return h->poll_ran_out ? 1 : 0;
        return 0;
}

static void haltpoll_adjust(Haltpoll *h, uint64_t block_ns) {
        const GovParams *p = &h->p;

        if (block_ns > h->window_ns && block_ns <= p->halt_poll_ns) {
                uint64_t v = h->window_ns * p->halt_poll_grow;

                if (v < p->halt_poll_grow_start_ns)
                        v = p->halt_poll_grow_start_ns;
                h->window_ns = v > p->halt_poll_ns ? p->halt_poll_ns : v;
        } else if (block_ns > p->halt_poll_ns && p->halt_poll_allow_shrink)
                h->window_ns = p->halt_poll_shrink ? h->window_ns / p->halt_poll_shrink : 0;
}

static void haltpoll_reflect(Governor *g, unsigned state, uint64_t measured_ns, bool poll_timeout) {
        Haltpoll *h = (Haltpoll *) g;

        if (state == 0) {
                h->polled_ns = poll_timeout ? measured_ns : 0;
                h->last_was_poll = true;
                h->poll_ran_out = poll_timeout;
                return;
        }
        /* The wakeup came polled_ns + measured_ns after going idle. */
        haltpoll_adjust(h, h->polled_ns + measured_ns);
        h->polled_ns = 0;
        h->last_was_poll = false;
        h->poll_ran_out = false;
}

static uint64_t haltpoll_poll_limit(const Governor *g) {
        return ((const Haltpoll *) g)->window_ns;
}

const GovernorOps governor_haltpoll = {
        .name = "haltpoll",
        .summary = "KVM haltpoll: adaptive poll window (grow/shrink), then halt",
        .unsuited = "does not suit this table (haltpoll runs only on the haltpoll driver's POLL + halt)",
        .size = sizeof(Haltpoll),
        .init = haltpoll_init,
        .select = haltpoll_select,
        .reflect = haltpoll_reflect,
        .poll_limit_ns = haltpoll_poll_limit,
};
