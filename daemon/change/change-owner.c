/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>

#include "change-owner.h"
#include "macro.h"

static const char *const names[_CHANGE_OWNER_KIND_MAX] = {
        [CHANGE_OWNER_NONE] = "none",
        [CHANGE_OWNER_LEFTOVER] = "leftover",
        [CHANGE_OWNER_PLAN] = "plan",
        [CHANGE_OWNER_COMPANION] = "companion",
        [CHANGE_OWNER_MANUAL] = "manual",
        [CHANGE_OWNER_CALIBRATION] = "calibration",
        [CHANGE_OWNER_CONSOLIDATION] = "consolidation",
        [CHANGE_OWNER_PIN] = "pin",
};

bool change_owner_equal(ChangeOwner a, ChangeOwner b) {
        return a.kind == b.kind && (a.kind != CHANGE_OWNER_PIN || a.id == b.id);
}

bool change_owner_valid(ChangeOwner o) {
        return o.kind > CHANGE_OWNER_NONE && o.kind < _CHANGE_OWNER_KIND_MAX;
}

/* Returns buf. */
const char *change_owner_to_string(ChangeOwner o, char buf[static CHANGE_OWNER_TEXT_MAX]) {
        if (!change_owner_valid(o))
                snprintf(buf, CHANGE_OWNER_TEXT_MAX, "invalid");
        else if (o.kind == CHANGE_OWNER_PIN)
                snprintf(buf, CHANGE_OWNER_TEXT_MAX, "pin %" PRIu32, o.id);
        else
                snprintf(buf, CHANGE_OWNER_TEXT_MAX, "%s", names[o.kind]);
        return buf;
}

/* Who may take over from whom: the administrator's settings beat the
 * plan's; a pin, a user's request, beats consolidation's automatic
 * confinement (which skips a pinned cgroup until the pin ends), and a
 * newer pin of the same workload borrows from an older one until it ends;
 * a calibration borrows the idle knobs of a CPU and gives them back; a
 * leftover is anyone's to take. */
ChangeTake change_owner_take(ChangeOwner taker, ChangeOwner holder) {
        if (change_owner_equal(taker, holder) || holder.kind == CHANGE_OWNER_LEFTOVER)
                return CHANGE_TAKE_OVER;
        switch (taker.kind) {
        case CHANGE_OWNER_MANUAL:
                return holder.kind == CHANGE_OWNER_PLAN || holder.kind == CHANGE_OWNER_COMPANION ? CHANGE_TAKE_OVER
                                                                                                  : CHANGE_TAKE_REFUSED;
        case CHANGE_OWNER_PIN:
                /* a newer pin of the same workload holds it until it ends */
                return holder.kind == CHANGE_OWNER_CONSOLIDATION ? CHANGE_TAKE_OVER :
                       holder.kind == CHANGE_OWNER_PIN ? CHANGE_TAKE_BORROW : CHANGE_TAKE_REFUSED;
        case CHANGE_OWNER_CALIBRATION:
                return holder.kind == CHANGE_OWNER_PLAN || holder.kind == CHANGE_OWNER_COMPANION ||
                       holder.kind == CHANGE_OWNER_MANUAL ? CHANGE_TAKE_BORROW : CHANGE_TAKE_REFUSED;
        default:
                return CHANGE_TAKE_REFUSED;
        }
}

bool change_owner_claims(ChangeOwner o) {
        return o.kind == CHANGE_OWNER_MANUAL;
}
